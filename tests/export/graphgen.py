"""Write a graph warehouse directly (the parquet layout `lineage build` writes), for export tests."""

from __future__ import annotations

import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from lineage.store.schema import CHANGES, EDGES, VERTICES

VERTEX_SCHEMA, EDGE_SCHEMA, CHANGE_SCHEMA = VERTICES.arrow(), EDGES.arrow(), CHANGES.arrow()
T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)


def _table(rows: list[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    fixed = [{**r, "properties": list((r.get("properties") or {}).items())} for r in rows]
    return pa.Table.from_pylist(fixed, schema=schema)


def write_graph(warehouse: Path, vertices: list[dict], edges: list[dict], changes: list[dict] | None = None) -> Path:
    """Replace WAREHOUSE/graph with these rows (missing columns are null)."""
    graph = warehouse / "graph"
    for name, rows, schema in (("vertices", vertices, VERTEX_SCHEMA), ("edges", edges, EDGE_SCHEMA),
                               ("changes", changes or [], CHANGE_SCHEMA)):
        shutil.rmtree(graph / name, ignore_errors=True)
        (graph / name).mkdir(parents=True)
        full = [{f: r.get(f) for f in schema.names} for r in rows]
        for r in full:
            if r.get("event_count") is None:
                r["event_count"] = 1
        pq.write_table(_table(full, schema), str(graph / name / "part-0.parquet"))
    return warehouse


def read_graph(warehouse: Path) -> tuple[list[dict], list[dict], list[dict]]:
    out = []
    for name in ("vertices", "edges", "changes"):
        rows = pq.read_table(str(warehouse / "graph" / name)).to_pylist()
        for r in rows:
            r["properties"] = dict(r["properties"] or [])
        out.append(rows)
    return out[0], out[1], out[2]


def lineage_graph(tables: int, jobs: int, users: int) -> tuple[list[dict], list[dict]]:
    """Tables fed by jobs (READS/WRITES/FEEDS), users with grants: a deterministic synthetic graph."""
    vertices, edges = [], []
    for i in range(tables):
        vertices.append({"id": f"table:maxcompute:p.t{i}", "label": "Table", "name": f"t{i}",
                         "first_seen": T0 + timedelta(minutes=i), "last_seen": T0 + timedelta(days=1),
                         "properties": {"owner": f"user:aliyun:{i % users}", "comment": f"table number {i}"}})
    for j in range(jobs):
        vertices.append({"id": f"job:maxcompute:j{j}", "label": "Job", "name": f"j{j}", "first_seen": T0,
                         "last_seen": T0, "properties": {"sql": f"INSERT INTO t{(j + 1) % tables} SELECT * FROM t{j % tables}"}})
        src, dst = f"table:maxcompute:p.t{j % tables}", f"table:maxcompute:p.t{(j + 1) % tables}"
        at = T0 + timedelta(hours=j)
        edges += [
            {"src": f"job:maxcompute:j{j}", "dst": src, "relationship": "READS", "qualifier": "",
             "src_label": "Job", "dst_label": "Table", "valid_from": at, "last_seen": at},
            {"src": f"job:maxcompute:j{j}", "dst": dst, "relationship": "WRITES", "qualifier": "",
             "src_label": "Job", "dst_label": "Table", "valid_from": at, "last_seen": at},
            {"src": src, "dst": dst, "relationship": "FEEDS", "qualifier": "", "src_label": "Table",
             "dst_label": "Table", "valid_from": at, "last_seen": at,
             "properties": {"via": f'["job:maxcompute:j{j}"]', "via_count": "1"}},
        ]
    for u in range(users):
        vertices.append({"id": f"user:aliyun:{u}", "label": "User", "name": f"u{u}", "first_seen": T0, "last_seen": T0})
        edges.append({"src": f"user:aliyun:{u}", "dst": f"table:maxcompute:p.t{u % tables}", "relationship": "CAN_ACCESS",
                      "qualifier": "select", "src_label": "User", "dst_label": "Table", "valid_from": T0,
                      "valid_to": T0 + timedelta(days=2), "closed_by": "retract", "last_seen": T0,
                      "properties": {"privileges": "select"}})
    return vertices, edges


LATER_GONE = "job:maxcompute:j7"
"""The job that ``later_build`` removes (with its READS/WRITES)."""


def later_build(vertices: list[dict], edges: list[dict]) -> tuple[list[dict], list[dict]]:
    """A later build of ``lineage_graph``: one table gains a property, one FEEDS interval is
    closed, one job is gone, one table and its FEEDS are new — 2 Table nodes and 2 FEEDS to send."""
    vertices[0]["properties"] = {**vertices[0]["properties"], "comment": "now with a comment"}
    feeds = next(e for e in edges if e["relationship"] == "FEEDS")
    feeds["valid_to"], feeds["closed_by"] = T0 + timedelta(days=3), "retract"
    vertices = [v for v in vertices if v["id"] != LATER_GONE]
    edges = [e for e in edges if LATER_GONE not in (e["src"], e["dst"])]
    vertices.append({"id": "table:maxcompute:p.fresh", "label": "Table", "name": "fresh", "first_seen": T0, "last_seen": T0})
    edges.append({"src": "table:maxcompute:p.t1", "dst": "table:maxcompute:p.fresh", "relationship": "FEEDS", "qualifier": "",
                  "src_label": "Table", "dst_label": "Table", "valid_from": T0, "last_seen": T0})
    return vertices, edges
