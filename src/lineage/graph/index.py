"""The question index of a graph generation: the arrays a traversal walks, written by the build.

A question about one entity used to read the whole graph from parquet and index it again (sort
the ids, code labels and relationships, turn every interval into integers): most of its time and
memory at 10^6 events. The build now writes those arrays once per generation, beside the
generation's parquet (``graph/<generation>/index/``, committed with it), and a question maps them
(``numpy.load(mmap_mode="r")``, an Arrow IPC file for the ids): only the pages a walk touches are
read, and every process asking shares them through the page cache.

With them, the step CSR (:class:`Steps`) of each rule selection the questions walk with no
``--relationships`` (:func:`selections`): building it took 0.3-0.5 s of every ``impact`` and
``upstream`` at 10^6 events.

The arrays (:class:`Arrays`) are the same whether read from the index or computed from parquet
(:func:`arrays_of`), so a generation without an index (built before it existed) still answers,
only slower. ``meta.json`` is written last: a directory without it is not an index.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from lineage.graph.asof import EDGE_INTERVAL, VERTEX_INTERVAL, micros

if TYPE_CHECKING:
    import pyarrow as pa

    from lineage.store.warehouse import Warehouse

FORMAT = 1
"""The index layout; a reader ignores (and reads parquet instead of) any other."""
META = "meta.json"
IDS = "ids.arrow"
BOUNDS = "edge_bounds.arrow"
PROPERTIES = "properties.arrow"
KEPT_PROPERTIES = ("column_lineage", "column_order", "node")
"""Vertex properties a question reads of vertices it never walks (``exposure``: whether the jobs
its FEEDS came through have complete column lineage; a column added: which jobs take the table by
position, and their nodes), kept apart so that it need not read the
vertices' whole property maps: 1.0 s of ``exposure`` at 10^6 events, for 66,742 values. An index
written before this file existed is read without it (the property maps are read then), and is
not :func:`usable`, so the next build writes it again."""
EXPOSURE = ("exposure_vertices.arrow", "exposure_edges.arrow")
"""The part of the graph ``exposure`` reads (its vertices, its edges: ``analysis.propagation.PART``),
stored whole: a question with no subject reads the same rows every time, and finding them in the
parquet (317,000 edge rows decoded for 57,000 kept, the FEEDS' ``via`` lists most of their bytes)
was 1.1-1.5 s of its 3.3 s at 10^6 events. An index without them, or with them as other code
chose them (:func:`exposure_version`), is read around and not :func:`usable`, so the next build
writes them."""
EXPOSURE_MODULES = ("analysis/propagation.py", "analysis/access.py", "graph/api.py", "ids.py")
"""The code that chooses exposure's part (files of the ``lineage`` package); the graph's own
version does not cover it (analysis code changes no fold)."""
VERTEX_FIELDS = ("id", "label", *VERTEX_INTERVAL)
EDGE_FIELDS = ("src", "dst", "relationship", *EDGE_INTERVAL, "last_seen")
STEP_PARTS = ("b", "start", "end", "ptr")
"""A stored step CSR's arrays (:class:`Steps`), each ``<steps-digest>.<part>.npy``."""
ARRAYS = ("row_vertex", "row_label", "row_start", "row_end", "row_ptr",
          "edge_src", "edge_dst", "edge_rel", "edge_start", "edge_end", "edge_last")


@dataclass
class Arrays:
    """The graph's whole history as arrays. ``ids``: vertex ids sorted by code point (a vertex is
    its position); vertex rows grouped by vertex (``row_ptr``, several rows being several
    intervals) with label codes into ``labels``; edge rows between two vertices with codes into
    ``relationships``; intervals as int64 microseconds (:func:`lineage.graph.asof.micros`);
    ``edge_bounds``, the edges' stored ``valid_from``/``valid_to`` (the networkx view's intervals)."""

    ids: "pa.Array"
    labels: list[str]
    relationships: list[str]
    row_vertex: np.ndarray
    row_label: np.ndarray
    row_start: np.ndarray
    row_end: np.ndarray
    row_ptr: np.ndarray
    edge_src: np.ndarray
    edge_dst: np.ndarray
    edge_rel: np.ndarray
    edge_start: np.ndarray
    edge_end: np.ndarray
    edge_last: np.ndarray
    edge_bounds: "pa.Table"
    steps: dict[Selection, Steps] = field(default_factory=dict)
    """The stored step CSRs (:func:`selections`), when read from an index that has them."""


class Steps:
    """The step CSR of one rule selection: ``b[ptr[a]:ptr[a+1]]`` sorted, with intervals."""

    def __init__(self, b: np.ndarray, start: np.ndarray, end: np.ndarray, ptr: np.ndarray) -> None:
        self.b, self.start, self.end, self.ptr = b, start, end, ptr

    @classmethod
    def of(cls, n: int, a: np.ndarray, b: np.ndarray, start: np.ndarray, end: np.ndarray) -> "Steps":
        order = np.lexsort((b, a))
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(a, minlength=n), out=ptr[1:])
        return cls(b[order], start[order], end[order], ptr)


Selection = tuple[frozenset[str], frozenset[str]]
"""(relationships walked src->dst, relationships walked dst->src): ``analysis.engine.directions``."""


def steps_of(arrays: Arrays, forward: frozenset[str], backward: frozenset[str]) -> Steps:
    """The CSR of one rule selection: each edge row walked its rule's way, its interval narrowed
    to each pair of vertex rows of its ends (usually one pair); self-loops are never steps."""
    codes = {rel: i for i, rel in enumerate(arrays.relationships)}
    fwd = np.isin(arrays.edge_rel, [codes[r] for r in forward if r in codes])
    bwd = np.isin(arrays.edge_rel, [codes[r] for r in backward if r in codes])
    a = np.concatenate([arrays.edge_src[fwd], arrays.edge_dst[bwd]])
    b = np.concatenate([arrays.edge_dst[fwd], arrays.edge_src[bwd]])
    start = np.concatenate([arrays.edge_start[fwd], arrays.edge_start[bwd]])
    end = np.concatenate([arrays.edge_end[fwd], arrays.edge_end[bwd]])
    loop = a != b
    a, b, start, end = a[loop], b[loop], start[loop], end[loop]
    for side in (0, 1):  # intersect with the vertex rows of each end
        end_of = (a, b)[side]
        counts = arrays.row_ptr[end_of + 1] - arrays.row_ptr[end_of]
        take = np.repeat(np.arange(len(end_of)), counts)
        rows = np.repeat(arrays.row_ptr[end_of], counts) + offsets(counts)
        a, b = a[take], b[take]
        start = np.maximum(start[take], arrays.row_start[rows])
        end = np.minimum(end[take], arrays.row_end[rows])
    return Steps.of(len(arrays.ids), a, b, start, end)


def offsets(counts: np.ndarray) -> np.ndarray:
    """``[0..c0), [0..c1), ...`` concatenated: positions within each gathered CSR row."""
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(counts)
    return np.arange(total, dtype=np.int64) - np.repeat(ends - counts, counts)


def selections() -> list[Selection]:
    """The rule selections whose steps the index stores: impact's (``impact``, ``blast-radius``,
    the report) and upstream's, each as the questions choose them with no ``--relationships``."""
    from lineage.analysis.engine import directions
    from lineage.analysis.rules import IMPACT_RULES, UPSTREAM_RULES

    return [directions(IMPACT_RULES), directions(UPSTREAM_RULES)]


def _steps_name(selection: Selection) -> str:
    """A selection's file prefix: a digest of its two sorted relationship lists."""
    text = json.dumps([sorted(selection[0]), sorted(selection[1])])
    return "steps-" + hashlib.sha256(text.encode()).hexdigest()[:12]


def arrays_of(vertices: "pa.Table", edges: "pa.Table | Iterable[pa.RecordBatch]") -> Arrays:
    """The arrays of a graph's vertex rows and edge rows (a table, or record batches: the edges
    are coded a batch at a time, so only their arrays are ever whole), ``VERTEX_FIELDS`` and
    ``EDGE_FIELDS``, an absent interval column being open. Edge rows missing an end, or whose ends
    are not both vertex ids, are left out: they are never walked (GraphFrames drops them too)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    vertices = vertices.filter(pc.is_valid(vertices.column("id")))
    ids = pc.unique(vertices.column("id"))
    ids = ids.take(pc.sort_indices(ids))
    label_column = vertices.column("label") if "label" in vertices.column_names else pa.nulls(vertices.num_rows, pa.string())
    labels = pc.unique(label_column.drop_null() if label_column.null_count else label_column)
    labels = labels.take(pc.sort_indices(labels))
    vertex = np.asarray(pc.index_in(vertices.column("id"), value_set=ids).to_numpy(zero_copy_only=False), np.int64)
    code = pc.fill_null(pc.index_in(label_column, value_set=labels), -1).to_numpy(zero_copy_only=False)
    order = np.argsort(vertex, kind="stable")
    row_vertex = vertex[order]
    row_ptr = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_vertex, minlength=len(ids)), out=row_ptr[1:])
    relationships: list[str] = []
    parts = [_edge_batch(batch, ids, relationships)
             for batch in (edges.to_batches() if isinstance(edges, pa.Table) else edges)]
    edge = {name: np.concatenate([p[name] for p in parts]) if parts else np.zeros(0, np.int64)
            for name in ARRAYS if name.startswith("edge_")}
    bounds = [p["bounds"] for p in parts]
    return Arrays(
        ids=ids.combine_chunks() if isinstance(ids, pa.ChunkedArray) else ids,
        labels=labels.to_pylist(),
        relationships=relationships,
        row_vertex=row_vertex,
        row_label=np.asarray(code, np.int64)[order],
        row_start=micros(_column(vertices, VERTEX_INTERVAL[0]), vertices.num_rows, start=True)[order],
        row_end=micros(_column(vertices, VERTEX_INTERVAL[1]), vertices.num_rows, start=False)[order],
        row_ptr=row_ptr,
        edge_bounds=pa.concat_tables(bounds).combine_chunks() if bounds else _bounds(pa.table({})),
        **edge,
    )


def _edge_batch(batch: "pa.RecordBatch", ids: "pa.Array", relationships: list[str]) -> dict[str, Any]:
    """One batch of edge rows coded against the vertex ids; ``relationships`` grows with the
    names first seen (so their order is that of first appearance, batch after batch)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    edges = pa.Table.from_batches([batch])
    keep = pc.and_(pc.and_(pc.is_valid(edges.column("src")), pc.is_valid(edges.column("dst"))),
                   pc.is_valid(edges.column("relationship")))
    edges = edges.filter(keep)
    src = pc.index_in(edges.column("src"), value_set=ids)
    dst = pc.index_in(edges.column("dst"), value_set=ids)
    between = pc.and_(pc.is_valid(src), pc.is_valid(dst))
    edges, src, dst = edges.filter(between), src.filter(between), dst.filter(between)
    rel = edges.column("relationship")
    relationships.extend(r for r in pc.unique(rel).to_pylist() if r not in relationships)
    return {
        "edge_src": np.asarray(src.to_numpy(zero_copy_only=False), np.int64),
        "edge_dst": np.asarray(dst.to_numpy(zero_copy_only=False), np.int64),
        "edge_rel": np.asarray(pc.index_in(rel, value_set=pa.array(relationships, pa.string()))
                               .to_numpy(zero_copy_only=False), np.int64),
        "edge_start": micros(_column(edges, EDGE_INTERVAL[0]), edges.num_rows, start=True),
        "edge_end": micros(_column(edges, EDGE_INTERVAL[1]), edges.num_rows, start=False),
        "edge_last": micros(_column(edges, "last_seen"), edges.num_rows, start=False),
        "bounds": _bounds(edges),
    }


def read(wh: "Warehouse") -> Arrays:
    """The arrays of a snapshot's graph: its index when the build wrote one, else from parquet
    (a damaged index is said on stderr and read around: the parquet is the graph)."""
    try:
        found = opened(wh.index)
    except IndexDamaged as damaged:
        print(f"lineage: warning: {damaged}; reading the graph's parquet instead "
              "(`lineage build` writes the index again)", file=sys.stderr)
        found = None
    return found or from_parquet(wh.vertices, wh.edges)


def from_parquet(vertices: Path, edges: Path) -> Arrays:
    """The arrays of the parquet datasets ``vertices`` and ``edges``, the edges read a batch at a
    time (what the index holds, and what a generation without one is read as)."""
    import pyarrow.dataset as ds

    dataset = ds.dataset(str(edges), format="parquet")
    batches = dataset.to_batches(columns=[f for f in EDGE_FIELDS if f in dataset.schema.names], batch_size=1 << 20)
    return arrays_of(_read(vertices, VERTEX_FIELDS), batches)


def usable(directory: Path) -> bool:
    """Whether ``directory`` holds an index a reader will open (of this format, undamaged) with
    everything this code writes in one (the kept properties, the steps of every selection)."""
    try:
        arrays = opened(directory)
        return (arrays is not None and all(properties_in(directory, key) is not None for key in KEPT_PROPERTIES)
                and all(selection in arrays.steps for selection in selections()) and exposure_in(directory) is not None)
    except IndexDamaged:
        return False


def write(vertices: Path, edges: Path, directory: Path,
          exposure: tuple["pa.Table", "pa.Table"]) -> Arrays:
    """Index the graph of the parquet datasets ``vertices`` and ``edges`` into ``directory`` (in
    the build's staged generation): the arrays computed once, the edges read a batch at a time,
    each array written as a file, ``meta.json`` last. ``exposure`` is the part of the graph
    ``exposure`` reads (``analysis.propagation.exposure_part``), handed in by the build: the
    analysis layer is above this module."""
    import pyarrow as pa

    arrays = from_parquet(vertices, edges)
    directory.mkdir(parents=True, exist_ok=True)
    for name in ARRAYS:
        np.save(directory / f"{name}.npy", getattr(arrays, name), allow_pickle=False)
    kept = kept_properties(vertices)
    for file, table in ((IDS, pa.table({"id": arrays.ids})), (BOUNDS, arrays.edge_bounds), (PROPERTIES, kept),
                        *zip(EXPOSURE, exposure)):
        with pa.OSFile(str(directory / file), "wb") as sink, pa.ipc.new_file(sink, table.schema) as writer:
            writer.write_table(table)
    stored = {}
    for selection in selections():  # the traversals' adjacency, as the questions walk it
        name, steps = _steps_name(selection), steps_of(arrays, *selection)
        for part in STEP_PARTS:
            np.save(directory / f"{name}.{part}.npy", getattr(steps, part), allow_pickle=False)
        stored[name] = [sorted(selection[0]), sorted(selection[1])]
    meta = {"format": FORMAT, **_sizes(arrays.ids, vars(arrays), arrays.edge_bounds), "properties": kept.num_rows,
            "kept": list(KEPT_PROPERTIES), "labels": arrays.labels, "relationships": arrays.relationships, "steps": stored,
            "exposure": {"rows": [table.num_rows for table in exposure], "version": exposure_version()}}
    _write_last(directory / META, json.dumps(meta, indent=1))
    return arrays


def opened(directory: Path) -> Arrays | None:
    """The index in ``directory`` mapped into memory, or None when there is none of this format
    (a generation built before the index, or by another layout); :class:`IndexDamaged` when its
    files cannot be read or do not match its ``meta.json``."""
    meta = _meta(directory)
    if meta is None:
        return None
    try:
        arrays = {name: np.load(directory / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in ARRAYS}
    except (OSError, ValueError) as error:
        raise IndexDamaged(f"the question index {directory} cannot be read: {error}") from None
    ids, bounds = _mapped(directory, IDS).column("id").combine_chunks(), _mapped(directory, BOUNDS)
    if _sizes(ids, arrays, bounds) != {k: meta.get(k) for k in ("vertices", "vertex_rows", "edge_rows")}:
        raise IndexDamaged(f"the question index {directory} does not match its {META}")
    return Arrays(ids=ids, labels=meta["labels"], relationships=meta["relationships"], edge_bounds=bounds,
                  steps=_stored_steps(directory, meta, len(ids)), **arrays)


def _stored_steps(directory: Path, meta: dict[str, Any], n: int) -> dict[Selection, Steps]:
    """The step CSRs ``meta`` lists, mapped (an index written before them lists none)."""
    found = {}
    for name, (forward, backward) in (meta.get("steps") or {}).items():
        try:
            parts = {part: np.load(directory / f"{name}.{part}.npy", mmap_mode="r", allow_pickle=False)
                     for part in STEP_PARTS}
        except (OSError, ValueError) as error:
            raise IndexDamaged(f"the question index {directory} cannot be read: {error}") from None
        if len(parts["ptr"]) != n + 1 or not len(parts["b"]) == len(parts["start"]) == len(parts["end"]) == parts["ptr"][-1]:
            raise IndexDamaged(f"the question index {directory} does not match its {META} ({name})")
        found[(frozenset(forward), frozenset(backward))] = Steps(**parts)
    return found


def _meta(directory: Path) -> dict[str, Any] | None:
    """The index's ``meta.json`` when it is one of this :data:`FORMAT` (else None: read the parquet)."""
    try:
        meta = json.loads((directory / META).read_text())
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) and meta.get("format") == FORMAT else None


def kept_properties(vertices: Path) -> "pa.Table":
    """``(id, label, key, value, row)`` of each vertex row that has one of :data:`KEPT_PROPERTIES`,
    in the rows' order (a later row of an id is its later interval); ``row``: its position in the
    vertex dataset read whole."""
    import pyarrow as pa
    import pyarrow.compute as pc

    schema = pa.schema([("id", pa.string()), ("label", pa.string()), ("key", pa.string()), ("value", pa.string()),
                        ("row", pa.int64())])
    table = _read(vertices, ("id", "label", "properties"))
    parts = []
    for key in KEPT_PROPERTIES if "properties" in table.column_names else ():
        values = pc.map_lookup(table.column("properties"), query_key=key, occurrence="last")
        has = pc.is_valid(values)
        found = table.column("id").filter(has)
        parts.append(pa.table({"id": found, "label": table.column("label").filter(has),
                               "key": pa.array([key] * len(found), pa.string()),
                               "value": values.filter(has).cast(pa.string()),
                               "row": pa.array(np.arange(table.num_rows, dtype=np.int64)).filter(has)}, schema=schema))
    return pa.concat_tables(parts).combine_chunks() if parts else schema.empty_table()


def properties_in(directory: Path, key: str) -> "pa.Table | None":
    """``(id, label, value, row)`` of the vertex rows with ``key`` (one of :data:`KEPT_PROPERTIES`), from
    the index in ``directory``; None when there is none of this format, or it was written before
    :data:`PROPERTIES` (read the parquet then); :class:`IndexDamaged` when the file cannot be read
    or does not match its ``meta.json``."""
    import pyarrow.compute as pc

    if key not in KEPT_PROPERTIES:
        raise ValueError(f"{key} is not kept in the question index: {KEPT_PROPERTIES}")
    meta = _meta(directory)
    if meta is None or "properties" not in meta or key not in meta.get("kept", KEPT_PROPERTIES[:1]):
        return None  # an index written before ``key`` was kept: read the parquet
    table = _mapped(directory, PROPERTIES)
    if table.num_rows != meta.get("properties") or table.column_names != ["id", "label", "key", "value", "row"]:
        raise IndexDamaged(f"the question index {directory} does not match its {META}")
    return table.filter(pc.equal(table.column("key"), key)).drop_columns(["key"])


def exposure_version() -> str:
    """A digest of the source of :data:`EXPOSURE_MODULES`: a part stored by other code may not be
    the part this code would choose, and is read around (an edit only costs the next build 10 s).
    Read as package resources, as ``graph_version`` reads its files: under ``spark-submit`` the
    package is a zip, and a module's file is no path there."""
    from importlib import resources

    digest = hashlib.sha256()
    root = resources.files("lineage")
    for name in EXPOSURE_MODULES:
        digest.update(name.encode() + b"\0" + root.joinpath(name).read_bytes())
    return digest.hexdigest()[:16]


def exposure_in(directory: Path) -> tuple["pa.Table", "pa.Table"] | None:
    """The part of the graph ``exposure`` reads (``analysis.propagation.exposure_part``) from the
    index in ``directory``, mapped; None when there is none of this format, or it was written
    before :data:`EXPOSURE` or by other code (find them in the parquet then); :class:`IndexDamaged`
    when the files cannot be read or do not match its ``meta.json``."""
    meta = _meta(directory)
    stored = (meta or {}).get("exposure")
    if not isinstance(stored, dict) or stored.get("version") != exposure_version():
        return None
    tables = tuple(_mapped(directory, file) for file in EXPOSURE)
    if [table.num_rows for table in tables] != stored.get("rows"):
        raise IndexDamaged(f"the question index {directory} does not match its {META} (exposure)")
    return tables[0], tables[1]


def positions(ids: "pa.Array", wanted: Iterable[str]) -> dict[str, int]:
    """Each of ``wanted`` that is one of the sorted ``ids`` -> its position, by binary search (one
    id decoded per probe: for a few ids, no Python string per vertex)."""
    found, ordered = {}, _Sorted(ids)
    for vid in set(wanted):
        i = bisect_left(ordered, vid)
        if i < len(ids) and ids[i].as_py() == vid:
            found[vid] = i
    return found


class _Sorted:
    """The sorted Arrow ids as a sequence of strings, for ``bisect``."""

    def __init__(self, ids: "pa.Array") -> None:
        self.ids = ids

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> str:
        return self.ids[i].as_py()


class IndexDamaged(Exception):
    """An index whose files cannot be read or disagree with ``meta.json``."""


def _sizes(ids: "pa.Array", arrays: dict[str, Any], bounds: "pa.Table") -> dict[str, int | None]:
    """Vertices, vertex rows and edge rows, when every array agrees (None where they disagree)."""
    def one(lengths: set[int]) -> int | None:
        return lengths.pop() if len(lengths) == 1 else None

    rows = {len(arrays[n]) for n in ARRAYS if n.startswith("row_") and n != "row_ptr"}
    return {"vertices": one({len(ids), len(arrays["row_ptr"]) - 1}), "vertex_rows": one(rows),
            "edge_rows": one({len(arrays[n]) for n in ARRAYS if n.startswith("edge_")} | {bounds.num_rows})}


def _bounds(edges: "pa.Table") -> "pa.Table":
    import pyarrow as pa

    return pa.table({name: edges.column(name) if name in edges.column_names else pa.nulls(edges.num_rows, pa.timestamp("us", tz="UTC"))
                     for name in EDGE_INTERVAL}).combine_chunks()


def _mapped(directory: Path, file: str) -> "pa.Table":
    """One Arrow IPC file of the index, mapped; :class:`IndexDamaged` when it cannot be read."""
    import pyarrow as pa

    try:
        return pa.ipc.open_file(pa.memory_map(str(directory / file))).read_all()
    except (OSError, ValueError, pa.ArrowException) as error:
        raise IndexDamaged(f"the question index {directory} cannot be read: {error}") from None


def _write_last(path: Path, text: str) -> None:
    """``text`` into ``path`` by a rename, after the files it describes are on disk."""
    partial = path.with_suffix(".partial")
    with open(partial, "w") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(partial, path)


def _column(table: "pa.Table", name: str) -> Any:
    return table.column(name) if name in table.column_names else None


def _read(path: Any, fields: Sequence[str]) -> "pa.Table":
    """The wanted columns of a parquet dataset directory (Spark's ``_SUCCESS``/``.crc`` skipped)."""
    import pyarrow.dataset as ds

    dataset = ds.dataset(str(path), format="parquet")
    return dataset.to_table(columns=[f for f in fields if f in dataset.schema.names])
