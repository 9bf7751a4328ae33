#!/usr/bin/env python3
"""Profiles one or two rungs of a lesson with Nsight Compute and prints the few metrics that
explain a kernel's speed, one column per rung: time, DRAM throughput and bytes, L2 hit rate,
achieved occupancy, shared-memory bank conflicts, FP32 instructions and the top warp stalls.

    profile.py --demo build/student/lessons/04_aat_padding/lesson04_demo_student \\
               --lesson 04_aat_padding --rung tiled_unpadded --rung tiled_padded --size 2048

Each --rung is NAME or NAME=REGEX: the demo runs that rung alone (--variant NAME --repeat 1) and
ncu profiles the first launch of the kernel whose function name matches REGEX (default
^NAME_kernel). The targets `profile_lessonNN` run this with each lesson's choice
(cmake/CourseProfile.cmake). Exit status: 0 with the table; 77 (skipped) when there is no GPU,
no ncu, or the performance counters are not permitted, with the reason; 2 for bad arguments;
1 when the demo or ncu fails three runs in a row (another process's kernels may spoil a run).
Python's standard library only.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

SKIP = 77
STALLS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle",
          "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc",
          "no_instruction", "not_selected", "selected", "short_scoreboard", "sleeping",
          "tex_throttle", "wait"]
STALL_METRIC = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"
# (metric, row label, how to print it); every name checked against `ncu --query-metrics` for
# GH100 with Nsight Compute 2025.3.
METRICS = [
    ("gpu__time_duration.sum", "duration", "time"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput, % of peak", "pct"),
    ("dram__bytes_read.sum", "DRAM bytes read", "bytes"),
    ("dram__bytes_write.sum", "DRAM bytes written", "bytes"),
    ("lts__t_sector_hit_rate.pct", "L2 hit rate", "pct"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy", "pct"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput, % of peak", "pct"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared bank conflicts, loads",
     "count"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared bank conflicts, stores",
     "count"),
    ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "FP32 FMA (thread instructions)",
     "count"),
    ("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "FP32 add", "count"),
    ("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "FP32 multiply", "count"),
]
TOP_STALLS = 3


class Skip(Exception):
    """The profile cannot run on this machine; the message says why."""


def find_ncu(given: str | None) -> str:
    candidates = [given] if given else []
    candidates += [shutil.which("ncu") or ""]
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            candidates.append(str(Path(root) / "bin" / "ncu"))
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    raise Skip("Nsight Compute (ncu) was not found on the PATH or in the CUDA toolkit; it comes "
               "with the toolkit (package cuda-nsight-compute) or from "
               "https://developer.nvidia.com/nsight-compute")


def check_gpu(demo: str) -> None:
    """Skips when the demo itself says no GPU can run (its --limits exits 77)."""
    done = subprocess.run([demo, "--limits"], capture_output=True, text=True, timeout=120)
    if done.returncode == SKIP:
        raise Skip((done.stderr or done.stdout).strip() or "no usable GPU")
    if done.returncode != 0:
        raise RuntimeError(f"{demo} --limits failed ({done.returncode}): {done.stderr.strip()}")


def denied(text: str) -> str | None:
    """Why ncu could not read the counters, when its output says so."""
    if "ERR_NVGPUCTRPERM" in text:
        return ("the GPU's performance counters are not permitted to this user "
                "(ERR_NVGPUCTRPERM); an administrator can allow them: "
                "https://developer.nvidia.com/ERR_NVGPUCTRPERM")
    for sign in ("LibraryNotLoaded", "Failed to initialize the profiler",
                 "not supported on this device", "No supported device"):
        if sign in text:
            line = next((l for l in text.splitlines() if sign in l), sign)
            return f"ncu could not start its profiler on this machine: {line.strip()}"
    return None


def unsupported_rung(output: str, rung: str) -> str | None:
    """Why the demo skipped @p rung, when its table says so: this GPU or this build cannot run
    it (a Hopper rung in a build without sm_90a code, a tensor-core rung on an older GPU), so
    there is no kernel to profile."""
    match = re.search(rf"^{re.escape(rung)}\s+\S+\s+skipped\b(.*)$", output, re.MULTILINE)
    if not match:
        return None
    note = " ".join(match.group(1).split())
    return f"this GPU or build cannot run rung {rung}" + (f" (the demo's row: {note})" if note else "")


def parse_rung(text: str) -> tuple[str, str]:
    name, _, regex = text.partition("=")
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        raise argparse.ArgumentTypeError(f"--rung takes NAME or NAME=REGEX, not {text!r}")
    return name, regex or f"^{name}_kernel"


# ncu's counters belong to the whole GPU: a kernel of another process that runs during one of
# the profiled kernel's replay passes (a CTest row beside this one) can leave the pass without
# its metrics or fail it. Such a failure does not repeat; one that does is the demo's or ncu's.
ATTEMPTS = 3


def profile(ncu: str, demo: str, rung: str, regex: str, size: str | None,
            demo_args: list[str], attempts: int = ATTEMPTS) -> dict:
    """One rung: the metrics of the first launch of its kernel, by metric name. A failed run is
    tried again, up to @p attempts runs in all; the last failure is the one reported, with the
    earlier ones printed."""
    for attempt in range(1, attempts + 1):
        try:
            return profile_once(ncu, demo, rung, regex, size, demo_args)
        except RuntimeError as error:
            if attempt == attempts:
                raise
            print(f"profile of rung {rung}, run {attempt} of {attempts} failed; again: {error}",
                  file=sys.stderr)
    raise AssertionError("unreachable")


def profile_once(ncu: str, demo: str, rung: str, regex: str, size: str | None,
                 demo_args: list[str]) -> dict:
    """One ncu run of one rung: the metrics of the first launch of its kernel, by metric name."""
    metrics = [m for m, _, _ in METRICS] + [STALL_METRIC.format(s) for s in STALLS]
    command = [ncu, "--clock-control", "none", "--kernel-name-base", "function",
               "--kernel-name", f"regex:{regex}", "--launch-count", "1", "--csv",
               "--metrics", ",".join(metrics), demo, "--variant", rung, "--repeat", "1"]
    if size:
        command += ["--size", size]
    command += demo_args
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    output = done.stdout + done.stderr
    if reason := denied(output):
        raise Skip(reason)
    if done.returncode == SKIP:
        raise Skip("the demo found no usable GPU")
    if done.returncode != 0:
        raise RuntimeError(f"ncu or the demo failed ({done.returncode}) for rung {rung}:\n"
                           + "\n".join(output.splitlines()[-15:]))
    start = output.find('"ID","Process ID"')
    if start < 0 and (why := unsupported_rung(output, rung)):
        raise Skip(why)
    if start < 0:
        raise RuntimeError(f"ncu profiled no kernel matching {regex!r} in rung {rung}; "
                           "is the rung implemented, and is that its kernel's name?\n"
                           + "\n".join(output.splitlines()[-15:]))
    values: dict[str, float] = {}
    kernel = ""
    for row in csv.DictReader(io.StringIO(output[start:])):
        if "Metric Name" not in row or row.get("Metric Value") is None:
            continue
        kernel = row.get("Kernel Name", kernel)
        try:
            values[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    missing = [m for m in metrics if m not in values]
    if missing:
        raise RuntimeError(f"ncu did not report {', '.join(missing)} for rung {rung}")
    return {"rung": rung, "kernel": kernel, "metrics": values}


def show(metric_kind: str, value: float) -> str:
    if metric_kind == "time":
        return f"{value / 1e6:.3f} ms" if value >= 1e6 else f"{value / 1e3:.1f} us"
    if metric_kind == "pct":
        return f"{value:.1f} %"
    if metric_kind == "bytes":
        return f"{value / 1e6:.1f} MB"
    return f"{value:,.0f}"


def stall_ranking(values: dict[str, float]) -> list[tuple[str, float]]:
    """The stall reasons, largest first, leaving out 'selected' (a warp issuing is not stalled)."""
    ranked = [(s, values[STALL_METRIC.format(s)]) for s in STALLS if s != "selected"]
    return sorted(ranked, key=lambda item: -item[1])


def table(results: list[dict], title: str) -> str:
    rows: list[list[str]] = [["metric"] + [r["rung"] for r in results]]
    rows.append(["kernel"] + [re.sub(r"\(.*", "", r["kernel"]).split("::")[-1] for r in results])
    for metric, label, kind in METRICS:
        rows.append([label] + [show(kind, r["metrics"][metric]) for r in results])
    flop = [2 * r["metrics"][METRICS[9][0]] + r["metrics"][METRICS[10][0]]
            + r["metrics"][METRICS[11][0]] for r in results]
    rows.append(["FP32 FLOP counted (2 FMA + add + mul)"] + [f"{f / 1e9:.3f} G" for f in flop])
    dram = [r["metrics"]["dram__bytes_read.sum"] + r["metrics"]["dram__bytes_write.sum"]
            for r in results]
    rows.append(["FLOP per DRAM byte (measured)"]
                + [f"{f / b:.3f}" if b > 0 else "-" for f, b in zip(flop, dram)])
    for place in range(TOP_STALLS):
        rows.append([f"stall #{place + 1}, cycles per issue"]
                    + [f"{name} {value:.2f}" for name, value in
                       (stall_ranking(r["metrics"])[place] for r in results)])
    width = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = [title, ""]
    for index, row in enumerate(rows):
        cells = [row[0].ljust(width[0])] + [cell.rjust(width[c]) for c, cell in
                                             enumerate(row) if c > 0]
        lines.append("  ".join(cells).rstrip())
        if index == 0:
            lines.append("-" * (sum(width) + 2 * (len(width) - 1)))
    lines += ["",
              "One launch of each kernel, profiled by Nsight Compute with its default cache "
              "control (caches flushed before the launch) and the GPU's own clocks. Achieved "
              "occupancy is of the SM's warp slots; the stalls are the average number of warps "
              "stalled for that reason per issued instruction (larger: more of the time lost "
              "there)."]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", required=True, help="the lesson's demo program")
    parser.add_argument("--lesson", required=True, help="e.g. 04_aat_padding")
    parser.add_argument("--rung", action="append", type=parse_rung, required=True,
                        help="NAME or NAME=REGEX (the kernel's function name); once or twice")
    parser.add_argument("--size", help="the demo's --size (default: the demo's)")
    parser.add_argument("--demo-arg", action="append", default=[],
                        help="another argument for the demo, e.g. --demo-arg=--radius=3")
    parser.add_argument("--ncu", help="the ncu program (default: found on the PATH or in CUDA)")
    args = parser.parse_args()
    if len(args.rung) > 2:
        parser.error("--rung: at most two rungs, side by side")
    if not (Path(args.demo).is_file() and os.access(args.demo, os.X_OK)):
        parser.error(f"--demo: {args.demo} is not a program (build the lesson first)")
    try:
        ncu = find_ncu(args.ncu)
        check_gpu(args.demo)
        results = [profile(ncu, args.demo, name, regex, args.size, args.demo_arg)
                   for name, regex in args.rung]
    except Skip as reason:
        print(f"SKIPPED: profile of lesson {args.lesson}: {reason}")
        return SKIP
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        print(f"profile of lesson {args.lesson} failed: {error}", file=sys.stderr)
        return 1
    gpu = subprocess.run([args.demo, "--limits"], capture_output=True, text=True).stdout
    gpu = gpu.splitlines()[0].removeprefix("GPU: ") if gpu else "this GPU"
    size = f" at --size {args.size}" if args.size else ""
    print(table(results, f"Nsight Compute, lesson {args.lesson}{size}, on {gpu}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
