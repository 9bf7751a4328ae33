#!/usr/bin/env bash
# The whole check on a GPU machine, in one go: configure and build the instructor tree, run
# every test (unit, solution, skeleton, mutant, sanitize), run the demos, grade the untouched
# skeleton, and grade the solutions copied over the skeletons (full points expected). Logs go to
# $OUT (default: build/gpu-check).
#   tools/gpu_check.sh [extra cmake -D options...]
# Environment: COURSE_CHECK_STEPS picks steps (default "build unit solution mutant skeleton
# sanitize demos grade full"; "profile" runs every profile_lessonNN target into profile.txt;
# "results" rewrites slides/results/*.json on this GPU (slides-results.tgz); "instructor" runs every test but the sanitizers in one CTest run, as
# the suite's time is measured; a call may run some now and the rest in a later call over the
# same build tree); COURSE_CHECK_LESSONS="03;04" builds and checks only those lessons;
# COURSE_CHECK_JOBS sets ctest -j (default 8: correctness rows share the GPU, timed rows run
# alone).
# On the course's GPU lease: ../shared/device/stage-deps.sh doctest-dev libcli11-dev
# nlohmann-json3-dev libstb-dev first, carry .deps, and the script picks it up.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${OUT:-$top/build/gpu-check}
# $OUT: new, empty, or this script's own earlier output; never the course or a directory above it.
python3 "$top/tools/safe_output.py" check-dir "$out" --tool gpu_check.sh --replace --protect "$top" || exit 2
python3 "$top/tools/safe_output.py" mark "$out" --tool gpu_check.sh
extra=("$@")
[ -d .deps/usr ] && extra+=("-DCMAKE_PREFIX_PATH=$top/.deps/usr")
jobs=$(nproc)
ctest_jobs=${COURSE_CHECK_JOBS:-8}
steps=" ${COURSE_CHECK_STEPS:-build unit solution mutant skeleton sanitize demos grade full} "
# Always passed, empty meaning every lesson: the build tree's cache would otherwise keep the
# subset of an earlier call, and a whole check would quietly cover a few lessons.
extra+=("-DCOURSE_LESSONS=${COURSE_CHECK_LESSONS:-}")
wants() { [[ "$steps" == *" $1 "* ]]; }
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv || true
  date -u
} >>"$out/summary.txt" 2>&1

step() { echo "== $* ($(date -u +%T))" | tee -a "$out/summary.txt"; }
# ctest_step <name> <ctest arguments...>: one log per step, its summary and time in summary.txt.
ctest_step() {
  local name=$1
  shift
  local start=$SECONDS
  ctest --test-dir build/dev -j "$ctest_jobs" --output-on-failure \
    --output-junit "$top/build/dev/junit-$name.xml" "$@" >"$out/ctest-$name.log" 2>&1
  echo "ctest $name: $((SECONDS - start)) s" | tee -a "$out/summary.txt"
  grep -E "tests passed|tests failed|\*\*\*Failed|Failed  |Timeout|Not Run|\(Failed\)" \
    "$out/ctest-$name.log" | tail -n 40 | tee -a "$out/summary.txt"
  echo "ten slowest ($name):" >>"$out/summary.txt"
  grep -E "Test +#" "$out/ctest-$name.log" | awk '{print $(NF-1), $4}' | sort -rn | head -n 10 \
    >>"$out/summary.txt"
  cp "$top/build/dev/junit-$name.xml" "$out/" 2>/dev/null
}

if wants build; then
  step configure and build, instructor tree
  start=$SECONDS
  cmake --preset dev "${extra[@]}" >"$out/build.log" 2>&1 &&
    cmake --build build/dev -j "$jobs" -- -k 0 >>"$out/build.log" 2>&1
  echo "build rc=$? $((SECONDS - start)) s" | tee -a "$out/summary.txt"
  grep -E "warning|error" "$out/build.log" | head -20 >>"$out/summary.txt"
fi

wants unit && { step unit; ctest_step unit -L unit; }
wants solution && { step solution rows; ctest_step solution -L solution -LE sanitize; }
wants mutant && { step mutants; ctest_step mutant -L mutant -LE sanitize; }
wants skeleton && { step the untouched skeleton; ctest_step skeleton -L student -LE sanitize; }
wants sanitize && { step sanitize; ctest_step sanitize -L sanitize; }
# The instructor suite as one CTest run (what #17 times): everything but the sanitizers.
wants instructor && { step instructor suite; ctest_step instructor -LE sanitize; }

if wants demos; then
  step demos
  for demo in build/dev/lessons/*/lesson*_demo_solution; do
    "$demo" >>"$out/demos.txt" 2>&1
    "$demo" --json >"build/dev/$(basename "$demo").json" 2>>"$out/demos.txt"
  done
  tar -czf "$out/results.tgz" -C build/dev $(cd build/dev && ls lesson*_demo_solution.json)
fi

if wants profile; then
  # Every lesson's profile target (Nsight Compute on its pair of rungs), one after another.
  step profile targets
  for target in $(cmake --build build/dev --target help | grep -o "profile_lesson[0-9]*" | sort -u); do
    start=$SECONDS
    cmake --build build/dev --target "$target" >>"$out/profile.txt" 2>&1
    echo "$target rc=$? $((SECONDS - start)) s" | tee -a "$out/summary.txt"
  done
fi

if wants results; then
  # The committed measured results, rewritten on this GPU (slides/results/<gpu>/*.json).
  step results
  cmake --build build/dev --target results >"$out/results.txt" 2>&1
  echo "results rc=$?" | tee -a "$out/summary.txt"
  tar -czf "$out/slides-results.tgz" slides/results/*/*.json
fi

if wants grade; then
  step grade the untouched skeleton
  cmake --preset student "${extra[@]}" >"$out/grade.txt" 2>&1 &&
    cmake --build --preset grade -j "$jobs" >>"$out/grade.txt" 2>&1
  grep -E "^Total|^Lesson|subtotal|integrity" "$out/grade.txt" | tail -n 30 >>"$out/summary.txt"
fi

if wants full; then
  # The solutions copied over the skeletons, graded as a student's work: full points expected.
  step grade the solutions as a student submission
  full=$(mktemp -d /tmp/course-full.XXXXXX)
  # The tree as it is: files the index still lists but the tree no longer has are left out.
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    xargs -0 cp --parents -t "$full"
  [ -d .deps ] && cp -r .deps "$full/"
  # Every file of a solution has its skeleton's name (tests/unit/test_solution_files.py).
  for dir in solutions/*/; do cp "$dir"* "$full/lessons/$(basename "$dir")/"; done
  (cd "$full" && cmake --preset student "${extra[@]}" -DCMAKE_PREFIX_PATH="$full/.deps/usr" \
     >"$out/full.txt" 2>&1 && cmake --build --preset student -j "$jobs" >>"$out/full.txt" 2>&1)
  start=$SECONDS
  (cd "$full" && cmake --build --preset grade -j "$jobs" >>"$out/full.txt" 2>&1)
  echo "student suite (grade, after the build): $((SECONDS - start)) s" | tee -a "$out/summary.txt"
  grep -E "^Total|^Lesson|subtotal|FAIL|integrity" "$out/full.txt" | tail -n 40 >>"$out/summary.txt"
  cp "$full/build/student/grade-ctest.log" "$out/full-ctest.log" 2>/dev/null
fi
step done
