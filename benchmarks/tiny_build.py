"""The test suite's unit of cost: a tiny full build and a tiny incremental build, under Spark settings.

Most of the suite's time is builds of a few hundred events (docs/code-map.md), where Spark's fixed
costs per query dominate. Each variant runs in its own process (a JVM option needs a fresh JVM), with
the test session's settings (tests/smalldata.py) plus its own: a 16-table, 3-day generated platform
split as tests/graph/test_incremental_build.py splits it, its first two parts ingested and built
(full), the third ingested and built (incremental), twice; the second round is reported (warm). Every
variant must write the same graph (the counts are compared).

    .venv/bin/python benchmarks/tiny_build.py                 # every variant, ~11 min on 2 cores
    .venv/bin/python benchmarks/tiny_build.py --only baseline
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "graph")]  # smalldata, and the test's split

VARIANTS: dict[str, dict[str, object]] = {
    "baseline": {},
    "JIT: C1 only (-XX:TieredStopAtLevel=1)": {"java": "-XX:TieredStopAtLevel=1"},
    "GC: parallel (-XX:+UseParallelGC)": {"java": "-XX:+UseParallelGC"},
    "no constraint propagation": {"conf": {"spark.sql.constraintPropagation.enabled": "false"}},
    "no dynamic partition pruning, no runtime Bloom filters": {"conf": {
        "spark.sql.optimizer.dynamicPartitionPruning.enabled": "false",
        "spark.sql.optimizer.runtime.bloomFilter.enabled": "false"}},
    "the fold's scratch as local checkpoints, not parquet files": {"checkpoint": True},
}


def child(spec: dict[str, object], data: Path) -> None:
    """One variant in this process: prints one JSON line of its measurements."""
    from smalldata import SPARK_CONF

    from lineage.graph import fold
    from lineage.graph.build import build
    from lineage.ingest.pipeline import ingest
    from lineage.spark import EXIT_ON_OOM, get_spark

    conf = {**SPARK_CONF, **spec.get("conf", {}),
            "spark.driver.extraJavaOptions": f"{EXIT_ON_OOM} {spec.get('java', '')}".strip()}
    spark = get_spark("tiny-build", **conf)
    if spec.get("checkpoint"):
        def checkpointed(self, frame, name=""):
            self.written += 1
            return frame.localCheckpoint(eager=True)
        fold.Scratch.__call__ = checkpointed
    parts = sorted((data / "split").iterdir())
    aliases = data / "platform" / "aliases.csv"
    rounds = []
    for number in range(2):
        warehouse = data / f"warehouse-{number}"
        shutil.rmtree(warehouse, ignore_errors=True)
        ingest(parts[:2], warehouse, spark=spark)
        start = time.monotonic()
        build(warehouse, spark=spark, aliases=aliases)
        full = time.monotonic() - start
        ingest(parts[2:], warehouse, spark=spark)
        start = time.monotonic()
        day = build(warehouse, spark=spark, aliases=aliases)
        assert day.fold == "incremental", day.fold_reason
        rounds.append({"full": full, "incremental": time.monotonic() - start,
                       "graph": [day.vertices, day.edges, day.changes]})
    print(json.dumps(rounds[-1]))


def prepare(data: Path) -> None:
    from test_incremental_build import _split

    from lineage.generate import generate

    generate(data / "platform", tables=16, days=3, seed=3)
    _split(data / "platform" / "events", data / "split", 3, 11)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", help="a variant's name or its first word (repeatable)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(VARIANTS[args.child], args.data)
        return
    chosen = [name for name in VARIANTS if not args.only or any(name.startswith(o) for o in args.only)]
    with tempfile.TemporaryDirectory(prefix="tiny-build-") as folder:
        data = Path(folder)
        prepare(data)
        print("| variant | full build | incremental build | graph (vertices, edges, changes) |\n|---|---:|---:|---|")
        graphs = set()
        for name in chosen:
            done = subprocess.run([sys.executable, __file__, "--child", name, "--data", str(data)],
                                  capture_output=True, text=True)
            if done.returncode:
                print(f"| {name} | failed | | {done.stderr.strip().splitlines()[-1][:120]} |", flush=True)
                continue
            row = json.loads(done.stdout.strip().splitlines()[-1])
            graphs.add(tuple(row["graph"]))
            print(f"| {name} | {row['full']:.1f} s | {row['incremental']:.1f} s | {row['graph']} |", flush=True)
        if len(graphs) > 1:
            sys.exit(f"the variants wrote different graphs: {sorted(graphs)}")


if __name__ == "__main__":
    main()
