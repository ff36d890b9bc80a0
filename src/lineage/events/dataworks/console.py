"""Tenant-level events: workspace deletion, data download (with its SQL) and upload."""

from __future__ import annotations

from pydantic import Field

from lineage.events.base import Id, LenientTime
from lineage.events.dataworks.common import DataWorksBody, DataWorksEvent, RequiredId, RequiredText


class ProjectDeletion(DataWorksBody):
    """A workspace is about to be deleted (pre-event) or was deleted (post-event)."""

    TIME_FIELDS = ("timestamp",)

    project_id: RequiredId = Field(alias="projectId")
    project_name: str | None = Field(None, alias="projectName")
    timestamp: LenientTime = None  # when the message was sent
    operator: Id = None


class ProjectDeletionEvent(DataWorksEvent[ProjectDeletion]):
    """delete-project / project-deleted in any envelope."""


class ResourceDownload(DataWorksBody):
    """Query results are about to be written to a file or downloaded; ``sqlText`` is the query."""

    ACTOR_FIELDS = ("operator_uid", "operator_base_id")

    module_type: str | None = Field(None, alias="moduleType")  # sqlx_query, develop_query, ...
    sql_text: str | None = Field(None, alias="sqlText")
    operator_uid: Id = Field(None, alias="operatorUid")
    operator_base_id: Id = Field(None, alias="operatorBaseId")
    file_name: str | None = Field(None, alias="fileName")
    file_size: int | None = Field(None, alias="fileSize")
    data_row_size: int | None = Field(None, alias="dataRowSize")
    datasource_id: Id = Field(None, alias="datasourceId")
    datasource_name: str | None = Field(None, alias="datasourceName")
    query_dw_project_id: Id = Field(None, alias="queryDwProjectId")
    query_dw_project_name: str | None = Field(None, alias="queryDwProjectName")
    ip: str | None = None


class ResourceDownloadEvent(DataWorksEvent[ResourceDownload]):
    """download-resources / download-resources-execute in any envelope."""


class DataUpload(DataWorksBody):
    """Data is about to be uploaded into a table (``tableGuid``: odps.<project>.<table>, ...)."""

    ACTOR_FIELDS = ("operator_uid", "operator_base_id")

    table_guid: RequiredText = Field(alias="tableGuid")
    upload_source_type: str | None = Field(None, alias="uploadSourceType")  # LOCAL, OSS, ...
    opt_table_type: str | None = Field(None, alias="optTableType")  # CREATE / IMPORT
    target_engine_type: str | None = Field(None, alias="targetEngineType")
    write_type: str | None = Field(None, alias="writeType")  # OVERWRITE / APPEND
    conflict_mode: str | None = Field(None, alias="conflictMode")  # IGNORE / REPLACE / UPDATE
    operator_uid: Id = Field(None, alias="operatorUid")
    operator_base_id: Id = Field(None, alias="operatorBaseId")
    datasource_id: Id = Field(None, alias="datasourceId")
    datasource_name: str | None = Field(None, alias="datasourceName")
    query_dw_project_id: Id = Field(None, alias="queryDwProjectId")
    query_dw_project_name: str | None = Field(None, alias="queryDwProjectName")
    file_size: int | None = Field(None, alias="fileSize")


class DataUploadEvent(DataWorksEvent[DataUpload]):
    """upload-data-to-table in any envelope."""
