"""What every chart of slides/chart.py shares: colours, sizes, the JSON, a title, a caption and
the SVG document around them."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr


# Colour of a rung's bar by its kind; any other kind (e.g. "lab") gets OTHER.
COLOURS = {"given": "#7f8c8d", "exercise": "#2e86c1", "stretch": "#e67e22", "ceiling": "#8e44ad"}
OTHER = "#16a085"
# A sweep's lines, in the order of their rungs; its reference rows are grey, the ceiling red.
LINES = ["#2e86c1", "#e67e22", "#16a085", "#8e44ad", "#d4ac0d", "#1a5276"]
GREY = "#7f8c8d"
RED = "#c0392b"

WIDTH = 960          # the SVG's own units (it scales to its box)
BAR_HEIGHT = 18
ROW = 24             # one rung's line
CHAR = 7.3           # width of a 12 px monospace character, near enough
FONT = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""
MONO = "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\""
PLOT_HEIGHT = 300    # a sweep's plot area
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def load(path: Path) -> dict:
    """The JSON of a demo's --json, tolerating lines printed before it (e.g. "[course] ...")."""
    text = path.read_text(encoding="utf-8")
    start = re.search(r"^\{", text, re.M)
    return json.loads(text[start.start():] if start else text)


def share_of(row: dict) -> float | None:
    value = row.get("share")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def heading(table: dict) -> tuple[list[str], int]:
    """The SVG elements of the table's title, and the y below them."""
    parts: list[str] = []
    y = 8
    for line in textwrap.wrap(str(table["title"]), 100) or [""]:
        y += 18
        parts.append(f'<text x="10" y="{y}" font-size="15" font-weight="bold" {FONT}>'
                     f'{escape(line)}</text>')
    return parts, y


def captioned(parts: list[str], y: int, text: str) -> int:
    """Appends TEXT to PARTS as caption lines from Y down; returns the y below them."""
    for line in textwrap.wrap(text, 140):
        parts.append(f'<text class="caption" x="10" y="{y}" font-size="12" fill="#444" {FONT}>'
                     f'{escape(line)}</text>')
        y += 16
    return y


def document(table: dict, parts: list[str], height: int) -> str:
    """PARTS as an SVG document HEIGHT units high (a string without blank lines)."""
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
            f'width="{WIDTH}" height="{height}" role="img" '
            f'aria-label={quoteattr(str(table["title"]))}>')
    return "\n".join([head, f'<rect width="{WIDTH}" height="{height}" fill="white"/>', *parts,
                      "</svg>"]) + "\n"

def spread(labels: list[tuple[float, str, str]], gap: float = 13) -> list[tuple[float, str, str]]:
    """Labels (y, text, colour) sorted by y and moved down until GAP px apart."""
    out: list[tuple[float, str, str]] = []
    for y, text, colour in sorted(labels):
        out.append((max(y, out[-1][0] + gap) if out else y, text, colour))
    return out
