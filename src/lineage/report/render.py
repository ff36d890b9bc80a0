"""report.html and report.md from a :class:`Report` (jinja2 templates shipped as package data).

Every value a template prints is event text until proven otherwise: the HTML environment
autoescapes everything (control characters made visible first), the Markdown one escapes
Markdown; only pictures made by :mod:`lineage.report.svg`, which escapes its own inputs, are
passed through as :class:`~markupsafe.Markup`."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Callable

from markupsafe import Markup

from lineage.render.columns import few
from lineage.render.escape import markdown as markdown_escape
from lineage.render.escape import visible
from lineage.report.hygiene import shares_text
from lineage.errors import UsageError
from lineage.report.model import Digest, Part, PartEntry, Person, Report
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


LEADS: dict[str, tuple[Callable[[PartEntry], bool], str]] = {
    "exposes": (lambda e: bool(e.sensitive), "to sensitive data"),
    "restricts": (lambda e: bool(e.may_fail), "with a node or job that may fail"),
}
"""What of a part report.md lists in full (the rest it counts by kind): every break, the grants
to sensitive data, the revokes that may make a job fail, and the first notices."""
NOTICES_SHOWN = 5


def lead(part: Part, top: int) -> list[PartEntry]:
    """The entries of ``part`` report.md shows in full, at most ``top`` (notices: a few)."""
    keep, _ = LEADS.get(part.effect, (lambda e: True, ""))
    return [e for e in part.entries if keep(e)][:NOTICES_SHOWN if part.effect == "notifies" else top]


def _helpers(report: Report) -> dict:
    names = _names(report)
    by_id = {c.change_id: c for c in report.changes}

    def name(vertex: str | None) -> str:
        return names.get(vertex or "", (vertex or "").split(":", 2)[-1])

    def change(change_id: str) -> str:
        c = by_id.get(change_id)
        return f"{c.kind} {c.entity_name} at {(c.time or '?')[:16]}" if c else change_id

    def by_kind(entries) -> str:
        """``12 node_update, 3 column_added``: the changes a part does not show, counted by kind."""
        counts = Counter(by_id[e.change_id].kind for e in entries if e.change_id in by_id)
        return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    def graph_labels() -> dict[str, int]:
        return dict(sorted(Counter(n.label for n in report.impact_graph.nodes).items()))

    return {"name": name, "names": lambda ids: [name(i) for i in ids], "few": few, "by_kind": by_kind,
            "lead": lambda part: lead(part, report.top), "lead_says": lambda part: LEADS.get(part.effect, (None, ""))[1],
            "graph_labels": graph_labels, "change": change, "row": by_id.__getitem__, "empty": empty_text,
            "spark": lambda *a: Markup(sparkline(*a)), "shares": shares_text,
            "bars": lambda *a: Markup(day_bars(*a))}


def markdown_action(digest: Digest) -> Markup:
    """A digest's action for Markdown: its own words as they are, its event text escaped."""
    return Markup("".join(part if n % 2 == 0 else markdown_escape(part) for n, part in enumerate(digest.action_parts)))


def html(report: Report) -> str:
    return _env("html").get_template("report.html.j2").render(r=report, picture=Markup(impact_picture(report.impact_graph)),
                                                        action=lambda d: d.action, **_helpers(report))


def markdown(report: Report) -> str:
    return _env("md").get_template("report.md.j2").render(r=report, action=markdown_action, **_helpers(report))


PERSON_LINES = 10
"""Lines of each list a person's digest shows (the rest are counted; report.json has them all)."""


def person_markdown(report: Report, person: Person) -> str:
    """One person's digest in Markdown, ready to paste into a message (``lineage report --person``)."""
    return _env("md").get_template("person.md.j2").render(r=report, p=person, action=markdown_action,
                                                          shown=PERSON_LINES, **_helpers(report))


def _bare(person: Person) -> str:
    """A person's name without the id the report adds when two are called alike."""
    return person.name.removesuffix(f" ({person.id})")


def find_person(report: Report, wanted: str) -> Person:
    """The person of ``report`` with id ``wanted``, else the one so named (case-insensitive)."""
    people = [p for p in report.people if p.digest is not None]
    exact = [p for p in people if p.id == wanted]
    named = exact or [p for p in people if wanted.casefold() in (p.name.casefold(), _bare(p).casefold())]
    if len(named) == 1:
        return named[0]
    if named:
        raise UsageError(f"{len(named)} people of {report.week} are called {wanted!r}: give one id of "
                         + ", ".join(p.id for p in named))
    near = [f"{p.id} ({p.name})" for p in people if wanted.casefold() in f"{p.id} {p.name}".casefold()][:5]
    raise UsageError(f"nobody called {wanted!r} has anything in {report.week}'s report"
                     + (f"; did you mean {', '.join(near)}?" if near else f" ({len(people)} people have)"))
