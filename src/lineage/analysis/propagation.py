"""Sensitive-tag propagation along lineage, and who is exposed by it (Atlas-style).

Like Apache Atlas classification propagation, a sensitive mark on a table flows to every table
derived from it (``FEEDS``, forward, any number of hops, cycles end), as of one instant.

* **Sensitive marks** (:class:`~lineage.analysis.sensitivity.Sensitivity`, configurable): a
  DataHub tag (``TAGGED`` -> ``tag:datahub:<Name>``) whose name has a word PII / Sensitive /
  Confidential / Restricted (case-insensitive; words split at non-letters and camelCase, so
  ``pii_email`` and ``HighlySensitive`` count), and every MaxCompute label (``HAS_LABEL`` ->
  ``label:maxcompute:<n>``) of level >= 2. A table carries a mark when it or one of its columns
  (``HAS_COLUMN``) has it; the tag's id (or the label's id) names the mark.
* **Column marks** (issue 32): a mark on a column (and not on its table) flows along *direct*
  column ``FEEDS`` only -- an indirect read (join, filter) carries no values -- to the tables of
  the columns it reaches (``Propagated.columns`` names them); out of a table whose FEEDS no
  complete column lineage covers (a partial or non-SQL job) it goes on as a whole-table mark
  (``lineage.analysis.columns.spread``). A mark on the table itself flows as before.
* **Stop rule**: a table tagged ``propagation:stop`` or ``NoPropagation`` (case-insensitive,
  table-level tag) or with the vertex property ``propagate=false`` blocks propagation: it does
  not receive propagated marks and passes none on, not even its own (Atlas blocks per entity;
  we chose the strict reading, so a stop table is a deliberate boundary, e.g. an anonymising step).
* A table never receives a mark it carries itself; a propagated label is also dropped where the
  table's own label level (table or columns) is at or above it.

**Exposure** (:func:`exposure`): a principal who can read (a read path of
``access.who_can_access``) a table carrying a *propagated* mark, but who, at that instant, has
no read path to any origin of the mark, and, for a label, whose clearance (user label, or a
label grant on an origin) is below the level.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from lineage import ids
from lineage.analysis.columns import spread as column_spread
from lineage.analysis.access import RELATIONSHIPS as ACCESS_RELATIONSHIPS
from lineage.analysis.access import (
    HAS_LABEL,
    NEVER_ON_A_PATH,
    Principal,
    Snapshot,
    columns_of,
    feeds_downstream,
    label_level,
    principals_at,
    snapshot,
    user_clearance,
)
from lineage.analysis.sensitivity import DEFAULT_SENSITIVITY, Sensitivity

TAGGED = "TAGGED"
RELATIONSHIPS = (ACCESS_RELATIONSHIPS - {"OWNS"}) | {TAGGED}
"""What the exposure question walks: the access paths, the marks and the FEEDS they flow along.
Not ``OWNS``: metadata ownership grants nothing (``lineage access`` lists it apart), and at 10^6
events its 11,682 edges were a sixth of what exposure read."""


@dataclass(frozen=True)
class Mark:
    """A sensitive tag or label a table carries: its vertex id, name, kind and (labels) level."""

    tag: str
    name: str
    kind: str  # "tag" | "label"
    level: int | None = None


MARK_SOURCES: tuple[tuple[str, str], ...] = (("tag", TAGGED), ("label", HAS_LABEL))
"""Which relationship carries which kind of mark."""


def _mark(snap: Snapshot, kind: str, vertex: str, sensitivity: Sensitivity) -> Mark | None:
    if kind == "tag":
        name = ids.key_of(vertex)
        return Mark(vertex, name, kind) if sensitivity.sensitive_tag(name) else None
    level = label_level(snap, vertex)
    return Mark(vertex, f"label {level}", kind, level) if sensitivity.sensitive_level(level) else None


def carried(snap: Snapshot, table: str, sensitivity: Sensitivity = DEFAULT_SENSITIVITY) -> dict[str, Mark]:
    """The sensitive marks a table carries itself (on the table or one of its columns)."""
    found = {}
    for holder in [table, *columns_of(snap, table)]:
        found.update(marks_on(snap, holder, sensitivity))
    return found


def marks_on(snap: Snapshot, holder: str, sensitivity: Sensitivity = DEFAULT_SENSITIVITY) -> dict[str, Mark]:
    """The sensitive marks on one table or column itself."""
    found = {}
    for kind, relationship in MARK_SOURCES:
        for edge in snap.out(holder, relationship):
            if mark := _mark(snap, kind, edge.dst, sensitivity):
                found[mark.tag] = mark
    return found


def stops(snap: Snapshot, table: str, sensitivity: Sensitivity = DEFAULT_SENSITIVITY) -> bool:
    """The stop rule: a stop tag on the table, or its ``propagate=false`` property."""
    key, value = sensitivity.stop_property
    if snap.properties.get(table, {}).get(key, "").strip().lower() == value:
        return True
    return any(ids.key_of(e.dst).lower() in sensitivity.stop_tags for e in snap.out(table, TAGGED))


def _covered(own: Mapping[str, Mark], mark: Mark) -> bool:
    """The table has the mark itself (or, for a label, one of at least that level)."""
    if mark.tag in own:
        return True
    return mark.kind == "label" and any(m.kind == "label" and (m.level or 0) >= (mark.level or 0) for m in own.values())


@dataclass(frozen=True)
class Propagated:
    """A mark that reached ``table`` from ``origins`` (tables carrying it); ``distance`` and
    ``path`` (origin ... table) are the shortest, from the first origin at that distance."""

    table: str
    tag: str
    name: str
    kind: str
    level: int | None
    origins: tuple[str, ...]
    distance: int
    path: tuple[str, ...]
    columns: tuple[str, ...] = ()  # the table's columns the values reach (none: the whole table)

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "tag": self.tag, "name": self.name, "kind": self.kind, "level": self.level,
                "origins": list(self.origins), "distance": self.distance, "path": list(self.path),
                "columns": list(self.columns)}


def _tables(snap: Snapshot) -> list[str]:
    """Tables that exist in the snapshot (vertices and edge ends)."""
    return sorted(v for v, label in snap.labels.items() if label == "Table" and snap.exists(v))


def _wanted(mark: Mark, tags: Collection[str] | None) -> bool:
    """``tags`` filter: a mark's id or name, case-insensitive."""
    return tags is None or bool({mark.tag.lower(), mark.name.lower()} & {t.lower() for t in tags})


def propagated_at(
    snap: Snapshot, sensitivity: Sensitivity = DEFAULT_SENSITIVITY, tags: Collection[str] | None = None
) -> list[Propagated]:
    tables = _tables(snap)
    own = {t: carried(snap, t, sensitivity) for t in tables}
    blocked = frozenset(t for t in tables if stops(snap, t, sensitivity))
    # (table, tag) -> [(distance, origin, path, columns)]; one breadth-first walk per origin table:
    # a table's own marks along table FEEDS, a column's along its direct column FEEDS
    # (lineage.analysis.columns.spread, whole tables where column lineage is partial)
    reached: dict[tuple[str, str], list[tuple[int, str, tuple[str, ...], tuple[str, ...]]]] = defaultdict(list)
    marks: dict[str, Mark] = {}
    for origin in tables:
        if origin in blocked or not own[origin]:
            continue
        on_table = marks_on(snap, origin, sensitivity)
        downstream = feeds_downstream(snap, [origin], blocked) if on_table else {}
        holders: dict[str, list[str]] = defaultdict(list)
        for column in columns_of(snap, origin):
            for tag in marks_on(snap, column, sensitivity):
                holders[tag].append(column)
        for mark in own[origin].values():
            if not _wanted(mark, tags):
                continue
            marks[mark.tag] = mark
            flows = ({t: (hops, path, ()) for t, (hops, path) in downstream.items()} if mark.tag in on_table
                     else column_spread(snap, origin, holders[mark.tag], blocked))
            for table, (hops, path, columns) in flows.items():
                if not _covered(own.get(table, {}), mark):
                    reached[(table, mark.tag)].append((hops, origin, path, columns))
    result = []
    for (table, tag), hits in sorted(reached.items()):
        hops, _origin, path, _ = min(hits)
        mark = marks[tag]
        columns = () if any(not c for *_, c in hits) else tuple(sorted({x for *_, c in hits for x in c}))
        result.append(Propagated(table, tag, mark.name, mark.kind, mark.level,
                                 tuple(sorted({h[1] for h in hits})), hops, path, columns))
    return result


def propagate(
    vertices: Sequence[Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
    as_of: Any = None,
    *,
    sensitivity: Sensitivity = DEFAULT_SENSITIVITY,
    tags: Collection[str] | None = None,
) -> list[Propagated]:
    """Per table, the sensitive marks it receives from upstream (not those it carries), as of
    a time (None: now), sorted by (table, tag); ``tags`` keeps only those ids or names."""
    return propagated_at(snapshot(vertices, edges, as_of), sensitivity, tags)


@dataclass(frozen=True)
class Exposure:
    """``principal`` reads ``table`` (``access_path``, ``privileges``) which carries ``tag``
    propagated from ``origin`` (``path``: origin ... table), without being cleared at any origin."""

    principal: str
    principal_label: str
    table: str
    tag: str
    name: str
    level: int | None
    origin: str
    origins: tuple[str, ...]
    path: tuple[str, ...]
    access_path: tuple[str, ...]
    privileges: tuple[str, ...]
    kinds: tuple[str, ...]
    columns: tuple[str, ...] = ()  # the table's columns carrying the mark (none: the whole table)
    marks: tuple[str, ...] = ()  # the names of every mark (tag or label) reached on the table; ``tag`` is the first

    def to_json(self) -> dict[str, Any]:
        return {"principal": self.principal, "principal_label": self.principal_label, "table": self.table,
                "tag": self.tag, "name": self.name, "level": self.level, "origin": self.origin,
                "origins": list(self.origins), "path": list(self.path), "access_path": list(self.access_path),
                "privileges": list(self.privileges), "kinds": list(self.kinds), "columns": list(self.columns),
                "marks": list(self.marks or (self.name,))}


def _cleared(snap: Snapshot, principal: str, item: Propagated, at_origins: list[dict[str, Principal]]) -> bool:
    """Cleared at the source: reads an origin, or (labels) is cleared for the level anyway."""
    if any((p := origin.get(principal)) is not None and p.reads for origin in at_origins):
        return True
    if item.kind != "label":
        return False
    own = user_clearance(snap, principal)
    levels = [own[0]] if own else []
    levels += [p.clearance for origin in at_origins if (p := origin.get(principal)) and p.clearance is not None]
    return bool(levels) and max(levels) >= (item.level or 0)


def exposure_at(
    snap: Snapshot, sensitivity: Sensitivity = DEFAULT_SENSITIVITY, tags: Collection[str] | None = None
) -> list[Exposure]:
    found = []
    cache: dict[str, dict[str, Principal]] = {}

    def principals(target: str) -> dict[str, Principal]:
        if target not in cache:
            cache[target] = principals_at(snap, target)
        return cache[target]

    for item in propagated_at(snap, sensitivity, tags):
        at_origins = [principals(o) for o in item.origins]
        for pid, principal in principals(item.table).items():
            if principal.reads and not _cleared(snap, pid, item, at_origins):
                found.append(Exposure(pid, principal.label, item.table, item.tag, item.name, item.level, item.path[0],
                                      item.origins, item.path, principal.paths[0], principal.privileges,
                                      principal.kinds, item.columns))
    return by_pair(found)


def by_pair(found: Iterable[Exposure]) -> list[Exposure]:
    """One exposure per (principal, table), its marks listed inside (``marks``): a table carrying
    PII both as a tag and as a label exposes its reader once. The first mark (by tag) names it;
    the columns are all those any mark is on."""
    pairs: dict[tuple[str, str], list[Exposure]] = {}
    for e in sorted(found, key=lambda e: (e.principal, e.table, e.tag)):
        pairs.setdefault((e.principal, e.table), []).append(e)
    out = []
    for rows in pairs.values():
        columns = tuple(sorted({c for e in rows for c in e.columns})) if all(e.columns for e in rows) else ()
        out.append(replace(rows[0], columns=columns, marks=tuple(e.name for e in rows)))
    return out


def columns_read(edges: Any) -> dict[str, set[str]]:
    """The column-level part of a graph exposure walks, found on the ``src``, ``relationship`` and
    ``dst`` of ``edges`` (an Arrow table of its relationships' rows), as ``load_rows(near=...)``: of
    HAS_COLUMN, the edges of the columns a mark or a grant is on and of those a marked column's
    values can reach; of FEEDS, the tables' and those out of such columns. A superset (any time, any
    kind of column FEEDS) that the snapshot narrows: a platform's other column FEEDS and HAS_COLUMN
    were 79% of the rows exposure read at 10^6 events, and no walk of it starts from an unmarked column."""
    import pyarrow.compute as pc

    from lineage.analysis.access import CAN_ACCESS, FEEDS, HAS_COLUMN
    from lineage.graph.api import among, ends_where

    marks = {r for _, r in MARK_SOURCES}
    column = f"{ids.LABELS['Column']}:"
    from_column, to_column = (pc.starts_with(edges.column(end), column) for end in ("src", "dst"))
    marked = ends_where(edges, "src", marks, from_column)
    granted = ends_where(edges, "dst", [CAN_ACCESS], to_column)
    tables = ends_where(edges, "src", [FEEDS], pc.invert(from_column)) | ends_where(edges, "dst", [FEEDS], pc.invert(from_column))
    reached, frontier = set(marked), set(marked)
    while frontier:  # along column FEEDS from the marked columns
        frontier = ends_where(edges, "dst", [FEEDS], from_column, among(edges, "src", frontier)) - reached
        reached |= frontier
    return {HAS_COLUMN: reached | granted, FEEDS: reached | tables}


PART = {"relationships": RELATIONSHIPS, "without": NEVER_ON_A_PATH, "near": columns_read}
"""The part of the graph :func:`exposure` reads (``graph.api.load_tables``' arguments): tables,
columns and principals only, and of the columns, those a mark or grant names. The same at every
moment, so the build stores it in the question index (``graph.index.EXPOSURE``)."""


def exposure_part(vertices: Any, edges: Any) -> tuple[Any, Any]:
    """The vertices and edges :func:`exposure` reads (:data:`PART`), found in the parquet datasets
    ``vertices`` and ``edges`` as the question would find them; the build stores them in the index."""
    from lineage.graph.api import part_tables

    found = part_tables(vertices, edges, **PART)
    return found[0].combine_chunks(), found[1].combine_chunks()


def exposure(
    vertices: Sequence[Mapping[str, Any]],
    edges: Sequence[Mapping[str, Any]],
    as_of: Any = None,
    tags: Collection[str] | None = None,
    *,
    sensitivity: Sensitivity = DEFAULT_SENSITIVITY,
    relationships: Collection[str] | None = None,
    properties: Mapping[str, Mapping[str, str]] | None = None,
) -> list[Exposure]:
    """Who can read data carrying a propagated sensitive mark they were not cleared for at its
    origin, as of a time (None: now); sorted by (principal, table, tag). See the module doc.
    ``relationships``: the rows are only those (:data:`RELATIONSHIPS`), and only those are walked.
    ``properties``: of vertices the rows may lack, looked up when met (the jobs FEEDS came through)."""
    return exposure_at(snapshot(vertices, edges, as_of, relationships, properties), sensitivity, tags)

