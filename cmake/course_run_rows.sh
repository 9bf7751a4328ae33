#!/bin/sh
# Runs the test cases of a lesson's test binary that a doctest filter matches, each in its own
# process, as CTest runs a student's rows: state kept between test cases (a call counter, a cache)
# never carries from one row to the next.
#
#   course_run_rows.sh MODE EXE FILTER [SANITIZER TOOL...]
#
#   MODE     reject: a mutant's check: exit 0 at the first row that rejects it (fails, crashes
#            or hangs past COURSE_ROW_TIMEOUT seconds, default 600), 1 when every row passes it
#            or the binary cannot be run (a mutant that did not build is never "rejected");
#            all: run every row (the student's memory.sanitize row reports every finding)
#   EXE      the test binary
#   FILTER   a doctest --test-case filter, e.g. "tiled.correct,tiled.speed" or "*.correct"
#   SANITIZER, TOOL...  run each row under compute-sanitizer with each tool in turn
#
# Exit codes (mode all): 0 when every row passed, 1 when one failed; (mode reject) 0 when a row
# rejected the mutant, 1 when none did; either mode: 77 when there is no usable GPU or no
# compute-sanitizer (CTest reports SKIPPED, with the reason printed).
set -u
mode=$1 exe=$2 filter=$3
shift 3
sanitizer=${1:-}
[ $# -gt 0 ] && shift
tools=$*

if ! [ -x "$exe" ]; then
  echo "[course] FAILED: $exe does not exist: did it build?"
  exit 1
fi
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

# A row that hangs fails by CTest's TIMEOUT for a student; here, by the same limit per row.
limit=
[ "$mode" = reject ] && command -v timeout >/dev/null && limit="timeout ${COURSE_ROW_TIMEOUT:-600}"

failed=0
for case in $cases; do
  if [ -z "$sanitizer" ]; then
    echo "[course] row $case"
    $limit "$exe" "--test-case=$case"
    rc=$?
  else
    rc=0
    for tool in $tools; do
      echo "[course] row $case under compute-sanitizer --tool $tool"
      COURSE_QUICK=1 COURSE_SANITIZE=1 $limit "$sanitizer" --tool "$tool" --error-exitcode 1 \
        "$exe" "--test-case=$case"
      tool_rc=$?
      [ "$tool_rc" -ne 0 ] && rc=$tool_rc && break
    done
  fi
  [ "$rc" -eq 77 ] && exit 77
  if [ "$rc" -ne 0 ]; then
    echo "[course] row $case failed (exit code $rc)"
    if [ "$mode" = reject ]; then
      echo "[course] rejected: row $case caught the mutant"
      exit 0
    fi
    failed=1
  fi
done
if [ "$mode" = reject ]; then
  echo "[course] FAILED: not rejected: every row ($(echo $cases | tr ' ' ',')) passed the mutant"
  exit 1
fi
exit $failed
