"""The per-instant blast radius as it was before the one temporal traversal: KEPT as the oracle.

``NetworkxEngine`` is the former ``lineage.analysis.local.LocalEngine`` (networkx, the graph as of
one moment filtered with pyarrow, a level-by-level BFS with the lexicographic witness), and
``blast_radius`` the former ``lineage.analysis.blast.blast_radius``: one engine opened per
distinct change instant, re-reading the graph each time. Tests hold the one-traversal blast
radius (both engines) equal to it; it is not used by the package.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterable, Iterator, Mapping, Sequence

import networkx as nx

from lineage.analysis.blast import ChangeImpact, score
from lineage.analysis.engine import BEFORE, Affected, check_depth, directions
from lineage.analysis.rules import IMPACT_RULES, ImpactRule

if TYPE_CHECKING:
    import pyarrow as pa

VERTEX_FIELDS = ("id", "label", "name", "first_seen", "deleted_at")
EDGE_FIELDS = ("src", "dst", "relationship", "valid_from", "valid_to")


def shortest_witnesses(
    neighbours: Callable[[str], Iterable[str]], sources: Iterable[str], max_depth: int | None = None
) -> dict[str, tuple[str, ...]]:
    """Level-by-level BFS from all ``sources`` at once: every vertex within ``max_depth`` steps ->
    its lexicographically smallest shortest path (sources map to ``(source,)``).

    Each level is kept sorted by its vertices' paths, so comparing two candidate paths into a
    vertex is comparing their predecessors' ranks: the first (lowest-rank) predecessor to reach
    a vertex is its witness, and the next level sorts by (predecessor rank, id). No path is
    copied or compared while searching; cycles end because a vertex is entered once.
    """
    level = sorted(set(sources))
    parent: dict[str, str | None] = {source: None for source in level}
    order: list[str] = list(level)  # discovery order: a parent always precedes its children
    depth = 0
    while level and (max_depth is None or depth < max_depth):
        depth += 1
        following: list[str] = []
        for vertex in level:  # in path order
            fresh = {n for n in neighbours(vertex) if n not in parent}
            for n in fresh:
                parent[n] = vertex
            following.extend(sorted(fresh))
        order.extend(following)
        level = following
    paths: dict[str, tuple[str, ...]] = {}
    for vertex in order:
        up = parent[vertex]
        paths[vertex] = (vertex,) if up is None else paths[up] + (vertex,)
    return paths


def _moment_scalar(kind: "pa.DataType", moment: datetime) -> "pa.Scalar":
    """``moment`` as a scalar of a timestamp column's type: Spark writes UTC-adjusted timestamps
    (read back zoned), other writers may leave them naive (taken as UTC, as everywhere here)."""
    import pyarrow as pa

    utc = moment.astimezone(timezone.utc) if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    if getattr(kind, "tz", None):
        return pa.scalar(utc, type=kind)
    return pa.scalar(utc.replace(tzinfo=None), type=kind)


def valid_at(table: "pa.Table", start: str, end: str, moment: datetime) -> "pa.Table":
    """Rows whose ``[start, end)`` contains ``moment``, a null bound being open: the rule of
    ``lineage.graph.api.at`` (vertices: first_seen/deleted_at, edges: valid_from/valid_to)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    keep = pa.chunked_array([pa.array([True] * table.num_rows, pa.bool_())])
    for name, test in ((start, pc.less_equal), (end, pc.greater)):
        if name not in table.column_names or pa.types.is_null(table.schema.field(name).type):
            continue  # absent or all-null: open on that side
        column = table.column(name)
        inside = pc.or_kleene(pc.is_null(column), test(column, _moment_scalar(column.type, moment)))
        keep = pc.and_kleene(keep, inside)
    return table.filter(keep)


def _read(path: Path, fields: Sequence[str]) -> "pa.Table":
    """The wanted columns of a parquet dataset directory (Spark's ``_SUCCESS``/``.crc`` skipped)."""
    import pyarrow.dataset as ds

    dataset = ds.dataset(str(path), format="parquet")
    return dataset.to_table(columns=[f for f in fields if f in dataset.schema.names])


def _rows(table: "pa.Table") -> Iterator[dict[str, Any]]:
    columns = [table.column(name).to_pylist() for name in table.column_names]
    for values in zip(*columns):
        yield dict(zip(table.column_names, values))


class NetworkxEngine:
    """Reachability on a networkx graph held in memory (see ``lineage.analysis.engine``)."""

    name = "local"

    def __init__(self, vertices: Iterable[Mapping[str, Any]], edges: Iterable[Mapping[str, Any]]) -> None:
        graph = nx.MultiDiGraph()
        for row in vertices:
            vid = row.get("id")
            if vid is None:
                continue
            label, name = row.get("label"), row.get("name")
            if vid in graph:  # a duplicated id: the smallest label, as the Spark engine takes
                known = graph.nodes[vid]
                labels = [x for x in (known["label"], label) if x is not None]
                label, name = (min(labels) if labels else None), known["name"] or name
            graph.add_node(vid, label=label, name=name)
        for row in edges:
            src, dst, relationship = row.get("src"), row.get("dst"), row.get("relationship")
            if relationship is None or src not in graph or dst not in graph:
                continue
            interval = (row.get("valid_from"), row.get("valid_to"))
            if graph.has_edge(src, dst, key=relationship):
                graph.edges[src, dst, relationship]["intervals"].append(interval)
            else:
                graph.add_edge(src, dst, key=relationship, relationship=relationship, intervals=[interval])
        self.graph = graph

    @classmethod
    def from_warehouse(cls, warehouse: str | Path, as_of: Any = None) -> "NetworkxEngine":
        """The built graph (as of a moment), read with pyarrow: no Spark, no JVM."""
        from lineage.graph.api import built, to_time

        wh = built(warehouse, "vertices", "edges")
        vertices, edges = _read(wh.vertices, VERTEX_FIELDS), _read(wh.edges, EDGE_FIELDS)
        moment = to_time(as_of)
        if moment is not None:
            vertices = valid_at(vertices, "first_seen", "deleted_at", moment)
            edges = valid_at(edges, "valid_from", "valid_to", moment)
        return cls(_rows(vertices), _rows(edges))

    def reach(
        self,
        sources: Sequence[str],
        *,
        rules: Sequence[ImpactRule] = IMPACT_RULES,
        max_depth: int | None = None,
        relationships: Collection[str] | None = None,
    ) -> list[Affected]:
        check_depth(max_depth)
        forward, backward = directions(rules, relationships)
        succ, pred = self.graph.succ, self.graph.pred

        def neighbours(vertex: str) -> Iterator[str]:
            if forward:
                for other, keys in succ[vertex].items():
                    if not forward.isdisjoint(keys):
                        yield other
            if backward:
                for other, keys in pred[vertex].items():
                    if not backward.isdisjoint(keys):
                        yield other

        starts = [source for source in sources if source in self.graph]
        paths = shortest_witnesses(neighbours, starts, max_depth)
        nodes = self.graph.nodes
        found = [
            Affected(vid, nodes[vid]["label"], len(path) - 1, path) for vid, path in paths.items() if len(path) > 1
        ]
        return sorted(found, key=lambda a: (a.distance, a.id))

    def labels(self, ids: Collection[str]) -> dict[str, str]:
        nodes = self.graph.nodes
        return {vid: nodes[vid]["label"] for vid in ids if vid in nodes}


def blast_radius(
    changes: Iterable[dict[str, Any]],
    engine_at: Callable[[datetime | None], Any],
    *,
    max_depth: int | None = None,
    importance: dict[str, float] | None = None,
) -> list[ChangeImpact]:
    """Score every change on the graph one instant before it; ranked by score (then time, id).

    ``engine_at(moment)`` opens an engine on the graph as of ``moment``; changes at the same
    instant share one engine. ``importance``: each Table's (:func:`importance_of`).
    """
    by_moment: dict[datetime | None, list[dict[str, Any]]] = {}
    for change in changes:
        moment = change["time"] - BEFORE if change.get("time") else None
        by_moment.setdefault(moment, []).append(change)
    results = []
    for moment, group in sorted(by_moment.items(), key=lambda item: _time_key(item[0])):
        engine = engine_at(moment)
        for change in group:
            affected = tuple(engine.reach([change["entity_id"]], max_depth=max_depth))
            results.append(ChangeImpact(
                change_id=change["change_id"], entity_id=change["entity_id"], entity_label=change["entity_label"],
                kind=change["kind"], time=change.get("time"), actor=change.get("actor"), event_id=change["event_id"],
                score=score(change["kind"], affected, importance=importance), summary=dict(sorted(Counter(a.label for a in affected).items())),
                count=len(affected), affected=affected, reported_by=tuple(change.get("reported_by") or ()),
            ))
    return sorted(results, key=lambda r: (-r.score, *_time_key(r.time), r.change_id))


def _time_key(moment: datetime | None) -> tuple[bool, float]:
    return (moment is not None, moment.timestamp() if moment else 0.0)


def per_instant_blast(warehouse: Any, changes: Iterable[dict[str, Any]], max_depth: int | None = None,
                      engine_at: Callable[[datetime | None], Any] | None = None) -> list[ChangeImpact]:
    """Today's design on a warehouse: a networkx engine per distinct change instant."""
    changes = list(changes)
    opener = engine_at or (lambda moment: NetworkxEngine.from_warehouse(warehouse, as_of=moment))
    return blast_radius(changes, opener, max_depth=max_depth, importance=importance_of(warehouse, changes))


def importance_of(warehouse: Any, changes: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Each Table's importance as ``lineage.analysis.blast`` documents it (PageRank of hygiene's
    flow graph over the smallest rank, capped at 10, 6 decimals), as of the last change's time,
    from the rows read again as of then (not from a traversal's arrays)."""
    from lineage.analysis import hygiene
    from lineage.graph.api import load_rows

    times = [c["time"] for c in changes if c.get("time") is not None]
    if not times:
        return {}
    vertices, edges = load_rows(warehouse, max(times))
    vertices = sorted(vertices, key=lambda v: v["id"])
    edges = sorted(edges, key=lambda e: (e["src"], e["dst"], e["relationship"]))
    ranks = hygiene.pagerank(hygiene.flow_graph(hygiene.dataset_graph(vertices, edges), edges,
                                                {v["id"] for v in vertices}))
    least = min(ranks.values(), default=1.0)
    return {v["id"]: round(min(10.0, ranks[v["id"]] / least), 6) for v in vertices
            if v.get("label") == "Table" and v["id"] in ranks}
