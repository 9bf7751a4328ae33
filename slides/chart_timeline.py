"""Lesson 06's traced pipeline (slides/chart.py): one lane per stream, each copy and kernel a box
from its start to its end."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from chart_base import (  # noqa: E402
    OTHER, WIDTH, CHAR, FONT, heading, captioned, document,
)


SPAN_COLOURS = {"H2D": "#2e86c1", "D2H": "#e67e22", "kernel": "#16a085", "memset": "#7f8c8d",
                "D2D": "#8e44ad"}


def timeline_svg(table: dict, gpu: str) -> str:
    """A traced pipeline: one lane per stream, each copy and kernel a box from start to end."""
    trace = table["timeline"]
    spans = trace["spans"]
    lanes = int(trace["lanes"])
    wall = float(trace["wall_ms"]) or 1.0
    x0, x1 = 90.0, WIDTH - 20.0
    lane_h = 30
    parts, y = heading(table)
    y += 24
    legend_x = 10.0
    for kind in dict.fromkeys(span["kind"] for span in spans):
        parts.append(f'<rect x="{legend_x:.1f}" y="{y - 10}" width="12" height="12" '
                     f'fill="{SPAN_COLOURS.get(kind, OTHER)}"/>')
        text = {"H2D": "host to device", "D2H": "device to host"}.get(kind, kind)
        parts.append(f'<text x="{legend_x + 16:.1f}" y="{y}" font-size="12" {FONT}>'
                     f'{escape(text)}</text>')
        legend_x += 16 + len(text) * CHAR + 18
    top = y + 14

    def px(ms: float) -> float:
        return x0 + ms / wall * (x1 - x0)

    for lane in range(lanes):
        mid = top + lane * lane_h + lane_h / 2
        parts.append(f'<text x="{x0 - 8}" y="{mid + 4:.1f}" font-size="12" text-anchor="end" '
                     f'{FONT}>stream {lane}</text>')
        parts.append(f'<line x1="{x0}" y1="{mid:.1f}" x2="{x1}" y2="{mid:.1f}" stroke="#eee"/>')
    for span in spans:
        lane = int(span["lane"])
        start, end = float(span["start_ms"]), float(span["end_ms"])
        title = f"{span['kind']} {span.get('name') or ''} {start:.3f}-{end:.3f} ms".strip()
        parts.append(f'<rect class="span" data-kind={quoteattr(str(span["kind"]))} '
                     f'data-lane="{lane}" data-start="{start:.6g}" data-end="{end:.6g}" '
                     f'x="{px(start):.2f}" y="{top + lane * lane_h + 5}" '
                     f'width="{max(px(end) - px(start), 0.8):.2f}" height="{lane_h - 10}" '
                     f'fill="{SPAN_COLOURS.get(str(span["kind"]), OTHER)}" stroke="white" '
                     f'stroke-width="0.5"><title>{escape(title)}</title></rect>')
    bottom = top + lanes * lane_h
    parts.append(f'<line x1="{x0}" y1="{bottom}" x2="{x1}" y2="{bottom}" stroke="#333"/>')
    step = next((s for s in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500)
                 if wall / s <= 10), wall / 5)
    k = 0
    while k * step <= wall + 1e-9:
        parts.append(f'<line x1="{px(k * step):.1f}" y1="{bottom}" x2="{px(k * step):.1f}" '
                     f'y2="{bottom + 4}" stroke="#333"/>')
        parts.append(f'<text x="{px(k * step):.1f}" y="{bottom + 17}" font-size="11" '
                     f'text-anchor="middle" {FONT}>{k * step:g}</text>')
        k += 1
    parts.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{bottom + 34}" font-size="12" '
                 f'text-anchor="middle" fill="#555" {FONT}>ms from the first start</text>')
    y = bottom + 58
    busy = float(trace.get("busy_ms", 0))
    caption = (f"Measured on {gpu}: every copy and kernel as the GPU timed it (CUPTI). One "
               f"after another they would take {busy:.2f} ms; they took {wall:.2f} ms, "
               f"{max(busy - wall, 0):.2f} ms overlapped.")
    return document(table, parts, captioned(parts, y, " ".join([caption, *map(str, table.get("notes", []))])))
