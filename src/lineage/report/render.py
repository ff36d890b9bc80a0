"""report.html and report.md from a :class:`Report` (jinja2 templates shipped as package data).

Every value a template prints is event text until proven otherwise: the HTML environment
autoescapes everything (control characters made visible first), the Markdown one escapes
Markdown; only pictures made by :mod:`lineage.report.svg`, which escapes its own inputs, are
passed through as :class:`~markupsafe.Markup`."""

from __future__ import annotations

from functools import lru_cache

from markupsafe import Markup

from lineage.render.escape import markdown as markdown_escape
from lineage.render.escape import visible
from lineage.report.hygiene import shares_text
from lineage.report.model import Change, Report
from lineage.report.parts import empty_text
from lineage.report.svg import day_bars, impact_picture, sparkline


def _html_value(value):
    return visible(value) if type(value) is str else value  # Markup (our SVG) passes untouched


def _markdown_value(value):
    if isinstance(value, Markup) or not isinstance(value, str):
        return value
    return markdown_escape(value)


FORMATS = {  # template suffix -> how values are made safe: autoescape (HTML) or a finalize of our own
    "html": {"autoescape": True, "finalize": _html_value},
    "md": {"autoescape": False, "finalize": _markdown_value},
}


@lru_cache(maxsize=None)
def _env(kind: str):
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(loader=PackageLoader("lineage.report", "templates"), undefined=StrictUndefined,
                       trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, **FORMATS[kind])


def _names(report: Report) -> dict[str, str]:
    """Every id the report names, with its name (from the sections that carry one)."""
    names: dict[str, str] = {}
    for c in report.changes:
        names[c.entity_id] = c.entity_name
        names.update({a.id: a.name for a in c.top_assets})
        if c.actor and c.actor_name:
            names[c.actor] = c.actor_name
    names.update({p.id: p.name for p in report.people})
    names.update({n.id: n.name for n in report.impact_graph.nodes})
    for grants in (report.access.opened, report.access.revoked, report.access.expired, report.access.open_on_dropped):
        for g in grants:
            names[g.principal], names[g.target] = g.principal_name, g.target_name
    names.update({f.id: f.name for f in report.operations.failures})
    return names


def _helpers(report: Report) -> dict:
    names = _names(report)
    by_id = {c.change_id: c for c in report.changes}

    def name(vertex: str | None) -> str:
        return names.get(vertex or "", (vertex or "").split(":", 2)[-1])

    def change(change_id: str) -> str:
        c = by_id.get(change_id)
        return f"{c.kind} {c.entity_name} at {(c.time or '?')[:16]}" if c else change_id

    def tell(c: Change) -> list[str]:
        return [p.name for p in report.people if c.change_id in p.changes]

    return {"name": name, "change": change, "tell": tell, "row": by_id.__getitem__, "empty": empty_text,
            "spark": lambda *a: Markup(sparkline(*a)), "shares": shares_text,
            "bars": lambda *a: Markup(day_bars(*a))}


def html(report: Report) -> str:
    return _env("html").get_template("report.html.j2").render(r=report, picture=Markup(impact_picture(report.impact_graph)),
                                                        **_helpers(report))


def markdown(report: Report) -> str:
    return _env("md").get_template("report.md.j2").render(r=report, **_helpers(report))
