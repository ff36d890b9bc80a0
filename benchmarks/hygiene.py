"""`lineage hygiene` on each engine, and GraphFrames' connectedComponents against networkx (issue 33).

    .venv/bin/python benchmarks/hygiene.py --warehouse DIR [--as-of ISO]     # a built warehouse
    .venv/bin/python benchmarks/hygiene.py --tables 1000 --days 7             # generated, ingested, built here

Prints one table: wall time and peak memory of hygiene on ``local`` and ``spark`` (same answers
checked), then the weakly connected components of the same dataset graph by networkx and by
GraphFrames (both algorithms). Memory: this process (local) and this process plus the Spark JVM
(spark), from /proc (``_measure``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _measure import children_peak_mb, own_peak_mb  # noqa: E402


def build_platform(root: Path, tables: int, days: int) -> Path:
    lineage = [sys.executable, "-m", "lineage"]
    subprocess.run([*lineage, "generate", "--out", str(root / "platform"), "--tables", str(tables), "--days", str(days)],
                   check=True, capture_output=True)
    warehouse = root / "warehouse"
    subprocess.run([*lineage, "ingest", str(root / "platform" / "events"), "--warehouse", str(warehouse), "--json"],
                   check=True, capture_output=True)
    (warehouse / "aliases.csv").write_text((root / "platform" / "aliases.csv").read_text())
    subprocess.run([*lineage, "build", "--warehouse", str(warehouse), "--json"], check=True, capture_output=True)
    return warehouse


def timed(run):
    start = time.perf_counter()
    value = run()
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", type=Path)
    parser.add_argument("--as-of")
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--days", type=int, default=7)
    args = parser.parse_args()

    from lineage.analysis.api import hygiene
    from lineage.analysis.hygiene import components, dataset_graph, moment_of
    from lineage.graph.api import load_rows

    warehouse = args.warehouse or build_platform(Path(tempfile.mkdtemp(prefix="hygiene-bench-")), args.tables,
                                                 args.days)
    vertices, edges = load_rows(warehouse)
    as_of = moment_of(args.as_of or max(v["last_seen"] for v in vertices if v["last_seen"]))
    rows: list[tuple[str, float, float, str]] = []

    seconds, local = timed(lambda: hygiene(warehouse, as_of=as_of, engine="local"))
    rows.append(("hygiene local (networkx)", seconds, own_peak_mb(), ""))

    from lineage.spark import get_spark

    spark = get_spark("hygiene-bench")
    seconds, remote = timed(lambda: hygiene(warehouse, as_of=as_of, engine="spark", spark=spark))
    same = (remote.unused, remote.cycles, remote.islands) == (local.unused, local.cycles, local.islands) and [
        i.id for i in remote.importance] == [i.id for i in local.importance]
    rows.append(("hygiene spark (GraphFrames)", seconds, own_peak_mb() + children_peak_mb(),
                 "same answers" if same else "DIFFERENT ANSWERS"))

    at_rows = load_rows(warehouse, as_of)
    graph = dataset_graph(*at_rows)
    seconds, weak = timed(lambda: components(graph, strong=False))
    rows.append(("connected components: networkx", seconds, own_peak_mb(), f"{len(set(weak.values()))} components"))

    from pyspark.sql import functions as F

    from lineage.analysis.spark_hygiene import _graph, _quiet, ensure_checkpoint_dir
    from lineage.graph.api import graph_frame

    frame = graph_frame(warehouse, spark, as_of)
    datasets = frame.vertices.where(F.col("label").isin("Table", "Location")).select("id").localCheckpoint()
    feeds = frame.edges.where(F.col("relationship") == "FEEDS").join(
        datasets.withColumnRenamed("id", "src"), "src", "left_semi").join(
        datasets.withColumnRenamed("id", "dst"), "dst", "left_semi").select("src", "dst").distinct().localCheckpoint()
    ensure_checkpoint_dir(spark)
    for algorithm in ("graphx", "graphframes"):
        with _quiet():
            seconds, found = timed(lambda: _graph(datasets, feeds).connectedComponents(algorithm=algorithm)
                                   .select("component").distinct().count())
        rows.append((f"connected components: GraphFrames {algorithm}", seconds, own_peak_mb() + children_peak_mb(),
                     f"{found} components"))

    tables = sum(1 for v in at_rows[0] if v["label"] == "Table")
    print(f"warehouse {warehouse}: {len(vertices)} vertices, {len(edges)} edge rows, {tables} tables as of {as_of}")
    print(f"{'step':<45} {'seconds':>9} {'peak MB':>9}  note")
    for name, seconds, peak, note in rows:
        print(f"{name:<45} {seconds:>9.1f} {peak:>9.0f}  {note}")


if __name__ == "__main__":
    main()
