#!/usr/bin/env python3
"""Course grader: turns CTest's results for the student tests into a scoreboard.

Usage
-----
    python3 tools/grade.py --build-dir build                  # run ctest, then score
    python3 tools/grade.py --build-dir build --build          # build the lessons first
    python3 tools/grade.py --build-dir build --lessons 02 --build  # one lesson, rebuilt and graded
    python3 tools/grade.py --build-dir build --lessons 01 02  # only some lessons
    python3 tools/grade.py --build-dir build --no-run         # re-score the last run
    python3 tools/grade.py --build-dir build --json results.json   # Gradescope
    python3 tools/grade.py --build-dir build --build-log build.log # name compile errors
    python3 tools/grade.py --build-dir build --no-run --all-rows   # every row, even without a GPU

Unless ``--no-run`` is given, the grader runs

    ctest --test-dir BUILD -L student --output-junit BUILD/grade-junit.xml \
          --no-tests=ignore [-R '^lesson(NN|MM)/']

with ctest's own output going to ``BUILD/grade-ctest.log``; the terminal gets
the scoreboard, and on a terminal one status line while the tests run (how many have
finished, how many passed, the last one).  ctest writes its JUnit file beside the old one, which
it replaces only once the new one is complete: a run that fails (ctest missing, killed, or
writing no results) leaves the previous results as they were.  With ``--no-run`` it reads an
existing JUnit file (``--junit FILE``, default ``BUILD/grade-junit.xml``).

Building first, and programs older than their sources
-----------------------------------------------------
With ``--build`` the grader first builds the graded lessons' test programs and demos
(``cmake --build BUILD --target lessonNN_test_student lessonNN_demo_student ...``), going on past
a lesson that does not compile (``-k 0``), with the build's output on the terminal (on a terminal
its progress in one status line) and in ``BUILD/grade-build.log``, which then serves as
``--build-log``.  The ``grade`` target of the build runs the grader this way, and ``grade-NN``
the same for lesson NN alone.

Before ctest runs, the grader asks the build tool which test programs are out of date (``ninja
-n``, the presets' generator; with another generator it cannot tell and says so).  A lesson
whose test program is older than its sources, e.g. because its last build failed, is not run:
its rows are NOT BUILT, with the build log's first error in the lesson when there is one, else
with the source that changed.  A stale program is never graded.

Where the points come from
--------------------------
Each lesson directory ``lessons/NN_name/`` has a README.md holding exactly one
grading table between two marker lines::

    <!-- grading:begin -->
    | test | kind | what it checks | threshold | points |
    |---|---|---|---|---|
    | `tiled.correct` | exercise | bit-exact on all shapes | — | 3 |
    | `tiled.speed` | exercise | share of device copy bandwidth | ≥ 0.35 (plausible ≤ 1.15) | 2 |
    | `vectorized.speed` | stretch | share of device copy bandwidth | ≥ 0.60 (plausible ≤ 1.15) | 2 |
    <!-- grading:end -->

* test: ``<rung>.<check>`` in backticks (rung and check are ``[a-z0-9_]+``);
* kind: ``given``, ``exercise`` or ``stretch`` (stretch points are a bonus,
  shown separately and not part of the maximum);
* threshold: ``—`` or text with a number (the grader reads none of it; the speed tests
  read the first number as their threshold, and the number after "≤" as the plausible bound
  that every speed row must have);
* points: an integer.

The CTest name of a graded test is ``lessonNN/student/<test>``, for example
``lesson02/student/tiled.correct``; ``lessonNN`` belongs to the directory under
``lessons/`` whose name starts with ``NN_``.

A test earns the full points of its row when CTest reports it passed, and 0
otherwise.  Points come ONLY from the pass/fail status in the JUnit file,
never from anything a test prints.  What a test prints only chooses the
words of a failure (its status among the failing ones and its reason) and the
measurements shown; a failed test printing "PASSED", "points 100" or a fake
`[course] result:` line still earns 0.  (CTest decides pass/fail from the
exit code alone: the student tests have no PASS/SKIP regular expressions.)

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

The reason shown under a failing row is the first line that says why:
a line containing ``not implemented`` (shown as just "not implemented"),
else a compare line containing `` differ; first`` (joined with the next line
when that one holds the first mismatch: "... 3 of 561 elements differ; first at
(row 0, col 32): expected 0.25, got nan"), else the first line containing
``ERROR:``, ``THREW exception``, ``CudaError`` or ``cuda error`` (or, for a
doctest CHECK_MESSAGE, its ``logged:`` message a few lines below it);
cut to 160 characters.  When no test printed a ``[course] gpu:`` line and
some were skipped, the scoreboard is short: one line per lesson (tests, passed,
skipped, points), the rows that did not pass or skip (a lesson that did not build,
a failing CPU test) grouped by reason, then the reason the GPU tests were skipped,
once (no driver, no device, a driver too old, ...), and what a student without a
GPU can do. ``--all-rows`` shows every row instead.

What is checked before anything is written
------------------------------------------
Unless ``--no-run``, BUILD must be a configured CMake build of this course
(``CMakeCache.txt`` naming the project ``cuda_course`` and ``CTestTestfile.cmake``)
configured from SOURCE; the grader writes only ``grade-junit.xml`` and
``grade-ctest.log`` there.  A build configured with ``COURSE_LESSONS`` is graded
for those lessons only.  ``--lessons`` must name lessons that exist (and that the
build holds), and ``--json`` a file that can be written (not a directory, not a
source file).  Each of these fails with one line and exit code 2.

Outputs and exit code
---------------------
``--json PATH`` writes Gradescope's results.json (stretch tests have
``max_score`` 0 and score = the bonus earned, i.e. extra credit).
``--timeout-scale F`` exports ``COURSE_TIMEOUT_SCALE=F`` to ctest and the
tests (CTest itself has no per-test timeout multiplier; the build's test
definitions must read it).
Exit code 0 whenever the scoreboard was produced (failing tests are normal),
except with ``--build``: 1 when the build failed (the scoreboard shows what did not build, and
a last line says so); 2 for usage errors, a build directory that is not a configured build of
the course, an output that cannot be written, or a missing/unreadable JUnit file (the previous
one is kept).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import safe_output  # noqa: E402  (tools/safe_output.py: where outputs may go)

# --------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------

EXIT_OK = 0
EXIT_BUILD_FAILED = 1
EXIT_USAGE = 2

BEGIN_MARKER = "<!-- grading:begin -->"
END_MARKER = "<!-- grading:end -->"
KINDS = ("given", "exercise", "stretch")
BONUS_KIND = "stretch"

JUNIT_NAME = "grade-junit.xml"
JUNIT_PARTIAL_NAME = "grade-junit.partial.xml"  # ctest's JUnit file until it is complete
CTEST_LOG_NAME = "grade-ctest.log"
BUILD_LOG_NAME = "grade-build.log"
TIMEOUT_SCALE_ENV = "COURSE_TIMEOUT_SCALE"

PASS = "PASS"
FAIL = "FAIL"
SKIP = "SKIP"
NOT_RUN = "NOT RUN"
TIMEOUT = "TIMEOUT"
CRASH = "CRASH"
EXITED = "EXIT"
CUDA_ERROR = "CUDA ERROR"
NOT_BUILT = "NOT BUILT"

REASON_MAX_CHARS = 160
NO_VALUE = "-"
UNKNOWN = "?"

TEST_NAME_RE = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+$")
CTEST_NAME_RE = re.compile(r"^lesson(\d{2})/student/(.+)$")
LESSON_DIR_RE = re.compile(r"^(\d{2})_(.+)$")
CELL_SPLIT_RE = re.compile(r"(?<!\\)\|")
SEPARATOR_ROW_RE = re.compile(r"^\|?[\s:|-]+\|?$")

GPU_RE = re.compile(r"\[course\] gpu:\s*(.+)")
SEED_RE = re.compile(r"\[course\] seed:\s*(\S+)")
CEILING_RE = re.compile(r"\[course\] ceiling:\s*(.+?)\s*=\s*(.+)")
RESULT_RE = re.compile(r"\[course\] result:\s*(.*)")
RESULT_LABEL_RE = re.compile(r"^([a-z0-9_]+\.[a-z0-9_]+):\s*(.*)$")
SKIPPED_RE = re.compile(r"\[course\] SKIPPED:\s*(.*)")
TIME_RE = re.compile(r"time ([0-9.]+) ms")
SPEEDUP_RE = re.compile(r"speedup ([0-9.]+)x")
SHARE_RE = re.compile(r"share ([0-9.]+)")

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
# CTest's words when the test program does not exist (the lesson did not build): its own, or
# those of a row whose program is a REQUIRED_FILES of the row runner's command.
NOT_BUILT_RE = re.compile(r"Unable to find (executable|required file)|Could not find executable")
BUILD_ERROR_RE = re.compile(r"\berror\b|\bError \d+\b|FAILED:", re.IGNORECASE)
BUILD_PATH_RE = re.compile(r"^\S*?/(lessons/\S+)")
# CTest's words for a test process that died (failure message or log summary).
CRASH_RE = re.compile(
    r"SEGFAULT|SegFault|Subprocess aborted|Child aborted|Exception|ILLEGAL|Illegal|"
    r"INTERRUPT|NUMERICAL|Numerical|OTHER_FAULT|\bBUS\b|Killed",
)
# "  4 - lesson02/student/tiled.speed (Timeout)" in ctest's end-of-run summary.
CTEST_SUMMARY_RE = re.compile(r"^\s*\d+ - (\S+) \((.+)\)\s*$")
CTEST_PLAIN_OUTCOMES = ("Failed", "Passed", "Not Run", "Skipped", "Disabled")
LOG_MATCH_SECONDS = 60  # a ctest log and a JUnit file this close in time come from one run

ANSI_RESET = "\033[0m"
ANSI_COLOURS = {
    PASS: "\033[32m",     # green
    FAIL: "\033[31m",     # red
    CRASH: "\033[31m",
    TIMEOUT: "\033[31m",
    EXITED: "\033[31m",
    CUDA_ERROR: "\033[31m",
    NOT_BUILT: "\033[31m",
    SKIP: "\033[33m",     # yellow
    NOT_RUN: "\033[33m",
}

TABLE_HEADER = ("lesson", "test", "kind", "status", "time", "speedup", "share", "points")
COLUMN_GAP = "  "
INDENT = "  "


class UsageError(Exception):
    """Bad invocation or unreadable input; reported with exit code 2."""


# --------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class GradedTest:
    """One row of a README grading table."""

    name: str
    kind: str
    threshold: str
    points: int


@dataclass
class Lesson:
    """A lesson directory and its grading table."""

    number: str
    title: str
    tests: List[GradedTest] = field(default_factory=list)


@dataclass
class Measurement:
    """What a test's `[course] result:` line reported (strings, as printed)."""

    time_ms: Optional[str] = None
    speedup: Optional[str] = None
    share: Optional[str] = None
    text: str = ""


@dataclass
class TestResult:
    """One CTest testcase, classified."""

    ctest_name: str
    lesson: Optional[str]
    name: str
    status: str
    reason: str
    duration: float
    output: str
    measurement: Measurement


@dataclass
class Row:
    """One line of the scoreboard."""

    lesson: str
    name: str
    kind: str
    status: str
    points_got: Optional[int]
    points_max: Optional[int]
    reason: str = ""
    measurement: Measurement = field(default_factory=Measurement)
    seconds: float = 0.0


@dataclass
class Totals:
    """Points of a set of rows; bonus (stretch) points are kept apart."""

    score: int = 0
    max_score: int = 0
    bonus: int = 0
    bonus_max: int = 0

    def add(self, row: Row) -> None:
        if row.points_max is None:
            return
        got = row.points_got or 0
        if row.kind == BONUS_KIND:
            self.bonus += got
            self.bonus_max += row.points_max
        else:
            self.score += got
            self.max_score += row.points_max

    def text(self) -> str:
        bonus = f" (+bonus {self.bonus}/{self.bonus_max})" if self.bonus_max else ""
        return f"{self.score}/{self.max_score}{bonus}"


@dataclass
class Scoreboard:
    """Everything the renderers need."""

    lessons: List[Lesson]
    rows: Dict[str, List[Row]]
    gpu: Optional[str]
    ceilings: List[Tuple[str, str]]
    warnings: List[str]
    all_skipped_reason: Optional[str]
    skip_reasons: List[str] = field(default_factory=list)
    all_rows_command: str = "python3 tools/grade.py --build-dir <build> --no-run --all-rows"
    gpu_advice: List[str] = field(default_factory=list)  # where to grade when no GPU was usable


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Run the student tests through CTest and print the scoreboard.",
    )
    parser.add_argument("--build-dir", required=True, type=Path,
                        help="CMake build directory (where ctest runs)")
    parser.add_argument("--source-dir", type=Path,
                        default=Path(__file__).resolve().parent.parent,
                        help="course source tree holding lessons/ (default: the parent of tools/)")
    parser.add_argument("--lessons", nargs="+", metavar="NN",
                        help="only these lessons, e.g. --lessons 01 02")
    parser.add_argument("--json", type=Path, metavar="PATH",
                        help="also write Gradescope's results.json here")
    parser.add_argument("--junit", type=Path, metavar="FILE",
                        help=f"JUnit file to read with --no-run (default: BUILD/{JUNIT_NAME})")
    parser.add_argument("--no-run", action="store_true",
                        help="do not run ctest; score an existing JUnit file")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the status column (auto: only on a terminal without NO_COLOR)")
    parser.add_argument("--ctest", default="ctest", metavar="PATH",
                        help="the ctest executable (default: ctest on PATH)")
    parser.add_argument("--build-log", type=Path, metavar="FILE",
                        help="the build's log: a lesson that did not build shows its first error")
    parser.add_argument("--timeout-scale", type=float, metavar="F",
                        help=f"export {TIMEOUT_SCALE_ENV}=F to ctest, for slow GPUs")
    parser.add_argument("--jobs", "-j", type=int, metavar="N", default=min(os.cpu_count() or 1, 8),
                        help="rows run at once (default: the CPUs, at most 8); timed rows always "
                             "run alone")
    parser.add_argument("--quick", action="store_true",
                        help="correctness only: skip the timed rows and the sanitizer row, for "
                             "iterating on one rung (the grade needs a full run)")
    parser.add_argument("--all-rows", action="store_true",
                        help="show every row, also when no GPU was usable (default: one line "
                             "per lesson then)")
    parser.add_argument("--build", action="store_true",
                        help="build the graded lessons first, going on past one that does not "
                             f"compile (shown NOT BUILT with its first error); log: BUILD/{BUILD_LOG_NAME}")
    args = parser.parse_args(argv)
    if args.build and args.no_run:
        parser.error("--build and --no-run exclude each other")
    if args.build and args.build_log:
        parser.error(f"--build keeps its own build log (BUILD/{BUILD_LOG_NAME}); drop --build-log")
    if args.timeout_scale is not None and args.timeout_scale <= 0:
        parser.error("--timeout-scale must be positive")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.lessons:
        try:
            args.lessons = normalize_lessons(args.lessons)
        except UsageError as err:
            parser.error(str(err))
    return args


def normalize_lessons(values: Iterable[str]) -> List[str]:
    """'1', '01', 'lesson01' -> '01'; anything else is a usage error."""
    numbers: List[str] = []
    for value in values:
        digits = value[len("lesson"):] if value.startswith("lesson") else value
        if not digits.isdigit() or len(digits) > 2:
            raise UsageError(f"--lessons: expected a lesson number like 01, got {value!r}")
        number = digits.zfill(2)
        if number not in numbers:
            numbers.append(number)
    return numbers


# --------------------------------------------------------------------------
# README grading tables
# --------------------------------------------------------------------------


def find_lesson_dirs(lessons_root: Path) -> Dict[str, Path]:
    """Map 'NN' -> lessons/NN_name for every lesson directory."""
    found: Dict[str, Path] = {}
    for entry in sorted(lessons_root.iterdir()):
        match = LESSON_DIR_RE.match(entry.name)
        if entry.is_dir() and match and match.group(1) not in found:
            found[match.group(1)] = entry
    return found


def split_cells(line: str) -> List[str]:
    """'| a | b |' -> ['a', 'b'] (escaped pipes stay inside a cell)."""
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    return [cell.strip() for cell in CELL_SPLIT_RE.split(body)]


def grading_table_lines(text: str) -> Optional[List[str]]:
    """The lines between the grading markers, or None without markers."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == BEGIN_MARKER]
    if not starts:
        return None
    start = starts[0] + 1
    for end in range(start, len(lines)):
        if lines[end].strip() == END_MARKER:
            return lines[start:end]
    return lines[start:]


def parse_table_row(cells: List[str]) -> GradedTest:
    """Turn the five cells of one table row into a GradedTest (ValueError if bad)."""
    if len(cells) != 5:
        raise ValueError(f"expected 5 columns, found {len(cells)}")
    name_cell, kind, _what, threshold, points = cells
    name = name_cell.strip("`").strip()
    if not TEST_NAME_RE.match(name):
        raise ValueError(f"test name {name_cell!r} is not `<rung>.<check>`")
    if kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    if not re.fullmatch(r"\d+", points):
        raise ValueError(f"points {points!r} is not an integer")
    return GradedTest(name=name, kind=kind, threshold=threshold, points=int(points))


def parse_grading_table(text: str, where: str) -> Tuple[List[GradedTest], List[str]]:
    """Parse a README's grading table; bad rows become warnings, not errors."""
    lines = grading_table_lines(text)
    if lines is None:
        return [], [f"{where}: no grading table ({BEGIN_MARKER} ... {END_MARKER})"]
    warnings: List[str] = []
    if text.count(BEGIN_MARKER) > 1:
        warnings.append(f"{where}: more than one grading table; using the first")
    tests: List[GradedTest] = []
    for line in lines:
        stripped = line.strip()
        if not stripped.startswith("|") or SEPARATOR_ROW_RE.match(stripped):
            continue
        cells = split_cells(stripped)
        if cells and cells[0].lower() == "test":
            continue
        try:
            test = parse_table_row(cells)
        except ValueError as err:
            warnings.append(f"{where}: grading row ignored ({err}): {stripped}")
            continue
        if any(t.name == test.name for t in tests):
            warnings.append(f"{where}: test {test.name} listed twice; using the first")
            continue
        tests.append(test)
    return tests, warnings


def load_lessons(source_dir: Path, selected: Optional[List[str]]) -> Tuple[List[Lesson], List[str]]:
    """Read the grading table of every selected lesson (all lessons by default)."""
    lessons_root = source_dir / "lessons"
    if not lessons_root.is_dir():
        raise UsageError(f"no lessons/ directory under {source_dir} (use --source-dir)")
    dirs = find_lesson_dirs(lessons_root)
    lessons: List[Lesson] = []
    warnings: List[str] = []
    for number in selected or sorted(dirs):
        directory = dirs.get(number)
        if directory is None:
            warnings.append(f"lesson {number}: no directory lessons/{number}_*")
            continue
        readme = directory / "README.md"
        where = str(readme.relative_to(source_dir))
        try:
            text = readme.read_text(encoding="utf-8")
        except OSError as err:
            warnings.append(f"{where}: cannot read ({err.strerror})")
            text = ""
        tests, table_warnings = parse_grading_table(text, where) if text else ([], [])
        warnings.extend(table_warnings)
        title = LESSON_DIR_RE.match(directory.name).group(2)  # type: ignore[union-attr]
        lessons.append(Lesson(number=number, title=title, tests=tests))
    return lessons, warnings


# --------------------------------------------------------------------------
# The build directory and the lessons asked for
# --------------------------------------------------------------------------

PROJECT_NAME = "cuda_course"
CONFIGURE_HINT = "configure and build it first: cmake --workflow --preset grade"


def read_cmake_cache(path: Path) -> Dict[str, str]:
    """NAME -> value of every entry of a CMakeCache.txt."""
    entries: Dict[str, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        match = re.match(r"^([A-Za-z_][\w.+-]*)(?::[A-Z_]+)?=(.*)$", line)
        if match:
            entries[match.group(1)] = match.group(2)
    return entries


@dataclass
class BuildTree:
    """What the grader needs of a configured build directory (from its CMakeCache.txt)."""

    path: Path
    lessons: Optional[List[str]]  # COURSE_LESSONS, or None: all
    generator: str = ""           # CMAKE_GENERATOR, e.g. "Ninja"
    make_program: str = ""        # CMAKE_MAKE_PROGRAM, e.g. /usr/bin/ninja
    cmake: str = "cmake"          # CMAKE_COMMAND


def check_build_dir(build_dir: Path, source_dir: Path) -> BuildTree:
    """Raise UsageError unless build_dir is a configured build of this course from source_dir;
    return what the grader needs of it (the lessons it was configured with, COURSE_LESSONS, or
    None for all; its generator and tools)."""
    if not build_dir.exists():
        raise UsageError(f"build directory {build_dir} does not exist ({CONFIGURE_HINT})")
    if not build_dir.is_dir():
        raise UsageError(f"{build_dir} is not a directory")
    cache_path = build_dir / "CMakeCache.txt"
    if not cache_path.is_file():
        raise UsageError(f"{build_dir} is not a configured CMake build directory "
                         f"(no CMakeCache.txt; {CONFIGURE_HINT})")
    try:
        cache = read_cmake_cache(cache_path)
    except OSError as err:
        raise UsageError(f"cannot read {cache_path}: {err.strerror}") from None
    if cache.get("CMAKE_PROJECT_NAME") != PROJECT_NAME:
        raise UsageError(f"{build_dir} is a build of {cache.get('CMAKE_PROJECT_NAME') or 'another project'}, "
                         f"not of this course ({PROJECT_NAME})")
    configured_from = cache.get(f"{PROJECT_NAME}_SOURCE_DIR") or cache.get("CMAKE_HOME_DIRECTORY")
    if configured_from and Path(configured_from).resolve() != source_dir.resolve():
        raise UsageError(f"{build_dir} was configured from {configured_from}, not from "
                         f"{source_dir} (pass --source-dir {configured_from})")
    if not (build_dir / "CTestTestfile.cmake").is_file():
        raise UsageError(f"{build_dir} has no CTestTestfile.cmake: its configuration did not "
                         f"finish ({CONFIGURE_HINT})")
    lessons = [item.strip() for item in cache.get("COURSE_LESSONS", "").split(";") if item.strip()]
    return BuildTree(path=build_dir, lessons=normalize_lessons(lessons) if lessons else None,
                     generator=cache.get("CMAKE_GENERATOR", ""),
                     make_program=cache.get("CMAKE_MAKE_PROGRAM", ""),
                     cmake=cache.get("CMAKE_COMMAND") or "cmake")


def select_lessons(source_dir: Path, asked: Optional[List[str]],
                   built: Optional[List[str]]) -> Optional[List[str]]:
    """The lessons to grade: those asked for, each of which must exist (and be in the build),
    else those the build holds, else all (None)."""
    lessons_root = source_dir / "lessons"
    if not lessons_root.is_dir():
        raise UsageError(f"no lessons/ directory under {source_dir} (use --source-dir)")
    known = sorted(find_lesson_dirs(lessons_root))
    if asked:
        unknown = [number for number in asked if number not in known]
        if unknown:
            raise UsageError(f"--lessons: no lesson {', '.join(unknown)} in {lessons_root} "
                             f"(the lessons are {' '.join(known) or 'none'})")
        if built is not None:
            absent = [number for number in asked if number not in built]
            if absent:
                raise UsageError(f"--lessons: lesson {', '.join(absent)} is not in this build "
                                 f"(configured with COURSE_LESSONS={';'.join(built)}; reconfigure "
                                 f"with -DCOURSE_LESSONS= to build every lesson)")
        return asked
    if built is not None:
        unknown = [number for number in built if number not in known]
        if unknown:
            raise UsageError(f"the build was configured with COURSE_LESSONS={';'.join(built)}, "
                             f"but {lessons_root} has no lesson {', '.join(unknown)}")
        return built
    return None


# --------------------------------------------------------------------------
# Running ctest
# --------------------------------------------------------------------------


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


# Labels of the rows --quick leaves out: the timed rows and the sanitizer row.
QUICK_EXCLUDED_LABELS = "^(perf|sanitize)$"
QUICK_REASON = "not run with --quick (correctness only)"


class StatusLine:
    """One line of progress, rewritten in place, on a terminal only (nothing goes to a file or a
    pipe, where the scoreboard may be read by a program)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.enabled = bool(getattr(stream, "isatty", lambda: False)())
        self.shown = False

    def show(self, text: str) -> None:
        if not self.enabled:
            return
        width = max(20, shutil.get_terminal_size((100, 24)).columns - 1)
        self.stream.write("\r\033[K" + text[:width])
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.shown = False

    def print(self, line: str) -> None:
        """A line that stays (a compiler error), above the status line."""
        self.clear()
        self.stream.write(line + "\n")
        self.stream.flush()


def run_streamed(command: List[str], log_path: Path, env: Dict[str, str],
                 on_line: Callable[[str], None], missing_hint: str = "") -> Tuple[int, float]:
    """Run command with its output going to log_path, each line also handed to on_line; return
    its exit code and the wall time in seconds. missing_hint: what to say when there is no
    command[0]."""
    started = time.monotonic()
    try:
        with log_path.open("w", encoding="utf-8") as log:
            log.write("$ " + shlex.join(command) + "\n")
            log.flush()
            with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                  text=True, encoding="utf-8", errors="replace") as process:
                assert process.stdout is not None
                for line in process.stdout:
                    log.write(line)
                    on_line(line.rstrip("\n"))
                code = process.wait()
    except FileNotFoundError:
        raise UsageError(f"cannot run {command[0]!r}: not found{missing_hint}") from None
    except OSError as err:
        raise UsageError(f"cannot run {command[0]} or write {log_path}: {err}") from None
    return code, time.monotonic() - started


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


# --------------------------------------------------------------------------
# Building the lessons, and which test programs are out of date
# --------------------------------------------------------------------------

# ninja's status line, "[12/80] Building CUDA object ...", in a build's output or its dry run.
BUILD_STATUS_RE = re.compile(r"^\[\d+/\d+\] (.*)$")
# What a dry run would compile: "Building CUDA object lessons/02_transpose/CMakeFiles/
# lesson02_student.dir/transpose.cu.o" -> transpose.cu.
PENDING_OBJECT_RE = re.compile(r"^Building \w+ object \S*?\.dir/(\S+?)\.(?:o|obj)$")


def student_targets(lesson: str) -> List[str]:
    """The targets of a lesson's student build, as cmake/CourseLesson.cmake names them."""
    return [f"lesson{lesson}_test_student", f"lesson{lesson}_demo_student"]


def keep_going(generator: str) -> List[str]:
    """The build tool's options to go on past a failed step (one broken lesson must not stop the
    others)."""
    if generator.startswith("Ninja"):
        return ["-k", "0"]
    if "Makefiles" in generator:
        return ["-k"]
    return []


def build_lessons(tree: BuildTree, lessons: List[str], log_path: Path, status: StatusLine) -> bool:
    """Build the lessons' test programs and demos, going on past a failure; the build's output
    goes to log_path and to stderr (its status lines to the status line on a terminal). True
    when everything built."""
    targets = [target for lesson in lessons for target in student_targets(lesson)]
    command = [tree.cmake, "--build", str(tree.path), "--target", *targets]
    options = keep_going(tree.generator)
    if options:
        command += ["--", *options]
    print(f"Building lesson{'s' if len(lessons) > 1 else ''} {' '.join(lessons)}; "
          f"the build's output goes to {shown_path(tree.path)}/{log_path.name}", flush=True)

    def on_line(line: str) -> None:
        if status.enabled and BUILD_STATUS_RE.match(line):
            status.show(f"building: {line}")
        elif status.enabled:
            status.print(line)
        else:
            print(line, file=sys.stderr, flush=True)

    try:
        code, _ = run_streamed(command, log_path, dict(os.environ), on_line)
    finally:
        status.clear()
    return code == 0


def ninja_path(path: Path) -> str:
    """path escaped for a ninja manifest ('$', ' ' and ':' are special there)."""
    return str(path).replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def pending_steps(tree: BuildTree, targets: List[str]) -> Tuple[Optional[List[str]], str]:
    """The build steps that building targets would run now (ninja's dry run), or None and why
    the grader cannot tell. The dry run reads the build's manifest through one of its own that
    includes it, so that ninja does not first stop at re-running CMake (which a build with
    CONFIGURE_DEPENDS globs always offers in a dry run)."""
    if not tree.generator:
        return None, ""  # not a CMake cache that names its generator: nothing to ask
    if not tree.generator.startswith("Ninja") or not tree.make_program:
        return None, (f"cannot tell whether the test programs are up to date with the generator "
                      f"{tree.generator}: build them before grading (or use --build)")
    manifest = tree.path / "build.ninja"
    with tempfile.TemporaryDirectory(prefix="course-grade-") as scratch:
        query = Path(scratch) / "query.ninja"
        query.write_text(f"include {ninja_path(manifest)}\n", encoding="utf-8")
        try:
            done = subprocess.run([tree.make_program, "-C", str(tree.path), "-f", str(query), "-n",
                                   *targets], capture_output=True, text=True, check=False)
        except OSError as err:
            return None, f"cannot tell whether the test programs are up to date: {err}"
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["ninja -n failed"])[-1]
        return None, f"cannot tell whether the test programs are up to date ({why})"
    return [match.group(1) for match in map(BUILD_STATUS_RE.match, done.stdout.splitlines())
            if match], ""


def out_of_date(tree: BuildTree, lessons: List[str], build_log: str,
                warnings: List[str]) -> Dict[str, str]:
    """Lesson -> why its test program may not be graded: it is older than its sources (its last
    build failed, or it was not built since an edit). The reason is the build log's first error
    in the lesson when there is one, else the first source that changed."""
    steps, why = pending_steps(tree, [f"lesson{lesson}_test_student" for lesson in lessons])
    if steps is None:
        if why:
            warnings.append(why)
        return {}
    stale: Dict[str, str] = {}
    for lesson in lessons:
        # The lesson's steps: its objects and programs are under lessons/NN_*/ or named lessonNN_.
        own = [step for step in steps if re.search(rf"\blessons/{lesson}_|\blesson{lesson}_", step)]
        if not own:
            continue
        sources = [m.group(1).lstrip("_/") for m in map(PENDING_OBJECT_RE.match, own) if m]
        # The build's first error in this lesson; when none of its own files is to be compiled
        # (the harness it links did not build), the build's first error at all.
        error = first_build_error(build_log, lesson, own_only=bool(sources)) if build_log else None
        if error:
            stale[lesson] = f"not built: {error}"
            continue
        changed = f"{Path(sources[0]).name} changed" if sources else "what it links changed"
        stale[lesson] = (f"out of date: {changed} since the test program was built (a failed "
                         f"build?); cmake --build {shown_path(tree.path)} --target grade-{lesson}")
    return stale


# --------------------------------------------------------------------------
# Reading results
# --------------------------------------------------------------------------


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


def shorten(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= REASON_MAX_CHARS:
        return text
    return text[: REASON_MAX_CHARS - 3].rstrip() + "..."


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


# --------------------------------------------------------------------------
# Building the scoreboard
# --------------------------------------------------------------------------


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


def first_build_error(log: str, lesson: str, own_only: bool = False) -> Optional[str]:
    """The first error line of a build log about lessons/NN_*, else (unless own_only) the first
    error line at all; paths start at lessons/."""
    errors = [line.strip() for line in log.splitlines() if BUILD_ERROR_RE.search(line)]
    # The compiler's own words first, then the build tool's ("FAILED: <object file>").
    errors.sort(key=lambda line: line.startswith(("FAILED:", "ninja:", "make")))
    own = [line for line in errors if re.search(rf"lessons/{lesson}_", line)]
    chosen = (own or ([] if own_only else errors) or [None])[0]
    return shorten(BUILD_PATH_RE.sub(r"\1", chosen)) if chosen else None


def graded_row(lesson: str, test: GradedTest, result: Optional[TestResult], build_log: str = "") -> Row:
    if result is None:
        error = first_build_error(build_log, lesson, own_only=True) if build_log else None
        return Row(lesson, test.name, test.kind, NOT_RUN, 0, test.points,
                   reason=f"no result from CTest; the build says: {error}" if error
                   else "no result from CTest for this test")
    got = test.points if result.status == PASS else 0
    reason = result.reason
    if result.status == NOT_BUILT and build_log:
        error = first_build_error(build_log, lesson)
        reason = f"not built: {error}" if error else reason
    return Row(lesson, test.name, test.kind, result.status, got, test.points,
               reason=shorten(reason), measurement=result.measurement, seconds=result.duration)


INTEGRITY = "integrity"


def integrity_row(result: TestResult, rows: List[Row]) -> Row:
    """The lesson's integrity check (its objects borrow no library, reference or clock). When it
    fails, the exercise and stretch rows' points are withheld: a borrowed kernel earns nothing."""
    if result.status == FAIL:
        for row in rows:
            if row.kind in ("exercise", "stretch") and row.points_got:
                row.points_got = 0
                row.reason = "withheld: the integrity check failed" + (f"; {row.reason}" if row.reason else "")
    return Row(result.lesson or UNKNOWN, INTEGRITY, "check", result.status, None, None,
               reason=shorten(result.reason), measurement=result.measurement)


def unlisted_row(result: TestResult) -> Row:
    return Row(result.lesson or UNKNOWN, result.name, UNKNOWN, result.status, None, None,
               reason=result.reason, measurement=result.measurement)


def index_results(results: List[TestResult], warnings: List[str]) -> Dict[Tuple[Optional[str], str], TestResult]:
    indexed: Dict[Tuple[Optional[str], str], TestResult] = {}
    for result in results:
        key = (result.lesson, result.name)
        if key in indexed:
            warnings.append(f"{result.ctest_name}: reported twice; using the first result")
            continue
        indexed[key] = result
    return indexed


def build_rows(lessons: List[Lesson], results: List[TestResult], warnings: List[str],
               build_log: str = "", stale: Optional[Dict[str, str]] = None
               ) -> Tuple[List[Lesson], Dict[str, List[Row]]]:
    """Rows per lesson number: README tests first, then results no README lists; a stale
    lesson's rows are NOT BUILT, with the reason."""
    indexed = index_results(results, warnings)
    rows: Dict[str, List[Row]] = {}
    all_lessons = list(lessons)
    for lesson in lessons:
        if stale and lesson.number in stale:
            rows[lesson.number] = [Row(lesson.number, test.name, test.kind, NOT_BUILT, 0, test.points,
                                       reason=shorten(stale[lesson.number]))
                                   for test in lesson.tests]
            continue
        rows[lesson.number] = [graded_row(lesson.number, test,
                                          indexed.pop((lesson.number, test.name), None), build_log)
                               for test in lesson.tests]
        integrity = indexed.pop((lesson.number, INTEGRITY), None)
        if integrity is not None:
            rows[lesson.number].append(integrity_row(integrity, rows[lesson.number]))
    for result in indexed.values():
        key = result.lesson or UNKNOWN
        if key not in rows:
            rows[key] = []
            all_lessons.append(Lesson(number=key, title="(not in any README)"))
        rows[key].append(unlisted_row(result))
        warnings.append(f"{result.ctest_name}: not in any README grading table; no points counted")
    return all_lessons, rows


def all_skipped_reason(results: List[TestResult], gpu: Optional[str]) -> Optional[str]:
    """The first skip reason when no test ran on a GPU and some were skipped, else None."""
    skipped = [result for result in results if result.status == SKIP]
    if skipped and gpu is None:
        return skipped[0].reason
    return None


def distinct_skip_reasons(results: List[TestResult]) -> List[str]:
    reasons: List[str] = []
    for result in results:
        if result.status == SKIP and result.reason not in reasons:
            reasons.append(result.reason)
    return reasons


def build_scoreboard(lessons: List[Lesson], results: List[TestResult], warnings: List[str],
                     build_log: str = "", stale: Optional[Dict[str, str]] = None) -> Scoreboard:
    if not results and not stale:
        warnings.append("CTest reported no student tests: is the build directory configured and built?")
    all_lessons, rows = build_rows(lessons, results, warnings, build_log, stale)
    gpu = find_gpu(results)
    return Scoreboard(lessons=all_lessons, rows=rows, gpu=gpu,
                      ceilings=find_ceilings(results), warnings=warnings,
                      all_skipped_reason=all_skipped_reason(results, gpu),
                      skip_reasons=distinct_skip_reasons(results))


def totals_of(rows: Iterable[Row]) -> Totals:
    totals = Totals()
    for row in rows:
        totals.add(row)
    return totals


def grand_totals(board: Scoreboard) -> Totals:
    return totals_of(row for rows in board.rows.values() for row in rows)


# --------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------

Colouriser = Callable[[str, str], str]


def no_colour(text: str, _status: str) -> str:
    return text


def ansi_colour(text: str, status: str) -> str:
    code = ANSI_COLOURS.get(status)
    return f"{code}{text}{ANSI_RESET}" if code else text


def use_colour(mode: str, stream) -> bool:
    if mode == "always":
        return True
    if mode == "never":
        return False
    return bool(getattr(stream, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ


def points_cell(row: Row) -> str:
    if row.points_max is None:
        return UNKNOWN
    return f"{row.points_got or 0}/{row.points_max}"


def row_cells(row: Row) -> List[str]:
    m = row.measurement
    return [row.lesson, row.name, row.kind, row.status,
            f"{m.time_ms} ms" if m.time_ms else NO_VALUE,
            f"{m.speedup}x" if m.speedup else NO_VALUE,
            m.share or NO_VALUE,
            points_cell(row)]


def column_widths(table: List[List[str]]) -> List[int]:
    return [max(len(cells[i]) for cells in table) for i in range(len(table[0]))]


def format_cells(cells: List[str], widths: List[int], status_column: Optional[int],
                 colour: Colouriser) -> str:
    padded = [cell.ljust(width) for cell, width in zip(cells, widths)]
    if status_column is not None:
        padded[status_column] = colour(padded[status_column], cells[status_column])
    return (INDENT + COLUMN_GAP.join(padded)).rstrip()


def render_lesson(lesson: Lesson, rows: List[Row], colour: Colouriser) -> List[str]:
    header = f"Lesson {lesson.number} · {lesson.title}"
    if not rows:
        return [header, f"{INDENT}(no graded tests)", ""]
    table = [list(TABLE_HEADER)] + [row_cells(row) for row in rows]
    widths = column_widths(table)
    status_column = TABLE_HEADER.index("status")
    reason_indent = INDENT + " " * (widths[0] + len(COLUMN_GAP)) + "  ↳ "
    lines = [header, format_cells(table[0], widths, None, colour)]
    for row, cells in zip(rows, table[1:]):
        lines.append(format_cells(cells, widths, status_column, colour))
        if row.status != PASS and row.reason:
            lines.append(reason_indent + row.reason)
    seconds = sum(row.seconds for row in rows)
    lines.append(f"{INDENT}subtotal: {totals_of(rows).text()}" +
                 (f" · {seconds:.1f} s" if seconds > 0 else ""))
    lines.append("")
    return lines


def render_header(board: Scoreboard) -> List[str]:
    gpu = board.gpu or ("none usable" if board.all_skipped_reason is not None else "no GPU seen")
    lines = ["CUDA course scoreboard", f"GPU: {gpu}"]
    if board.ceilings:
        lines.append("ceilings: " + "; ".join(f"{name} = {value}" for name, value in board.ceilings))
    lines.append("")
    return lines


NO_GPU_SUMMARY_HEADER = ("lesson", "tests", "passed", "skipped", "other", "points")
NO_GPU_ADVICE = (
    "Without a GPU you can still:",
    "  - write the kernels and build: a lesson that does not compile is shown above as not built,",
    "    with the compiler's first error, and the CPU tests (argument checks, integrity) run;",
    "  - check your logic against the CPU reference of each lesson (lessons/NN_*/*_cpu.hpp).",
)


def grade_on_a_gpu(source_dir: Path, grader: str, build_dir: str) -> List[str]:
    """Where to grade when this machine has no usable GPU: the no-GPU scoreboard's advice, and
    what CTest prints after a run in which no kernel was checked (cmake/course_gpu_notice.py)."""
    lines = [
        "To check your kernels, grade on a machine with an NVIDIA GPU of compute capability 7.5 or",
        "newer and its driver:",
        "  - a lab machine with a GPU: the same command there;",
        f"  - a GPU node of the class cluster: srun --gres=gpu:1 python3 {grader} --build-dir "
        f"{build_dir}",
        "    (the docs' page \"Setting up\", section \"A cluster node\");",
    ]
    if (source_dir / "tools" / "cluster" / "submit.sh").is_file():  # instructors' tree only
        lines.append("  - a whole class, one GPU per submission: tools/cluster/submit.sh "
                     "(tools/cluster/README.md);")
    lines.append("  - a cloud or Colab GPU.")
    return lines


def render_no_gpu(board: Scoreboard, colour: Colouriser) -> List[str]:
    """The short scoreboard of a run where no GPU was usable: a line per lesson, the rows that
    neither passed nor skipped (grouped by reason), the skip reason once, and what to do."""
    table = [list(NO_GPU_SUMMARY_HEADER)]
    others: List[Tuple[str, str, str, List[str]]] = []  # lesson, status, reason, tests
    skipped_total = 0
    for lesson in board.lessons:
        rows = board.rows.get(lesson.number, [])
        passed = sum(1 for row in rows if row.status == PASS)
        skipped = sum(1 for row in rows if row.status == SKIP)
        skipped_total += skipped
        table.append([f"{lesson.number} {lesson.title}", str(len(rows)), str(passed), str(skipped),
                      str(len(rows) - passed - skipped), totals_of(rows).text()])
        for row in rows:
            if row.status in (PASS, SKIP):
                continue
            for group in others:
                if group[:3] == (lesson.number, row.status, row.reason):
                    group[3].append(row.name)
                    break
            else:
                others.append((lesson.number, row.status, row.reason, [row.name]))
    widths = column_widths(table)
    lines = [format_cells(table[0], widths, None, colour)]
    lines += [format_cells(cells, widths, None, colour) for cells in table[1:]]
    if others:
        lines += ["", "Rows that neither passed nor were skipped:"]
        for lesson, status, reason, tests in others:
            names = tests[0] if len(tests) == 1 else f"{len(tests)} tests ({tests[0]}, ...)"
            lines.append(f"{INDENT}{lesson}  {colour(status, status)}  {names}"
                         + (f": {reason}" if reason else ""))
    lines += ["", f"Total: {grand_totals(board).text()}"]
    lines += [f"warning: {warning}" for warning in board.warnings]
    reasons = board.skip_reasons or [board.all_skipped_reason or "no reason given"]
    lines += ["", f"No GPU was usable, so no kernel was checked: the {skipped_total} GPU tests "
                  f"were skipped ({reasons[0]})."]
    lines += [f"  (also: {reason})" for reason in reasons[1:3]]
    lines += ["", *NO_GPU_ADVICE, *board.gpu_advice, f"Every row: {board.all_rows_command}"]
    return lines


def render_scoreboard(board: Scoreboard, colour: Colouriser, all_rows: bool = False) -> str:
    lines = render_header(board)
    if board.all_skipped_reason is not None and not all_rows:
        return "\n".join(lines + render_no_gpu(board, colour)) + "\n"
    for lesson in board.lessons:
        lines += render_lesson(lesson, board.rows.get(lesson.number, []), colour)
    lines.append(f"Total: {grand_totals(board).text()}")
    lines += [f"warning: {warning}" for warning in board.warnings]
    if board.all_skipped_reason is not None:
        lines.append(f"No GPU was usable, so no kernel was checked: every GPU test was skipped "
                     f"({board.all_skipped_reason}).")
        lines += board.gpu_advice
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Gradescope results.json
# --------------------------------------------------------------------------


def gradescope_test_output(row: Row) -> str:
    if row.status == PASS:
        return row.measurement.text or "passed"
    if row.status == SKIP:
        return f"skipped: {row.reason}"
    if row.status == NOT_RUN:
        return f"not run: {row.reason}"
    return row.reason or row.status.lower()


def gradescope_test(row: Row) -> Dict[str, object]:
    bonus = row.kind == BONUS_KIND
    got = row.points_got or 0
    output = gradescope_test_output(row)
    if row.points_max is None:
        output += " (not in any README grading table; no points)"
    return {
        "name": f"lesson{row.lesson} {row.name}",
        "score": float(got),
        "max_score": 0.0 if bonus or row.points_max is None else float(row.points_max),
        "status": "passed" if row.status == PASS else "failed",
        "output": output,
        "visibility": "visible",
    }


def gradescope_json(board: Scoreboard, plain_text: str, seconds: float) -> Dict[str, object]:
    totals = grand_totals(board)
    tests = [gradescope_test(row) for lesson in board.lessons for row in board.rows.get(lesson.number, [])]
    return {
        "score": float(totals.score + totals.bonus),
        "execution_time": int(round(seconds)),
        "output": plain_text,
        "tests": tests,
    }


def write_json(path: Path, data: Dict[str, object]) -> None:
    try:
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror}") from None


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


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


def obtain_results(args: argparse.Namespace, known_lessons: List[str],
                   stale: Optional[Dict[str, str]] = None,
                   status: Optional[StatusLine] = None) -> Tuple[List[TestResult], float]:
    """Run ctest (unless --no-run) over the lessons that are not stale and read its JUnit file;
    return results and seconds."""
    build_dir: Path = args.build_dir.resolve()
    stale = stale or {}
    if args.no_run:
        junit = (args.junit or build_dir / JUNIT_NAME).resolve()
        seconds: Optional[float] = None
    else:
        fresh = [number for number in known_lessons if number not in stale]
        if not fresh:
            return [], 0.0  # nothing to run: every lesson's program is out of date
        selection = fresh if stale else args.lessons
        junit, seconds = run_ctest_for_junit(args, build_dir, selection,
                                             status or StatusLine(sys.stderr))
    root = read_junit(junit)
    results = parse_results(root, read_ctest_log(matching_ctest_log(junit)))
    # The run's own fixtures (course/ceilings_fresh) are no student's row.
    results = [r for r in results if not r.ctest_name.startswith("course/")]
    if args.lessons:
        results = [r for r in results if r.lesson in args.lessons]
    else:
        results = [r for r in results if r.lesson is None or r.lesson in known_lessons]
    results = [r for r in results if r.lesson not in stale]
    if seconds is None:
        seconds = sum(result.duration for result in results)
    return results, seconds


def mark_quick(board: Scoreboard) -> None:
    """--quick ran no timed or sanitizer row: those rows say so instead of 'no result'."""
    for rows in board.rows.values():
        for row in rows:
            if row.status == NOT_RUN and re.search(r"\.(speed|share|speed_\w+)$|^memory\.sanitize$", row.name):
                row.status = SKIP
                row.reason = QUICK_REASON


def shown_path(path: Path) -> str:
    """path relative to the current directory when it lies below it, else as it is (also when it
    is the current directory itself: the grade target runs the grader from the build directory,
    and "--build-dir ." would be wrong where the student types the command)."""
    try:
        relative = path.relative_to(Path.cwd().resolve())
    except ValueError:
        return str(path)
    return str(relative) if relative.parts else str(path)


def read_build_log(path: Optional[Path]) -> str:
    if path is None:
        return ""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise UsageError(f"cannot read the build log {path}: {err.strerror}") from None


def configure_stdout() -> None:
    """Never die on a terminal that cannot show '↳' or '·'."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="replace")
        except (ValueError, OSError):
            pass


def all_rows_command(args: argparse.Namespace) -> str:
    """The footer's command: this run's rows, every one of them."""
    command = ["python3", shown_path(Path(__file__).resolve()), "--build-dir",
               shown_path(args.build_dir.resolve())]
    if args.lessons:
        command += ["--lessons", *args.lessons]
    return shlex.join(command + ["--no-run", "--all-rows"])


def build_failed_line(tree: BuildTree, stale: Dict[str, str]) -> str:
    """The last line of a --build run whose build failed."""
    log = f"{shown_path(tree.path)}/{BUILD_LOG_NAME}"
    if stale:
        numbers = sorted(stale)
        which = f"lesson{'s' if len(numbers) > 1 else ''} {', '.join(numbers)}"
        return (f"grade.py: the build failed: {which} did not build (NOT BUILT above, with the "
                f"first error); the other lessons were graded. The build's output: {log}")
    return f"grade.py: the build failed (see {log}); the lessons above were graded"


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    configure_stdout()
    try:
        source_dir = args.source_dir.resolve()
        tree = None if args.no_run else check_build_dir(args.build_dir.resolve(), source_dir)
        args.lessons = select_lessons(source_dir, args.lessons, tree.lessons if tree else None)
        if args.json:
            try:
                args.json = safe_output.check_output_file(args.json, protect=[source_dir])
            except safe_output.OutputRefused as err:
                raise UsageError(f"--json: {err}") from None
        lessons, warnings = load_lessons(source_dir, args.lessons)
        numbers = [lesson.number for lesson in lessons]
        status = StatusLine(sys.stderr)
        built = True
        if args.build:
            assert tree is not None
            built = build_lessons(tree, numbers, tree.path / BUILD_LOG_NAME, status)
            args.build_log = tree.path / BUILD_LOG_NAME
        build_log = read_build_log(args.build_log)
        stale = out_of_date(tree, numbers, build_log, warnings) if tree is not None else {}
        results, seconds = obtain_results(args, numbers, stale, status)
        board = build_scoreboard(lessons, results, warnings, build_log, stale)
        if args.quick:
            mark_quick(board)
        board.all_rows_command = all_rows_command(args)
        board.gpu_advice = grade_on_a_gpu(source_dir, shown_path(Path(__file__).resolve()),
                                          shown_path(args.build_dir.resolve()))
        plain = render_scoreboard(board, no_colour, args.all_rows)
        coloured = use_colour(args.color, sys.stdout)
        sys.stdout.write(render_scoreboard(board, ansi_colour, args.all_rows) if coloured else plain)
        sys.stdout.flush()
        if args.json:
            write_json(args.json, gradescope_json(board, plain, seconds))
    except UsageError as err:
        print(f"grade.py: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    if not built:
        assert tree is not None
        print(build_failed_line(tree, stale), file=sys.stderr)
        return EXIT_BUILD_FAILED
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
