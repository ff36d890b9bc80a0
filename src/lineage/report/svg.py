"""Hand-written inline SVG: sparklines, a per-day bar chart and the layered impact picture.

No Graphviz, no matplotlib, no script: plain ``<svg>`` text the HTML inlines, so the report
opens anywhere, prints, and reads without a network. The report passes this text through
unescaped, so every piece of event text in it goes through :func:`escape` here. Coordinates are rounded so the output is
byte-stable.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Sequence

from lineage.render.escape import html_text as escape
from lineage.report.model import ImpactGraph

LABEL_COLOUR: dict[str, str] = {
    "Table": "#3b6ea8", "Node": "#7a5ba6", "Dashboard": "#c0504d", "Chart": "#c0504d",
    "Baseline": "#d08b00", "Job": "#6b8e23", "Column": "#7f7f7f",
}
DEFAULT_COLOUR = "#555555"


def sparkline(values: Sequence[int], width: int = 96, height: int = 24) -> str:
    """A small trend line (oldest first) with the last point marked."""
    if not values:
        return ""
    top = max(max(values), 1)
    step = width / max(len(values) - 1, 1)
    points = [(round(i * step, 1), round(height - 2 - (v / top) * (height - 4), 1)) for i, v in enumerate(values)]
    path = " ".join(f"{x},{y}" for x, y in points)
    lx, ly = points[-1]
    return (f'<svg class="spark" role="img" aria-label="trend {escape(", ".join(map(str, values)))}" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
            f'<polyline fill="none" stroke="#3b6ea8" stroke-width="1.5" points="{path}"/>'
            f'<circle cx="{lx}" cy="{ly}" r="2.5" fill="#3b6ea8"/></svg>')


def day_bars(per_day: dict[str, int], days: Sequence[str], expected: bool = True, width: int = 210, height: int = 40) -> str:
    """Events per day as bars; a day without events is a tick, red when the source is expected daily (a gap)."""
    top = max([per_day.get(d, 0) for d in days] + [1])
    slot = width / max(len(days), 1)
    parts = []
    for i, day in enumerate(days):
        value = per_day.get(day, 0)
        x = round(i * slot + 2, 1)
        w = round(slot - 4, 1)
        if value:
            h = round(max(2.0, value / top * (height - 12)), 1)
            parts.append(f'<rect x="{x}" y="{round(height - 10 - h, 1)}" width="{w}" height="{h}" fill="#3b6ea8">'
                         f'<title>{escape(day)}: {int(value)}</title></rect>')
        else:
            colour = "#c0392b" if expected else "#bbbbbb"
            parts.append(f'<rect x="{x}" y="{height - 13}" width="{w}" height="3" fill="{colour}">'
                         f'<title>{escape(day)}: no events</title></rect>')
        parts.append(f'<text x="{round(x + w / 2, 1)}" y="{height - 1}" font-size="8" text-anchor="middle">{escape(day[8:])}</text>')
    return (f'<svg class="bars" role="img" aria-label="events per day" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">{"".join(parts)}</svg>')


def impact_picture(graph: ImpactGraph, column: int = 190, row: int = 34, box: tuple[int, int] = (170, 24)) -> str:
    """The impact subgraph in columns by distance (upstream left, downstream right)."""
    if not graph.nodes:
        return ""
    layers: dict[int, list] = defaultdict(list)
    for node in graph.nodes:
        layers[node.layer].append(node)
    place: dict[str, tuple[float, float]] = {}
    for layer, nodes in layers.items():
        for i, node in enumerate(sorted(nodes, key=lambda n: (n.label, n.name))):
            place[node.id] = (10 + layer * column, 10 + i * row)
    width = 20 + (max(layers) + 1) * column
    height = 20 + max(len(n) for n in layers.values()) * row
    bw, bh = box
    parts = ['<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" markerHeight="6" '
             'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#888"/></marker></defs>']
    for edge in graph.edges:
        if edge.src in place and edge.dst in place:
            (x1, y1), (x2, y2) = place[edge.src], place[edge.dst]
            parts.append(f'<line x1="{x1 + bw}" y1="{y1 + bh / 2}" x2="{x2}" y2="{y2 + bh / 2}" stroke="#888" '
                         f'stroke-width="1" marker-end="url(#arrow)"/>')
    for node in graph.nodes:
        x, y = place[node.id]
        colour = LABEL_COLOUR.get(node.label, DEFAULT_COLOUR)
        stroke = ' stroke="#000" stroke-width="2"' if node.layer == 0 else ""
        name = node.name if len(node.name) <= 24 else node.name[:23] + "…"
        parts.append(f'<g><title>{escape(node.id)}</title><rect x="{x}" y="{y}" width="{bw}" height="{bh}" rx="4" '
                     f'fill="{colour}"{stroke}/><text x="{x + 6}" y="{y + 16}" font-size="11" fill="#fff">'
                     f'{escape(node.label[:1])} · {escape(name)}</text></g>')
    return (f'<svg class="impact" role="img" aria-label="impact subgraph of the top changes" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" preserveAspectRatio="xMinYMin meet">{"".join(parts)}</svg>')
