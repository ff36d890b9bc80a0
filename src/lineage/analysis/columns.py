"""Column-precise impact (issue 32 part 4): a column change reaches who reads that column.

Pure functions over a :class:`~lineage.analysis.access.Snapshot` (the rows of ``FEEDS``,
``HAS_COLUMN``, ``READS``, ``WRITES``, ``OWNS`` and the Job vertices' ``column_lineage``), so
either engine's rows give one answer. From the changed columns:

1. column ``FEEDS`` forward, ``direct`` only (``indirect=True`` adds the ``indirect`` ones --
   joins, filters, windows --, each column reached only through one marked ``indirect``);
2. the tables of those columns (``HAS_COLUMN``), then the jobs and nodes that read them
   (``READS``) as of the moment;
3. a reading Job whose column lineage is not ``complete`` (partial, or a job without SQL) may read
   the column unseen: its written tables are affected as a whole, marked ``fallback``, and
   table-level impact goes on from them (``IMPACT_RULES``, walked by the engine: :func:`merge`);
4. the owners (``OWNS``) of everything reached.

Upstream is the mirror: column ``FEEDS`` backward, their tables, the jobs that write them; a
writing job whose column lineage is not complete falls back to the tables it reads.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import Any, Collection, Iterable, Mapping, Sequence

from lineage import ids
from lineage.analysis.access import Edge, Snapshot, Timeline
from lineage.analysis.engine import Affected, Query, UnknownIds, query_of
from lineage.graph.api import collector_paused

FEEDS, HAS_COLUMN, READS, WRITES, OWNS = "FEEDS", "HAS_COLUMN", "READS", "WRITES", "OWNS"
RELATIONSHIPS = (FEEDS, HAS_COLUMN, READS, WRITES, OWNS)
"""The edge rows a column answer reads (:func:`timeline`)."""
DIRECT, INDIRECT = "direct", "indirect"
COMPLETE = "complete"
COLUMN_KINDS = frozenset({"field_removal", "column_type_change"})
"""Kinds whose change names its columns (``lineage.analysis.categories`` decides how any schema
change is answered)."""


@dataclass(frozen=True)
class Reached:
    """One vertex of a column answer: hop distance and witness path from a changed column;
    ``indirect``: reached only through an indirect column FEEDS; ``fallback``: reached only
    through a job whose column lineage is partial (the job's whole output table)."""

    id: str
    label: str
    distance: int
    path: tuple[str, ...]
    indirect: bool = False
    fallback: bool = False

    def affected(self) -> Affected:
        return Affected(self.id, self.label, self.distance, self.path, table_level=self.fallback)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "distance": self.distance, "path": list(self.path),
                "indirect": self.indirect, "fallback": self.fallback}


def timeline(vertices: Iterable[Mapping[str, Any]], edges: Iterable[Mapping[str, Any]]) -> Timeline:
    """The rows a column answer needs, indexed once (every vertex; the edges of ``RELATIONSHIPS``)."""
    return Timeline(vertices, (e for e in edges if e.get("relationship") in RELATIONSHIPS))


LINEAGE_PROPERTY = "column_lineage"
ORDER_PROPERTY = "column_order"  # the tables a job takes by column position (lineage.sql.positional)
NODE_PROPERTY = "node"  # the DataWorks node that ran a job (lineage.graph.links)
ROW_PROPERTIES = (LINEAGE_PROPERTY, ORDER_PROPERTY, NODE_PROPERTY)
"""The vertex properties a column answer reads (a job's column lineage is ``complete`` or not, what
it takes by position, its node): the column rows leave out every other (a platform's job SQL and
run times: gigabytes as dicts)."""


def _with_properties(row: dict[str, Any]) -> dict[str, Any]:
    values = {key: row.pop(key, None) for key in ROW_PROPERTIES}
    row["properties"] = {k: v for k, v in values.items() if v is not None}
    return row


def columns_of_change(change: Mapping[str, Any]) -> list[str]:
    """The columns a field removal or type change names: the column itself (a type change on a
    Column), ``columns`` (MaxCompute DDL, a list or its JSON) or ``field_path`` (DataHub)."""
    entity = change["entity_id"]
    if ids.label_of(entity) == "Column":
        return [entity]
    props = change.get("properties") or {}
    if isinstance(props, list):
        props = dict(props)
    named: list[str] = []
    raw = props.get("columns")
    if raw:
        try:
            named = list(json.loads(raw)) if isinstance(raw, str) else list(raw)
        except ValueError:
            named = [c.strip() for c in str(raw).split(",") if c.strip()]
    if props.get("field_path"):
        named.append(props["field_path"])
    return sorted({ids.column(entity, name) for name in named})


def known_columns(snap: Snapshot, change: Mapping[str, Any]) -> list[str]:
    """The columns a column change names that the graph knows at ``snap`` (none: the change is
    scored table-level)."""
    return [c for c in columns_of_change(change) if snap.exists(c) and snap.label(c) == "Column"]


def _own_table(change: Mapping[str, Any]) -> list[str]:
    return [change["entity_id"]] if change["entity_label"] == "Table" else []


def column_paths(snap: Snapshot, change: Mapping[str, Any], limit: int = 3) -> list[tuple[str, ...]]:
    """The column paths of a column change (one instant before it: ``snap``) to the nearest
    tables that read the changed columns along direct column FEEDS (:func:`reach`; fallback
    tables have no column path), at most ``limit``, nearest first (then by table id)."""
    named = known_columns(snap, change)
    if not named:
        return []
    reached, _ = reach(snap, named, tables=_own_table(change))
    tables = [r for r in reached if r.label == "Table" and not r.fallback and not r.indirect
              and r.id != change["entity_id"]]
    return [tuple(v for v in r.path if snap.label(v) == "Column") for r in tables[:limit]]


def column_name(snap: Snapshot, column: str) -> str:
    """``table.column`` (the table's own name, without its project), for a column path."""
    key = ids.key_of(column)
    for table in _table_of(snap, column):
        prefix = ids.key_of(table)
        if key.startswith(prefix + "."):
            return f"{prefix.rsplit('.', 1)[-1]}.{key[len(prefix) + 1:]}"
    return ".".join(key.split(".")[-2:])


def _complete(snap: Snapshot, job: str) -> bool:
    return snap.properties.get(job, {}).get("column_lineage") == COMPLETE


def _listed(value: Any) -> list[str]:
    """A JSON list property (``via``, ``column_order``) as a list; none when absent or damaged."""
    try:
        found = json.loads(value) if isinstance(value, str) else list(value or ())
    except ValueError:
        return []
    return [str(v) for v in found] if isinstance(found, list) else []


def _definition(snap: Snapshot, reader: str) -> str:
    """What a reader runs as: a job run's DataWorks node (``lineage.graph.links``), else itself."""
    return snap.properties.get(reader, {}).get(NODE_PROPERTY) or reader


def _readers_of(snap: Snapshot, columns: Iterable[str]) -> set[str]:
    """The definitions a column FEEDS out of ``columns`` came through (its ``via``): who reads them."""
    return {d for c in columns for e in snap.out(c, FEEDS) if e.qualifier for d in _listed(e.properties.get("via"))}


READ, NOT_READ, UNKNOWN = "read", "not_read", "unknown"


def use_of(snap: Snapshot, reader: str, reading: Collection[str], others: Collection[str]) -> str:
    """Whether ``reader`` (a job run or a definition reading a table) reads the columns a change
    reached there: ``read`` when a column FEEDS out of one came through it or its node (``reading``:
    :func:`_readers_of` those columns); ``not_read`` when its column use of the table is known
    otherwise (a job of complete column lineage; a node a FEEDS out of another of the table's
    columns came through: ``others``); else ``unknown`` (unparsed SQL, a non-SQL node, a query
    writing nothing), which a column change reaches at table level."""
    definition = _definition(snap, reader)
    if reader in reading or definition in reading:
        return READ
    if snap.label(reader) == "Job":
        return NOT_READ if _complete(snap, reader) else UNKNOWN
    return NOT_READ if definition in others else UNKNOWN


def _uses(snap: Snapshot, table: str, columns: Collection[str]) -> tuple[set[str], set[str]]:
    """(who reads ``columns`` of ``table``, who reads its other columns): :func:`use_of`'s sets."""
    others = {e.dst for e in snap.out(table, HAS_COLUMN)} - set(columns)
    return _readers_of(snap, columns), _readers_of(snap, others)


def _columns(snap: Snapshot, sources: Sequence[str], qualifiers: frozenset[str], forward: bool) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Columns reachable along column FEEDS of ``qualifiers`` (breadth first, ids in order)."""
    found: dict[str, tuple[int, tuple[str, ...]]] = {s: (0, (s,)) for s in sorted(set(sources))}
    queue = deque(sorted(found))
    while queue:
        current = queue.popleft()
        dist, path = found[current]
        steps = snap.out(current, FEEDS) if forward else snap.into(current, FEEDS)
        for nxt in sorted({(e.dst if forward else e.src) for e in steps if e.qualifier in qualifiers}):
            if nxt not in found and snap.label(nxt) == "Column":
                found[nxt] = (dist + 1, path + (nxt,))
                queue.append(nxt)
    return found


def reach(snap: Snapshot, sources: Sequence[str], *, indirect: bool = False, downstream: bool = True,
          tables: Sequence[str] = ()) -> tuple[list[Reached], list[Reached]]:
    """(what the columns reach, the fallback tables): sources not listed; the fallback tables are
    listed in the first list too, and are where table-level impact goes on (:func:`merge`).
    ``tables``: the sources' own tables when the graph may not say (a change names its table)."""
    direct = _columns(snap, sources, frozenset({DIRECT}), downstream)
    every = _columns(snap, sources, frozenset({DIRECT, INDIRECT}), downstream) if indirect else direct
    best: dict[str, Reached] = {}

    def add(vid: str, dist: int, path: tuple[str, ...], marked: bool, fallback: bool = False) -> bool:
        old = best.get(vid)
        key = (fallback, marked, dist, path)
        if old is None or key < (old.fallback, old.indirect, old.distance, old.path):
            best[vid] = Reached(vid, snap.label(vid), dist, path, marked, fallback)
            return True
        return False

    columns_at: dict[str, set[str]] = {}  # each table's columns the walk reached: whose readers it reaches
    for col, (dist, path) in every.items():
        marked = col not in direct
        dist, path = direct.get(col, (dist, path))
        if dist:
            add(col, dist, path, marked)
        for table in _table_of(snap, col):
            add(table, dist + 1, path + (table,), marked)
            columns_at.setdefault(table, set()).add(col)
    first = sorted(sources)[0] if sources else None
    for table in tables if first else ():
        add(table, 1, (first, table), False)
        columns_at.setdefault(table, set()).update(sources)
    tables = [r for r in best.values() if r.label != "Column"]
    fallback: list[Reached] = []
    uses: dict[str, tuple[set[str], set[str]]] = {}
    for table in sorted(tables, key=lambda r: (r.distance, r.id)):
        runs = snap.into(table.id, READS if downstream else WRITES)
        for job in sorted({e.src for e in runs}):
            # downstream, a reader of none of the table's reached columns is not reached (issue 68)
            if downstream and table.id not in uses:
                uses[table.id] = _uses(snap, table.id, columns_at.get(table.id, ()))
            use = use_of(snap, job, *uses[table.id]) if downstream else READ
            if use == NOT_READ:
                continue
            add(job, table.distance + 1, table.path + (job,), table.indirect, use == UNKNOWN)
            if use == READ and (snap.label(job) != "Job" or _complete(snap, job)):
                continue
            for e in sorted(snap.out(job, WRITES if downstream else READS), key=lambda e: e.dst):
                if add(e.dst, table.distance + 2, table.path + (job, e.dst), table.indirect, True):
                    fallback.append(best[e.dst])
    for r in sorted(list(best.values()), key=lambda r: (r.distance, r.id)):
        for e in snap.into(r.id, OWNS):
            add(e.src, r.distance + 1, r.path + (e.src,), r.indirect, r.fallback)
    for s in sources:
        best.pop(s, None)
    if downstream:  # a run is walked through, never affected (lineage.ids.RUN_PREFIXES)
        best = {vid: r for vid, r in best.items() if not ids.is_run(vid)}
    ordered = sorted(best.values(), key=lambda r: (r.distance, r.id))
    fallback = [best[f.id] for f in fallback if f.id in best and best[f.id].fallback]
    return ordered, sorted({r.id: r for r in fallback}.values(), key=lambda r: (r.distance, r.id))


def merge(reached: Sequence[Reached], walks: Mapping[str, Sequence[Affected]], sources: Sequence[str] = ()) -> list[Reached]:
    """The column answer with the table-level walks from its fallback tables (``walks``: fallback
    table id -> what an engine's walk reached from it), each walked vertex at the fallback
    table's distance plus its own, marked ``fallback`` unless the columns reached it themselves."""
    best = {r.id: r for r in reached}
    for r in reached:
        for a in walks.get(r.id, ()):
            if a.id in sources:
                continue
            candidate = Reached(a.id, a.label, r.distance + a.distance, r.path + tuple(a.path[1:]), r.indirect, True)
            old = best.get(a.id)
            if old is None or (old.fallback and (candidate.distance, candidate.path) < (old.distance, old.path)):
                best[a.id] = candidate
    return sorted(best.values(), key=lambda r: (r.distance, r.id))


def answer(snap: Snapshot, sources: Sequence[str], engine: Any, *, indirect: bool = False, downstream: bool = True,
           max_depth: int | None = None) -> list[Reached]:
    """The whole column answer on one engine (``Engine.reach`` walks on from each fallback table)."""
    from lineage.analysis.rules import IMPACT_RULES, UPSTREAM_RULES

    reached, fallback = reach(snap, sources, indirect=indirect, downstream=downstream)
    rules = IMPACT_RULES if downstream else UPSTREAM_RULES
    walks = {f.id: engine.reach([f.id], rules=rules, max_depth=max_depth, runs=not downstream) for f in fallback}
    found = merge(reached, walks, sources)
    return [r for r in found if max_depth is None or r.distance <= max_depth]


def additive(snap: Snapshot, table: str) -> list[Reached]:
    """What a column added to ``table`` reaches (``lineage.analysis.categories``): the definitions
    that take it by column position (a job run's ``column_order`` names it: ``SELECT *`` over it, an
    ``INSERT`` into it without a column list; a run's node, an ad-hoc run's author), those reading or
    writing it whose column use is unknown (marked table-level), and the owners of all and of the
    table. Nothing further: a reader naming its columns reads the same; one that breaks is told."""
    best: dict[str, Reached] = {}

    def add(vid: str, dist: int, path: tuple[str, ...], table_level: bool) -> None:
        old = best.get(vid)
        if old is None or (table_level, dist, path) < (old.fallback, old.distance, old.path):
            best[vid] = Reached(vid, snap.label(vid), dist, path, False, table_level)

    runs = {e.src for rel in (READS, WRITES) for e in snap.into(table, rel)}
    hit, known, unknown = set(), set(), set()
    for reader in sorted(runs):
        if snap.label(reader) != "Job":
            unknown.add(reader)  # a node: its runs say, below; else its column use is unknown
            continue
        definition = _definition(snap, reader)
        if table in {ids.table_from_qualified(t) if ":" not in t else t
                     for t in _listed(snap.properties.get(reader, {}).get(ORDER_PROPERTY))}:
            hit.add(definition)
        elif _complete(snap, reader):
            known.add(definition)
        else:
            unknown.add(definition)
    for vid in sorted(hit):
        add(vid, 1, (table, vid), False)
    for vid in sorted(unknown - hit - known):
        add(vid, 1, (table, vid), True)
    for r in sorted(list(best.values()), key=lambda r: (r.distance, r.id)):
        for e in snap.into(r.id, OWNS):
            add(e.src, r.distance + 1, r.path + (e.src,), r.fallback)
    for e in snap.into(table, OWNS):
        add(e.src, 1, (table, e.src), False)
    best.pop(table, None)
    return sorted((r for vid, r in best.items() if not ids.is_run(vid)), key=lambda r: (r.distance, r.id))


def breaks(changes: Sequence[Mapping[str, Any]], chosen: Sequence[int], traversal: Any, columns: Timeline, *,
           max_depth: int | None = None) -> dict[int, list[Affected]]:
    """The column-precise affected set of each chosen schema change (one instant before it), by its
    category (``lineage.analysis.categories``): a breaking one naming known columns reaches their
    readers, the fallback tables walked on by ``traversal`` in one call; an additive one on a table
    the readers taking it by position (:func:`additive`). Table-level ones are left out."""
    from lineage.analysis.categories import ADDITIVE, BREAKING, NODE_KINDS, categorize, is_schema

    found: dict[int, tuple[list[str], list[Reached], list[Reached]]] = {}
    added: dict[int, list[Reached]] = {}
    for i in chosen:
        change = changes[i]
        if not change.get("time"):
            continue
        if change["kind"] in NODE_KINDS:  # a script change: the columns and tables its diff names
            scoped = script_scope(columns.at(query_of(change).moment), change)
            if scoped is not None:
                kind, reached = scoped
                (added if kind == ADDITIVE else found)[i] = reached  # type: ignore[assignment]
            continue
        if not is_schema(change["kind"]):
            continue
        category = categorize(change).category
        snap = columns.at(query_of(change).moment)
        if category == ADDITIVE and change["entity_label"] == "Table" and snap.exists(change["entity_id"]):
            added[i] = additive(snap, change["entity_id"])
            continue
        named = known_columns(snap, change) if category == BREAKING else []
        if named:
            found[i] = (named, *reach(snap, named, tables=_own_table(change)))
    queries = [(i, f.id) for i, (_, _, fallback) in found.items() for f in fallback]
    walks: dict[int, dict[str, list[Affected]]] = {i: {} for i in found}
    moments = [Query((table,), query_of(changes[i]).moment) for i, table in queries]
    for n, impact in traversal.impacts(moments, max_depth=max_depth, limit=None, weigh=lambda label: 1.0):
        i, table = queries[n]
        walks[i][table] = list(impact.affected)
    out = {}
    for i, (named, reached, _) in found.items():
        entity = changes[i]["entity_id"]  # the changed table is the change, not its impact
        merged = merge(reached, walks[i], [*named, entity])
        out[i] = [r.affected() for r in merged if r.id != entity and (max_depth is None or r.distance <= max_depth)]
    for i, reached in added.items():
        entity = changes[i]["entity_id"]
        out[i] = [r.affected() for r in reached if r.id != entity and (max_depth is None or r.distance <= max_depth)]
    return out


def script_scope(snap: Snapshot, change: Mapping[str, Any]) -> tuple[str, Any] | None:
    """What a node change whose script diff scopes it reaches (``categories.node_update``, not
    ``whole``): additive, the readers taking its tables by position (``("additive", reached)``);
    breaking, the readers of the output columns it removed or redefined (``("breaking", (named,
    reached, fallback))``). None: every reader (a walk from the node), or metadata (no walk)."""
    from lineage.analysis.categories import ADDITIVE, BREAKING, categorize

    category = categorize(change)
    if category.whole or category.category not in (ADDITIVE, BREAKING):
        return None
    tables = sorted({t for c, _ in category.columns if (t := ids.table_from_qualified(c.rsplit(".", 1)[0]))})
    if category.category == ADDITIVE:
        best: dict[str, Reached] = {}
        for table in tables:
            for r in additive(snap, table) if snap.exists(table) else ():
                if r.id not in best or (r.distance, r.path) < (best[r.id].distance, best[r.id].path):
                    best[r.id] = r
        return ADDITIVE, sorted(best.values(), key=lambda r: (r.distance, r.id))
    named = sorted({ids.column(t, c.rsplit(".", 1)[1]) for c, how in category.columns if how != "added"
                    if (t := ids.table_from_qualified(c.rsplit(".", 1)[0]))})
    named = [c for c in named if snap.exists(c) and snap.label(c) == "Column"]
    if not named:
        return None
    return BREAKING, (named, *reach(snap, named, tables=[t for t in tables if snap.exists(t)]))


EDGE_COLUMNS = ("src", "dst", "relationship", "qualifier", "src_label", "dst_label", "valid_from", "valid_to",
                "closed_by")
"""What a column answer reads of an edge row, and of its properties a column FEEDS's ``via`` only."""


@collector_paused()
def timeline_of(warehouse: Any) -> Timeline:
    """The column rows of a built warehouse, read with pyarrow on either engine: only the
    relationships and the edge columns needed (:data:`EDGE_COLUMNS`), turned into rows one batch
    at a time with their ids held once. On the platform of ``benchmarks/pairs.py`` (386,472
    vertices, 756,225 such edges): 0.8 GB held, 1.0 GB at the peak, where every row as a dict of
    every column, all at once, held 1.4 GB and peaked at 2.3 GB."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    from lineage.graph.api import built, property_column, release_arrow, stream_rows

    wh = built(warehouse, "vertices", "edges")
    vertices = ds.dataset(str(wh.vertices), format="parquet")
    edges = ds.dataset(str(wh.edges), format="parquet")
    table = vertices.to_table(columns=[c for c in ("id", "label", "first_seen", "deleted_at") if c in vertices.schema.names])
    maps = None
    for key in ROW_PROPERTIES:
        values = property_column(wh, table, key)  # kept apart by the question index
        if values is None and "properties" in vertices.schema.names:  # else from every vertex's property map
            if maps is None:
                maps = vertices.to_table(columns=["properties"]).column("properties")
            values = pc.map_lookup(maps, query_key=key, occurrence="first")
        if values is not None:
            table = table.append_column(key, values)
    del maps
    vrows = [_with_properties(row) for row in stream_rows(table)]
    del table
    wanted = pc.field("relationship").isin(list(RELATIONSHIPS))
    if "qualifier" in edges.schema.names:  # of FEEDS, the column FEEDS only (a table FEEDS has no qualifier)
        wanted &= (pc.field("relationship") != FEEDS) | (pc.field("qualifier").is_valid() & (pc.field("qualifier") != ""))
    else:  # no column FEEDS at all
        wanted &= pc.field("relationship") != FEEDS
    read = edges.to_table(filter=wanted, columns=[c for c in (*EDGE_COLUMNS, "properties") if c in edges.schema.names])
    if "properties" in read.column_names:  # of a column FEEDS, its ``via`` only: who reads its source column
        read = read.set_column(read.column_names.index("properties"), "properties", _via_maps(read))
    found = Timeline(vrows, Edge.stream(read))  # already only RELATIONSHIPS: not filtered again row by row
    del read
    release_arrow()  # 724 MiB resident, 594 after this
    return found


def _via_maps(table: Any) -> Any:
    """Each row's property map cut to its ``via`` (a column FEEDS's definitions; none elsewhere)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    via = pc.map_lookup(table.column("properties"), query_key="via", occurrence="first").combine_chunks()
    valid = pc.is_valid(via).to_numpy(zero_copy_only=False)
    offsets = pa.array([0, *valid.cumsum().tolist()], pa.int32())
    keys = pa.array(["via"] * int(valid.sum()), pa.string())
    return pa.MapArray.from_arrays(offsets, keys, via.filter(pc.is_valid(via)).cast(pa.string()))


def for_changes(changes: Sequence[Mapping[str, Any]], warehouse: Any) -> Timeline | None:
    """The column rows when some change is a column kind (else None: nothing read), read with
    pyarrow on either engine, as the change rows are: collected through Spark, the same rows
    passed through Spark's Row objects too (at 10^6 events, 2 GB more in the driver's Python)."""
    from lineage.analysis.categories import NODE_KINDS, is_schema

    def columned(c: Mapping[str, Any]) -> bool:
        kind = c.get("kind") or ""
        return is_schema(kind) or (kind == "tag_change" and ids.label_of(c["entity_id"]) == "Column") or (
            kind in NODE_KINDS and "script" in (c.get("properties") or {}))

    return timeline_of(warehouse) if any(columned(c) for c in changes) else None


@dataclass(frozen=True)
class ColumnResult:
    """``impact``/``upstream`` of columns: the contract's keys, each vertex marked."""

    sources: tuple[str, ...]
    affected: tuple[Reached, ...]
    as_of: Any
    engine: str
    indirect: bool
    downstream: bool = True

    def to_json(self) -> dict[str, Any]:
        """``impact --json`` (``upstream --json``: ``upstream`` for ``affected``), plus ``as_of``,
        ``indirect`` (asked for) and ``fallback`` (the tables reached only through a job whose column lineage is partial)."""
        listed = [r.to_json() for r in self.affected]
        summary: dict[str, int] = {}
        for r in self.affected:
            summary[r.label] = summary.get(r.label, 0) + 1
        return {"sources": list(self.sources), ("affected" if self.downstream else "upstream"): listed,
                "summary": dict(sorted(summary.items(), key=lambda kv: str(kv[0]))),
                "as_of": self.as_of.isoformat(), "columns": True, "indirect": self.indirect,
                "fallback": sorted(r.id for r in self.affected if r.fallback and r.label == "Table")}


def ask(warehouse: Any, sources: Sequence[str], *, as_of: Any = None, max_depth: int | None = None,
        engine: str = "auto", indirect: bool = False, downstream: bool = True) -> ColumnResult:
    """The column answer on the warehouse as of a time (None: now); unknown columns: a usage error."""
    from lineage.analysis.access import moment_of
    from lineage.analysis.engines import open_engine

    moment = moment_of(as_of)
    snap = timeline_of(warehouse).at(moment)
    wanted = list(dict.fromkeys(sources))
    missing = [s for s in wanted if not snap.exists(s)]
    if missing:
        raise UnknownIds(f"not in the graph as of {moment.isoformat()}: {', '.join(missing)}")
    runner = open_engine(warehouse, engine=engine, as_of=moment)
    found = answer(snap, wanted, runner, indirect=indirect, downstream=downstream, max_depth=max_depth)
    return ColumnResult(tuple(wanted), tuple(found), moment, runner.name, indirect, downstream)


def via_jobs(edges: Iterable[Edge]) -> set[str]:
    """The jobs (and nodes) every table FEEDS edge lists in ``via``: whose column lineage
    :func:`_via_complete` reads, so a reader of part of the graph loads them too."""
    found: set[str] = set()
    for edge in edges:
        if edge.relationship == FEEDS and ids.label_of(edge.src) != "Column":
            try:
                found.update(json.loads(edge.properties.get("via") or "[]"))
            except ValueError:
                continue
    return found


def _via_complete(snap: Snapshot, edge: Any) -> bool:
    """A table FEEDS edge is covered by column lineage when every job it came from is complete."""
    try:
        via = json.loads(edge.properties.get("via") or "[]")
    except ValueError:
        via = []
    return bool(via) and all(_complete(snap, j) for j in via)


def spread(snap: Snapshot, origin: str, holders: Sequence[str], blocked: Collection[str] = frozenset()
           ) -> dict[str, tuple[int, tuple[str, ...], tuple[str, ...]]]:
    """Where the values of ``holders`` (columns of table ``origin``) flow: direct column FEEDS
    only (an indirect read carries no values), and, out of a table whose FEEDS to another table
    no complete column lineage covers (a partial or non-SQL job), that whole table and on along
    table FEEDS (the fallback). Never into a ``blocked`` table. Table -> (hops, table path,
    columns reached there; none when taken whole); breadth first, ids in order."""
    found: dict[str, tuple[int, tuple[str, ...], tuple[str, ...]]] = {}
    cols = _columns_within(snap, holders, blocked)
    tables_of: dict[str, tuple[int, tuple[str, ...], set[str]]] = {origin: (0, (origin,), set())}
    for col, (hops, path) in sorted(cols.items(), key=lambda kv: (kv[1][0], kv[0])):
        for table in _table_of(snap, col):
            table_path = tuple(dict.fromkeys(t for c in path for t in _table_of(snap, c)))
            old = tables_of.get(table)
            if old is None or hops < old[0]:
                tables_of[table] = (hops, table_path, {col} | (old[2] if old and old[0] == hops else set()))
            elif hops == old[0]:
                old[2].add(col)
    for table, (hops, path, columns) in tables_of.items():
        if table != origin:
            found[table] = (hops, path, tuple(sorted(columns)))
    queue = deque(sorted(tables_of, key=lambda t: (tables_of[t][0], t)))
    whole: set[str] = set()
    while queue:
        table = queue.popleft()
        hops, path = (found[table][0], found[table][1]) if table in found else (0, (origin,))
        for e in sorted(snap.out(table, FEEDS), key=lambda e: e.dst):
            nxt = e.dst
            if snap.label(nxt) != "Table" or nxt in blocked or nxt == origin:
                continue
            if table not in whole and _via_complete(snap, e):
                continue
            if nxt in whole:
                continue
            old = found.get(nxt)
            found[nxt] = (old[0], old[1], ()) if old and old[0] <= hops + 1 else (hops + 1, path + (nxt,), ())
            whole.add(nxt)
            queue.append(nxt)
    return found


def _table_of(snap: Snapshot, column: str) -> list[str]:
    """The column's table: its ``HAS_COLUMN``, else the table its id names, when that is in the
    graph (job SQL names columns of tables whose schema no event stated: no HAS_COLUMN)."""
    found = sorted(e.src for e in snap.into(column, HAS_COLUMN))
    if found or ids.label_of(column) != "Column":
        return found
    namespace, key = column.split(":", 2)[1:]
    parts = key.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        table = f"table:{namespace}:{'.'.join(parts[:cut])}"
        if snap.exists(table):
            return [table]
    return []


def _columns_within(snap: Snapshot, holders: Sequence[str], blocked: Collection[str]) -> dict[str, tuple[int, tuple[str, ...]]]:
    """Direct column FEEDS from ``holders``, never into a column of a ``blocked`` table."""
    found = {h: (0, (h,)) for h in sorted(set(holders))}
    queue = deque(sorted(found))
    while queue:
        current = queue.popleft()
        hops, path = found[current]
        for nxt in sorted({e.dst for e in snap.out(current, FEEDS) if e.qualifier == DIRECT}):
            if nxt in found or any(t in blocked for t in _table_of(snap, nxt)):
                continue
            found[nxt] = (hops + 1, path + (nxt,))
            queue.append(nxt)
    return found


def tag_plans(changes: Sequence[Mapping[str, Any]], plans: Sequence[Any], columns: Timeline) -> list[Any]:
    """A sensitive tag added to a column exposes the tables its values reach as of the change
    (:func:`spread`: direct column FEEDS; whole tables past partial lineage), not the tables its
    column FEEDS of any kind lead to (``effects.plan`` walks FEEDS, which from a column stays
    among columns). Other plans unchanged."""
    from dataclasses import replace

    from lineage.analysis.effects import sensitive_tag_added

    out = list(plans)
    for i, change in enumerate(changes):
        entity = change["entity_id"]
        if ids.label_of(entity) != "Column" or not change.get("time") or not sensitive_tag_added(change):
            continue
        snap = columns.at(change["time"])
        origin = _table_of(snap, entity)
        if not origin:
            continue
        reached = spread(snap, origin[0], [entity])
        seeds = sorted((Affected(t, snap.label(t), len(path) - 1, (entity, *path[1:])) for t, (_, path, _) in reached.items()),
                       key=lambda a: (a.distance, a.id))
        out[i] = replace(plans[i], seeds=tuple(seeds), sensitive=True)
    return out
