"""The human answers of `impact` and `upstream`, read top-down: what, how much, who to tell, then
the affected assets grouped by label, nearest first. Pure functions returning lines."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any

from lineage.analysis.people import Tell
from lineage.render.columns import Col, shorten, table, wrap
from lineage.render.picture import Item, Picture, label_rank

ITEM_COLUMNS = (Col("hops", right=True), Col("name", shrink=1, least=16), Col("id", shrink=3, least=24),
                Col("details", shrink=2, least=16))


def summary(labels: Sequence[str]) -> str:
    """``Table 4, Node 3, Instance 31`` in label order; ``nothing`` when empty."""
    counts = Counter(labels)
    return ", ".join(f"{label} {counts[label]}" for label in sorted(counts, key=label_rank)) or "nothing"


def _details(item: Item, picture: Picture, name: Callable[[str], str]) -> str:
    """What is collapsed into the item, and the items it was reached through (its witness path's
    previous hop when no drawn edge leads to it)."""
    nearer = picture.nearer(item.id) or ([item.via] if item.via else [])
    names = {i.id: i.name for i in (*picture.sources, *picture.items)}
    shown = [names.get(v) or name(v) for v in nearer[:2]] + ([f"+{len(nearer) - 2}"] if len(nearer) > 2 else [])
    via = ("via " + ", ".join(shown)) if shown else ""
    return "; ".join(x for x in (item.note, via) if x)


def _items(items: Sequence[Item], picture: Picture, name: Callable[[str], str], width: int) -> list[str]:
    rows = [[str(i.distance), i.name, "" if i.id.startswith("jobs:") else i.id, _details(i, picture, name)]
            for i in items]
    return table(ITEM_COLUMNS, rows, width)


def _people(people: Sequence[Tell], width: int) -> list[str]:
    lines = [f"people to tell ({len(people)})"]
    for person in people:
        room = max(width - len(person.name) - 4, 12)
        lines.append(f"  {person.name}  {shorten(person.id, room)}" if person.name != person.id else f"  {person.id}")
        lines += wrap("    ", list(person.why), width, sep="; ")
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
) -> list[str]:
    """The whole answer: title, counts, people to tell (impact), then one block per label."""
    sources = ", ".join(f"{s.name} ({s.id})" if s.name != s.id else s.id for s in picture.sources)
    lines = wrap(f"{question} of ", [sources], width)
    lines.append(f"as of {as_of.isoformat()}, {engine} engine")
    raw = [a.label for a in picture.raw]
    lines += wrap(f"{'affected' if question == 'impact' else question}: {len(raw)} — ", [summary(raw)], width)
    if people is not None:
        lines += ["", *_people(people, width)]
    for label, items in picture.groups():
        collapsed = sum(len(i.members) for i in items)
        extra = f", {collapsed} collapsed into them" if collapsed and label != "Job" else ""
        lines += ["", f"{label} ({len(items)}{extra})", *_items(items, picture, name, width)]
    return lines


ACCESS_COLUMNS = (Col("name", shrink=1, least=16), Col("id", shrink=3, least=20), Col("how"),
                  Col("privileges", shrink=2, least=16), Col("through", shrink=2, least=12), Col("since"), Col("until"))


def when(moment: datetime | None) -> str:
    """``2024-07-05 00:00`` (UTC), ``-`` when unknown or open."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M") if moment else "-"


def _privileges(principal: Any, every: Sequence[str]) -> str:
    return "all" if every and tuple(principal.privileges) == tuple(every) else ", ".join(principal.privileges) or "-"


def _principal_rows(principals: Sequence[Any], name: Callable[[str], str], every: Sequence[str] = ()) -> list[list[str]]:
    rows = []
    for p in principals:
        through = ", ".join(dict.fromkeys(name(v) for path in p.paths for v in path[1:-1])) or "-"
        rows.append([p.name or name(p.id), p.id, ", ".join(p.kinds), _privileges(p, every), through, when(p.since),
                     when(p.expires_at)])
    return rows


def access_answer(result: Any, *, name: Callable[[str], str], width: int, every: Sequence[str] = ()) -> list[str]:
    """Who can access a target: grants, MaxCompute owner and admins, then catalogue owners apart."""
    lines = wrap("who can access ", [f"{name(result.target)} ({result.target})"], width)
    lines.append(f"as of {result.as_of.isoformat()}")
    lines += ["", f"through grants ({len(result.principals)})"]
    lines += table(ACCESS_COLUMNS, _principal_rows(result.principals, name), width) if result.principals else ["  nobody"]
    lines += ["", f"owner and administrators, every privilege ({len(result.owners)})"]
    lines += table(ACCESS_COLUMNS, _principal_rows(result.owners, name, every), width) if result.owners else \
        ["  none the events show"]
    lines += ["", f"owners (metadata), no access by itself ({len(result.metadata_owners)})"]
    rows = [[name(pid), pid, when(since)] for pid, since in result.metadata_owners]
    lines += table((Col("name", shrink=1, least=16), Col("id", shrink=2, least=20), Col("since")), rows, width) \
        if rows else ["  none"]
    count = len({p.id for p in (*result.principals, *result.owners)})
    lines += ["", f"{count} principal(s) can access it"]
    return lines
