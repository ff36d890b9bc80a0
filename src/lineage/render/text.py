"""The human answers of `impact` and `upstream`, read top-down: what, how much, who to tell, then
the affected assets grouped by label, nearest first. Pure functions returning lines."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from lineage.analysis.people import Tell
from lineage.render.columns import Col, few, table, wrap, wrapped
from lineage.render.picture import Item, Picture, label_rank

ITEM_COLUMNS = (Col("hops", right=True), Col("name", shrink=1, least=16), Col("id", is_id=True),
                Col("details", least=24, wrap=True))


def summary(labels: Sequence[str]) -> list[str]:
    """``["Table 4", "Node 3", "Instance 31"]`` in label order; ``["nothing"]`` when empty."""
    counts = Counter(labels)
    return [f"{label} {counts[label]}" for label in sorted(counts, key=label_rank)] or ["nothing"]


RUNS = ("Node", "Job")
VERBS: dict[tuple[bool, bool, bool], str] = {
    # (impact?, the item is a table?, what it was reached through runs?) -> how to say it
    (True, True, True): "written by", (True, False, False): "reads",
    (False, True, True): "read by", (False, False, False): "writes",
}
"""How an item relates to the items it was reached through; ``via`` otherwise."""


def _details(item: Item, picture: Picture, name: Callable[[str], str]) -> str:
    """What is collapsed into the item, and what it was reached through (its witness path's
    previous hop when no drawn edge leads to it): ``written by node x``, ``reads table y``."""
    nearer = picture.nearer(item.id) or ([item.via] if item.via else [])
    known = {i.id: i for i in (*picture.sources, *picture.items)}
    labels = {v: known[v].label if v in known else "" for v in nearer}
    runs = bool(nearer) and all(labels[v] in RUNS for v in nearer)
    tables = bool(nearer) and all(labels[v] == "Table" for v in nearer)
    verb = "via"
    if item.label == "Table" and runs or item.label in RUNS and tables:
        verb = VERBS.get((picture.downstream, item.label == "Table", runs), "via")
    shown = [f"{labels[v].lower()} {known[v].name if v in known else name(v)}".strip() for v in nearer[:2]]
    shown += [f"+{len(nearer) - 2}"] if len(nearer) > 2 else []
    reached = f"{verb} " + ", ".join(shown) if shown else ""
    return "; ".join(x for x in (item.note, reached) if x)


def _items(items: Sequence[Item], picture: Picture, name: Callable[[str], str], width: int) -> list[str]:
    rows = [[str(i.distance), i.name, "" if i.id.startswith("jobs:") else i.id, _details(i, picture, name)]
            for i in items]
    return table(ITEM_COLUMNS, rows, width)


def _people(people: Sequence[Tell], width: int) -> list[str]:
    lines = [f"people to tell ({len(people)})"]
    for person in people:
        lines.append(f"  {person.name}  {person.id}" if person.name != person.id else f"  {person.id}")
        lines += [f"    {line}" for line in wrapped("; ".join(person.why), width - 4)]
    return lines if people else ["people to tell: nobody (no owner or reader of an affected asset)"]


def answer(
    question: str,
    picture: Picture,
    *,
    as_of: datetime,
    engine: str,
    name: Callable[[str], str],
    width: int,
    people: Sequence[Tell] | None = None,
    limit: int | None = None,
) -> list[str]:
    """The whole answer: title, counts, people to tell (impact), then one block per label, each
    its nearest ``limit`` items (and how many more)."""
    sources = ", ".join(f"{s.name} ({s.id})" if s.name != s.id else s.id for s in picture.sources)
    lines = wrap(f"{question} of ", [sources], width)
    lines.append(f"as of {as_of.isoformat()}, {engine} engine")
    raw = [a.label for a in picture.raw]
    lines += wrap(f"{'affected' if question == 'impact' else question}: {len(raw)} — ", summary(raw), width)
    if people is not None:
        lines += ["", *_people(people, width)]
    for label, items in picture.groups():
        collapsed = sum(len(i.members) for i in items)
        extra = f", {collapsed} collapsed into them" if collapsed and label != "Job" else ""
        shown = items if limit is None else items[:limit]
        lines += ["", f"{label} ({len(items)}{extra})", *_items(shown, picture, name, width)]
        if len(shown) < len(items):
            lines.append(f"  … {len(items) - len(shown)} more, farther (--limit N shows more; --json lists all)")
    return lines


ACCESS_COLUMNS = (Col("name", shrink=1, least=12), Col("id", is_id=True), Col("how"),
                  Col("privileges", shrink=1, least=12), Col("since"), Col("until"), Col("through", least=12, wrap=True))


def when(moment: datetime | None) -> str:
    """``2024-07-05 00:00`` (UTC), ``-`` when unknown or open."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M") if moment else "-"


def _privileges(principal: Any, every: Sequence[str]) -> str:
    return "all" if every and tuple(principal.privileges) == tuple(every) else ", ".join(principal.privileges) or "-"


def _principal_rows(principals: Sequence[Any], name: Callable[[str], str], every: Sequence[str] = ()) -> list[list[str]]:
    rows = []
    for p in principals:
        through = ", ".join(dict.fromkeys(name(v) for path in p.paths for v in path[1:-1])) or "-"
        rows.append([p.name or name(p.id), p.id, ", ".join(p.kinds), _privileges(p, every), when(p.since),
                     when(p.expires_at), through])
    return rows


def _principals(principals: Sequence[Any], name: Callable[[str], str], width: int, every: Sequence[str] = ()) -> list[str]:
    """The principals' table when it fits with names whole; else two lines per principal (name
    and id, then how, privileges, since, until and through, wrapped)."""
    rows = _principal_rows(principals, name, every)
    lines = table(ACCESS_COLUMNS, rows, width)
    if max(map(len, lines)) <= width and all(r[0] in line for r, line in zip(rows, lines[1:])):
        return lines
    out = []
    for who, pid, how, privileges, since, until, through in rows:
        out.append(f"  {who}  {pid}" if who != pid else f"  {pid}")  # the id whole, past the width if it must
        text = f"{how}: {privileges}; since {since}, until {until}" + (f"; through {through}" if through != "-" else "")
        out += [f"    {line}" for line in wrapped(text, width - 4)]
    return out


def access_answer(result: Any, *, name: Callable[[str], str], width: int, every: Sequence[str] = ()) -> list[str]:
    """Who can access a target: grants, MaxCompute owner and admins, then catalogue owners apart."""
    lines = wrap("who can access ", [f"{name(result.target)} ({result.target})"], width)
    lines.append(f"as of {result.as_of.isoformat()}")
    lines += ["", f"through grants ({len(result.principals)})"]
    lines += _principals(result.principals, name, width) if result.principals else ["  nobody"]
    lines += ["", f"owner and administrators, every privilege ({len(result.owners)})"]
    lines += _principals(result.owners, name, width, every) if result.owners else \
        ["  none the events show"]
    lines += ["", f"owners (metadata), no access by itself ({len(result.metadata_owners)})"]
    rows = [[name(pid), pid, when(since)] for pid, since in result.metadata_owners]
    lines += table((Col("name", shrink=1, least=16), Col("id", is_id=True), Col("since")), rows, width) \
        if rows else ["  none"]
    count = len({p.id for p in (*result.principals, *result.owners)})
    lines += ["", f"{count} principal(s) can access it"]
    return lines


BLAST_COLUMNS = (Col("#", right=True), Col("score", right=True), Col("time"), Col("kind"), Col("effect"),
                 Col("entity", shrink=1, least=16),
                 Col("id", is_id=True), Col("affected", least=20, wrap=True))


def changed(impact: Any) -> str:
    """What a change did, when it says: its category, the columns it touched, the node settings
    it changed, why its script change reaches every reader (``col_9 added, additive``; ``cron 00
    05 -> 00 09, breaking``; ``script: a join changed, breaking``)."""
    what = [f'{c["column"]} {c["change"]}' for c in impact.columns()]
    what += [f'{s["setting"]} {s["before"]} -> {s["after"]}' for s in impact.settings()]
    rows = impact.rows_changed()
    what += [f'script: {", ".join(rows)} changed'] if rows else []  # a narrower change: its columns say it
    category = impact.category()
    return ", ".join(what + ([category] if category else []))


def blast_answer(ranked: Sequence[Any], top: int, *, name: Callable[[str], str], width: int) -> list[str]:
    """The ranked changes of a window, by name, what each changed and the affected counts in label
    order; when the table does not fit, each change's id and counts go on wrapped lines under its row."""
    rows = [[str(i), f"{r.score:g}", when(r.time), r.kind, r.effect, name(r.entity_id), r.entity_id,
             "; ".join(filter(None, [changed(r), ", ".join(f"{label} {r.summary[label]}"
                                                          for label in sorted(r.summary, key=label_rank))])) or "-"]
            for i, r in enumerate(ranked[:top], 1)]
    lines = [f"blast radius of {len(ranked)} change(s)" + (f", the top {top}" if len(ranked) > top else "")]
    if not rows:
        lines.append("  no change in the window")
    elif max(map(len, wide := table(BLAST_COLUMNS, rows, width))) <= width:
        lines += wide
    else:
        narrow = table(BLAST_COLUMNS[:6], [row[:6] for row in rows], width)
        lines.append(narrow[0])
        for row, line in zip(rows, narrow[1:]):
            lines.append(line)
            lines += [f"      {more}" for more in wrapped(f"{row[6]}: {row[7]}", width - 6)]
    several = sum(1 for r in ranked if len(getattr(r, "reported_by", ())) > 1)
    if several:
        lines += wrapped(f"{several} change(s) reported by more than one source are listed once "
                         "(their reports: reported_by in --json)", width)
    return [*lines, "score = factor x sum(weight x importance / distance), see docs/impact.md"]


EXPOSURE_COLUMNS = (Col("principal", shrink=1, least=16), Col("id", is_id=True), Col("tables", right=True),
                    Col("what they read", least=24, wrap=True))


def exposure_answer(found: Sequence[Any], *, name: Callable[[str], str], width: int, limit: int,
                    every: bool = False) -> list[str]:
    """Who reads sensitive data they were never cleared for at its source, one row per principal
    (most tables first): the tables by name, the marks, the origins and how they read them;
    ``every``: one row per (principal, table)."""
    if not found:
        return ["exposure: nobody reads sensitive data reached through lineage without clearance at its source"]
    mine: dict[str, list[Any]] = {}
    for e in found:
        mine.setdefault(e.principal, []).append(e)
    origins = {o for e in found for o in (e.origins or (e.origin,))}
    lines = [f"exposure: {len(found):,} (principal, table) pair(s): {len(mine):,} principal(s) read "
             f"{len({e.table for e in found}):,} table(s) derived from {len(origins):,} sensitive source(s), "
             f"never cleared at the source"]
    order = sorted(mine, key=lambda p: (-len(mine[p]), name(p), p))
    rows = []
    for pid in order[:limit]:
        exposures = sorted(mine[pid], key=lambda e: name(e.table))
        tables = [name(e.table) + (f" ({', '.join(c.rpartition('.')[2] for c in e.columns)})" if e.columns else "")
                  for e in exposures]
        said = [few(tables)]
        said.append("marks " + ", ".join(sorted({m for e in exposures for m in (e.marks or (e.name,))})))
        said.append("from " + ", ".join(sorted({name(o) for e in exposures for o in (e.origins or (e.origin,))})))
        kinds = sorted({k for e in exposures for k in e.kinds})
        said += [f"through {', '.join(kinds)}"] if kinds else []
        rows.append([name(pid), pid, str(len(exposures)), "; ".join(said)])
        if every:
            for e in exposures:
                columns = ", ".join(c.rpartition(".")[2] for c in e.columns) or "whole table"
                rows.append(["", "", "", f"{name(e.table)} ({columns}): " + " -> ".join(name(v) for v in e.path)
                             + "; access " + " -> ".join(name(v) for v in e.access_path)])
    lines += [""] + table(EXPOSURE_COLUMNS, rows, width)
    if len(order) > limit:
        lines += ["", f"{len(order) - limit} more principal(s): --limit N shows more; --json lists every pair"]
    return lines
