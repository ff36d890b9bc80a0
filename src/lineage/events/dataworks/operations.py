"""Operation Center events: backfill, instance and workflow status, instance O&M, alerts."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, Field

from lineage.events.base import Bool, EventModel, Id, IdList, LenientTime, to_json_value
from lineage.events.dataworks.common import (
    DataWorksBody,
    DataWorksEvent,
    RequiredId,
    RequiredIdList,
    RequiredText,
)

# ---------------------------------------------------------------------------------------------
# backfill
# ---------------------------------------------------------------------------------------------


class BackfillTimePeriod(EventModel):
    """One range of data timestamps to backfill."""

    biz_begin_time: str | None = Field(None, alias="bizBeginTime")
    biz_end_time: str | None = Field(None, alias="bizEndTime")


class BackfillData(DataWorksBody):
    """Data is being backfilled for a root node and the nodes of its workflow."""

    name: str | None = None  # the backfill workflow
    root_node_id: RequiredId = Field(alias="rootNodeId")
    root_node_project_id: Id = Field(None, alias="rootNodeProjectId")
    include_node_ids: IdList = Field(default_factory=list, alias="includeNodeIds")
    exclude_node_ids: IdList = Field(default_factory=list, alias="excludeNodeIds")  # dry-run
    use_multiple_time_periods: Bool = Field(None, alias="useMultipleTimePeriods")
    # a JSON string holding an array on the wire
    multiple_time_periods: Annotated[list[BackfillTimePeriod] | None, BeforeValidator(to_json_value)] = Field(
        None, alias="multipleTimePeriods"
    )
    biz_begin_time: str | None = Field(None, alias="bizBeginTime")
    biz_end_time: str | None = Field(None, alias="bizEndTime")
    is_parallel: Bool = Field(None, alias="isParallel")
    parallel_group: int | None = Field(None, alias="parallelGroup")
    start_future_instance_immediately: Bool = Field(None, alias="startFutureInstanceImmediately")
    order: str | None = None  # asc / desc
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None


class BackfillDataEvent(DataWorksEvent[BackfillData]):
    """backfill-data in any envelope."""


# ---------------------------------------------------------------------------------------------
# instance and workflow (DAG) status
# ---------------------------------------------------------------------------------------------


class InstanceStatusChange(DataWorksBody):
    """An auto triggered node instance changed status."""

    TIME_FIELDS = ("modify_time",)
    ACTOR_FIELDS = ()

    task_id: RequiredId = Field(alias="taskId")  # the instance
    node_id: Id = Field(None, alias="nodeId")
    dag_id: Id = Field(None, alias="dagId")
    dag_type: int | None = Field(None, alias="dagType")
    flow_id: Id = Field(None, alias="flowId")
    task_type: int | None = Field(None, alias="taskType")
    status: int | None = None
    op_code: int | None = Field(None, alias="opCode")
    app_id: Id = Field(None, alias="appId")  # the workspace
    create_time: LenientTime = Field(None, alias="createTime")
    modify_time: LenientTime = Field(None, alias="modifyTime")
    begin_wait_time_time: LenientTime = Field(None, alias="beginWaitTimeTime")
    begin_wait_res_time: LenientTime = Field(None, alias="beginWaitResTime")
    begin_running_time: LenientTime = Field(None, alias="beginRunningTime")
    finish_time: LenientTime = Field(None, alias="finishTime")


class InstanceStatusChangeEvent(DataWorksEvent[InstanceStatusChange]):
    """instance-status-changes in any envelope."""


class DagStatusChange(DataWorksBody):
    """A workflow run (DAG: backfill, manual workflow, ...) changed status."""

    dag_id: RequiredId = Field(alias="dagId")
    dag_name: str | None = Field(None, alias="dagName")
    dag_type: int | None = Field(None, alias="dagType")
    flow_id: Id = Field(None, alias="flowId")
    flow_name: str | None = Field(None, alias="flowName")
    biz_date: LenientTime = Field(None, alias="bizDate")
    create_time: LenientTime = Field(None, alias="createTime")
    project_env: str | None = Field(None, alias="projectEnv")
    project_id: Id = Field(None, alias="projectId")
    status: int | None = None
    operator: Id = None


class DagStatusChangeEvent(DataWorksEvent[DagStatusChange]):
    """dag-status-changes in any envelope."""


# ---------------------------------------------------------------------------------------------
# instance O&M
# ---------------------------------------------------------------------------------------------


class InstanceOperation(DataWorksBody):
    """Instances were frozen, unfrozen, killed, rerun or set to succeeded (or are about to be)."""

    task_ids: RequiredIdList = Field(alias="taskIds")
    project_id: Id = Field(None, alias="projectId")
    project_type: str | None = Field(None, alias="projectType")  # PROD / DEV
    operator: Id = None


class InstanceOperationEvent(DataWorksEvent[InstanceOperation]):
    """freeze/unfreeze/kill/rerun-instance, set-instance-success, pre-freeze-instance."""


class ExpiredInstancesDeleted(DataWorksBody):
    """Expired instances were deleted."""

    TIME_FIELDS = ("operation_time",)

    deleted_task_instance_ids: RequiredIdList = Field(alias="deletedTaskInstanceIds")
    owner: Id = None
    app_id: Id = Field(None, alias="appId")
    operation_time: LenientTime = Field(None, alias="operationTime")
    operator: Id = None


class ExpiredInstancesDeletedEvent(DataWorksEvent[ExpiredInstancesDeleted]):
    """expired-task-instances-deleted in any envelope."""


class InstanceDependenciesRemoved(DataWorksBody):
    """Upstream dependencies were removed from an instance."""

    TIME_FIELDS = ("operation_time",)

    task_instance_id: RequiredId = Field(alias="taskInstanceId")  # the downstream instance
    upstream_task_instance_ids: IdList = Field(default_factory=list, alias="upstreamTaskInstanceIds")
    app_id: Id = Field(None, alias="appId")
    operation_time: LenientTime = Field(None, alias="operationTime")
    operator: Id = None


class InstanceDependenciesRemovedEvent(DataWorksEvent[InstanceDependenciesRemoved]):
    """delete-task-instance-dependencies in any envelope."""


# ---------------------------------------------------------------------------------------------
# monitoring and alerting
# ---------------------------------------------------------------------------------------------


class WorkbenchMonitorAlert(DataWorksBody):
    """An alert: baseline (SLA_ALERT), event (TOPIC_ALERT) or rule (REMIND_ALERT, incl. resource groups)."""

    ACTOR_FIELDS = ()

    alarm_type: RequiredText = Field(alias="alarmType")
    project_id: Id = Field(None, alias="projectId")
    node_id: Id = Field(None, alias="nodeId")
    task_id: Id = Field(None, alias="taskId")
    # SLA_ALERT
    baseline_id: Id = Field(None, alias="baselineId")
    baseline_name: str | None = Field(None, alias="baselineName")
    baseline_status: int | None = Field(None, alias="baselineStatus")
    biz_date: LenientTime = Field(None, alias="bizDate")
    in_group_id: int | None = Field(None, alias="inGroupId")
    # TOPIC_ALERT
    topic_id: Id = Field(None, alias="topicId")
    task_status: str | None = Field(None, alias="taskStatus")
    # REMIND_ALERT (comma strings on the wire)
    node_ids: IdList = Field(default_factory=list, alias="nodeIds")
    task_ids: IdList = Field(default_factory=list, alias="taskIds")
    remind_id: Id = Field(None, alias="remindId")
    remind_name: str | None = Field(None, alias="remindName")
    remind_type: str | None = Field(None, alias="remindType")
    remind_unit: str | None = Field(None, alias="remindUnit")  # NODE, GATEWAY_RES, DI_RES
    resource_group_identifier: str | None = Field(None, alias="resourceGroupIdentifier")
    resource_group_name: str | None = Field(None, alias="resourceGroupName")
    resource_group_type: str | None = Field(None, alias="resourceGroupType")


class WorkbenchMonitorAlertEvent(DataWorksEvent[WorkbenchMonitorAlert]):
    """workbench-monitor-alert in any envelope."""
