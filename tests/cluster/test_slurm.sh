#!/usr/bin/env bash
# Class grading through a real Slurm: starts a one-node slurmctld + slurmd under a scratch
# directory, grades three submissions with tools/cluster/submit.sh (a real sbatch --array, one
# task per submission, then the collect job) and checks the one CSV. Daemons stop on exit.
#   tests/cluster/test_slurm.sh WORK_DIR
# The submissions: the untouched student edition; lesson 01's solution copied over its skeleton;
# a syntax error in lesson 01's skeleton (its tests must be NOT BUILT, the grader must not fail).
# Only lesson 01 is built and graded (COURSE_LESSONS=01), through ccache where found.
# The node has no GPU: it advertises one count-only "gpu" GRES (gres.conf, File=/dev/null), so
# the array's --gres=gpu:1 is scheduled as written, and the GPU tests skip.
# Exit 77 ("[course] SKIPPED") when Slurm (Debian: slurm-wlm) is not installed or has no
# auth/none plugin (Slurm 23.11 removed it).
set -euo pipefail
[ $# -eq 1 ] || { sed -n 2,12p "$0" >&2; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(realpath -m "$1")

skip() { echo "[course] SKIPPED: $*"; exit 77; }
for tool in slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed (Debian/Ubuntu: apt-get install slurm-wlm)"
done
plugins=$(find /usr/lib /usr/lib64 /usr/local/lib -name auth_none.so -path '*slurm*' 2>/dev/null | head -n 1)
[ -n "$plugins" ] || skip "this Slurm has no auth/none plugin, which the one-node test uses"

started=$(date +%s)
rm -rf "$work"
mkdir -p "$work/state" "$work/spool" "$work/subs"
conf=$work/slurm.conf
export SLURM_CONF=$conf
pids=()
cleanup() {
  scancel --quiet --user="$(id -un)" 2>/dev/null || true
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
fail() {
  echo "FAILED: $*"
  for log in "$work"/slurmctld.log "$work"/slurmd.log "$work"/out/logs/*.log; do
    [ -f "$log" ] && { echo "--- $log"; tail -n 25 "$log"; }
  done
  exit 1
}

# --- A one-node cluster of the current user, on free local ports ---------------------------
read -r ctld_port slurmd_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')
user=$(id -un)
cat >"$conf" <<EOF
ClusterName=coursetest
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
ReturnToService=2
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
GresTypes=gpu
NodeName=course1 NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 Gres=gpu:1 State=UNKNOWN
PartitionName=course Nodes=course1 Default=YES MaxTime=INFINITE State=UP
EOF
echo "NodeName=course1 Name=gpu Count=1 File=/dev/null" >"$work/gres.conf"

slurmctld -D -i >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N course1 >"$work/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 60); do
  [ "$(sinfo -h -n course1 -o %t 2>/dev/null)" = idle ] && break
  sleep 0.5
done
[ "$(sinfo -h -n course1 -o %t 2>/dev/null)" = idle ] || fail "the node did not come up: $(sinfo -h -N -o '%N %t %E' 2>&1)"
echo "slurm: one node up after $(($(date +%s) - started)) s"

# --- Three submissions -------------------------------------------------------------------
skeleton=lessons/01_constant_memory/constant_memory.cu
# The editions come from the working tree, so that the test sees uncommitted changes too.
python3 "$repo/tools/student_edition.py" "$work/subs/untouched" --worktree >/dev/null
cp -r "$work/subs/untouched" "$work/subs/solved01"
cp "$repo/solutions/01_constant_memory/constant_memory.cu" "$work/subs/solved01/$skeleton"
cp -r "$work/subs/untouched" "$work/subs/broken01"
printf '\nvoid this_does_not_compile( {\n' >>"$work/subs/broken01/$skeleton"
printf '%s\n' "$work/subs/untouched" "$work/subs/solved01" "$work/subs/broken01" >"$work/list.txt"

# --- Grade them through sbatch --array, and wait for the collect job ------------------------
COURSE_LESSONS=01 COURSE_WAIT=1 COURSE_EDITION_WORKTREE=1 timeout 900 "$repo/tools/cluster/submit.sh" "$work/list.txt" "$work/out" ||
  fail "submit.sh or a job failed"
echo "slurm: graded and collected after $(($(date +%s) - started)) s"

# --- One CSV, three rows, and what each row must say ---------------------------------------
csv=$work/out/grades.csv
[ -f "$csv" ] || fail "no $csv"
cat "$csv"
python3 - "$csv" "$work/out/results" <<'EOF' || fail "the CSV or the scoreboards are wrong"
import csv, sys
from pathlib import Path
rows = {row["submission"]: row for row in csv.DictReader(open(sys.argv[1], encoding="utf-8"))}
results = Path(sys.argv[2])
assert sorted(rows) == ["broken01", "solved01", "untouched"], rows
for name, row in rows.items():
    assert row["status"] == "graded", (name, row)
    assert float(row["max"]) > 0, (name, row)
    assert all(key.startswith("lesson01 ") for key in row if key not in ("submission", "status", "score", "max")), row
# Lesson 01's CPU test passes wherever the lesson built.
for name in ("untouched", "solved01"):
    assert float(rows[name]["lesson01 launcher.bad_arguments"]) == 1.0, rows[name]
assert float(rows["solved01"]["score"]) >= float(rows["untouched"]["score"]), rows
# The broken one: zero, and its scoreboard names the compile error.
assert float(rows["broken01"]["score"]) == 0.0, rows["broken01"]
board = (results / "broken01" / "scoreboard.txt").read_text(encoding="utf-8")
assert "NOT BUILT" in board and "constant_memory.cu" in board and "error" in board, board
for name in ("untouched", "solved01"):
    assert "NOT BUILT" not in (results / name / "scoreboard.txt").read_text(encoding="utf-8"), name
print("slurm: grades.csv has the three submissions, each scored as expected")
EOF
echo "slurm: passed in $(($(date +%s) - started)) s"
