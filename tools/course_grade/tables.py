"""The lessons and their README grading tables: which tests a lesson grades, of what kind, for how
many points. (markdown_tables reads any table of a README: tests/unit/test_rung_kinds.py reads
the rung tables with it.)

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
``lessons/`` whose name starts with ``NN_``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .model import GradedTest, Lesson, UsageError

BEGIN_MARKER = "<!-- grading:begin -->"
END_MARKER = "<!-- grading:end -->"
KINDS = ("given", "exercise", "stretch")

TEST_NAME_RE = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+$")
LESSON_DIR_RE = re.compile(r"^(\d{2})_(.+)$")
CELL_SPLIT_RE = re.compile(r"(?<!\\)\|")
SEPARATOR_ROW_RE = re.compile(r"^\|?[\s:|-]+\|?$")


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


def table_cells(line: str) -> Optional[List[str]]:
    """The cells of a Markdown table row; None for a line that is no row, or a separator row."""
    stripped = line.strip()
    if not stripped.startswith("|") or SEPARATOR_ROW_RE.match(stripped):
        return None
    return split_cells(stripped)


@dataclass
class MarkdownTable:
    """A table of a Markdown text: its header's cells and its rows, each with its line number."""

    header: List[str]
    rows: List[Tuple[int, List[str]]]


def markdown_tables(text: str) -> List[MarkdownTable]:
    """Every table of a Markdown text, in order."""
    tables: List[MarkdownTable] = []
    inside = False
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip().startswith("|"):
            inside = False
            continue
        cells = table_cells(line)
        if cells is None:
            continue  # the separator under the header
        if inside:
            tables[-1].rows.append((number, cells))
        else:
            tables.append(MarkdownTable(header=cells, rows=[]))
            inside = True
    return tables


def grading_table_lines(text: str) -> Optional[List[Tuple[int, str]]]:
    """The lines between the grading markers, with their line numbers; None without markers."""
    lines = list(enumerate(text.splitlines(), start=1))
    starts = [i for i, (_, line) in enumerate(lines) if line.strip() == BEGIN_MARKER]
    if not starts:
        return None
    start = starts[0] + 1
    for end in range(start, len(lines)):
        if lines[end][1].strip() == END_MARKER:
            return lines[start:end]
    return lines[start:]


def parse_table_row(cells: List[str], line: int = 0) -> GradedTest:
    """Turn the five cells of one table row (at README line line) into a GradedTest (ValueError
    if bad)."""
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
    return GradedTest(name=name, kind=kind, threshold=threshold, points=int(points), line=line)


def parse_grading_table(text: str, where: str) -> Tuple[List[GradedTest], List[str]]:
    """Parse a README's grading table; bad rows become warnings, not errors."""
    lines = grading_table_lines(text)
    if lines is None:
        return [], [f"{where}: no grading table ({BEGIN_MARKER} ... {END_MARKER})"]
    warnings: List[str] = []
    if text.count(BEGIN_MARKER) > 1:
        warnings.append(f"{where}: more than one grading table; using the first")
    tests: List[GradedTest] = []
    for number, line in lines:
        cells = table_cells(line)
        if cells is None or (cells and cells[0].lower() == "test"):
            continue
        try:
            test = parse_table_row(cells, number)
        except ValueError as err:
            warnings.append(f"{where}: grading row ignored ({err}): {line.strip()}")
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
