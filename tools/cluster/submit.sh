#!/usr/bin/env bash
# Grade a class on a Slurm cluster: one array task (one GPU) per submission, then one CSV.
usage() {
  cat >&2 <<'EOF'
usage: tools/cluster/submit.sh LIST OUT [extra sbatch options...]
  LIST  one submission directory per line (each laid out like the repository: lessons/NN_*/...)
  OUT   a new or empty directory, or one that submit.sh wrote before; it gets edition/ (the
        student edition every submission is built into), results/<name>/, logs/, and
        grades.csv once the collect job has run
Environment:
  COURSE_GRES=gpu:1          the array's GPU request (none: no GPU, e.g. a test cluster)
  COURSE_LESSONS="01 02"     grade only these lessons (default: all)
  COURSE_MAX_PARALLEL=N      at most N tasks at once
  COURSE_WAIT=1              return only when grades.csv is written
  COURSE_EDITION_WORKTREE=1  build the edition from the working tree, not from HEAD
Every input is checked before anything is written or submitted.
EOF
}
set -euo pipefail
fail() {
  echo "submit.sh: error: $*" >&2
  exit 2
}
case "${1:-}" in -h | --help) usage; exit 0 ;; esac
[ $# -ge 2 ] || { usage; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
list_in=$1 out_in=$2
shift 2

# --- Check every input; nothing is written before this section ends --------------------------
[ -n "$list_in" ] || fail "LIST is empty"
[ -e "$list_in" ] || fail "no list file $list_in"
[ -f "$list_in" ] || fail "$list_in is not a file (LIST: one submission directory per line)"
[ -r "$list_in" ] || fail "cannot read $list_in"
[ -n "$out_in" ] || fail "OUT is empty"
command -v python3 >/dev/null || fail "python3 not found"
# Absolute paths, no blank lines: task i reads line i + 1.
submissions=()
while IFS= read -r line || [ -n "$line" ]; do
  line=${line%$'\r'}
  [ -n "${line//[[:space:]]/}" ] || continue
  submissions+=("$(realpath -m -- "$line")")
done <"$list_in"
count=${#submissions[@]}
[ "$count" -gt 0 ] || fail "no submissions in $list_in (one directory per line)"
missing=()
for submission in "${submissions[@]}"; do
  [ -d "$submission" ] || missing+=("$submission")
done
[ ${#missing[@]} -eq 0 ] ||
  fail "${#missing[@]} of the $count listed submissions are not directories: ${missing[0]}$([ ${#missing[@]} -gt 1 ] && echo ", ...")"
# Names must be unique: each gets results/<name>.
duplicates=$(printf '%s\n' "${submissions[@]}" | xargs -d '\n' -n1 basename | sort | uniq -d | paste -sd' ')
[ -z "$duplicates" ] || fail "submission names must be unique (results/<name>): $duplicates"
if [ -n "${COURSE_LESSONS:-}" ]; then
  for lesson in ${COURSE_LESSONS//;/ }; do
    [[ "$lesson" =~ ^[0-9][0-9]$ ]] || fail "COURSE_LESSONS: '$lesson' is not a lesson number like 01"
    compgen -G "$repo/lessons/${lesson}_*" >/dev/null || fail "COURSE_LESSONS: no lesson $lesson in $repo/lessons"
  done
fi
[[ "${COURSE_MAX_PARALLEL:-1}" =~ ^[1-9][0-9]*$ ]] || fail "COURSE_MAX_PARALLEL must be a positive number"
command -v sbatch >/dev/null || fail "sbatch not found: submit.sh needs Slurm (tools/cluster/README.md shows PBS)"
protect=(--protect "$repo")
for submission in "${submissions[@]}"; do protect+=(--protect "$submission"); done
python3 "$repo/tools/safe_output.py" check-dir "$out_in" --tool submit.sh --replace "${protect[@]}" || exit 2
out=$(realpath -m -- "$out_in")
# An earlier edition in OUT is replaced only if nobody worked in it since.
if [ -e "$out/edition" ] && ! why=$(python3 "$repo/tools/safe_output.py" check-dir "$out/edition" \
  --tool student_edition.py --replace --untouched --protect "$repo" 2>&1); then
  fail "${why#student_edition.py: error: }"
fi
array="0-$((count - 1))${COURSE_MAX_PARALLEL:+%$COURSE_MAX_PARALLEL}"
gres=${COURSE_GRES:-gpu:1}
# Slurm itself, asked before anything is written: the controller answers, and takes the array
# with these options (--test-only submits nothing).
if ! probe=$(sbatch --test-only --array="$array" --gres="$gres" "$@" \
  "$repo/tools/cluster/grade_array.sbatch" "$list_in" "$out" 2>&1); then
  fail "sbatch cannot submit the array: $(printf '%s\n' "$probe" | grep -v '^[[:space:]]*$' | head -n 1 | sed 's/^sbatch: error: //')"
fi

# --- Write: OUT (marked as submit.sh's), the list, the edition; then submit -----------------
python3 "$repo/tools/safe_output.py" mark "$out" --tool submit.sh
mkdir -p "$out/logs" "$out/results"
list=$out/submissions.txt
printf '%s\n' "${submissions[@]}" >"$list"

edition_from=()
[ "${COURSE_EDITION_WORKTREE:-0}" = 1 ] && edition_from=(--worktree)
python3 "$repo/tools/student_edition.py" "$out/edition" --force --source-dir "$repo" ${edition_from[@]+"${edition_from[@]}"}

job=$(sbatch --parsable --array="$array" --gres="$gres" \
  --output="$out/logs/grade-%a.log" --export=ALL,COURSE_REPO="$repo" "$@" \
  "$repo/tools/cluster/grade_array.sbatch" "$list" "$out")
job=${job%%;*}
wait=()
[ "${COURSE_WAIT:-0}" = 1 ] && wait=(--wait)
echo "submit: array job $job grades $count submissions; results in $out/results"
collect=$(sbatch --parsable --job-name=course-collect --dependency=afterany:"$job" --gres=none \
  --cpus-per-task=1 --output="$out/logs/collect.log" ${wait[@]+"${wait[@]}"} \
  --wrap "python3 '$repo/tools/cluster/collect.py' '$out/results' --list '$list' --csv '$out/grades.csv'")
echo "submit: collect job ${collect%%;*} writes $out/grades.csv when the array is done"
