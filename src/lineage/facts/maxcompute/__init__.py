"""MaxCompute ActionTrail audit events (seed 002) -> facts.

The table ``MAPPING`` is the dispatch: one row per fact an event kind yields, each with a small
helper reading the validated model (``lineage.events.maxcompute``). Who did it is
``userIdentity.userName`` (a MaxCompute account name), else ``principalId``.

The helpers live in ``helpers``. Grant/revoke/label statements (``OperationText``) are read by
``lineage.sql.security``. Table lineage of jobs comes from ``lineage.sql.lineage`` and only
from a job that finished successfully; a statement that cannot be parsed gives no edges (never guessed), only a
``sql_error`` property naming it -- the statements of the script that did parse keep theirs.
"""

from __future__ import annotations

from functools import partial

from lineage.analysis.rules import OPERATIONS, WRITE
from lineage.facts.core import Emit
from lineage.facts.maxcompute import columns
from lineage.facts.maxcompute.helpers import (
    OBJECT_LABELS,
    PRINCIPAL_LABELS,
    acl,
    acl_change,
    actor_id,
    failed,
    instance_downloaded,
    job_in_project,
    job_locations,
    job_submitted,
    job_tables,
    label_grants,
    label_vertex,
    node_locations,
    node_tables,
    policy,
    policy_change,
    policy_role_change,
    project_change,
    project_vertex,
    requester,
    role_grant_change,
    role_grants,
    role_in_project,
    role_vertex,
    table_change,
    table_data_via,
    table_operation,
    table_written,
    table_in_project,
    table_label_change,
    table_label_clear,
    table_label_set,
    table_vertex,
    tunnel_transfer,
    user_label_change,
    user_label_clear,
    user_label_set,
    user_membership,
    user_vertex,
)

__all__ = ["MAPPING", "SOURCE", "actor_id", "failed"]

SOURCE = "maxcompute"

# --------------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------------

_JOB_PROPS = ("name", "status", "task_name", "task_type", "project", "sql", "skynet_id", "skynet_taskid", "error_code",
              "error_message")
_ACL_NOTE = "grantee from OperationText (`to role r` -> Role in ProjectName, else User; UserName if none)"


def _acl_rows(op: str) -> tuple[Emit, ...]:
    """GrantACL/RevokeACL: every (principal label, object label) pair, then the object's Change."""
    edges = tuple(
        Emit(op=op, src=principal, rel="CAN_ACCESS", dst=obj, fn=partial(acl, principal_label=principal, object_label=obj),
             note=f"{_ACL_NOTE}; {obj} from `on {obj.lower()} <name>` or ObjectType/ObjectName "
                  f"(unqualified: ProjectName); one fact per privilege (qualifier)",
             extra=("privileges", "columns"))
        for principal in PRINCIPAL_LABELS for obj in OBJECT_LABELS.values())
    changes = tuple(
        Emit(op="change", src=obj, rel="permission_change", fn=partial(acl_change, object_label=obj),
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
        Emit(op="change", src="Table", rel="permission_change", fn=partial(acl_change, object_label="Table"),
             note="the table of the label grant", extra=("label", "grantees", "statement")),
    )


_COLUMN_ROWS = (  # a finished SQL job's columns (lineage.facts.maxcompute.columns); the retract comes first
    Emit(op="retract", src="Table", rel="HAS_COLUMN", dst="Column", fn=columns.schema_cleared,
         note="a table the SQL (re)creates without IF NOT EXISTS, or drops: every column it had closes"),
    Emit(op="assert", src="Table", rel="HAS_COLUMN", dst="Column", fn=columns.schema_columns,
         note="columns the SQL's DDL leaves the table with: CREATE TABLE (PARTITIONED BY too), CTAS outputs, "
              "ALTER TABLE ADD COLUMN(S), CHANGE COLUMN's new name", extra=("position", "partition")),
    Emit(op="assert", src="Column", fn=columns.column_vertices, note="column:maxcompute:<project>.<table>.<column>",
         extra=("name", "type", "table", "position", "partition")),
    Emit(op="retract", src="Table", rel="HAS_COLUMN", dst="Column", fn=columns.columns_dropped,
         note="ALTER TABLE DROP COLUMN(S), the old name of CHANGE/RENAME COLUMN"),
    Emit(op="retract", src="Column", fn=columns.dropped_vertices, note="the dropped column", extra=("name", "table")),
    Emit(op="change", src="Table", rel="field_removal", fn=columns.field_removal,
         note="the table whose columns were dropped or renamed", extra=("columns", "statement")),
    Emit(op="change", src="Column", rel="column_type_change", fn=columns.type_changed,
         note="ALTER TABLE CHANGE [COLUMN] c c <type>", extra=("type", "table")),
    Emit(op="pairs", src="Job", fn=columns.column_pairs,
         note="the run's column lineage (lineage.sql.columns), folded as (Column)-[:FEEDS {via: the job's node "
              "(definition, SKYNET_ID) or else the job, transformations}]->"
              "(Column) per pair, qualifier direct/indirect, with the script's own DDL; a job needing another table's "
              "columns has none here: the build resolves it with the graph's (lineage.graph.resolve)",
         extra=("pairs", "definition")),
)

def _operation_rows(default: str) -> tuple[Emit, ...]:
    """A ChangeTable / ChangeTableData by its OperationText (``lineage.analysis.rules.OPERATIONS``; a
    word not listed is ``default``): a write asserts who wrote the table, anything else is a Change
    of its kind on the table."""
    kinds = sorted({o.kind for o in OPERATIONS if o.kind != WRITE} | ({default} - {WRITE}))
    words = {k: ", ".join(o.operation for o in OPERATIONS if o.kind == k) for k in (*kinds, WRITE)}
    unlisted = "; any other word" if default == WRITE else ""
    return (
        Emit(op="assert", src="Job", rel="WRITES", dst="Table", fn=partial(table_written, source="INSTANCE", default=default),
             note=f"a write ({words[WRITE]}{unlisted}), Source INSTANCE: job:maxcompute:<CorrelationId> -> "
                  "ProjectName.TableName; no Change", extra=("operation", "correlation_id")),
        Emit(op="assert", src="User", rel="UPLOADED", dst="Table", fn=partial(table_written, source="TUNNEL", default=default),
             note="a write, Source TUNNEL: actor -> ProjectName.TableName; no Change", extra=("operation", "correlation_id")),
        *(Emit(op="change", src="Table", rel=kind, fn=partial(table_operation, kind=kind, default=default),
               note=f"ProjectName.TableName; OperationText {words[kind]}{'; any other word' if kind == default else ''}",
               extra=("operation", "correlation_id", "source"))
          for kind in kinds),
    )


_KINDS: dict[str, tuple[Emit, ...]] = {
    # jobs
    "InsertJob": (
        Emit(op="assert", src="Job", fn=job_submitted, note="job:maxcompute:<InstanceId>; status submitted (or its Status), sql = OperationText",
             extra=_JOB_PROPS),
        Emit(op="assert", src="Job", rel="IN_PROJECT", dst="Project", fn=job_in_project, note="InstanceId -> ProjectName"),
    ),
    "JobChange": (
        Emit(op="observe", src="Job", fn=columns.job_status,
             note="InstanceId; Status; sql_error when the SQL does not parse; a finished SQL job's column_lineage "
                  "complete/partial and column_lineage_reason (a schema unknown at extraction, unresolved columns, a "
                  "table pair without a column pair); column_order: the tables it takes by column position (SELECT *, "
                  "INSERT without a column list)",
             extra=(*_JOB_PROPS, "sql_error", "column_lineage", "column_lineage_reason", columns.UNKNOWN_TABLES,
                    columns.COLUMN_ORDER)),
        Emit(op="assert", src="Job", rel="READS", dst="Table", fn=partial(job_tables, which="reads"),
             note="only a finished job (Status Terminated/Success): tables read by OperationText (lineage.sql, "
                  "default ProjectName); definition = node:dataworks:<SKYNET_ID> when a node submitted it (FEEDS via)",
             extra=("instance_id", "definition")),
        Emit(op="assert", src="Job", rel="WRITES", dst="Table", fn=partial(job_tables, which="writes"),
             note="only a finished job: tables written by OperationText; definition as READS", extra=("instance_id", "definition")),
        Emit(op="assert", src="Node", rel="READS", dst="Table", fn=partial(node_tables, which="reads"),
             note="DataWorks node SKYNET_ID (optional extra key) of a finished job: the job's read tables",
             extra=("instance_id", "skynet_taskid")),
        Emit(op="assert", src="Node", rel="WRITES", dst="Table", fn=partial(node_tables, which="writes"),
             note="DataWorks node SKYNET_ID of a finished job: the job's written tables",
             extra=("instance_id", "skynet_taskid")),
        Emit(op="assert", src="Job", rel="READS", dst="Location", fn=partial(job_locations, which="reads"),
             note="only a finished job: storage paths read (Spark format.path reads such as parquet.oss-path, LOCATION of an external "
                  "table, LOAD ... FROM LOCATION), location:<scheme>://<bucket>/<path>; definition as READS",
             extra=("instance_id", "definition")),
        Emit(op="assert", src="Job", rel="WRITES", dst="Location", fn=partial(job_locations, which="writes"),
             note="only a finished job: storage paths written (UNLOAD ... INTO LOCATION, INSERT OVERWRITE DIRECTORY); "
                  "definition as READS",
             extra=("instance_id", "definition")),
        Emit(op="assert", src="Node", rel="READS", dst="Location", fn=partial(node_locations, which="reads"),
             note="DataWorks node SKYNET_ID of a finished job: the job's read paths",
             extra=("instance_id", "skynet_taskid")),
        Emit(op="assert", src="Node", rel="WRITES", dst="Location", fn=partial(node_locations, which="writes"),
             note="DataWorks node SKYNET_ID of a finished job: the job's written paths",
             extra=("instance_id", "skynet_taskid")),
        *_COLUMN_ROWS,
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
        *_operation_rows("schema_change"),
    ),
    "DropTable": (
        Emit(op="retract", src="Table", rel="HAS_COLUMN", dst="Column", fn=columns.table_dropped,
             note="a dropped table's columns close (wildcard retract)"),
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
        Emit(op="assert", src="Job", rel="READS", dst="Table", fn=partial(table_data_via, source="INSTANCE"),
             note="Source INSTANCE: job:maxcompute:<CorrelationId> -> ProjectName.TableName",
             extra=("operation", "correlation_id")),
        Emit(op="assert", src="User", rel="DOWNLOADED", dst="Table", fn=partial(table_data_via, source="TUNNEL"),
             note="Source TUNNEL: actor -> ProjectName.TableName", extra=("operation", "correlation_id")),
    ),
    "ChangeTableData": (
        Emit(op="observe", src="Table", fn=table_vertex, note="ProjectName.TableName", extra=("name", "project", "operation")),
        *_operation_rows(WRITE),
    ),
    # privileges
    "GrantRole": _role_grant_rows("assert"),
    "RevokeRole": _role_grant_rows("retract"),
    "GrantACL": _acl_rows("assert"),
    "RevokeACL": _acl_rows("retract"),
    "GrantLabel": _label_grant_rows("assert"),
    "RevokeLabel": _label_grant_rows("retract"),
    "PutRolePolicy": (
        Emit(op="assert", src="Role", rel="CAN_ACCESS", dst="Table", fn=partial(policy, object_label="Table"),
             note="RoleName in ProjectName; Allow statements, Resource acs:odps:*:projects/<p>/tables/<t> "
                  "(no wildcards); one fact per Action (qualifier); Deny grants nothing",
             extra=("privileges", "policy_resource")),
        Emit(op="assert", src="Role", rel="CAN_ACCESS", dst="Project", fn=partial(policy, object_label="Project"),
             note="RoleName in ProjectName; Allow statements, Resource acs:odps:*:projects/<p>; one fact per Action",
             extra=("privileges", "policy_resource")),
        Emit(op="change", src="Role", rel="permission_change", fn=policy_role_change,
             note="RoleName in ProjectName", extra=("allow_actions", "deny_actions", "resources", "policy_error")),
        Emit(op="change", src="Table", rel="permission_change", fn=partial(policy_change, object_label="Table"),
             note="each table a policy statement names", extra=("role",)),
        Emit(op="change", src="Project", rel="permission_change", fn=partial(policy_change, object_label="Project"),
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

REQUESTER = Emit(op="observe", src="User", fn=requester,
                 note="every kind: userIdentity.principalId named by the userName beside it "
                      "(graph.identities merges that account into the uid)", extra=("name",))

MAPPING: dict[str, tuple[Emit, ...]] = {kind: (*emits, REQUESTER) for kind, emits in _KINDS.items()}
"""Every kind's own rows, then the requester's identity."""
