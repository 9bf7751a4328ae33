"""The grader's vocabulary: its file names, a row's statuses, the data that passes between its
modules, and two helpers for the words it prints (a reason cut to length, a path as the reader
would type it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

BONUS_KIND = "stretch"  # the kind whose points are a bonus, kept apart from the maximum
CHECK_KIND = "check"  # the kind of the integrity row: a check with no points of its own

# What the grader writes in the build directory.
JUNIT_NAME = "grade-junit.xml"
JUNIT_PARTIAL_NAME = "grade-junit.partial.xml"  # ctest's JUnit file until it is complete
CTEST_LOG_NAME = "grade-ctest.log"
BUILD_LOG_NAME = "grade-build.log"

# A row's status.
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


class UsageError(Exception):
    """Bad invocation or unreadable input; reported with exit code 2."""


@dataclass(frozen=True)
class GradedTest:
    """One row of a README grading table."""

    name: str
    kind: str
    threshold: str
    points: int
    line: int = field(default=0, compare=False)  # where the row is in its README


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


def shorten(text: str) -> str:
    """text on one line (white space folded), cut to REASON_MAX_CHARS."""
    text = " ".join(text.split())
    if len(text) <= REASON_MAX_CHARS:
        return text
    return text[: REASON_MAX_CHARS - 3].rstrip() + "..."


def shown_path(path: Path) -> str:
    """path relative to the current directory when it lies below it, else as it is (also when it
    is the current directory itself: the grade target runs the grader from the build directory,
    and "--build-dir ." would be wrong where the student types the command)."""
    try:
        relative = path.relative_to(Path.cwd().resolve())
    except ValueError:
        return str(path)
    return str(relative) if relative.parts else str(path)
