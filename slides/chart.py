#!/usr/bin/env python3
"""Draws each ladder of a demo's JSON (`lessonNN_demo_solution --json`) as a horizontal bar chart
in SVG: one bar per rung, its length the rung's share of the table's ceiling, a dashed line at
100 %, the share printed at the bar's end, the bar coloured by the rung's kind. Python's standard
library only.

A table whose rows carry their work (`"work": {"ops", "bytes"}`) and whose JSON has its
`"roofline"` (the device copy and, for FP32 FLOP, the FP32 FMA peak, both measured in the demo's
run) also gets a roofline: log-log, x the rung's operations per DRAM byte, y its achieved rate,
the memory roof a diagonal and the compute roof a flat line, one point per rung coloured by kind.
A table with a `"timeline"` (lesson 06's `--timeline`) is drawn as one lane per stream instead of
bars: each copy and kernel a box from its start to its end.

A sweep (e.g. `lesson11_demo_solution --sweep size --json`) is drawn as a line chart instead: a
table is a sweep when a rung appears in three rows or more and a column of the rows' "extra" holds
integers that increase along each repeated rung's rows. That column is the x axis (log2 when its
values are powers of two), the y axis is each point's share of the ceiling (dashed at 100 %), one
line per repeated rung; a rung found in one row (e.g. thrust) is a grey dashed reference line.

    chart.py RESULTS.json --out DIR      ->  DIR/<NN_name>-1.svg, -2.svg, ... (one per table)
                                             DIR/<NN_name>-roofline-1.svg, ... (one per table
                                             with a roofline)

inject.py (the decks' <!-- chart: ... --> directive) and docs/results_page.py import it. The
roofline is drawn by chart_roofline.py, the timeline by chart_timeline.py, and what every chart
shares (colours, sizes, title, caption, the SVG document) is in chart_base.py.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import NamedTuple
from xml.sax.saxutils import escape, quoteattr

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chart_base import (  # noqa: E402
    spread, COLOURS, OTHER, LINES, GREY, RED, WIDTH, BAR_HEIGHT, ROW, CHAR, FONT, MONO,
    PLOT_HEIGHT, SUPERSCRIPT, load, share_of, heading, captioned, document,
)
from chart_roofline import has_roofline, point, roofline_svg  # noqa: E402,F401
from chart_timeline import timeline_svg  # noqa: E402


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

    parts, y = heading(table)
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
    return document(table, parts, captioned(parts, y, caption))


class Sweep(NamedTuple):
    """A table read as a sweep: the rows' "extra" column on the x axis, the rungs found in one row
    (reference lines) and the rungs found in several (one line each, their rows in order)."""
    column: str
    references: list[dict]
    lines: dict[str, list[dict]]


def integer(value) -> int | None:
    try:
        return int(str(value))
    except ValueError:
        return None


def sweep(table: dict) -> Sweep | None:
    """TABLE as a sweep (see the top of this file), or None for a ladder."""
    groups: dict[str, list[dict]] = {}
    for row in table.get("rows", []):
        groups.setdefault(str(row["rung"]), []).append(row)
    lines = {rung: rows for rung, rows in groups.items() if len(rows) > 1}
    if not any(len(rows) >= 3 for rows in lines.values()):
        return None
    for column in next(iter(lines.values()))[0].get("extra", {}):
        xs = [[integer(row.get("extra", {}).get(column)) for row in rows]
              for rows in lines.values()]
        if all(None not in x and all(a < b for a, b in zip(x, x[1:])) for x in xs):
            return Sweep(column, [rows[0] for rows in groups.values() if len(rows) == 1], lines)
    return None


def x_values(found: Sweep) -> list[int]:
    return sorted({integer(row["extra"][found.column]) for rows in found.lines.values()
                   for row in rows})


def other_columns(found: Sweep) -> tuple[list[str], dict[str, str]]:
    """The lines' other "extra" columns: those that vary, and those fixed (name -> value)."""
    rows = [row for rows in found.lines.values() for row in rows]
    varying: list[str] = []
    fixed: dict[str, str] = {}
    for name in rows[0].get("extra", {}):
        values = {str(row.get("extra", {}).get(name)) for row in rows}
        if name != found.column and len(values) > 1:
            varying.append(name)
        elif name != found.column:
            fixed[name] = values.pop()
    return varying, fixed


def percent(share: float) -> str:
    return f"{share * 100:.1f} %" if share < 0.1 else f"{share * 100:.0f} %"


def y_scale(shares: list[float]) -> tuple[float, float]:
    """(top, step) of a share axis from 0 that holds 100 % and SHARES, with at most 8 steps."""
    peak = max([1.0, *shares]) * 1.05
    step = next((s for s in (0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0) if peak / s <= 8), peak / 4)
    return math.ceil(peak / step) * step, step


def sweep_caption(table: dict, gpu: str, found: Sweep) -> str:
    ceiling = table["ceiling"]
    unit = table.get("metric_unit", ceiling["unit"])
    text = (f"Measured on {gpu}. Each point is a rung's {unit} as a share of the ceiling, "
            f"{ceiling['name']} = {ceiling['value']:.1f} {ceiling['unit']} ({ceiling['what']}), "
            f"the red line at 100 %.")
    for row in found.references:
        if isinstance(row.get("metric"), (int, float)):
            text += f" Grey: {row['rung']}, not swept ({row['metric']:.1f} {unit})."
    _, fixed = other_columns(found)
    if fixed:
        text += " " + ", ".join(f"{k} = {v}" for k, v in fixed.items()) + " at every point."
    return " ".join([text, *map(str, table.get("notes", []))])


def line_svg(table: dict, gpu: str, found: Sweep) -> str:
    """A sweep table as an SVG line chart: x the swept column, y the share of the ceiling."""
    ceiling_name = str(table["ceiling"]["name"])
    xs = x_values(found)
    log = all(x > 0 and x & (x - 1) == 0 for x in xs)   # powers of two: a log2 axis
    where = math.log2 if log else float
    x0, x1 = 62.0, WIDTH - 175.0                        # the plot; the end labels right of it
    span = (where(xs[-1]) - where(xs[0])) or 1.0
    top, step = y_scale([s for row in table.get("rows", []) if (s := share_of(row))])
    colours = {rung: LINES[i % len(LINES)] for i, rung in enumerate(found.lines)}
    dashed = ' stroke-dasharray="5,3"'

    def px(x: int) -> float:
        return x0 + (where(x) - where(xs[0])) / span * (x1 - x0)

    def py(share: float) -> float:
        return y_bottom - share / top * PLOT_HEIGHT

    parts, y = heading(table)
    y += 22
    legend = [(rung, colour, "") for rung, colour in colours.items()]
    legend += [(str(row["rung"]), GREY, dashed) for row in found.references]
    legend_x = 10.0
    for name, colour, dash in [*legend, (ceiling_name, RED, dashed)]:
        parts.append(f'<line x1="{legend_x:.1f}" y1="{y - 4}" x2="{legend_x + 22:.1f}" '
                     f'y2="{y - 4}" stroke="{colour}" stroke-width="2"{dash}/>')
        parts.append(f'<text x="{legend_x + 27:.1f}" y="{y}" font-size="12" {FONT}>'
                     f'{escape(name)}</text>')
        legend_x += 27 + len(name) * CHAR + 18
    parts.append(f'<text x="{WIDTH - 10}" y="{y}" font-size="12" text-anchor="end" {FONT} '
                 f'fill="#555">share of {escape(ceiling_name)}</text>')
    y_top = y + 18
    y_bottom = y_top + PLOT_HEIGHT

    # The grid: a line every step of share, one tick per measured x.
    for k in range(round(top / step) + 1):
        parts.append(f'<line x1="{x0}" y1="{py(k * step):.1f}" x2="{x1}" y2="{py(k * step):.1f}" '
                     f'stroke="{"#333" if k == 0 else "#ddd"}"/>')
        parts.append(f'<text x="{x0 - 6}" y="{py(k * step) + 4:.1f}" font-size="11" '
                     f'text-anchor="end" {FONT}>{k * step * 100:.0f} %</text>')
    for x in xs:
        label = ("2" + str(x.bit_length() - 1).translate(SUPERSCRIPT)
                 if log and xs[-1] > 4096 else str(x))
        parts.append(f'<line x1="{px(x):.1f}" y1="{y_top}" x2="{px(x):.1f}" y2="{y_bottom + 4}" '
                     f'stroke="#eee"/>')
        parts.append(f'<text x="{px(x):.1f}" y="{y_bottom + 17}" font-size="11" '
                     f'text-anchor="middle" {FONT}>{label}</text>')
    parts.append(f'<line x1="{x0}" y1="{y_top}" x2="{x0}" y2="{y_bottom}" stroke="#333"/>')
    axis = f"{found.column} (log scale)" if log else found.column
    parts.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{y_bottom + 36}" font-size="12" '
                 f'text-anchor="middle" fill="#555" {FONT}>{escape(axis)}</text>')

    # The reference lines and the rungs' lines, each labelled at its right end with its share.
    ends: list[tuple[float, str, str]] = []
    references = [(str(row["rung"]), s, GREY) for row in found.references if (s := share_of(row))]
    for name, share, colour in [*references, (ceiling_name, 1.0, RED)]:
        parts.append(f'<line class="reference" data-rung={quoteattr(name)} '
                     f'data-share="{share:.6g}" x1="{x0}" y1="{py(share):.1f}" x2="{x1}" '
                     f'y2="{py(share):.1f}" stroke="{colour}" stroke-width="1.5"{dashed}/>')
        ends.append((py(share), f"{name} {percent(share)}", colour))
    for rung, rows in found.lines.items():
        points = [(px(integer(row["extra"][found.column])), py(s), s)
                  for row in rows if (s := share_of(row))]
        parts.append(f'<polyline class="curve" data-rung={quoteattr(rung)} fill="none" '
                     f'stroke="{colours[rung]}" stroke-width="2.2" stroke-linejoin="round" '
                     f'points="{" ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points)}"/>')
        for x, y, share in points:
            parts.append(f'<circle class="point" data-share="{share:.6g}" cx="{x:.1f}" '
                         f'cy="{y:.1f}" r="3.2" fill="{colours[rung]}"/>')
        if points:
            ends.append((points[-1][1], f"{rung} {percent(points[-1][2])}", colours[rung]))
    ends = spread(ends)
    for end_y, text, colour in ends:
        parts.append(f'<text x="{x1 + 8}" y="{end_y + 4:.1f}" font-size="12" fill="{colour}" '
                     f'{FONT}>{escape(text)}</text>')

    y = round(max(y_bottom + 62, ends[-1][0] + 24))
    return document(table, parts, captioned(parts, y, sweep_caption(table, gpu, found)))


def svgs(doc: dict) -> list[str]:
    """Every table of a demo's JSON as SVG, in order: a timeline as lanes, a sweep as lines, a
    ladder as bars."""
    return [timeline_svg(table, doc["gpu"]) if table.get("timeline") else
            line_svg(table, doc["gpu"], found) if (found := sweep(table)) else
            svg(table, doc["gpu"]) for table in doc["tables"]]


def rooflines(doc: dict) -> list[str]:
    """The roofline of every table of a demo's JSON that has one, in order; a sweep has none (its
    points are one rung at many sizes: its line chart says more)."""
    return [roofline_svg(table, doc["gpu"]) for table in doc["tables"]
            if has_roofline(table) and not sweep(table)]


def write(results: Path, out: Path) -> list[Path]:
    """Writes OUT/<stem>-1.svg ... for the tables of RESULTS, then OUT/<stem>-roofline-1.svg ...
    for those with a roofline; returns the files."""
    out.mkdir(parents=True, exist_ok=True)
    files = []
    doc = load(results)
    named = [(f"{results.stem}-{index}.svg", text)
             for index, text in enumerate(svgs(doc), start=1)]
    named += [(f"{results.stem}-roofline-{index}.svg", text)
              for index, text in enumerate(rooflines(doc), start=1)]
    for name, text in named:
        path = out / name
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
