"""Running ctest over the student tests and keeping its JUnit file.

Unless ``--no-run`` is given, the grader runs

    ctest --test-dir BUILD -L student --output-junit BUILD/grade-junit.xml \\
          --no-tests=ignore [-R '^lesson(NN|MM)/']

with ctest's own output going to ``BUILD/grade-ctest.log``; the terminal gets
the scoreboard, and on a terminal one status line while the tests run (how many have
finished, how many passed, the last one).  ctest writes its JUnit file beside the old one, which
it replaces only once the new one is complete: a run that fails (ctest missing, killed, or
writing no results) leaves the previous results as they were.  ``--timeout-scale F`` exports
``COURSE_TIMEOUT_SCALE=F`` to ctest and the tests (CTest itself has no per-test timeout
multiplier; the build's test definitions must read it)."""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path
from typing import List, Optional, Tuple

from .model import CTEST_LOG_NAME, JUNIT_NAME, JUNIT_PARTIAL_NAME, UsageError, shown_path
from .process import StatusLine, run_streamed
from .results import read_junit

TIMEOUT_SCALE_ENV = "COURSE_TIMEOUT_SCALE"
# Labels of the rows --quick leaves out: the timed rows and the sanitizer row.
QUICK_EXCLUDED_LABELS = "^(perf|sanitize)$"
QUICK_REASON = "not run with --quick (correctness only)"


def ctest_command(ctest: str, build_dir: Path, junit: Path, lessons: Optional[List[str]],
                  jobs: int = 1, quick: bool = False) -> List[str]:
    command = [ctest, "--test-dir", str(build_dir), "-L", "student",
               "--output-junit", str(junit), "--no-tests=ignore"]
    if jobs > 1:
        command += ["-j", str(jobs)]  # the timed rows are RUN_SERIAL: they still run alone
    if quick:
        command += ["-LE", QUICK_EXCLUDED_LABELS]
    if lessons:
        command += ["-R", f"^lesson({'|'.join(lessons)})/"]
    return command


# "  3/40 Test  #7: lesson02/student/tiled.correct .......   Passed    1.23 sec" (ctest's line when
# a test ends); the outcome may carry "***" and words: "***Failed", "***Exception: SegFault".
CTEST_DONE_RE = re.compile(r"^\s*(\d+)/(\d+) Test\s+#\d+: (\S+) [ .]*\**(.+?)\s+[\d.]+ sec\s*$")


class CtestProgress:
    """Turns ctest's lines into the status line: tests finished, passed, failed, skipped."""

    def __init__(self, status: StatusLine) -> None:
        self.status = status
        self.counts = {"passed": 0, "failed": 0, "skipped": 0}

    def __call__(self, line: str) -> None:
        match = CTEST_DONE_RE.match(line)
        if not match:
            return
        done, total, name, outcome = match.groups()
        kind = ("passed" if outcome == "Passed" else
                "skipped" if outcome in ("Skipped", "Disabled") else "failed")
        self.counts[kind] += 1
        tally = ", ".join(f"{count} {kind}" for kind, count in self.counts.items() if count)
        self.status.show(f"testing: {done}/{total} done ({tally}); last: {name} {outcome}")


def run_ctest(command: List[str], log_path: Path, timeout_scale: Optional[float],
              status: Optional[StatusLine] = None) -> float:
    """Run ctest with its output going to log_path (and its progress to status); return the
    wall time in seconds."""
    env = dict(os.environ)
    if timeout_scale is not None:
        env[TIMEOUT_SCALE_ENV] = f"{timeout_scale:g}"
    on_line = CtestProgress(status) if status is not None else (lambda _line: None)
    try:
        _, seconds = run_streamed(command, log_path, env, on_line, " (use --ctest PATH)")
    finally:
        if status is not None:
            status.clear()
    return seconds


def run_ctest_for_junit(args: argparse.Namespace, build_dir: Path, lessons: Optional[List[str]],
                        status: StatusLine) -> Tuple[Path, float]:
    """Run ctest over lessons (None: all) and return its JUnit file, in place of the previous one
    only once it is complete and readable, and the wall time."""
    junit = build_dir / JUNIT_NAME
    partial = build_dir / JUNIT_PARTIAL_NAME
    log_path = build_dir / CTEST_LOG_NAME
    partial.unlink(missing_ok=True)  # this grader's own leftover from a run that was stopped
    print(f"Running ctest; its output goes to {shown_path(build_dir)}/{log_path.name}", flush=True)
    seconds = run_ctest(ctest_command(args.ctest, build_dir, partial, lessons, args.jobs, args.quick),
                        log_path, args.timeout_scale, status)
    kept = f"; the previous results ({JUNIT_NAME}) are kept" if junit.exists() else ""
    if not partial.exists():
        raise UsageError(f"ctest wrote no JUnit file; see {log_path}{kept}")
    try:
        read_junit(partial)
    except UsageError as err:
        partial.unlink(missing_ok=True)
        raise UsageError(f"{err}{kept}") from None
    os.replace(partial, junit)
    return junit, seconds
