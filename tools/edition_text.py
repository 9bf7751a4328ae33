#!/usr/bin/env python3
"""The course's texts in two editions, from one source: edition markers in Markdown.

    <!-- instructor:begin -->
    Text for instructors only: shown in this repository, removed from the student edition.
    <!-- instructor:end -->

    <!-- student:begin
    Text for students only: an HTML comment here (so neither GitHub nor the instructor docs
    show it), plain text in the student edition.
    student:end -->

Each marker stands alone on its line (outside code blocks; a marker quoted in backticks is only
text); blocks do not nest, and a student block may not hold ``-->``. Used by tools/student_edition.py (the README, lesson READMEs and docs pages that the
edition holds), by the docs (Doxygen's FILTER_PATTERNS: the student edition of the docs built
in this repository) and by slides/inject.py (the student decks).

    python3 tools/edition_text.py [--edition student|instructor] [--keep-lines] FILE

prints FILE as that edition reads it (``--keep-lines``: removed lines become blank lines, so
that line numbers stay as they were, for Doxygen's warnings). Exit code 1 for a file whose
markers do not pair up, with its line.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import List, Optional, Sequence

INSTRUCTOR_BEGIN = "<!-- instructor:begin -->"
INSTRUCTOR_END = "<!-- instructor:end -->"
STUDENT_BEGIN = "<!-- student:begin"
STUDENT_END = "student:end -->"
EDITIONS = ("student", "instructor")
# Text files whose edition markers the student edition applies.
SUFFIXES = (".md",)
_INLINE_CODE = re.compile(r"`[^`]*`")  # markers quoted in prose or code are only text
_ANY_MARKER = re.compile(r"<!--\s*(instructor|student):(begin|end)|(instructor|student):end\s*-->")


class MarkerError(ValueError):
    """Edition markers that do not pair up; the message names the line."""


def apply(text: str, edition: str, keep_lines: bool = False, where: str = "text") -> str:
    """text as the given edition reads it."""
    if edition not in EDITIONS:
        raise ValueError(f"edition must be one of {EDITIONS}, not {edition!r}")
    out: List[str] = []
    block: Optional[str] = None      # None, "instructor" or "student"
    opened = 0
    lines = text.split("\n")
    in_fence = False
    for number, line in enumerate(lines, start=1):
        marker = line.strip()
        if marker.startswith("```"):
            in_fence = not in_fence
        kind = None if in_fence else {
            INSTRUCTOR_BEGIN: ("instructor", "begin"), INSTRUCTOR_END: ("instructor", "end"),
            STUDENT_BEGIN: ("student", "begin"), STUDENT_END: ("student", "end")}.get(marker)
        if kind is None and not in_fence and _ANY_MARKER.search(_INLINE_CODE.sub("", line)):
            raise MarkerError(f"{where}:{number}: an edition marker must stand alone on its line "
                              f"(one of {INSTRUCTOR_BEGIN}, {INSTRUCTOR_END}, {STUDENT_BEGIN}, "
                              f"{STUDENT_END})")
        if kind is not None:
            name, edge = kind
            if edge == "begin":
                if block is not None:
                    raise MarkerError(f"{where}:{number}: {marker} inside the {block} block "
                                      f"opened at line {opened} (blocks do not nest)")
                block, opened = name, number
            else:
                if block != name:
                    raise MarkerError(f"{where}:{number}: {marker} without its begin marker")
                block = None
            if keep_lines:
                out.append("")
            continue
        if block == "student" and "-->" in line:
            raise MarkerError(f"{where}:{number}: a student block may not hold '-->' "
                              f"(it is an HTML comment in the instructor edition)")
        shown = block is None or block == edition
        if shown:
            out.append(line)
        elif keep_lines:
            out.append("")
    if block is not None:
        raise MarkerError(f"{where}:{opened}: the {block} block is never closed")
    return "\n".join(out)


def has_markers(text: str) -> bool:
    return bool(_ANY_MARKER.search(text))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description="A Markdown file as one edition reads it.")
    parser.add_argument("file", type=Path)
    parser.add_argument("--edition", choices=EDITIONS, default="student")
    parser.add_argument("--keep-lines", action="store_true",
                        help="blank lines in place of removed ones (line numbers unchanged)")
    args = parser.parse_args(argv)
    try:
        text = args.file.read_text(encoding="utf-8")
        shown = apply(text, args.edition, args.keep_lines, where=str(args.file))
        sys.stdout.buffer.write(shown.encode("utf-8"))  # whatever the locale of the caller
    except (OSError, MarkerError) as err:
        print(f"edition_text.py: error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
