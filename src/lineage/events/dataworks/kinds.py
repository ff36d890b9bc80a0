"""The DataWorks event catalogue as tables: event code -> model, EventBridge type -> event code."""

from __future__ import annotations

from lineage.events.dataworks.common import DataWorksEvent
from lineage.events.dataworks.console import DataUploadEvent, ProjectDeletionEvent, ResourceDownloadEvent
from lineage.events.dataworks.operations import (
    BackfillDataEvent,
    DagStatusChangeEvent,
    ExpiredInstancesDeletedEvent,
    InstanceDependenciesRemovedEvent,
    InstanceOperationEvent,
    InstanceStatusChangeEvent,
    WorkbenchMonitorAlertEvent,
)
from lineage.events.dataworks.quality import (
    DataQualityBatchDeleteEvent,
    DataQualityEvaluationTaskCloneEvent,
    DataQualityEvaluationTaskCreateEvent,
    DataQualityNotificationChangeEvent,
    DataQualityRulesBatchCreateEvent,
    DataQualityRuleUpdateEvent,
    DqcCheckFeedbackEvent,
    DqcCheckFinishedEvent,
)
from lineage.events.dataworks.security import (
    ApprovalBeforeCreateEvent,
    ApprovalChangeCreatedEvent,
    ApprovalChangeFinishedEvent,
)
from lineage.events.dataworks.studio import (
    DiJobBatchStartEvent,
    DiJobStartEvent,
    FileChangeEvent,
    FileReviewEvent,
    NodeBatchOperationEvent,
    NodeChangeEvent,
    TableChangeEvent,
)

# (event code, EventBridge type or None, model). Codes are the kinds. Rows follow the document;
# the ones without an EventBridge type are from the Chinese page, whose type column is empty.
_CATALOGUE: tuple[tuple[str, str | None, type[DataWorksEvent]], ...] = (
    # DataStudio
    ("node-change-created", "dataworks:NodeChange:NodeChangeCreated", NodeChangeEvent),
    ("node-change-updated", "dataworks:NodeChange:NodeChangeUpdated", NodeChangeEvent),
    ("delete-file", "dataworks:FileChange:DeleteFile", FileChangeEvent),
    ("commit-file", "dataworks:FileChange:CommitFile", FileChangeEvent),
    ("deploy-file", "dataworks:FileChange:DeployFile", FileChangeEvent),
    ("run-file", "dataworks:FileChange:RunFile", FileChangeEvent),
    ("review-file", "dataworks:FileChange:ReviewFile", FileReviewEvent),
    ("commit-table", "dataworks:TableChange:CommitTable", TableChangeEvent),
    ("deploy-table", "dataworks:TableChange:DeployTabl", TableChangeEvent),  # sic, the doc's type
    # Data Integration (Chinese page)
    ("start-diJob", None, DiJobStartEvent),
    ("batch-start-diJob", None, DiJobBatchStartEvent),
    # Operation Center
    ("node-change-deleted", "dataworks:NodeChange:NodeChangeDeleted", NodeChangeEvent),
    ("undeploy-node", "dataworks:NodeChange:UndeployNode", NodeBatchOperationEvent),
    ("freeze-node", "dataworks:NodeChange:FreezeNode", NodeBatchOperationEvent),
    ("unfreeze-node", "dataworks:NodeChange:UnFreezeNode", NodeBatchOperationEvent),
    ("backfill-data", "dataworks:BackfillDataOperate:BackfillData", BackfillDataEvent),
    ("instance-status-changes", "dataworks:InstanceStatusChanges:InstanceStatusChanges", InstanceStatusChangeEvent),
    ("freeze-instance", "dataworks:InstanceChange:FreezeInstance", InstanceOperationEvent),
    ("unfreeze-instance", "dataworks:InstanceChange:UnfreezeInstance", InstanceOperationEvent),
    ("kill-instance", "dataworks:InstanceChange:KillInstance", InstanceOperationEvent),
    ("rerun-instance", "dataworks:InstanceChange:RerunInstance", InstanceOperationEvent),
    ("set-instance-success", "dataworks:InstanceChange:SetInstanceSuccess", InstanceOperationEvent),
    # the doc's table gives "instance-status-changes" as this type's code; its sample says this
    ("dag-status-changes", "dataworks:DagStatusChanges:DagStatusChanges", DagStatusChangeEvent),
    ("workbench-monitor-alert", "dataworks:MonitorAlert:WorkbenchMonitorAlert", WorkbenchMonitorAlertEvent),
    ("pre-freeze-instance", None, InstanceOperationEvent),
    ("expired-task-instances-deleted", None, ExpiredInstancesDeletedEvent),
    ("delete-task-instance-dependencies", None, InstanceDependenciesRemovedEvent),
    # Security Center
    ("approval-change-created", "dataworks:ApprovalChange:ApprovalChangeCreated", ApprovalChangeCreatedEvent),
    ("approval-change-finished", "dataworks:ApprovalChange:ApprovalChangeFinished", ApprovalChangeFinishedEvent),
    (
        "approval-change-before-create",
        "dataworks:ApprovalChange:ApprovalChangeBeforeCreate",
        ApprovalBeforeCreateEvent,
    ),
    # Data Quality
    ("dqc-check-feedback-event", "dataworks:DqcCheck:DqcCheckFeedbackEvent", DqcCheckFeedbackEvent),
    ("dqc-check-finished-event", "dataworks:DqcCheck:DqcCheckFinishedEvent", DqcCheckFinishedEvent),
    ("batch-create-data-quality-rules", None, DataQualityRulesBatchCreateEvent),
    ("update-data-quality-rule", None, DataQualityRuleUpdateEvent),
    ("batch-delete-data-quality-rules", None, DataQualityBatchDeleteEvent),
    ("create-data-quality-evaluation-task", None, DataQualityEvaluationTaskCreateEvent),
    ("clone-data-quality-evaluation-task", None, DataQualityEvaluationTaskCloneEvent),
    ("batch-delete-data-quality-evaluation-tasks", None, DataQualityBatchDeleteEvent),
    ("create-data-quality-evaluation-task-notification", None, DataQualityNotificationChangeEvent),
    ("update-data-quality-evaluation-task-notification", None, DataQualityNotificationChangeEvent),
    # DataWorks console (tenant level)
    ("delete-project", "dataworks:ProjectChange:DeleteProject", ProjectDeletionEvent),
    ("project-deleted", "dataworks:ProjectChange:ProjectDeleted", ProjectDeletionEvent),
    # upload and download (tenant level)
    ("download-resources", "dataworks:ResourcesDownload:DownloadResources", ResourceDownloadEvent),
    ("download-resources-execute", "dataworks:ResourcesDownload:DownloadResourcesExecute", ResourceDownloadEvent),
    ("upload-data-to-table", "dataworks:ResourcesUpload:UploadDataToTable", DataUploadEvent),
)

MODELS: dict[str, type[DataWorksEvent]] = {code: model for code, _, model in _CATALOGUE}
KINDS: frozenset[str] = frozenset(MODELS)

EVENT_TYPES: dict[str, str] = {
    **{event_type: code for code, event_type, _ in _CATALOGUE if event_type},
    "dataworks:TableChange:DeployTable": "deploy-table",  # the type spelled in full
}
"""EventBridge ``type`` -> event code."""

BODY_EVENT_TYPES: dict[str, str] = {"approval-create-before": "approval-change-before-create"}
"""``data.eventType`` values that name an event (the table-permission pre-event has no eventCode)."""
