"""Security Center events: permission request orders (Approval Center) and table permission requests.

``arrayData`` holds the authorized content, in one of the two forms of the document's appendixes
(MaxCompute tables, DataService APIs); the form is recognised from the item's own keys, so an
item is never validated against the wrong form.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Union

from pydantic import Discriminator, Field, Tag, computed_field

from lineage.events.base import Bool, EventModel, Id, LenientTime, StrList, epoch_number, lenient_time
from lineage.events.dataworks.common import DataWorksBody, DataWorksEvent

# ---------------------------------------------------------------------------------------------
# authorized content (arrayData)
# ---------------------------------------------------------------------------------------------


class MaxComputeAuthorizedObject(EventModel):
    """A MaxCompute object (table) and the actions requested on it."""

    object_type: str | None = Field(None, alias="objectType")  # TABLE
    object_guid: str | None = Field(None, alias="objectGuid")  # odps.<project>.<table>
    object_name: str | None = Field(None, alias="objectName")
    object_name_cn: str | None = Field(None, alias="objectNameCn")
    odps_project: str | None = Field(None, alias="odpsProject")
    odps_table: str | None = Field(None, alias="odpsTable")
    project_guid: str | None = Field(None, alias="projectGuid")  # odps.<project>
    project_name: str | None = Field(None, alias="projectName")
    project_id: Id = Field(None, alias="projectId")
    workspace_id: Id = Field(None, alias="workspaceId")
    env_type: str | None = Field(None, alias="envType")
    actions: StrList = Field(default_factory=list)  # Select, Describe, ...
    columns: StrList = Field(default_factory=list)  # column-level requests (not in the doc sample)
    owner_base_id: Id = Field(None, alias="ownerBaseId")
    owner_account_name: str | None = Field(None, alias="ownerAccountName")
    tenant_id: Id = Field(None, alias="tenantId")


class DataServiceAuthorizedApi(EventModel):
    """A DataService Studio API (or function / orchestration) requested for use."""

    id: Id = None
    name: str | None = None
    type: str | None = None  # 1 API, 2 function, 3 service orchestration
    resource_id: str | None = Field(None, alias="resourceId")
    resource_version: int | None = Field(None, alias="resourceVersion")
    ds_deploy_id: Id = Field(None, alias="dsDeployId")
    url: str | None = None
    owner_id: Id = Field(None, alias="ownerId")
    owner_name: str | None = Field(None, alias="ownerName")
    workspace_id: Id = Field(None, alias="workspaceId")
    workspace_name: str | None = Field(None, alias="workspaceName")


class AuthorizedObject(EventModel):
    """Authorized content of neither documented form; kept whole as extras."""


_DATASERVICE_KEYS = frozenset({"dsDeployId", "resourceVersion", "url"})
_MAXCOMPUTE_KEYS = frozenset({"odpsTable", "odpsProject", "objectGuid", "projectGuid", "actions"})


def _authorized_form(value: Any) -> str:
    if isinstance(value, EventModel):  # already validated (model construction by hand)
        return {MaxComputeAuthorizedObject: "maxcompute", DataServiceAuthorizedApi: "dataservice"}.get(
            type(value), "other"
        )
    keys = set(value) if isinstance(value, dict) else set()
    if keys & _DATASERVICE_KEYS:
        return "dataservice"
    if keys & _MAXCOMPUTE_KEYS:
        return "maxcompute"
    return "other"


AuthorizedContent = Annotated[
    Union[
        Annotated[MaxComputeAuthorizedObject, Tag("maxcompute")],
        Annotated[DataServiceAuthorizedApi, Tag("dataservice")],
        Annotated[AuthorizedObject, Tag("other")],
    ],
    Discriminator(_authorized_form),
]


# ---------------------------------------------------------------------------------------------
# Approval Center: request processing orders
# ---------------------------------------------------------------------------------------------


class GranteeAccount(EventModel):
    """An account the permissions are requested for."""

    grantee_id: Id = Field(None, alias="granteeId")
    grantee_name: str | None = Field(None, alias="granteeName")  # RAM$<owner>:<user>
    grantee_type: str | None = Field(None, alias="granteeType")
    grantee_type_sub: str | None = Field(None, alias="granteeTypeSub")  # 101 PRD ... 106 MOCK


class ApprovalContent(EventModel):
    """What is requested: for whom (``granteeAccounts``), on what (``arrayData``), until when."""

    apply_period: str | None = Field(None, alias="applyPeriod")  # epoch millis of expiry
    apply_reason: str | None = Field(None, alias="applyReason")
    content_type: str | None = Field(None, alias="contentType")
    grantee_accounts: list[GranteeAccount] = Field(default_factory=list, alias="granteeAccounts")
    array_data: list[AuthorizedContent] = Field(default_factory=list, alias="arrayData")
    odps_project_name: str | None = Field(None, alias="odpsProjectName")
    project_env: str | None = Field(None, alias="projectEnv")
    resource_summary: str | None = Field(None, alias="resourceSummary")
    tenant_id: Id = Field(None, alias="tenantId")
    workspace_id: Id = Field(None, alias="workspaceId")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def expires_at(self) -> datetime | None:
        """``applyPeriod`` as a time: it is epoch millis (``2997964800000`` = 2065-01-01 CST).

        A value too small to be epoch millis (a duration?) or masked gives None, not a 1970 date.
        """
        text = (self.apply_period or "").strip()
        number = epoch_number(text)
        if number is None or number < 10**11:
            return None
        return lenient_time(text)


class ApprovalProcess(EventModel):
    """The approval workflow of an order, with the requested content."""

    process_id: Id = Field(None, alias="processId")
    process_definition_id: str | None = Field(None, alias="processDefinitionId")
    title: str | None = None
    status: str | None = None
    applicant: Id = None  # base id
    applicant_name: str | None = Field(None, alias="applicantName")
    assignment_category: str | None = Field(None, alias="assignmentCategory")  # MaxCompute / DataService
    approval_content: ApprovalContent | None = Field(None, alias="approvalContent")
    create_time: LenientTime = Field(None, alias="createTime")
    update_time: LenientTime = Field(None, alias="updateTime")


class ApprovalChange(DataWorksBody):
    """A permission request processing order was created or completed."""

    TIME_FIELDS = ("update_time", "create_time")

    process: ApprovalProcess
    process_id: Id = Field(None, alias="processId")
    task_id: Id = Field(None, alias="taskId")
    status: str | None = None
    event_type: str | None = Field(None, alias="eventType")  # "approval"
    app_id: Id = Field(None, alias="appId")  # the workspace
    assignee: Id = None  # base id of the approver
    assignee_name: str | None = Field(None, alias="assigneeName")
    comments: str | None = None
    create_time: LenientTime = Field(None, alias="createTime")
    update_time: LenientTime = Field(None, alias="updateTime")


class ApprovalChangeCreated(ApprovalChange):
    """A permission request order was created; the applicant acted."""

    ACTOR_FIELDS = ("process.applicant",)


class ApprovalChangeFinished(ApprovalChange):
    """A permission request order was completed; the approver acted."""

    ACTOR_FIELDS = ("assignee",)


class ApprovalChangeCreatedEvent(DataWorksEvent[ApprovalChangeCreated]):
    """approval-change-created in any envelope."""


class ApprovalChangeFinishedEvent(DataWorksEvent[ApprovalChangeFinished]):
    """approval-change-finished in any envelope."""


# ---------------------------------------------------------------------------------------------
# table permission request (pre-event)
# ---------------------------------------------------------------------------------------------


class GranteeObject(EventModel):
    """A RAM user the table permissions are requested for."""

    grantee_id: Id = Field(None, alias="granteeId")


class ObjectMeta(EventModel):
    """A table and the actions requested on it."""

    name: str | None = None  # the table
    project_guid: str | None = Field(None, alias="projectGuid")  # odps.<project>
    action: StrList = Field(default_factory=list)
    columns: StrList = Field(default_factory=list)  # column-level requests (not in the doc sample)


class ProjectMeta(EventModel):
    """The workspace (MaxCompute project) the tables belong to."""

    project_id: Id = Field(None, alias="projectId")
    project_name: str | None = Field(None, alias="projectName")
    env_code: int | None = Field(None, alias="envCode")  # 0 development, 1 production
    label_security: Bool = Field(None, alias="labelSecurity")
    object_meta_list: list[ObjectMeta] = Field(default_factory=list, alias="objectMetaList")


class ApprovalOrder(EventModel):
    """The request order: grantees, tables, and a validity of ``deadlineDate`` ``deadlineType``s."""

    apply_reason: str | None = Field(None, alias="applyReason")
    deadline_date: str | None = Field(None, alias="deadlineDate")  # e.g. "1"
    deadline_type: str | None = Field(None, alias="deadlineType")  # day / month
    grantee_object_list: list[GranteeObject] = Field(default_factory=list, alias="granteeObjectList")
    project_meta: ProjectMeta | None = Field(None, alias="projectMeta")


class ApprovalBeforeCreate(DataWorksBody):
    """Table permissions are about to be requested (the body says ``eventType`` approval-create-before)."""

    order: ApprovalOrder
    event_type: str | None = Field(None, alias="eventType")
    project_id: Id = Field(None, alias="projectId")
    operator: Id = None


class ApprovalBeforeCreateEvent(DataWorksEvent[ApprovalBeforeCreate]):
    """approval-change-before-create in any envelope."""
