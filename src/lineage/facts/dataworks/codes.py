"""DataWorks code tables (copied from the seed's field descriptions) and the id helpers of its facts."""

from __future__ import annotations

from typing import Any, Mapping

from lineage import ids
from lineage.events.base import ParsedEvent

# ---------------------------------------------------------------------------------------------
# code tables (from the seed's field descriptions)
# ---------------------------------------------------------------------------------------------

INSTANCE_STATUS: dict[int, str] = {
    1: "not_run", 2: "waiting_time", 3: "waiting_resource", 4: "running", 5: "failure", 6: "success",
    7: "checking_quality", 8: "checking_condition",
}
"""instance-status-changes ``status`` (also dag-status-changes, which uses 1, 4, 5, 6)."""
DAG_TYPE: dict[int, str] = {
    0: "auto_triggered", 1: "manually_triggered", 2: "smoke_testing", 3: "backfill", 4: "temporary_workflow",
    5: "manual_workflow",
}
TASK_TYPE: dict[int, str] = {
    0: "NORMAL", 1: "MANUAL", 2: "PAUSE", 3: "SKIP", 4: "SKIP_UNCHOOSE", 5: "SKIP_CYCLE", 6: "CONDITION_UNCHOOSE",
    7: "REALTIME_DEPRECATED",
}
BASELINE_STATUS: dict[int, str] = {-1: "abnormal", 1: "safe", 2: "warning", 3: "overtime"}
CHECK_RESULT: dict[int, str] = {-1: "error", 0: "passed", 1: "warned", 2: "critical"}
"""dqc-check-finished-event ``checkResult``: exception, pass, warning / critical threshold exceeded."""
BLOCK_TYPE: dict[int, str] = {1: "strong", 0: "weak"}
FILE_CHANGE_TYPE: dict[int, str] = {0: "create", 1: "update", 2: "delete"}
PLACEHOLDER_FLOW_ID = "1"
"""``flowId`` is 1 for every auto triggered instance (the seed): not a real workflow, no Flow vertex."""
DENIED_WORDS: tuple[str, ...] = (
    "reject", "refus", "deny", "denied", "cancel", "revoke", "withdraw", "terminat", "fail",
)
"""Words of an approval status that mean no permission was granted. The seed does not list the
status values of a completed order (its sample shows none at the top and ``Pending`` inside), so a
completed order counts as approved unless one of its statuses says otherwise."""
MAXCOMPUTE_TABLE_TYPES = frozenset({"ODPS", "MAXCOMPUTE"})


def decode(table: Mapping[Any, str], value: Any) -> str | None:
    """The name of a documented code; an undocumented one is kept as text, None stays None."""
    if value is None:
        return None
    key = value if not isinstance(value, str) or not value.lstrip("-").isdigit() else int(value)
    return table.get(key, str(value))


# ---------------------------------------------------------------------------------------------
# ids
# ---------------------------------------------------------------------------------------------


def key_of(value: Any) -> str | None:
    """An id as text; None when absent or masked entirely (``*****`` identifies nothing)."""
    if value is None:
        return None
    text = str(value).strip()
    if not text or set(text) <= {"*"}:
        return None
    return text


def user_id(uid: Any) -> str | None:
    key = key_of(uid)
    return ids.aliyun_user(key) if key else None


def dw_id(label: str, key: Any) -> str | None:
    """A DataWorks object (Node, Instance, Dag, Flow, Baseline, File, Approval, ...) by its id."""
    key = key_of(key)
    return ids.dataworks(label, key) if key else None


def workspace_id(value: Any) -> str | None:
    key = key_of(value)
    return ids.dataworks_project(key) if key else None


def named_table(table_id: str | None) -> str | None:
    """A table id whose every name part says something (``odps.******.******`` names no table)."""
    if table_id is None or any(key_of(part) is None for part in ids.key_of(table_id).split(".")):
        return None
    return table_id


def table_from_guid(guid: str | None) -> str | None:
    """Data Map table GUIDs: ``odps.<project>.<table>`` (MaxCompute) or
    ``emr_hive.<cluster>.<schema>.<table>``; anything else (Hologres names no table) -> None."""
    if not guid:
        return None
    table_id = ids.table_from_guid(guid)
    if table_id:
        return named_table(table_id)
    parts = [p.strip() for p in guid.strip().split(".")]
    if len(parts) == 4 and parts[0].lower() == "emr_hive":
        return named_table(ids.table(f"{parts[1]}.{parts[2]}", parts[3], platform="emr_hive"))
    return None


def table_name_of(table_id: str) -> str:
    return ids.key_of(table_id).rsplit(".", 1)[-1]


def body_of(event: ParsedEvent) -> Any:
    return event.model.data  # type: ignore[attr-defined]
