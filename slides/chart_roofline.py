"""A table's rungs on its roofline (slides/chart.py): log-log, x the operations per DRAM byte, y
the achieved rate, under the measured memory roof and, for FP32 or BF16 arithmetic, the compute
roof."""

from __future__ import annotations

import math
from xml.sax.saxutils import escape, quoteattr

from chart_base import (  # noqa: E402
    spread, COLOURS, OTHER, WIDTH, CHAR, FONT, MONO, PLOT_HEIGHT, heading, captioned,
    document,
)


ROOF = "#c0392b"


def has_roofline(table: dict) -> bool:
    """True when TABLE has its roofs and a counted row that ran."""
    roofs = table.get("roofline") or {}
    return bool(roofs.get("memory")) and any(point(row) for row in table.get("rows", []))


def point(row: dict) -> tuple[float, float] | None:
    """A row's (intensity in ops/B, achieved rate in G ops/s), or None when it is not on the chart."""
    work = row.get("work") or {}
    ops, nbytes, ms = work.get("ops", 0), work.get("bytes", 0), row.get("median_ms", 0)
    if row.get("status") not in ("ok", "WRONG") or not (ops > 0 and nbytes > 0 and ms > 0):
        return None
    return ops / nbytes, ops / (ms * 1e6)


def decades(low: float, high: float) -> list[float]:
    """The powers of ten from below LOW to above HIGH."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    return [10.0 ** k for k in range(first, last + 1)]


def tick(value: float) -> str:
    if value >= 1000:
        return f"{value / 1000:g}k"
    return f"{value:g}"


def attainable(roofs: dict, intensity: float) -> float:
    bound = roofs["memory"]["value"] * intensity
    compute = roofs.get("compute")
    return min(bound, compute["value"]) if compute else bound


def roofline_svg(table: dict, gpu: str) -> str:
    """TABLE's rungs on its roofline: log-log, x ops per DRAM byte, y G ops per second."""
    roofs = table["roofline"]
    unit = str(roofs.get("ops_unit", "FLOP"))
    memory, compute = roofs["memory"], roofs.get("compute")
    rows = [(row, p) for row in table.get("rows", []) if (p := point(row))]
    xs = [p[0] for _, p in rows]
    ridge = compute["value"] / memory["value"] if compute else None
    # Both roofs in view: from below the ridge (or the leftmost rung) to beyond it.
    x_ticks = decades(min([*xs, *([ridge / 8] if ridge else [])]) / 2,
                      max([*xs, *([ridge * 4] if ridge else [])]) * 2)
    top = compute["value"] * 2 if compute else attainable(roofs, x_ticks[-1]) * 1.5
    y_ticks = decades(min(p[1] for _, p in rows) / 2, top)
    x0, x1 = 78.0, WIDTH - 200.0
    parts, y = heading(table)
    y_top = y + 28
    y_bottom = y_top + PLOT_HEIGHT + 60
    lx = (math.log10(x_ticks[0]), math.log10(x_ticks[-1]))
    ly = (math.log10(y_ticks[0]), math.log10(y_ticks[-1]))

    def px(x: float) -> float:
        return x0 + (math.log10(x) - lx[0]) / (lx[1] - lx[0]) * (x1 - x0)

    def py(v: float) -> float:
        return y_bottom - (math.log10(v) - ly[0]) / (ly[1] - ly[0]) * (y_bottom - y_top)

    legend_x = 10.0
    for kind in dict.fromkeys(str(row.get("kind", "")) for row, _ in rows):
        parts.append(f'<circle cx="{legend_x + 6:.1f}" cy="{y_top - 18}" r="5" '
                     f'fill="{COLOURS.get(kind, OTHER)}"/>')
        parts.append(f'<text x="{legend_x + 16:.1f}" y="{y_top - 14}" font-size="12" {FONT}>'
                     f'{escape(kind)}</text>')
        legend_x += 16 + len(kind) * CHAR + 18
    for x in x_ticks:
        parts.append(f'<line x1="{px(x):.1f}" y1="{y_top}" x2="{px(x):.1f}" y2="{y_bottom}" '
                     f'stroke="#eee"/>')
        parts.append(f'<text x="{px(x):.1f}" y="{y_bottom + 16}" font-size="11" '
                     f'text-anchor="middle" {FONT}>{tick(x)}</text>')
    for v in y_ticks:
        parts.append(f'<line x1="{x0}" y1="{py(v):.1f}" x2="{x1}" y2="{py(v):.1f}" '
                     f'stroke="#eee"/>')
        parts.append(f'<text x="{x0 - 6}" y="{py(v) + 4:.1f}" font-size="11" text-anchor="end" '
                     f'{FONT}>{tick(v)}</text>')
    parts.append(f'<rect x="{x0}" y="{y_top}" width="{x1 - x0:.1f}" '
                 f'height="{y_bottom - y_top:.1f}" fill="none" stroke="#333"/>')
    parts.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{y_bottom + 34}" font-size="12" '
                 f'text-anchor="middle" fill="#555" {FONT}>{escape(unit)} per byte of DRAM '
                 f'traffic (log scale)</text>')
    parts.append(f'<text x="16" y="{(y_top + y_bottom) / 2:.1f}" font-size="12" fill="#555" '
                 f'text-anchor="middle" transform="rotate(-90 16 {(y_top + y_bottom) / 2:.1f})" '
                 f'{FONT}>G{escape(unit)}/s (log scale)</text>')

    # The roofs: the lower of bandwidth x intensity and the compute peak, clipped to the plot.
    steps = 120
    roof_points = []
    for k in range(steps + 1):
        x = 10 ** (lx[0] + (lx[1] - lx[0]) * k / steps)
        v = attainable(roofs, x)
        if y_ticks[0] <= v <= y_ticks[-1]:
            roof_points.append(f"{px(x):.1f},{py(v):.1f}")
    parts.append(f'<polyline class="roof" fill="none" stroke="{ROOF}" stroke-width="2.4" '
                 f'points="{" ".join(roof_points)}"/>')
    # The memory roof's label on its slope, where the slope is inside the plot.
    memory_text = f"memory roof: {memory['name']}, {memory['value']:.0f} GB/s"
    at = next((x for x in x_ticks if y_ticks[0] < memory["value"] * x < y_ticks[-1]
               and (not ridge or x * 4 <= ridge)), None)
    if at is not None:  # along the slope, just above it
        angle = math.degrees(math.atan2(py(memory["value"] * at * 10) - py(memory["value"] * at),
                                        px(at * 10) - px(at)))
        tx, ty = px(at) + 10, py(memory["value"] * at) - 6
        parts.append(f'<text x="{tx:.1f}" y="{ty:.1f}" font-size="12" fill="{ROOF}" '
                     f'transform="rotate({angle:.1f} {tx:.1f} {ty:.1f})" {FONT}>'
                     f'{escape(memory_text)}</text>')
    if compute:
        parts.append(f'<text x="{x1 - 6:.1f}" y="{py(compute["value"]) - 8:.1f}" font-size="12" '
                     f'text-anchor="end" fill="{ROOF}" {FONT}>compute roof: '
                     f'{escape(str(compute["name"]))}, {compute["value"]:.0f} GFLOP/s</text>')
        parts.append(f'<line class="ridge" x1="{px(ridge):.1f}" y1="{py(compute["value"]):.1f}" '
                     f'x2="{px(ridge):.1f}" y2="{y_bottom}" stroke="{ROOF}" stroke-width="1" '
                     f'stroke-dasharray="4,3"/>')
        parts.append(f'<text x="{px(ridge) + 4:.1f}" y="{y_bottom - 6}" font-size="11" '
                     f'fill="{ROOF}" {FONT}>ridge {ridge:.1f} FLOP/B</text>')

    # The rungs, each labelled right of the plot at its height, with a thin line to its point.
    labels: list[tuple[float, str, str]] = []
    for row, (x, v) in rows:
        kind = str(row.get("kind", ""))
        share = v / attainable(roofs, x)
        parts.append(f'<circle class="point" data-rung={quoteattr(str(row["rung"]))} '
                     f'data-intensity="{x:.6g}" data-rate="{v:.6g}" data-of-roof="{share:.6g}" '
                     f'cx="{px(x):.1f}" cy="{py(v):.1f}" r="5" fill="{COLOURS.get(kind, OTHER)}" '
                     f'stroke="white" stroke-width="1"/>')
        labels.append((py(v), f"{row['rung']} {share * 100:.0f} %", f"{px(x):.1f},{py(v):.1f}"))
    for label_y, text, origin in spread(labels, gap=14):
        from_x, from_y = origin.split(",")
        parts.append(f'<line x1="{from_x}" y1="{from_y}" x2="{x1 + 6}" y2="{label_y:.1f}" '
                     f'stroke="#bbb" stroke-width="0.8" stroke-dasharray="2,2"/>')
        parts.append(f'<text x="{x1 + 10}" y="{label_y + 4:.1f}" font-size="12" {MONO}>'
                     f'{escape(text)}</text>')
    y = round(max(y_bottom + 60, (spread(labels, 14)[-1][0] + 24) if labels else 0))
    caption = (f"Measured on {gpu}. Each point is a rung: its {unit} per byte that must cross "
               f"DRAM, as the lesson counts them, and its achieved G{unit}/s; the percentage is "
               f"its share of the roof above it. Memory roof: {memory['name']} "
               f"({memory['what']}).")
    caption += (f" Compute roof: {compute['name']} ({compute['what']}), measured in the same "
                f"run." if compute else
                f" {unit} is not FP32 arithmetic, so there is no compute roof: the memory roof "
                f"is this table's only limit.")
    return document(table, parts, captioned(parts, y, caption))
