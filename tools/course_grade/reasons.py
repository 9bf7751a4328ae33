"""Why a test failed or was skipped, in the words of its output: the status of a failed row
(TIMEOUT, CRASH, EXIT, CUDA ERROR or FAIL) and the one line shown under it.

The reason shown under a failing row is the first line that says why:
a line containing ``not implemented`` (shown as just "not implemented"),
else a compare line containing `` differ; first`` (joined with the next line
when that one holds the first mismatch: "... 3 of 561 elements differ; first at
(row 0, col 32): expected 0.25, got nan"), else the first line containing
``ERROR:``, ``THREW exception``, ``CudaError`` or ``cuda error`` (or, for a
doctest CHECK_MESSAGE, its ``logged:`` message a few lines below it);
cut to 160 characters.  A failure's reason ends with the test's seed, so that the student can
replay it.  What a test prints only chooses these words: never its points."""

from __future__ import annotations

import re
from typing import List, Optional, Tuple

from .model import CRASH, CUDA_ERROR, EXITED, FAIL, TIMEOUT, shorten

SEED_RE = re.compile(r"\[course\] seed:\s*(\S+)")
SKIPPED_RE = re.compile(r"\[course\] SKIPPED:\s*(.*)")

NOT_IMPLEMENTED = "not implemented"
DIFFER_MARK = " differ; first"
LOGGED_PREFIX = "logged: "       # doctest's line for a CHECK_MESSAGE's message
LOGGED_LOOKAHEAD = 3            # lines after an ERROR: line where its message may be
ERROR_LINE_RE = re.compile(r"ERROR:|THREW exception|(?i:cuda ?error)")
LEADING_PATH_RE = re.compile(r"^\S*/([^/\s]+:\d+:)")
TIMEOUT_RE = re.compile(r"\bTimeout\b")
# test_main.cpp's atexit guard: the code under test called exit() (exit code 86).
ENDED_EARLY_RE = re.compile(r"\[course\] FAILED: the process ended before the tests finished")
CUDA_ERROR_RE = re.compile(r"CUDA error|CudaError|cudaError[A-Z]\w*")
# CTest's words for a test process that died (failure message or log summary).
CRASH_RE = re.compile(
    r"SEGFAULT|SegFault|Subprocess aborted|Child aborted|Exception|ILLEGAL|Illegal|"
    r"INTERRUPT|NUMERICAL|Numerical|OTHER_FAULT|\bBUS\b|Killed",
)
CTEST_PLAIN_OUTCOMES = ("Failed", "Passed", "Not Run", "Skipped", "Disabled")


def differ_reason(lines: List[str], index: int) -> str:
    """A compare report: 'input: N of M elements differ; first at (row, col): expected X, got Y'.

    The harness prints the count line, then the first mismatch on the next line
    ("...differ; first:" / "at (row 0, col 32): expected 0.25, got nan"); join them."""
    line = lines[index].removeprefix(LOGGED_PREFIX)
    following = lines[index + 1] if index + 1 < len(lines) else ""
    if line.endswith("first:") and following.startswith("at "):
        line = f"{line[:-1]} {following}"
    return shorten(line)


def first_reason(output: str) -> Optional[str]:
    """The first output line that says why a test failed, or None."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if any(NOT_IMPLEMENTED in line for line in lines):
        return NOT_IMPLEMENTED
    for line in lines:
        if line.startswith("[course] integrity: uses "):
            return shorten(line.removeprefix("[course] "))
    for index, line in enumerate(lines):
        if DIFFER_MARK in line:
            return differ_reason(lines, index)
    for index, line in enumerate(lines):
        if ERROR_LINE_RE.search(line):
            # A CHECK_MESSAGE's own words ("logged: ...") say more than "CHECK( x ) is NOT correct!".
            for later in lines[index + 1:index + 1 + LOGGED_LOOKAHEAD]:
                if later.startswith(LOGGED_PREFIX) and "THREW" not in line:
                    return shorten(later.removeprefix(LOGGED_PREFIX))
            return shorten(LEADING_PATH_RE.sub(r"\1", line))
    return None


def skip_reason(output: str, message: str) -> str:
    """Why a test was skipped: the [course] SKIPPED line, else CTest's message."""
    for line in output.splitlines():
        match = SKIPPED_RE.search(line)
        if match:
            return shorten(match.group(1)) or "skipped"
    if message:
        detailed = [line for line in output.splitlines() if message in line]
        return shorten(detailed[0] if detailed else message)
    return "skipped"


def with_seed(reason: str, output: str) -> str:
    """Append the test's seed to a failure reason, so the student can reproduce it."""
    match = SEED_RE.search(output)
    if not match or reason == NOT_IMPLEMENTED or "seed " in reason:
        return reason
    return f"{reason} (seed {match.group(1)})"


def crash_reason(what: str, output: str) -> str:
    """'crashed (SEGFAULT)', plus the first line of the output that says why, if any."""
    reason = first_reason(output)
    return shorten(f"crashed ({shorten(what)})" + (f": {reason}" if reason else ""))


def classify_failure(message: str, output: str, ctest_outcome: str, duration: float) -> Tuple[str, str]:
    """(status, reason) of a failed test: TIMEOUT, CRASH, EXIT, CUDA ERROR or FAIL."""
    if TIMEOUT_RE.search(message) or ctest_outcome == "Timeout" or TIMEOUT_RE.search(output):
        return TIMEOUT, f"timed out after {duration:.1f} s" if duration > 0 else "timed out"
    if ctest_outcome and ctest_outcome not in CTEST_PLAIN_OUTCOMES:
        return CRASH, crash_reason(ctest_outcome, output)
    if CRASH_RE.search(message):
        return CRASH, crash_reason(message, output)
    if ENDED_EARLY_RE.search(output):
        return EXITED, "the process ended before the tests finished: exit() called by the code under test"
    reason = first_reason(output)
    if reason is not None:
        status = CUDA_ERROR if reason != NOT_IMPLEMENTED and CUDA_ERROR_RE.search(reason) else FAIL
        return status, with_seed(reason, output)
    return FAIL, shorten(message) if message else "failed (no reason in the output; see the ctest log)"
