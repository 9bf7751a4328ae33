#!/usr/bin/env python3
"""Every code block of every deck fits one projected slide: at most MAX_LINES lines and
MAX_COLUMNS columns, in both editions, checked on the decks as the build renders them (after
inject.py has put in the snippets and the student edition's exercises). Needs neither Node,
Marp nor Chromium (test_render_png.py measures the rendered size where Chromium is found).

    python3 slides/test_code_size.py         (CTest: slides/code_size, labels unit;cpu;slides)

Why these limits (issue #18): the theme sets code in 0.7 em of the 26 px slide text, 18.2 px
at the slide's 1280 x 720, the size of its fine print. Under a heading, 22 lines of that fill a
slide; more, and the block runs off the slide. Marp's auto-scaling shrinks a block whose longest
line is wider than the slide: at 18.2 px a monospace column is about 10.9 px, and the 1116 px
inside a block on a plain slide hold 102 of them: the sources' own 100 columns fit.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path
from typing import Iterator, NamedTuple

from deck_tools import DECKS, editions, inject, verdict
MAX_LINES = 22
MAX_COLUMNS = 102
PROBLEM = f"code blocks over {MAX_LINES} lines or {MAX_COLUMNS} columns"
FINE = f"every code block within {MAX_LINES} lines and {MAX_COLUMNS} columns"
FENCE = re.compile(r"^\s*(```|~~~)")
SEPARATOR = re.compile(r"^\s*(---|\*\*\*|___)\s*$")  # Marp starts a slide at every ruler


class Block(NamedTuple):
    deck: str
    slide: int      # 1-based, as Marp numbers the slides
    lines: int
    columns: int


def blocks(deck: str, text: str) -> Iterator[Block]:
    """The fenced code blocks of an expanded deck, with the slide each one is on."""
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":            # front matter: not a slide
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        lines = lines[end + 1:]
    slide, fence, body = 1, None, []
    for line in lines:
        if fence is None:
            if SEPARATOR.match(line):
                slide += 1
            elif FENCE.match(line):
                fence, body = FENCE.match(line).group(1), []
        elif line.strip().startswith(fence):
            yield block(deck, slide, body)
            fence = None
        else:
            body.append(line)
    if fence is not None:                              # Marp runs an open fence to the end
        yield block(deck, slide, body)


def block(deck: str, slide: int, body: list[str]) -> Block:
    # Tabs as wide as Chromium's default tab stop, 8 columns.
    return Block(deck, slide, len(body), max((len(b.expandtabs(8)) for b in body), default=0))


def expanded(edition: str, out: Path) -> dict[str, str]:
    """The decks as the build expands them (slides/CMakeLists.txt runs the same command)."""
    inject(edition, out, DECKS)
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(out.glob("*.md"))}


def main() -> int:
    failures, largest = [], {}
    with tempfile.TemporaryDirectory() as work:
        for edition in editions():
            for deck, text in expanded(edition, Path(work) / edition).items():
                for block in blocks(deck, text):
                    size = largest.setdefault(deck, [0, 0])
                    size[0], size[1] = max(size[0], block.lines), max(size[1], block.columns)
                    if block.lines > MAX_LINES or block.columns > MAX_COLUMNS:
                        failures.append(f"{deck} slide {block.slide} ({edition}): "
                                        f"{block.lines} lines, {block.columns} columns")
    measured = [f"{deck}: largest code block {lines} lines, longest line {columns} columns"
                for deck, (lines, columns) in largest.items()]
    return verdict(measured, failures, PROBLEM, f"{FINE} ({', '.join(editions())} editions)")


if __name__ == "__main__":
    sys.exit(main())
