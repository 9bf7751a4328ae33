"""Gradescope's results.json (``--json PATH``): the score, the scoreboard as plain text, and one
test per row (stretch tests have ``max_score`` 0 and score = the bonus earned, i.e. extra
credit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Dict

from .model import BONUS_KIND, CHECK_KIND, NOT_RUN, PASS, SKIP, Row, Scoreboard, UsageError
from .scoring import grand_totals


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
    if row.kind == CHECK_KIND:
        output += (" (a check that earns no points itself: when it fails, the lesson's exercise"
                   " and stretch points are withheld)")
    elif row.points_max is None:
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
