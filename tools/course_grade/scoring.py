"""From README tests and CTest results to the scoreboard's rows and points.

A test earns the full points of its row when CTest reported it passed, and 0 otherwise.  A
README row without a result is NOT RUN; a result no README lists is shown, with no points and a
warning.  The lesson's integrity check (``lessonNN/student/integrity``) has no points of its
own: when it fails, the lesson's exercise and stretch rows earn nothing.  Stretch points are a
bonus, kept apart from the maximum."""

from __future__ import annotations

import re
from typing import Dict, Iterable, List, Optional, Tuple

from .build import first_build_error
from .ctest import QUICK_REASON
from .model import (CHECK_KIND, FAIL, NOT_BUILT, NOT_RUN, PASS, SKIP, UNKNOWN, GradedTest,
                    Lesson, Row, Scoreboard, TestResult, Totals, shorten)
from .results import find_ceilings, find_gpu


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
# The start of the reason of a row that passed but earns nothing: the scoreboard shows it too.
WITHHELD = "withheld: "


def integrity_row(result: TestResult, rows: List[Row]) -> Row:
    """The lesson's integrity check (its objects borrow no library, reference or clock). When it
    fails, the exercise and stretch rows' points are withheld: a borrowed kernel earns nothing."""
    if result.status == FAIL:
        for row in rows:
            if row.kind in ("exercise", "stretch") and row.points_got:
                row.points_got = 0
                row.reason = WITHHELD + "the integrity check failed" + (f"; {row.reason}" if row.reason else "")
    return Row(result.lesson or UNKNOWN, INTEGRITY, CHECK_KIND, result.status, None, None,
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


def mark_quick(board: Scoreboard) -> None:
    """--quick ran no timed or sanitizer row: those rows say so instead of 'no result'."""
    for rows in board.rows.values():
        for row in rows:
            if row.status == NOT_RUN and re.search(r"\.(speed|share|speed_\w+)$|^memory\.sanitize$", row.name):
                row.status = SKIP
                row.reason = QUICK_REASON
