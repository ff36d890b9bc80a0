"""How the Spark steps scale with cores: local[1] against local[2], and the projection to 8 and 32
cores that follows from them (issue 31 part 5).

    .venv/bin/python benchmarks/scaling.py --events /tmp/p10/gen [--work DIR] [--cores 1,2]

For each core count N, in its own warehouse, each step its own ``lineage`` process with
``LINEAGE_SPARK_MASTER=local[N]`` (everything else as a user runs it): ingest the platform's
events, build them (a full fold), and the blast radius of the last seven days of changes on the
Spark engine. It prints one table (wall time and peak memory of the process tree per step and
core count) and, per step, the fit of Amdahl's law to the two times, ``T(N) = serial +
parallel / N``, with the times it gives for 8 and 32 cores.

What the projection is worth: two points fix the two unknowns, so the fit has no check of its
own; local[2] on a 2-core machine shares those cores with the driver's Python, the JVM's garbage
collector and the operating system, so the parallel part it shows is a lower bound; and a real
8- or 32-core machine also has more memory bandwidth and disks, and a shuffle that grows with
the partitions. Read it as "at most this much faster", not as a promise.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _measure import lineage_json  # noqa: E402

PROJECTED = (8, 32)


def run(cores: int, *args: str) -> tuple[float, float, dict]:
    """One ``lineage`` command on local[cores]: (seconds, peak MB of its process tree, its --json)."""
    return lineage_json(*args, env=dict(os.environ, LINEAGE_SPARK_MASTER=f"local[{cores}]"))


def last_week(warehouse: Path) -> tuple[str, str]:
    """The seven days before the day after the last change: the weekly job's window."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    from lineage.store.warehouse import Warehouse

    times = ds.dataset(str(Warehouse.at(warehouse).changes)).to_table(columns=["time"]).column("time")
    end = pc.max(times).as_py().date() + timedelta(days=1)
    return (end - timedelta(days=7)).isoformat(), end.isoformat()


def amdahl(one: float, two: float) -> tuple[float, float]:
    """(serial, parallel) seconds of ``T(N) = serial + parallel / N`` through T(1) and T(2); a step
    that did not get faster on two cores is all serial."""
    parallel = max(0.0, 2 * (one - two))
    return one - parallel, parallel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=Path, required=True, help="A generated platform's folder (events/, aliases.csv).")
    parser.add_argument("--work", type=Path, help="Where the warehouses go (default: a temporary folder, removed).")
    parser.add_argument("--cores", default="1,2", help="The local[N] to run, comma-separated (default: 1,2).")
    args = parser.parse_args()
    cores = [int(n) for n in args.cores.split(",")]
    work = args.work or Path(tempfile.mkdtemp(prefix="lineage-scaling-"))
    rows: dict[str, dict[int, tuple[float, float, str]]] = {}
    try:
        for n in cores:
            def record(step: str, seconds: float, peak: float, what: str) -> None:
                rows.setdefault(step, {})[n] = (seconds, peak, what)
                print(f"local[{n}] {step}: {seconds:.1f} s, {peak:.0f} MB", file=sys.stderr, flush=True)

            warehouse = work / f"local{n}"
            shutil.rmtree(warehouse, ignore_errors=True)
            seconds, peak, doc = run(n, "ingest", str(args.events / "events"), "--warehouse", str(warehouse))
            accepted = sum(source["accepted"] for source in doc["sources"].values())
            record("ingest", seconds, peak, f"{accepted:,} events accepted, parsed in {doc['parse_in']}")
            shutil.copyfile(args.events / "aliases.csv", warehouse / "aliases.csv")
            seconds, peak, doc = run(n, "build", "--warehouse", str(warehouse))
            record("build", seconds, peak, f"fold {doc['fold']}; {doc['vertices']:,} vertices, {doc['edges']:,} edges")
            since, until = last_week(warehouse)
            seconds, peak, doc = run(n, "blast-radius", "--engine", "spark", "--since", since, "--until", until,
                                     "--affected", "0", "--warehouse", str(warehouse))
            pairs = sum(c["affected_count"] for c in doc["changes"])
            record(f"blast-radius {since}..{until}", seconds, peak, f"{len(doc['changes']):,} changes, {pairs:,} pairs")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    head = " | ".join(f"local[{n}]" for n in cores)
    print(f"| step | {head} | serial + parallel (s) | {' | '.join(f'{p} cores (projected)' for p in PROJECTED)} | what |")
    print("|---|" + "---:|" * (len(cores) + 1 + len(PROJECTED)) + "---|")
    for step, by in rows.items():
        times = " | ".join(f"{by[n][0]:,.1f} s, {by[n][1]:,.0f} MB" if n in by else "-" for n in cores)
        if 1 in by and 2 in by:
            serial, parallel = amdahl(by[1][0], by[2][0])
            fit = f"{serial:,.0f} + {parallel:,.0f}"
            projected = " | ".join(f"{serial + parallel / p:,.0f} s" for p in PROJECTED)
        else:
            fit, projected = "-", " | ".join("-" for _ in PROJECTED)
        print(f"| {step} | {times} | {fit} | {projected} | {by[max(by)][2]} |")


if __name__ == "__main__":
    main()
