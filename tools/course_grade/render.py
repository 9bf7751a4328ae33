"""The scoreboard as text: a table per lesson (lesson, test, kind, status, time, speedup, share,
points), the reason under every row that did not pass, subtotals and the total.

When no test printed a ``[course] gpu:`` line and some were skipped, the scoreboard is short:
one line per lesson (tests, passed, skipped, points), the rows that did not pass or skip (a
lesson that did not build, a failing CPU test) grouped by reason, then the reason the GPU tests
were skipped, once (no driver, no device, a driver too old, ...), and what a student without a
GPU can do. ``--all-rows`` shows every row instead."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, List, Optional, Tuple

from .model import (CHECK_KIND, CRASH, CUDA_ERROR, EXITED, FAIL, NO_VALUE, NOT_BUILT, NOT_RUN,
                    PASS, SKIP, TIMEOUT, UNKNOWN, Lesson, Row, Scoreboard)
from .scoring import WITHHELD, grand_totals, totals_of

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
    """Points earned of the row's; a check has none of its own ('-', as any value a row lacks),
    and a test no README lists has points nobody knows ('?')."""
    if row.points_max is None:
        return NO_VALUE if row.kind == CHECK_KIND else UNKNOWN
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
        # A row that passed shows its reason only when its points were withheld.
        if row.reason and (row.status != PASS or row.reason.startswith(WITHHELD)):
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
