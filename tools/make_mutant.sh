#!/usr/bin/env bash
# Writes a mutant patch from an edited copy of a solution file.
#   tools/make_mutant.sh <solution file> <edited copy> <out.patch> "<what is broken>" "<tests that must fail>"
# e.g. tools/make_mutant.sh solutions/02_transpose/transpose.cu /tmp/t.cu \
#        tests/02_transpose/mutants/tiled_no_barrier.patch "no barrier" tiled.correct
set -euo pipefail
[ $# -eq 5 ] || { sed -n 2,5p "$0" >&2; exit 2; }
solution=$1 edited=$2 out=$3 what=$4 expect=$5
{
  printf 'Mutant: %s\nExpect: %s\n\n' "$what" "$expect"
  diff -u --label "a/$solution" --label "b/$solution" "$solution" "$edited" || [ $? -eq 1 ]
} >"$out"
grep -q '^@@' "$out" || { echo "make_mutant: the edited copy does not differ" >&2; rm -f "$out"; exit 1; }
echo "wrote $out"
