#!/bin/sh
# Runs the test cases of a lesson's test binary that a doctest filter matches, each in its own
# process, as CTest runs a student's rows: state kept between test cases (a call counter, a cache)
# never carries from one row to the next.
#
#   course_run_rows.sh MODE EXE FILTER [SANITIZER TOOL...]
#
#   MODE     row: one row, as CTest runs each of a student's rows (FILTER names one test case);
#            reject: a mutant's check: exit 0 at the first row that rejects it (fails, crashes
#            or hangs past COURSE_ROW_TIMEOUT seconds: CTest sets the limit of a row, default 600), 1 when every row passes it
#            or the binary cannot be run (a mutant that did not build is never "rejected");
#            all: run every row (the student's memory.sanitize row reports every finding). Under
#            a sanitizer, mode all runs the rows in one process per tool: a sanitizer looks for
#            out-of-bounds accesses and races, which no state kept between rows can hide, and
#            each process it starts costs seconds.
#   EXE      the test binary
#   FILTER   a doctest --test-case filter, e.g. "tiled.correct,tiled.speed" or "*.correct"
#   SANITIZER, TOOL...  run each row under compute-sanitizer with each tool in turn
#
# The verdict lives here, outside the process that runs the student's code: every run gets a
# seed of this script's choosing (COURSE_SEED, unless the caller set one to replay a run), and
# afterwards this script compares what the run says it used -- the seed, quick mode, the
# sanitizer ("[course] run: ..."), each ceiling ("[course] ceiling-used FILE VALUE") -- with
# what it set and with the CTest run's own copy of the ceilings. A difference fails the run as
# tampered (exit code 1), whatever the process returned.
#
# Exit codes (mode row): the test binary's, or 1 when tampered; (mode all): 0 when every row
# passed, 1 when one failed; (mode reject) 0 when a row
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

# The seed of this run: the caller's (to replay), else a fresh one (short enough to retype).
if [ -z "${COURSE_SEED:-}" ]; then
  COURSE_SEED=$(( $(od -An -N4 -tu4 /dev/urandom | tr -d ' \n') % 1000000007 ))
fi
COURSE_SEED=$(printf '%u' "$COURSE_SEED") || { echo "[course] FAILED: COURSE_SEED is not a number"; exit 1; }
export COURSE_SEED

# checked COMMAND...: runs COMMAND (its output shown as it comes), then fails it as tampered
# when its report of what it used differs from what this script set. Sets $rc.
log=$(mktemp "${TMPDIR:-/tmp}/course-row.XXXXXX")
trap 'rm -f "$log" "$log.rc"' EXIT
checked() {
  { "$@"; echo $? >"$log.rc"; } 2>&1 | tee "$log"
  rc=$(cat "$log.rc")
  [ "$rc" -eq 77 ] && return
  quick=0
  case "${COURSE_QUICK:-}" in ''|0*) ;; *) quick=1 ;; esac
  sanitize=0
  [ "${COURSE_SANITIZE:-}" = 1 ] && sanitize=${COURSE_SANITIZE_TOOL:-1}
  expected="[course] run: seed=$COURSE_SEED quick=$quick sanitize=$sanitize"
  reported=$(grep -c '^\[course\] run: ' "$log")
  if [ "$reported" -eq 0 ]; then
    [ "$rc" -eq 0 ] && { echo "[course] TAMPERED: the run never said what it ran with"; rc=1; }
    return
  fi
  if grep '^\[course\] run: ' "$log" | grep -vqxF "$expected"; then
    echo "[course] TAMPERED: the run used '$(grep '^\[course\] run: ' "$log" | grep -vxF "$expected" | head -n 1)', not what the grader set ('$expected')"
    rc=1
    return
  fi
  grep '^\[course\] ceiling-used ' "$log" | while read -r _ _ file value; do
    stored=
    [ -n "${COURSE_CEILINGS_DIR:-}" ] && [ -f "$COURSE_CEILINGS_DIR/$file" ] &&
      stored=$(awk 'NR == 1 { print $2 }' "$COURSE_CEILINGS_DIR/$file")
    if [ "$stored" != "$value" ]; then
      echo "[course] TAMPERED: the run graded against the ceiling $file = $value; this CTest run measured ${stored:-none}"
      echo tampered >"$log.rc"
    fi
  done
  [ "$(cat "$log.rc")" = tampered ] && rc=1
  return 0
}

if [ "$mode" = row ]; then
  checked "$exe" "--test-case=$filter"
  exit "$rc"
fi

# Before a sanitizer starts (seconds per process), ask whether there is a GPU at all. Without one,
# a row says so itself (exit code 77), and the loop below passes that on: a process spent only
# on the question costs every mutant a CUDA start-up, one after another for the timed ones.
if [ -n "$sanitizer" ]; then
  COURSE_CHECK_GPU_ONLY=1 "$exe"
  rc=$?
  [ "$rc" -eq 77 ] && exit 77
  [ "$rc" -ne 0 ] && { echo "[course] FAILED: $exe could not check for a GPU (exit code $rc)"; exit 1; }
  if ! [ -x "$sanitizer" ]; then
    echo "[course] SKIPPED: compute-sanitizer was not found when the course was configured"
    exit 77
  fi
fi

cases=$("$exe" --list-test-cases --no-version=true "--test-case=$filter" |
        grep -E '^[a-z0-9_]+\.[a-z0-9_]+$')
if [ -z "$cases" ]; then
  echo "[course] FAILED: no test case of $exe matches '$filter'"
  exit 1
fi
if [ "$mode" = reject ]; then
  # A mutant's timed rows first: they check the output of every launch they time, so a wrong
  # result fails at the first one, and a cheat that only a timed row sees (a cache, a private
  # stream) needs one anyway; a correctness row runs every case before it can pass.
  timed=$(echo "$cases" | grep -E '\.(speed|share|speed_[a-z0-9_]+)$')
  cases="$timed $(echo "$cases" | grep -vE '\.(speed|share|speed_[a-z0-9_]+)$')"
fi

# A row that hangs fails by CTest's TIMEOUT for a student; here, by the same limit per row.
limit=
[ "$mode" = reject ] && command -v timeout >/dev/null && limit="timeout ${COURSE_ROW_TIMEOUT:-600}"

now() { date +%s.%N 2>/dev/null || date +%s; }
# memcheck with a 64 KiB padding buffer after every allocation: a read past the end of a buffer whose
# size is a multiple of cudaMalloc's granularity would otherwise land in the next allocation,
# where memcheck sees a valid address.
tool_options() { [ "$1" = memcheck ] && echo "--padding 65536"; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# sanitized TOOL ROWS [PREFIX...]: the rows ROWS of the test binary under compute-sanitizer's
# TOOL, at the sizes the tests keep for it, the command run through PREFIX (e.g. a time limit).
sanitized() {
  tool=$1 rows=$2
  shift 2
  COURSE_QUICK=1 COURSE_SANITIZE=1 COURSE_SANITIZE_TOOL=$tool "$@" "$sanitizer" --tool "$tool" \
    $(tool_options "$tool") --error-exitcode 1 "$exe" "--test-case=$rows"
}

if [ "$mode" = all ] && [ -n "$sanitizer" ]; then
  rows=$(echo $cases | tr ' ' ',')
  rc=0
  for tool in $tools; do
    echo "[course] rows $rows under compute-sanitizer --tool $tool"
    start=$(now)
    export COURSE_QUICK=1 COURSE_SANITIZE=1 COURSE_SANITIZE_TOOL=$tool  # what checked expects
    checked sanitized "$tool" "$rows"
    tool_rc=$rc
    echo "[course] $tool: exit code $tool_rc, $(seconds_since "$start") s"
    [ "$tool_rc" -eq 77 ] && exit 77
    [ "$tool_rc" -ne 0 ] && rc=1
  done
  exit $rc
fi

# A mutant's row stops at its first failed check (the verdict is the same, and a correctness row
# that caught the mutant in its first case need not run the rest); a student's row reports all.
first_failure=
[ "$mode" = reject ] && first_failure=--abort-after=1

failed=0
for case in $cases; do
  start=$(now)
  if [ -z "$sanitizer" ]; then
    echo "[course] row $case"
    checked $limit "$exe" "--test-case=$case" $first_failure
  else
    for tool in $tools; do
      echo "[course] row $case under compute-sanitizer --tool $tool"
      export COURSE_QUICK=1 COURSE_SANITIZE=1 COURSE_SANITIZE_TOOL=$tool  # what checked expects
      checked sanitized "$tool" "$case" $limit
      tool_rc=$rc
      [ "$tool_rc" -ne 0 ] && rc=$tool_rc && break
    done
  fi
  echo "[course] row $case: exit code $rc, $(seconds_since "$start") s"
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
