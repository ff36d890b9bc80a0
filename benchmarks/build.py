"""The build after one more day against the full build, in the same run (issue 31 part 3).

    .venv/bin/python benchmarks/build.py --events /tmp/p6/gen [--work DIR]
    .venv/bin/python benchmarks/build.py --tables 200 --days 8          # generated here

Given a generated platform's folder (``events/`` and ``aliases.csv``; only read, never written),
it copies the events of every day but the last into one folder and the last day's into another,
then, each step its own ``lineage`` process as a user runs it: ingest the first days, build them
(full), ingest the last day, build (incremental), build again (nothing new); and in a second
warehouse holding a copy of the same ingested events, build them all from scratch. It prints one table (wall time, peak
memory of the process tree, what the build folded) and checks that both warehouses hold the same
graph, row by row.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _measure import lineage_json  # noqa: E402


def split_days(platform: Path, work: Path) -> tuple[Path, Path, str]:
    """Copies of the events: every day but the last, and the last (by the file names' dates)."""
    files = sorted(p for p in (platform / "events").rglob("*") if p.is_file())
    days = sorted({part[:10] for p in files for part in p.relative_to(platform / "events").parts if part[:4].isdigit()})
    last = days[-1]
    before, after = work / "days-before", work / "day-last"
    for path in files:
        rel = path.relative_to(platform / "events")
        target = (after if any(part.startswith(last) for part in rel.parts) else before) / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return before, after, last


def same_graph(first: Path, second: Path) -> dict[str, str]:
    """Per dataset: 'same' when both warehouses hold the same rows (properties compared as sorted JSON)."""
    from pyspark.sql import functions as F

    from lineage.spark import get_spark
    from lineage.store.warehouse import Warehouse

    spark = get_spark("build-bench-compare")
    out = {}
    for name in ("vertices", "edges", "changes"):
        frames = []
        for warehouse in (first, second):
            frame = spark.read.parquet(str(getattr(Warehouse.at(warehouse), name)))
            frames.append(frame.withColumn("properties", F.to_json(F.array_sort(F.map_entries("properties")))))
        a, b = frames
        missing, extra = a.exceptAll(b).count(), b.exceptAll(a).count()
        out[name] = "same" if missing == extra == 0 else f"{missing} rows only in the daily, {extra} only in the full"
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=Path, help="a generated platform's folder (events/, aliases.csv)")
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--days", type=int, default=8)
    parser.add_argument("--work", type=Path)
    parser.add_argument("--ingested", type=Path, help="a warehouse that ingested the same events (copied, not built)")
    parser.add_argument("--parallel", action="store_true",
                        help="build the second warehouse while the first goes day by day (a busy machine's shortcut)")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="build-bench-"))
    platform = args.events
    if platform is None:
        platform = work / "platform"
        subprocess.run([sys.executable, "-m", "lineage", "generate", "--out", str(platform), "--tables",
                        str(args.tables), "--days", str(args.days)], check=True, capture_output=True)
    before, after, last = split_days(platform, work)
    daily, whole = work / "daily", work / "whole"
    for warehouse in (daily, whole):
        warehouse.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(platform / "aliases.csv", warehouse / "aliases.csv")

    rows: dict[int, tuple[str, float, float, str]] = {}

    def step(order: int, label: str, *command: str) -> dict:
        seconds, peak, doc = lineage_json(*command)
        if "build_id" in doc:
            what = f"fold {doc['fold']}" + (f" ({doc['fold_reason']})" if doc.get("fold_reason") else "")
            if doc["fold"] == "incremental":
                what += (f", {doc['refolded_vertices']:,} vertices and {doc['refolded_edge_keys']:,} edge keys refolded, "
                         f"{doc.get('merged_vertices', 0):,} vertices and {doc.get('merged_edge_keys', 0):,} column FEEDS merged")
            what += f"; {doc['vertices']:,} vertices, {doc['edges']:,} edges"
        else:
            what = f"{doc['total']['accepted']:,} events accepted"
        rows[order] = (label, seconds, peak, what)
        print(f"{label}: {seconds:.1f} s", file=sys.stderr, flush=True)
        return doc

    def whole_lane() -> None:
        if args.ingested:  # the same files already ingested (read only): their events, not yet built
            for name in ("events", "runs", "duplicates", "quarantine"):
                if (args.ingested / name).is_dir():
                    shutil.copytree(args.ingested / name, whole / name)
        else:
            step(5, "ingest all days (second warehouse)", "ingest", str(before), str(after), "--warehouse", str(whole))
        try:
            step(6, "**full build of all days**", "build", "--warehouse", str(whole))
        except SystemExit as failed:  # said, not lost in the thread
            print(failed, file=sys.stderr, flush=True)

    lane = threading.Thread(target=whole_lane)
    if args.parallel:
        lane.start()
    step(0, "ingest all days but the last", "ingest", str(before), "--warehouse", str(daily))
    step(1, "build them (full)", "build", "--warehouse", str(daily))
    step(2, f"ingest the last day ({last})", "ingest", str(after), "--warehouse", str(daily))
    step(3, "**build after the last day**", "build", "--warehouse", str(daily))
    step(4, "build again, nothing new", "build", "--warehouse", str(daily))
    if not args.parallel:
        lane.start()
    lane.join()
    rows = [rows[k] for k in sorted(rows)]

    print(f"\n| step | wall time | peak memory (process tree) | what |\n|---|---|---|---|")
    for label, seconds, peak, what in rows:
        print(f"| {label} | {seconds:.1f} s | {peak / 1024:.2f} GiB | {what} |")
    if len(rows) < 6:
        print("\nthe full build of all days failed: no comparison")
        return
    day, full = rows[3][1], rows[-1][1]
    print(f"\nthe day's build: {day:.1f} s = {100 * day / full:.1f}% of the full build's {full:.1f} s")
    print("same graph, row by row:", same_graph(daily, whole))

if __name__ == "__main__":
    main()
