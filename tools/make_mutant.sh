#!/usr/bin/env bash
# Writes a mutant patch from an edited copy of a solution file.
#   tools/make_mutant.sh <solution file> <edited copy> <out.patch> "<what is broken>" "<tests that must fail>"
# e.g. tools/make_mutant.sh solutions/02_transpose/transpose.cu /tmp/t.cu \
#        tests/02_transpose/mutants/tiled_no_barrier.patch "no barrier" tiled.correct
set -euo pipefail
[ $# -eq 5 ] || { sed -n 2,5p "$0" >&2; exit 2; }
solution=$1 edited=$2 out=$3 what=$4 expect=$5
[[ "$out" == *.patch ]] || { echo "make_mutant: error: the output must be a .patch file, not $out" >&2; exit 2; }
[ ! -d "$out" ] || { echo "make_mutant: error: $out is a directory" >&2; exit 2; }
if [ -e "$out" ] && [ "$(head -c 7 "$out")" != "Mutant:" ]; then
  echo "make_mutant: error: refusing to overwrite $out: it is not a mutant patch" >&2
  exit 2
fi
[ -f "$solution" ] || { echo "make_mutant: error: no solution file $solution" >&2; exit 2; }
[ -f "$edited" ] || { echo "make_mutant: error: no edited copy $edited" >&2; exit 2; }
{
  printf 'Mutant: %s\nExpect: %s\n\n' "$what" "$expect"
  diff -u --label "a/$solution" --label "b/$solution" "$solution" "$edited" || [ $? -eq 1 ]
} >"$out"
grep -q '^@@' "$out" || { echo "make_mutant: the edited copy does not differ" >&2; rm -f "$out"; exit 1; }
echo "wrote $out"
