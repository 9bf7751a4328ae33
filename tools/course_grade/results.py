"""CTest's results for the student tests, read and classified: one TestResult per testcase of its
JUnit file, with what the test printed about the GPU, the ceilings and its measurement.

What CTest's JUnit file looks like (CTest 3.25)
-----------------------------------------------
``<testsuite>`` holding ``<testcase name=... classname=... time=...
status="run|fail|notrun|disabled">`` with optional children ``<failure
message=...>``, ``<skipped message=...>`` and ``<system-out>`` (the test's
stdout and stderr).  The grader is liberal: a missing status is inferred
from the children.  CTest 3.25 leaves the failure message empty for timeouts
and crashes, so the grader also reads the "The following tests FAILED:"
summary of ``grade-ctest.log`` (``N - name (Timeout)``, ``(SEGFAULT)``, ...)
found beside the JUnit file, when both were written by the same run.

Status of a row: PASS, FAIL, SKIP (``<skipped>``, notrun or disabled),
TIMEOUT, CRASH (killed by a signal: abort, segfault, ...; the reason adds the
first error line of the output, if any), EXIT (the process ended before the
tests finished: the tests' main() turns an exit() from the code under test
into exit code 86 and prints ``[course] FAILED: the process ended before the
tests finished``), CUDA ERROR (a failure whose reason is a CUDA error: an
illegal address, a trap, a launch failure), NOT BUILT (CTest could not find
the test program: the lesson did not compile; with ``--build-log`` the reason
is the log's first compile error in that lesson), or NOT RUN (listed in a
README but absent from the results).  Only PASS earns points.

Lines the tests print (display only)
------------------------------------
    [course] gpu: NVIDIA H100 80GB HBM3 (cc 9.0, 132 SMs, 50 MB L2)
    [course] seed: 1234567
    [course] ceiling: device copy = 2950.1 GB/s
    [course] result: tiled.speed: time 0.512 ms, speedup 3.10x over naive, share 0.83 of device copy
    [course] SKIPPED: no usable CUDA device (...)

Points come ONLY from the pass/fail status in the JUnit file, never from anything a test
prints: a failed test printing "PASSED", "points 100" or a fake `[course] result:` line still
earns 0.  (CTest decides pass/fail from the exit code alone: the student tests have no
PASS/SKIP regular expressions.)"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from .model import CTEST_LOG_NAME, NOT_BUILT, PASS, SKIP, Measurement, TestResult, UsageError, shorten
from .reasons import classify_failure, skip_reason

CTEST_NAME_RE = re.compile(r"^lesson(\d{2})/student/(.+)$")
GPU_RE = re.compile(r"\[course\] gpu:\s*(.+)")
CEILING_RE = re.compile(r"\[course\] ceiling:\s*(.+?)\s*=\s*(.+)")
RESULT_RE = re.compile(r"\[course\] result:\s*(.*)")
RESULT_LABEL_RE = re.compile(r"^([a-z0-9_]+\.[a-z0-9_]+):\s*(.*)$")
TIME_RE = re.compile(r"time ([0-9.]+) ms")
SPEEDUP_RE = re.compile(r"speedup ([0-9.]+)x")
SHARE_RE = re.compile(r"share ([0-9.]+)")
# CTest's words when the test program does not exist (the lesson did not build): its own, or
# those of a row whose program is a REQUIRED_FILES of the row runner's command.
NOT_BUILT_RE = re.compile(r"Unable to find (executable|required file)|Could not find executable")
# "  4 - lesson02/student/tiled.speed (Timeout)" in ctest's end-of-run summary.
CTEST_SUMMARY_RE = re.compile(r"^\s*\d+ - (\S+) \((.+)\)\s*$")
LOG_MATCH_SECONDS = 60  # a ctest log and a JUnit file this close in time come from one run


def read_junit(path: Path) -> ET.Element:
    try:
        return ET.parse(path).getroot()
    except FileNotFoundError:
        raise UsageError(f"JUnit file {path} not found") from None
    except (OSError, ET.ParseError) as err:
        raise UsageError(f"cannot read JUnit file {path}: {err}") from None


def parse_ctest_log(text: str) -> Dict[str, str]:
    """Test name -> ctest's outcome word from the end-of-run summary ('Timeout', 'SEGFAULT', ...)."""
    outcomes: Dict[str, str] = {}
    for line in text.splitlines():
        match = CTEST_SUMMARY_RE.match(line)
        if match:
            outcomes[match.group(1)] = match.group(2).strip()
    return outcomes


def matching_ctest_log(junit: Path) -> Optional[Path]:
    """The grade-ctest.log beside a JUnit file, if both come from the same ctest run."""
    log = junit.parent / CTEST_LOG_NAME
    try:
        same_run = abs(log.stat().st_mtime - junit.stat().st_mtime) <= LOG_MATCH_SECONDS
    except OSError:
        return None
    return log if same_run else None


def read_ctest_log(path: Optional[Path]) -> Dict[str, str]:
    if path is None:
        return {}
    try:
        return parse_ctest_log(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return {}


def testcase_output(case: ET.Element) -> str:
    parts = [child.text or "" for child in case if child.tag in ("system-out", "system-err")]
    return "\n".join(part for part in parts if part)


def child_message(case: ET.Element, tags: Tuple[str, ...]) -> Optional[str]:
    """The message of the first child with one of these tags ('' if no message); None if absent."""
    for child in case:
        if child.tag in tags:
            return (child.get("message") or child.text or "").strip()
    return None


def classify(case: ET.Element, output: str, ctest_outcome: str, duration: float) -> Tuple[str, str]:
    """(status, reason) of one testcase; the status attribute may be missing."""
    status = (case.get("status") or "").lower()
    skipped = child_message(case, ("skipped",))
    failure = child_message(case, ("failure", "error"))
    if skipped is not None or status in ("notrun", "skipped"):
        if NOT_BUILT_RE.search(skipped or "") or NOT_BUILT_RE.search(output):
            return NOT_BUILT, "the test program was not built (see the build's errors)"
        return SKIP, skip_reason(output, skipped or "")
    if status == "disabled":
        return SKIP, "disabled in CTest"
    if failure is not None or status in ("fail", "failed", "error"):
        return classify_failure(failure or "", output, ctest_outcome, duration)
    return PASS, ""


def parse_measurement(output: str, test_name: str) -> Measurement:
    """Fields of the test's `[course] result:` line (the last one naming this test, else the last)."""
    own: List[str] = []
    other: List[str] = []
    for line in output.splitlines():
        match = RESULT_RE.search(line)
        if not match:
            continue
        label = RESULT_LABEL_RE.match(match.group(1).strip())
        if label and label.group(1) == test_name:
            own.append(label.group(2))
        else:
            other.append(label.group(2) if label else match.group(1).strip())
    chosen = (own or other or [None])[-1]
    if chosen is None:
        return Measurement()

    def field_of(regex: "re.Pattern[str]") -> Optional[str]:
        found = regex.search(chosen)
        return found.group(1) if found else None

    return Measurement(time_ms=field_of(TIME_RE), speedup=field_of(SPEEDUP_RE),
                       share=field_of(SHARE_RE), text=shorten(chosen))


def split_ctest_name(ctest_name: str) -> Tuple[Optional[str], str]:
    """'lesson02/student/tiled.correct' -> ('02', 'tiled.correct')."""
    match = CTEST_NAME_RE.match(ctest_name)
    if match:
        return match.group(1), match.group(2)
    return None, ctest_name


def parse_duration(value: Optional[str]) -> float:
    try:
        return float(value or 0)
    except ValueError:
        return 0.0


def parse_results(root: ET.Element, ctest_outcomes: Dict[str, str]) -> List[TestResult]:
    """Every <testcase> in the JUnit tree, classified."""
    results: List[TestResult] = []
    for case in root.iter("testcase"):
        ctest_name = case.get("name") or ""
        if not CTEST_NAME_RE.match(ctest_name) and CTEST_NAME_RE.match(case.get("classname") or ""):
            ctest_name = case.get("classname") or ""
        lesson, name = split_ctest_name(ctest_name)
        output = testcase_output(case)
        duration = parse_duration(case.get("time"))
        status, reason = classify(case, output, ctest_outcomes.get(ctest_name, ""), duration)
        results.append(TestResult(ctest_name=ctest_name, lesson=lesson, name=name, status=status,
                                  reason=reason, duration=duration, output=output,
                                  measurement=parse_measurement(output, name)))
    return results


def find_gpu(results: Iterable[TestResult]) -> Optional[str]:
    for result in results:
        match = GPU_RE.search(result.output)
        if match:
            return match.group(1).strip()
    return None


def find_ceilings(results: Iterable[TestResult]) -> List[Tuple[str, str]]:
    """(name, value) of every `[course] ceiling:` line, first occurrence of each name."""
    ceilings: Dict[str, str] = {}
    for result in results:
        for match in CEILING_RE.finditer(result.output):
            ceilings.setdefault(match.group(1).strip(), match.group(2).strip())
    return list(ceilings.items())
