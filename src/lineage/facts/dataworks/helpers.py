"""DataWorks event -> fact helpers, one per shape of event; the table that calls them is
``lineage.facts.dataworks.MAPPING``."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Mapping

from lineage import ids
from lineage.events.base import ParsedEvent
from lineage.events.dataworks.security import MaxComputeAuthorizedObject
from lineage.facts.core import Out
from lineage.facts.dataworks.codes import (
    INSTANCE_STATUS,
    DAG_TYPE,
    TASK_TYPE,
    BASELINE_STATUS,
    CHECK_RESULT,
    BLOCK_TYPE,
    FILE_CHANGE_TYPE,
    PLACEHOLDER_FLOW_ID,
    DENIED_WORDS,
    MAXCOMPUTE_TABLE_TYPES,
    decode,
    key_of,
    user_id,
    dw_id,
    workspace_id,
    named_table,
    table_from_guid,
    table_name_of,
    body_of,
)
from lineage.graph.node_diff import NODE_STATE
from lineage.sql.lineage import table_lineage

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


def node_vertex(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("Node", body.node_id), props=_node_props(body))


def node_ref(event: ParsedEvent) -> Iterator[Out]:
    yield Out(dw_id("Node", body_of(event).node_id))




def node_state(event: ParsedEvent) -> Iterator[Out]:
    """The node's Change, with its settings as the event gives them (:data:`NODE_STATE`)."""
    body = body_of(event)
    props = {k: v for k, v in _node_props(body).items() if k in NODE_STATE}
    yield Out(dw_id("Node", body.node_id), props={**props, "baseline": body.baseline_id})


def node_project(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("Node", body.node_id), workspace_id(body.project_id))


def node_baseline(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("Node", body.node_id), dw_id("Baseline", body.baseline_id))


def node_owner(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(user_id(body.owner_id), dw_id("Node", body.node_id))


def nodes_with(props: Mapping[str, Any]) -> Callable[[ParsedEvent], Iterator[Out]]:
    """Every node of a batch operation (``nodeIds``), each with the operation's resulting status."""

    def nodes(event: ParsedEvent) -> Iterator[Out]:
        for node_id in body_of(event).node_ids:
            yield Out(dw_id("Node", node_id), props=props)

    return nodes


each_node = nodes_with({})


# ---------------------------------------------------------------------------------------------
# files (commit / deploy / run / delete) and code review
# ---------------------------------------------------------------------------------------------


def _file_deleted(body: Any) -> bool:
    """``changeType`` 2: the committed or deployed change deletes the file."""
    return str(body.change_type or "").strip() == "2"


def _file_props(event: ParsedEvent) -> dict[str, Any]:
    body = body_of(event)
    return {
        "name": body.file_name, "file_type": body.file_type, "version": body.file_version, "owner": body.file_owner,
        "change_type": decode(FILE_CHANGE_TYPE, body.change_type), "datasource": body.data_source_name,
        "created_at": body.file_create_time, "last_operation": event.kind,
    }


def file_kept(event: ParsedEvent) -> Iterator[Out]:
    if not _file_deleted(body_of(event)):
        yield Out(dw_id("File", body_of(event).file_id), props=_file_props(event))


def file_dropped(event: ParsedEvent) -> Iterator[Out]:
    if _file_deleted(body_of(event)):
        yield Out(dw_id("File", body_of(event).file_id), props=_file_props(event))


def file_any(event: ParsedEvent) -> Iterator[Out]:
    yield Out(dw_id("File", body_of(event).file_id), props=_file_props(event))


def file_ref(event: ParsedEvent) -> Iterator[Out]:
    yield Out(dw_id("File", body_of(event).file_id))


def file_defines(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    if not _file_deleted(body):
        yield Out(dw_id("File", body.file_id), dw_id("Node", body.node_id))


def file_project(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("File", body.file_id), workspace_id(body.project_id))


def deployed_node(deletion: bool) -> Callable[[ParsedEvent], Iterator[Out]]:
    """The node a deployed file defines (``nodeId``): deploying a deletion (changeType 2) takes
    the node out of production, any other deployment puts it there."""

    def node(event: ParsedEvent) -> Iterator[Out]:
        body = body_of(event)
        if _file_deleted(body) == deletion:
            yield Out(dw_id("Node", body.node_id), props={"deployed": not deletion, "file": key_of(body.file_id)})

    return node


def reviewed_file(event: ParsedEvent) -> Iterator[Out]:
    """Only a ``File`` review names a file; Business (workflow) and BatchFiles reviews do not."""
    body = body_of(event)
    if (body.resource_type or "File").strip().lower() != "file":
        return
    yield Out(dw_id("File", body.resource_id), props={
        "name": body.resource_name, "review_status": body.status, "review_id": body.id, "reviewer": body.reviewer,
        "review_submitter": body.submitter, "review_url": body.review_url, "review_submitted_at": body.submit_time,
        "last_reviewed_at": body.last_review_time,
    })


# ---------------------------------------------------------------------------------------------
# instances, DAG runs, backfill, alerts (Operation Center)
# ---------------------------------------------------------------------------------------------


def _flow(flow_id: Any) -> str | None:
    return None if key_of(flow_id) == PLACEHOLDER_FLOW_ID else dw_id("Flow", flow_id)


def instance_status(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("Instance", body.task_id), props={
        "status": decode(INSTANCE_STATUS, body.status), "status_code": body.status,
        "task_type": decode(TASK_TYPE, body.task_type), "dag_type": decode(DAG_TYPE, body.dag_type),
        "created_at": body.create_time, "modified_at": body.modify_time,
        "waiting_time_since": body.begin_wait_time_time, "waiting_resource_since": body.begin_wait_res_time,
        "running_since": body.begin_running_time, "finished_at": body.finish_time, "workspace": key_of(body.app_id),
    })


def instance_of_node(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("Node", body.node_id), dw_id("Instance", body.task_id))


def instance_dag(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("Instance", body.task_id), dw_id("Dag", body.dag_id))


def dag_flow(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("Dag", body.dag_id), _flow(body.flow_id))


def dag(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("Dag", body.dag_id), props={
        "name": body.dag_name, "status": decode(INSTANCE_STATUS, body.status), "status_code": body.status,
        "dag_type": decode(DAG_TYPE, body.dag_type), "biz_date": body.biz_date, "created_at": body.create_time,
        "env": body.project_env, "workspace": key_of(body.project_id),
    })


def flow_named(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(_flow(body.flow_id), props={"name": body.flow_name})


def instances_with(props: Mapping[str, Any]) -> Callable[[ParsedEvent], Iterator[Out]]:
    """Every instance of an O&M operation (``taskIds``), with the operation as its last one."""

    def instances(event: ParsedEvent) -> Iterator[Out]:
        body = body_of(event)
        for task_id in body.task_ids:
            yield Out(dw_id("Instance", task_id), props={**props, "env": body.project_type})

    return instances


def expired_instances(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    for task_id in body.deleted_task_instance_ids:
        yield Out(dw_id("Instance", task_id), props={"deleted_reason": "expired", "owner": body.owner})


def dependencies_removed(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("Instance", body.task_instance_id), props={
        "removed_upstream_instances": list(body.upstream_task_instance_ids) or None,
    })


def backfilled_nodes(event: ParsedEvent) -> Iterator[Out]:
    """The root node and every included node; excluded ones only dry-run."""
    body = body_of(event)
    periods = [f"{p.biz_begin_time}..{p.biz_end_time}" for p in body.multiple_time_periods or ()]
    if not periods and (body.biz_begin_time or body.biz_end_time):
        periods = [f"{body.biz_begin_time}..{body.biz_end_time}"]
    props = {"last_backfill": body.name, "last_backfill_periods": periods or None,
             "last_backfill_root": key_of(body.root_node_id)}
    seen: set[str] = set()
    for node_id in (body.root_node_id, *body.include_node_ids):
        node = dw_id("Node", node_id)
        if node and node not in seen:
            seen.add(node)
            yield Out(node, props=props)


def _alert_props(body: Any) -> dict[str, Any]:
    return {"last_alert": body.alarm_type, "last_alert_rule": body.remind_name,
            "last_alert_condition": body.remind_type, "last_alert_baseline": key_of(body.baseline_id),
            "last_alert_topic": key_of(body.topic_id)}


def alert_nodes(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    for node_id in dict.fromkeys([body.node_id, *body.node_ids]):
        yield Out(dw_id("Node", node_id), props=_alert_props(body))


def alert_instances(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    status = {"status": decode(INSTANCE_STATUS, body.task_status)} if body.task_status else {}
    for task_id in dict.fromkeys([body.task_id, *body.task_ids]):
        yield Out(dw_id("Instance", task_id), props={**_alert_props(body), **status})


def alert_instance_of_node(event: ParsedEvent) -> Iterator[Out]:
    """Only the single ``nodeId``/``taskId`` pair (SLA, event alerts); rule alerts list both
    without saying which instance belongs to which node."""
    body = body_of(event)
    yield Out(dw_id("Node", body.node_id), dw_id("Instance", body.task_id))


def alert_baseline(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("Baseline", body.baseline_id), props={
        "name": body.baseline_name, "status": decode(BASELINE_STATUS, body.baseline_status),
        "biz_date": body.biz_date, "cycle": body.in_group_id, "workspace": key_of(body.project_id),
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
        return named_table(ids.table(body.max_compute_project, body.table_name))
    return named_table(ids.table_from_qualified(body.table_name))  # a qualified name carries its project


def changed_table(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    table_id = _changed_table_id(body)
    if table_id:
        yield Out(table_id, props={"name": table_name_of(table_id), "table_type": body.table_type,
                                 "workspace": key_of(body.project_id), "last_operation": event.kind})


def changed_table_ref(event: ParsedEvent) -> Iterator[Out]:
    yield Out(_changed_table_id(body_of(event)))


def changed_table_project(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
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


def downloaded(event: ParsedEvent) -> Iterator[Out]:
    """Tables the download's query reads (SQL lineage); only for MaxCompute data sources."""
    body = body_of(event)
    if not body.sql_text or not _is_maxcompute_source(body.datasource_name):
        return
    lineage = table_lineage(body.sql_text, default_project=_download_project(body))
    props = {"module": body.module_type, "file_name": body.file_name, "rows": body.data_row_size,
             "file_size": body.file_size, "ip": body.ip, "datasource": body.datasource_name,
             "workspace": key_of(body.query_dw_project_id), "sql_errors": list(lineage.errors) or None}
    user = user_id(event.actor)
    for name in dict.fromkeys(lineage.reads):
        yield Out(user, named_table(ids.table_from_qualified(name)), props=props)


def downloaded_locations(event: ParsedEvent) -> Iterator[Out]:
    """Storage paths the download's query reads (``SELECT ... FROM parquet.`oss://...```)."""
    body = body_of(event)
    if not body.sql_text or not _is_maxcompute_source(body.datasource_name):
        return
    lineage = table_lineage(body.sql_text, default_project=_download_project(body))
    for uri in lineage.read_locations:
        yield Out(user_id(event.actor), ids.location(uri),
                  props={"module": body.module_type, "file_name": body.file_name, "workspace": key_of(body.query_dw_project_id)})


def uploaded(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(user_id(event.actor), table_from_guid(body.table_guid), props={
        "source_type": body.upload_source_type, "table_operation": body.opt_table_type, "write_type": body.write_type,
        "conflict_mode": body.conflict_mode, "file_size": body.file_size, "datasource": body.datasource_name,
        "workspace": key_of(body.query_dw_project_id),
    })


def uploaded_table(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    table_id = table_from_guid(body.table_guid)
    if table_id:
        yield Out(table_id, props={"name": table_name_of(table_id), "last_upload_write_type": body.write_type,
                                 "last_upload_by": key_of(event.actor)})


DiJobs = Callable[[Any], list[tuple[str | None, str | None, list[Any]]]]


def started_job(body: Any) -> list[tuple[str | None, str | None, list[Any]]]:
    """start-diJob: (job id, solution name, table mappings) of the one job."""
    return [(body.job_id, body.extension_biz_name, body.table_mapping)]


def batch_started_jobs(body: Any) -> list[tuple[str | None, str | None, list[Any]]]:
    """batch-start-diJob: every job of ``jobIds``, with its mappings from ``tableMappings``."""
    mappings = {key_of(m.id): m for m in body.table_mappings}
    return [(job_id, getattr(mappings.get(job_id), "extension_biz_name", None),
             getattr(mappings.get(job_id), "table_mapping", [])) for job_id in body.job_ids]


def _mapping_text(m: Any) -> str:
    src = ".".join(p for p in (m.src_datasource_name, m.src_database_name, m.src_table) if p)
    dst = ".".join(p for p in (m.dst_datasource_name, m.dst_table) if p)
    return f"{src} -> {dst}"


def di_job(jobs: DiJobs) -> Callable[[ParsedEvent], Iterator[Out]]:
    def di_jobs(event: ParsedEvent) -> Iterator[Out]:
        body = body_of(event)
        setting = body.setting
        for job_id, name, mappings in jobs(body):
            yield Out(dw_id("Job", job_id), props={
                "name": name, "job_type": "data_integration",
                "table_mapping": [_mapping_text(m) for m in mappings] or None,
                "force_run": getattr(body, "force_run", None), "env": getattr(body, "env", None),
                "start_position": getattr(setting, "last_start_position", None),
                "start_time": getattr(setting, "start_date_time", None),
                "time_zone": getattr(setting, "time_zone", None),
            })

    return di_jobs


def di_job_project(jobs: DiJobs) -> Callable[[ParsedEvent], Iterator[Out]]:
    def projects(event: ParsedEvent) -> Iterator[Out]:
        body = body_of(event)
        for job_id, _name, _mappings in jobs(body):
            yield Out(dw_id("Job", job_id), workspace_id(body.project_id))

    return projects


def di_destinations(jobs: DiJobs) -> Callable[[ParsedEvent], Iterator[Out]]:
    """Destination tables that name themselves (a Data Map GUID); a bare name under a data source
    (``odps_first``) does not say which project, and regex mappings name no table."""

    def destinations(event: ParsedEvent) -> Iterator[Out]:
        for job_id, name, mappings in jobs(body_of(event)):
            for m in mappings:
                table_id = table_from_guid(m.dst_table)
                if table_id:
                    yield Out(table_id, props={"name": table_name_of(table_id), "di_job": key_of(job_id),
                                             "di_job_name": name, "di_source": _mapping_text(m).split(" -> ")[0]})

    return destinations


# ---------------------------------------------------------------------------------------------
# Security Center: approval orders granting table permissions
# ---------------------------------------------------------------------------------------------


def _approval_id(body: Any) -> str | None:
    return dw_id("Approval", body.process.process_id or body.process_id)


def _approved(body: Any) -> bool:
    statuses = (body.status, body.process.status)
    return not any(word in (status or "").lower() for status in statuses for word in DENIED_WORDS)


def approval_order(finished: bool) -> Callable[[ParsedEvent], Iterator[Out]]:
    """The request order; a finished one says whether it granted (see :data:`DENIED_WORDS`)."""

    def approval(event: ParsedEvent) -> Iterator[Out]:
        yield Out(_approval_id(body_of(event)), props=_approval_props(body_of(event), finished))

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
        "expires_at": getattr(content, "expires_at", None), "workspace": key_of(body.app_id),
        "granted": _approved(body) if finished else None,
    }


def person_named(text: Any) -> str | None:
    """A name an event gives a person, as written; None when absent or masked (``******.******``,
    ``RAM$******(******)``: a masked name names nobody)."""
    name = str(text).strip() if text is not None else ""
    return name if name and "**" not in name else None


def approval_people(event: ParsedEvent) -> Iterator[Out]:
    """Everyone an approval order names with the name it gives them: the grantees (``granteeName``,
    often the only name a grantee's UID ever gets), the applicant, the approver (``assignee``) and
    the owners of the requested objects (``ownerAccountName``, DataService ``ownerName``)."""
    body = body_of(event)
    process, content = body.process, body.process.approval_content
    pairs = [(process.applicant, process.applicant_name), (body.assignee, body.assignee_name)]
    if content is not None:
        pairs += [(a.grantee_id, a.grantee_name) for a in content.grantee_accounts]
        pairs += [(getattr(item, "owner_base_id", None) or getattr(item, "owner_id", None),
                   getattr(item, "owner_account_name", None) or getattr(item, "owner_name", None))
                  for item in content.array_data]
    for uid, text in pairs:
        user, name = user_id(uid), person_named(text)
        if user and name:
            yield Out(user, props={"name": name})


def _object_table(item: MaxComputeAuthorizedObject) -> str | None:
    if (item.object_type or "TABLE").strip().upper() != "TABLE":
        return None
    table_id = table_from_guid(item.object_guid)
    if table_id is None and item.odps_project and item.odps_table:
        table_id = named_table(ids.table(item.odps_project, item.odps_table))
    return table_id


def _object_project(item: MaxComputeAuthorizedObject) -> str | None:
    if (item.object_type or "").strip().upper() != "PROJECT":
        return None
    name = item.odps_project or item.project_name
    return ids.maxcompute_project(name) if name else None


def object_columns(item: MaxComputeAuthorizedObject) -> list[str]:
    table_id = _object_table(item)
    return [ids.column(table_id, str(c)) for c in item.columns if str(c).strip()] if table_id else []


_TargetsOf = Callable[[MaxComputeAuthorizedObject], Iterable[str | None]]


def _granted(event: ParsedEvent) -> Iterator[tuple[MaxComputeAuthorizedObject, Any]]:
    """The MaxCompute objects of an *approved* order (DataService APIs are not graph objects)."""
    body = body_of(event)
    content = body.process.approval_content
    if content is None or not _approved(body):
        return
    for item in content.array_data:
        if isinstance(item, MaxComputeAuthorizedObject):
            yield item, content


def grant_edges(targets: _TargetsOf) -> Callable[[ParsedEvent], Iterator[Out]]:
    """Every grantee x every object x every action: one CAN_ACCESS per action, until ``applyPeriod``."""

    def grants(event: ParsedEvent) -> Iterator[Out]:
        approval = key_of(body_of(event).process.process_id or body_of(event).process_id)
        for item, content in _granted(event):
            for dst in targets(item):
                for account in content.grantee_accounts:
                    for action in dict.fromkeys(str(a).strip() for a in item.actions if str(a).strip()):
                        yield Out(user_id(account.grantee_id), dst, qualifier=action.lower(), until=content.expires_at,
                                props={"privileges": [action], "approval": approval,
                                       "grantee_name": account.grantee_name, "env": item.env_type})

    return grants


def permission_changes(targets: _TargetsOf) -> Callable[[ParsedEvent], Iterator[Out]]:
    def changes(event: ParsedEvent) -> Iterator[Out]:
        seen: set[str] = set()
        for item, _content in _granted(event):
            for target in targets(item):
                if target and target not in seen and item.actions:
                    seen.add(target)
                    yield Out(target)

    return changes


def whole_table(item: MaxComputeAuthorizedObject) -> list[str | None]:
    """A column-level request grants the columns, not the whole table."""
    return [] if item.columns else [_object_table(item)]


def table_targets(item: MaxComputeAuthorizedObject) -> list[str | None]:
    return [_object_table(item)]


def project_targets(item: MaxComputeAuthorizedObject) -> list[str | None]:
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
    body = body_of(event)
    table_id = table_from_guid(body.target.table_guid)
    for rule in body.rules:
        if key_of(rule.id):
            yield rule, table_id


def target_rules(event: ParsedEvent) -> Iterator[Out]:
    for rule, _table in _rules_on_target(event):
        yield Out(dw_id("QualityRule", rule.id), props=_rule_props(rule))


def target_checks(event: ParsedEvent) -> Iterator[Out]:
    for rule, table_id in _rules_on_target(event):
        yield Out(dw_id("QualityRule", rule.id), table_id)


def target_table(event: ParsedEvent) -> Iterator[Out]:
    """The monitored table, with the names of the rules / monitor being set up on it."""
    body = body_of(event)
    table_id = table_from_guid(body.target.table_guid)
    if table_id:
        yield Out(table_id, props={"name": table_name_of(table_id),
                                 "quality_rules_added": [r.name for r in body.rules if r.name] or None,
                                 "quality_monitor": getattr(body, "name", None)
                                 or key_of(getattr(body, "data_quality_task_id", None))})


def clone_targets(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    for target in body.targets:
        table_id = table_from_guid(target.table_guid)
        if table_id:
            yield Out(table_id, props={"name": table_name_of(table_id), "quality_monitor_cloned_from": key_of(body.id)})


def rule_vertex(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("QualityRule", body.id), props=_rule_props(body))


def deleted_rules(event: ParsedEvent) -> Iterator[Out]:
    for rule_id in body_of(event).ids:
        yield Out(dw_id("QualityRule", rule_id))


def _checked_table(body: Any) -> str | None:
    """``projectName`` names the engine / data source: for MaxCompute, the project."""
    if not body.project_name or not body.table_name:
        return None
    return named_table(ids.table(body.project_name, body.table_name))


def _check_props(body: Any) -> dict[str, Any]:
    return {"quality_status": decode(CHECK_RESULT, body.check_result),
            "quality_checked_at": body.end_time or body.begin_time, "quality_biz_date": body.bizdate,
            "quality_partition": body.actual_expression}


def checked_rule(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("QualityRule", body.rule_id), props={
        "name": body.rule_name, "strength": decode(BLOCK_TYPE, body.block_type), "method": body.method_name,
        "column": None if (body.property or "-") == "-" else body.property, "comment": body.comment,
        "trigger": body.external_type or "manual", "last_check": key_of(body.id), **_check_props(body),
    })


def checked_table_fact(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    table_id = _checked_table(body)
    if table_id:
        yield Out(table_id, props={"name": table_name_of(table_id), "quality_rule": key_of(body.rule_id),
                                 **_check_props(body)})


def rule_checks_table(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("QualityRule", body.rule_id), _checked_table(body))


def feedback(event: ParsedEvent) -> Iterator[Out]:
    body = body_of(event)
    yield Out(dw_id("QualityRule", body.rule_id), props={
        "last_feedback": body.feedback_content, "last_feedback_by": body.create_user,
        "last_feedback_at": body.begin_time, "last_feedback_check": key_of(body.rule_check_id),
    })


# ---------------------------------------------------------------------------------------------
# console: workspace deletion
# ---------------------------------------------------------------------------------------------


def workspace_of(props: Mapping[str, Any]) -> Callable[[ParsedEvent], Iterator[Out]]:
    def workspace(event: ParsedEvent) -> Iterator[Out]:
        body = body_of(event)
        yield Out(workspace_id(body.project_id), props={"name": body.project_name, **props})

    return workspace
