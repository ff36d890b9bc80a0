"""One change, several reports: a column added to a table is reported by MaxCompute's ActionTrail
(``ChangeTable``) and again by DataHub (a schema field ADD); a table dropped by a MaxCompute
``DropTable`` and soft-deleted in DataHub. The graph keeps each report as its own Change record
(each is a fact with its own event); the questions that count and rank changes (``blast-radius``,
the report, ``history``) read them through :func:`merged`, so such a change is ranked once and
says who reported it (``reported_by``)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

SAME_CHANGE_WITHIN = timedelta(hours=6)
"""Two sources' reports of one change lie this close. Delivery is not immediate: on a real
platform DataHub reported a column addition 127 and 139 minutes after MaxCompute's ActionTrail
(issue 68; the demo's lie 0.9 s apart). Six hours covers such delays with room; reports are one
change only when entity, kind, operation and columns agree too, so the window merges little else."""
OPERATION_OF: dict[str, str] = {"alter_table_add_columns": "add", "add": "add", "modify": "modify",
                                "alter_table_rename": "rename", "remove": "remove"}
"""What a report's ``operation`` word says was done, where sources' words differ (MaxCompute's
``ALTER_TABLE_ADD_COLUMNS``, DataHub's ``ADD``): two reports naming different operations are two
changes (a column added and one modified). A word not listed says nothing."""
MERGED_KINDS = frozenset({"create", "drop", "schema_change", "field_removal", "column_type_change"})
"""Statements about the entity itself, which two sources can both make about one moment. Not
grants, owners, tags or terms: two of those close together are as likely two changes."""


def columns_named(properties: Mapping[str, str] | None) -> frozenset[str]:
    """The columns a report names (MaxCompute's ``columns`` list, DataHub's ``field_path``)."""
    props = properties or {}
    named: set[str] = set()
    if props.get("columns"):
        try:
            listed = json.loads(props["columns"])
        except ValueError:
            listed = [props["columns"]]
        named.update(str(c).lower() for c in (listed if isinstance(listed, list) else [listed]))
    if props.get("field_path"):
        named.add(props["field_path"].rsplit(".", 1)[-1].lower())
    return frozenset(named)


def operation_of(properties: Mapping[str, str] | None) -> str | None:
    """The operation a report names (:data:`OPERATION_OF`), or None."""
    return OPERATION_OF.get(str((properties or {}).get("operation") or "").strip().lower())


def _report(row: Mapping[str, Any]) -> dict[str, Any]:
    time = row.get("time")
    return {"source": row.get("source"), "event_id": row["event_id"], "change_id": row["change_id"],
            "time": time.isoformat() if isinstance(time, datetime) else time}


def _joins(cluster: dict[str, Any], row: Mapping[str, Any], within: timedelta) -> bool:
    if row.get("source") in cluster["sources"] or row["time"] - cluster["first"]["time"] > within:
        return False
    mine, theirs = cluster["columns"], columns_named(row.get("properties"))
    done, doing = cluster["operation"], operation_of(row.get("properties"))
    return not (mine and theirs and mine != theirs) and not (done and doing and done != doing)


def merged(rows: Sequence[Mapping[str, Any]], within: timedelta = SAME_CHANGE_WITHIN) -> list[dict[str, Any]]:
    """Change records (oldest first) with the reports of one change by several sources as one:
    the earliest report, its properties completed by the later ones', and ``reported_by`` (every
    report: source, event id, change id, time; one entry for a change reported once). Reports are
    one change when their entity and kind (of :data:`MERGED_KINDS`) are the same, their sources
    differ, the later is within ``within`` of the earliest, and the columns and the operation they
    name, if both name one, are the same."""
    out: list[dict[str, Any]] = []
    open_: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        record = dict(row)
        record["reported_by"] = [_report(row)]
        if row["kind"] not in MERGED_KINDS or row.get("time") is None:
            out.append(record)
            continue
        clusters = open_.setdefault((row["entity_id"], row["kind"]), [])
        cluster = next((c for c in clusters if _joins(c, row, within)), None)
        if cluster is None:
            clusters.append({"first": record, "sources": {row.get("source")},
                             "columns": columns_named(row.get("properties")),
                             "operation": operation_of(row.get("properties"))})
            out.append(record)
            continue
        first = cluster["first"]
        first["reported_by"].append(_report(row))
        first["properties"] = {**(row.get("properties") or {}), **(first.get("properties") or {})}
        cluster["sources"].add(row.get("source"))
        cluster["columns"] = cluster["columns"] or columns_named(row.get("properties"))
        cluster["operation"] = cluster["operation"] or operation_of(row.get("properties"))
    return out


def ids_of(change_id: str, reported_by: Sequence[Mapping[str, Any]] | None) -> list[str]:
    """Every change id a (merged) change stands for, its own first: a question by any of them finds
    it, and the export ranks each report's Change node."""
    return list(dict.fromkeys([change_id, *(r["change_id"] for r in reported_by or ())]))
