#!/usr/bin/env bash
# One task of a class grading array (Slurm or PBS): grades the INDEX-th submission (0-based) of
# LIST into OUT/results/<submission name>/ (results.json, scoreboard.txt, build.log).
#   tools/cluster/grade_task.sh INDEX LIST OUT
# OUT/edition must hold the student edition (submit.sh writes it). COURSE_LESSONS="01 02" grades
# only those lessons; the build uses the task's CPUs (SLURM_CPUS_PER_TASK, NCPUS, else nproc).
set -euo pipefail
[ $# -eq 3 ] || { sed -n 2,6p "$0" >&2; exit 2; }
index=$1 list=$2 out=$3
fail() {
  echo "grade_task.sh: error: $*" >&2
  exit 2
}
# Every argument checked before it is used: one line and exit code 2 for each.
[[ "$index" =~ ^[0-9]+$ ]] || fail "INDEX must be a number (0 for the first line of LIST), not '$index'"
[ -f "$list" ] || fail "no list file $list"
[ -r "$list" ] || fail "cannot read $list"
[ -d "$out/edition" ] || fail "no edition in $out (OUT/edition: submit.sh writes it)"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
submission=$(sed -n "$((10#$index + 1))p" "$list")
[ -n "$submission" ] || fail "no line $((10#$index + 1)) in $list"
name=$(basename "$submission")
jobs=${SLURM_CPUS_PER_TASK:-${NCPUS:-$(nproc)}}
lessons=()
[ -n "${COURSE_LESSONS:-}" ] && read -r -a lessons <<<"${COURSE_LESSONS//;/ }"
echo "grade_task: task $index grades $submission on $(hostname) (GPU: ${CUDA_VISIBLE_DEVICES:-none assigned})"
python3 "$here/grade_submission.py" --edition "$out/edition" --submission "$submission" \
  --out "$out/results/$name" --jobs "$jobs" ${lessons[@]+--lessons "${lessons[@]}"}
echo "grade_task: $(python3 -c 'import json,sys; print("score", json.load(open(sys.argv[1]))["score"])' \
  "$out/results/$name/results.json")"
