"""Access paths: who can read a table as of a time, and everything one principal can read.

Pure Python over the vertex/edge rows of the built graph (``graph.api.load_rows``), so the CLI,
the notebooks and the tests answer without a JVM. A query sees the graph **as of** one instant
(:func:`snapshot`): edges whose ``[valid_from, valid_to)`` holds it (null ends open) between
vertices that exist then (first seen by then, not deleted): a revoked, expired or deleted
thing grants nothing after that time, and did before it.

**How a principal reaches a target** (every path reads ``[principal, ..., target]``):

* the grant: a ``CAN_ACCESS`` edge into the target, into the Project the target is
  ``IN_PROJECT`` of, or into one of the target's columns (``HAS_COLUMN``), see :data:`SCOPES`;
* its holder: the grantee itself, or, for a Role grantee, every user who ``HAS_ROLE`` it.
  ``MEMBER_OF`` a project alone grants nothing (MaxCompute needs a grant to read a table).

Each path gets the kinds of :data:`ACCESS_KINDS`; a principal's privileges are the union over
its paths. The label rule is documented on :func:`who_can_access`.
"""

from __future__ import annotations

import json
import re
from collections import ChainMap, defaultdict, deque
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from lineage import ids
from lineage.events.times import parse_time
from lineage.graph.api import among, ends_where, exists_at, to_time
from lineage.graph.props import properties_of
from lineage.graph.asof import contains

if TYPE_CHECKING:
    import pyarrow as pa

CAN_ACCESS, HAS_ROLE, HAS_LABEL, HAS_COLUMN, IN_PROJECT, FEEDS = (
    "CAN_ACCESS", "HAS_ROLE", "HAS_LABEL", "HAS_COLUMN", "IN_PROJECT", "FEEDS")
RELATIONSHIPS = frozenset({CAN_ACCESS, HAS_ROLE, HAS_LABEL, HAS_COLUMN, IN_PROJECT, FEEDS, "OWNS"})
"""What access questions walk (grants, roles, labels, scopes, derived tables, owners): the part of
the graph ``lineage access`` reads (``load_rows(relationships=...)``); a walk over another raises."""
TARGET_RELATIONSHIPS = RELATIONSHIPS - {FEEDS}
"""What :func:`principals_at` walks (who can read one target): no FEEDS, and of HAS_COLUMN only the
target's own (``analysis.api.access`` reads those alone: a platform's column FEEDS and HAS_COLUMN
were 80% of the rows ``access`` read on a graph with columns, and 5 s of its 20)."""
NEVER_ON_A_PATH = ("Job", "Instance")
"""Labels no access path passes through (never a principal, a grant's object or a covered table):
their edges (most of a platform's) are left unread, unless the question is about one of them."""
LABEL_QUALIFIER = "label"  # MaxCompute GRANT LABEL ... ON TABLE t TO USER x
DERIVED = "derived"  # reachable_by: a table derived (FEEDS) from one the principal can read


# --------------------------------------------------------------------------------------------
# the graph at one instant
# --------------------------------------------------------------------------------------------


def _time(value: Any) -> datetime | None:
    """Row timestamps: aware UTC datetimes (naive values and strings are taken as UTC). An aware
    datetime (what pyarrow reads from the graph's parquet) is taken as it is: the build checked
    its range, and checking it again was a third of indexing a report's million edges."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value
    return parse_time(value) if value not in (None, "") else None


class OneProperty(Mapping[str, Mapping[str, str]]):
    """The values of one property by vertex id, seen as each vertex's property map (made when
    looked up): ``exposure`` looks up the column lineage of the few jobs its walks meet, of 106,744."""

    def __init__(self, key: str, values: Mapping[str, str]):
        self.key, self.values = key, values

    def __getitem__(self, vertex: str) -> Mapping[str, str]:
        return {self.key: self.values[vertex]}

    def __contains__(self, vertex: object) -> bool:
        return vertex in self.values

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


EDGE_COLUMNS = ("src", "dst", "relationship", "qualifier", "src_label", "dst_label", "valid_from", "valid_to",
                "closed_by", "properties")
"""The edge row columns an :class:`Edge` is made of, in its fields' order."""


@dataclass(slots=True)
class Edge:
    """One validity interval of one relationship (an edge row, normalised). Read-only by
    convention, not ``frozen``: a frozen dataclass's ``__init__`` sets each field through
    ``object.__setattr__``, seven times the cost, and a report makes a million of them."""

    src: str
    dst: str
    relationship: str
    qualifier: str
    src_label: str
    dst_label: str
    valid_from: datetime | None
    valid_to: datetime | None
    closed_by: str | None
    properties: Mapping[str, str]

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Edge:
        return cls(
            row["src"], row["dst"], row["relationship"], row.get("qualifier") or "",
            row.get("src_label") or ids.label_of(row["src"]), row.get("dst_label") or ids.label_of(row["dst"]),
            _time(row.get("valid_from")), _time(row.get("valid_to")), row.get("closed_by"),
            properties_of(row.get("properties")),
        )

    @classmethod
    def stream(cls, table: "pa.Table") -> Iterator[Edge]:
        """The edges of an Arrow table of edge rows, one record batch at a time, made column by
        column (``graph.api.column_lists``: ids, labels and relationships held once, each instant
        made once) with no dict per row: half the time of :meth:`of` over rows at 10^6 events."""
        from lineage.graph.api import BATCH_ROWS, column_lists, utc_instants

        for batch in table.to_batches(max_chunksize=BATCH_ROWS):
            src, dst, relationship, qualifier, src_label, dst_label, start, end, closed, properties = (
                column_lists(batch, EDGE_COLUMNS))
            start, end = ((times if utc_instants(batch, name) else [_time(t) for t in times])
                          for name, times in (("valid_from", start), ("valid_to", end)))
            yield from [cls(s, d, r, q or "", a or ids.label_of(s), b or ids.label_of(d), f, t, c, properties_of(p))
                        for s, d, r, q, a, b, f, t, c, p
                        in zip(src, dst, relationship, qualifier, src_label, dst_label, start, end, closed, properties)]

    def valid_at(self, moment: datetime) -> bool:
        return contains(self.valid_from, self.valid_to, moment)


class Timeline:
    """Every vertex and edge of the graph indexed once, by (vertex, relationship) both ways.

    :meth:`at` views it as of one instant. The weekly report asks about hundreds of instants
    (one before each change): re-indexing the whole graph per instant cost most of a second
    each, while a view filters only the lists a question touches."""

    def __init__(self, vertices: Iterable[Mapping[str, Any]], edges: Iterable[Mapping[str, Any] | Edge],
                 relationships: Collection[str] | None = None, properties: Mapping[str, Mapping[str, str]] | None = None):
        self.relationships = None if relationships is None else frozenset(relationships)
        """Read from part of the graph (``load_rows(relationships=...)``): only these may be asked."""
        self.rows = {v["id"]: v for v in vertices}
        self.labels: dict[str, str] = {i: v.get("label") or ids.label_of(i) for i, v in self.rows.items()}
        self.names: dict[str, str] = {i: v["name"] for i, v in self.rows.items() if v.get("name")}
        own = {i: properties_of(v.get("properties")) for i, v in self.rows.items()}
        # ``properties``: of ids without a row, looked up after the rows' own (not copied: 106,744 jobs' at 10^6 events)
        self.properties: Mapping[str, Mapping[str, str]] = ChainMap(own, properties) if properties else own
        self.out: dict[tuple[str, str], list[Edge]] = defaultdict(list)
        self.into: dict[tuple[str, str], list[Edge]] = defaultdict(list)
        self.edge_only: dict[str, list[Edge]] = defaultdict(list)
        """Ids that only edges name (no vertex row): they exist while one of those edges is valid."""
        self.edges = [row if isinstance(row, Edge) else Edge.of(row) for row in edges]  # rows, or :meth:`Edge.stream`'s
        for edge in self.edges:
            self.out[(edge.src, edge.relationship)].append(edge)
            self.into[(edge.dst, edge.relationship)].append(edge)
            for end, label in ((edge.src, edge.src_label), (edge.dst, edge.dst_label)):
                if end not in self.rows:
                    self.labels.setdefault(end, label)
                    self.edge_only[end].append(edge)

    def at(self, moment: datetime) -> Snapshot:
        return Snapshot(self, moment)


class Snapshot:
    """The graph as it was at ``moment``: a view of a :class:`Timeline` (nothing copied).

    An edge counts when valid at ``moment`` between vertices that exist then; ids that only
    edges name (no vertex row) exist while such an edge does, with the edge's label.
    ``labels`` holds every id the graph ever named: filter with :meth:`exists`."""

    def __init__(self, timeline: Timeline, moment: datetime):
        self.moment = moment
        self.timeline = timeline
        self.labels, self.names, self.properties = timeline.labels, timeline.names, timeline.properties
        self._alive: dict[str, bool] = {}
        self.grants: dict[tuple[str | None, str], list[Any]] = {}
        """The grants held on an object at this moment (:func:`_grants_on`), found once."""

    def _row_alive(self, vertex: str) -> bool:
        """False only for a vertex row not existing at the moment (edge-only ids are never gone)."""
        alive = self._alive.get(vertex)
        if alive is None:
            row = self.timeline.rows.get(vertex)
            alive = self._alive[vertex] = row is None or exists_at(row, self.moment)
        return alive

    def _valid(self, edge: Edge) -> bool:
        return edge.valid_at(self.moment) and self._row_alive(edge.src) and self._row_alive(edge.dst)

    def exists(self, vertex: str) -> bool:
        if vertex in self.timeline.rows:
            return self._row_alive(vertex)
        return any(self._valid(edge) for edge in self.timeline.edge_only.get(vertex, ()))

    def label(self, vertex: str) -> str:
        return self.labels.get(vertex) or ids.label_of(vertex)

    def name(self, vertex: str) -> str:
        """The vertex's name (a merged person's most readable one); its id's key without a vertex row."""
        return self.names.get(vertex) or ids.key_of(vertex)

    def out(self, vertex: str, relationship: str) -> list[Edge]:
        self._read(relationship)
        return [e for e in self.timeline.out.get((vertex, relationship), ()) if self._valid(e)]

    def into(self, vertex: str, relationship: str) -> list[Edge]:
        self._read(relationship)
        return [e for e in self.timeline.into.get((vertex, relationship), ()) if self._valid(e)]

    def _read(self, relationship: str) -> None:
        """A walk over a relationship the graph was read without would answer wrong, silently."""
        only = self.timeline.relationships
        if only is not None and relationship not in only:
            raise ValueError(f"{relationship} was not read: this question's relationships are {sorted(only)}")


def moment_of(as_of: Any) -> datetime:
    """``as_of`` as an aware UTC datetime; None means now."""
    return to_time(as_of) or datetime.now(timezone.utc)


def snapshot(vertices: Iterable[Mapping[str, Any]], edges: Iterable[Mapping[str, Any]], as_of: Any = None,
             relationships: Collection[str] | None = None,
             properties: Mapping[str, Mapping[str, str]] | None = None) -> Snapshot:
    """The graph of these rows as of a moment (:class:`Timeline`; ``properties``: of vertices
    looked up, not walked, that the rows may lack)."""
    return Timeline(vertices, edges, relationships, properties).at(moment_of(as_of))


# --------------------------------------------------------------------------------------------
# MaxCompute label levels
# --------------------------------------------------------------------------------------------


def label_level(snap: Snapshot, label_id: str) -> int | None:
    """A Label vertex's level: its ``level`` property, else the id's key (``label:maxcompute:3``)."""
    text = snap.properties.get(label_id, {}).get("level") or ids.key_of(label_id)
    match = re.search(r"\d+", text)
    return int(match.group()) if match else None


def _max_label(snap: Snapshot, holders: Iterable[str]) -> tuple[int, str] | None:
    levels = [(level, e.dst) for h in holders for e in snap.out(h, HAS_LABEL) if (level := label_level(snap, e.dst)) is not None]
    return max(levels) if levels else None


def columns_of(snap: Snapshot, table: str) -> list[str]:
    return sorted(e.dst for e in snap.out(table, HAS_COLUMN))


def table_level(snap: Snapshot, table: str) -> int | None:
    """The highest label on the table or any of its columns; None when nothing is labelled."""
    found = _max_label(snap, [table, *columns_of(snap, table)])
    return found[0] if found else None


def user_clearance(snap: Snapshot, user: str) -> tuple[int, str] | None:
    """(level, label id) a user is cleared for by ``SET LABEL n TO USER``; None when unset."""
    return _max_label(snap, [user])


# --------------------------------------------------------------------------------------------
# access kinds: one table, and how each is detected
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccessKind:
    name: str
    reads: bool  # does a path of this kind alone let the principal read data
    how: str


ACCESS_KINDS: tuple[AccessKind, ...] = (
    AccessKind("direct", True, "the principal holds the CAN_ACCESS itself (an ACL grant, not an approval, not a role)"),
    AccessKind("approval", True, "a CAN_ACCESS from an approval: property `approval` (DataWorks), `via`/`ticket_id` "
               "(Dataphin grant or approval), or an interval that ends by expiry; `expires_at` says until when"),
    AccessKind("role", True, "User-[:HAS_ROLE]->Role-[:CAN_ACCESS]->...: a role grant or role policy"),
    AccessKind("project", True, "the grant is on the Project the target is IN_PROJECT of (covers its tables)"),
    AccessKind("column", True, "the grant is on one of the target's columns (HAS_COLUMN): a partial read"),
    AccessKind("owner", True, "MaxCompute: the account that created the table or its project owns it and holds "
               "every privilege on it (lineage.analysis.ownership)"),
    AccessKind("admin", True, "MaxCompute: a member of the project's built-in Super_Administrator or Admin role "
               "(every privilege on the project's objects)"),
    AccessKind("label", False, "a GrantLabel (CAN_ACCESS qualifier `label`) on the target, or a user label "
               "(HAS_LABEL) at or above the target's level while the user holds a read path"),
)
KIND_ORDER: dict[str, int] = {k.name: i for i, k in enumerate(ACCESS_KINDS)}
READ_KINDS: frozenset[str] = frozenset(k.name for k in ACCESS_KINDS if k.reads)
APPROVAL_PROPERTIES = ("approval", "via", "ticket_id")
EXPIRY_PROPERTIES = ("expires", "expires_at")
PRIVILEGE_PREFIXES = ("odps:",)  # role policy actions are RAM actions

GRANT_KINDS: tuple[tuple[str, Callable[[Edge], bool]], ...] = (
    ("label", lambda e: e.qualifier == LABEL_QUALIFIER),
    ("approval", lambda e: e.closed_by == "expiry" or any(e.properties.get(k) for k in APPROVAL_PROPERTIES)),
    ("direct", lambda e: True),
)
"""What a grant held by the grantee itself is: the first matching row wins."""


@dataclass(frozen=True)
class Scope:
    kind: str | None  # None: the target itself
    relationship: str | None  # target -[relationship]-> the object granted on
    why: str


SCOPES: tuple[Scope, ...] = (
    Scope(None, None, "a grant on the target itself"),
    Scope("project", IN_PROJECT, "a project-level grant covers the tables in the project (MaxCompute)"),
    Scope("column", HAS_COLUMN, "a column-level grant (DataWorks approval) reads part of the table"),
)


def grant_kind(edge: Edge) -> str:
    return next(name for name, test in GRANT_KINDS if test(edge))


def privileges_of(edge: Edge) -> tuple[str, ...]:
    """The edge's ``privileges`` (a JSON list), else its qualifier; a label grant grants none."""
    if edge.qualifier == LABEL_QUALIFIER:
        return ()
    raw = edge.properties.get("privileges")
    try:
        names = json.loads(raw) if raw else []
    except ValueError:
        names = [raw]
    names = names if isinstance(names, list) else [names]
    found = {_privilege(n) for n in names if str(n).strip()}
    return tuple(sorted(found or ({_privilege(edge.qualifier)} if edge.qualifier else set())))


def _privilege(name: Any) -> str:
    """One spelling per privilege: ``SELECT`` (DataWorks) and ``odps:Select`` (a RAM policy) are ``select``."""
    text = str(name).strip().lower()
    return next((text[len(p):] for p in PRIVILEGE_PREFIXES if text.startswith(p)), text)


def expiry_of(edge: Edge) -> datetime | None:
    """When the grant ends by itself: the interval's end if it closes by expiry, else a property."""
    if edge.closed_by == "expiry":
        return edge.valid_to
    for key in EXPIRY_PROPERTIES:
        try:
            if value := _time(edge.properties.get(key)):
                return value
        except ValueError:
            continue
    return None


def _label_grant_level(edge: Edge) -> int | None:
    match = re.search(r"\d+", edge.properties.get("label", ""))
    return int(match.group()) if match else None


# --------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _kinds(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(names), key=lambda k: KIND_ORDER.get(k, len(KIND_ORDER))))


@dataclass(frozen=True)
class AccessPath:
    """One way in: the vertex path, its kinds, the privileges it grants, when it ends by itself
    (approvals, label grants) and, for label paths, the level."""

    path: tuple[str, ...]
    kinds: tuple[str, ...]
    privileges: tuple[str, ...] = ()
    expires_at: datetime | None = None
    level: int | None = None
    since: datetime | None = None  # when the last link of the path began (grant, role membership)

    @property
    def reads(self) -> bool:
        return any(k in READ_KINDS for k in self.kinds)

    def to_json(self) -> dict[str, Any]:
        return {"path": list(self.path), "kinds": list(self.kinds), "privileges": list(self.privileges),
                "expires_at": _iso(self.expires_at), "level": self.level}


@dataclass(frozen=True)
class Principal:
    """Someone who can access the target: privileges (union over paths), every path (read paths
    first, shortest first), the kinds, ``expires_at`` when every grant path ends by itself (the
    latest end), ``clearance``: a user's label level for this target (user label or label grant), and
    ``name``: the vertex's name, so that a merged person reads as their login, not their uid."""

    id: str
    label: str
    privileges: tuple[str, ...]
    paths: tuple[tuple[str, ...], ...]
    kinds: tuple[str, ...]
    access: tuple[AccessPath, ...] = ()
    expires_at: datetime | None = None
    clearance: int | None = None
    name: str = ""
    since: datetime | None = None  # the earliest start among its paths (held without a break since then)

    @property
    def reads(self) -> bool:
        """False for a principal who only holds a label grant (a clearance, not a privilege)."""
        return any(a.reads for a in self.access)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "label": self.label, "privileges": list(self.privileges), "path": list(self.paths[0]),
                "paths": [list(p) for p in self.paths], "kinds": list(self.kinds),
                "expires_at": _iso(self.expires_at), "clearance": self.clearance,
                "access": [a.to_json() for a in self.access]}


@dataclass(frozen=True)
class Reachable:
    """Something a principal can read (distance 0, its access kinds and privileges) or a table
    derived from one (kind ``derived``, distance = FEEDS hops); path = principal ... id."""

    id: str
    label: str
    kinds: tuple[str, ...]
    privileges: tuple[str, ...]
    distance: int
    path: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "kinds": list(self.kinds), "privileges": list(self.privileges),
                "distance": self.distance, "path": list(self.path)}


# --------------------------------------------------------------------------------------------
# who can access a target
# --------------------------------------------------------------------------------------------


def _granted_objects(snap: Snapshot, target: str) -> list[tuple[Scope, str]]:
    """(scope, object) for every object whose grants reach the target."""
    found = []
    for scope in SCOPES:
        objects = [target] if scope.relationship is None else sorted({e.dst for e in snap.out(target, scope.relationship)})
        found.extend((scope, obj) for obj in objects)
    return found


def _later(*moments: datetime | None) -> datetime | None:
    known = [m for m in moments if m is not None]
    return max(known) if known else None


def _holders(snap: Snapshot, edge: Edge) -> list[tuple[tuple[str, ...], str, datetime | None]]:
    """(path prefix, holder kind, since) of everyone holding the grant: the grantee, and a role's members."""
    if snap.label(edge.src) != "Role":
        return [((edge.src,), grant_kind(edge), edge.valid_from)]
    members: dict[str, datetime | None] = {}
    for e in sorted(snap.into(edge.src, HAS_ROLE), key=lambda e: (e.src, e.valid_from or datetime.min.replace(tzinfo=timezone.utc))):
        members.setdefault(e.src, _later(e.valid_from, edge.valid_from))
    return [((edge.src,), "role", edge.valid_from)] + [((m, edge.src), "role", since) for m, since in sorted(members.items())]


def _grant_paths(snap: Snapshot, target: str) -> dict[str, list[AccessPath]]:
    """Every grant path to the target per principal (before merging and label clearance)."""
    found: dict[str, list[AccessPath]] = defaultdict(list)
    for scope, obj in _granted_objects(snap, target):
        tail = (target,) if obj == target else (obj, target)
        for prefix, kinds, privileges, expiry, level, since in _grants_on(snap, scope, obj):
            found[prefix[0]].append(AccessPath(prefix + tail, kinds, privileges, expiry, level, since))
    return found


GrantHeld = tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], "datetime | None", "int | None", "datetime | None"]


def _grants_on(snap: Snapshot, scope: Scope, obj: str) -> list[GrantHeld]:
    """(path prefix, kinds, privileges, expiry, label level, since) of every holder of a grant on
    ``obj`` in ``scope``, kept by the snapshot: a project's grants are the same for each of its
    tables, and ``exposure`` asks for the principals of thousands of them."""
    key = (scope.kind, obj)
    held = snap.grants.get(key)
    if held is None:
        held = snap.grants[key] = [
            (prefix, _kinds([kind] + ([scope.kind] if scope.kind else [])), privileges_of(edge), expiry_of(edge),
             _label_grant_level(edge) if kind == "label" else None, since)
            for edge in snap.into(obj, CAN_ACCESS) for prefix, kind, since in _holders(snap, edge)]
    return held


def _merge(paths: Iterable[AccessPath]) -> list[AccessPath]:
    """One AccessPath per (path, kinds): privileges united, the latest expiry (none if any lasts)."""
    grouped: dict[tuple[tuple[str, ...], tuple[str, ...]], list[AccessPath]] = defaultdict(list)
    for p in paths:
        grouped[(p.path, p.kinds)].append(p)
    merged = []
    for (path, kinds), group in grouped.items():
        ends = [p.expires_at for p in group]
        levels = [p.level for p in group if p.level is not None]
        starts = [p.since for p in group if p.since is not None]
        merged.append(AccessPath(path, kinds, tuple(sorted({x for p in group for x in p.privileges})),
                                 None if None in ends else max(ends), max(levels) if levels else None,
                                 min(starts) if starts else None))
    return sorted(merged, key=lambda p: (not p.reads, len(p.path), p.path, p.kinds))


def _principal(snap: Snapshot, pid: str, target: str, grants: list[AccessPath], level: int | None) -> Principal:
    paths = _merge(grants)
    ends = [p.expires_at for p in paths]
    expires_at = None if None in ends or not ends else max(ends)
    clearance = None
    if snap.label(pid) == "User":
        cleared = user_clearance(snap, pid)
        granted = [p.level for p in paths if p.level is not None]
        levels = ([cleared[0]] if cleared else []) + granted
        clearance = max(levels) if levels else None
        if cleared and level is not None and cleared[0] >= level and any(p.reads for p in paths):
            paths = _merge(paths + [AccessPath((pid, cleared[1], target), ("label",), level=cleared[0])])
    return Principal(
        pid, snap.label(pid), tuple(sorted({x for p in paths for x in p.privileges})),
        tuple(dict.fromkeys(p.path for p in paths)), _kinds(k for p in paths for k in p.kinds),
        tuple(paths), expires_at, clearance, snap.name(pid), _earliest(paths),
    )


def _earliest(paths: Iterable[AccessPath]) -> datetime | None:
    starts = [p.since for p in paths if p.since is not None]
    return min(starts) if starts else None


def near_target(target: str, edges: "pa.Table", admin_roles: Callable[[str], Iterable[str]]) -> dict[str, set[str]]:
    """What :func:`principals_at` and the ownership of ``target`` can walk, at any time, found on
    the ``src``, ``relationship`` and ``dst`` columns of the access edges: per relationship, the ids
    whose edges of it they read (``load_rows(near=...)``). The target's scopes (its projects, its
    columns), the grants into those, the members of the roles holding them or administering its
    projects (``admin_roles`` of a project: :func:`lineage.analysis.ownership.admin_roles`), and the
    labels of the target, its columns and those principals. At 10^6 events a table's are a few
    dozen of the 55,000 access edges ``access`` turned into Python rows."""
    from_target = among(edges, "src", [target])
    projects = ends_where(edges, "dst", [IN_PROJECT], from_target) | ({target} if ids.label_of(target) == "Project" else set())
    objects = {target} | projects | ends_where(edges, "dst", [HAS_COLUMN], from_target)
    grantees = ends_where(edges, "src", [CAN_ACCESS], among(edges, "dst", objects))
    roles = grantees | {role for project in projects for role in admin_roles(project)}
    members = ends_where(edges, "src", [HAS_ROLE], among(edges, "dst", roles))
    return {CAN_ACCESS: objects, HAS_ROLE: roles, IN_PROJECT: {target}, HAS_COLUMN: {target}, "OWNS": {target},
            HAS_LABEL: objects | grantees | members}


def principals_at(snap: Snapshot, target: str, include_roles: bool = False) -> dict[str, Principal]:
    """Every principal of the target in this snapshot, by id (see :func:`who_can_access`)."""
    if not snap.exists(target):
        return {}
    level = table_level(snap, target)
    found = {pid: _principal(snap, pid, target, grants, level) for pid, grants in _grant_paths(snap, target).items()}
    return {pid: p for pid, p in sorted(found.items()) if include_roles or p.label != "Role"}


def who_can_access(
    vertices: Sequence[Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
    target: str,
    as_of: Any = None,
    *,
    include_roles: bool = False,
) -> list[Principal]:
    """Every principal (users; roles too with ``include_roles``) with a way into ``target`` as of a
    time (None: now), sorted by id. A deleted or unknown target has none.

    Kinds are :data:`ACCESS_KINDS`; the **label rule** (MaxCompute LabelSecurity): the target's
    level is the highest ``HAS_LABEL`` on it or its columns. A user gets a ``label`` path
    ``[user, label:maxcompute:<n>, target]`` when their own label (``HAS_LABEL``) is at or above
    that level *and* they hold a read path (a label is a clearance, never access on its own).
    A GrantLabel (``CAN_ACCESS`` qualifier ``label``) is reported as a ``label`` path
    ``[user, target]`` with its level and no privileges, even without a read path (then
    ``Principal.reads`` is False). ``clearance`` = max(user label, label grants on the target).
    """
    return list(principals_at(snapshot(vertices, edges, as_of), target, include_roles).values())


# --------------------------------------------------------------------------------------------
# what a principal can reach
# --------------------------------------------------------------------------------------------


def feeds_downstream(
    snap: Snapshot, sources: Iterable[str], blocked: frozenset[str] | set[str] = frozenset()
) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Tables reachable forward along FEEDS from ``sources`` (not listed themselves), never
    entering a ``blocked`` one: id -> (hops, one shortest path from a source). Breadth first,
    sources and neighbours in id order, so the witness path is deterministic; cycles end."""
    starts = sorted(set(sources))
    seen: dict[str, tuple[int, tuple[str, ...]]] = {}
    visited = set(starts)
    queue = deque((s, (s,)) for s in starts)
    while queue:
        current, path = queue.popleft()
        for nxt in sorted({e.dst for e in snap.out(current, FEEDS)}):
            if nxt in visited or nxt in blocked:
                continue
            visited.add(nxt)
            seen[nxt] = (len(path), path + (nxt,))
            queue.append((nxt, path + (nxt,)))
    return seen


def _candidates(snap: Snapshot, principal: str) -> set[str]:
    """What the principal's grants (own or its roles') are on, plus the tables they cover."""
    holders = [principal] + [e.dst for e in snap.out(principal, HAS_ROLE)]
    objects = {e.dst for h in holders for e in snap.out(h, CAN_ACCESS)}
    covered = {e.src for o in objects for rel in (IN_PROJECT, HAS_COLUMN) for e in snap.into(o, rel)
               if snap.label(e.src) == "Table"}
    return {c for c in objects | covered if snap.exists(c)}


def reachable_at(snap: Snapshot, principal: str, include_derived: bool = True) -> list[Reachable]:
    readable: dict[str, Reachable] = {}
    for candidate in sorted(_candidates(snap, principal)):
        found = principals_at(snap, candidate, include_roles=True).get(principal)
        if found and found.reads:
            readable[candidate] = Reachable(candidate, snap.label(candidate), found.kinds, found.privileges, 0,
                                            found.paths[0])
    derived = []
    if include_derived:
        tables = [r.id for r in readable.values() if r.label == "Table"]
        for table, (hops, path) in feeds_downstream(snap, tables).items():
            if table not in readable:
                derived.append(Reachable(table, snap.label(table), (DERIVED,), (), hops,
                                         readable[path[0]].path + path[1:]))
    return sorted([*readable.values(), *derived], key=lambda r: (r.distance, r.id))


def reachable_by(
    vertices: Sequence[Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
    principal: str,
    as_of: Any = None,
    include_derived: bool = True,
) -> list[Reachable]:
    """Everything ``principal`` can read as of a time (distance 0, the same answer
    :func:`who_can_access` gives per object: label-only grants are not reads) and, with
    ``include_derived``, every table derived from a readable table along FEEDS (kind
    ``derived``, distance = hops, path = access path + FEEDS path). Sorted by (distance, id)."""
    return reachable_at(snapshot(vertices, edges, as_of), principal, include_derived)
