"""Benchmark ``reach``: Spark frontier joins vs GraphFrames aggregateMessages (and networkx).

Generates lineage-shaped graphs (layered tables, jobs and nodes reading and writing them, FEEDS,
instances, DAGs, baselines, owners, grants, roles, tags, a few FEEDS cycles), runs every method
on the same sources, checks they agree, and prints one table. The default Spark method
(``lineage.analysis.spark.DEFAULT_METHOD``) must be the faster one here.

    .venv/bin/python benchmarks/reach.py [--edges 1000 10000 100000] [--sources 5] [--repeat 3]
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

LAYERS = ("ods", "dwd", "dwm", "dws", "dim", "ads", "rpt", "app")


def lineage_graph(edges: int, seed: int = 7) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """About ``edges`` edge rows shaped like a warehouse's lineage (ids as in DESIGN.md)."""
    rng = random.Random(seed)
    vertices: dict[str, str] = {}
    rows: list[dict[str, Any]] = []

    def vertex(vid: str, label: str) -> str:
        vertices.setdefault(vid, label)
        return vid

    def edge(src: str, relationship: str, dst: str) -> None:
        rows.append({"src": src, "dst": dst, "relationship": relationship})

    per_layer = max(2, edges // 63)  # ~63 edge rows per table of each of the 8 layers
    tables = [
        [vertex(f"table:maxcompute:{layer}.t{i:06d}", "Table") for i in range(per_layer)] for layer in LAYERS
    ]
    users = [vertex(f"user:aliyun:{i:05d}", "User") for i in range(max(3, per_layer // 10))]
    roles = [vertex(f"role:maxcompute:p.r{i:04d}", "Role") for i in range(max(2, per_layer // 40))]
    projects = [vertex(f"project:maxcompute:p{i}", "Project") for i in range(4)]
    tags = [vertex(f"tag:datahub:tag{i}", "Tag") for i in range(10)]
    dags = [vertex(f"dag:dataworks:{i:05d}", "Dag") for i in range(max(2, per_layer // 20))]
    baselines = [vertex(f"baseline:dataworks:{i:04d}", "Baseline") for i in range(max(2, per_layer // 50))]
    for role in roles:
        for user in rng.sample(users, min(3, len(users))):
            edge(user, "HAS_ROLE", role)
    for level in range(1, len(LAYERS)):
        for i, target in enumerate(tables[level]):
            upstream = [t for layer in tables[max(0, level - 2) : level] for t in layer]  # mostly the layer before
            reads = rng.sample(upstream, min(len(upstream), rng.randint(1, 3)))
            if i % 2:
                worker = vertex(f"job:maxcompute:{LAYERS[level]}{i:06d}", "Job")
            else:
                worker = vertex(f"node:dataworks:{LAYERS[level]}{i:06d}", "Node")
                instance = vertex(f"instance:dataworks:{LAYERS[level]}{i:06d}", "Instance")
                edge(worker, "HAS_INSTANCE", instance)
                edge(instance, "IN_DAG", rng.choice(dags))
                if rng.random() < 0.3:
                    edge(worker, "IN_BASELINE", rng.choice(baselines))
            for source in reads:
                edge(worker, "READS", source)
                edge(source, "FEEDS", target)
            edge(worker, "WRITES", target)
    for layer in tables:
        for table in layer:
            edge(rng.choice(users), "OWNS", table)
            edge(table, "IN_PROJECT", rng.choice(projects))
            if rng.random() < 0.3:
                edge(rng.choice(roles + users), "CAN_ACCESS", table)
            if rng.random() < 0.2:
                edge(table, "TAGGED", rng.choice(tags))
    for _ in range(max(1, per_layer // 50)):  # a few cycles: late tables feeding early ones
        edge(rng.choice(tables[-1]), "FEEDS", rng.choice(tables[1]))
    return [{"id": vid, "label": label} for vid, label in vertices.items()], rows


def _timed(run: Any, repeat: int) -> tuple[float, Any]:
    """Best of ``repeat`` runs (the first one also warms the JVM up for that method)."""
    best, result = float("inf"), None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - started)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, nargs="+", default=[1_000, 10_000, 100_000])
    parser.add_argument("--sources", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from lineage.analysis.local import LocalEngine
    from lineage.analysis.spark import DEFAULT_METHOD, METHODS, SparkEngine
    from lineage.spark import get_spark

    spark = get_spark("lineage-bench", **{"spark.sql.adaptive.enabled": "false"})
    warm_vertices, warm_edges = lineage_graph(300, seed=1)  # JIT and first-job costs, paid by neither
    warm = SparkEngine(spark.createDataFrame(warm_vertices, "id string, label string"),
                       spark.createDataFrame(warm_edges, "src string, dst string, relationship string"))
    for method in METHODS:
        warm.reach([warm_vertices[0]["id"]], method=method)
    table: list[tuple[str, int, int, float, int, int]] = []
    for size in args.edges:
        vertices, edges = lineage_graph(size)
        sources = sorted(v["id"] for v in vertices if v["id"].startswith("table:maxcompute:ods."))[: args.sources]
        seconds, answer = _timed(lambda v=vertices, e=edges, s=sources: LocalEngine(v, e).reach(s), args.repeat)
        table.append(("local (networkx, incl. build)", len(edges), len(vertices), seconds, len(answer), max((a.distance for a in answer), default=0)))
        vdf = spark.createDataFrame(vertices, "id string, label string")
        edf = spark.createDataFrame(edges, "src string, dst string, relationship string")
        engine = SparkEngine(vdf, edf)
        engine.reach(sources[:1], max_depth=1)  # materialize the step graph once, shared by both methods
        for method in METHODS:
            seconds, result = _timed(lambda e=engine, s=sources, m=method: e.reach(s, method=m), args.repeat)
            assert result == answer, f"{method} disagrees with local at {size} edges"
            name = f"spark {method}" + (" (default)" if method == DEFAULT_METHOD else "")
            table.append((name, len(edges), len(vertices), seconds, len(result), max((a.distance for a in result), default=0)))
        print(f"... {size} edges done", flush=True)
    print()
    print(f"| {'method':<30} | {'edges':>7} | {'vertices':>8} | {'seconds':>7} | {'affected':>8} | {'depth':>5} |")
    print(f"|{'-' * 32}|{'-' * 9}|{'-' * 10}|{'-' * 9}|{'-' * 10}|{'-' * 7}|")
    for method, edges_n, vertices_n, seconds, affected, depth in table:
        print(f"| {method:<30} | {edges_n:>7} | {vertices_n:>8} | {seconds:>7.3f} | {affected:>8} | {depth:>5} |")
    spark.stop()


if __name__ == "__main__":
    main()
