"""Platform hygiene on Spark: GraphFrames' own whole-graph algorithms over the warehouse's graph.

The graph as of T comes from the one GraphFrame of :func:`lineage.graph.api.graph_frame`; the
dataset subgraph (FEEDS between tables and locations) goes to ``connectedComponents`` (islands)
and ``stronglyConnectedComponents`` (cycles), the data-flow graph to ``pageRank`` (importance),
and unused tables are DataFrame joins. Only the answers reach the driver: component labels of
the datasets, the FEEDS edges inside a component, the top tables. The definitions, and the
assembly of answers from component labels, are :mod:`lineage.analysis.hygiene`'s.
"""

from __future__ import annotations

import atexit
from contextlib import contextmanager
import shutil
import tempfile
import warnings
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from lineage.analysis.hygiene import (BYTES_KEYS, DAMPING, DATASET_LABELS, DEFAULT_TOP, DEFAULT_UNUSED_DAYS,
                                      READ_RELATIONSHIPS, RECORDS_KEYS, SCORE_DIGITS, STANDING_LABELS, Hygiene, Important, Unused,
                                      _as_list, cycles_from, islands_from, mentioned)

if TYPE_CHECKING:
    from graphframes import GraphFrame
    from pyspark.sql import Column, DataFrame, SparkSession

PAGERANK_TOL = 1e-10
"""GraphFrames' ``pageRank(tol=...)`` (GraphX's dynamic PageRank, ranks summing to the vertex
count): each vertex stops when its rank moves less than this."""
CC_ALGORITHM = "graphx"
"""GraphFrames' ``connectedComponents`` algorithm. Its default (``graphframes``, large-star/
small-star with a checkpoint every 2 iterations) took 74-86 s on the 60-table generated
platform's 71 datasets where ``graphx`` took 8 s (same components), and without checkpoints its
plans outgrow the driver's heap."""
SCC_MAX_ITER = 1_000_000
"""GraphX's strongly connected components stop when no vertex is left; this only bounds it."""


def ensure_checkpoint_dir(spark: "SparkSession") -> str:
    """``connectedComponents`` checkpoints its iterations: a temporary directory (removed at exit)
    unless the session already has one."""
    current = spark.sparkContext._jsc.sc().getCheckpointDir()
    if current.isDefined():
        return current.get()
    directory = tempfile.mkdtemp(prefix="lineage-checkpoints-")
    atexit.register(shutil.rmtree, directory, True)
    spark.sparkContext.setCheckpointDir(directory)
    return directory


def _graph(vertices: "DataFrame", edges: "DataFrame") -> "GraphFrame":
    from graphframes import GraphFrame

    with _quiet():
        return GraphFrame(vertices, edges)


@contextmanager
def _quiet() -> Iterator[None]:
    """graphframes 0.8.2 still builds DataFrames from ``sql_ctx``: PySpark warns on each call."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _edge_time(moment: datetime) -> "Column":
    """``hygiene.edge_time`` as a column: last_seen unless after T, else valid_from."""
    from pyspark.sql import functions as F

    seen = F.col("last_seen")
    return F.when(seen.isNotNull() & (seen <= F.lit(moment)), seen).otherwise(F.col("valid_from"))


def _in_window(start: datetime, moment: datetime, *, unknown: bool) -> "Column":
    """``hygiene.in_window`` as a column."""
    from pyspark.sql import functions as F

    when = _edge_time(moment)
    timed = F.when(when.isNull(), F.lit(unknown)).otherwise((when > F.lit(start)) & (when <= F.lit(moment)))
    return F.col("src_label").isin(*STANDING_LABELS) | timed


def _number(keys: tuple[str, ...]) -> "Column":
    from pyspark.sql import functions as F

    values = [F.expr(f"try_cast(properties['{key}'] AS double)") for key in keys]
    return F.coalesce(*values)


def unused_frame(vertices: "DataFrame", edges: "DataFrame", moment: datetime, days: int) -> list[Unused]:
    """``hygiene.unused_tables`` with DataFrame joins; only the unused tables are collected."""
    from pyspark.sql import functions as F

    start = moment - timedelta(days=days)
    tables = vertices.where(F.col("label") == "Table").select(F.col("id").alias("dst"))
    into = edges.join(tables, "dst", "left_semi")
    read = into.where(F.col("relationship").isin(*READ_RELATIONSHIPS) & _in_window(start, moment, unknown=True))
    writes = into.where((F.col("relationship") == "WRITES") & _in_window(start, moment, unknown=False))
    runs = writes.where(~F.col("src_label").isin(*STANDING_LABELS))
    unused = writes.select("dst").distinct().join(read.select("dst"), "dst", "left_anti")
    costs = runs.groupBy("dst").agg(
        F.collect_set("src").alias("jobs"), F.max(_edge_time(moment)).alias("last_written"),
        F.sum(_number(BYTES_KEYS)).alias("bytes"), F.sum(_number(RECORDS_KEYS)).alias("records"))
    nodes = into.where((F.col("relationship") == "WRITES") & F.col("src_label").isin(*STANDING_LABELS)).groupBy(
        "dst").agg(F.collect_set("src").alias("nodes"))
    owners = into.where(F.col("relationship") == "OWNS").groupBy("dst").agg(F.collect_set("src").alias("owners"))
    rows = unused.join(costs, "dst", "left").join(nodes, "dst", "left").join(owners, "dst", "left").collect()
    found = []
    for r in rows:
        jobs = r["jobs"] or []
        last = r["last_written"]  # collected as a naive UTC datetime
        found.append(Unused(r["dst"], tuple(sorted(r["owners"] or [])), tuple(sorted(r["nodes"] or jobs)), len(jobs),
                            last.replace(tzinfo=timezone.utc) if last and last.tzinfo is None else last,
                            r["bytes"], r["records"]))
    return sorted(found, key=lambda u: u.id)


def spark_hygiene(warehouse: str | Path, moment: datetime, *, unused_days: int = DEFAULT_UNUSED_DAYS,
                  top: int = DEFAULT_TOP, spark: "SparkSession | None" = None) -> Hygiene:
    """The answer of :func:`lineage.analysis.hygiene.local_hygiene`, computed with GraphFrames."""
    from pyspark.sql import functions as F

    from lineage.graph.api import graph_frame
    from lineage.spark import get_spark

    spark = spark or get_spark("lineage-hygiene")
    frame = graph_frame(warehouse, spark, moment)
    vertices = frame.vertices.select("id", "label", "name").localCheckpoint()
    edges = frame.edges.select("src", "dst", "relationship", "src_label", "valid_from", "last_seen",
                               "properties").localCheckpoint()
    datasets = vertices.where(F.col("label").isin(*DATASET_LABELS)).select("id")
    feeds = (edges.where(F.col("relationship") == "FEEDS")
             .join(datasets.withColumnRenamed("id", "src"), "src", "left_semi")
             .join(datasets.withColumnRenamed("id", "dst"), "dst", "left_semi")
             .groupBy("src", "dst").agg(F.flatten(F.collect_list(F.from_json(
                 F.col("properties")["via"], "array<string>"))).alias("via")))
    dataset_graph = _graph(datasets, feeds)

    ensure_checkpoint_dir(spark)
    with _quiet():
        weak_rows = dataset_graph.connectedComponents(algorithm=CC_ALGORITHM).select("id", "component").collect()
        strong = dataset_graph.stronglyConnectedComponents(maxIter=SCC_MAX_ITER).select("id", "component")
        strong = strong.localCheckpoint()
    weak = {r["id"]: r["component"] for r in weak_rows}
    inner = (feeds.join(strong.withColumnRenamed("id", "src").withColumnRenamed("component", "a"), "src")
             .join(strong.withColumnRenamed("id", "dst").withColumnRenamed("component", "b"), "dst")
             .where(F.col("a") == F.col("b")))
    closing = inner.select("src", "dst", "via", "a").collect()
    looped = {r["a"] for r in closing}
    members = {r["id"]: r["component"] for r in strong.where(F.col("component").isin(list(looped))).collect()} \
        if looped else {}
    cycles = cycles_from(members, [(r["src"], r["dst"], _as_list(r["via"] or [])) for r in closing])

    readers = edges.where(F.col("relationship") == "READS").join(datasets.withColumnRenamed("id", "dst"), "dst",
                                                                 "left_semi")
    flow_edges = feeds.select("src", "dst").unionByName(
        readers.select(F.col("dst").alias("src"), F.col("src").alias("dst"))).distinct()
    flow_vertices = datasets.unionByName(readers.select(F.col("src").alias("id"))).distinct()
    with _quiet():
        ranks = _graph(flow_vertices, flow_edges).pageRank(resetProbability=1 - DAMPING, tol=PAGERANK_TOL).vertices
        ranks = ranks.localCheckpoint()
    total = ranks.agg(F.sum("pagerank")).first()[0] or 1.0
    tables = vertices.where(F.col("label") == "Table").select("id")
    best = ranks.join(tables, "id", "left_semi").select(
        "id", F.round(F.col("pagerank") / F.lit(total), SCORE_DIGITS).alias("score")).orderBy(
        F.col("score").desc(), "id").limit(top).collect()
    owners_of = _owners(edges, [r["id"] for r in best])
    important = [Important(r["id"], r["score"], owners_of.get(r["id"], ())) for r in best]

    result = Hygiene(moment, unused_days, "spark", unused_frame(vertices, edges, moment, unused_days), cycles,
                     islands_from(weak), important)
    result.names = _names(vertices, mentioned(result))
    return result


def _owners(edges: "DataFrame", ids: list[str]) -> dict[str, tuple[str, ...]]:
    from pyspark.sql import functions as F

    if not ids:
        return {}
    rows = edges.where((F.col("relationship") == "OWNS") & F.col("dst").isin(ids)).select("src", "dst").collect()
    found: dict[str, set[str]] = {}
    for r in rows:
        found.setdefault(r["dst"], set()).add(r["src"])
    return {k: tuple(sorted(v)) for k, v in found.items()}


def _names(vertices: "DataFrame", ids: set[str]) -> dict[str, str]:
    from pyspark.sql import functions as F

    if not ids:
        return {}
    wanted = vertices.sparkSession.createDataFrame([(i,) for i in sorted(ids)], "id string")
    rows = vertices.join(wanted, "id", "left_semi").where(F.col("name").isNotNull()).select("id", "name").collect()
    return {r["id"]: r["name"] for r in rows}

