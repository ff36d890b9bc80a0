"""DataWorks events -> facts (seeds 000, English, and 001, Chinese: the same event reference).

DataWorks tells us about *scheduling* (nodes, their files, instances, DAG runs, baselines),
*data* (tables committed and deployed, data downloaded and uploaded, Data Integration starts,
data-quality rules and their results), *access* (Security Center approval orders granting
MaxCompute table permissions) and *console* operations (workspace deletion). Every row of
:data:`MAPPING` reads one event model field-for-field as the seed documents it, through the helpers
of ``helpers``; the code tables of ``codes`` (instance status, check result, ...) are copied from
the seed's field descriptions.

Ids: operators, owners and grantees are Alibaba Cloud UIDs (``user:aliyun:<uid>``); nodes,
instances, DAGs, flows, baselines, files are keyed by their numeric ids; workspaces are
``project:dataworks:<id>``; tables are MaxCompute tables (``odps.<project>.<table>`` GUIDs or
``maxComputeProject`` + ``tableName``), or EMR Hive tables from ``emr_hive.<cluster>.<schema>.<table>``
GUIDs. Masked ids (``19***735``) are kept as text; a value masked *entirely* (``*****``) names
nobody, so it yields no id (otherwise every fully masked operator would be one user).

Kinds deliberately left without facts are in :data:`IGNORED`, each with its reason.
"""

from __future__ import annotations

from typing import Any, Mapping

from lineage import ids
from lineage.events.base import ParsedEvent
from lineage.facts.core import Emit
from lineage.facts.dataworks.codes import (
    user_id,
)
from lineage.facts.dataworks.helpers import (
    node_vertex,
    NODE_STATE,
    node_ref,
    node_state,
    node_project,
    node_baseline,
    node_owner,
    nodes_with,
    each_node,
    file_kept,
    file_dropped,
    file_any,
    file_ref,
    file_defines,
    file_project,
    deployed_node,
    reviewed_file,
    instance_status,
    instance_of_node,
    instance_dag,
    dag_flow,
    dag,
    flow_named,
    instances_with,
    expired_instances,
    dependencies_removed,
    backfilled_nodes,
    alert_nodes,
    alert_instances,
    alert_instance_of_node,
    alert_baseline,
    changed_table,
    changed_table_ref,
    changed_table_project,
    downloaded,
    downloaded_locations,
    uploaded,
    uploaded_table,
    DiJobs,
    started_job,
    batch_started_jobs,
    di_job,
    di_job_project,
    di_destinations,
    approval_order,
    approval_people,
    object_columns,
    grant_edges,
    permission_changes,
    whole_table,
    table_targets,
    project_targets,
    target_rules,
    target_checks,
    target_table,
    clone_targets,
    rule_vertex,
    deleted_rules,
    checked_rule,
    checked_table_fact,
    rule_checks_table,
    feedback,
    workspace_of,
)

SOURCE = "dataworks"

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
_APPROVAL_PEOPLE = Emit(
    op="observe", src="User", fn=approval_people, extra=("name",),
    note="granteeAccounts[].granteeId (name granteeName), process.applicant (applicantName), assignee "
         "(assigneeName), arrayData[].ownerBaseId (ownerAccountName): each person with the name the order gives; "
         "masked names skipped")
_APPROVAL = ("name", "status", "process_status", "category", "applicant", "applicant_name", "assignee",
             "assignee_name", "comments", "reason", "resources", "expires_at", "workspace", "granted")

_NODE_UPSERT: tuple[Emit, ...] = (
    Emit(op="assert", src="Node", fn=node_vertex, note="nodeId; the node's scheduling settings", extra=_NODE),
    Emit(op="assert", src="Node", rel="IN_PROJECT", dst="Project", fn=node_project,
         note="nodeId -> projectId (workspace)"),
    Emit(op="assert", src="Node", rel="IN_BASELINE", dst="Baseline", fn=node_baseline, note="nodeId -> baselineId"),
    Emit(op="assert", src="User", rel="OWNS", dst="Node", fn=node_owner, note="ownerId (UID) -> nodeId"),
)


def _file_rows(kept_op: str) -> tuple[Emit, ...]:
    """A committed / deployed / run file: its vertex, the node it defines, its workspace."""
    return (
        Emit(op=kept_op, src="File", fn=file_kept, note="fileId (changeType 0/1 or none)", extra=_FILE),
        Emit(op="retract", src="File", fn=file_dropped, note="fileId when changeType is 2 (the change deletes it)",
             extra=_FILE),
        Emit(op="assert", src="File", rel="DEFINES", dst="Node", fn=file_defines, note="fileId -> nodeId"),
        Emit(op="assert", src="File", rel="IN_PROJECT", dst="Project", fn=file_project, note="fileId -> projectId"),
    )


def _node_batch(props: Mapping[str, Any], change: str) -> tuple[Emit, ...]:
    return (
        Emit(op="observe", src="Node", fn=nodes_with(props), note="each of nodeIds", extra=tuple(props)),
        Emit(op="change", src="Node", rel=change, fn=each_node, note="each of nodeIds"),
    )


def _instance_op(props: Mapping[str, Any]) -> tuple[Emit, ...]:
    return (Emit(op="observe", src="Instance", fn=instances_with(props), note="each of taskIds (instance ids)",
                 extra=(*props, "env")),)


_TABLE_CHANGE: tuple[Emit, ...] = (
    Emit(op="assert", src="Table", fn=changed_table,
         note="maxComputeProject + tableName (tableType ODPS or absent; EMR names no cluster: skipped)",
         extra=("name", "table_type", "workspace", "last_operation")),
    Emit(op="assert", src="Table", rel="IN_PROJECT", dst="Project", fn=changed_table_project,
         note="table -> maxComputeProject (MaxCompute project)"),
)

_DOWNLOAD: tuple[Emit, ...] = (
    Emit(op="assert", src="User", rel="DOWNLOADED", dst="Table", fn=downloaded,
         note="operatorUid -> tables read by sqlText (SQL lineage; unqualified names in queryDwProjectName; "
              "MaxCompute data sources only)",
         extra=("module", "file_name", "rows", "file_size", "ip", "datasource", "workspace", "sql_errors")),
    Emit(op="assert", src="User", rel="DOWNLOADED", dst="Location", fn=downloaded_locations,
         note="operatorUid -> storage paths read by sqlText (Spark format.path reads): location:<scheme>://<bucket>/<path>",
         extra=("module", "file_name", "workspace")),
)


def _di_start(jobs: DiJobs) -> tuple[Emit, ...]:
    """A Data Integration start: the job(s), their workspace, and destination tables that can be
    named. No FEEDS: table-to-table lineage is derived later from READS + WRITES."""
    return (
        Emit(op="observe", src="Job", fn=di_job(jobs),
             note="jobId / id / jobIds (Data Integration job: job:dataworks:<id>)",
             extra=("name", "job_type", "table_mapping", "force_run", "env", "start_position", "start_time",
                    "time_zone")),
        Emit(op="assert", src="Job", rel="IN_PROJECT", dst="Project", fn=di_job_project(jobs),
             note="job -> projectId"),
        Emit(op="observe", src="Table", fn=di_destinations(jobs),
             note="tableMapping dstTable when it is a Data Map GUID (odps.<project>.<table>)",
             extra=("name", "di_job", "di_job_name", "di_source")),
    )


MAPPING: dict[str, tuple[Emit, ...]] = {
    # DataStudio: nodes
    "node-change-created": (
        *_NODE_UPSERT,
        Emit(op="change", src="Node", rel="node_create", fn=node_state, note="nodeId; the node's settings after it",
             extra=NODE_STATE),
    ),
    "node-change-updated": (
        *_NODE_UPSERT,
        Emit(op="change", src="Node", rel="node_update", fn=node_state, note="nodeId; the node's settings after it",
             extra=NODE_STATE),
    ),
    "node-change-deleted": (
        Emit(op="retract", src="Node", fn=node_vertex, note="nodeId", extra=_NODE),
        Emit(op="retract", src="Node", rel="IN_BASELINE", dst="Baseline", fn=node_ref,
             note="nodeId: every baseline edge closes"),
        Emit(op="change", src="Node", rel="node_delete", fn=node_ref, note="nodeId"),
    ),
    # DataStudio: files and code review
    "commit-file": _file_rows("assert"),
    "deploy-file": (
        *_file_rows("assert"),
        Emit(op="observe", src="Node", fn=deployed_node(False), note="nodeId of the deployed file",
             extra=("deployed", "file")),
        Emit(op="change", src="Node", rel="node_deploy", fn=deployed_node(False), note="nodeId of the deployed file"),
        Emit(op="observe", src="Node", fn=deployed_node(True), note="nodeId when the deployed change deletes the file",
             extra=("deployed", "file")),
        Emit(op="change", src="Node", rel="node_undeploy", fn=deployed_node(True),
             note="nodeId when the deployed change deletes the file (changeType 2)"),
    ),
    "run-file": _file_rows("observe"),
    "delete-file": (
        Emit(op="retract", src="File", fn=file_any, note="fileId", extra=_FILE),
        Emit(op="retract", src="File", rel="DEFINES", dst="Node", fn=file_ref, note="fileId: every DEFINES closes"),
    ),
    "review-file": (
        Emit(op="observe", src="File", fn=reviewed_file, note="resourceId when resourceType is File",
             extra=("name", "review_status", "review_id", "reviewer", "review_submitter", "review_url",
                    "review_submitted_at", "last_reviewed_at")),
    ),
    # DataStudio: tables
    "commit-table": _TABLE_CHANGE,
    "deploy-table": (
        *_TABLE_CHANGE,
        Emit(op="change", src="Table", rel="schema_change", fn=changed_table_ref,
             note="maxComputeProject + tableName: a deployed table definition is a schema change"),
    ),
    # Data Integration
    "start-diJob": _di_start(started_job),
    "batch-start-diJob": _di_start(batch_started_jobs),
    # Operation Center: nodes
    "undeploy-node": _node_batch({"deployed": False}, "node_undeploy"),
    "freeze-node": _node_batch({"frozen": True}, "node_freeze"),
    "unfreeze-node": _node_batch({"frozen": False}, "node_unfreeze"),
    "backfill-data": (
        Emit(op="observe", src="Node", fn=backfilled_nodes, note="rootNodeId and each of includeNodeIds",
             extra=("last_backfill", "last_backfill_periods", "last_backfill_root")),
    ),
    # Operation Center: instances and DAG runs
    "instance-status-changes": (
        Emit(op="observe", src="Instance", fn=instance_status, note="taskId (the instance)", extra=_INSTANCE),
        Emit(op="assert", src="Node", rel="HAS_INSTANCE", dst="Instance", fn=instance_of_node,
             note="nodeId -> taskId"),
        Emit(op="assert", src="Instance", rel="IN_DAG", dst="Dag", fn=instance_dag, note="taskId -> dagId"),
        Emit(op="assert", src="Dag", rel="IN_FLOW", dst="Flow", fn=dag_flow,
             note="dagId -> flowId (1 = auto triggered, no workflow: skipped)"),
    ),
    "dag-status-changes": (
        Emit(op="observe", src="Dag", fn=dag, note="dagId",
             extra=("name", "status", "status_code", "dag_type", "biz_date", "created_at", "env", "workspace")),
        Emit(op="observe", src="Flow", fn=flow_named, note="flowId (not 1)", extra=("name",)),
        Emit(op="assert", src="Dag", rel="IN_FLOW", dst="Flow", fn=dag_flow, note="dagId -> flowId (not 1)"),
    ),
    "freeze-instance": _instance_op({"last_operation": "freeze", "frozen": True}),
    "unfreeze-instance": _instance_op({"last_operation": "unfreeze", "frozen": False}),
    "kill-instance": _instance_op({"last_operation": "kill"}),
    "rerun-instance": _instance_op({"last_operation": "rerun"}),
    "set-instance-success": _instance_op({"last_operation": "set_success"}),
    "pre-freeze-instance": _instance_op({"pending_operation": "freeze"}),
    "expired-task-instances-deleted": (
        Emit(op="retract", src="Instance", fn=expired_instances, note="each of deletedTaskInstanceIds",
             extra=("deleted_reason", "owner")),
    ),
    "delete-task-instance-dependencies": (
        Emit(op="observe", src="Instance", fn=dependencies_removed, note="taskInstanceId (the downstream instance)",
             extra=("removed_upstream_instances",)),
    ),
    "workbench-monitor-alert": (
        Emit(op="observe", src="Baseline", fn=alert_baseline, note="baselineId (SLA_ALERT)",
             extra=("name", "status", "biz_date", "cycle", "workspace", "last_alert")),
        Emit(op="observe", src="Node", fn=alert_nodes, note="nodeId / nodeIds", extra=_ALERT),
        Emit(op="observe", src="Instance", fn=alert_instances, note="taskId / taskIds", extra=(*_ALERT, "status")),
        Emit(op="assert", src="Node", rel="HAS_INSTANCE", dst="Instance", fn=alert_instance_of_node,
             note="nodeId -> taskId (single pair only)"),
    ),
    # Security Center
    "approval-change-created": (
        Emit(op="observe", src="Approval", fn=approval_order(False), note="process.processId (the request order)",
             extra=_APPROVAL),
        _APPROVAL_PEOPLE,
    ),
    "approval-change-finished": (
        Emit(op="observe", src="Approval", fn=approval_order(True), note="process.processId (the request order)",
             extra=_APPROVAL),
        _APPROVAL_PEOPLE,
        Emit(op="assert", src="User", rel="CAN_ACCESS", dst="Table", fn=grant_edges(whole_table),
             note="granteeAccounts[].granteeId x arrayData[] objectGuid (or odpsProject+odpsTable) x actions; "
                  "approved orders only; until applyPeriod", extra=_GRANT),
        Emit(op="assert", src="User", rel="CAN_ACCESS", dst="Column", fn=grant_edges(object_columns),
             note="as above, for column-level requests (arrayData[].columns)", extra=_GRANT),
        Emit(op="assert", src="User", rel="CAN_ACCESS", dst="Project", fn=grant_edges(project_targets),
             note="as above, objectType PROJECT -> odpsProject", extra=_GRANT),
        Emit(op="change", src="Table", rel="permission_change", fn=permission_changes(table_targets),
             note="each granted table"),
        Emit(op="change", src="Project", rel="permission_change",
             fn=permission_changes(project_targets), note="each granted MaxCompute project"),
    ),
    # Data Quality
    "dqc-check-finished-event": (
        Emit(op="observe", src="QualityRule", fn=checked_rule, note="ruleId; the latest check result",
             extra=("name", "strength", "method", "column", "comment", "trigger", "last_check", *_CHECK)),
        Emit(op="observe", src="Table", fn=checked_table_fact,
             note="projectName (engine / data source = MaxCompute project) + tableName",
             extra=("quality_rule", *_CHECK)),
        Emit(op="assert", src="QualityRule", rel="CHECKS", dst="Table", fn=rule_checks_table,
             note="ruleId -> projectName + tableName (a check result shows the rule checks that table)"),
    ),
    "dqc-check-feedback-event": (
        Emit(op="observe", src="QualityRule", fn=feedback, note="ruleId",
             extra=("last_feedback", "last_feedback_by", "last_feedback_at", "last_feedback_check")),
    ),
    "batch-create-data-quality-rules": (
        Emit(op="assert", src="QualityRule", fn=target_rules, note="rules[].id (rules without an id: none)",
             extra=_RULE),
        Emit(op="assert", src="QualityRule", rel="CHECKS", dst="Table", fn=target_checks,
             note="rules[].id -> target.tableGuid"),
        Emit(op="observe", src="Table", fn=target_table, note="target.tableGuid",
             extra=("name", "quality_rules_added", "quality_monitor")),
    ),
    "update-data-quality-rule": (
        Emit(op="assert", src="QualityRule", fn=rule_vertex, note="id (the rule)", extra=_RULE),
    ),
    "batch-delete-data-quality-rules": (
        Emit(op="retract", src="QualityRule", fn=deleted_rules, note="each of ids"),
        Emit(op="retract", src="QualityRule", rel="CHECKS", dst="Table", fn=deleted_rules,
             note="each of ids: every CHECKS closes"),
    ),
    "create-data-quality-evaluation-task": (
        Emit(op="assert", src="QualityRule", fn=target_rules, note="rules[].id (rules without an id: none)",
             extra=_RULE),
        Emit(op="assert", src="QualityRule", rel="CHECKS", dst="Table", fn=target_checks,
             note="rules[].id -> target.tableGuid"),
        Emit(op="observe", src="Table", fn=target_table, note="target.tableGuid (monitor name as a property)",
             extra=("name", "quality_rules_added", "quality_monitor")),
    ),
    "clone-data-quality-evaluation-task": (
        Emit(op="observe", src="Table", fn=clone_targets, note="targets[].tableGuid",
             extra=("name", "quality_monitor_cloned_from")),
    ),
    # console
    "delete-project": (
        Emit(op="observe", src="Project", fn=workspace_of({"deletion_requested": True}),
             note="projectId (DataWorks workspace; pre-event)", extra=("name", "deletion_requested")),
    ),
    "project-deleted": (
        Emit(op="retract", src="Project", fn=workspace_of({}), note="projectId (DataWorks workspace)",
             extra=("name",)),
        Emit(op="change", src="Project", rel="project_deletion", fn=workspace_of({}), note="projectId"),
    ),
    # upload and download
    "download-resources": _DOWNLOAD,
    "download-resources-execute": _DOWNLOAD,
    "upload-data-to-table": (
        Emit(op="assert", src="User", rel="UPLOADED", dst="Table", fn=uploaded,
             note="operatorUid -> tableGuid (odps.<project>.<table> or emr_hive.<cluster>.<schema>.<table>)",
             extra=("source_type", "table_operation", "write_type", "conflict_mode", "file_size", "datasource",
                    "workspace")),
        Emit(op="observe", src="Table", fn=uploaded_table, note="tableGuid",
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
    return user_id(event.actor)
