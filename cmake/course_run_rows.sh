#!/bin/sh
# Runs the test cases of a lesson's test binary that a doctest filter matches, each in its own
# process, as CTest runs a student's rows: state kept between test cases (a call counter, a cache)
# never carries from one row to the next.
#
#   course_run_rows.sh MODE EXE FILTER [SANITIZER TOOL...]
#
#   MODE     reject: stop at the first failing row (a mutant is rejected by one failure);
#            all: run every row (the student's memory.sanitize row reports every finding)
#   EXE      the test binary
#   FILTER   a doctest --test-case filter, e.g. "tiled.correct,tiled.speed" or "*.correct"
#   SANITIZER, TOOL...  run each row under compute-sanitizer with each tool in turn
#
# Exit codes: 0 when every row passed, 1 when one failed, 77 when there is no usable GPU or no
# compute-sanitizer (CTest reports SKIPPED, with the reason printed).
set -u
mode=$1 exe=$2 filter=$3
shift 3
sanitizer=${1:-}
[ $# -gt 0 ] && shift
tools=$*

COURSE_CHECK_GPU_ONLY=1 "$exe"
rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -ne 0 ] && { echo "[course] FAILED: $exe could not check for a GPU (exit code $rc)"; exit 1; }
if [ -n "$sanitizer" ] && ! [ -x "$sanitizer" ]; then
  echo "[course] SKIPPED: compute-sanitizer was not found when the course was configured"
  exit 77
fi

cases=$("$exe" --list-test-cases --no-version=true "--test-case=$filter" |
        grep -E '^[a-z0-9_]+\.[a-z0-9_]+$')
if [ -z "$cases" ]; then
  echo "[course] FAILED: no test case of $exe matches '$filter'"
  exit 1
fi

failed=0
for case in $cases; do
  if [ -z "$sanitizer" ]; then
    echo "[course] row $case"
    "$exe" "--test-case=$case"
    rc=$?
  else
    rc=0
    for tool in $tools; do
      echo "[course] row $case under compute-sanitizer --tool $tool"
      COURSE_QUICK=1 COURSE_SANITIZE=1 "$sanitizer" --tool "$tool" --error-exitcode 1 \
        "$exe" "--test-case=$case"
      tool_rc=$?
      [ "$tool_rc" -ne 0 ] && rc=$tool_rc && break
    done
  fi
  [ "$rc" -eq 77 ] && exit 77
  if [ "$rc" -ne 0 ]; then
    echo "[course] row $case failed (exit code $rc)"
    failed=1
    [ "$mode" = reject ] && break
  fi
done
exit $failed
