#!/usr/bin/env python3
"""Draws each ladder of a demo's JSON (`lessonNN_demo_solution --json`) as a horizontal bar chart
in SVG: one bar per rung, its length the rung's share of the table's ceiling, a dashed line at
100 %, the share printed at the bar's end, the bar coloured by the rung's kind. Python's standard
library only.

    chart.py RESULTS.json --out DIR      ->  DIR/<NN_name>-1.svg, -2.svg, ... (one per table)

inject.py (the decks' <!-- chart: ... --> directive) and docs/results_page.py import it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

# Colour of a rung's bar by its kind; any other kind (e.g. "lab") gets OTHER.
COLOURS = {"given": "#7f8c8d", "exercise": "#2e86c1", "stretch": "#e67e22", "ceiling": "#8e44ad"}
OTHER = "#16a085"

WIDTH = 960          # the SVG's own units (it scales to its box)
BAR_HEIGHT = 18
ROW = 24             # one rung's line
CHAR = 7.3           # width of a 12 px monospace character, near enough
FONT = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""
MONO = "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\""


def load(path: Path) -> dict:
    """The JSON of a demo's --json, tolerating lines printed before it (e.g. "[course] ...")."""
    text = path.read_text(encoding="utf-8")
    start = re.search(r"^\{", text, re.M)
    return json.loads(text[start.start():] if start else text)


def share_of(row: dict) -> float | None:
    value = row.get("share")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def svg(table: dict, gpu: str) -> str:
    """One table of the JSON as an SVG document (a string without blank lines)."""
    rows = table.get("rows", [])
    ceiling = table["ceiling"]
    shares = [share_of(row) for row in rows]
    # The axis runs to 100 % or to the longest bar, with room for the printed value.
    top = max([1.0, *[s for s in shares if s is not None]])
    label_w = max([len(str(row["rung"])) for row in rows] + [8]) * CHAR + 16
    x0 = 10 + label_w
    plot_w = WIDTH - x0 - 70
    scale = plot_w / top                   # px per unit of share

    title_lines = textwrap.wrap(str(table["title"]), 118) or [""]
    y = 8
    parts: list[str] = []
    for line in title_lines:
        y += 18
        parts.append(f'<text x="10" y="{y}" font-size="15" font-weight="bold" {FONT}>'
                     f'{escape(line)}</text>')
    y += 10
    kinds = list(dict.fromkeys(str(row.get("kind", "")) for row in rows))
    legend_x = 10.0
    y += 12
    for kind in kinds:
        parts.append(f'<rect x="{legend_x:.1f}" y="{y - 10}" width="12" height="12" '
                     f'fill="{COLOURS.get(kind, OTHER)}"/>')
        parts.append(f'<text x="{legend_x + 16:.1f}" y="{y}" font-size="12" {FONT}>'
                     f'{escape(kind)}</text>')
        legend_x += 16 + len(kind) * CHAR + 18
    parts.append(f'<text x="{WIDTH - 10}" y="{y}" font-size="12" text-anchor="end" {FONT} '
                 f'fill="#555">share of {escape(str(ceiling["name"]))}</text>')
    y += 10
    bars_top = y
    for row, share in zip(rows, shares):
        kind = str(row.get("kind", ""))
        width = (share or 0.0) * scale
        mid = y + ROW / 2
        parts.append(f'<text x="{x0 - 8:.1f}" y="{mid + 4:.1f}" font-size="12" text-anchor="end" '
                     f'{MONO}>{escape(str(row["rung"]))}</text>')
        parts.append(f'<rect class="bar" data-rung={quoteattr(str(row["rung"]))} '
                     f'data-kind={quoteattr(kind)} data-share="{share or 0.0:.6g}" '
                     f'x="{x0:.1f}" y="{mid - BAR_HEIGHT / 2:.1f}" width="{width:.3f}" '
                     f'height="{BAR_HEIGHT}" fill="{COLOURS.get(kind, OTHER)}"/>')
        value = f"{share * 100:.0f} %" if share is not None else "—"
        if row.get("status", "ok") != "ok":
            value += f" ({row['status']})"
        parts.append(f'<text x="{x0 + width + 5:.1f}" y="{mid + 4:.1f}" font-size="12" {FONT}>'
                     f'{escape(value)}</text>')
        y += ROW
    ref_x = x0 + scale
    parts.append(f'<line class="reference" x1="{ref_x:.1f}" y1="{bars_top - 2}" x2="{ref_x:.1f}" '
                 f'y2="{y + 2}" stroke="#c0392b" stroke-width="1.5" stroke-dasharray="5,3"/>')
    parts.append(f'<text x="{ref_x:.1f}" y="{y + 15}" font-size="11" text-anchor="middle" '
                 f'fill="#c0392b" {FONT}>100 %</text>')
    parts.append(f'<line x1="{x0}" y1="{bars_top - 2}" x2="{x0}" y2="{y + 2}" stroke="#333"/>')
    y += 34
    caption = (f"Measured on {gpu}. Ceiling: {ceiling['name']} = {ceiling['value']:.1f} "
               f"{ceiling['unit']} ({ceiling['what']}).")
    for line in textwrap.wrap(caption, 140):
        parts.append(f'<text class="caption" x="10" y="{y}" font-size="12" fill="#444" {FONT}>'
                     f'{escape(line)}</text>')
        y += 16
    height = y
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
            f'width="{WIDTH}" height="{height}" role="img" '
            f'aria-label={quoteattr(str(table["title"]))}>')
    return "\n".join([head, f'<rect width="{WIDTH}" height="{height}" fill="white"/>', *parts,
                      "</svg>"]) + "\n"


def svgs(doc: dict) -> list[str]:
    """Every table of a demo's JSON as SVG, in order."""
    return [svg(table, doc["gpu"]) for table in doc["tables"]]


def write(results: Path, out: Path) -> list[Path]:
    """Writes OUT/<stem>-1.svg ... for the tables of RESULTS; returns the files."""
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for index, text in enumerate(svgs(load(results)), start=1):
        path = out / f"{results.stem}-{index}.svg"
        path.write_text(text, encoding="utf-8")
        files.append(path)
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path, help="a demo's --json output")
    parser.add_argument("--out", required=True, type=Path, help="where the SVG files go")
    args = parser.parse_args()
    for results in args.results:
        try:
            files = write(results, args.out)
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"chart.py: error: {results}: {type(error).__name__}: {error}", file=sys.stderr)
            return 1
        print(f"chart.py: {results.name}: {len(files)} charts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
