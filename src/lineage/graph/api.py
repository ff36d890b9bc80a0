"""Reading the built graph: DataFrames (or plain rows), optionally as of a moment.

``as_of`` keeps what was valid at that instant by the one rule of :mod:`lineage.graph.asof`:
vertices first seen at or before it and not deleted by then, edges whose interval
``[valid_from, valid_to)`` contains it. Without ``as_of`` the whole history is returned (every
interval is its own edge row).
"""

from __future__ import annotations

import gc
import sys
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterable, Iterator, Mapping, Sequence, Union

from lineage.errors import UsageError
from lineage.events.times import parse_time
from lineage.graph import around as around_store
from lineage.graph import node_diff, reports, script_changes
from lineage.graph.asof import EDGE_INTERVAL, EPOCH, VERTEX_INTERVAL, contains, spark_valid
from lineage.store.warehouse import Warehouse

if TYPE_CHECKING:
    import pyarrow as pa
    from graphframes import GraphFrame
    from pyspark.sql import DataFrame, SparkSession

Near = Union[Mapping[str, Collection[str]], Callable[["pa.Table"], Mapping[str, Collection[str]]]]
"""``load_rows``' ``near``: relationship -> ids, or how to find them on the edge rows read."""


class GraphNotBuilt(UsageError):
    """The warehouse has no graph yet (a usage error: build first)."""


class NotATime(UsageError):
    """An ``--as-of``/``--since``/``--until`` value that is not a time."""


def built(warehouse: str | Path, *datasets: str) -> Warehouse:
    """The warehouse, once the graph datasets a reader needs (``vertices``, ``edges``,
    ``changes``) exist; :class:`GraphNotBuilt` otherwise."""
    wh = Warehouse.at(warehouse)
    if not all(getattr(wh, name).is_dir() for name in datasets):
        raise GraphNotBuilt(f"no graph in {wh.graph}: run `lineage build --warehouse {wh.root}` first")
    return wh


def to_time(value: str | datetime | None) -> datetime | None:
    """``--as-of`` values: ISO 8601 / ``yyyy-MM-dd[ HH:mm:ss]`` / epoch; naive means UTC."""
    if value is None or isinstance(value, datetime):
        return parse_time(value) if value else None
    try:
        return parse_time(value)
    except ValueError:
        raise NotATime(f"not a time: {value!r} (use ISO 8601, e.g. 2024-07-03T12:00:00Z)") from None


def utc_row(row: dict[str, Any]) -> dict[str, Any]:
    """A collected row with its (naive, UTC) timestamps made timezone-aware."""
    return {k: v.replace(tzinfo=timezone.utc) if isinstance(v, datetime) and v.tzinfo is None else v for k, v in row.items()}


def _spark(spark: "SparkSession | None") -> "SparkSession":
    if spark is not None:
        return spark
    from lineage.spark import get_spark

    return get_spark("lineage")


def load(
    warehouse: str | Path, spark: "SparkSession | None" = None, as_of: Any = None
) -> tuple["DataFrame", "DataFrame"]:
    """(vertices, edges) of the built graph, filtered to ``as_of`` when given."""
    wh = built(warehouse, "vertices")
    spark = _spark(spark)
    vertices = spark.read.parquet(str(wh.vertices))
    edges = spark.read.parquet(str(wh.edges))
    moment = to_time(as_of)
    if moment is None:
        return vertices, edges
    return at(vertices, edges, moment)


def graph_frame(warehouse: str | Path, spark: "SparkSession | None" = None, as_of: Any = None) -> "GraphFrame":
    """The warehouse's graph (as of a moment) as one ``GraphFrame``: the one place the Spark side
    turns the built graph into GraphFrames' form, so every algorithm sees the same vertices
    (one row per id) and the same edges (both ends vertices then, as GraphFrames requires)."""
    import warnings

    spark = _spark(spark)  # first: the session puts the GraphFrames jar's Python package on the path
    from graphframes import GraphFrame

    vertices, edges = load(warehouse, spark, as_of)
    ids = vertices.select("id")
    edges = edges.join(ids.withColumnRenamed("id", "src"), "src", "left_semi").join(
        ids.withColumnRenamed("id", "dst"), "dst", "left_semi")
    with warnings.catch_warnings():  # graphframes 0.8.2 still builds DataFrames from sql_ctx
        warnings.simplefilter("ignore", UserWarning)
        return GraphFrame(vertices, edges)


def at(vertices: "DataFrame", edges: "DataFrame", moment: datetime) -> tuple["DataFrame", "DataFrame"]:
    """The graph as it was at ``moment`` (the Spark form of the as-of rule)."""
    return vertices.where(spark_valid(VERTEX_INTERVAL, moment)), edges.where(spark_valid(EDGE_INTERVAL, moment))


def changes(
    warehouse: str | Path, spark: "SparkSession | None" = None, since: Any = None, until: Any = None
) -> "DataFrame":
    """Change records with ``since <= time < until`` (either bound optional)."""
    from pyspark.sql import functions as F

    wh = built(warehouse, "changes")
    frame = _spark(spark).read.parquet(str(wh.changes))
    if (start := to_time(since)) is not None:
        frame = frame.where(F.col("time") >= F.lit(start).cast("timestamp"))
    if (end := to_time(until)) is not None:
        frame = frame.where(F.col("time") < F.lit(end).cast("timestamp"))
    return frame


# --------------------------------------------------------------------------------------------
# the same graph as plain rows, without Spark (the local engine, notebooks, the report)
# --------------------------------------------------------------------------------------------


KEPT_ROWS = 250_000
"""Datasets up to this many rows stay read in the process (see :func:`_read_rows`); bigger ones
are read each time, so a 10^6-event graph is never held twice."""
_kept: dict[str, tuple[tuple, list[dict[str, Any]]]] = {}


def _signature(path: Path) -> tuple:
    """What a rewrite of a dataset changes: its files' names, sizes and modification times."""
    return tuple(sorted((str(f), s.st_size, s.st_mtime_ns) for f in Path(path).rglob("*.parquet") for s in [f.stat()]))


def _read_rows(path: Path) -> list[dict[str, Any]]:
    """A dataset's rows as dicts. A notebook, a report or a test asks one warehouse many questions,
    each reading the same files: the last read of a small dataset is kept while its files are
    unchanged, and each caller gets its own copies (editing them never reaches the next caller)."""
    key, signature = str(Path(path).resolve()), _signature(path)
    kept = _kept.get(key)
    if kept is None or kept[0] != signature:
        rows = as_rows(_read_table(path))
        if len(rows) > KEPT_ROWS:
            _kept.pop(key, None)
            return rows
        kept = _kept[key] = (signature, rows)
    return [{**row, "properties": dict(row["properties"])} if isinstance(row.get("properties"), dict) else dict(row)
            for row in kept[1]]


def valid_at(row: Mapping[str, Any], moment: datetime) -> bool:
    """An edge row's interval ``[valid_from, valid_to)`` contains ``moment`` (the as-of rule)."""
    return contains(row.get(EDGE_INTERVAL[0]), row.get(EDGE_INTERVAL[1]), moment)


def exists_at(row: Mapping[str, Any], moment: datetime) -> bool:
    """A vertex row was first seen by ``moment`` and not deleted by then (the as-of rule)."""
    return contains(row.get(VERTEX_INTERVAL[0]), row.get(VERTEX_INTERVAL[1]), moment)


def rows_at(
    vertices: list[dict[str, Any]], edges: list[dict[str, Any]], moment: datetime | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The rows as of ``moment`` (all of them when None): the pure twin of ``at``."""
    if moment is None:
        return vertices, edges
    return [v for v in vertices if exists_at(v, moment)], [e for e in edges if valid_at(e, moment)]


def load_rows(
    warehouse: str | Path, as_of: Any = None, *, relationships: Collection[str] | None = None,
    around: Collection[str] | None = None, named: Collection[str] = (), without: Collection[str] = (),
    near: Near | None = None, labels: Collection[str] = (),
    properties: Mapping[str, Collection[str]] | None = None, described: Collection[str] | None = None,
    edge_columns: Sequence[str] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(vertices, edges) as lists of dicts read with pyarrow (no JVM), as of a moment when given.

    A question that needs part of the graph says which: ``relationships`` keeps the edges of those
    relationships, ``around`` the edges touching those ids; the vertices are then the ids those
    edges name, ``around`` and ``named`` (vertices wanted for their names only). ``without``: labels
    the question never walks through (``access`` never passes a Job or an Instance): their vertices
    and edges are left out. ``near``: relationship -> ids; of those relationships, only the edges
    touching those ids (``access`` reads its target's HAS_COLUMN, not the platform's); or a function
    of the edge rows read without it (an Arrow table) that gives that mapping, when what is near is
    found on those rows (``exposure``: one read instead of two). ``labels``:
    every vertex of these labels, whether an edge read names it or not (``hygiene``'s islands).
    ``properties``: when given, the only properties read, by relationship (edges) and label
    (vertices); the rest are left in the file (a Job's SQL, a run's ids). ``described``: when given,
    the only vertices read whole, the others with their :data:`NAMING` columns only (``show`` names
    the 31,000 runs around a hub table, it does not describe them). ``edge_columns``: when given,
    the only edge columns read (``show`` lists no edge's ``last_seen``). The filter runs in
    Arrow, before any row becomes a Python object: at 10^6 events the whole graph is 1.3M rows and
    3 GB of dicts, a question's part a few thousand (``show``) or a twentieth (``access``)."""
    if relationships is None and around is None and not without and not near and not labels and properties is None:
        wh = built(warehouse, "vertices")
        return rows_at(_read_rows(wh.vertices), _read_rows(wh.edges), to_time(as_of))
    vertices, edges = load_tables(warehouse, relationships=relationships, around=around, named=named, without=without,
                                  near=near, labels=labels, properties=properties, described=described,
                                  edge_columns=edge_columns)
    return rows_at(as_rows(vertices), as_rows(edges), to_time(as_of))


def load_tables(
    warehouse: str | Path, *, relationships: Collection[str] | None = None, around: Collection[str] | None = None,
    named: Collection[str] = (), without: Collection[str] = (), near: Near | None = None,
    labels: Collection[str] = (), properties: Mapping[str, Collection[str]] | None = None,
    described: Collection[str] | None = None, edge_columns: Sequence[str] | None = None,
) -> tuple["pa.Table", "pa.Table"]:
    """:func:`load_rows`' part of the graph (the same arguments, at every time) as Arrow tables, for
    a reader that makes its own objects of them (``analysis.access.Edge.stream``)."""
    wh = built(warehouse, "vertices")
    return part_tables(wh.vertices, wh.edges, relationships=relationships, around=around, named=named,
                       without=without, near=near, labels=labels, properties=properties, described=described,
                       edge_columns=edge_columns, around_files=wh.around)


def part_tables(
    vertex_files: Path, edge_files: Path, *, relationships: Collection[str] | None = None,
    around: Collection[str] | None = None, named: Collection[str] = (), without: Collection[str] = (),
    near: Near | None = None, labels: Collection[str] = (), properties: Mapping[str, Collection[str]] | None = None,
    described: Collection[str] | None = None, edge_columns: Sequence[str] | None = None,
    around_files: Path | None = None,
) -> tuple["pa.Table", "pa.Table"]:
    """:func:`load_tables` of the parquet datasets ``vertex_files`` and ``edge_files`` (what the
    build reads to store a question's part in the index, before the generation is committed).
    ``around_files``: the generation's edges by vertex (:mod:`lineage.graph.around`), where the
    edges ``around`` ids alone are read when it holds them."""
    import pyarrow.dataset as ds

    edges = None
    if around is not None and around_files is not None and relationships is None and not without and near is None:
        edges = around_store.touching(around_files, around, None if edge_columns is None else list(edge_columns))
    if edges is None:  # from the edges dataset: the filter pushed to its reader
        pushed = _edge_filter(relationships, without)
        if around is not None:  # decoded and tested batch by batch as it is read, not read whole first
            wanted = _strings(around)
            touching = ds.field("src").isin(wanted) | ds.field("dst").isin(wanted)
            pushed = touching if pushed is None else pushed & touching
        if near is not None and not callable(near):  # pushed too: row groups of a relationship whose ids are none are skipped
            close = _near(near)
            pushed = close if pushed is None else pushed & close
        edges = _read_table(edge_files, pushed, columns=None if edge_columns is None else _present(edge_files, edge_columns))
    if callable(near):  # found on the rows just read, and applied to them: one read, not two
        edges = edges.filter(_near(near(edges)))
    named = set(edges.column("src").to_pylist()) | set(edges.column("dst").to_pylist()) | set(around or ()) | set(named)
    chosen = ds.field("id").isin(_strings(named))
    if labels:
        chosen |= ds.field("label").isin(sorted(labels))
    if without:
        chosen &= ~ds.field("label").isin(sorted(without)) | ds.field("label").is_null()
    if described is None:
        vertices = _read_table(vertex_files, chosen)
    else:  # the described ones whole, the others with their names and intervals only (the rest null)
        import pyarrow as pa

        whole = ds.field("id").isin(_strings(described))
        vertices = _read_table(vertex_files, chosen & whole)
        names = vertices.column_names
        bare = _read_table(vertex_files, chosen & ~whole, columns=[c for c in names if c in NAMING])
        for name in names:  # the columns left in the file, as nulls (properties: none)
            if name not in bare.column_names:
                kind = vertices.schema.field(name).with_nullable(True)
                empty = pa.array([[]] * bare.num_rows, type=kind.type) if name == "properties" else pa.nulls(bare.num_rows, kind.type)
                bare = bare.append_column(kind, empty)
        vertices = pa.concat_tables([vertices, bare.select(names)], promote_options="permissive")
    if properties is not None:
        vertices, edges = _slim(vertices, properties, others=False), _slim(edges, properties, "relationship", others=False)
    return vertices, edges


def _near(near: Mapping[str, Collection[str]]) -> Any:
    """The filter of ``near``: of each of its relationships, only the edges touching its ids."""
    import pyarrow.dataset as ds

    kept = ds.scalar(True)
    for relationship, ids in near.items():
        wanted = _strings(ids)
        kept &= (ds.field("relationship") != relationship) | ds.field("src").isin(wanted) | ds.field("dst").isin(wanted)
    return kept


def _edge_filter(relationships: Collection[str] | None, without: Collection[str]) -> Any:
    """The edges of ``relationships`` (all when None) touching no label of ``without``, as a filter
    pushed to the reader: the build clusters the files by relationship and label, so row groups of
    other relationships and labels are skipped by their statistics (graph.build.CLUSTERED_BY)."""
    import pyarrow.dataset as ds

    pushed = None
    if relationships is not None:
        pushed = ds.field("relationship").isin(sorted(relationships))
    for end in ("src_label", "dst_label") if without else ():
        outside = ~ds.field(end).isin(sorted(without)) | ds.field(end).is_null()
        pushed = outside if pushed is None else pushed & outside
    return pushed


def rows_read(warehouse: str | Path, *, relationships: Collection[str], without: Collection[str] = ()) -> int:
    """At most how many rows :func:`load_rows` with these arguments turns into Python rows: the
    edges of ``relationships`` touching no label of ``without``, and every vertex not of those
    labels; counted on the files' columns, no row made (what ``auto`` weighs hygiene by)."""
    import pyarrow.dataset as ds

    wh = built(warehouse, "vertices", "edges")
    outside = ~ds.field("label").isin(sorted(without)) | ds.field("label").is_null() if without else None
    return (ds.dataset(str(wh.edges), format="parquet").count_rows(filter=_edge_filter(relationships, without))
            + ds.dataset(str(wh.vertices), format="parquet").count_rows(filter=outside))


def edge_ends(warehouse: str | Path, *, relationships: Collection[str], without: Collection[str] = ()) -> Any:
    """The ``src``, ``relationship`` and ``dst`` of the edges of ``relationships`` touching no label
    of ``without``, at any time, as an Arrow table: what a question walks to find its part before it
    reads whole rows (``access``)."""
    import pyarrow.dataset as ds

    wh = built(warehouse, "edges")
    return ds.dataset(str(wh.edges), format="parquet").to_table(
        columns=["src", "relationship", "dst"], filter=_edge_filter(relationships, without))


def among(edges: Any, end: str, ids: Collection[str]) -> Any:
    """The Arrow mask of the rows of ``edges`` whose ``end`` (``src`` or ``dst``) is one of ``ids``."""
    import pyarrow.compute as pc

    return pc.is_in(edges.column(end), value_set=_strings(ids))


def ends_where(edges: Any, end: str, relationships: Collection[str], *masks: Any) -> set[str]:
    """The ``end`` ids of the rows of ``edges`` (an :func:`edge_ends` table) of ``relationships``
    that pass every Arrow mask of ``masks``: one step of a walk over the three columns."""
    import pyarrow.compute as pc

    chosen = pc.is_in(edges.column("relationship"), value_set=_strings(relationships))
    for mask in masks:
        chosen = pc.and_(chosen, mask)
    return set(edges.column(end).filter(chosen).to_pylist())


def every_vertex(warehouse: str | Path, *, relationships: Collection[str],
                 properties: Mapping[str, Collection[str]]) -> tuple[list[dict[str, Any]], "pa.Table"]:
    """(vertex rows, edge table) for a reader of the whole platform that walks only some
    relationships (the report): every vertex, of the labels in ``properties`` only those properties
    (a run's status and end, not its SQL: Jobs and Instances are 84% of a platform's vertices), and
    the Arrow table of the edges of ``relationships``, for a reader that makes its own objects of
    them batch by batch (``analysis.access.Edge.stream``); filtered in Arrow, and the strings rows
    repeat (ids, labels, relationship names) held once. At 10^6 events the whole graph, indexed, was
    4.2 GB and the report's 2.3-2.6 GB with every edge read at once; on the 16.6M-pair platform of
    ``benchmarks/pairs.py`` the report's context now holds 1.2 GB (edges streamed, Arrow's pool
    released after: ``report.context.Context.of``)."""
    import pyarrow.dataset as ds

    wh = built(warehouse, "vertices")
    vertices = list(stream_rows(_slim(_read_table(wh.vertices), properties)))
    return vertices, _read_table(wh.edges, ds.field("relationship").isin(sorted(relationships)))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a reader makes and indexes its rows (also a
    decorator). They are hundreds of thousands of acyclic containers, freed by reference counting
    alone, and each collection walked all those alive: at 10^6 events about 1 s of ``exposure``'s
    4-5 s. Restored as it was after; cycles made meanwhile are collected then."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def release_arrow() -> None:
    """Give back to the system what Arrow's memory pool kept of freed buffers, after a large read
    whose tables are gone: mimalloc keeps it for reuse, resident. The report's keeper marks
    (``report.digest.Marks``) held 502 MiB resident for 168 MiB of Python objects without this."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def _slim(rows: Any, keep: Mapping[str, Collection[str]], by: str = "label", *, others: bool = True) -> Any:
    """``rows`` with only the ``keep[group]`` properties of the rows of each group (their ``by``
    column: a vertex's label, an edge's relationship); rows of other groups keep all theirs, or,
    with ``others=False``, none."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    props = rows.column("properties").combine_chunks()
    offsets = props.offsets.to_numpy()
    first, last = int(offsets[0]), int(offsets[-1])
    keys, values = props.keys.slice(first, last - first), props.items.slice(first, last - first)
    parents = np.repeat(np.arange(len(props)), np.diff(offsets))
    groups = pc.take(rows.column(by).combine_chunks(), pa.array(parents))
    dropped = pa.array(np.zeros(len(keys), dtype=bool))
    if not others:
        dropped = pc.invert(pc.fill_null(pc.is_in(groups, value_set=_strings(keep)), False))
    for group, names in keep.items():
        dropped = pc.or_(dropped, pc.and_(pc.fill_null(pc.equal(groups, group), False),
                                          pc.invert(pc.is_in(keys, value_set=_strings(names)))))
    kept = pc.invert(dropped)
    counts = np.bincount(parents[kept.to_numpy(zero_copy_only=False)], minlength=len(props))
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))
    slim = pa.MapArray.from_arrays(offsets, keys.filter(kept), values.filter(kept))
    return rows.set_column(rows.schema.get_field_index("properties"), "properties", slim)


def vertex_rows(warehouse: str | Path, wanted: Collection[str]) -> list[dict[str, Any]]:
    """The vertex rows of ``wanted`` ids (filtered in Arrow): what a part of the graph names
    without walking to it."""
    import pyarrow.dataset as ds

    return as_rows(_read_table(built(warehouse, "vertices").vertices, ds.field("id").isin(_strings(wanted))))


def property_values(warehouse: str | Path, key: str) -> dict[str, str]:
    """``key``'s value of every vertex that has it, by id: for a question that looks up vertices it
    never walks only when it meets them (``exposure``: the jobs of the FEEDS a mark spreads along).
    From the question index when it keeps ``key`` (66,742 values at 10^6 events: 0.05 s), else
    from the vertices' property maps (about 1 s). Cheaper than naming the ids first: finding the
    81,849 jobs every FEEDS lists and reading theirs took 0.4 s of ``exposure``."""
    import pyarrow.compute as pc

    wh = built(warehouse, "vertices")
    table = _indexed_property(wh, key)
    if table is None:
        table = _read_table(wh.vertices, columns=["id", "properties"])
        values = pc.map_lookup(table.column("properties"), query_key=key, occurrence="last")
        table = table.drop_columns(["properties"]).append_column("value", values).filter(pc.is_valid(values))
    return dict(zip(table.column("id").to_pylist(), table.column("value").to_pylist()))


def property_column(wh: Any, vertices: Any, key: str) -> Any:
    """``key``'s value for each row of ``vertices`` (the vertex dataset read whole, in its order,
    without its property maps: 0.11 s for 386,000 rows at 10^6 events, 0.45-0.72 s with them) from
    the question index; None when the index does not keep ``key``, or its rows are not these (read
    the maps then)."""
    import numpy as np
    import pyarrow as pa

    kept = _indexed_property(wh, key)
    if kept is None:
        return None
    rows = kept.column("row").to_numpy()
    if len(rows) and (rows.max() >= vertices.num_rows or rows.min() < 0):
        return None
    if not vertices.column("id").take(pa.array(rows)).equals(kept.column("id")):
        return None  # another read order than the index's: never a value on the wrong row
    position = np.full(vertices.num_rows, -1, dtype=np.int64)
    position[rows] = np.arange(len(rows))
    return kept.column("value").take(pa.array(position, mask=position < 0))


def _indexed_property(wh: Any, key: str) -> Any:
    """``(id, label, value, row)`` of the rows with ``key`` from the generation's question index, when
    it has one that keeps ``key`` (else None: a damaged index is read around, as by every question)."""
    from lineage.graph import index

    if key not in index.KEPT_PROPERTIES:
        return None
    try:
        return index.properties_in(wh.index, key)
    except index.IndexDamaged:
        return None


def _strings(values: Collection[str]) -> Any:
    import pyarrow as pa

    return pa.array(sorted(values), type=pa.string())


def _present(path: Path, columns: Sequence[str]) -> list[str]:
    """Those of ``columns`` the dataset has (a warehouse built before a column existed lacks it)."""
    import pyarrow.dataset as ds

    names = ds.dataset(str(path), format="parquet").schema.names
    return [c for c in columns if c in names]


def _read_table(path: Path, where: Any = None, columns: list[str] | None = None) -> Any:
    import pyarrow.parquet as pq

    return pq.read_table(str(path), filters=where, columns=columns)


NAMING = ("id", "label", "name", *VERTEX_INTERVAL)
"""What a question needs of a vertex it only names: its name, and whether it exists at a moment."""
REPEATED = ("id", "label", "src", "dst", "relationship", "qualifier", "src_label", "dst_label")
"""Columns whose strings recur across rows (an id in every edge that names it): held once."""
BATCH_ROWS = 65_536


def stream_rows(table: Any) -> Iterator[dict[str, Any]]:
    """:func:`as_rows`, one record batch at a time, the :data:`REPEATED` strings interned: for a
    reader that indexes the rows as they come, so the whole table never exists as dicts at once."""
    for batch in table.to_batches(max_chunksize=BATCH_ROWS):
        yield from as_rows(batch, interned=True)


def as_rows(table: Any, interned: bool = False) -> list[dict[str, Any]]:
    """Arrow rows as dicts, a parquet map (read as (key, value) pairs) as a dict, made column by
    column (:func:`column_lists`); ``interned``: the :data:`REPEATED` strings held once."""
    names = table.column_names
    rows = [dict(zip(names, values)) for values in zip(*column_lists(table, names, interned=interned))]
    if "properties" in names:
        for row in rows:
            if isinstance(row["properties"], list):
                row["properties"] = dict(row["properties"])
    return rows


def column_lists(table: Any, names: Sequence[str], *, interned: bool = True) -> list[Iterable[Any]]:
    """Each of ``names`` as Python values (Nones for a column ``table`` lacks), for a reader that
    makes its own objects column by column instead of a dict per row (``analysis.access.Edge.stream``:
    a report makes a million). Arrow makes each UTC timestamp a datetime through the time-zone
    database, which was half of turning a question's edges into rows: each distinct instant is made
    once (:func:`_utc_times`). ``interned``: each distinct string of a :data:`REPEATED` column is made
    once and interned (an id recurs in every edge that names it)."""
    from itertools import repeat

    lists: list[Iterable[Any]] = []
    for name in names:
        if name not in table.column_names:
            lists.append(repeat(None, table.num_rows))
            continue
        column = table.column(name)
        if _utc_micros(column.type):
            lists.append(_utc_times(column))
        elif interned and name in REPEATED:
            lists.append(_words(column))
        else:
            lists.append(column.to_pylist())
    return lists


def utc_instants(table: Any, name: str) -> bool:
    """Whether :func:`column_lists` makes the ``name`` column aware UTC datetimes (else a reader
    normalises its values itself)."""
    return name in table.column_names and _utc_micros(table.column(name).type)


def _words(column: Any) -> list[str | None]:
    """A string column's values, each distinct one a single interned object (dictionary-encoded in
    Arrow: one Python string per distinct value, not per row)."""
    import pyarrow as pa

    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        return column.to_pylist()
    return _taken(column, sys.intern)


def _utc_micros(kind: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_timestamp(kind) and kind.unit == "us" and kind.tz in ("UTC", "+00:00", "Etc/UTC")


def _utc_times(column: Any) -> list[datetime | None]:
    """A timestamp[us, UTC] column as aware datetimes (``timezone.utc``), each distinct value made
    once and taken by position (dictionary-encoded in Arrow; numpy takes the objects)."""
    import pyarrow as pa

    return _taken(column.cast(pa.int64()), lambda micros: EPOCH + timedelta(microseconds=micros))


def _taken(column: Any, make: Any) -> list[Any]:
    """``make`` of each value of an Arrow column (None for a null), called once per distinct value."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    coded = pc.dictionary_encode(column)
    distinct = coded.dictionary.to_pylist()
    made = np.array([*map(make, distinct), None], dtype=object)  # the objects themselves; the last, a null's
    return made[pc.fill_null(coded.indices, len(distinct)).to_numpy(zero_copy_only=False)].tolist()


def change_rows(
    warehouse: str | Path, since: Any = None, until: Any = None, *, entities: Collection[str] | None = None,
    merge: bool = True, kinds: Collection[str] | None = None, scripts: bool = True,
) -> list[dict[str, Any]]:
    """Change records with ``since <= time < until`` as dicts (no JVM), oldest first; only those
    of ``entities`` and of ``kinds`` when given (filtered in Arrow, as :func:`load_rows` does).
    ``merge``: one change reported by several sources is one record, with ``reported_by``
    (:func:`lineage.graph.reports.merged`); else every record as stored. ``scripts``: each node
    update's script change (``graph.script_changes``: its runs read) for a caller that ranks them."""
    wh = built(warehouse, "changes")
    start, end = to_time(since), to_time(until)
    if entities is not None or kinds is not None:
        import pyarrow.compute as pc
        import pyarrow.dataset as ds

        table = _read_table(wh.changes, None if kinds is None else ds.field("kind").isin(sorted(kinds)))
        if entities is not None:
            table = table.filter(pc.is_in(table.column("entity_id"), value_set=_strings(entities)))
        every = as_rows(table)
    else:
        every = _read_rows(wh.changes)
    every = node_diff.diffed(every)  # a node update against the node's record before it
    rows = [
        c for c in every
        if (start is None or (c["time"] is not None and c["time"] >= start))
        and (end is None or (c["time"] is not None and c["time"] < end))
    ]
    rows.sort(key=lambda c: (c["time"] is None, c["time"].timestamp() if c["time"] else 0.0, c["change_id"]))
    if scripts:  # a node update against its runs' scripts before and after
        script_changes.attach(warehouse, rows)
    return reports.merged(rows) if merge else rows
