"""A :class:`~lineage.render.picture.Picture` as Graphviz DOT, Mermaid or GraphML text.

Laid out upstream to downstream (DOT ``rankdir=LR``, Mermaid ``flowchart LR``). Vertex ids are
canonical ids full of ``:`` and ``.``, which neither DOT nor Mermaid accept bare, so each item
gets a short generated key (``n0``, ``n1``, ... in item order) and carries its id and name as
attributes or label, escaped for the format by :mod:`lineage.render.escape` (event text never
becomes DOT, Mermaid or XML syntax, and its control characters are shown, not sent). Pure
functions: picture in, text out; ``FORMATS`` maps a name to one.
"""

from __future__ import annotations

from collections.abc import Callable
from lineage.render.escape import dot, mermaid, xml
from lineage.render.picture import Item, Picture

SHAPES = {"Table": "box", "Node": "component", "Job": "component", "User": "ellipse", "Role": "ellipse",
          "Dag": "folder", "Flow": "folder", "Baseline": "octagon"}
"""DOT shape per label (others: ``box``)."""


def _keys(p: Picture) -> dict[str, str]:
    return {item.id: f"n{i}" for i, item in enumerate((*p.sources, *p.items))}


def _caption(item: Item) -> list[str]:
    """Name, label and what is collapsed into the item, one per line (each escaped by the format)."""
    lines = [item.name, item.label if item.id.startswith("jobs:") else f"{item.label} {item.id}"]
    return lines + [item.note] if item.note else lines


def to_dot(p: Picture) -> str:
    """Graphviz DOT (``dot -Tsvg``): sources bold, one node per item, edges upstream -> downstream."""
    keys = _keys(p)
    lines = ["digraph lineage {", "  rankdir=LR;", '  node [fontname="Helvetica", fontsize=10];']
    for item in p.sources:
        lines.append(f"  {keys[item.id]} [label={dot(*_caption(item))}, shape={SHAPES.get(item.label, 'box')}, "
                     f"style=bold, id={dot(item.id)}];")
    for item in p.items:
        lines.append(f"  {keys[item.id]} [label={dot(*_caption(item))}, shape={SHAPES.get(item.label, 'box')}, "
                     f"id={dot(item.id)}];")
    lines += [f"  {keys[a]} -> {keys[b]};" for a, b in p.edges]
    return "\n".join([*lines, "}"]) + "\n"


def to_mermaid(p: Picture) -> str:
    """Mermaid ``flowchart LR`` (GitHub, GitLab and most wikis render it): each item declared once."""
    keys = _keys(p)
    lines = ["flowchart LR"]
    for item in (*p.sources, *p.items):
        lines.append(f'  {keys[item.id]}["{mermaid(*_caption(item))}"]')
    lines += [f"  {keys[a]} --> {keys[b]}" for a, b in p.edges]
    if p.sources:
        lines.append("  classDef source stroke-width:3px")
        lines.append("  class " + ",".join(keys[s.id] for s in p.sources) + " source")
    return "\n".join(lines) + "\n"


GRAPHML_KEYS = (("label", "string"), ("name", "string"), ("distance", "int"), ("collapsed", "string"),
                ("source", "boolean"))


def to_graphml(p: Picture) -> str:
    """GraphML for Gephi / yEd: node ids are the canonical ids; attributes label, name, distance,
    collapsed (what was folded into the item) and source."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">']
    out += [f'  <key id="{k}" for="node" attr.name="{k}" attr.type="{t}"/>' for k, t in GRAPHML_KEYS]
    out.append('  <graph id="lineage" edgedefault="directed">')
    sources = {s.id for s in p.sources}
    for item in (*p.sources, *p.items):
        values = {"label": item.label, "name": item.name, "distance": str(item.distance), "collapsed": item.note,
                  "source": "true" if item.id in sources else "false"}
        data = "".join(f'<data key="{k}">{xml(values[k])}</data>' for k, _ in GRAPHML_KEYS)
        out.append(f'    <node id="{xml(item.id)}">{data}</node>')
    out += [f'    <edge source="{xml(a)}" target="{xml(b)}"/>' for a, b in p.edges]
    out += ["  </graph>", "</graphml>"]
    return "\n".join(out) + "\n"


FORMATS: dict[str, Callable[[Picture], str]] = {"dot": to_dot, "mermaid": to_mermaid, "graphml": to_graphml}
