"""What a node update changed: DataWorks' ``node-change-updated`` gives the node's settings after the
edit, never before (seed 000), so each update is compared with the node's previous create or update
record. :func:`diffed` adds ``changed`` to each update record: a JSON object, setting -> [before,
after], of the settings that differ (``{}``: the edit changed none of them); an update with no
earlier record of its node (or of a warehouse built before the records kept the settings) gets none,
and is read as an unknown edit (``lineage.analysis.categories``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from lineage.graph.props import of_row

NODE_STATE = ("name", "program_type", "cron", "scheduler_type", "owner", "priority", "repeatability", "datasource",
              "baseline")
"""What a node-change event says the node is after it (``facts.dataworks.helpers.node_state`` keeps
it on the Change record); the event carries no before. Kept here, not beside the event models, so the
questions can read it without importing them."""
NODE_KINDS = ("node_create", "node_update")
CHANGED = "changed"


def diffed(rows: Sequence[dict[str, Any]]) -> Sequence[dict[str, Any]]:
    """``rows`` (change records), each node update given ``changed`` in place when an earlier record
    of its node states the settings before it."""
    nodes = [r for r in rows if r.get("kind") in NODE_KINDS and r.get("time") is not None]
    last: dict[str, dict[str, Any]] = {}
    for row in sorted(nodes, key=lambda r: (r["time"], r["change_id"])):
        props = of_row(row)
        state = {k: props.get(k) for k in NODE_STATE if k in props}
        if not state:
            continue
        before = last.get(row["entity_id"])
        if row["kind"] == "node_update" and before is not None:
            keys = sorted(set(state) | set(before))
            changed = {k: [before.get(k), state.get(k)] for k in keys if before.get(k) != state.get(k)}
            row["properties"] = {**props, CHANGED: json.dumps(changed, sort_keys=True)}
        last[row["entity_id"]] = state
    return rows
