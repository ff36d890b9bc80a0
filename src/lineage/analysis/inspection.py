"""What the graph knows of one entity (``show``), how it changed (``history``), and what changed
in the whole graph between two instants (``diff``).

Pure functions over the parquet rows (``graph.api.load_rows``/``change_rows``: pyarrow, no JVM),
so these answers come back in a second. Every "was it there at t" question is the one rule of
:mod:`lineage.graph.asof` (``contains``): ``show`` keeps the edge rows valid at its instant
between two vertices that exist then (what the engines walk: a dropped table's grants are not
closed in the stored graph, but they lead nowhere once it is gone),
``diff`` asks whether an interval's start (or end) lies in ``(from, to]`` by testing the
half-interval against both instants, so an edge valid at ``from`` and not at ``to`` is always
listed as closed, and the converse as opened.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from lineage.errors import UsageError
from lineage.graph.api import (as_rows, change_rows, collector_paused, column_lists, exists_at, load_rows, load_tables,
                               to_time, valid_at)
from lineage.graph.asof import EDGE_INTERVAL, contains
from lineage.ids import RELATIONSHIPS, key_of

if TYPE_CHECKING:
    import pyarrow as pa

OUT, IN = "out", "in"
EVENT_ORDER = ("first_seen", "opened", "change", "closed", "deleted")
"""Events of one instant, in the order they read as a story."""
FIRST_KINDS = ("create", "node_create")
LAST_KINDS = ("drop", "node_delete", "project_deletion")
"""Changes of one instant: a creation before the rest, a deletion after them."""


def kind_rank(kind: str | None) -> int:
    return 0 if kind in FIRST_KINDS else 2 if kind in LAST_KINDS else 1

Row = Mapping[str, Any]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _name(names: Mapping[str, str], vertex_id: str) -> str:
    return names.get(vertex_id) or key_of(vertex_id)


def names_by_id(vertices: Iterable[Row]) -> dict[str, str]:
    return named((v["id"], v.get("name")) for v in vertices)


def named(pairs: Iterable[tuple[str, str | None]]) -> dict[str, str]:
    """Each (id, name) as id -> its name, or its id's key when it has none."""
    return {i: n or key_of(i) for i, n in pairs}


def _vertex(vertices: Iterable[Row], vertex_id: str) -> Row:
    for v in vertices:
        if v["id"] == vertex_id:
            return v
    raise UsageError(f"not in the graph: {vertex_id}")


@dataclass(frozen=True)
class Link:
    """One relationship of an entity, seen from it: ``direction`` out (it is the src) or in."""

    relationship: str
    direction: str
    other: str
    other_label: str
    other_name: str
    valid_from: datetime | None
    valid_to: datetime | None
    closed_by: str | None = None
    properties: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.other, "label": self.other_label, "name": self.other_name,
                "valid_from": _iso(self.valid_from), "valid_to": _iso(self.valid_to),
                "closed_by": self.closed_by, "properties": dict(sorted(self.properties.items()))}


SIDES = ((OUT, "src", "dst", "dst_label"), (IN, "dst", "src", "src_label"))
"""(direction, the entity's end, the other end, its label column): an edge seen from each end."""


def links_of(vertex_id: str, edges: Iterable[Row], names: Mapping[str, str]) -> list[Link]:
    """Every edge row touching ``vertex_id`` as a :class:`Link` (a self-loop is both ways)."""
    found = []
    for e in edges:
        for direction, here, there, label in SIDES:
            if e[here] == vertex_id:
                found.append(Link(e["relationship"], direction, e[there], e.get(label) or "", _name(names, e[there]),
                                  e.get("valid_from"), e.get("valid_to"), e.get("closed_by"), e.get("properties") or {}))
    return _in_order(found)


def _in_order(found: list[Link]) -> list[Link]:
    """Out before in, then by relationship, name and time. Every field a link shows decides its
    place, so the order is the same however the rows were read (the edges dataset or the edges by
    vertex, :mod:`lineage.graph.around`; as rows or columns)."""
    return sorted(found, key=lambda k: (k.direction != OUT, k.relationship, k.other_name.lower(), k.other,
                                        k.valid_from is not None, k.valid_from or datetime.min,
                                        k.valid_to is not None, k.valid_to or datetime.min, k.closed_by or "",
                                        tuple(sorted(k.properties.items())) if k.properties else ()))


def _change_json(change: Row, names: Mapping[str, str]) -> dict[str, Any]:
    actor = change.get("actor")
    return {"change_id": change["change_id"], "kind": change["kind"], "time": _iso(change.get("time")),
            "actor": actor, "actor_name": _name(names, actor) if actor else None, "source": change.get("source"),
            "event_id": change.get("event_id"), "properties": dict(sorted((change.get("properties") or {}).items()))}


@dataclass(frozen=True)
class Entity:
    """``show``: one vertex, its relationships valid at ``as_of`` and its changes up to then."""

    vertex: Row
    as_of: datetime
    why_as_of: str  # "given", "now", or "before deletion" (a deleted entity is shown as it last was)
    exists: bool
    links: tuple[Link, ...]
    changes: tuple[dict[str, Any], ...]  # newest first

    def grouped(self, direction: str) -> dict[str, list[Link]]:
        groups: dict[str, list[Link]] = {}
        for link in self.links:
            if link.direction == direction:
                groups.setdefault(link.relationship, []).append(link)
        return groups

    def to_json(self) -> dict[str, Any]:
        v = self.vertex
        return {
            "id": v["id"], "label": v["label"], "name": v.get("name"), "as_of": self.as_of.isoformat(),
            "exists": self.exists, "first_seen": _iso(v.get("first_seen")), "last_seen": _iso(v.get("last_seen")),
            "deleted_at": _iso(v.get("deleted_at")), "event_count": v.get("event_count"),
            "properties": dict(sorted((v.get("properties") or {}).items())),
            "relationships": {d: {rel: [k.to_json() for k in links] for rel, links in self.grouped(d).items()}
                              for d in (OUT, IN)},
            "changes": list(self.changes),
        }


def show_rows(vertex_id: str, vertices: Sequence[Row], edges: Sequence[Row], changes: Sequence[Row],
              as_of: Any = None, now: datetime | None = None) -> Entity:
    """What the graph knows of ``vertex_id`` as of a moment: its relationships valid then and its
    changes up to then. Without a moment: now, or, for a deleted entity, its relationships one
    instant before its deletion (what it was, not an empty shell), and all its changes."""
    vertex = _vertex(vertices, vertex_id)
    moment, why = _moment(vertex, as_of, now)
    names = names_by_id(vertices)
    alive = {i for i, v in {v["id"]: v for v in vertices}.items() if exists_at(v, moment)}
    # as the engines walk: an edge valid then, between two ids that are vertices then
    links = links_of(vertex_id, (e for e in edges if valid_at(e, moment) and e["src"] in alive and e["dst"] in alive),
                     names)
    return _entity(vertex, moment, why, links, changes, names)


def _moment(vertex: Row, as_of: Any, now: datetime | None) -> tuple[datetime, str]:
    """The instant ``show`` answers for, and why (see :func:`show_rows`)."""
    moment = to_time(as_of)
    if moment is not None:
        return moment, "given"
    deleted = to_time(vertex.get("deleted_at"))
    return (deleted - timedelta(microseconds=1), "before deletion") if deleted else (now or datetime.now(timezone.utc), "now")


def _entity(vertex: Row, moment: datetime, why: str, links: list[Link], changes: Sequence[Row],
            names: Mapping[str, str]) -> Entity:
    vertex_id = vertex["id"]
    until = moment if why == "given" else None  # a deleted entity's drop is among its latest changes
    mine = [c for c in changes if c["entity_id"] == vertex_id and (until is None or c.get("time") is None or c["time"] <= until)]
    mine.sort(key=lambda c: (c.get("time") is not None, c.get("time") or datetime.min, kind_rank(c["kind"]),
                             c["change_id"]), reverse=True)
    return Entity(vertex, moment, why, exists_at(vertex, moment), tuple(links),
                  tuple(_change_json(c, names) for c in mine))


SHOWN = ("src", "dst", "relationship", "src_label", "dst_label", *EDGE_INTERVAL, "closed_by", "properties")
"""The edge columns ``show`` reads: a :class:`Link`'s."""


@collector_paused()
def show(warehouse: str | Path, vertex_id: str, *, as_of: Any = None) -> Entity:
    changes = change_rows(warehouse, entities=[vertex_id], scripts=False)
    # its edges, the vertices at their other ends, and the changes' actors (named in the answer)
    vertices, edges = load_tables(warehouse, around=[vertex_id], named={c["actor"] for c in changes if c.get("actor")},
                                  described=[vertex_id], edge_columns=SHOWN)  # the others are named, not described
    return show_tables(vertex_id, vertices, edges, changes, as_of=as_of)


def show_tables(vertex_id: str, vertices: "pa.Table", edges: "pa.Table", changes: Sequence[Row],
                as_of: Any = None, now: datetime | None = None) -> Entity:
    """:func:`show_rows` of Arrow tables: the same answer, the edges valid then chosen in Arrow and
    the links made from their columns, no dict per row (a hub table's 31,409 edges and the 31,411
    vertices at their ends were 0.8 s of rows and their walk at 10^6 events)."""
    import pyarrow.compute as pc

    from lineage.graph.asof import VERTEX_INTERVAL, arrow_filter

    vertex = _vertex(as_rows(vertices.filter(pc.equal(vertices.column("id"), vertex_id))), vertex_id)
    moment, why = _moment(vertex, as_of, now)
    names = named(zip(*column_lists(vertices, ("id", "name"), interned=False)))
    alive = arrow_filter(vertices.select(["id", *VERTEX_INTERVAL]), VERTEX_INTERVAL, moment).column("id")
    valid = arrow_filter(edges, EDGE_INTERVAL, moment)
    valid = valid.filter(pc.and_(pc.is_in(valid.column("src"), value_set=alive), pc.is_in(valid.column("dst"), value_set=alive)))
    links = []
    for direction, here, there, label in SIDES:
        seen_from = valid.filter(pc.equal(valid.column(here), vertex_id))
        relationship, other, other_label, start, end, closed, properties = column_lists(
            seen_from, ("relationship", there, label, *EDGE_INTERVAL, "closed_by", "properties"))
        links += [Link(r, direction, o, b or "", names.get(o) or key_of(o), f, t, c, dict(p) if p else {})
                  for r, o, b, f, t, c, p in zip(relationship, other, other_label, start, end, closed, properties)]
    return _entity(vertex, moment, why, _in_order(links), changes, names)


# --------------------------------------------------------------------------------------------
# history: one entity's timeline
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    """One dated thing that happened to an entity (``event`` from :data:`EVENT_ORDER`)."""

    time: datetime | None
    event: str
    relationship: str | None = None
    direction: str | None = None
    other: str | None = None
    other_label: str | None = None
    other_name: str | None = None
    detail: str | None = None  # a change's kind, or how an interval closed (closed_by)
    actor: str | None = None
    actor_name: str | None = None
    change_id: str | None = None

    def sort_key(self) -> tuple[Any, ...]:
        return (self.time is not None, self.time or datetime.min, EVENT_ORDER.index(self.event),
                kind_rank(self.detail) if self.event == "change" else 0,
                self.relationship or "", self.direction or "", self.other or "", self.change_id or "", self.detail or "")

    def to_json(self) -> dict[str, Any]:
        return {"time": _iso(self.time), "event": self.event, "relationship": self.relationship,
                "direction": self.direction, "other": self.other, "other_label": self.other_label,
                "other_name": self.other_name, "detail": self.detail, "actor": self.actor, "change_id": self.change_id}


@dataclass(frozen=True)
class History:
    vertex: Row
    events: tuple[Event, ...]

    def to_json(self) -> dict[str, Any]:
        v = self.vertex
        return {"id": v["id"], "label": v["label"], "name": v.get("name"), "events": [e.to_json() for e in self.events]}


def history_rows(vertex_id: str, vertices: Sequence[Row], edges: Sequence[Row], changes: Sequence[Row]) -> History:
    """Every interval of ``vertex_id`` opened or closed (its own and its edges') and every
    change, oldest first (an open start, unknown, comes first)."""
    vertex = _vertex(vertices, vertex_id)
    names = names_by_id(vertices)
    events = [Event(vertex.get("first_seen"), "first_seen")]
    if vertex.get("deleted_at") is not None:
        events.append(Event(vertex["deleted_at"], "deleted"))
    for k in links_of(vertex_id, edges, names):
        base = dict(relationship=k.relationship, direction=k.direction, other=k.other, other_label=k.other_label,
                    other_name=k.other_name)
        events.append(Event(k.valid_from, "opened", **base))
        if k.valid_to is not None:
            events.append(Event(k.valid_to, "closed", detail=k.closed_by, **base))
    for c in changes:
        if c["entity_id"] == vertex_id:
            actor = c.get("actor")
            events.append(Event(c.get("time"), "change", detail=c["kind"], actor=actor,
                                actor_name=_name(names, actor) if actor else None, change_id=c["change_id"]))
    return History(vertex, tuple(sorted(events, key=Event.sort_key)))


def history(warehouse: str | Path, vertex_id: str) -> History:
    changes = change_rows(warehouse, entities=[vertex_id], scripts=False)
    vertices, edges = load_rows(warehouse, around=[vertex_id], named={c["actor"] for c in changes if c.get("actor")})
    return history_rows(vertex_id, vertices, edges, changes)


# --------------------------------------------------------------------------------------------
# diff: the whole graph between two instants
# --------------------------------------------------------------------------------------------


def began_between(start: Any, earlier: datetime, later: datetime) -> bool:
    """An interval starting at ``start`` opened in ``(earlier, later]``: by the as-of rule its
    half-interval ``[start, open)`` contains ``later`` and not ``earlier``."""
    return contains(start, None, later) and not contains(start, None, earlier)


def ended_between(end: Any, earlier: datetime, later: datetime) -> bool:
    """An interval ending at ``end`` closed in ``(earlier, later]``: ``[open, end)`` contains
    ``earlier`` and not ``later``."""
    return contains(None, end, earlier) and not contains(None, end, later)


@dataclass(frozen=True)
class EdgeChange:
    relationship: str
    src: str
    src_label: str
    src_name: str
    dst: str
    dst_label: str
    dst_name: str
    at: datetime
    closed_by: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"relationship": self.relationship, "src": self.src, "src_label": self.src_label,
                "src_name": self.src_name, "dst": self.dst, "dst_label": self.dst_label, "dst_name": self.dst_name,
                "at": self.at.isoformat(), "closed_by": self.closed_by}


@dataclass(frozen=True)
class VertexChange:
    id: str
    label: str
    name: str
    at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "name": self.name, "at": self.at.isoformat()}


@dataclass(frozen=True)
class Diff:
    since: datetime
    until: datetime
    relationships: tuple[str, ...]  # the filter; empty: every relationship, and vertices too
    opened: tuple[EdgeChange, ...]
    closed: tuple[EdgeChange, ...]
    created: tuple[VertexChange, ...] | None  # None when a relationship filter leaves vertices out
    deleted: tuple[VertexChange, ...] | None

    def edge_summary(self) -> dict[str, dict[str, int]]:
        summary: dict[str, dict[str, int]] = {}
        for what, changes in (("opened", self.opened), ("closed", self.closed)):
            for c in changes:
                summary.setdefault(c.relationship, {"opened": 0, "closed": 0})[what] += 1
        return dict(sorted(summary.items()))

    def vertex_summary(self) -> dict[str, dict[str, int]] | None:
        if self.created is None or self.deleted is None:
            return None
        summary: dict[str, dict[str, int]] = {}
        for what, changes in (("created", self.created), ("deleted", self.deleted)):
            for c in changes:
                summary.setdefault(c.label, {"created": 0, "deleted": 0})[what] += 1
        return dict(sorted(summary.items()))

    def to_json(self) -> dict[str, Any]:
        listed = self.created is not None and self.deleted is not None
        return {
            "from": self.since.isoformat(), "to": self.until.isoformat(), "relationships": list(self.relationships),
            "summary": {"edges": self.edge_summary(), "vertices": self.vertex_summary()},
            "edges": {"opened": [c.to_json() for c in self.opened], "closed": [c.to_json() for c in self.closed]},
            "vertices": {"created": [c.to_json() for c in self.created or ()],
                         "deleted": [c.to_json() for c in self.deleted or ()]} if listed else None,
        }


def relationship_filter(names: Iterable[str]) -> tuple[str, ...]:
    """``--relationship`` values, upper-cased and checked against the vocabulary (exit 2 if not)."""
    wanted = tuple(dict.fromkeys(n.strip().upper() for n in names))
    unknown = [n for n in wanted if n not in RELATIONSHIPS]
    if unknown:
        raise UsageError(f"unknown relationship {', '.join(unknown)}; known: {', '.join(sorted(RELATIONSHIPS))}")
    return wanted


def diff_rows(vertices: Sequence[Row], edges: Sequence[Row], since: Any, until: Any,
              relationships: Iterable[str] = ()) -> Diff:
    """Edge intervals opened and closed, vertices created (first seen) and deleted in
    ``(since, until]``; an interval opened and closed in between is listed in both. With
    ``relationships``, only those edges (and no vertices)."""
    start, end = to_time(since), to_time(until)
    if start is None or end is None or start >= end:
        raise UsageError(f"--from must be before --to (got {since} and {until})")
    wanted = relationship_filter(relationships)
    names = names_by_id(vertices)
    opened, closed = [], []
    for e in edges:
        if wanted and e["relationship"] not in wanted:
            continue
        base = dict(relationship=e["relationship"], src=e["src"], src_label=e.get("src_label") or "",
                    src_name=_name(names, e["src"]), dst=e["dst"], dst_label=e.get("dst_label") or "",
                    dst_name=_name(names, e["dst"]))
        if e.get("valid_from") is not None and began_between(e["valid_from"], start, end):
            opened.append(EdgeChange(at=e["valid_from"], **base))
        if e.get("valid_to") is not None and ended_between(e["valid_to"], start, end):
            closed.append(EdgeChange(at=e["valid_to"], closed_by=e.get("closed_by"), **base))
    created = deleted = None
    if not wanted:
        created = tuple(sorted((VertexChange(v["id"], v["label"], _name(names, v["id"]), v["first_seen"])
                                for v in vertices
                                if v.get("first_seen") is not None and began_between(v["first_seen"], start, end)),
                               key=lambda c: (c.label, c.at, c.id)))
        deleted = tuple(sorted((VertexChange(v["id"], v["label"], _name(names, v["id"]), v["deleted_at"])
                                for v in vertices
                                if v.get("deleted_at") is not None and ended_between(v["deleted_at"], start, end)),
                               key=lambda c: (c.label, c.at, c.id)))

    def order(c: EdgeChange) -> tuple[Any, ...]:
        return (c.relationship, c.at, c.src, c.dst)

    return Diff(start, end, wanted, tuple(sorted(opened, key=order)), tuple(sorted(closed, key=order)), created, deleted)


def diff(warehouse: str | Path, *, since: Any, until: Any, relationships: Iterable[str] = ()) -> Diff:
    vertices, edges = load_rows(warehouse)
    return diff_rows(vertices, edges, since, until, relationships)
