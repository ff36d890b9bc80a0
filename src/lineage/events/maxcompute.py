"""MaxCompute audit events as ActionTrail delivers them (seed 002, "MaxCompute: Audit logs").

Every MaxCompute action is an ActionTrail event: common fields (``eventId``, ``eventName``,
``eventTime``, ``userIdentity``, ...) plus two per-event objects, ``referencedResources`` (the
resources touched, each a list of names/ids) and ``additionalEventData`` (the parameters the
seed lists per event: project, table, job instance, SQL text, ...).

Envelopes (``SHAPES``, checked in order):

* ``sls``: a Simple Log Service log entry of an ActionTrail trail (``__topic__`` =
  ``actiontrail_audit_event``/``actiontrail_event``, ``owner_id``, ...) whose ``event`` field holds
  the ActionTrail event as an object or as a JSON string (SLS "ActionTrail log fields" reference).
* ``actiontrail``: the bare ActionTrail event object (console/API event query, and the elements
  of the JSON arrays a trail delivers to OSS, which the reader splits into records).

A record is MaxCompute's when its event has an ``eventName`` and ActionTrail's shape (``eventId``,
``eventTime`` or ``userIdentity``) and either names the service (``serviceName`` MaxCompute/Odps,
``eventSource`` containing odps/maxcompute) or carries one of the seed's event types with a
matching event name. Nothing here looks at DataWorks/Dataphin/DataHub keys.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from pydantic import AliasChoices, BaseModel, BeforeValidator, ConfigDict, Field

from lineage.events.base import (
    EventModel,
    Foreign,
    Id,
    IdList,
    JsonValue,
    ParsedEvent,
    RecordError,
    Shape,
    Source,
    StrList,
    Timestamp,
    embedded_object,
    lenient_time,
    lookup,
    to_id,
    to_json_value,
)
from lineage.io import jsonscan

NAME = "maxcompute"


class _Part(BaseModel):
    """Base of nested (non-event) objects: same leniency as ``EventModel``."""

    model_config = ConfigDict(populate_by_name=True, extra="allow", coerce_numbers_to_str=True)


def _embedded(value: Any) -> Any:
    """Nested objects sometimes arrive as a JSON string (SLS flattening): parse them."""
    return to_json_value(value) if isinstance(value, str) else value


Embedded = BeforeValidator(_embedded)


def _required_id(value: Any) -> str:
    """An id the graph needs: numbers/masked strings kept as text, null or blank rejected."""
    text = to_id(value)
    if text is None or not text.strip():
        raise ValueError("required id is empty")
    return text


RequiredId = Annotated[str, BeforeValidator(_required_id)]

# ---------------------------------------------------------------------------------------------
# common parts
# ---------------------------------------------------------------------------------------------


class UserIdentity(_Part):
    """Who made the request: Alibaba Cloud account, principal, identity type and name."""

    account_id: Id = Field(None, alias="accountId")
    principal_id: Id = Field(None, alias="principalId")
    type: str | None = Field(None, alias="type")
    user_name: str | None = Field(None, alias="userName")
    access_key_id: str | None = Field(None, alias="accessKeyId")


class JobResources(_Part):
    """referencedResources of job events: the job instance ids."""

    instance: IdList = Field(default_factory=list, alias="Instance")


class TableResources(_Part):
    """referencedResources of table/tunnel events: the table names."""

    table: IdList = Field(default_factory=list, alias="Table")


class RoleResources(_Part):
    """referencedResources of role events: the role names."""

    role: IdList = Field(default_factory=list, alias="Role")


class UserResources(_Part):
    """referencedResources of user/privilege events: the account names (``ram$...``, ``aliyun$...``)."""

    user: IdList = Field(default_factory=list, alias="User")


# ---------------------------------------------------------------------------------------------
# additionalEventData, one model per parameter set the seed lists
# ---------------------------------------------------------------------------------------------

_SESSION_ID = Field(
    None,
    validation_alias=AliasChoices("SesssionId", "SessionId", "session_id"),
    serialization_alias="SesssionId",
)
"""The seed spells the tunnel session id ``SesssionId``; ``SessionId`` is accepted too."""


class JobData(_Part):
    """A job: its project, task, instance id, task type (SQL/LOT/CUPID), SQL text and status."""

    status: str | None = Field(None, alias="Status")
    project_name: str | None = Field(None, alias="ProjectName")
    task_name: str | None = Field(None, alias="TaskName")
    instance_id: RequiredId = Field(..., alias="InstanceId")
    task_type: str | None = Field(None, alias="TaskType")
    operation_text: str | None = Field(None, alias="OperationText")


class TableTunnelData(_Part):
    """A Tunnel table download/upload: table, partition, projects and tunnel session."""

    table_name: RequiredId = Field(..., alias="TableName")
    partition: str | None = Field(None, alias="Partition")
    current_project: str | None = Field(None, alias="CurrentProject")
    project_name: RequiredId = Field(..., alias="ProjectName")
    session_id: str | None = _SESSION_ID


class InstanceTunnelData(_Part):
    """A Tunnel download of a job instance's result: projects, instance and tunnel session."""

    current_project: str | None = Field(None, alias="CurrentProject")
    project_name: str | None = Field(None, alias="ProjectName")
    instance_id: RequiredId = Field(..., alias="InstanceId")
    session_id: str | None = _SESSION_ID


class RoleData(_Part):
    """A role created/dropped: role, project it belongs to, project the statement ran in, SQL."""

    role_name: RequiredId = Field(..., alias="RoleName")
    current_project: str | None = Field(None, alias="CurrentProject")
    project_name: RequiredId = Field(..., alias="ProjectName")
    operation_text: str | None = Field(None, alias="OperationText")


class UserData(_Part):
    """A user added to/removed from a project, with the statement."""

    user_name: RequiredId = Field(..., alias="UserName")
    project_name: RequiredId = Field(..., alias="ProjectName")
    operation_text: str | None = Field(None, alias="OperationText")


class TableData(_Part):
    """A table operation: table, project, what caused it (Source INSTANCE/TUNNEL + CorrelationId).

    OperationText is an operation code here (CREATE_TABLE, DROP_TABLE, RECYCLE_TABLE, ADD_PARTITION,
    INSERT_OVERWRITE_TABLE, READ_TABLE, ...), not SQL; CorrelationId is the job id when Source is
    INSTANCE and the tunnel id when Source is TUNNEL.
    """

    table_name: RequiredId = Field(..., alias="TableName")
    project_name: RequiredId = Field(..., alias="ProjectName")
    correlation_id: Id = Field(None, alias="CorrelationId")
    source: str | None = Field(None, alias="Source")
    operation_text: str | None = Field(None, alias="OperationText")


class PrivilegeData(_Part):
    """A grant/revoke: grantee account, project, object type/name and the statement."""

    object_type: str | None = Field(None, alias="ObjectType")
    current_project: str | None = Field(None, alias="CurrentProject")
    user_name: RequiredId = Field(..., alias="UserName")
    project_name: RequiredId = Field(..., alias="ProjectName")
    operation_text: str | None = Field(None, alias="OperationText")
    object_name: str | None = Field(None, alias="ObjectName")


class PolicyStatement(_Part):
    """One statement of a MaxCompute policy: effect, actions, resources."""

    effect: str | None = Field(None, alias="Effect")
    action: StrList = Field(default_factory=list, alias="Action")
    resource: StrList = Field(default_factory=list, alias="Resource")


class PolicyDocument(_Part):
    """A MaxCompute policy document (the OperationText of PutRolePolicy)."""

    version: str | None = Field(None, alias="Version")
    statement: list[PolicyStatement] = Field(default_factory=list, alias="Statement")


class RolePolicyData(_Part):
    """A policy attached to a role; OperationText is the policy document (JSON text, kept verbatim)."""

    role_name: RequiredId = Field(..., alias="RoleName")
    current_project: str | None = Field(None, alias="CurrentProject")
    project_name: RequiredId = Field(..., alias="ProjectName")
    operation_text: str | None = Field(None, alias="OperationText")

    @property
    def policy(self) -> PolicyDocument | None:
        """OperationText parsed as a policy document, None when it is not one."""
        try:
            loaded = jsonscan.decode(self.operation_text or "")
        except (TypeError, ValueError):
            return None
        return PolicyDocument.model_validate(loaded) if isinstance(loaded, dict) else None


class ProjectPolicyData(_Part):
    """A project-level policy set: the project the statement ran in (the seed lists nothing else)."""

    current_project: RequiredId = Field(..., alias="CurrentProject")


class TableLabelData(_Part):
    """A label set on table columns: object type (TABLE), object name and the statement."""

    object_type: str | None = Field(None, alias="ObjectType")
    operation_text: str | None = Field(None, alias="OperationText")
    object_name: RequiredId = Field(..., alias="ObjectName")


class UserLabelData(_Part):
    """A label set on a user account."""

    user_name: RequiredId = Field(..., alias="UserName")


class ProjectData(_Part):
    """A project created/updated/deleted: name, changed properties (JSON), state FROZEN/AVAILABLE."""

    project_name: RequiredId = Field(..., alias="ProjectName")
    properties: JsonValue = Field(None, alias="Properties")
    state: str | None = Field(None, alias="State")


# ---------------------------------------------------------------------------------------------
# events
# ---------------------------------------------------------------------------------------------


class MaxComputeEvent(EventModel):
    """Common ActionTrail fields of every MaxCompute audit event."""

    event_id: Id = Field(None, alias="eventId")
    acs_region: str | None = Field(None, alias="acsRegion")
    event_name: str = Field(..., alias="eventName")
    event_time: Timestamp = Field(None, alias="eventTime")
    event_type: str | None = Field(None, alias="eventType")
    event_version: str | None = Field(None, alias="eventVersion")
    event_source: str | None = Field(None, alias="eventSource")
    error_code: str | None = Field(None, alias="errorCode")
    error_message: str | None = Field(None, alias="errorMessage")
    request_id: str | None = Field(None, alias="requestId")
    service_name: str | None = Field(None, alias="serviceName")
    source_ip_address: str | None = Field(None, alias="sourceIpAddress")
    user_agent: str | None = Field(None, alias="userAgent")
    user_identity: Annotated[UserIdentity | None, Embedded] = Field(None, alias="userIdentity")
    referenced_resources: Annotated[dict[str, StrList] | None, Embedded] = Field(
        None, alias="referencedResources"
    )
    additional_event_data: Annotated[dict[str, Any] | None, Embedded] = Field(
        None, alias="additionalEventData"
    )

    @property
    def failed(self) -> bool:
        """The operation failed: an errorCode is present or additionalEventData.Status is Failed."""
        if self.error_code:
            return True
        data = self.additional_event_data
        status = data.get("Status") if isinstance(data, dict) else getattr(data, "status", None)
        return isinstance(status, str) and status.strip().lower() == "failed"


class UnknownMaxComputeEvent(MaxComputeEvent):
    """A MaxCompute ActionTrail event whose eventName the seed does not define."""


class JobEvent(MaxComputeEvent):
    """A job was submitted (InsertJob) or changed status, e.g. succeeded/failed (JobChange)."""

    event_name: Literal["InsertJob", "JobChange"] = Field(..., alias="eventName")
    referenced_resources: Annotated[JobResources | None, Embedded] = Field(None, alias="referencedResources")
    additional_event_data: Annotated[JobData, Embedded] = Field(..., alias="additionalEventData")


class TableTunnelEvent(MaxComputeEvent):
    """Table data was downloaded (DownloadTable) or uploaded (UploadTable) with Tunnel."""

    event_name: Literal["DownloadTable", "UploadTable"] = Field(..., alias="eventName")
    referenced_resources: Annotated[TableResources | None, Embedded] = Field(None, alias="referencedResources")
    additional_event_data: Annotated[TableTunnelData, Embedded] = Field(..., alias="additionalEventData")


class InstanceTunnelEvent(MaxComputeEvent):
    """A job instance's result was downloaded with Tunnel (e.g. the rows of a SELECT)."""

    event_name: Literal["InstanceTunnel"] = Field(..., alias="eventName")
    referenced_resources: Annotated[JobResources | None, Embedded] = Field(None, alias="referencedResources")
    additional_event_data: Annotated[InstanceTunnelData, Embedded] = Field(..., alias="additionalEventData")


class RoleEvent(MaxComputeEvent):
    """A project role was created (CreateRole) or dropped (DropRole)."""

    event_name: Literal["CreateRole", "DropRole"] = Field(..., alias="eventName")
    referenced_resources: Annotated[RoleResources | None, Embedded] = Field(None, alias="referencedResources")
    additional_event_data: Annotated[RoleData, Embedded] = Field(..., alias="additionalEventData")


class UserEvent(MaxComputeEvent):
    """A user was added to (AddUser) or removed from (RemoveUser) a project."""

    event_name: Literal["AddUser", "RemoveUser"] = Field(..., alias="eventName")
    referenced_resources: Annotated[UserResources | None, Embedded] = Field(None, alias="referencedResources")
    additional_event_data: Annotated[UserData, Embedded] = Field(..., alias="additionalEventData")


class TableEvent(MaxComputeEvent):
    """A table was created, altered, dropped, described, read, or had its data changed."""

    event_name: Literal[
        "CreateTable", "ChangeTable", "DropTable", "DescribeTable", "ReadTableData", "ChangeTableData"
    ] = Field(..., alias="eventName")
    referenced_resources: Annotated[TableResources | None, Embedded] = Field(None, alias="referencedResources")
    additional_event_data: Annotated[TableData, Embedded] = Field(..., alias="additionalEventData")


class RoleGrantEvent(MaxComputeEvent):
    """A role was granted to (GrantRole) or revoked from (RevokeRole) an account."""

    event_name: Literal["GrantRole", "RevokeRole"] = Field(..., alias="eventName")
    referenced_resources: Annotated[UserResources | None, Embedded] = Field(None, alias="referencedResources")
    additional_event_data: Annotated[PrivilegeData, Embedded] = Field(..., alias="additionalEventData")


class AclGrantEvent(MaxComputeEvent):
    """ACL permissions on a project/table/resource/function were granted (GrantACL) or revoked."""

    event_name: Literal["GrantACL", "RevokeACL"] = Field(..., alias="eventName")
    referenced_resources: Annotated[UserResources | None, Embedded] = Field(None, alias="referencedResources")
    additional_event_data: Annotated[PrivilegeData, Embedded] = Field(..., alias="additionalEventData")


class LabelGrantEvent(MaxComputeEvent):
    """Label-based permissions were granted (GrantLabel) or revoked (RevokeLabel)."""

    event_name: Literal["GrantLabel", "RevokeLabel"] = Field(..., alias="eventName")
    referenced_resources: Annotated[UserResources | None, Embedded] = Field(None, alias="referencedResources")
    additional_event_data: Annotated[PrivilegeData, Embedded] = Field(..., alias="additionalEventData")


class RolePolicyEvent(MaxComputeEvent):
    """A policy was attached to a role (PutRolePolicy)."""

    event_name: Literal["PutRolePolicy"] = Field(..., alias="eventName")
    referenced_resources: Annotated[RoleResources | None, Embedded] = Field(None, alias="referencedResources")
    additional_event_data: Annotated[RolePolicyData, Embedded] = Field(..., alias="additionalEventData")


class ProjectPolicyEvent(MaxComputeEvent):
    """A project-level policy was set (SetProjectPolicy)."""

    event_name: Literal["SetProjectPolicy"] = Field(..., alias="eventName")
    additional_event_data: Annotated[ProjectPolicyData, Embedded] = Field(..., alias="additionalEventData")


class TableLabelEvent(MaxComputeEvent):
    """A label was set on columns of a table (SetTableLabel)."""

    event_name: Literal["SetTableLabel"] = Field(..., alias="eventName")
    additional_event_data: Annotated[TableLabelData, Embedded] = Field(..., alias="additionalEventData")


class UserLabelEvent(MaxComputeEvent):
    """A label was set on a user (SetUserLabel)."""

    event_name: Literal["SetUserLabel"] = Field(..., alias="eventName")
    referenced_resources: Annotated[UserResources | None, Embedded] = Field(None, alias="referencedResources")
    additional_event_data: Annotated[UserLabelData, Embedded] = Field(..., alias="additionalEventData")


class ProjectEvent(MaxComputeEvent):
    """A project was created, updated (properties/state) or deleted."""

    event_name: Literal["CreateProject", "UpdateProject", "DeleteProject"] = Field(..., alias="eventName")
    additional_event_data: Annotated[ProjectData, Embedded] = Field(..., alias="additionalEventData")


# ---------------------------------------------------------------------------------------------
# the seed's catalogue: eventName -> (eventType group, model)
# ---------------------------------------------------------------------------------------------

CATALOGUE: dict[str, tuple[str, type[MaxComputeEvent]]] = {
    "InsertJob": ("JobEvent", JobEvent),
    "JobChange": ("JobEvent", JobEvent),
    "DownloadTable": ("TunnelEvent", TableTunnelEvent),
    "UploadTable": ("TunnelEvent", TableTunnelEvent),
    "InstanceTunnel": ("TunnelEvent", InstanceTunnelEvent),
    "CreateRole": ("RoleEvent", RoleEvent),
    "DropRole": ("RoleEvent", RoleEvent),
    "AddUser": ("UserEvent", UserEvent),
    "RemoveUser": ("UserEvent", UserEvent),
    "CreateTable": ("TableEvent", TableEvent),
    "ChangeTable": ("TableEvent", TableEvent),
    "DropTable": ("TableEvent", TableEvent),
    "DescribeTable": ("TableEvent", TableEvent),
    "ReadTableData": ("TableEvent", TableEvent),
    "ChangeTableData": ("TableEvent", TableEvent),
    "GrantRole": ("PrivilegeEvent", RoleGrantEvent),
    "RevokeRole": ("PrivilegeEvent", RoleGrantEvent),
    "GrantACL": ("PrivilegeEvent", AclGrantEvent),
    "RevokeACL": ("PrivilegeEvent", AclGrantEvent),
    "GrantLabel": ("PrivilegeEvent", LabelGrantEvent),
    "RevokeLabel": ("PrivilegeEvent", LabelGrantEvent),
    "PutRolePolicy": ("PrivilegeEvent", RolePolicyEvent),
    "SetProjectPolicy": ("PrivilegeEvent", ProjectPolicyEvent),
    "SetTableLabel": ("PrivilegeEvent", TableLabelEvent),
    "SetUserLabel": ("PrivilegeEvent", UserLabelEvent),
    "CreateProject": ("AdminEvent", ProjectEvent),
    "UpdateProject": ("AdminEvent", ProjectEvent),
    "DeleteProject": ("AdminEvent", ProjectEvent),
}

KINDS: frozenset[str] = frozenset(CATALOGUE)
MODELS: dict[str, type[EventModel]] = {kind: model for kind, (_, model) in CATALOGUE.items()}
EVENT_TYPES: dict[str, str] = {kind: group for kind, (group, _) in CATALOGUE.items()}
"""eventName -> the seed's eventType group (JobEvent, TunnelEvent, ...)."""

# ---------------------------------------------------------------------------------------------
# envelopes
# ---------------------------------------------------------------------------------------------

SERVICE_NAMES = frozenset({"maxcompute", "odps"})
"""serviceName values (lower-cased) that mark a MaxCompute event."""
EVENT_SOURCE_MARKERS = ("odps", "maxcompute")
"""Substrings of eventSource (e.g. ``odps.aliyuncs.com``) that mark a MaxCompute event."""
ACTIONTRAIL_KEYS = ("eventId", "eventTime", "userIdentity")
"""At least one of these beside eventName: the record has ActionTrail's shape."""


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


def _names_maxcompute(event: dict[str, Any]) -> bool:
    """The event names MaxCompute: its service, its source, or a seed event type with its name."""
    service = str(event.get("serviceName") or "").strip().lower()
    source = str(event.get("eventSource") or "").strip().lower()
    if service in SERVICE_NAMES or any(marker in source for marker in EVENT_SOURCE_MARKERS):
        return True
    name = event.get("eventName")
    return EVENT_TYPES.get(name) is not None and EVENT_TYPES[name] == event.get("eventType")


def _actiontrail(envelope: str, inside: str | None) -> Shape:
    """An ActionTrail-shaped MaxCompute event at ``inside`` (the record itself when None)."""
    return Shape(
        envelope=envelope,
        inside=inside,
        present=("eventName",),
        any_of=ACTIONTRAIL_KEYS,
        tests=(("eventName", _is_text),),
        where=_names_maxcompute,
    )


SHAPES: tuple[Shape, ...] = (_actiontrail("sls", inside="event"), _actiontrail("actiontrail", inside=None))
"""The envelopes, checked in order: an SLS log entry whose ``event`` field holds the event (as an
object or a JSON string), then the bare ActionTrail event."""
_EVENT_FIELD: dict[str, str | None] = {shape.envelope: shape.inside for shape in SHAPES}


def _other_service(event: dict[str, Any]) -> bool:
    return not _names_maxcompute(event)


def _service_kind(event: dict[str, Any]) -> str:
    return f"service:{str(event.get('serviceName')).strip()}"


def _foreign_actiontrail(inside: str | None) -> Foreign:
    """An ActionTrail event of another cloud service (``"serviceName": "Ecs"``) at ``inside``: a
    trail delivers every service's events into one bucket or logstore, most of them not ours."""
    return Foreign(
        Shape(
            envelope="foreign", inside=inside, present=("eventName", "serviceName"), any_of=ACTIONTRAIL_KEYS,
            tests=(("eventName", _is_text), ("serviceName", _is_text)), where=_other_service,
        ),
        _service_kind,
    )


FOREIGN: tuple[Foreign, ...] = (_foreign_actiontrail("event"), _foreign_actiontrail(None))
"""Another service's ActionTrail events, bare or in an SLS log entry: counted as foreign."""


def parse(doc: dict[str, Any], envelope: str) -> ParsedEvent:
    """Validate the event with its kind's model (``UnknownMaxComputeEvent`` for unknown kinds)."""
    if envelope not in _EVENT_FIELD:
        raise RecordError(f"unknown envelope {envelope!r}")
    event_field = _EVENT_FIELD[envelope]
    event = doc if event_field is None else embedded_object(lookup(doc, event_field))
    if not isinstance(event, dict):
        raise RecordError("not an ActionTrail event object", field=event_field)
    kind = event.get("eventName")
    if not isinstance(kind, str) or not kind:
        raise RecordError("required field is missing", field="eventName")
    model_class = MODELS.get(kind)
    known = model_class is not None
    model = cast(MaxComputeEvent, (model_class or UnknownMaxComputeEvent).model_validate(event))
    event_time = model.event_time
    if event_time is None and event_field is not None:
        event_time = lenient_time(doc.get("__time__"))  # SLS receive time (epoch seconds)
    return ParsedEvent(
        source=NAME,
        kind=kind,
        envelope=envelope,
        model=model,
        event_id=model.event_id or None,
        event_time=event_time,
        actor=_actor(model.user_identity),
        known=known,
    )


def _actor(identity: UserIdentity | None) -> str | None:
    """userIdentity.userName, else principalId: the raw requester as the record names it."""
    if identity is None:
        return None
    return identity.user_name or identity.principal_id or None


SOURCE = Source(
    name=NAME, shapes=SHAPES, models=MODELS, parse=parse, mapping="lineage.facts.maxcompute", foreign=FOREIGN,
    script="$.additionalEventData.OperationText",
)
