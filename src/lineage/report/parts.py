"""The week's changes in four parts, one per effect (issue 29): each kind of change reaches people
its own way, so a grant is never ranked among what may break.

* **What may break** (breaks): ranked by score, with the people to tell;
* **Who gained access** (exposes): the principals who gained a path (``gained``), sensitive data
  first: a table carrying a sensitive tag or label (``propagation.carried``), a role granting
  one, or a sensitive tag added (a grant that gave nobody a new path comes last);
* **Who lost access and which jobs will fail** (restricts): the ``lost`` principals and the
  ``may_fail`` nodes and jobs with their owners;
* **What people should know** (notifies): old and new owners, a deprecated table's direct
  readers, what a term, domain or tag change set.

Everything is asked of the graph around the change, as blast radius asks it (one instant before,
and as of the change for what it made).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Callable, Iterable, Mapping

from lineage.analysis import propagation
from lineage.analysis.blast import ChangeImpact
from lineage.analysis.engine import BEFORE
from lineage.analysis.people import owners_at
from lineage.analysis.rules import BREAKS, EXPOSES, NOTIFIES, RESTRICTS
from lineage.report.context import Context
from lineage.report.model import Named, Part, PartEntry, Person, Runnable

PARTS: tuple[tuple[str, str, str], ...] = (
    (BREAKS, "What may break", "Nothing changed this week that may break data."),
    (EXPOSES, "Who gained access", "Nobody gained access this week."),
    (RESTRICTS, "Who lost access and which jobs will fail", "Nobody lost access this week."),
    (NOTIFIES, "What people should know", "Nothing else to tell this week."),
)
"""(effect, title, what an empty part says), in the order the pages show them."""
READERS = ("Node", "Job")
"""Who reads a deprecated table directly, by preference: its nodes, else (no node) its jobs."""
DETAIL_KEYS = ("modifier", "term", "domain", "tag", "value")
"""Where a notice's change says what it set (first present wins), shown as its key."""


def _named(ctx: Context, vertices: Iterable[str]) -> list[Named]:
    return [Named(id=v, name=ctx.name(v)) for v in sorted(set(vertices))]


def _runnables(ctx: Context, moment: datetime, vertices: Iterable[str]) -> list[Runnable]:
    """Nodes and jobs with their owners at ``moment``."""
    vertices = sorted(set(vertices))
    owned = owners_at(ctx.snapshot(moment), vertices)
    return [Runnable(id=v, label=ctx.label(v), name=ctx.name(v),
                     owners=_named(ctx, (o for o, assets in owned.items() if v in assets))) for v in vertices]


def sensitivity(ctx: Context, impact: ChangeImpact, change: Mapping[str, Any]) -> list[str]:
    """Why an exposure's data is sensitive as of the change: a sensitive tag added, a sensitive
    tag or label the table carries (or a table the granted role reads carries); empty: not."""
    if impact.kind == "tag_change":  # a tag change exposes only when it adds a sensitive tag
        modifier = str((change.get("properties") or {}).get("modifier") or "")
        return [f"tag {modifier.rsplit(':', 1)[-1] or '?'} added"]
    if impact.time is None:
        return []
    snap = ctx.snapshot(impact.time)
    tables = [impact.entity_id] if impact.entity_label == "Table" else \
        [e.dst for e in snap.out(impact.entity_id, "CAN_ACCESS")]
    return sorted({mark.name for t in tables for mark in propagation.carried(snap, t).values()})


def _detail(change: Mapping[str, Any]) -> str | None:
    props = change.get("properties") or {}
    for key in DETAIL_KEYS:
        if props.get(key):
            value = str(props[key])
            operation = str(props.get("operation") or "").lower()
            return f"{operation} {value.rsplit(':', 1)[-1]}".strip()
    return None


def _breaks(ctx: Context, impact: ChangeImpact, rank: int, tell: list[Named], _: Mapping[str, Any]) -> PartEntry:
    return PartEntry(change_id=impact.change_id, rank=rank, tell=tell)


def _exposes(ctx: Context, impact: ChangeImpact, rank: int, _: list[Named], change: Mapping[str, Any]) -> PartEntry:
    spread = [a.id for a in impact.affected if a.label == "Table"] if impact.kind == "tag_change" else []
    return PartEntry(change_id=impact.change_id, rank=rank, sensitive=sensitivity(ctx, impact, change),
                     principals=_named(ctx, impact.gained), tables=_named(ctx, spread))


def _restricts(ctx: Context, impact: ChangeImpact, rank: int, _: list[Named], __: Mapping[str, Any]) -> PartEntry:
    before = impact.time - BEFORE if impact.time else None
    failing = _runnables(ctx, before, impact.may_fail) if before else \
        [Runnable(id=v, label=ctx.label(v), name=ctx.name(v), owners=[]) for v in impact.may_fail]
    return PartEntry(change_id=impact.change_id, rank=rank, principals=_named(ctx, impact.lost), may_fail=failing)


def _notifies(ctx: Context, impact: ChangeImpact, rank: int, _: list[Named], change: Mapping[str, Any]) -> PartEntry:
    if impact.time is None:
        return PartEntry(change_id=impact.change_id, rank=rank, detail=_detail(change))
    before, after = ctx.snapshot(impact.time - BEFORE), ctx.snapshot(impact.time)
    readers: list[str] = []
    if impact.kind == "deprecation":
        reading = [e.src for e in before.into(impact.entity_id, "READS")]
        for label in READERS:
            readers = [r for r in reading if ctx.label(r) == label]
            if readers:
                break
    return PartEntry(change_id=impact.change_id, rank=rank, detail=_detail(change),
                     old_owners=_named(ctx, owners_at(before, [impact.entity_id])),
                     new_owners=_named(ctx, owners_at(after, [impact.entity_id])),
                     readers=_runnables(ctx, impact.time - BEFORE, readers))


ENTRY: dict[str, Callable[..., PartEntry]] = {BREAKS: _breaks, EXPOSES: _exposes, RESTRICTS: _restricts,
                                               NOTIFIES: _notifies}
"""How each effect's part describes one change."""


def parts(ctx: Context, ranked: list[ChangeImpact], people: list[Person],
          changes: Mapping[str, Mapping[str, Any]]) -> list[Part]:
    """The four parts from the window's ranked changes (``changes``: their rows by change id)."""
    tell: dict[str, list[Named]] = {}
    for person in people:
        for cid in person.changes:
            tell.setdefault(cid, []).append(Named(id=person.id, name=person.name))
    out = []
    for effect, title, _ in PARTS:
        entries = [ENTRY[effect](ctx, impact, rank, tell.get(impact.change_id, []), changes.get(impact.change_id, {}))
                   for rank, impact in enumerate(ranked, 1) if impact.effect == effect]
        if effect == EXPOSES:  # sensitive data first, then rank; a grant that gave nobody a new path last
            entries.sort(key=lambda e: (not (e.principals or e.tables), not e.sensitive, e.rank))
        out.append(Part(effect=effect, title=title, count=len(entries), entries=entries))
    return out


def empty_text(effect: str) -> str:
    return next(text for e, _, text in PARTS if e == effect)

