#!/usr/bin/env bash
# Grade a class on a Slurm cluster: one array task (one GPU) per submission, then one CSV.
#   tools/cluster/submit.sh LIST OUT [extra sbatch options...]
# LIST: one submission directory per line (each laid out like the repository: lessons/NN_*/...).
# OUT: gets edition/ (the student edition every submission is built into), results/<name>/,
# logs/, and grades.csv once the collect job has run. Environment:
#   COURSE_GRES=gpu:1        the array's GPU request (none: no GPU, e.g. a test cluster)
#   COURSE_LESSONS="01 02"   grade only these lessons (default: all)
#   COURSE_MAX_PARALLEL=N    at most N tasks at once
#   COURSE_WAIT=1            return only when grades.csv is written
#   COURSE_EDITION_WORKTREE=1  build the edition from the working tree, not from HEAD
set -euo pipefail
[ $# -ge 2 ] || { sed -n 2,12p "$0" >&2; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
list_in=$1 out=$(realpath -m "$2")
shift 2
mkdir -p "$out/logs" "$out/results"

# Absolute paths, no blank lines: task i reads line i + 1. Names must be unique (results/<name>).
list=$out/submissions.txt
while IFS= read -r line || [ -n "$line" ]; do
  [ -n "${line// /}" ] && realpath -m "$line"
done <"$list_in" >"$list"
count=$(wc -l <"$list")
[ "$count" -gt 0 ] || { echo "submit: no submissions in $list_in" >&2; exit 2; }
duplicates=$(xargs -d '\n' -n1 basename <"$list" | sort | uniq -d)
[ -z "$duplicates" ] || { echo "submit: submission names must be unique: $duplicates" >&2; exit 2; }

edition_from=()
[ "${COURSE_EDITION_WORKTREE:-0}" = 1 ] && edition_from=(--worktree)
python3 "$repo/tools/student_edition.py" "$out/edition" --force --source-dir "$repo" "${edition_from[@]}"

array="0-$((count - 1))${COURSE_MAX_PARALLEL:+%$COURSE_MAX_PARALLEL}"
job=$(sbatch --parsable --array="$array" --gres="${COURSE_GRES:-gpu:1}" \
  --output="$out/logs/grade-%a.log" --export=ALL,COURSE_REPO="$repo" "$@" \
  "$repo/tools/cluster/grade_array.sbatch" "$list" "$out")
job=${job%%;*}
wait=()
[ "${COURSE_WAIT:-0}" = 1 ] && wait=(--wait)
echo "submit: array job $job grades $count submissions; results in $out/results"
collect=$(sbatch --parsable --job-name=course-collect --dependency=afterany:"$job" --gres=none \
  --cpus-per-task=1 --output="$out/logs/collect.log" "${wait[@]}" \
  --wrap "python3 '$repo/tools/cluster/collect.py' '$out/results' --list '$list' --csv '$out/grades.csv'")
echo "submit: collect job ${collect%%;*} writes $out/grades.csv when the array is done"
