"""DataStudio and Data Integration events: nodes, files, tables, code review, DI job starts.

Node deletion, undeployment, freezing and unfreezing are listed under Operation Center in the
document but share these node bodies, so they live here too.
"""

from __future__ import annotations

from pydantic import AliasChoices, Field

from lineage.events.base import Bool, EventModel, Id, LenientTime
from lineage.events.dataworks.common import (
    DataWorksBody,
    DataWorksEvent,
    RequiredId,
    RequiredIdList,
    RequiredText,
)

# ---------------------------------------------------------------------------------------------
# nodes
# ---------------------------------------------------------------------------------------------


class NodeChange(DataWorksBody):
    """A scheduling node was created, updated (DataStudio) or deleted (Operation Center)."""

    TIME_FIELDS = ("modify_time",)

    node_id: RequiredId = Field(alias="nodeId")
    node_name: str | None = Field(None, alias="nodeName")
    program_type: str | None = Field(None, alias="programType")
    cron_express: str | None = Field(None, alias="cronExpress")
    scheduler_type: str | None = Field(None, alias="schedulerType")
    owner_id: Id = Field(None, alias="ownerId")
    priority: int | None = None
    baseline_id: Id = Field(None, alias="baselineId")
    repeatability: Bool = None
    modify_time: LenientTime = Field(None, alias="modifyTime")
    create_time: LenientTime = Field(None, alias="createTime")
    project_id: Id = Field(None, alias="projectId")
    datasource: str | None = None
    operator: Id = None


class NodeChangeEvent(DataWorksEvent[NodeChange]):
    """node-change-created / -updated / -deleted in any envelope."""


class NodeBatchOperation(DataWorksBody):
    """Nodes were undeployed, frozen or unfrozen (one operation over ``nodeIds``)."""

    node_ids: RequiredIdList = Field(alias="nodeIds")
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None


class NodeBatchOperationEvent(DataWorksEvent[NodeBatchOperation]):
    """undeploy-node / freeze-node / unfreeze-node in any envelope."""


# ---------------------------------------------------------------------------------------------
# files (nodes, resources, functions) and code review
# ---------------------------------------------------------------------------------------------


class FileChange(DataWorksBody):
    """A file was committed, deployed, run or deleted in DataStudio."""

    file_id: RequiredId = Field(alias="fileId")
    file_name: str | None = Field(None, alias="fileName")
    file_type: int | None = Field(None, alias="fileType")
    file_version: int | None = Field(None, alias="fileVersion")
    file_owner: Id = Field(None, alias="fileOwner")
    file_create_time: LenientTime = Field(None, alias="fileCreateTime")
    change_type: str | None = Field(None, alias="changeType")  # 0 create, 1 update, 2 delete
    data_source_name: str | None = Field(None, alias="dataSourceName")
    resource_type: int | str | None = Field(None, alias="resourceType")
    node_id: Id = Field(None, alias="nodeId")
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None


class FileChangeEvent(DataWorksEvent[FileChange]):
    """delete-file / commit-file / deploy-file / run-file in any envelope."""


class FileReview(DataWorksBody):
    """A code review ticket for a file (or batch of files) changed state."""

    TIME_FIELDS = ("last_review_time", "submit_time")
    ACTOR_FIELDS = ("submitter", "reviewer")

    id: Id = None  # the review ticket
    resource_id: RequiredId = Field(alias="resourceId")
    resource_name: str | None = Field(None, alias="resourceName")
    resource_type: str | None = Field(None, alias="resourceType")  # Business, File, BatchFiles
    status: str | None = None
    submit_time: LenientTime = Field(None, alias="submitTime")
    last_review_time: LenientTime = Field(None, alias="lastReviewTime")
    review_url: str | None = Field(None, alias="reviewUrl")
    reviewer: Id = None
    submitter: Id = None
    project_id: Id = Field(None, alias="projectId")


class FileReviewEvent(DataWorksEvent[FileReview]):
    """review-file in any envelope."""


# ---------------------------------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------------------------------


class TableChange(DataWorksBody):
    """A table was committed to development or deployed to production."""

    table_name: RequiredText = Field(alias="tableName")
    table_type: str | None = Field(None, alias="tableType")  # ODPS or EMR
    max_compute_project: str | None = Field(None, alias="maxComputeProject")
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None


class TableChangeEvent(DataWorksEvent[TableChange]):
    """commit-table / deploy-table in any envelope."""


# ---------------------------------------------------------------------------------------------
# Data Integration (Chinese page only)
# ---------------------------------------------------------------------------------------------


class DiTableMapping(EventModel):
    """One source table -> destination table of a synchronisation solution (may be a regex)."""

    src_datasource_name: str | None = Field(None, alias="srcDatasourceName")
    src_database_name: str | None = Field(None, alias="srcDatabaseName")
    src_table: str | None = Field(None, alias="srcTable")
    dst_datasource_name: str | None = Field(None, alias="dstDatasourceName")
    dst_table: str | None = Field(None, alias="dstTable")


class DiStartSetting(EventModel):
    """Start options; times are wall-clock in ``timeZone``, kept as text."""

    last_start_position: str | None = Field(None, alias="lastStartPosition")
    start_date_time: str | None = Field(None, alias="startDateTime")
    time_zone: str | None = Field(None, alias="timeZone")


class DiJobStart(DataWorksBody):
    """A Data Integration job is being started (v1 messages call the job id ``id``)."""

    job_id: RequiredId = Field(validation_alias=AliasChoices("jobId", "id"))
    app_id: Id = Field(None, alias="appId")
    project_id: Id = Field(None, alias="projectId")
    force_run: Bool = Field(None, alias="forceRun")
    start_as_v2: Bool = Field(None, alias="startAsV2")
    show_table_mapping: Bool = Field(None, alias="showTableMapping")  # false over 500 tables
    table_mapping: list[DiTableMapping] = Field(default_factory=list, alias="tableMapping")
    setting: DiStartSetting | None = None
    operator: Id = None


class DiJobStartEvent(DataWorksEvent[DiJobStart]):
    """start-diJob in any envelope."""


class DiJobTableMappings(EventModel):
    """The table mappings of one job in a batch start."""

    id: Id = None
    extension_biz_name: str | None = Field(None, alias="extensionBizName")
    table_mapping: list[DiTableMapping] = Field(default_factory=list, alias="tableMapping")


class DiJobBatchStart(DataWorksBody):
    """Several Data Integration jobs are being started at once."""

    job_ids: RequiredIdList = Field(alias="jobIds")
    table_mappings: list[DiJobTableMappings] = Field(default_factory=list, alias="tableMappings")
    show_table_mapping: Bool = Field(None, alias="showTableMapping")
    setting: DiStartSetting | None = None
    env: str | None = None
    need_error_message: Bool = Field(None, alias="needErrorMessage")
    error_message_only_failed_file_ids: Bool = Field(None, alias="errorMessageOnlyFailedFileIds")
    app_id: Id = Field(None, alias="appId")
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None


class DiJobBatchStartEvent(DataWorksEvent[DiJobBatchStart]):
    """batch-start-diJob in any envelope."""
