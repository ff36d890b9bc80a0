"""The Spark engine: the same ``reach`` as the local engine, for graphs that do not fit in memory.

Two ways to run the level-synchronous BFS, with identical results (tested):

* ``frontier`` (default, faster in ``benchmarks/reach.py``): each level joins only the vertices
  reached last level with the steps, drops those already reached, keeps the smallest path;
* ``messages``: GraphFrames ``aggregateMessages`` over the whole step graph each level, vertex
  state (distance, path, active) carried on every vertex. (GraphFrames 0.8.2's ``Pregel`` always
  runs ``maxIter`` supersteps, with no stop when no message is sent, so it cannot serve a BFS of
  unknown depth; this is the same superstep written as a loop that stops.)

Both carry the witness path as an ``array<string>`` and take ``min`` over candidate paths, which
is the lexicographic tie-break of ``lineage.analysis.engine``. Every level is
``localCheckpoint``-ed so plans stay short however deep the search goes; the graph itself is
never collected, only the answer.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Collection, Sequence

from lineage.render import progress
from lineage.analysis.engine import Affected, check_depth, directions
from lineage.analysis.rules import IMPACT_RULES, ImpactRule

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

METHODS = ("frontier", "messages")
DEFAULT_METHOD = "frontier"


def listed(runs: bool = False) -> "Column":
    """The rows an answer lists: every reached id with ``runs``, else not the runs
    (``lineage.ids.RUN_PREFIXES``: walked through, never listed), as the local engine's Chunk."""
    from pyspark.sql import functions as F

    from lineage.graph.fold import is_run

    return F.lit(True) if runs else ~is_run(F.col("id"))


def _steps(vertices: "DataFrame", edges: "DataFrame", forward: frozenset[str], backward: frozenset[str]) -> "DataFrame":
    """Distinct ``(a, b)``: impact can flow from ``a`` to ``b`` in one step, both ends vertices."""
    from pyspark.sql import functions as F

    relationship = F.col("relationship")
    walked = edges.where(relationship.isin(sorted(forward))).select(F.col("src").alias("a"), F.col("dst").alias("b"))
    if backward:
        against = edges.where(relationship.isin(sorted(backward))).select(F.col("dst").alias("a"), F.col("src").alias("b"))
        walked = against if not forward else walked.unionByName(against)
    ids = vertices.select("id")
    return (
        walked.where(F.col("a") != F.col("b"))
        .join(ids.withColumnRenamed("id", "a"), "a", "left_semi")
        .join(ids.withColumnRenamed("id", "b"), "b", "left_semi")
        .select("a", "b")
        .distinct()
    )


def materialize(frame: "DataFrame") -> tuple["DataFrame", int]:
    """``frame`` computed once (local checkpoint, filled by the count: one job) and its row
    count, as a plan with no history.

    A checkpoint keeps the size estimate of the plan it came from, and Spark estimates a join
    as the *product* of its sides' sizes: fed back level after level, the estimate of the state
    self-joined by ``aggregateMessages`` grows doubly exponentially (BigInt arithmetic took
    minutes by level 11). Re-wrapping the checkpointed rows drops that estimate; the count
    decides broadcasts instead (``_small``).
    """
    from pyspark.sql import DataFrame

    checkpointed = frame.localCheckpoint(eager=False)
    rows = checkpointed.count()
    session = frame.sparkSession
    fresh = session._jsparkSession.internalCreateDataFrame(
        checkpointed._jdf.queryExecution().toRdd(), checkpointed._jdf.schema(), False
    )
    return DataFrame(fresh, session), rows


BROADCAST_ROWS = 50_000
"""Frontiers and reached sets up to this many rows are broadcast into the level's joins (the
checkpointed frames carry no size estimate Spark could use for that choice itself)."""


def _small(frame: "DataFrame", rows: int) -> "DataFrame":
    from pyspark.sql import functions as F

    return F.broadcast(frame) if rows <= BROADCAST_ROWS else frame


REMATERIALIZE_LEVELS = 8
"""The reached set is a union of the levels' frames, re-materialized every this many levels."""


def frontier_bfs(steps: "DataFrame", start: "DataFrame", max_depth: int | None) -> "DataFrame":
    """``(id, distance, path)`` of every vertex within ``max_depth`` steps of ``start`` (``id``),
    by joining each level's new vertices with the steps: work per level ~ the frontier's edges."""
    from pyspark.sql import functions as F

    reached, count = materialize(start.select("id", F.lit(0).alias("distance"), F.array("id").alias("path")))
    frontier, size = reached.select("id", "path"), count
    depth = 0
    while size and (max_depth is None or depth < max_depth):
        depth += 1
        candidates = _small(frontier, size).join(steps, F.col("id") == F.col("a")).select(
            F.col("b").alias("id"), F.concat(F.col("path"), F.array(F.col("b"))).alias("path")
        )
        frontier, size = materialize(
            candidates.join(_small(reached.select("id"), count), "id", "left_anti")
            .groupBy("id")
            .agg(F.min("path").alias("path"))
        )
        progress.update("spark BFS: level", depth, detail=f"{size} new, {count} reached")
        if size:
            reached = reached.unionByName(frontier.select("id", F.lit(depth).alias("distance"), "path"))
            count += size
            if depth % REMATERIALIZE_LEVELS == 0:
                reached, count = materialize(reached)
    return reached


def message_bfs(steps: "DataFrame", start: "DataFrame", max_depth: int | None) -> "DataFrame":
    """The same answer with GraphFrames ``aggregateMessages``: each superstep every active vertex
    offers ``path + [dst]`` to its unreached step targets, which keep the smallest offer."""
    from graphframes import GraphFrame
    from graphframes.lib import AggregateMessages as AM
    from pyspark.sql import functions as F

    ends = steps.select(F.col("a").alias("id")).unionByName(steps.select(F.col("b").alias("id")))
    begun = start.select("id", F.lit(True).alias("_start"))
    state, _ = materialize(
        ends.unionByName(start.select("id"))
        .distinct()
        .join(begun, "id", "left")
        .select(
            "id",
            F.when(F.col("_start"), F.lit(0)).alias("distance"),
            F.when(F.col("_start"), F.array("id")).alias("path"),
            F.coalesce(F.col("_start"), F.lit(False)).alias("active"),
        )
    )
    links = steps.select(F.col("a").alias("src"), F.col("b").alias("dst"))
    offer = F.when(
        AM.src["active"] & AM.dst["distance"].isNull(), F.concat(AM.src["path"], F.array(AM.dst["id"]))
    )
    depth = 0
    while max_depth is None or depth < max_depth:
        depth += 1
        with warnings.catch_warnings():  # graphframes 0.8.2 still builds DataFrames from sql_ctx
            warnings.simplefilter("ignore", UserWarning)
            offers = GraphFrame(state, links).aggregateMessages(F.min(AM.msg).alias("offer"), sendToDst=offer)
        offers, size = materialize(offers.where(F.col("offer").isNotNull()))
        if not size:
            break
        state, _ = materialize(
            state.join(offers, "id", "left").select(
                "id",
                F.coalesce("distance", F.when(F.col("offer").isNotNull(), F.lit(depth))).alias("distance"),
                F.coalesce("path", "offer").alias("path"),
                F.col("offer").isNotNull().alias("active"),
            )
        )
    return state.where(F.col("distance").isNotNull()).select("id", "distance", "path")


_SEARCHES = {"frontier": frontier_bfs, "messages": message_bfs}


class SparkEngine:
    """Reachability with Spark DataFrames (see ``lineage.analysis.engine``); ``method`` picks
    the BFS implementation, ``frontier`` or ``messages`` (same answers)."""

    name = "spark"

    def __init__(self, vertices: "DataFrame", edges: "DataFrame", *, method: str = DEFAULT_METHOD) -> None:
        from pyspark.sql import functions as F

        if method not in METHODS:
            raise ValueError(f"unknown Spark method {method!r}: use one of {', '.join(METHODS)}")
        self.method = method
        self.spark: SparkSession = vertices.sparkSession
        # one row per id (the smallest label if an id repeats, as the local engine does)
        self._vertex_rows = vertices.where(F.col("id").isNotNull()).groupBy("id").agg(F.min("label").alias("label"))
        self._vertices: DataFrame | None = None
        self.edges = edges.select("src", "dst", "relationship").where(
            F.col("src").isNotNull() & F.col("dst").isNotNull() & F.col("relationship").isNotNull()
        )
        self._steps: dict[tuple[frozenset[str], frozenset[str]], DataFrame] = {}

    @classmethod
    def from_warehouse(
        cls, warehouse: str | Path, spark: "SparkSession | None" = None, as_of: Any = None, *, method: str = DEFAULT_METHOD
    ) -> "SparkEngine":
        from lineage.graph import api

        graph = api.graph_frame(warehouse, spark, as_of)
        return cls(graph.vertices, graph.edges, method=method)

    @property
    def vertices(self) -> "DataFrame":
        """``(id, label)``, one row per id; materialized on first use, since every ``reach``
        joins it (blast radius asks many) and it is far smaller than the vertex rows read."""
        if self._vertices is None:
            self._vertices = materialize(self._vertex_rows)[0]
        return self._vertices

    def steps(self, forward: frozenset[str], backward: frozenset[str]) -> "DataFrame":
        """The step graph of one rule selection, materialized once and reused by later calls;
        hash-partitioned by ``a`` (kept by a plain checkpoint) so an unbroadcast frontier join
        shuffles the frontier only. Its size estimate is kept too: it is never fed back."""
        key = (forward, backward)
        if key not in self._steps:
            self._steps[key] = _steps(self.vertices, self.edges, forward, backward).repartition("a").localCheckpoint()
        return self._steps[key]

    def _ids(self, ids: Collection[str]) -> "DataFrame":
        return self.spark.createDataFrame([(i,) for i in dict.fromkeys(ids) if i is not None], "id string")

    def reach(
        self,
        sources: Sequence[str],
        *,
        rules: Sequence[ImpactRule] = IMPACT_RULES,
        max_depth: int | None = None,
        relationships: Collection[str] | None = None,
        method: str | None = None,
        runs: bool = False,
    ) -> list[Affected]:
        from pyspark.sql import functions as F

        check_depth(max_depth)
        method = method or self.method
        if method not in METHODS:
            raise ValueError(f"unknown Spark method {method!r}: use one of {', '.join(METHODS)}")
        if not sources or max_depth == 0:
            return []
        start = self._ids(sources).join(self.vertices.select("id"), "id", "left_semi")
        found = _SEARCHES[method](self.steps(*directions(rules, relationships)), start, max_depth)
        rows = found.where((F.col("distance") > 0) & listed(runs)).join(self.vertices, "id", "left").collect()
        affected = [Affected(r["id"], r["label"], r["distance"], tuple(r["path"])) for r in rows]
        return sorted(affected, key=lambda a: (a.distance, a.id))

    def labels(self, ids: Collection[str]) -> dict[str, str]:
        if not ids:
            return {}
        rows = self._ids(ids).join(self.vertices, "id").collect()
        return {r["id"]: r["label"] for r in rows}
