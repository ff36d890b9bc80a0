"""MaxCompute event -> fact helpers: event accessors and one function per shape of event.

The mapping table that calls them is ``lineage.facts.maxcompute.MAPPING`` (the package's
``__init__``); what privilege statements say comes from ``lineage.sql.security``, job table
lineage from ``lineage.sql.lineage``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import timedelta
from typing import Any

from lineage import ids
from lineage.analysis.rules import WRITE, operation_kind
from lineage.events.base import ParsedEvent
from lineage.facts.core import Out
from lineage.sql import lineage as sql_lineage
from lineage.sql import memo
from lineage.sql.lineage import SqlLineage, table_lineage
from lineage.sql.security import Principal, PrivilegeStatement, parse_privilege_statement

SQL_MAX_CHARS = 4000
"""Job SQL kept as a property is truncated: properties are for people, not for re-parsing."""
JOB_SUCCESS = frozenset({"terminated", "success", "succeeded"})
"""JobChange statuses (lower-case) that mean the job finished: only these yield lineage."""
OBJECT_LABELS = {"table": "Table", "project": "Project", "resource": "Resource", "function": "Function"}
"""ACL object types (``ObjectType`` / the ``ON <type>`` word) that have a vertex label."""
PRINCIPAL_LABELS = ("User", "Role")


# --------------------------------------------------------------------------------------------
# event accessors
# --------------------------------------------------------------------------------------------


def failed(event: ParsedEvent) -> bool:
    """errorCode present or Status Failed (the model decides): such an event changes nothing."""
    return bool(getattr(event.model, "failed", False))


def actor_id(event: ParsedEvent) -> str | None:
    """userIdentity.userName as a MaxCompute account; without one, principalId (an Aliyun uid)."""
    identity = getattr(event.model, "user_identity", None)
    if identity is None:
        return None
    if identity.user_name and identity.user_name.strip():
        return ids.maxcompute_user(identity.user_name)
    if identity.principal_id and identity.principal_id.strip():
        return ids.aliyun_user(identity.principal_id)
    return None


def requester(event: ParsedEvent) -> Iterator[Out]:
    """The requester's Aliyun uid named by the account name ActionTrail gives beside it: the
    platform's own word that ``user:maxcompute:<userName>`` and ``user:aliyun:<principalId>`` are
    one person (``lineage.graph.identities`` merges them)."""
    identity = getattr(event.model, "user_identity", None)
    uid = _text(getattr(identity, "principal_id", None))
    account = _text(getattr(identity, "user_name", None))
    if uid and account and uid.isdigit() and "*" not in account:
        yield Out(ids.aliyun_user(uid), props={"name": account})


def _data(event: ParsedEvent) -> Any:
    """additionalEventData: a model for known kinds."""
    return getattr(event.model, "additional_event_data", None)


def _raw(event: ParsedEvent) -> dict[str, Any]:
    """additionalEventData as wire keys, lower-cased, extras included (for optional keys)."""
    data = _data(event)
    if data is None:
        return {}
    wire = data.model_dump(by_alias=True) if hasattr(data, "model_dump") else dict(data)
    return {str(key).lower(): value for key, value in wire.items()}


def _text(value: Any) -> str | None:
    text = str(value).strip() if value is not None else ""
    return text or None


def _project(event: ParsedEvent) -> str | None:
    """The project a name belongs to: ProjectName, else CurrentProject (where the statement ran)."""
    raw = _raw(event)
    return _text(raw.get("projectname")) or _text(raw.get("currentproject"))


def _project_id(event: ParsedEvent) -> str | None:
    project = _project(event)
    return ids.maxcompute_project(project) if project else None


def _table_id(event: ParsedEvent) -> str | None:
    """ProjectName + TableName (the table events' and Tunnel events' own fields)."""
    data = _data(event)
    project, name = _text(data.project_name), _text(data.table_name)
    return ids.table(project, name) if project and name else None


def _job_id(instance_id: Any) -> str | None:
    text = _text(instance_id)
    return ids.make("Job", "maxcompute", ids.norm(text)) if text else None


def _label_id(level: Any) -> str | None:
    text = _text(level)
    return ids.make("Label", "maxcompute", ids.norm(text)) if text else None


def _object_id(label: str, name: str, project: str | None) -> str | None:
    """A grant's object: project by its name, table qualified or in ``project``, others keyed by project."""
    if label == "Project":
        return ids.maxcompute_project(name)
    if label == "Table":
        return ids.table_from_qualified(name, project)
    return ids.make(label, "maxcompute", f"{ids.norm(project)}.{ids.norm(name)}") if project else None


def _statement(event: ParsedEvent) -> PrivilegeStatement | None:
    return parse_privilege_statement(getattr(_data(event), "operation_text", None) or _raw(event).get("operationtext"))


def _principal_ids(event: ParsedEvent, statement: PrivilegeStatement | None) -> list[tuple[str, str]]:
    """(label, id) of each grantee: the statement's, else UserName; ``to role r`` is a Role."""
    project = _project(event)
    principals = statement.principals if statement else ()
    if not principals:
        user = _text(getattr(_data(event), "user_name", None))
        principals = (Principal("user", user),) if user else ()
    out = []
    for principal in principals:
        if principal.kind == "role":
            if project:
                out.append(("Role", ids.role(project, principal.name)))
        else:
            out.append(("User", ids.maxcompute_user(principal.name)))
    return out


def _acl_object(event: ParsedEvent, statement: PrivilegeStatement | None) -> tuple[str, str] | None:
    """(label, id) of the ACL/label object: the statement's ``ON <type> <name>``, else ObjectType/Name."""
    data = _data(event)
    kind = (statement.object_type if statement and statement.object_type else None) \
        or (_text(getattr(data, "object_type", None)) or "").lower()
    name = (statement.object_name if statement and statement.object_name else None) \
        or _text(getattr(data, "object_name", None))
    label = OBJECT_LABELS.get(kind or "")
    if label is None or not name:
        return None
    object_id = _object_id(label, name, _project(event))
    return (label, object_id) if object_id else None


# --------------------------------------------------------------------------------------------
# helpers, one per shape of event
# --------------------------------------------------------------------------------------------

# jobs ----------------------------------------------------------------------------------------


def _skynet(event: ParsedEvent, key: str) -> str | None:
    """DataWorks scheduling link (SKYNET_ID node id, SKYNET_TASKID instance id): optional extras,
    read case-insensitively from additionalEventData or a settings object inside it."""
    raw = _raw(event)
    if raw.get(key.lower()) not in (None, ""):
        return _text(raw[key.lower()])
    settings = raw.get("settings")
    if isinstance(settings, str):
        try:
            settings = json.loads(settings)
        except ValueError:
            settings = None
    if isinstance(settings, dict):
        lowered = {str(k).lower(): v for k, v in settings.items()}
        return _text(lowered.get(key.lower()))
    return None


def _job_props(event: ParsedEvent) -> dict[str, Any]:
    data = _data(event)
    sql = data.operation_text
    return {
        "name": data.task_name or data.instance_id,
        "task_name": data.task_name,
        "task_type": data.task_type,
        "project": data.project_name,
        "sql": sql[:SQL_MAX_CHARS] if sql else None,
        "skynet_id": _skynet(event, "SKYNET_ID"),
        "skynet_taskid": _skynet(event, "SKYNET_TASKID"),
        "error_code": getattr(event.model, "error_code", None),  # a failed run: the fold keeps the last one's
        "error_message": getattr(event.model, "error_message", None),
    }


def job_submitted(event: ParsedEvent) -> Iterator[Out]:
    """A submitted job; an InsertJob that carries a Status (seed 002's common sample: Failed) keeps it."""
    status = _text(_data(event).status) or "submitted"
    yield Out(_job_id(_data(event).instance_id), props={**_job_props(event), "status": status})


def job_in_project(event: ParsedEvent) -> Iterator[Out]:
    yield Out(_job_id(_data(event).instance_id), _project_id(event))


def _succeeded(event: ParsedEvent) -> bool:
    status = _text(_data(event).status)
    return status is not None and status.lower() in JOB_SUCCESS


@memo.on_disk("table_lineage", sql_lineage.to_json, sql_lineage.from_json)
def _lineage_of(sql: str, project: str | None) -> SqlLineage:
    """Parsed once per text: a scheduled node submits the same script every day, and a job's
    status events ask for it several times. The cache must hold a whole day's distinct scripts
    (one per node): at 256 a 600-node platform missed every time and parsed 7,235 scripts
    where it has 810 distinct ones (SQL was 70% of fact extraction). Kept across builds too (``lineage.sql.memo``)."""
    return table_lineage(sql, default_project=project)


def _job_lineage(event: ParsedEvent) -> SqlLineage | None:
    """Lineage of a successfully finished SQL job (None otherwise: nothing ran, or it is not SQL)."""
    data = _data(event)
    task_type = (data.task_type or "sql").lower()
    if not _succeeded(event) or "sql" not in task_type or not _text(data.operation_text):
        return None
    return _lineage_of(data.operation_text, _text(data.project_name))


def job_status(event: ParsedEvent) -> Iterator[Out]:
    lineage = _job_lineage(event)
    error = "; ".join(lineage.errors) if lineage is not None and lineage.errors else None
    yield Out(_job_id(_data(event).instance_id),
            props={**_job_props(event), "status": _data(event).status, "sql_error": error})


LOCATIONS_OF = {"reads": "read_locations", "writes": "written_locations"}
"""Storage paths (``parquet.`oss://...```, ``LOCATION '...'``) a job reads / writes, beside its tables."""


def _tables(event: ParsedEvent, which: str) -> list[str]:
    lineage = _job_lineage(event)
    if lineage is None:
        return []
    project = _text(_data(event).project_name)
    found = (ids.table_from_qualified(name, project) for name in getattr(lineage, which))
    return sorted({table for table in found if table})


def _locations(event: ParsedEvent, which: str) -> list[str]:
    lineage = _job_lineage(event)
    if lineage is None:
        return []
    return sorted({loc for uri in getattr(lineage, LOCATIONS_OF[which]) if (loc := ids.location(uri))})


DEFINITION = "definition"
"""A run's READS/WRITES (and ``pairs``) property naming the definition the run is of, when it is not
the run itself: the DataWorks node that submitted a job (SKYNET_ID). A derived FEEDS names it in
``via`` instead of the run (``lineage.graph.fold.derive_feeds``, DESIGN.md "Definitions and runs");
a job no node submitted has none and is named by its own id."""


def definition(event: ParsedEvent) -> dict[str, str]:
    """``{definition: node:dataworks:<SKYNET_ID>}`` of a job a DataWorks node submitted, else empty."""
    node = _skynet(event, "SKYNET_ID")
    return {DEFINITION: ids.dataworks("Node", node)} if node else {}


def job_tables(event: ParsedEvent, which: str) -> Iterator[Out]:
    """Tables the finished job's SQL ``which`` ("reads"/"writes"); unparsed statements give none."""
    job = _job_id(_data(event).instance_id)
    for table in _tables(event, which):
        yield Out(job, table, props={"instance_id": _data(event).instance_id, **definition(event)})


def node_tables(event: ParsedEvent, which: str) -> Iterator[Out]:
    """The same tables for the DataWorks node that scheduled the job (SKYNET_ID)."""
    node = _skynet(event, "SKYNET_ID")
    if not node:
        return
    for table in _tables(event, which):
        yield Out(ids.dataworks("Node", node), table,
                props={"instance_id": _data(event).instance_id, "skynet_taskid": _skynet(event, "SKYNET_TASKID")})


def job_locations(event: ParsedEvent, which: str) -> Iterator[Out]:
    """Storage paths the finished job's SQL ``which`` ("reads"/"writes"): Location vertices."""
    job = _job_id(_data(event).instance_id)
    for location in _locations(event, which):
        yield Out(job, location, props={"instance_id": _data(event).instance_id, **definition(event)})


def node_locations(event: ParsedEvent, which: str) -> Iterator[Out]:
    """The same paths for the DataWorks node that scheduled the job (SKYNET_ID)."""
    node = _skynet(event, "SKYNET_ID")
    if not node:
        return
    for location in _locations(event, which):
        yield Out(ids.dataworks("Node", node), location,
                props={"instance_id": _data(event).instance_id, "skynet_taskid": _skynet(event, "SKYNET_TASKID")})


def instance_downloaded(event: ParsedEvent) -> Iterator[Out]:
    """A job's result is not a table: the download is a property of the Job."""
    data = _data(event)
    yield Out(_job_id(data.instance_id), props={
        "downloaded_by": actor_id(event), "project": data.project_name,
        "current_project": data.current_project, "session_id": data.session_id})


# tunnel and table data -------------------------------------------------------------------------


def _tunnel_props(event: ParsedEvent) -> dict[str, Any]:
    data = _data(event)
    return {"partition": data.partition, "session_id": data.session_id, "current_project": data.current_project}


def tunnel_transfer(event: ParsedEvent) -> Iterator[Out]:
    yield Out(actor_id(event), _table_id(event), props=_tunnel_props(event))


def _table_props(event: ParsedEvent) -> dict[str, Any]:
    data = _data(event)
    return {"name": data.table_name, "project": data.project_name,
            "operation": getattr(data, "operation_text", None)}


def table_vertex(event: ParsedEvent) -> Iterator[Out]:
    yield Out(_table_id(event), props=_table_props(event))


def table_in_project(event: ParsedEvent) -> Iterator[Out]:
    yield Out(_table_id(event), _project_id(event))


def table_change(event: ParsedEvent) -> Iterator[Out]:
    data = _data(event)
    yield Out(_table_id(event), props={"operation": data.operation_text, "correlation_id": data.correlation_id,
                                     "source": data.source})


def table_operation(event: ParsedEvent, kind: str, default: str) -> Iterator[Out]:
    """The table's Change, when its OperationText is of ``kind`` (``rules.OPERATIONS``; a word not
    listed is ``default``): one Emit row per kind, so each kind is a row of the mapping."""
    if operation_kind(_data(event).operation_text, default) == kind:
        yield from table_change(event)


def table_written(event: ParsedEvent, source: str, default: str) -> Iterator[Out]:
    """:func:`table_data_via` of an operation that is a write (``rules.OPERATIONS``): data written
    is not a change, it only says when the table was last written."""
    if operation_kind(_data(event).operation_text, default) == WRITE:
        yield from table_data_via(event, source)


def table_data_via(event: ParsedEvent, source: str) -> Iterator[Out]:
    """Only events of Source ``source``: INSTANCE (CorrelationId is the job id) or TUNNEL (the actor)."""
    data = _data(event)
    if (data.source or "").strip().upper() != source:
        return
    src = _job_id(data.correlation_id) if source == "INSTANCE" else actor_id(event)
    yield Out(src, _table_id(event), props={"operation": data.operation_text, "correlation_id": data.correlation_id})

# roles, users, projects ------------------------------------------------------------------------


def role_vertex(event: ParsedEvent) -> Iterator[Out]:
    """A role is named with its project (``acme_ods.role_developer``): every project has its own
    ``role_developer``, and a bare name printed two different roles alike."""
    data = _data(event)
    name = f"{data.project_name}.{data.role_name}" if _text(data.project_name) else data.role_name
    yield Out(ids.role(data.project_name, data.role_name), props={"name": name, "project": data.project_name})


def role_in_project(event: ParsedEvent) -> Iterator[Out]:
    data = _data(event)
    yield Out(ids.role(data.project_name, data.role_name), _project_id(event))


def user_vertex(event: ParsedEvent) -> Iterator[Out]:
    user = _text(_data(event).user_name)
    if user:
        yield Out(ids.maxcompute_user(user), props={"name": user})


def user_membership(event: ParsedEvent) -> Iterator[Out]:
    data = _data(event)
    yield Out(ids.maxcompute_user(data.user_name), _project_id(event), props={"statement": data.operation_text})


def project_vertex(event: ParsedEvent) -> Iterator[Out]:
    data = _data(event)
    yield Out(ids.maxcompute_project(data.project_name),
            props={"name": data.project_name, "state": data.state, "properties": data.properties})


def project_change(event: ParsedEvent) -> Iterator[Out]:
    yield Out(_project_id(event))


# grants ------------------------------------------------------------------------------------------


def _granted_roles(event: ParsedEvent, statement: PrivilegeStatement | None) -> tuple[str, ...]:
    """``grant <role>[, ...] to <user>``: the roles named; ObjectName only when there is no statement."""
    if statement is not None:
        return statement.privileges if not statement.object_name and statement.verb != "set" else ()
    name = _text(getattr(_data(event), "object_name", None))
    return (name,) if name else ()


def role_grants(event: ParsedEvent) -> Iterator[Out]:
    """Each role the statement names (in ProjectName, else CurrentProject) for each user grantee."""
    statement = _statement(event)
    project = _project(event)
    if not project:
        return
    for label, grantee in _principal_ids(event, statement):
        if label == "User":
            for role in _granted_roles(event, statement):
                yield Out(grantee, ids.role(project, role), props={"role": role})


def role_grant_change(event: ParsedEvent) -> Iterator[Out]:
    statement = _statement(event)
    project = _project(event)
    for role in _granted_roles(event, statement) if project else ():
        yield Out(ids.role(project, role), props={"statement": _data(event).operation_text})


def acl(event: ParsedEvent, principal_label: str, object_label: str) -> Iterator[Out]:
    """One fact per privilege a statement grants a ``principal_label`` on an ``object_label``."""
    statement = _statement(event)
    target = _acl_object(event, statement)
    if statement is None or target is None or target[0] != object_label:
        return
    for label, grantee in _principal_ids(event, statement):
        if label != principal_label:
            continue
        for privilege in statement.privileges:
            yield Out(grantee, target[1], qualifier=privilege,
                    props={"privileges": [privilege], "columns": list(statement.columns) or None})


def acl_change(event: ParsedEvent, object_label: str) -> Iterator[Out]:
    """The ``object_label`` vertex whose ACL a grant/revoke changed."""
    statement = _statement(event)
    target = _acl_object(event, statement)
    if target is None or target[0] != object_label:
        return
    yield Out(target[1], props={
        "privileges": list(statement.privileges) if statement and statement.privileges else None,
        "label": statement.label if statement else None,
        "grantees": [grantee for _, grantee in _principal_ids(event, statement)],
        "statement": _data(event).operation_text})


def label_grants(event: ParsedEvent) -> Iterator[Out]:
    """``GRANT LABEL n ON TABLE t(cols) TO USER x [WITH EXP d]``: expires d days after the event."""
    statement = _statement(event)
    target = _acl_object(event, statement)
    if statement is None or target is None or target[0] != "Table":
        return
    until = None
    if statement.exp_days is not None and event.event_time:
        try:
            until = event.event_time + timedelta(days=statement.exp_days)
        except OverflowError:  # an absurd expiry: treat as no expiry rather than lose the grant
            until = None
    for label, grantee in _principal_ids(event, statement):
        if label == "User":
            yield Out(grantee, target[1], qualifier="label", until=until, props={
                "label": statement.label, "columns": list(statement.columns) or None,
                "exp_days": statement.exp_days})


def _label_target(event: ParsedEvent) -> tuple[str | None, PrivilegeStatement | None]:
    """SetTableLabel: the table (statement or ObjectName; project from an optional ProjectName)."""
    statement = _statement(event)
    name = (statement.object_name if statement and statement.object_name else None) or _text(_data(event).object_name)
    return (ids.table_from_qualified(name, _project(event)) if name else None), statement


def table_label_clear(event: ParsedEvent) -> Iterator[Out]:
    table, statement = _label_target(event)
    if statement and statement.label:
        yield Out(table)


def table_label_set(event: ParsedEvent) -> Iterator[Out]:
    table, statement = _label_target(event)
    if statement and statement.label:
        yield Out(table, _label_id(statement.label),
                props={"label": statement.label, "columns": list(statement.columns) or None})


def table_label_change(event: ParsedEvent) -> Iterator[Out]:
    table, statement = _label_target(event)
    yield Out(table, props={"label": statement.label if statement else None,
                          "statement": getattr(_data(event), "operation_text", None)})


def _user_label(event: ParsedEvent) -> tuple[str | None, str | None]:
    """SetUserLabel: the user (statement ``TO USER x``, else UserName) and the level (statement only)."""
    statement = _statement(event)
    principals = statement.principals if statement else ()
    user = principals[0].name if principals else _text(_data(event).user_name)
    return (ids.maxcompute_user(user) if user else None), (statement.label if statement else None)


def user_label_clear(event: ParsedEvent) -> Iterator[Out]:
    user, level = _user_label(event)
    if level:
        yield Out(user)


def user_label_set(event: ParsedEvent) -> Iterator[Out]:
    user, level = _user_label(event)
    if level:
        yield Out(user, _label_id(level), props={"label": level})


def user_label_change(event: ParsedEvent) -> Iterator[Out]:
    user, level = _user_label(event)
    yield Out(user, props={"label": level})


def label_vertex(event: ParsedEvent) -> Iterator[Out]:
    statement = _statement(event)
    if statement and statement.label:
        yield Out(_label_id(statement.label), props={"name": f"label {statement.label}", "level": statement.label})


# role policies ---------------------------------------------------------------------------------


def _policy_resource(resource: Any) -> tuple[str, str] | None:
    """``acs:odps:*:projects/<p>`` -> Project, ``.../projects/<p>/tables/<t>`` -> Table; patterns
    (``m_*``) and other resource kinds -> None (no vertex stands for a pattern)."""
    text = _text(resource)
    if not text or "*" in text.split(":", 3)[-1]:
        return None
    parts = text.split(":", 3)
    if len(parts) != 4 or parts[0].lower() != "acs" or parts[1].lower() != "odps":
        return None
    path = [p for p in parts[3].split("/") if p]
    if len(path) == 2 and path[0].lower() == "projects":
        return "Project", ids.maxcompute_project(path[1])
    if len(path) == 4 and path[0].lower() == "projects" and path[2].lower() == "tables":
        return "Table", ids.table(path[1], path[3])
    return None


def _policy_document(event: ParsedEvent) -> Any:
    """The role policy (OperationText as JSON), None when it is not a valid policy document."""
    try:
        return _data(event).policy
    except ValueError:  # pydantic's ValidationError: JSON, but not a policy's shape
        return None


def _statements(event: ParsedEvent, effect: str | None = None) -> Iterable[Any]:
    policy = _policy_document(event)
    for statement in (policy.statement if policy else ()):
        if effect is None or (statement.effect or "").strip().lower() == effect:
            yield statement


def policy(event: ParsedEvent, object_label: str) -> Iterator[Out]:
    """Allow statements of the role policy, one fact per action on each ``object_label``."""
    data = _data(event)
    role = ids.role(data.project_name, data.role_name)
    for statement in _statements(event, "allow"):
        for resource in statement.resource:
            target = _policy_resource(resource)
            if target is None or target[0] != object_label:
                continue
            for action in statement.action:
                action_text = _text(action)
                if action_text:
                    yield Out(role, target[1], qualifier=action_text.lower(),
                            props={"privileges": [action_text.lower()], "policy_resource": resource})


def policy_role_change(event: ParsedEvent) -> Iterator[Out]:
    data = _data(event)
    allow = sorted({str(a).lower() for s in _statements(event, "allow") for a in s.action})
    deny = sorted({str(a).lower() for s in _statements(event, "deny") for a in s.action})
    resources = sorted({str(r) for s in _statements(event) for r in s.resource})
    yield Out(ids.role(data.project_name, data.role_name), props={
        "allow_actions": allow or None, "deny_actions": deny or None, "resources": resources or None,
        "policy_error": None if _policy_document(event) is not None else "OperationText is not a policy document"})


def policy_change(event: ParsedEvent, object_label: str) -> Iterator[Out]:
    """Each ``object_label`` a role policy statement (Allow or Deny) names."""
    seen = set()
    for statement in _statements(event):
        for resource in statement.resource:
            target = _policy_resource(resource)
            if target and target[0] == object_label and target[1] not in seen:
                seen.add(target[1])
                yield Out(target[1], props={"role": _data(event).role_name})
