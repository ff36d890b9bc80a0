"""``lineage search``, ``show``, ``history`` and ``diff``: finding and inspecting entities, and what
changed between two instants; and :func:`resolving`, which lets every command taking an id take
a unique name instead (DESIGN.md's CLI contract).

These read the parquet with pyarrow (no Spark), so they answer at once. ``lineage.cli`` registers
:data:`COMMANDS` on ``main``; the logic is in ``analysis.names`` and ``analysis.inspection``.
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Sequence

import click
from rich.console import Console

from lineage.render.escape import CELL_LIMIT, terminal
from lineage.render.columns import FOLDED_NOTE, Column, fitted
from lineage.render.terminal import console

SHOW_CHANGES = 10
"""Latest changes ``show`` prints (``--json`` and ``history`` have them all)."""

WAREHOUSE = click.option("--warehouse", required=True, type=click.Path(path_type=Path), help="Warehouse directory.")
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")


def resolving(param: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a command so its ``param`` (one id, or a tuple of them) may be given as unique
    names: they become canonical ids before the command runs (ambiguous or unknown: exit 2,
    candidates listed). Put it directly above the function, under the click decorators."""

    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            from lineage.analysis.names import resolve_in

            given = kwargs[param]
            ids = resolve_in(kwargs["warehouse"], [given] if isinstance(given, str) else given)
            kwargs[param] = ids[0] if isinstance(given, str) else ids
            return command(*args, **kwargs)

        return run

    return wrap


def _time(value: datetime | None) -> str:
    """One word (a table wraps between words, never inside a time); UTC."""
    return value.strftime("%Y-%m-%dT%H:%M:%S") if value is not None else "-"


def _interval(start: datetime | None, end: datetime | None) -> str:
    """When a relationship shown as of an instant holds: from its start, until its end if it has one."""
    return (_time(start) if start else "always") + (f" until {_time(end)}" if end else "")


def _print(out: Console, columns: Sequence[Column], rows: list[list[str]], title: str) -> bool:
    table, folded = fitted(out.width, columns, rows, title)
    out.print(table)
    return folded


def _capped(rows: list[list[str]], limit: int, at: int) -> list[list[str]]:
    """At most ``limit`` rows, and one saying how many more there are (never a silent cut),
    written in column ``at`` (a column that wraps, not an id column)."""
    if len(rows) <= limit:
        return rows
    more = [""] * len(rows[0])
    more[at] = f"… {len(rows) - limit} more (--json lists all)"
    return rows[:limit] + [more]


def print_json(make: Callable[[], Any]) -> None:
    """One JSON document on stdout, ``make()`` made and dumped with the cyclic collector paused: a
    hub table's answer is tens of thousands of dicts (0.3-0.6 s of collections otherwise)."""
    from lineage.graph.api import collector_paused

    with collector_paused():
        click.echo(json.dumps(make()))


@click.command()
@click.argument("text")
@WAREHOUSE
@click.option("--limit", type=click.IntRange(1, None), default=20, show_default=True, help="Results listed.")
@AS_JSON
def search(text: str, warehouse: Path, limit: int, as_json: bool) -> None:
    """Vertices whose id or name contains TEXT: exact, then prefix, then substring matches."""
    from lineage.analysis.names import search as run_search
    from lineage.analysis.names import vertex_rows

    hits = run_search(text, vertex_rows(warehouse))
    if as_json:
        click.echo(json.dumps({"query": text, "total": len(hits), "results": [h.to_json() for h in hits[:limit]]}))
        return
    out = console()
    kind = {3: "exact", 2: "prefix", 1: "contains"}
    rows = [[h.label, h.name, h.id, kind[h.score]] for h in hits[:limit]]
    folded = _print(out, [Column("label"), Column("name"), Column("id", is_id=True), Column("match")], rows,
                       f"{len(hits)} vert{'ex' if len(hits) == 1 else 'ices'} matching {text!r}"
                       + (f" (first {limit})" if len(hits) > limit else ""))
    if folded:
        out.print(FOLDED_NOTE, markup=False)


@click.command()
@click.argument("vertex_id", metavar="ID")
@WAREHOUSE
@click.option("--as-of", "as_of", metavar="ISO",
              help="Relationships valid then (default: now; a deleted entity: just before its deletion).")
@click.option("--limit", type=click.IntRange(1, None), default=10, show_default=True,
              help="Relationships listed per type and direction.")
@click.option("--relationship", "relationships", multiple=True, metavar="REL",
              help="Only these relationships (READS, OWNS, ...; repeatable), in the text and the JSON.")
@AS_JSON
@resolving("vertex_id")
def show(vertex_id: str, warehouse: Path, as_of: str | None, limit: int, relationships: tuple[str, ...],
         as_json: bool) -> None:
    """What the graph knows of one entity: properties, relationships in and out, latest changes."""
    from lineage.analysis.inspection import IN, OUT
    from lineage.analysis.inspection import show as run_show

    entity = run_show(warehouse, vertex_id, as_of=as_of)
    wanted = {r.upper() for r in relationships}
    if as_json:
        def doc() -> dict:
            found = entity.to_json()
            if wanted:
                found["relationships"] = {side: {rel: links for rel, links in by_rel.items() if rel in wanted}
                                          for side, by_rel in found["relationships"].items()}
            return found
        print_json(doc)
        return
    out = console()
    v = entity.vertex
    state = f"deleted {_time(v.get('deleted_at'))}" if v.get("deleted_at") else "not deleted"
    moment = {"given": _time(entity.as_of), "now": "now",
              "before deletion": f"{_time(entity.as_of)} (just before its deletion)"}[entity.why_as_of]
    name, vid = terminal(str(v.get("name")), CELL_LIMIT), terminal(v["id"], CELL_LIMIT)
    out.print(f"{v['label']} {name}\n{vid}\nfirst seen {_time(v.get('first_seen'))}, last seen "
              f"{_time(v.get('last_seen'))} (UTC)\n{v.get('event_count')} event(s), {state}", markup=False,
              highlight=False)
    folded = False
    properties = sorted((v.get("properties") or {}).items())
    if properties:
        _print(out, [Column("property"), Column("value")], [[k, str(val)] for k, val in properties], "properties")
    for direction, arrow, other in ((OUT, "{}->", "to"), (IN, "<-{}", "from")):
        rows: list[list[str]] = []
        for rel, links in entity.grouped(direction).items():
            if wanted and rel not in wanted:
                continue
            rows += _capped([[arrow.format(rel), k.other, k.other_name, _interval(k.valid_from, k.valid_to)]
                             for k in links], limit, 2)
        title = f"relationships {direction} as of {moment}"
        if rows:
            folded |= _print(out, [Column("relationship"), Column(other, is_id=True), Column("name"),
                                      Column("since (UTC)", whole_words=True)], rows, title)
        else:
            out.print(f"{title}: none", markup=False, highlight=False)
    changes = entity.changes
    if changes:
        rows = [[_time(datetime.fromisoformat(c["time"]) if c["time"] else None), c["kind"], c["actor_name"] or "-",
                 c["source"] or "-"] for c in changes[:SHOW_CHANGES]]
        _print(out, [Column("time (UTC)", whole_words=True), Column("change"), Column("by"), Column("source")], rows,
               f"latest changes ({min(len(changes), SHOW_CHANGES)} of {len(changes)}; all: lineage history)")
    else:
        out.print("changes: none recorded", markup=False)
    if not entity.exists:
        out.print(f"not in the graph as of {moment}", markup=False, highlight=False)
    if folded:
        out.print(FOLDED_NOTE, markup=False)


HISTORY_ROWS = 25
"""Timeline rows ``history`` prints by default (the latest; ``--limit`` changes it, ``--json`` has all)."""
SUMMARY_ROWS = 12
"""Kinds of event the summary of a long history lists (the others counted in one row)."""


@click.command()
@click.argument("vertex_id", metavar="ID")
@WAREHOUSE
@click.option("--since", metavar="ISO", help="Only what happened at or after this instant.")
@click.option("--until", metavar="ISO", help="Only what happened before this instant.")
@click.option("--kind", "kinds", multiple=True, metavar="KIND",
              help="Only these events (appeared, opened, closed, change, deleted) or change kinds (drop, "
                   "field_removal, ...); repeatable.")
@click.option("--relationship", "relationships", multiple=True, metavar="REL",
              help="Only events of these relationships (READS, WRITES, CAN_ACCESS, ...); repeatable.")
@click.option("--limit", type=click.IntRange(1, None), default=HISTORY_ROWS, show_default=True,
              help="Timeline rows printed, the latest (the summary counts every event).")
@click.option("--every", is_flag=True, help="One row per event: nothing grouped.")
@AS_JSON
@resolving("vertex_id")
def history(vertex_id: str, warehouse: Path, since: str | None, until: str | None, kinds: tuple[str, ...],
            relationships: tuple[str, ...], limit: int, every: bool, as_json: bool) -> None:
    """One entity's timeline: every interval opened or closed (its own and its relationships')
    and every change, oldest first; what happened counted first, and what repeats on a day
    (a hub's job reads) grouped into one row."""
    from lineage.analysis.inspection import History
    from lineage.analysis.inspection import history as run_history
    from lineage.graph.api import to_time
    from lineage.render.timeline import Row, grouped, select, summary, what

    found = run_history(warehouse, vertex_id)
    events = select(found.events, since=to_time(since), until=to_time(until), kinds={k.lower() for k in kinds},
                    relationships={r.upper() for r in relationships})
    if as_json:
        click.echo(json.dumps(History(found.vertex, tuple(events)).to_json()))
        return
    out = console()
    v = found.vertex
    narrowed = len(events) != len(found.events)
    rows = [Row((e,)) for e in events] if every else grouped(events)
    shown = rows[-limit:]
    title = (f"history of {v['label']} {v.get('name')}: {len(events):,} event(s)"
             + (f" of {len(found.events):,}" if narrowed else ""))
    folded = False
    if len(events) > limit:  # a long history: what happened, counted, first
        counts = summary(events)
        kept = [[c.what, c.other_label or "-", f"{c.count:,}", _time(c.first)[:16], _time(c.last)[:16]]
                for c in counts[:SUMMARY_ROWS]]
        rest = counts[SUMMARY_ROWS:]
        if rest:
            kept.append([f"… {len(rest)} other kind(s)", "-", f"{sum(c.count for c in rest):,}", "-", "-"])
        folded = _print(out, [Column("what"), Column("with"), Column("events", justify="right"),
                              Column("first (UTC)", whole_words=True), Column("last (UTC)", whole_words=True)], kept,
                        title)
    else:
        out.print(title, markup=False, highlight=False)
    table = []
    for row in shown:
        e = row.first
        said = what(e) + (f" by {e.actor_name}" if e.event == "change" and e.actor_name else "")
        said += f" ({e.detail})" if e.event != "change" and e.detail else ""
        if row.count > 1:
            table.append([_time(e.time)[:10], f"{said}: {row.count} {e.other_label or ''}".rstrip(),
                          f"{e.other} and {row.count - 1} more"])
        else:
            table.append([_time(e.time), said, e.other or ""])
    earlier = len(rows) - len(shown)
    if table:
        folded |= _print(out, [Column("time (UTC)", whole_words=True), Column("what"), Column("other end", is_id=True)],
                         table, f"timeline, oldest first ({len(shown)} row(s)"
                                + (", each a day's alike events grouped" if not every and len(rows) < len(events) else "")
                                + (f"; {earlier} earlier row(s) not shown" if earlier else "") + ")")
    if earlier:
        out.print("(--since/--until, --kind or --relationship narrow it; --limit N shows more; --every one row per "
                  "event; --json lists every event)", markup=False, highlight=False)
    if folded:
        out.print(FOLDED_NOTE, markup=False)


@click.command()
@click.option("--from", "since", required=True, metavar="ISO", help="The earlier instant.")
@click.option("--to", "until", required=True, metavar="ISO", help="The later instant.")
@WAREHOUSE
@click.option("--relationship", "relationships", multiple=True, metavar="REL",
              help="Only these relationships' edges (repeatable); vertices are then left out.")
@click.option("--limit", type=click.IntRange(1, None), default=10, show_default=True,
              help="Edges or vertices listed per relationship or label and kind (the summary counts all).")
@AS_JSON
def diff(since: str, until: str, warehouse: Path, relationships: tuple[str, ...], limit: int, as_json: bool) -> None:
    """What changed between two instants: edges opened and closed, vertices created and deleted."""
    from lineage.analysis.inspection import diff as run_diff

    found = run_diff(warehouse, since=since, until=until, relationships=relationships)
    if as_json:
        click.echo(json.dumps(found.to_json()))
        return
    out = console()
    out.print(f"changed after {_time(found.since)} and up to {_time(found.until)} (UTC)"
              + (f", relationships {', '.join(found.relationships)} only" if found.relationships else ""),
              markup=False, highlight=False)
    summary = [[rel, str(c["opened"]), str(c["closed"])] for rel, c in found.edge_summary().items()]
    _print(out, [Column("relationship"), Column("opened", justify="right"), Column("closed", justify="right")],
           summary or [["(none)", "0", "0"]], "edges")
    vertices = found.vertex_summary()
    if vertices is not None:
        rows = [[label, str(c["created"]), str(c["deleted"])] for label, c in vertices.items()]
        _print(out, [Column("label"), Column("created", justify="right"), Column("deleted", justify="right")],
               rows or [["(none)", "0", "0"]], "vertices")
    folded = False
    rows = []
    for sign, changes in (("+", found.opened), ("-", found.closed)):
        groups: dict[str, list[Any]] = {}
        for c in changes:
            groups.setdefault(c.relationship, []).append(c)
        for rel, group in sorted(groups.items()):
            rows += _capped([[f"{sign} {rel}", c.src_name, c.dst_name, _time(c.at)] for c in group], limit, 1)
    if rows:
        _print(out, [Column("relationship"), Column("from"), Column("to"), Column("at (UTC)", whole_words=True)], rows,
               "edges by name (+ opened, - closed; --json has their ids)")
    rows = []
    for sign, changes in (("+", found.created or ()), ("-", found.deleted or ())):
        groups = {}
        for c in changes:
            groups.setdefault(c.label, []).append(c)
        for label, group in sorted(groups.items()):
            rows += _capped([[f"{sign} {label}", c.name, c.id, _time(c.at)] for c in group], limit, 1)
    if rows:
        folded |= _print(out, [Column("label"), Column("name"), Column("id", is_id=True), Column("at (UTC)", whole_words=True)],
                            rows, "vertices (+ created, - deleted)")
    if folded:
        out.print(FOLDED_NOTE, markup=False)


COMMANDS = (search, show, history, diff)
