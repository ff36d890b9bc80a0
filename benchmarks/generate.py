"""Benchmark ``lineage generate``: events per second and peak memory as the event count grows.

Each row runs the generator in a fresh child process (so its peak resident memory is its own)
into a temporary directory, and prints one table. Rows at a fixed table count and growing days
show that memory does not grow with the number of events (the generator streams day by day);
a row with more tables shows what does grow: the platform model, proportional to tables.

    .venv/bin/python benchmarks/generate.py                       # 10^3 .. 10^6 events, ~4 min
    .venv/bin/python benchmarks/generate.py --runs 1000:2 1000:170 10000:17
    .venv/bin/python benchmarks/generate.py --runs 1000:2 1000:17 --openlineage-share 0.1   # with Spark runs
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

CHILD = """
import json, resource, sys, time
from lineage.generate import generate
tables, days, out, share = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
begun = time.perf_counter()
result = generate(out, tables=tables, days=days, openlineage_share=share)
seconds = time.perf_counter() - begun
counts = result.summary["counts"]["total"]
print(json.dumps({"events": counts["read"], "seconds": seconds, "files": result.files,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

DEFAULT_RUNS = ("30:6", "200:9", "1000:2", "1000:17", "1000:170", "10000:17")
"""tables:days pairs: ~10^3, 10^4, 10^4, 10^5, 10^6 (same tables as the two before it), 10^6 (10x tables)."""


def _size(path: str) -> int:
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(path) for f in files)


def run(tables: int, days: int, share: float = 0.0) -> dict:
    with tempfile.TemporaryDirectory(prefix="lineage-gen-") as out:
        done = subprocess.run([sys.executable, "-c", CHILD, str(tables), str(days), out, str(share)], check=True,
                              capture_output=True, text=True, env={**os.environ})
        row = json.loads(done.stdout.strip().splitlines()[-1])
        row["mb_on_disk"] = _size(out) / 2**20
    return {"tables": tables, "days": days, **row}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", nargs="+", default=list(DEFAULT_RUNS), metavar="TABLES:DAYS")
    parser.add_argument("--openlineage-share", type=float, default=0.0, help="as `lineage generate --openlineage-share`")
    args = parser.parse_args()
    rows = []
    for spec in args.runs:
        tables, days = (int(x) for x in spec.split(":"))
        rows.append(run(tables, days, args.openlineage_share))
        print(f"... {spec} done", file=sys.stderr, flush=True)
    share = f", --openlineage-share {args.openlineage_share}" if args.openlineage_share else ""
    print(f"lineage generate{share}, one process per row ({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f})")
    print("| tables | days |    events | seconds | events/s | peak MB | gzipped MB on disk | files |")
    print("|-------:|-----:|----------:|--------:|---------:|--------:|-------------------:|------:|")
    for r in rows:
        print(f"| {r['tables']:6d} | {r['days']:4d} | {r['events']:9d} | {r['seconds']:7.1f} | "
              f"{r['events'] / r['seconds']:8.0f} | {r['peak_mb']:7.0f} | {r['mb_on_disk']:18.1f} | {r['files']:5d} |")


if __name__ == "__main__":
    main()
