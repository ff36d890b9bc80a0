"""DataWorks events -> facts (seeds 000, English, and 001, Chinese: the same event reference).

DataWorks tells us about *scheduling* (nodes, their files, instances, DAG runs, baselines),
*data* (tables committed and deployed, data downloaded and uploaded, Data Integration starts,
data-quality rules and their results), *access* (Security Center approval orders granting
MaxCompute table permissions) and *console* operations (workspace deletion). Every row of
:data:`MAPPING` reads one event model field-for-field as the seed documents it; the code tables
below (instance status, check result, ...) are copied from the seed's field descriptions.

Ids: operators, owners and grantees are Alibaba Cloud UIDs (``user:aliyun:<uid>``); nodes,
instances, DAGs, flows, baselines, files are keyed by their numeric ids; workspaces are
``project:dataworks:<id>``; tables are MaxCompute tables (``odps.<project>.<table>`` GUIDs or
``maxComputeProject`` + ``tableName``), or EMR Hive tables from ``emr_hive.<cluster>.<schema>.<table>``
GUIDs. Masked ids (``19***735``) are kept as text; a value masked *entirely* (``*****``) names
nobody, so it yields no id (otherwise every fully masked operator would be one user).

Kinds deliberately left without facts are in :data:`IGNORED`, each with its reason.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Mapping

from lineage import ids
from lineage.events.base import ParsedEvent
from lineage.events.dataworks.security import MaxComputeAuthorizedObject
from lineage.facts.core import Emit, Out
from lineage.sqllineage import table_lineage

SOURCE = "dataworks"

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


def _code(table: Mapping[Any, str], value: Any) -> str | None:
    """The name of a documented code; an undocumented one is kept as text, None stays None."""
    if value is None:
        return None
    key = value if not isinstance(value, str) or not value.lstrip("-").isdigit() else int(value)
    return table.get(key, str(value))


# ---------------------------------------------------------------------------------------------
# ids
# ---------------------------------------------------------------------------------------------


def _key(value: Any) -> str | None:
    """An id as text; None when absent or masked entirely (``*****`` identifies nothing)."""
    if value is None:
        return None
    text = str(value).strip()
    if not text or set(text) <= {"*"}:
        return None
    return text


def _user(uid: Any) -> str | None:
    key = _key(uid)
    return ids.aliyun_user(key) if key else None


def _dw(label: str, key: Any) -> str | None:
    """A DataWorks object (Node, Instance, Dag, Flow, Baseline, File, Approval, ...) by its id."""
    key = _key(key)
    return ids.dataworks(label, key) if key else None


def _workspace(workspace_id: Any) -> str | None:
    key = _key(workspace_id)
    return ids.dataworks_project(key) if key else None


def _named(table_id: str | None) -> str | None:
    """A table id whose every name part says something (``odps.******.******`` names no table)."""
    if table_id is None or any(_key(part) is None for part in ids.key_of(table_id).split(".")):
        return None
    return table_id


def _table_from_guid(guid: str | None) -> str | None:
    """Data Map table GUIDs: ``odps.<project>.<table>`` (MaxCompute) or
    ``emr_hive.<cluster>.<schema>.<table>``; anything else (Hologres names no table) -> None."""
    if not guid:
        return None
    table_id = ids.table_from_guid(guid)
    if table_id:
        return _named(table_id)
    parts = [p.strip() for p in guid.strip().split(".")]
    if len(parts) == 4 and parts[0].lower() == "emr_hive":
        return _named(ids.table(f"{parts[1]}.{parts[2]}", parts[3], platform="emr_hive"))
    return None


def _table_name(table_id: str) -> str:
    return ids.key_of(table_id).rsplit(".", 1)[-1]


def _body(event: ParsedEvent) -> Any:
    return event.model.data  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------------------------
# nodes (DataStudio / Operation Center)
# ---------------------------------------------------------------------------------------------


def _node_props(body: Any) -> dict[str, Any]:
    return {
        "name": body.node_name, "program_type": body.program_type, "cron": body.cron_express,
        "scheduler_type": body.scheduler_type, "owner": body.owner_id, "priority": body.priority,
        "repeatability": body.repeatability, "datasource": body.datasource, "created_at": body.create_time,
        "modified_at": body.modify_time,
    }


def _node(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("Node", body.node_id), props=_node_props(body))


def _node_ref(event: ParsedEvent) -> Iterator[Out]:
    yield Out(_dw("Node", _body(event).node_id))


def _node_project(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("Node", body.node_id), _workspace(body.project_id))


def _node_baseline(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("Node", body.node_id), _dw("Baseline", body.baseline_id))


def _node_owner(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_user(body.owner_id), _dw("Node", body.node_id))


def _nodes_with(props: Mapping[str, Any]) -> Callable[[ParsedEvent], Iterator[Out]]:
    """Every node of a batch operation (``nodeIds``), each with the operation's resulting status."""

    def nodes(event: ParsedEvent) -> Iterator[Out]:
        for node_id in _body(event).node_ids:
            yield Out(_dw("Node", node_id), props=props)

    return nodes


_each_node = _nodes_with({})


# ---------------------------------------------------------------------------------------------
# files (commit / deploy / run / delete) and code review
# ---------------------------------------------------------------------------------------------


def _file_deleted(body: Any) -> bool:
    """``changeType`` 2: the committed or deployed change deletes the file."""
    return str(body.change_type or "").strip() == "2"


def _file_props(event: ParsedEvent) -> dict[str, Any]:
    body = _body(event)
    return {
        "name": body.file_name, "file_type": body.file_type, "version": body.file_version, "owner": body.file_owner,
        "change_type": _code(FILE_CHANGE_TYPE, body.change_type), "datasource": body.data_source_name,
        "created_at": body.file_create_time, "last_operation": event.kind,
    }


def _file_kept(event: ParsedEvent) -> Iterator[Out]:
    if not _file_deleted(_body(event)):
        yield Out(_dw("File", _body(event).file_id), props=_file_props(event))


def _file_dropped(event: ParsedEvent) -> Iterator[Out]:
    if _file_deleted(_body(event)):
        yield Out(_dw("File", _body(event).file_id), props=_file_props(event))


def _file_any(event: ParsedEvent) -> Iterator[Out]:
    yield Out(_dw("File", _body(event).file_id), props=_file_props(event))


def _file_ref(event: ParsedEvent) -> Iterator[Out]:
    yield Out(_dw("File", _body(event).file_id))


def _file_defines(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    if not _file_deleted(body):
        yield Out(_dw("File", body.file_id), _dw("Node", body.node_id))


def _file_project(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("File", body.file_id), _workspace(body.project_id))


def _deployed_node(deletion: bool) -> Callable[[ParsedEvent], Iterator[Out]]:
    """The node a deployed file defines (``nodeId``): deploying a deletion (changeType 2) takes
    the node out of production, any other deployment puts it there."""

    def node(event: ParsedEvent) -> Iterator[Out]:
        body = _body(event)
        if _file_deleted(body) == deletion:
            yield Out(_dw("Node", body.node_id), props={"deployed": not deletion, "file": _key(body.file_id)})

    return node


def _reviewed_file(event: ParsedEvent) -> Iterator[Out]:
    """Only a ``File`` review names a file; Business (workflow) and BatchFiles reviews do not."""
    body = _body(event)
    if (body.resource_type or "File").strip().lower() != "file":
        return
    yield Out(_dw("File", body.resource_id), props={
        "name": body.resource_name, "review_status": body.status, "review_id": body.id, "reviewer": body.reviewer,
        "review_submitter": body.submitter, "review_url": body.review_url, "review_submitted_at": body.submit_time,
        "last_reviewed_at": body.last_review_time,
    })


# ---------------------------------------------------------------------------------------------
# instances, DAG runs, backfill, alerts (Operation Center)
# ---------------------------------------------------------------------------------------------


def _flow(flow_id: Any) -> str | None:
    return None if _key(flow_id) == PLACEHOLDER_FLOW_ID else _dw("Flow", flow_id)


def _instance_status(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("Instance", body.task_id), props={
        "status": _code(INSTANCE_STATUS, body.status), "status_code": body.status,
        "task_type": _code(TASK_TYPE, body.task_type), "dag_type": _code(DAG_TYPE, body.dag_type),
        "created_at": body.create_time, "modified_at": body.modify_time,
        "waiting_time_since": body.begin_wait_time_time, "waiting_resource_since": body.begin_wait_res_time,
        "running_since": body.begin_running_time, "finished_at": body.finish_time, "workspace": _key(body.app_id),
    })


def _instance_of_node(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("Node", body.node_id), _dw("Instance", body.task_id))


def _instance_dag(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("Instance", body.task_id), _dw("Dag", body.dag_id))


def _dag_flow(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("Dag", body.dag_id), _flow(body.flow_id))


def _dag(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("Dag", body.dag_id), props={
        "name": body.dag_name, "status": _code(INSTANCE_STATUS, body.status), "status_code": body.status,
        "dag_type": _code(DAG_TYPE, body.dag_type), "biz_date": body.biz_date, "created_at": body.create_time,
        "env": body.project_env, "workspace": _key(body.project_id),
    })


def _flow_named(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_flow(body.flow_id), props={"name": body.flow_name})


def _instances_with(props: Mapping[str, Any]) -> Callable[[ParsedEvent], Iterator[Out]]:
    """Every instance of an O&M operation (``taskIds``), with the operation as its last one."""

    def instances(event: ParsedEvent) -> Iterator[Out]:
        body = _body(event)
        for task_id in body.task_ids:
            yield Out(_dw("Instance", task_id), props={**props, "env": body.project_type})

    return instances


def _expired_instances(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    for task_id in body.deleted_task_instance_ids:
        yield Out(_dw("Instance", task_id), props={"deleted_reason": "expired", "owner": body.owner})


def _dependencies_removed(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("Instance", body.task_instance_id), props={
        "removed_upstream_instances": list(body.upstream_task_instance_ids) or None,
    })


def _backfilled_nodes(event: ParsedEvent) -> Iterator[Out]:
    """The root node and every included node; excluded ones only dry-run."""
    body = _body(event)
    periods = [f"{p.biz_begin_time}..{p.biz_end_time}" for p in body.multiple_time_periods or ()]
    if not periods and (body.biz_begin_time or body.biz_end_time):
        periods = [f"{body.biz_begin_time}..{body.biz_end_time}"]
    props = {"last_backfill": body.name, "last_backfill_periods": periods or None,
             "last_backfill_root": _key(body.root_node_id)}
    seen: set[str] = set()
    for node_id in (body.root_node_id, *body.include_node_ids):
        node = _dw("Node", node_id)
        if node and node not in seen:
            seen.add(node)
            yield Out(node, props=props)


def _alert_props(body: Any) -> dict[str, Any]:
    return {"last_alert": body.alarm_type, "last_alert_rule": body.remind_name,
            "last_alert_condition": body.remind_type, "last_alert_baseline": _key(body.baseline_id),
            "last_alert_topic": _key(body.topic_id)}


def _alert_nodes(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    for node_id in dict.fromkeys([body.node_id, *body.node_ids]):
        yield Out(_dw("Node", node_id), props=_alert_props(body))


def _alert_instances(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    status = {"status": _code(INSTANCE_STATUS, body.task_status)} if body.task_status else {}
    for task_id in dict.fromkeys([body.task_id, *body.task_ids]):
        yield Out(_dw("Instance", task_id), props={**_alert_props(body), **status})


def _alert_instance_of_node(event: ParsedEvent) -> Iterator[Out]:
    """Only the single ``nodeId``/``taskId`` pair (SLA, event alerts); rule alerts list both
    without saying which instance belongs to which node."""
    body = _body(event)
    yield Out(_dw("Node", body.node_id), _dw("Instance", body.task_id))


def _alert_baseline(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("Baseline", body.baseline_id), props={
        "name": body.baseline_name, "status": _code(BASELINE_STATUS, body.baseline_status),
        "biz_date": body.biz_date, "cycle": body.in_group_id, "workspace": _key(body.project_id),
        "last_alert": body.alarm_type,
    })


# ---------------------------------------------------------------------------------------------
# tables: commit / deploy, download, upload, Data Integration
# ---------------------------------------------------------------------------------------------


def _changed_table_id(body: Any) -> str | None:
    """MaxCompute tables only: an EMR table event names no cluster, so it cannot be named."""
    if (body.table_type or "ODPS").strip().upper() not in MAXCOMPUTE_TABLE_TYPES:
        return None
    if body.max_compute_project:
        return _named(ids.table(body.max_compute_project, body.table_name))
    return _named(ids.table_from_qualified(body.table_name))  # a qualified name carries its project


def _changed_table(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    table_id = _changed_table_id(body)
    if table_id:
        yield Out(table_id, props={"name": _table_name(table_id), "table_type": body.table_type,
                                 "workspace": _key(body.project_id), "last_operation": event.kind})


def _changed_table_ref(event: ParsedEvent) -> Iterator[Out]:
    yield Out(_changed_table_id(_body(event)))


def _changed_table_project(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    table_id = _changed_table_id(body)
    if table_id and body.max_compute_project:
        yield Out(table_id, ids.maxcompute_project(body.max_compute_project))


def _download_project(body: Any) -> str | None:
    """Unqualified names in ``sqlText`` belong to the workspace's MaxCompute project, named like the
    workspace (``queryDwProjectName``) for its default ``odps_*`` data source."""
    return body.query_dw_project_name or None


def _is_maxcompute_source(name: str | None) -> bool:
    text = (name or "odps").lower()
    return "odps" in text or "maxcompute" in text


def _downloaded(event: ParsedEvent) -> Iterator[Out]:
    """Tables the download's query reads (SQL lineage); only for MaxCompute data sources."""
    body = _body(event)
    if not body.sql_text or not _is_maxcompute_source(body.datasource_name):
        return
    lineage = table_lineage(body.sql_text, default_project=_download_project(body))
    props = {"module": body.module_type, "file_name": body.file_name, "rows": body.data_row_size,
             "file_size": body.file_size, "ip": body.ip, "datasource": body.datasource_name,
             "workspace": _key(body.query_dw_project_id), "sql_errors": list(lineage.errors) or None}
    user = _user(event.actor)
    for name in dict.fromkeys(lineage.reads):
        yield Out(user, _named(ids.table_from_qualified(name)), props=props)


def _uploaded(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_user(event.actor), _table_from_guid(body.table_guid), props={
        "source_type": body.upload_source_type, "table_operation": body.opt_table_type, "write_type": body.write_type,
        "conflict_mode": body.conflict_mode, "file_size": body.file_size, "datasource": body.datasource_name,
        "workspace": _key(body.query_dw_project_id),
    })


def _uploaded_table(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    table_id = _table_from_guid(body.table_guid)
    if table_id:
        yield Out(table_id, props={"name": _table_name(table_id), "last_upload_write_type": body.write_type,
                                 "last_upload_by": _key(event.actor)})


_DiJobs = Callable[[Any], list[tuple[str | None, str | None, list[Any]]]]


def _started_job(body: Any) -> list[tuple[str | None, str | None, list[Any]]]:
    """start-diJob: (job id, solution name, table mappings) of the one job."""
    return [(body.job_id, body.extension_biz_name, body.table_mapping)]


def _batch_started_jobs(body: Any) -> list[tuple[str | None, str | None, list[Any]]]:
    """batch-start-diJob: every job of ``jobIds``, with its mappings from ``tableMappings``."""
    mappings = {_key(m.id): m for m in body.table_mappings}
    return [(job_id, getattr(mappings.get(job_id), "extension_biz_name", None),
             getattr(mappings.get(job_id), "table_mapping", [])) for job_id in body.job_ids]


def _mapping_text(m: Any) -> str:
    src = ".".join(p for p in (m.src_datasource_name, m.src_database_name, m.src_table) if p)
    dst = ".".join(p for p in (m.dst_datasource_name, m.dst_table) if p)
    return f"{src} -> {dst}"


def _di_job(jobs: _DiJobs) -> Callable[[ParsedEvent], Iterator[Out]]:
    def di_jobs(event: ParsedEvent) -> Iterator[Out]:
        body = _body(event)
        setting = body.setting
        for job_id, name, mappings in jobs(body):
            yield Out(_dw("Job", job_id), props={
                "name": name, "job_type": "data_integration",
                "table_mapping": [_mapping_text(m) for m in mappings] or None,
                "force_run": getattr(body, "force_run", None), "env": getattr(body, "env", None),
                "start_position": getattr(setting, "last_start_position", None),
                "start_time": getattr(setting, "start_date_time", None),
                "time_zone": getattr(setting, "time_zone", None),
            })

    return di_jobs


def _di_job_project(jobs: _DiJobs) -> Callable[[ParsedEvent], Iterator[Out]]:
    def projects(event: ParsedEvent) -> Iterator[Out]:
        body = _body(event)
        for job_id, _name, _mappings in jobs(body):
            yield Out(_dw("Job", job_id), _workspace(body.project_id))

    return projects


def _di_destinations(jobs: _DiJobs) -> Callable[[ParsedEvent], Iterator[Out]]:
    """Destination tables that name themselves (a Data Map GUID); a bare name under a data source
    (``odps_first``) does not say which project, and regex mappings name no table."""

    def destinations(event: ParsedEvent) -> Iterator[Out]:
        for job_id, name, mappings in jobs(_body(event)):
            for m in mappings:
                table_id = _table_from_guid(m.dst_table)
                if table_id:
                    yield Out(table_id, props={"name": _table_name(table_id), "di_job": _key(job_id),
                                             "di_job_name": name, "di_source": _mapping_text(m).split(" -> ")[0]})

    return destinations


# ---------------------------------------------------------------------------------------------
# Security Center: approval orders granting table permissions
# ---------------------------------------------------------------------------------------------


def _approval_id(body: Any) -> str | None:
    return _dw("Approval", body.process.process_id or body.process_id)


def _approved(body: Any) -> bool:
    statuses = (body.status, body.process.status)
    return not any(word in (status or "").lower() for status in statuses for word in DENIED_WORDS)


def _approval(finished: bool) -> Callable[[ParsedEvent], Iterator[Out]]:
    """The request order; a finished one says whether it granted (see :data:`DENIED_WORDS`)."""

    def approval(event: ParsedEvent) -> Iterator[Out]:
        yield Out(_approval_id(_body(event)), props=_approval_props(_body(event), finished))

    return approval


def _approval_props(body: Any, finished: bool) -> dict[str, Any]:
    process = body.process
    content = process.approval_content
    return {
        "name": process.title, "status": body.status, "process_status": process.status,
        "category": process.assignment_category, "applicant": process.applicant,
        "applicant_name": process.applicant_name, "assignee": body.assignee, "assignee_name": body.assignee_name,
        "comments": body.comments, "reason": getattr(content, "apply_reason", None),
        "resources": getattr(content, "resource_summary", None),
        "expires_at": getattr(content, "expires_at", None), "workspace": _key(body.app_id),
        "granted": _approved(body) if finished else None,
    }


def _object_table(item: MaxComputeAuthorizedObject) -> str | None:
    if (item.object_type or "TABLE").strip().upper() != "TABLE":
        return None
    table_id = _table_from_guid(item.object_guid)
    if table_id is None and item.odps_project and item.odps_table:
        table_id = _named(ids.table(item.odps_project, item.odps_table))
    return table_id


def _object_project(item: MaxComputeAuthorizedObject) -> str | None:
    if (item.object_type or "").strip().upper() != "PROJECT":
        return None
    name = item.odps_project or item.project_name
    return ids.maxcompute_project(name) if name else None


def _object_columns(item: MaxComputeAuthorizedObject) -> list[str]:
    table_id = _object_table(item)
    return [ids.column(table_id, str(c)) for c in item.columns if str(c).strip()] if table_id else []


_TargetsOf = Callable[[MaxComputeAuthorizedObject], Iterable[str | None]]


def _granted(event: ParsedEvent) -> Iterator[tuple[MaxComputeAuthorizedObject, Any]]:
    """The MaxCompute objects of an *approved* order (DataService APIs are not graph objects)."""
    body = _body(event)
    content = body.process.approval_content
    if content is None or not _approved(body):
        return
    for item in content.array_data:
        if isinstance(item, MaxComputeAuthorizedObject):
            yield item, content


def _grants(targets: _TargetsOf) -> Callable[[ParsedEvent], Iterator[Out]]:
    """Every grantee x every object x every action: one CAN_ACCESS per action, until ``applyPeriod``."""

    def grants(event: ParsedEvent) -> Iterator[Out]:
        approval = _key(_body(event).process.process_id or _body(event).process_id)
        for item, content in _granted(event):
            for dst in targets(item):
                for account in content.grantee_accounts:
                    for action in dict.fromkeys(str(a).strip() for a in item.actions if str(a).strip()):
                        yield Out(_user(account.grantee_id), dst, qualifier=action.lower(), until=content.expires_at,
                                props={"privileges": [action], "approval": approval,
                                       "grantee_name": account.grantee_name, "env": item.env_type})

    return grants


def _permission_changes(targets: _TargetsOf) -> Callable[[ParsedEvent], Iterator[Out]]:
    def changes(event: ParsedEvent) -> Iterator[Out]:
        seen: set[str] = set()
        for item, _content in _granted(event):
            for target in targets(item):
                if target and target not in seen and item.actions:
                    seen.add(target)
                    yield Out(target)

    return changes


def _whole_table(item: MaxComputeAuthorizedObject) -> list[str | None]:
    """A column-level request grants the columns, not the whole table."""
    return [] if item.columns else [_object_table(item)]


def _table_targets(item: MaxComputeAuthorizedObject) -> list[str | None]:
    return [_object_table(item)]


def _project_targets(item: MaxComputeAuthorizedObject) -> list[str | None]:
    return [_object_project(item)]


# ---------------------------------------------------------------------------------------------
# Data Quality: rules, checks and their results
# ---------------------------------------------------------------------------------------------


def _rule_props(rule: Any) -> dict[str, Any]:
    checking = rule.checking_config
    thresholds = getattr(checking, "thresholds", None)
    return {
        "name": rule.name, "enabled": rule.enabled, "severity": rule.severity, "description": rule.description,
        "template": rule.template_code, "metric": getattr(rule.sampling_config, "metric", None),
        "threshold_type": getattr(checking, "type", None),
        "expected": getattr(getattr(thresholds, "expected", None), "expression", None),
        "critical": getattr(getattr(thresholds, "critical", None), "expression", None),
    }


def _rules_on_target(event: ParsedEvent) -> Iterator[tuple[Any, str | None]]:
    """Rules that carry an ``id`` (new rules are named only by the id DataWorks assigns later)."""
    body = _body(event)
    table_id = _table_from_guid(body.target.table_guid)
    for rule in body.rules:
        if _key(rule.id):
            yield rule, table_id


def _target_rules(event: ParsedEvent) -> Iterator[Out]:
    for rule, _table in _rules_on_target(event):
        yield Out(_dw("QualityRule", rule.id), props=_rule_props(rule))


def _target_checks(event: ParsedEvent) -> Iterator[Out]:
    for rule, table_id in _rules_on_target(event):
        yield Out(_dw("QualityRule", rule.id), table_id)


def _target_table(event: ParsedEvent) -> Iterator[Out]:
    """The monitored table, with the names of the rules / monitor being set up on it."""
    body = _body(event)
    table_id = _table_from_guid(body.target.table_guid)
    if table_id:
        yield Out(table_id, props={"name": _table_name(table_id),
                                 "quality_rules_added": [r.name for r in body.rules if r.name] or None,
                                 "quality_monitor": getattr(body, "name", None)
                                 or _key(getattr(body, "data_quality_task_id", None))})


def _clone_targets(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    for target in body.targets:
        table_id = _table_from_guid(target.table_guid)
        if table_id:
            yield Out(table_id, props={"name": _table_name(table_id), "quality_monitor_cloned_from": _key(body.id)})


def _rule(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("QualityRule", body.id), props=_rule_props(body))


def _deleted_rules(event: ParsedEvent) -> Iterator[Out]:
    for rule_id in _body(event).ids:
        yield Out(_dw("QualityRule", rule_id))


def _checked_table(body: Any) -> str | None:
    """``projectName`` names the engine / data source: for MaxCompute, the project."""
    if not body.project_name or not body.table_name:
        return None
    return _named(ids.table(body.project_name, body.table_name))


def _check_props(body: Any) -> dict[str, Any]:
    return {"quality_status": _code(CHECK_RESULT, body.check_result),
            "quality_checked_at": body.end_time or body.begin_time, "quality_biz_date": body.bizdate,
            "quality_partition": body.actual_expression}


def _checked_rule(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("QualityRule", body.rule_id), props={
        "name": body.rule_name, "strength": _code(BLOCK_TYPE, body.block_type), "method": body.method_name,
        "column": None if (body.property or "-") == "-" else body.property, "comment": body.comment,
        "trigger": body.external_type or "manual", "last_check": _key(body.id), **_check_props(body),
    })


def _checked_table_fact(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    table_id = _checked_table(body)
    if table_id:
        yield Out(table_id, props={"name": _table_name(table_id), "quality_rule": _key(body.rule_id),
                                 **_check_props(body)})


def _rule_checks_table(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("QualityRule", body.rule_id), _checked_table(body))


def _feedback(event: ParsedEvent) -> Iterator[Out]:
    body = _body(event)
    yield Out(_dw("QualityRule", body.rule_id), props={
        "last_feedback": body.feedback_content, "last_feedback_by": body.create_user,
        "last_feedback_at": body.begin_time, "last_feedback_check": _key(body.rule_check_id),
    })


# ---------------------------------------------------------------------------------------------
# console: workspace deletion
# ---------------------------------------------------------------------------------------------


def _workspace_of(props: Mapping[str, Any]) -> Callable[[ParsedEvent], Iterator[Out]]:
    def workspace(event: ParsedEvent) -> Iterator[Out]:
        body = _body(event)
        yield Out(_workspace(body.project_id), props={"name": body.project_name, **props})

    return workspace


# ---------------------------------------------------------------------------------------------
# the mapping table
# ---------------------------------------------------------------------------------------------

_NODE = ("name", "program_type", "cron", "scheduler_type", "owner", "priority", "repeatability", "datasource",
         "created_at", "modified_at")
_FILE = ("name", "file_type", "version", "owner", "change_type", "datasource", "created_at", "last_operation")
_INSTANCE = ("status", "status_code", "task_type", "dag_type", "created_at", "modified_at", "waiting_time_since",
             "waiting_resource_since", "running_since", "finished_at", "workspace")
_ALERT = ("last_alert", "last_alert_rule", "last_alert_condition", "last_alert_baseline", "last_alert_topic")
_RULE = ("name", "enabled", "severity", "description", "template", "metric", "threshold_type", "expected", "critical")
_CHECK = ("quality_status", "quality_checked_at", "quality_biz_date", "quality_partition")
_GRANT = ("privileges", "approval", "grantee_name", "env")
_APPROVAL = ("name", "status", "process_status", "category", "applicant", "applicant_name", "assignee",
             "assignee_name", "comments", "reason", "resources", "expires_at", "workspace", "granted")

_NODE_UPSERT: tuple[Emit, ...] = (
    Emit(op="assert", src="Node", fn=_node, note="nodeId; the node's scheduling settings", extra=_NODE),
    Emit(op="assert", src="Node", rel="IN_PROJECT", dst="Project", fn=_node_project,
         note="nodeId -> projectId (workspace)"),
    Emit(op="assert", src="Node", rel="IN_BASELINE", dst="Baseline", fn=_node_baseline, note="nodeId -> baselineId"),
    Emit(op="assert", src="User", rel="OWNS", dst="Node", fn=_node_owner, note="ownerId (UID) -> nodeId"),
)


def _file_rows(kept_op: str) -> tuple[Emit, ...]:
    """A committed / deployed / run file: its vertex, the node it defines, its workspace."""
    return (
        Emit(op=kept_op, src="File", fn=_file_kept, note="fileId (changeType 0/1 or none)", extra=_FILE),
        Emit(op="retract", src="File", fn=_file_dropped, note="fileId when changeType is 2 (the change deletes it)",
             extra=_FILE),
        Emit(op="assert", src="File", rel="DEFINES", dst="Node", fn=_file_defines, note="fileId -> nodeId"),
        Emit(op="assert", src="File", rel="IN_PROJECT", dst="Project", fn=_file_project, note="fileId -> projectId"),
    )


def _node_batch(props: Mapping[str, Any], change: str) -> tuple[Emit, ...]:
    return (
        Emit(op="observe", src="Node", fn=_nodes_with(props), note="each of nodeIds", extra=tuple(props)),
        Emit(op="change", src="Node", rel=change, fn=_each_node, note="each of nodeIds"),
    )


def _instance_op(props: Mapping[str, Any]) -> tuple[Emit, ...]:
    return (Emit(op="observe", src="Instance", fn=_instances_with(props), note="each of taskIds (instance ids)",
                 extra=(*props, "env")),)


_TABLE_CHANGE: tuple[Emit, ...] = (
    Emit(op="assert", src="Table", fn=_changed_table,
         note="maxComputeProject + tableName (tableType ODPS or absent; EMR names no cluster: skipped)",
         extra=("name", "table_type", "workspace", "last_operation")),
    Emit(op="assert", src="Table", rel="IN_PROJECT", dst="Project", fn=_changed_table_project,
         note="table -> maxComputeProject (MaxCompute project)"),
)

_DOWNLOAD: tuple[Emit, ...] = (
    Emit(op="assert", src="User", rel="DOWNLOADED", dst="Table", fn=_downloaded,
         note="operatorUid -> tables read by sqlText (SQL lineage; unqualified names in queryDwProjectName; "
              "MaxCompute data sources only)",
         extra=("module", "file_name", "rows", "file_size", "ip", "datasource", "workspace", "sql_errors")),
)


def _di_start(jobs: _DiJobs) -> tuple[Emit, ...]:
    """A Data Integration start: the job(s), their workspace, and destination tables that can be
    named. No FEEDS: table-to-table lineage is derived later from READS + WRITES."""
    return (
        Emit(op="observe", src="Job", fn=_di_job(jobs),
             note="jobId / id / jobIds (Data Integration job: job:dataworks:<id>)",
             extra=("name", "job_type", "table_mapping", "force_run", "env", "start_position", "start_time",
                    "time_zone")),
        Emit(op="assert", src="Job", rel="IN_PROJECT", dst="Project", fn=_di_job_project(jobs),
             note="job -> projectId"),
        Emit(op="observe", src="Table", fn=_di_destinations(jobs),
             note="tableMapping dstTable when it is a Data Map GUID (odps.<project>.<table>)",
             extra=("name", "di_job", "di_job_name", "di_source")),
    )


MAPPING: dict[str, tuple[Emit, ...]] = {
    # DataStudio: nodes
    "node-change-created": (
        *_NODE_UPSERT,
        Emit(op="change", src="Node", rel="node_create", fn=_node_ref, note="nodeId"),
    ),
    "node-change-updated": (
        *_NODE_UPSERT,
        Emit(op="change", src="Node", rel="node_update", fn=_node_ref, note="nodeId"),
    ),
    "node-change-deleted": (
        Emit(op="retract", src="Node", fn=_node, note="nodeId", extra=_NODE),
        Emit(op="retract", src="Node", rel="IN_BASELINE", dst="Baseline", fn=_node_ref,
             note="nodeId: every baseline edge closes"),
        Emit(op="change", src="Node", rel="node_delete", fn=_node_ref, note="nodeId"),
    ),
    # DataStudio: files and code review
    "commit-file": _file_rows("assert"),
    "deploy-file": (
        *_file_rows("assert"),
        Emit(op="observe", src="Node", fn=_deployed_node(False), note="nodeId of the deployed file",
             extra=("deployed", "file")),
        Emit(op="change", src="Node", rel="node_deploy", fn=_deployed_node(False), note="nodeId of the deployed file"),
        Emit(op="observe", src="Node", fn=_deployed_node(True), note="nodeId when the deployed change deletes the file",
             extra=("deployed", "file")),
        Emit(op="change", src="Node", rel="node_undeploy", fn=_deployed_node(True),
             note="nodeId when the deployed change deletes the file (changeType 2)"),
    ),
    "run-file": _file_rows("observe"),
    "delete-file": (
        Emit(op="retract", src="File", fn=_file_any, note="fileId", extra=_FILE),
        Emit(op="retract", src="File", rel="DEFINES", dst="Node", fn=_file_ref, note="fileId: every DEFINES closes"),
    ),
    "review-file": (
        Emit(op="observe", src="File", fn=_reviewed_file, note="resourceId when resourceType is File",
             extra=("name", "review_status", "review_id", "reviewer", "review_submitter", "review_url",
                    "review_submitted_at", "last_reviewed_at")),
    ),
    # DataStudio: tables
    "commit-table": _TABLE_CHANGE,
    "deploy-table": (
        *_TABLE_CHANGE,
        Emit(op="change", src="Table", rel="schema_change", fn=_changed_table_ref,
             note="maxComputeProject + tableName: a deployed table definition is a schema change"),
    ),
    # Data Integration
    "start-diJob": _di_start(_started_job),
    "batch-start-diJob": _di_start(_batch_started_jobs),
    # Operation Center: nodes
    "undeploy-node": _node_batch({"deployed": False}, "node_undeploy"),
    "freeze-node": _node_batch({"frozen": True}, "node_freeze"),
    "unfreeze-node": _node_batch({"frozen": False}, "node_unfreeze"),
    "backfill-data": (
        Emit(op="observe", src="Node", fn=_backfilled_nodes, note="rootNodeId and each of includeNodeIds",
             extra=("last_backfill", "last_backfill_periods", "last_backfill_root")),
    ),
    # Operation Center: instances and DAG runs
    "instance-status-changes": (
        Emit(op="observe", src="Instance", fn=_instance_status, note="taskId (the instance)", extra=_INSTANCE),
        Emit(op="assert", src="Node", rel="HAS_INSTANCE", dst="Instance", fn=_instance_of_node,
             note="nodeId -> taskId"),
        Emit(op="assert", src="Instance", rel="IN_DAG", dst="Dag", fn=_instance_dag, note="taskId -> dagId"),
        Emit(op="assert", src="Dag", rel="IN_FLOW", dst="Flow", fn=_dag_flow,
             note="dagId -> flowId (1 = auto triggered, no workflow: skipped)"),
    ),
    "dag-status-changes": (
        Emit(op="observe", src="Dag", fn=_dag, note="dagId",
             extra=("name", "status", "status_code", "dag_type", "biz_date", "created_at", "env", "workspace")),
        Emit(op="observe", src="Flow", fn=_flow_named, note="flowId (not 1)", extra=("name",)),
        Emit(op="assert", src="Dag", rel="IN_FLOW", dst="Flow", fn=_dag_flow, note="dagId -> flowId (not 1)"),
    ),
    "freeze-instance": _instance_op({"last_operation": "freeze", "frozen": True}),
    "unfreeze-instance": _instance_op({"last_operation": "unfreeze", "frozen": False}),
    "kill-instance": _instance_op({"last_operation": "kill"}),
    "rerun-instance": _instance_op({"last_operation": "rerun"}),
    "set-instance-success": _instance_op({"last_operation": "set_success"}),
    "pre-freeze-instance": _instance_op({"pending_operation": "freeze"}),
    "expired-task-instances-deleted": (
        Emit(op="retract", src="Instance", fn=_expired_instances, note="each of deletedTaskInstanceIds",
             extra=("deleted_reason", "owner")),
    ),
    "delete-task-instance-dependencies": (
        Emit(op="observe", src="Instance", fn=_dependencies_removed, note="taskInstanceId (the downstream instance)",
             extra=("removed_upstream_instances",)),
    ),
    "workbench-monitor-alert": (
        Emit(op="observe", src="Baseline", fn=_alert_baseline, note="baselineId (SLA_ALERT)",
             extra=("name", "status", "biz_date", "cycle", "workspace", "last_alert")),
        Emit(op="observe", src="Node", fn=_alert_nodes, note="nodeId / nodeIds", extra=_ALERT),
        Emit(op="observe", src="Instance", fn=_alert_instances, note="taskId / taskIds", extra=(*_ALERT, "status")),
        Emit(op="assert", src="Node", rel="HAS_INSTANCE", dst="Instance", fn=_alert_instance_of_node,
             note="nodeId -> taskId (single pair only)"),
    ),
    # Security Center
    "approval-change-created": (
        Emit(op="observe", src="Approval", fn=_approval(False), note="process.processId (the request order)",
             extra=_APPROVAL),
    ),
    "approval-change-finished": (
        Emit(op="observe", src="Approval", fn=_approval(True), note="process.processId (the request order)",
             extra=_APPROVAL),
        Emit(op="assert", src="User", rel="CAN_ACCESS", dst="Table", fn=_grants(_whole_table),
             note="granteeAccounts[].granteeId x arrayData[] objectGuid (or odpsProject+odpsTable) x actions; "
                  "approved orders only; until applyPeriod", extra=_GRANT),
        Emit(op="assert", src="User", rel="CAN_ACCESS", dst="Column", fn=_grants(_object_columns),
             note="as above, for column-level requests (arrayData[].columns)", extra=_GRANT),
        Emit(op="assert", src="User", rel="CAN_ACCESS", dst="Project", fn=_grants(_project_targets),
             note="as above, objectType PROJECT -> odpsProject", extra=_GRANT),
        Emit(op="change", src="Table", rel="permission_change", fn=_permission_changes(_table_targets),
             note="each granted table"),
        Emit(op="change", src="Project", rel="permission_change",
             fn=_permission_changes(_project_targets), note="each granted MaxCompute project"),
    ),
    # Data Quality
    "dqc-check-finished-event": (
        Emit(op="observe", src="QualityRule", fn=_checked_rule, note="ruleId; the latest check result",
             extra=("name", "strength", "method", "column", "comment", "trigger", "last_check", *_CHECK)),
        Emit(op="observe", src="Table", fn=_checked_table_fact,
             note="projectName (engine / data source = MaxCompute project) + tableName",
             extra=("quality_rule", *_CHECK)),
        Emit(op="assert", src="QualityRule", rel="CHECKS", dst="Table", fn=_rule_checks_table,
             note="ruleId -> projectName + tableName (a check result shows the rule checks that table)"),
    ),
    "dqc-check-feedback-event": (
        Emit(op="observe", src="QualityRule", fn=_feedback, note="ruleId",
             extra=("last_feedback", "last_feedback_by", "last_feedback_at", "last_feedback_check")),
    ),
    "batch-create-data-quality-rules": (
        Emit(op="assert", src="QualityRule", fn=_target_rules, note="rules[].id (rules without an id: none)",
             extra=_RULE),
        Emit(op="assert", src="QualityRule", rel="CHECKS", dst="Table", fn=_target_checks,
             note="rules[].id -> target.tableGuid"),
        Emit(op="observe", src="Table", fn=_target_table, note="target.tableGuid",
             extra=("name", "quality_rules_added", "quality_monitor")),
    ),
    "update-data-quality-rule": (
        Emit(op="assert", src="QualityRule", fn=_rule, note="id (the rule)", extra=_RULE),
    ),
    "batch-delete-data-quality-rules": (
        Emit(op="retract", src="QualityRule", fn=_deleted_rules, note="each of ids"),
        Emit(op="retract", src="QualityRule", rel="CHECKS", dst="Table", fn=_deleted_rules,
             note="each of ids: every CHECKS closes"),
    ),
    "create-data-quality-evaluation-task": (
        Emit(op="assert", src="QualityRule", fn=_target_rules, note="rules[].id (rules without an id: none)",
             extra=_RULE),
        Emit(op="assert", src="QualityRule", rel="CHECKS", dst="Table", fn=_target_checks,
             note="rules[].id -> target.tableGuid"),
        Emit(op="observe", src="Table", fn=_target_table, note="target.tableGuid (monitor name as a property)",
             extra=("name", "quality_rules_added", "quality_monitor")),
    ),
    "clone-data-quality-evaluation-task": (
        Emit(op="observe", src="Table", fn=_clone_targets, note="targets[].tableGuid",
             extra=("name", "quality_monitor_cloned_from")),
    ),
    # console
    "delete-project": (
        Emit(op="observe", src="Project", fn=_workspace_of({"deletion_requested": True}),
             note="projectId (DataWorks workspace; pre-event)", extra=("name", "deletion_requested")),
    ),
    "project-deleted": (
        Emit(op="retract", src="Project", fn=_workspace_of({}), note="projectId (DataWorks workspace)",
             extra=("name",)),
        Emit(op="change", src="Project", rel="project_deletion", fn=_workspace_of({}), note="projectId"),
    ),
    # upload and download
    "download-resources": _DOWNLOAD,
    "download-resources-execute": _DOWNLOAD,
    "upload-data-to-table": (
        Emit(op="assert", src="User", rel="UPLOADED", dst="Table", fn=_uploaded,
             note="operatorUid -> tableGuid (odps.<project>.<table> or emr_hive.<cluster>.<schema>.<table>)",
             extra=("source_type", "table_operation", "write_type", "conflict_mode", "file_size", "datasource",
                    "workspace")),
        Emit(op="observe", src="Table", fn=_uploaded_table, note="tableGuid",
             extra=("name", "last_upload_write_type", "last_upload_by")),
    ),
}

IGNORED: dict[str, str] = {
    "approval-change-before-create": "a table-permission request about to be filed: it has no order id and "
                                     "grants nothing; access comes from approval-change-finished",
    "batch-delete-data-quality-evaluation-tasks": "monitors (evaluation tasks) are not graph vertices; "
                                                  "their rules are removed by batch-delete-data-quality-rules",
    "create-data-quality-evaluation-task-notification": "an alert subscription of a monitor: no lineage, "
                                                        "access or change meaning",
    "update-data-quality-evaluation-task-notification": "an alert subscription of a monitor: no lineage, "
                                                        "access or change meaning",
}
"""Known kinds deliberately mapped to no facts, with the reason (docs and tests read this)."""


def failed(event: ParsedEvent) -> bool:
    """Never: DataWorks events report operations that happened (or are about to); no body carries
    an outcome of the operation itself. Failed *runs* (instance status 5, check result -1) are
    states of the thing, observed as properties, not failed operations."""
    return False


def actor_id(event: ParsedEvent) -> str | None:
    """The body's operator (or operatorUid, assignee, submitter, createUser: the model says which)."""
    return _user(event.actor)
