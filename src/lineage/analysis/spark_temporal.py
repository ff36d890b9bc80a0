"""The temporal traversal on Spark: every query (a change, an instant) in one level-synchronous BFS.

Frontier rows carry ``(q, moment, anytime, id, path)``: the query number, its instant as
microseconds (``anytime``: no instant, the whole history), the vertex and its witness path.
Each level joins the frontier with the *steps* on ``id = a`` and keeps a step only when its
interval contains the row's instant (``start <= moment < end``, the as-of rule of
``lineage.graph.asof`` in microseconds); drops the ``(q, id)`` already reached; keeps the
smallest path per ``(q, id)`` (the lexicographic witness). A step's interval is its edge's
``[valid_from, valid_to)`` narrowed to the vertex rows of both ends, so an edge is walked only
between two ids that are vertices then. One job sequence answers the whole window: its number
of rounds is the longest path, not the number of changes. Labels (as of each query's instant),
counts per (label, distance) and the first affected vertices per query are computed in Spark;
the driver collects only those, or streams every row (``limit=None``).
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterator, Mapping, Sequence

from lineage.render import progress
from lineage.analysis.engine import IMPORTANT_LABEL, Affected, Impact, Query, check_depth, directions
from lineage.analysis.exact import exact_sum
from lineage.analysis.neighbourhood import EFFECT_RELATIONSHIPS, Step
from lineage.analysis.rules import IMPACT_RULES, ImpactRule
from lineage.analysis.spark import REMATERIALIZE_LEVELS, _small, listed, materialize
from lineage.graph.asof import EDGE_INTERVAL, VERTEX_INTERVAL, instant, spark_micros

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession


def _bound(frame: "DataFrame", name: str, *, start: bool) -> "Column":
    from pyspark.sql import functions as F

    column = F.col(name) if name in frame.columns else F.lit(None).cast("timestamp")
    return spark_micros(column, start=start)


def _valid(start: str = "start", end: str = "end") -> "Column":
    """The as-of rule in microseconds against each row's own instant."""
    from pyspark.sql import functions as F

    return F.col("anytime") | ((F.col(start) <= F.col("moment")) & (F.col("moment") < F.col(end)))


class SparkTraversal:
    """The whole history as DataFrames; ``impacts`` answers many queries in one BFS."""

    name = "spark"

    def __init__(self, vertices: "DataFrame", edges: "DataFrame") -> None:
        from pyspark.sql import functions as F

        self.spark: SparkSession = vertices.sparkSession
        label = F.col("label") if "label" in vertices.columns else F.lit(None).cast("string")
        self.vertex_rows, _ = materialize(vertices.where(F.col("id").isNotNull()).select(
            "id", label.alias("label"), _bound(vertices, VERTEX_INTERVAL[0], start=True).alias("start"),
            _bound(vertices, VERTEX_INTERVAL[1], start=False).alias("end"),
        ))
        self.edges = edges.where(
            F.col("src").isNotNull() & F.col("dst").isNotNull() & F.col("relationship").isNotNull()
        ).select("src", "dst", "relationship", _bound(edges, EDGE_INTERVAL[0], start=True).alias("start"),
                 _bound(edges, EDGE_INTERVAL[1], start=False).alias("end"))
        self._steps: dict[tuple[frozenset[str], frozenset[str]], DataFrame] = {}
        ids = self.vertex_rows.select("id").distinct()
        self._rows = edges.where(F.col("relationship").isin(*EFFECT_RELATIONSHIPS)).select(
            "src", "dst", "relationship", _bound(edges, EDGE_INTERVAL[0], start=True).alias("start"),
            _bound(edges, EDGE_INTERVAL[1], start=False).alias("end"),
            _bound(edges, "last_seen", start=False).alias("last"),
        ).join(ids.withColumnRenamed("id", "src"), "src", "left_semi").join(
            ids.withColumnRenamed("id", "dst"), "dst", "left_semi")
        self._effect_rows: DataFrame | None = None

    @classmethod
    def from_warehouse(cls, warehouse: str | Path, spark: "SparkSession | None" = None) -> "SparkTraversal":
        from lineage.graph import api

        vertices, edges = api.load(warehouse, spark)
        return cls(vertices, edges)

    def steps(self, forward: frozenset[str], backward: frozenset[str]) -> "DataFrame":
        """``(a, b, start, end)``: impact may flow a -> b while ``start <= t < end``; built once per
        rule selection, hash-partitioned by ``a``."""
        from pyspark.sql import functions as F

        key = (forward, backward)
        if key in self._steps:
            return self._steps[key]
        relationship = F.col("relationship")
        walked = self.edges.where(relationship.isin(sorted(forward) or [""])).select(
            F.col("src").alias("a"), F.col("dst").alias("b"), "start", "end")
        against = self.edges.where(relationship.isin(sorted(backward) or [""])).select(
            F.col("dst").alias("a"), F.col("src").alias("b"), "start", "end")
        rows = self.vertex_rows
        va = rows.select(F.col("id").alias("a"), F.col("start").alias("a_start"), F.col("end").alias("a_end"))
        vb = rows.select(F.col("id").alias("b"), F.col("start").alias("b_start"), F.col("end").alias("b_end"))
        steps = (
            walked.unionByName(against).where(F.col("a") != F.col("b"))
            .join(va, "a").join(vb, "b")
            .select("a", "b", F.greatest("start", "a_start", "b_start").alias("start"),
                    F.least("end", "a_end", "b_end").alias("end"))
        )
        self._steps[key] = steps.repartition("a").localCheckpoint()
        return self._steps[key]

    def vertex_labels(self, ids: Collection[str]) -> dict[str, str]:
        """Labels over the whole history (``lineage.analysis.neighbourhood.Neighbourhood``)."""
        from pyspark.sql import functions as F

        if not ids:
            return {}
        wanted = self.spark.createDataFrame([(i,) for i in sorted(set(ids))], "id string")
        rows = self.vertex_rows.join(F.broadcast(wanted), "id").groupBy("id").agg(F.min("label").alias("label"))
        return {r["id"]: r["label"] for r in rows.collect()}

    def vertex_spans(self, ids: Collection[str]) -> dict[str, list[tuple[int, int]]]:
        """Each id's ``(start, end)`` validity intervals in microseconds (``neighbourhood.Neighbourhood``)."""
        from pyspark.sql import functions as F

        if not ids:
            return {}
        wanted = self.spark.createDataFrame([(i,) for i in sorted(set(ids))], "id string")
        spans: dict[str, list[tuple[int, int]]] = {}
        for r in self.vertex_rows.join(F.broadcast(wanted), "id").select("id", "start", "end").collect():
            spans.setdefault(r["id"], []).append((r["start"], r["end"]))
        return spans

    def edge_rows(self, ids: Collection[str], relationships: Collection[str], *, by: str) -> list[Step]:
        """Edge rows of ``relationships`` whose ``by`` end is one of ``ids`` (``neighbourhood.Neighbourhood``)."""
        from pyspark.sql import functions as F

        if not ids or not relationships:
            return []
        if self._effect_rows is None:
            self._effect_rows = self._rows.localCheckpoint()
        wanted = self.spark.createDataFrame([(i,) for i in sorted(set(ids))], f"{by} string")
        rows = self._effect_rows.where(F.col("relationship").isin(*sorted(relationships))).join(F.broadcast(wanted), by)
        return [Step(r["src"], r["dst"], r["relationship"], r["start"], r["end"], r["last"]) for r in rows.collect()]

    def graph_at(self, moment: datetime, relationships: Collection[str], labels: Collection[str]
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """``TemporalGraph.graph_at`` on the frames already loaded: vertices valid at ``moment``
        (label: the smallest of their rows then), edges of ``relationships`` valid then between
        two of them; only those rows are collected."""
        from pyspark.sql import functions as F

        t = F.lit(instant(moment))
        alive = (self.vertex_rows.where((F.col("start") <= t) & (t < F.col("end")))
                 .groupBy("id").agg(F.min("label").alias("label")))
        edges = (self.edges.where(F.col("relationship").isin(*sorted(relationships) or [""])
                                  & (F.col("start") <= t) & (t < F.col("end")))
                 .join(alive.select(F.col("id").alias("src")), "src", "left_semi")
                 .join(alive.select(F.col("id").alias("dst")), "dst", "left_semi")
                 .select("src", "dst", "relationship").localCheckpoint())
        ends = edges.select(F.col("src").alias("id")).union(edges.select(F.col("dst").alias("id"))).distinct()
        vertices = alive.where(F.col("label").isin(*sorted(labels) or [""])).unionByName(
            alive.join(ends, "id", "left_semi")).distinct()
        return ([{"id": r["id"], "label": r["label"]} for r in vertices.collect()],
                [{"src": r["src"], "dst": r["dst"], "relationship": r["relationship"]} for r in edges.collect()])

    def _queries(self, queries: Sequence[Query]) -> "DataFrame":
        rows = [
            (q, 0 if query.moment is None else instant(query.moment), query.moment is None, source)
            for q, query in enumerate(queries) for source in dict.fromkeys(query.sources) if source is not None
        ]
        return self.spark.createDataFrame(rows, "q int, moment long, anytime boolean, source string")

    def search(
        self,
        queries: Sequence[Query],
        *,
        rules: Sequence[ImpactRule] = IMPACT_RULES,
        max_depth: int | None = None,
        relationships: Collection[str] | None = None,
        runs: bool = False,
    ) -> "DataFrame":
        """``(q, id, distance, path, label)`` of every vertex each query reaches (sources excluded;
        runs walked through, listed only with ``runs``)."""
        from pyspark.sql import functions as F

        check_depth(max_depth)
        steps = self.steps(*directions(rules, relationships))
        asked = self._queries(queries)
        start = (
            asked.join(self.vertex_rows, F.col("source") == F.col("id")).where(_valid())
            .select("q", "moment", "anytime", "id").distinct()
            .select("q", "moment", "anytime", "id", F.array("id").alias("path"))
        )
        frontier, size = materialize(start)
        reached, count = materialize(frontier.select("q", "id", F.lit(0).alias("distance"), "path"))
        depth = 0
        while size and (max_depth is None or depth < max_depth):
            depth += 1
            candidates = (
                _small(frontier, size).join(steps, F.col("id") == F.col("a")).where(_valid())
                .select("q", "moment", "anytime", F.col("b").alias("id"), F.concat("path", F.array("b")).alias("path"))
            )
            frontier, size = materialize(
                candidates.join(_small(reached.select("q", "id"), count), ["q", "id"], "left_anti")
                .groupBy("q", "moment", "anytime", "id").agg(F.min("path").alias("path"))
            )
            progress.update("spark BFS, all changes at once: level", depth, detail=f"{size} new, {count} reached")
            if size:
                reached = reached.unionByName(frontier.select("q", "id", F.lit(depth).alias("distance"), "path"))
                count += size
                if depth % REMATERIALIZE_LEVELS == 0:
                    reached, count = materialize(reached)
        moments = asked.select("q", "moment", "anytime").distinct()
        labelled = (
            reached.where((F.col("distance") > 0) & listed(runs)).join(F.broadcast(moments), "q")
            .join(self.vertex_rows, "id").where(_valid())
            .groupBy("q", "id", "distance", "path").agg(F.min("label").alias("label"))
        )
        return materialize(labelled)[0]

    def impacts(
        self, queries: Sequence[Query], *, max_depth: int | None = None, limit: int | None = None,
        weigh: Callable[[str | None], float] = lambda label: 1.0, importance: Mapping[str, float] | None = None,
        runs: bool = False,
    ) -> Iterator[tuple[int, Impact]]:
        """The blast-radius traversal (``lineage.analysis.engine.Traversal``) on Spark; counts are
        aggregated per (label, distance, importance), ``importance`` joined as a small frame."""
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        if not queries:
            return
        with spread(self.spark):  # gigabytes of paths at 16.6M pairs: not in 4 partitions
            found = self.search(queries, max_depth=max_depth, runs=runs)
            factor = F.lit(1.0)
            counted = found
            if importance:
                weights = self.spark.createDataFrame(sorted(importance.items()), "id string, importance double")
                counted = found.join(F.broadcast(weights), "id", "left")
                factor = F.when(F.col("label") == IMPORTANT_LABEL, F.coalesce("importance", F.lit(1.0))).otherwise(1.0)
            terms: dict[int, list[tuple[str | None, int, int, float]]] = {}
            for row in counted.groupBy("q", "label", "distance", factor.alias("factor")).count().collect():
                terms.setdefault(row["q"], []).append((row["label"], row["distance"], row["count"], row["factor"]))
            if limit is None:
                rows: Iterator[Any] = _batches(found, terms, len(queries))
            elif limit > 0:  # each query's first ``limit``, ranked once, collected a few thousand queries at a time
                rank = F.row_number().over(Window.partitionBy("q").orderBy("distance", "id"))
                listed, _ = materialize(found.withColumn("_rank", rank).where(F.col("_rank") <= limit).drop("_rank"))
                firsts = {q: [(None, 0, min(limit, sum(t[2] for t in found_terms)), 1.0)] for q, found_terms in terms.items()}
                rows = _batches(listed, firsts, len(queries))
            else:
                rows = iter(())
            pending = next(rows, None)
            for q in range(len(queries)):
                affected = []
                while pending is not None and pending["q"] == q:
                    affected.append(Affected(pending["id"], pending["label"], pending["distance"], tuple(pending["path"])))
                    pending = next(rows, None)
                counts = sorted(terms.get(q, []), key=lambda t: (t[0] is None, t[0] or "", t[1], t[3]))
                summary: dict[str, int] = {}
                for label, _, n, _ in counts:
                    summary[label] = summary.get(label, 0) + n  # type: ignore[index]
                total = exact_sum((weigh(label) * factor / max(distance, 1), n) for label, distance, n, factor in counts)
                yield q, Impact(sum(n for _, _, n, _ in counts), summary, total, tuple(affected))


SPREAD_PARTITIONS = "200"
"""The shuffle partitions a traversal's frames start from. At 16.6 million affected pairs they
hold gigabytes of paths: in the session's few partitions (``LINEAGE_SHUFFLE_PARTITIONS``, 4) a
task of the count after the walk ran out of execution memory. Adaptive execution coalesces the
partitions back to about 64 MB each, so a small graph's frames stay in a few."""


@contextmanager
def spread(spark: "SparkSession") -> Iterator[None]:
    """Within the block, adaptive execution starts every shuffle from :data:`SPREAD_PARTITIONS`
    (``spark.sql.adaptive.coalescePartitions.initialPartitionNum``); restored after."""
    key = "spark.sql.adaptive.coalescePartitions.initialPartitionNum"
    before = spark.conf.get(key, None)
    spark.conf.set(key, SPREAD_PARTITIONS)
    try:
        yield
    finally:
        if before is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, before)


COLLECT_ROWS = 200_000
"""Affected rows collected at once when every row is asked for (``limit=None``)."""


def _batches(found: "DataFrame", terms: dict[int, list[tuple[Any, ...]]], queries: int) -> Iterator[Any]:
    """Every row of ``found`` in (q, distance, id) order, collected a few queries at a time (about
    ``COLLECT_ROWS`` rows): a failed job raises in ``collect``, where ``toLocalIterator``'s serving
    thread could leave the driver waiting for a partition that never comes."""
    from pyspark.sql import functions as F

    first, rows = 0, 0
    for q in range(queries + 1):
        if q == queries or (rows and rows + sum(t[2] for t in terms.get(q, [])) > COLLECT_ROWS):
            if rows:
                yield from found.where(F.col("q").between(first, q - 1)).orderBy("q", "distance", "id").collect()
            first, rows = q, 0
        rows += sum(t[2] for t in terms.get(q, []))
