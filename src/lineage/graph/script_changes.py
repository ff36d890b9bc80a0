"""What a node update did to the node's script (issue 68, item 3).

DataWorks says a node was updated or deployed, never its script before and after (seed 000). The
MaxCompute jobs the node submits carry the script (a Job's ``sql``; its ``node``: ``graph.links``),
so the edit is the difference between the last run's script before the change and the first
run's after it (``lineage.sql.script_diff``). :func:`attach` adds it to each node update and deploy
record as ``script`` (JSON: the category and, per table the script writes, what changed); a node
with no run on one side, a script cut short or not parsed gets none, and its update is categorized
by its settings alone (``lineage.analysis.categories``). Runs are read only around the changes
asked about (:data:`RUN_WINDOW`), in batches, their scripts only for the nodes changed.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import timedelta
from pathlib import Path
from typing import Any, Sequence

from lineage.graph.props import of_row
from lineage.sql.script_diff import diff
from lineage.store.warehouse import Warehouse

KINDS = ("node_update", "node_deploy")
SCRIPT = "script"
RUN_WINDOW = timedelta(days=8)
"""How far before and after a change its node's runs are looked for: a weekly node runs in it."""


def _runs(vertices: Path, nodes: set[str], start: Any, end: Any) -> dict[str, list[tuple[Any, str, str | None]]]:
    """Node -> its job runs in ``[start, end]`` as (first seen, script, project), oldest first."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    found: dict[str, list[tuple[Any, str, str | None]]] = defaultdict(list)
    where = (ds.field("label") == "Job") & (ds.field("first_seen") >= start) & (ds.field("first_seen") <= end)
    data = ds.dataset(str(vertices), format="parquet")
    wanted = sorted(nodes)
    for batch in data.to_batches(columns=["first_seen", "properties"], filter=where):
        props = batch.column("properties")
        node = pc.map_lookup(props, query_key="node", occurrence="first")
        keep = pc.fill_null(pc.is_in(node, value_set=pa.array(wanted, pa.string())), False)
        if not pc.any(keep).as_py():
            continue
        times = pc.filter(batch.column("first_seen"), keep).to_pylist()
        sql = pc.filter(pc.map_lookup(props, query_key="sql", occurrence="first"), keep).to_pylist()
        project = pc.filter(pc.map_lookup(props, query_key="project", occurrence="first"), keep).to_pylist()
        for n, t, s, p in zip(pc.filter(node, keep).to_pylist(), times, sql, project):
            if s:
                found[n].append((t, s, p))
    for runs in found.values():
        runs.sort(key=lambda r: r[0])
    return found


def attach(warehouse: str | Path, rows: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
    """``rows`` (change records), each node update or deploy given ``script`` in place when its
    node ran before and after it."""
    changes = [r for r in rows if r.get("kind") in KINDS and r.get("time") is not None]
    vertices = Warehouse.at(warehouse).vertices
    if not changes or not vertices.is_dir():
        return rows
    times = [r["time"] for r in changes]
    runs = _runs(vertices, {r["entity_id"] for r in changes}, min(times) - RUN_WINDOW, max(times) + RUN_WINDOW)
    for row in changes:
        node_runs = runs.get(row["entity_id"], [])
        before = [r for r in node_runs if r[0] < row["time"]]
        after = [r for r in node_runs if r[0] >= row["time"]]
        if not before or not after:
            continue
        found = diff(before[-1][1], after[0][1], after[0][2] or before[-1][2])
        if found is not None:
            props = of_row(row)
            row["properties"] = {**props, SCRIPT: json.dumps(found.to_json(), sort_keys=True)}
    return rows
