#!/usr/bin/env bash
# The whole check on a GPU machine, in one go: configure and build the instructor and student
# trees, run every test (unit, solution, skeleton, mutant, sanitize), run the demos, and grade
# the untouched skeleton. Logs go to $OUT (default: build/gpu-check).
#   tools/gpu_check.sh [extra cmake -D options...]
# Environment: COURSE_CHECK_STEPS picks steps (default "build demos tests grade sanitize"; a call
# may run some now and the rest in a later call over the same build tree);
# COURSE_CHECK_LESSONS="03;04" builds and checks only those lessons.
# On the course's GPU lease: ../shared/device/stage-deps.sh doctest-dev libcli11-dev
# nlohmann-json3-dev first, carry .deps, and the script picks it up.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${OUT:-$top/build/gpu-check}
mkdir -p "$out"
extra=("$@")
[ -d .deps/usr ] && extra+=("-DCMAKE_PREFIX_PATH=$top/.deps/usr")
jobs=$(nproc)
steps=" ${COURSE_CHECK_STEPS:-build demos tests grade sanitize} "
[ -n "${COURSE_CHECK_LESSONS:-}" ] && extra+=("-DCOURSE_LESSONS=$COURSE_CHECK_LESSONS")
wants() { [[ "$steps" == *" $1 "* ]]; }
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv || true
  date -u
} >"$out/summary.txt" 2>&1

step() { echo "== $* ($(date -u +%T))" | tee -a "$out/summary.txt"; }

if wants build; then
step configure and build, instructor tree
cmake --preset dev "${extra[@]}" >"$out/build.log" 2>&1 &&
  cmake --build build/dev -j "$jobs" >>"$out/build.log" 2>&1
echo "build rc=$?" | tee -a "$out/summary.txt"
grep -E "warning|error" "$out/build.log" | head -20 >>"$out/summary.txt"
fi

if wants demos; then
step demos
for demo in build/dev/lessons/*/lesson*_demo_solution; do
  "$demo" >>"$out/demos.txt" 2>&1
  "$demo" --json >"build/dev/$(basename "$demo").json" 2>>"$out/demos.txt"
done
tar -czf "$out/results.tgz" -C build/dev $(cd build/dev && ls lesson*_demo_solution.json)
cat "$out/demos.txt" >>"$out/summary.txt"
fi

if wants tests; then
step tests: unit, solution, skeleton, mutant
ctest --test-dir build/dev -LE sanitize -j 4 --output-on-failure \
  --output-junit "$top/build/dev/junit.xml" >"$out/ctest.log" 2>&1
tail -n 40 "$out/ctest.log" | tee -a "$out/summary.txt"
fi

if wants grade; then
step grade the untouched skeleton
cmake --preset student "${extra[@]}" >"$out/grade.txt" 2>&1 &&
  cmake --build --preset grade -j "$jobs" >>"$out/grade.txt" 2>&1
tail -n 60 "$out/grade.txt" >>"$out/summary.txt"
fi

if wants sanitize; then
step sanitize
ctest --test-dir build/dev -L sanitize -j 4 --output-on-failure >"$out/sanitize.log" 2>&1
tail -n 20 "$out/sanitize.log" | tee -a "$out/summary.txt"
fi
step done
