"""Jobs tied to the DataWorks nodes that ran them (issue 67, ``lineage.graph.links``): precision and
recall against the generator's truth, and the nodes that reach their tables before and after.

For each of two platforms of the same seed, one whose jobs name their node (``SKYNET_ID``, the
generator's default) and one whose jobs do not (``--no-job-settings``: instances frame their jobs
by seconds, as a scheduler does), generates, ingests and builds (each step skipped when its output
is there: re-run to resume), then prints per platform:

* jobs a node ran (``truth/jobs.csv`` names a node), linked to the right node, to a wrong one, and
  left unlinked; ad-hoc jobs (no node in the truth) linked to any node;
* nodes with a run, and those of them with a READS or WRITES edge: *before* counts only the edges
  stated by the events themselves (facts with ``seq >= 0``: what the build gave without links),
  *after* the graph's.

    .venv/bin/python benchmarks/job_links.py [--out DIR] [--tables 200] [--days 7]
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from _measure import LINEAGE, step  # benchmarks/, the script's folder


def built(root: Path, tables: int, days: int, settings: bool) -> tuple[Path, Path]:
    platform, warehouse = root / "platform", root / "warehouse"
    step(platform / "truth" / "jobs.csv", [*LINEAGE, "generate", "--out", str(platform), "--tables", str(tables),
                                           "--days", str(days), *([] if settings else ["--no-job-settings"])])
    step(warehouse / "ingested.done", [*LINEAGE, "ingest", str(platform / "events"), "--warehouse", str(warehouse)])
    (warehouse / "ingested.done").touch()
    step(warehouse / "graph" / "changes", [*LINEAGE, "build", "--warehouse", str(warehouse)])
    return platform, warehouse


def measure(platform: Path, warehouse: Path) -> dict[str, int]:
    truth = {r["job_id"]: r["node_id"] for r in csv.DictReader((platform / "truth" / "jobs.csv").open())}
    vertices = pq.read_table(str(warehouse / "graph" / "vertices"), columns=["id", "label", "properties"])
    jobs = {r["id"]: dict(r["properties"]).get("node") for r in
            vertices.filter(pc.equal(vertices["label"], "Job")).to_pylist()}
    out = {"jobs of a node": 0, "right": 0, "wrong": 0, "unlinked": 0, "ad hoc": 0, "ad hoc linked": 0}
    for job, node in truth.items():
        got = jobs.get(job)
        if not node:
            out["ad hoc"] += 1
            out["ad hoc linked"] += got is not None
            continue
        out["jobs of a node"] += 1
        out["right" if got == node else ("unlinked" if got is None else "wrong")] += 1
    ran = set(truth.values()) - {""}
    edges = pq.read_table(str(warehouse / "graph" / "edges"), columns=["src", "relationship"]).to_pylist()
    after = {e["src"] for e in edges if e["relationship"] in ("READS", "WRITES")} & ran
    facts = pq.read_table(str(warehouse / "facts"), columns=["src_id", "src_label", "relationship", "seq"],
                          filters=[("src_label", "=", "Node"), ("seq", ">=", 0)]).to_pylist()
    before = {f["src_id"] for f in facts if f["relationship"] in ("READS", "WRITES")} & ran
    out.update({"nodes with a run": len(ran), "reach tables before": len(before), "reach tables after": len(after)})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("benchmarks-out/job-links"))
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--days", type=int, default=7)
    args = parser.parse_args()
    rows = {}
    for name, settings in (("jobs name their node", True), ("jobs name no node", False)):
        rows[name] = measure(*built(args.out / ("settings" if settings else "no-settings"), args.tables, args.days, settings))
    keys = list(next(iter(rows.values())))
    print(f"\n{args.tables} tables, {args.days} days\n")
    print("| | " + " | ".join(keys) + " | precision | recall |")
    print("|---|" + "---:|" * (len(keys) + 2))
    for name, row in rows.items():
        linked = row["right"] + row["wrong"]
        precision = f"{row['right'] / linked:.1%}" if linked else "-"
        recall = f"{row['right'] / row['jobs of a node']:.1%}" if row["jobs of a node"] else "-"
        print(f"| {name} | " + " | ".join(f"{row[k]:,}" for k in keys) + f" | {precision} | {recall} |")


if __name__ == "__main__":
    main()
