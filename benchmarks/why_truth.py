"""`lineage why` against the generator's planted failures (issue 67): precision and recall.

Generates a platform with ``--planted-failures N`` (a column dropped or renamed breaks the nodes
that read it from their next run; random failures beside them), ingests and builds it (each step
skipped when its output is there: re-run to resume), then asks ``why`` of every failing streak of
``truth/failures.csv`` as of its first failure and prints, per cause kind:

* planted: the planted change ranked first (precision of the first answer), and among the causes
  at all (recall); the change is matched by table, kind ``field_removal`` and time (within 10 min);
* random: streaks given a cause at all (every cause ``why`` gives is a change upstream of what the
  node reads, by construction; a random failure should get none).

    .venv/bin/python benchmarks/why_truth.py [--out DIR] [--tables 200] [--days 14] [--planted 8]
"""

from __future__ import annotations

import argparse
import csv
from datetime import timedelta
from pathlib import Path

from lineage.analysis import api
from lineage.events.times import parse_time

from _measure import LINEAGE, step  # benchmarks/, the script's folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("benchmarks-out/why"))
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--planted", type=int, default=8)
    args = parser.parse_args()
    platform, warehouse = args.out / "platform", args.out / "warehouse"
    step(platform / "truth" / "failures.csv", [*LINEAGE, "generate", "--out", str(platform), "--tables", str(args.tables),
                                               "--days", str(args.days), "--planted-failures", str(args.planted)])
    step(warehouse / "ingested.done", [*LINEAGE, "ingest", str(platform / "events"), "--warehouse", str(warehouse)])
    (warehouse / "ingested.done").touch()
    step(warehouse / "graph" / "changes", [*LINEAGE, "build", "--warehouse", str(warehouse)])
    rows = list(csv.DictReader((platform / "truth" / "failures.csv").open()))
    counts = {"planted": [0, 0, 0], "random": [0, 0, 0]}  # streaks, first right / with a cause, among causes
    for row in rows:
        first = parse_time(row["first_failed_at"])
        answer = api.why(warehouse, row["node_id"], as_of=(first + timedelta(minutes=30)).isoformat(), engine="local")
        tally = counts[row["cause"]]
        tally[0] += 1
        if row["cause"] == "planted":
            at = parse_time(row["change_time"])

            def planted(cause) -> bool:
                c = cause.change
                return (c["entity_id"] == row["table_id"] and c["kind"] == "field_removal"
                        and abs((c["time"] - at).total_seconds()) <= 600)

            tally[1] += bool(answer.causes) and planted(answer.causes[0])
            tally[2] += any(planted(c) for c in answer.causes)
        else:  # every cause is upstream of what the node reads, by construction: a random one has none to be right
            tally[1] += bool(answer.causes)
    planted, random = counts["planted"], counts["random"]
    print(f"\nplatform: {args.tables} tables, {args.days} days, {args.planted} planted changes ({args.out})\n")
    print("| streaks | count | planted change first | planted change among the causes | given any cause |")
    print("|---|---:|---:|---:|---:|")
    print(f"| planted | {planted[0]} | {planted[1]} ({planted[1] / max(planted[0], 1):.0%}) | "
          f"{planted[2]} ({planted[2] / max(planted[0], 1):.0%}) | - |")
    print(f"| random | {random[0]} | - | - | {random[1]} ({random[1] / max(random[0], 1):.0%}) |")


if __name__ == "__main__":
    main()
