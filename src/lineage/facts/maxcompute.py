"""MaxCompute ActionTrail audit events (seed 002) -> facts.

The table ``MAPPING`` is the dispatch: one row per fact an event kind yields, each with a small
helper reading the validated model (``lineage.events.maxcompute``). Who did it is
``userIdentity.userName`` (a MaxCompute account name), else ``principalId``.

Grant/revoke statements (``OperationText``) are MaxCompute's own DCL, which sqlglot parses only
as an opaque ``Command``; they are read by walking sqlglot's (Hive) tokens -- never by regexes
over SQL text. Table lineage of jobs comes from ``lineage.sqllineage`` and only from a job that
finished successfully; a statement that cannot be parsed gives no edges (never guessed), only a
``sql_error`` property naming it -- the statements of the script that did parse keep theirs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from typing import Any

from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from lineage import ids, sqllineage
from lineage.events.base import ParsedEvent
from lineage.facts.core import Emit, Out

SOURCE = "maxcompute"

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


# --------------------------------------------------------------------------------------------
# privilege statements: GRANT / REVOKE / SET LABEL, read from sqlglot tokens
# --------------------------------------------------------------------------------------------

_TOKENIZER_DIALECT = Dialect.get_or_raise("hive")
"""Hive's tokenizer: backtick identifiers and double-quoted strings, as MaxCompute writes them."""
_QUOTED = (TokenType.STRING, TokenType.IDENTIFIER)


@dataclass(frozen=True)
class Principal:
    kind: str  # "user" | "role" ("user" when the statement names none)
    name: str


@dataclass(frozen=True)
class PrivilegeStatement:
    """What a MaxCompute GRANT/REVOKE/SET LABEL says (every name as written, privileges lower-case).

    ``grant select, update on table t(c1) to user x``: privileges (select, update), object (table,
    t), columns (c1), principals (user x). ``grant r1 to x``: privileges hold the role names and
    there is no object. ``GRANT LABEL 2 ON TABLE t TO USER x WITH EXP 5``: label 2, exp_days 5.
    ``SET LABEL 3 TO TABLE t(c1)`` / ``SET LABEL 3 TO USER x``: a label and its target.
    """

    verb: str
    privileges: tuple[str, ...] = ()
    label: str | None = None
    object_type: str | None = None
    object_name: str | None = None
    columns: tuple[str, ...] = ()
    principals: tuple[Principal, ...] = ()
    exp_days: int | None = None


def _word(token: Token) -> str:
    """A token's keyword spelling (upper-case); quoted names are never keywords."""
    return "" if token.token_type in _QUOTED else token.text.upper()


def _split(tokens: list[Token], sep: TokenType = TokenType.COMMA) -> list[list[Token]]:
    """Split at ``sep`` outside parentheses."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        if token.token_type == TokenType.L_PAREN:
            depth += 1
        elif token.token_type == TokenType.R_PAREN:
            depth -= 1
        if token.token_type == sep and depth == 0:
            parts.append([])
        else:
            parts[-1].append(token)
    return [part for part in parts if part]


def _name(tokens: list[Token], sql: str) -> str | None:
    """A name as written: one quoted token's content, else the source text the tokens span."""
    if not tokens:
        return None
    if len(tokens) == 1 and tokens[0].token_type in _QUOTED:
        return tokens[0].text
    if all(t.token_type in (*_QUOTED, TokenType.DOT) or t.text.isidentifier() for t in tokens):
        return "".join(t.text for t in tokens)  # a dotted name: p.t, `p`.`t`
    return sql[tokens[0].start: tokens[-1].end + 1].strip() or None


def _name_and_columns(tokens: list[Token], sql: str) -> tuple[str | None, tuple[str, ...]]:
    """``t(c1, c2)`` -> ("t", ("c1", "c2"))."""
    for index, token in enumerate(tokens):
        if token.token_type == TokenType.L_PAREN:
            inner = [t for t in tokens[index + 1:] if t.token_type != TokenType.R_PAREN]
            columns = tuple(c for c in (_name(part, sql) for part in _split(inner)) if c)
            return _name(tokens[:index], sql), columns
    return _name(tokens, sql), ()


def _principals(tokens: list[Token], sql: str) -> tuple[Principal, ...]:
    out = []
    for part in _split(tokens):
        kind = "user"
        if _word(part[0]) in ("USER", "ROLE") and len(part) > 1:
            kind, part = _word(part[0]).lower(), part[1:]
        name = _name(part, sql)
        if name:
            out.append(Principal(kind, name))
    return tuple(out)


def _clauses(tokens: list[Token]) -> dict[str, list[Token]]:
    """Tokens after the verb grouped by clause: head (privileges/label), on, to (TO/FROM), with, properties.

    Principal names are free text (``ALIYUN$bob@x.com``), so once TO/FROM is seen only WITH EXP /
    WITH GRANT and PRIVILEGEPROPERTIES end the clause.
    """
    clauses: dict[str, list[Token]] = {"head": []}
    current = "head"
    for index, token in enumerate(tokens):
        word = _word(token)
        following = _word(tokens[index + 1]) if index + 1 < len(tokens) else ""
        if current == "head" and word == "ON":
            current = "on"
        elif current in ("head", "on") and word in ("TO", "FROM"):
            current = "to"
        elif current == "to" and word == "WITH" and following in ("EXP", "GRANT"):
            current = "with"
        elif word == "PRIVILEGEPROPERTIES":
            current = "properties"
        else:
            clauses.setdefault(current, []).append(token)
            continue
        clauses.setdefault(current, [])
    return clauses


def parse_privilege_statement(sql: str | None) -> PrivilegeStatement | None:
    """The first statement of ``sql`` as a ``PrivilegeStatement``; None when it is not one."""
    if not sql or not sql.strip():
        return None
    try:
        tokens = _TOKENIZER_DIALECT.tokenize(sql)
    except (SqlglotError, ValueError):
        return None
    statements = _split(tokens, TokenType.SEMICOLON)
    if not statements:
        return None
    tokens = statements[0]
    verb = _word(tokens[0]).lower()
    if verb not in ("grant", "revoke", "set"):
        return None
    clauses = _clauses(tokens[1:])
    head = clauses["head"]
    label = None
    privileges: tuple[str, ...] = ()
    if head and _word(head[0]) == "LABEL":
        label = _name(head[1:2], sql)
    else:
        privileges = tuple(
            p.lower() for p in (_name_and_columns(part, sql)[0] for part in _split(head)) if p)
    object_type = object_name = None
    columns: tuple[str, ...] = ()
    target = clauses.get("on", [])
    principals_tokens = clauses.get("to", [])
    if verb == "set" and principals_tokens and _word(principals_tokens[0]) != "USER":
        target, principals_tokens = principals_tokens, []  # SET LABEL n TO TABLE t(cols)
    if target:
        if _word(target[0]).lower() in OBJECT_LABELS or _word(target[0]) in ("INSTANCE", "PACKAGE"):
            object_type, target = _word(target[0]).lower(), target[1:]
        object_name, columns = _name_and_columns(target, sql)
    exp_days = None
    with_clause = clauses.get("with", [])
    if len(with_clause) >= 2 and _word(with_clause[0]) == "EXP" and with_clause[1].text.isdigit():
        exp_days = int(with_clause[1].text)
    return PrivilegeStatement(
        verb=verb, privileges=privileges, label=label, object_type=object_type,
        object_name=object_name, columns=columns, principals=_principals(principals_tokens, sql),
        exp_days=exp_days,
    )


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
    yield Out(_job_id(_data(event).instance_id), props={**_job_props(event), "status": "submitted"})


def job_in_project(event: ParsedEvent) -> Iterator[Out]:
    yield Out(_job_id(_data(event).instance_id), _project_id(event))


def _succeeded(event: ParsedEvent) -> bool:
    status = _text(_data(event).status)
    return status is not None and status.lower() in JOB_SUCCESS


@lru_cache(maxsize=256)
def _lineage_of(sql: str, project: str | None) -> sqllineage.SqlLineage:
    return sqllineage.table_lineage(sql, default_project=project)


def _job_lineage(event: ParsedEvent) -> sqllineage.SqlLineage | None:
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


def _tables(event: ParsedEvent, which: str) -> list[str]:
    lineage = _job_lineage(event)
    if lineage is None:
        return []
    project = _text(_data(event).project_name)
    found = (ids.table_from_qualified(name, project) for name in getattr(lineage, which))
    return sorted({table for table in found if table})


def _job_edges(which: str):
    def fn(event: ParsedEvent) -> Iterator[Out]:
        job = _job_id(_data(event).instance_id)
        for table in _tables(event, which):
            yield Out(job, table, props={"instance_id": _data(event).instance_id})
    fn.__name__ = f"job_{which}"
    fn.__doc__ = f"Tables the finished job's SQL {which} (sqllineage; unparsed statements give none)."
    return fn


def _node_edges(which: str):
    def fn(event: ParsedEvent) -> Iterator[Out]:
        node = _skynet(event, "SKYNET_ID")
        if not node:
            return
        for table in _tables(event, which):
            yield Out(ids.dataworks("Node", node), table,
                    props={"instance_id": _data(event).instance_id, "skynet_taskid": _skynet(event, "SKYNET_TASKID")})
    fn.__name__ = f"node_{which}"
    fn.__doc__ = f"The same tables for the DataWorks node that scheduled the job ({which})."
    return fn


job_reads, job_writes = _job_edges("reads"), _job_edges("writes")
node_reads, node_writes = _node_edges("reads"), _node_edges("writes")


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


def _from_source(source: str):
    def fn(event: ParsedEvent) -> Iterator[Out]:
        data = _data(event)
        if (data.source or "").strip().upper() != source:
            return
        src = _job_id(data.correlation_id) if source == "INSTANCE" else actor_id(event)
        yield Out(src, _table_id(event), props={"operation": data.operation_text, "correlation_id": data.correlation_id})
    fn.__name__ = f"table_data_via_{source.lower()}"
    fn.__doc__ = f"Source {source}: CorrelationId is the {'job' if source == 'INSTANCE' else 'tunnel'} id."
    return fn


table_data_via_instance, table_data_via_tunnel = _from_source("INSTANCE"), _from_source("TUNNEL")

# roles, users, projects ------------------------------------------------------------------------


def role_vertex(event: ParsedEvent) -> Iterator[Out]:
    data = _data(event)
    yield Out(ids.role(data.project_name, data.role_name), props={"name": data.role_name, "project": data.project_name})


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


def _acl(principal_label: str, object_label: str):
    def fn(event: ParsedEvent) -> Iterator[Out]:
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
    fn.__name__ = f"acl_{principal_label.lower()}_{object_label.lower()}"
    fn.__doc__ = f"One fact per privilege a statement grants a {principal_label} on a {object_label}."
    return fn


def _acl_change(object_label: str):
    def fn(event: ParsedEvent) -> Iterator[Out]:
        statement = _statement(event)
        target = _acl_object(event, statement)
        if target is None or target[0] != object_label:
            return
        yield Out(target[1], props={
            "privileges": list(statement.privileges) if statement and statement.privileges else None,
            "label": statement.label if statement else None,
            "grantees": [grantee for _, grantee in _principal_ids(event, statement)],
            "statement": _data(event).operation_text})
    fn.__name__ = f"acl_change_{object_label.lower()}"
    fn.__doc__ = f"The {object_label} whose ACL a grant/revoke changed."
    return fn


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


def _policy(object_label: str):
    def fn(event: ParsedEvent) -> Iterator[Out]:
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
    fn.__name__ = f"policy_{object_label.lower()}"
    fn.__doc__ = f"Allow statements of the role policy, one fact per action on each {object_label}."
    return fn


def policy_role_change(event: ParsedEvent) -> Iterator[Out]:
    data = _data(event)
    allow = sorted({str(a).lower() for s in _statements(event, "allow") for a in s.action})
    deny = sorted({str(a).lower() for s in _statements(event, "deny") for a in s.action})
    resources = sorted({str(r) for s in _statements(event) for r in s.resource})
    yield Out(ids.role(data.project_name, data.role_name), props={
        "allow_actions": allow or None, "deny_actions": deny or None, "resources": resources or None,
        "policy_error": None if _policy_document(event) is not None else "OperationText is not a policy document"})


def _policy_change(object_label: str):
    def fn(event: ParsedEvent) -> Iterator[Out]:
        seen = set()
        for statement in _statements(event):
            for resource in statement.resource:
                target = _policy_resource(resource)
                if target and target[0] == object_label and target[1] not in seen:
                    seen.add(target[1])
                    yield Out(target[1], props={"role": _data(event).role_name})
    fn.__name__ = f"policy_change_{object_label.lower()}"
    fn.__doc__ = f"Each {object_label} a role policy statement (Allow or Deny) names."
    return fn


# --------------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------------

_JOB_PROPS = ("name", "status", "task_name", "task_type", "project", "sql", "skynet_id", "skynet_taskid", "error_code",
              "error_message")
_ACL_NOTE = "grantee from OperationText (`to role r` -> Role in ProjectName, else User; UserName if none)"


def _acl_rows(op: str) -> tuple[Emit, ...]:
    """GrantACL/RevokeACL: every (principal label, object label) pair, then the object's Change."""
    edges = tuple(
        Emit(op=op, src=principal, rel="CAN_ACCESS", dst=obj, fn=_acl(principal, obj),
             note=f"{_ACL_NOTE}; {obj} from `on {obj.lower()} <name>` or ObjectType/ObjectName "
                  f"(unqualified: ProjectName); one fact per privilege (qualifier)",
             extra=("privileges", "columns"))
        for principal in PRINCIPAL_LABELS for obj in OBJECT_LABELS.values())
    changes = tuple(
        Emit(op="change", src=obj, rel="permission_change", fn=_acl_change(obj),
             note=f"the {obj} the statement's ON clause / ObjectName names",
             extra=("privileges", "label", "grantees", "statement"))
        for obj in OBJECT_LABELS.values())
    return edges + changes


def _role_grant_rows(op: str) -> tuple[Emit, ...]:
    return (
        Emit(op=op, src="User", rel="HAS_ROLE", dst="Role", fn=role_grants,
             note="user from OperationText `grant <role> to <user>` (else UserName); role in ProjectName/CurrentProject",
             extra=("role",)),
        Emit(op="change", src="Role", rel="permission_change", fn=role_grant_change,
             note="each role the statement grants/revokes", extra=("statement",)),
    )


def _label_grant_rows(op: str) -> tuple[Emit, ...]:
    return (
        Emit(op=op, src="User", rel="CAN_ACCESS", dst="Table", fn=label_grants,
             note="`GRANT|REVOKE LABEL n ON TABLE t(cols) TO|FROM USER x [WITH EXP d]`; qualifier `label`, "
                  "valid until event time + d days",
             extra=("label", "columns", "exp_days")),
        Emit(op="change", src="Table", rel="permission_change", fn=_acl_change("Table"),
             note="the table of the label grant", extra=("label", "grantees", "statement")),
    )


MAPPING: dict[str, tuple[Emit, ...]] = {
    # jobs
    "InsertJob": (
        Emit(op="assert", src="Job", fn=job_submitted, note="job:maxcompute:<InstanceId>; status submitted, sql = OperationText",
             extra=_JOB_PROPS),
        Emit(op="assert", src="Job", rel="IN_PROJECT", dst="Project", fn=job_in_project, note="InstanceId -> ProjectName"),
    ),
    "JobChange": (
        Emit(op="observe", src="Job", fn=job_status, note="InstanceId; Status; sql_error when the SQL does not parse",
             extra=(*_JOB_PROPS, "sql_error")),
        Emit(op="assert", src="Job", rel="READS", dst="Table", fn=job_reads,
             note="only a finished job (Status Terminated/Success): tables read by OperationText (sqllineage, "
                  "default ProjectName)", extra=("instance_id",)),
        Emit(op="assert", src="Job", rel="WRITES", dst="Table", fn=job_writes,
             note="only a finished job: tables written by OperationText", extra=("instance_id",)),
        Emit(op="assert", src="Node", rel="READS", dst="Table", fn=node_reads,
             note="DataWorks node SKYNET_ID (optional extra key) of a finished job: the job's read tables",
             extra=("instance_id", "skynet_taskid")),
        Emit(op="assert", src="Node", rel="WRITES", dst="Table", fn=node_writes,
             note="DataWorks node SKYNET_ID of a finished job: the job's written tables",
             extra=("instance_id", "skynet_taskid")),
    ),
    # tunnel
    "DownloadTable": (
        Emit(op="assert", src="User", rel="DOWNLOADED", dst="Table", fn=tunnel_transfer,
             note="actor (userIdentity) -> ProjectName.TableName", extra=("partition", "session_id", "current_project")),
    ),
    "UploadTable": (
        Emit(op="assert", src="User", rel="UPLOADED", dst="Table", fn=tunnel_transfer,
             note="actor (userIdentity) -> ProjectName.TableName", extra=("partition", "session_id", "current_project")),
    ),
    "InstanceTunnel": (
        Emit(op="observe", src="Job", fn=instance_downloaded,
             note="InstanceId; a job result is not a table, so the download is a Job property",
             extra=("downloaded_by", "project", "current_project", "session_id")),
    ),
    # roles and users
    "CreateRole": (
        Emit(op="assert", src="Role", fn=role_vertex, note="role:maxcompute:<ProjectName>.<RoleName>", extra=("name", "project")),
        Emit(op="assert", src="Role", rel="IN_PROJECT", dst="Project", fn=role_in_project, note="RoleName -> ProjectName"),
    ),
    "DropRole": (
        Emit(op="retract", src="Role", fn=role_vertex, note="role:maxcompute:<ProjectName>.<RoleName>", extra=("name", "project")),
        Emit(op="retract", src="Role", rel="IN_PROJECT", dst="Project", fn=role_in_project, note="RoleName -> ProjectName"),
        Emit(op="change", src="Role", rel="permission_change", fn=role_vertex,
             note="holders of a dropped role lose its access", extra=("name", "project")),
    ),
    "AddUser": (
        Emit(op="observe", src="User", fn=user_vertex, note="UserName (account name)", extra=("name",)),
        Emit(op="assert", src="User", rel="MEMBER_OF", dst="Project", fn=user_membership,
             note="UserName -> ProjectName", extra=("statement",)),
        Emit(op="change", src="Project", rel="permission_change", fn=project_change, note="ProjectName"),
    ),
    "RemoveUser": (
        Emit(op="retract", src="User", rel="MEMBER_OF", dst="Project", fn=user_membership,
             note="UserName -> ProjectName", extra=("statement",)),
        Emit(op="change", src="Project", rel="permission_change", fn=project_change, note="ProjectName"),
    ),
    # tables
    "CreateTable": (
        Emit(op="assert", src="Table", fn=table_vertex, note="ProjectName.TableName", extra=("name", "project", "operation")),
        Emit(op="assert", src="Table", rel="IN_PROJECT", dst="Project", fn=table_in_project, note="TableName -> ProjectName"),
        Emit(op="change", src="Table", rel="create", fn=table_change, note="ProjectName.TableName",
             extra=("operation", "correlation_id", "source")),
    ),
    "ChangeTable": (
        Emit(op="observe", src="Table", fn=table_vertex, note="ProjectName.TableName", extra=("name", "project", "operation")),
        Emit(op="change", src="Table", rel="schema_change", fn=table_change,
             note="ProjectName.TableName; operation = OperationText (ADD_PARTITION, ALTER_TABLE_RENAME, ...)",
             extra=("operation", "correlation_id", "source")),
    ),
    "DropTable": (
        Emit(op="retract", src="Table", fn=table_vertex, note="ProjectName.TableName (DROP_TABLE or lifecycle RECYCLE_TABLE)",
             extra=("name", "project", "operation")),
        Emit(op="change", src="Table", rel="drop", fn=table_change, note="ProjectName.TableName",
             extra=("operation", "correlation_id", "source")),
    ),
    "DescribeTable": (
        Emit(op="observe", src="Table", fn=table_vertex, note="ProjectName.TableName", extra=("name", "project")),
    ),
    "ReadTableData": (
        Emit(op="observe", src="Table", fn=table_vertex, note="ProjectName.TableName", extra=("name", "project", "operation")),
        Emit(op="assert", src="Job", rel="READS", dst="Table", fn=table_data_via_instance,
             note="Source INSTANCE: job:maxcompute:<CorrelationId> -> ProjectName.TableName",
             extra=("operation", "correlation_id")),
        Emit(op="assert", src="User", rel="DOWNLOADED", dst="Table", fn=table_data_via_tunnel,
             note="Source TUNNEL: actor -> ProjectName.TableName", extra=("operation", "correlation_id")),
    ),
    "ChangeTableData": (
        Emit(op="observe", src="Table", fn=table_vertex, note="ProjectName.TableName", extra=("name", "project", "operation")),
        Emit(op="assert", src="Job", rel="WRITES", dst="Table", fn=table_data_via_instance,
             note="Source INSTANCE: job:maxcompute:<CorrelationId> -> ProjectName.TableName",
             extra=("operation", "correlation_id")),
        Emit(op="assert", src="User", rel="UPLOADED", dst="Table", fn=table_data_via_tunnel,
             note="Source TUNNEL: actor -> ProjectName.TableName", extra=("operation", "correlation_id")),
    ),
    # privileges
    "GrantRole": _role_grant_rows("assert"),
    "RevokeRole": _role_grant_rows("retract"),
    "GrantACL": _acl_rows("assert"),
    "RevokeACL": _acl_rows("retract"),
    "GrantLabel": _label_grant_rows("assert"),
    "RevokeLabel": _label_grant_rows("retract"),
    "PutRolePolicy": (
        Emit(op="assert", src="Role", rel="CAN_ACCESS", dst="Table", fn=_policy("Table"),
             note="RoleName in ProjectName; Allow statements, Resource acs:odps:*:projects/<p>/tables/<t> "
                  "(no wildcards); one fact per Action (qualifier); Deny grants nothing",
             extra=("privileges", "policy_resource")),
        Emit(op="assert", src="Role", rel="CAN_ACCESS", dst="Project", fn=_policy("Project"),
             note="RoleName in ProjectName; Allow statements, Resource acs:odps:*:projects/<p>; one fact per Action",
             extra=("privileges", "policy_resource")),
        Emit(op="change", src="Role", rel="permission_change", fn=policy_role_change,
             note="RoleName in ProjectName", extra=("allow_actions", "deny_actions", "resources", "policy_error")),
        Emit(op="change", src="Table", rel="permission_change", fn=_policy_change("Table"),
             note="each table a policy statement names", extra=("role",)),
        Emit(op="change", src="Project", rel="permission_change", fn=_policy_change("Project"),
             note="each project a policy statement names", extra=("role",)),
    ),
    "SetProjectPolicy": (
        Emit(op="change", src="Project", rel="permission_change", fn=project_change, note="CurrentProject"),
    ),
    "SetTableLabel": (
        Emit(op="retract", src="Table", rel="HAS_LABEL", dst="Label", fn=table_label_clear,
             note="a set replaces: closes the table's labels (table from `SET LABEL n TO TABLE t(cols)` or ObjectName, "
                  "project from ProjectName/CurrentProject when present)"),
        Emit(op="assert", src="Table", rel="HAS_LABEL", dst="Label", fn=table_label_set,
             note="label:maxcompute:<n> from OperationText", extra=("label", "columns")),
        Emit(op="assert", src="Label", fn=label_vertex, note="label:maxcompute:<n>", extra=("name", "level")),
        Emit(op="change", src="Table", rel="permission_change", fn=table_label_change,
             note="the labelled table", extra=("label", "statement")),
    ),
    "SetUserLabel": (
        Emit(op="observe", src="User", fn=user_vertex, note="UserName", extra=("name",)),
        Emit(op="retract", src="User", rel="HAS_LABEL", dst="Label", fn=user_label_clear,
             note="a set replaces; only when OperationText `SET LABEL n TO USER x` gives the level (the seed has none)"),
        Emit(op="assert", src="User", rel="HAS_LABEL", dst="Label", fn=user_label_set,
             note="user from the statement (else UserName) -> label:maxcompute:<n>", extra=("label",)),
        Emit(op="assert", src="Label", fn=label_vertex, note="label:maxcompute:<n>", extra=("name", "level")),
        Emit(op="change", src="User", rel="permission_change", fn=user_label_change,
             note="the user whose label (clearance) was set", extra=("label",)),
    ),
    # projects
    "CreateProject": (
        Emit(op="assert", src="Project", fn=project_vertex, note="ProjectName", extra=("name", "state", "properties")),
        Emit(op="change", src="Project", rel="create", fn=project_change, note="ProjectName"),
    ),
    "UpdateProject": (
        Emit(op="observe", src="Project", fn=project_vertex, note="ProjectName; State FROZEN/AVAILABLE, Properties",
             extra=("name", "state", "properties")),
    ),
    "DeleteProject": (
        Emit(op="retract", src="Project", fn=project_vertex, note="ProjectName", extra=("name",)),
        Emit(op="change", src="Project", rel="project_deletion", fn=project_change, note="ProjectName"),
    ),
}
