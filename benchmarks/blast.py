"""Benchmark blast radius: per-instant (the former design) vs one temporal traversal, local and Spark.

Builds a synthetic temporal lineage platform of ``--tables`` tables over one week and writes it as
the graph parquet ``lineage build`` writes (``WAREHOUSE/graph/{vertices,edges,changes}``, the
schema of ``tests/export/graphgen.py``): layered tables with columns, owners, projects; DataWorks
nodes reading 2-3 upstream tables and writing one (READS, WRITES, FEEDS), their daily instances in
daily DAGs, baselines; MaxCompute job runs; users and roles with grants opened, revoked and
re-opened during the week; a few tables dropped, some re-created; ~2.3 changes per table (schema
changes, node updates, grants, drops, ...), many at the same instant. 1,000 tables give ~13k
vertices, ~38k edges and ~2,300 changes (the size of the 1,000-table week in issue 14); 40,000
tables are the 10^6-event week.

Each method runs in its own process (so its peak memory is its own) on every change of the week,
with ``--affected 100`` per change as the CLI's ``--json`` default:

* ``per-instant``: the former design (``tests/analysis/per_instant.py``): a networkx engine opened
  per distinct change instant, re-reading the graph each time; stopped after ``--cap`` seconds and
  extrapolated from the instants it finished;
* ``local``: ``lineage.analysis.temporal`` (numpy), graph read once, one traversal;
* ``spark``: ``lineage.analysis.spark_temporal``, one BFS for all changes (session start excluded).

Answers are checked equal: local vs spark on every change (count, summary, score, the first 100
affected with their paths), per-instant vs local on the changes per-instant finished.

    .venv/bin/python benchmarks/blast.py                       # 1,000 and 40,000 tables
    .venv/bin/python benchmarks/blast.py --tables 1000 --cap 600 --methods per-instant,local,spark
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from _measure import children_peak_mb, own_peak_mb  # benchmarks/, the script's folder

ROOT = Path(__file__).resolve().parent.parent

T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)  # the week: [T0, T0 + 7 days)
WEEK = timedelta(days=7)
LAYERS = ("ods", "dwd", "dwm", "dws", "ads", "app")
METHODS = ("per-instant", "local", "spark")


# ------------------------------------------------------------------------------------------------
# the synthetic platform


def platform(tables: int, seed: int = 14) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """(vertex rows, edge rows, change rows) as tuples: vertices ``(id, label, first_seen, deleted_at)``,
    edges ``(src, relationship, dst, valid_from, valid_to)``, changes ``(change_id, entity_id, label, kind, time)``."""
    rng = random.Random(seed)
    vertices: list[tuple] = []
    edges: list[tuple] = []
    changes: list[tuple] = []
    before = T0 - timedelta(days=30)

    def when() -> datetime:
        return T0 + timedelta(seconds=rng.randrange(int(WEEK.total_seconds())))

    projects = [f"project:maxcompute:p{i:04d}" for i in range(max(1, tables // 100))]
    users = [f"user:aliyun:{i:07d}" for i in range(max(2, tables // 2))]
    roles = [f"role:maxcompute:p0000.r{i:05d}" for i in range(max(1, tables // 20))]
    baselines = [f"baseline:dataworks:{i:05d}" for i in range(max(1, tables // 50))]
    vertices += [(p, "Project", before, None) for p in projects]
    vertices += [(u, "User", before, None) for u in users]
    vertices += [(r, "Role", before, None) for r in roles]
    vertices += [(b, "Baseline", before, None) for b in baselines]
    for role in roles:
        for user in rng.sample(users, min(4, len(users))):
            edges.append((user, "HAS_ROLE", role, before, None))
    per_layer = max(1, tables // len(LAYERS))
    layers: list[list[str]] = []
    dags = {day: [f"dag:dataworks:{day}{i:05d}" for i in range(max(1, tables // 60))] for day in range(7)}
    for day_dags in dags.values():
        vertices += [(d, "Dag", before, None) for d in day_dags]
    node_number = job_number = 0
    dropped: list[tuple[str, datetime]] = []
    for level, layer in enumerate(LAYERS):
        names = []
        for i in range(per_layer):
            project = rng.choice(projects)
            table = f"table:maxcompute:{project.rsplit(':', 1)[1]}.{layer}_t{i:06d}"
            names.append(table)
            deleted = None
            if rng.random() < 0.02:  # dropped during the week; half re-created later (a second row)
                deleted = when()
                dropped.append((table, deleted))
                if rng.random() < 0.5:
                    vertices.append((table, "Table", deleted + timedelta(hours=rng.randint(0, 12)), None))
            vertices.append((table, "Table", before, deleted))
            edges.append((table, "IN_PROJECT", project, before, None))
            edges.append((rng.choice(users), "OWNS", table, before, None))
            for c in range(rng.choice([1, 2, 2, 3, 4])):
                column = f"column:maxcompute:{table.split(':', 2)[2]}.c{c}"
                vertices.append((column, "Column", before, None))
                edges.append((table, "HAS_COLUMN", column, before, None))
            for _ in range(rng.choice([2, 3, 4])):  # grants: some revoked, some re-opened
                grantee = rng.choice(users) if rng.random() < 0.8 else rng.choice(roles)
                opened = before if rng.random() < 0.7 else when()
                closed = when() if rng.random() < 0.4 else None
                if closed and closed < opened:
                    opened, closed = closed, opened
                edges.append((grantee, "CAN_ACCESS", table, opened, closed))
                if closed and rng.random() < 0.25:
                    edges.append((grantee, "CAN_ACCESS", table, closed + timedelta(hours=rng.randint(1, 48)), None))
            if level and rng.random() < 0.83:  # a node (and job runs) produce it from upstream tables
                upstream = [t for earlier in layers[max(0, level - 2):level] for t in earlier]
                reads = rng.sample(upstream, min(len(upstream), rng.choice([2, 2, 3, 3, 4])))
                if rng.random() < 0.5:  # shared dimension tables: read across the platform
                    hubs = [t for earlier in layers[:level] for t in earlier[:max(1, len(earlier) // 20)]]
                    reads = list(dict.fromkeys(reads + rng.sample(hubs, min(len(hubs), 2))))
                node = f"node:dataworks:{700000000 + node_number}"
                node_number += 1
                created = before if rng.random() < 0.95 else when()
                vertices.append((node, "Node", created, None))
                edges.append((rng.choice(users), "OWNS", node, created, None))
                edges += [(node, "READS", r, created, None) for r in reads]
                edges += [(r, "FEEDS", table, created, None) for r in reads]
                edges.append((node, "WRITES", table, created, None))
                if rng.random() < 0.2:
                    edges.append((node, "IN_BASELINE", rng.choice(baselines), created, None))
                for day in range(7):
                    ran = T0 + timedelta(days=day, hours=2, minutes=rng.randrange(240))
                    instance = f"instance:dataworks:{node_number:07d}{day}"
                    vertices.append((instance, "Instance", ran, None))
                    edges.append((node, "HAS_INSTANCE", instance, ran, None))
                    edges.append((instance, "IN_DAG", rng.choice(dags[day]), ran, None))
                for _ in range(3):
                    ran = when()
                    job = f"job:maxcompute:{20240701000000 + job_number}"
                    job_number += 1
                    vertices.append((job, "Job", ran, None))
                    edges += [(job, "READS", r, ran, None) for r in reads]
                    edges.append((job, "WRITES", table, ran, None))
                if rng.random() < 0.5:
                    changes.append((node, "Node", rng.choice(["node_update", "node_deploy", "node_freeze"])))
        layers.append(names)
    everything = [t for layer in layers for t in layer]
    kinds = (("schema_change", 0.35), ("permission_change", 0.25), ("owner_change", 0.1), ("deprecation", 0.05),
             ("field_removal", 0.1), ("create", 0.15))
    for _ in range(int(tables * 1.85)):
        kind = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        changes.append((rng.choice(everything), "Table", kind))
    batch_instants = [when() for _ in range(max(1, tables // 20))]  # deploy batches: many changes, one instant
    rows = []
    for number, (entity, label, kind) in enumerate(changes):
        time_ = rng.choice(batch_instants) if rng.random() < 0.15 else when()
        rows.append((f"change:{number:08d}", entity, label, kind, time_))
    rows += [(f"change:drop{i:06d}", t, "Table", "drop", at) for i, (t, at) in enumerate(dropped)]
    return vertices, edges, rows


def _load(name: str, path: Path) -> Any:
    """A module of tests/ by file (``benchmarks/export.py`` shadows the ``export`` test package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def write(warehouse: Path, tables: int) -> dict[str, int]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    graphgen = _load("graphgen", ROOT / "tests" / "export" / "graphgen.py")
    CHANGE_SCHEMA, EDGE_SCHEMA, VERTEX_SCHEMA = graphgen.CHANGE_SCHEMA, graphgen.EDGE_SCHEMA, graphgen.VERTEX_SCHEMA

    vertices, edges, changes = platform(tables)
    label_of = {v[0]: v[1] for v in vertices}

    def column(rows: list[tuple], i: int) -> list[Any]:
        return [r[i] for r in rows]

    def nulls(n: int, kind: pa.DataType) -> pa.Array:
        return pa.nulls(n, kind)

    n = len(vertices)
    v = pa.table({
        "id": column(vertices, 0), "label": column(vertices, 1), "name": [x.rsplit(":", 1)[1] for x in column(vertices, 0)],
        "first_seen": pa.array(column(vertices, 2), VERTEX_SCHEMA.field("first_seen").type),
        "last_seen": pa.array(column(vertices, 2), VERTEX_SCHEMA.field("last_seen").type),
        "deleted_at": pa.array(column(vertices, 3), VERTEX_SCHEMA.field("deleted_at").type),
        "event_count": pa.array([1] * n, pa.int64()), "properties": nulls(n, VERTEX_SCHEMA.field("properties").type),
    }, schema=VERTEX_SCHEMA)
    m = len(edges)
    e = pa.table({
        "src": column(edges, 0), "dst": column(edges, 2), "relationship": column(edges, 1), "qualifier": [""] * m,
        "src_label": [label_of.get(x) for x in column(edges, 0)], "dst_label": [label_of.get(x) for x in column(edges, 2)],
        "valid_from": pa.array(column(edges, 3), EDGE_SCHEMA.field("valid_from").type),
        "valid_to": pa.array(column(edges, 4), EDGE_SCHEMA.field("valid_to").type),
        "last_seen": pa.array(column(edges, 3), EDGE_SCHEMA.field("last_seen").type),
        "event_count": pa.array([1] * m, pa.int64()),
        "closed_by": [("retract" if x is not None else None) for x in column(edges, 4)],
        "properties": nulls(m, EDGE_SCHEMA.field("properties").type),
    }, schema=EDGE_SCHEMA)
    k = len(changes)
    c = pa.table({
        "change_id": column(changes, 0), "entity_id": column(changes, 1), "entity_label": column(changes, 2),
        "kind": column(changes, 3), "time": pa.array(column(changes, 4), CHANGE_SCHEMA.field("time").type),
        "actor": [None] * k, "event_id": [f"event:{x}" for x in column(changes, 0)], "source": ["maxcompute"] * k,
        "properties": nulls(k, CHANGE_SCHEMA.field("properties").type),
    }, schema=CHANGE_SCHEMA)
    for name, table in (("vertices", v), ("edges", e), ("changes", c)):
        folder = warehouse / "graph" / name
        folder.mkdir(parents=True, exist_ok=True)
        pq.write_table(table, folder / "part-00000.parquet")
    return {"vertices": len({x[0] for x in vertices}), "vertex rows": n, "edges": m, "changes": k,
            "instants": len({x[4] for x in changes})}


# ------------------------------------------------------------------------------------------------
# one method, in its own process


def digest(ranked: list[Any]) -> dict[str, Any]:
    return {r.change_id: [r.count, r.score, r.summary, [[a.id, a.label, a.distance, list(a.path)] for a in r.affected]]
            for r in ranked}


def run(method: str, warehouse: str, out: str, cap: float, limit: int) -> None:
    from lineage.analysis.blast import blast_radius
    from lineage.graph.api import change_rows

    # a window (benchmarks/platform.py asks for one week of a generated platform), else every change
    changes = change_rows(warehouse, os.environ.get("BLAST_SINCE"), os.environ.get("BLAST_UNTIL"))
    extra: dict[str, Any] = {}
    if method == "per-instant":
        oracle = _load("per_instant", ROOT / "tests" / "analysis" / "per_instant.py")
        NetworkxEngine, per_instant = oracle.NetworkxEngine, oracle.blast_radius

        by_moment: dict[Any, list[dict[str, Any]]] = {}
        for change in changes:
            by_moment.setdefault(change["time"], []).append(change)
        started, cpu = time.perf_counter(), time.process_time()
        ranked, finished = [], 0
        for moment in sorted(by_moment):  # the former design, instant by instant, until the cap
            ranked += per_instant(by_moment[moment], lambda m: NetworkxEngine.from_warehouse(warehouse, as_of=m))
            finished += 1
            if time.perf_counter() - started > cap:
                break
        seconds = time.perf_counter() - started
        ranked = [type(r)(**{**r.__dict__, "affected": r.affected[:limit]}) for r in ranked]
        extra = {"cpu": time.process_time() - cpu, "done_instants": f"{finished:,} of {len(by_moment):,}",
                 "extrapolated": seconds * len(by_moment) / max(finished, 1)}
    elif method == "local":
        from lineage.analysis.temporal import TemporalGraph

        started, cpu = time.perf_counter(), time.process_time()
        ranked = blast_radius(changes, TemporalGraph.from_warehouse(warehouse), affected_limit=0)
        extra = {"rank_seconds": time.perf_counter() - started, "rank_cpu": time.process_time() - cpu}
        started, cpu = time.perf_counter(), time.process_time()
        ranked = blast_radius(changes, TemporalGraph.from_warehouse(warehouse), affected_limit=limit)
        seconds = time.perf_counter() - started
        extra["cpu"] = time.process_time() - cpu
    else:
        from lineage.analysis.spark_temporal import SparkTraversal
        from lineage.spark import get_spark

        spark = get_spark("blast-benchmark", **{"spark.sql.adaptive.enabled": "false"})
        spark.range(1).count()
        started = time.perf_counter()
        ranked = blast_radius(changes, SparkTraversal.from_warehouse(warehouse, spark), affected_limit=limit)
        seconds = time.perf_counter() - started
        extra = {"jvm_peak_mb": children_peak_mb()}
    peak = own_peak_mb()
    Path(out).write_text(json.dumps({
        "method": method, "seconds": seconds, "changes": len(ranked), "pairs": sum(r.count for r in ranked),
        "peak_mb": peak, **extra, "digest": digest(ranked),
    }))


# ------------------------------------------------------------------------------------------------
# the table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, nargs="+", default=[1000, 40000])
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--cap", type=float, default=120.0, help="Seconds before per-instant stops (extrapolated).")
    parser.add_argument("--per-instant-max-tables", type=int, default=1000, help="Per-instant only up to this size.")
    parser.add_argument("--affected", type=int, default=100)
    parser.add_argument("--json", type=Path, help="Also write the results here.")
    parser.add_argument("_run", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args._run:
        method, warehouse, out = args._run
        run(method, warehouse, out, args.cap, args.affected)
        return
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    results = []
    with tempfile.TemporaryDirectory(prefix="blast-bench-") as tmp:
        for tables in args.tables:
            warehouse = Path(tmp) / f"w{tables}"
            started = time.perf_counter()
            size = write(warehouse, tables)
            print(f"# {tables} tables: {size} written in {time.perf_counter() - started:.1f} s", flush=True)
            found: dict[str, dict[str, Any]] = {}
            for method in methods:
                if method == "per-instant" and tables > args.per_instant_max_tables:
                    continue
                out = Path(tmp) / f"{method}-{tables}.json"
                env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
                subprocess.run([sys.executable, __file__, "--cap", str(args.cap), "--affected", str(args.affected),
                                method, str(warehouse), str(out)], check=True, env=env)
                found[method] = json.loads(out.read_text())
                print(f"#   {method}: {found[method]['seconds']:.1f} s", flush=True)
            reference = found.get("local")
            for method, result in found.items():
                digest_ = result.pop("digest")
                if reference is None or method == "local":
                    result["equal"] = "reference" if method == "local" else "-"
                else:
                    ref = reference.get("digest") or {}
                    result["equal"] = "yes" if all(ref.get(k) == v for k, v in digest_.items()) and (
                        method == "per-instant" or len(digest_) == len(ref)) else "NO"
                if method == "local":
                    result["digest"] = digest_
                results.append({"tables": tables, **size, **{k: v for k, v in result.items() if k != "digest"}})
    print()
    header = ("method", "tables", "vertices", "edges", "changes", "instants", "seconds", "CPU s", "affected pairs",
              "peak MB (python)", "peak MB (JVM)", "answers equal")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for r in results:
        seconds = f"{r['seconds']:.1f}"
        if "extrapolated" in r:
            seconds += f" for {r['done_instants']} instants (all: ~{r['extrapolated']:.0f})"
        rows = [(f"{r['method']} (--affected {args.affected})", seconds, r.get("cpu"))]
        if "rank_seconds" in r:
            rows.insert(0, (f"{r['method']} (scores only, --affected 0)", f"{r['rank_seconds']:.1f}", r["rank_cpu"]))
        for name, wall, cpu in rows:
            print("| " + " | ".join([
                name, f"{r['tables']:,}", f"{r['vertices']:,}", f"{r['edges']:,}", f"{r['changes']:,}",
                f"{r['instants']:,}", wall, f"{cpu:.1f}" if cpu is not None else "-", f"{r['pairs']:,}",
                f"{r['peak_mb']:,.0f}", f"{r['jvm_peak_mb']:,.0f}" if "jvm_peak_mb" in r else "-", r["equal"],
            ]) + " |")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
