"""MaxCompute audit events as ActionTrail delivers them (seed 002): the daily jobs of every node
(InsertJob + JobChange with the SQL, or ReadTableData/ChangeTableData for non-SQL jobs) and the
project administration (tables, users, roles, grants, labels, tunnel downloads)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

from lineage.generate import sqltext
from lineage.generate.ident import Ids
from lineage.generate.model import Intent, Person, Platform
from lineage.generate.plan import Day

ACCOUNT_ID = "1965501540000000"


def event(platform: Platform, ids: Ids, name: str, kind: str, moment: datetime, actor: Person,
          resources: dict[str, Any], data: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "eventId": ids.uuid().upper(), "acsRegion": "cn-hangzhou", "eventName": name, "eventType": kind,
        "eventTime": moment.strftime("%Y-%m-%dT%H:%M:%SZ"), "eventVersion": "1", "requestId": ids.uuid(),
        "serviceName": "MaxCompute", "sourceIpAddress": "47.100.XX.XX", "userAgent": "odpscmd 0.45",
        "userIdentity": {"accountId": ACCOUNT_ID, "principalId": actor.uid, "type": "ram-user",
                         "userName": actor.account},
        "referencedResources": resources, "additionalEventData": data, **extra,
    }


def _who(platform: Platform, intent: Intent, key: str = "actor") -> Person:
    return platform.people[intent.args[key]]


def _table_event(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    table = platform.table(intent.args["table"])
    operation = {"CreateTable": "CREATE_TABLE", "ChangeTable": "ALTER_TABLE_ADD_COLUMNS", "DropTable": "DROP_TABLE"}
    correlation = ids.digits(17) + "gsjgpv21"
    return event(platform, ids, intent.kind, "TableEvent", intent.time, _who(platform, intent), {"Table": [table.name]},
                 {"TableName": table.name, "ProjectName": table.project, "Source": "INSTANCE",
                  "CorrelationId": intent.args.get("job", correlation), "OperationText": operation[intent.kind]})


def _ddl_job(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    """The ad-hoc job behind a CreateTable / ChangeTable (``plan.ddl``): its SQL states the columns."""
    table, job = platform.table(intent.args["table"]), intent.args["job"]
    data = {"TaskName": f"console_query_task_{job}", "InstanceId": job, "TaskType": "SQL",
            "ProjectName": table.project, "OperationText": intent.args["sql"]}
    name = "InsertJob" if intent.kind == "ddl-start" else "JobChange"
    if name == "JobChange":
        data["Status"] = "Terminated"
    return event(platform, ids, name, "JobEvent", intent.time, _who(platform, intent), {"Instance": [job]}, data)


def _add_user(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    person = _who(platform, intent, "person")
    return event(platform, ids, "AddUser", "UserEvent", intent.time, _who(platform, intent), {"User": [person.account]},
                 {"UserName": person.account, "ProjectName": intent.args["project"],
                  "OperationText": f"add user {person.account};"})


def _create_role(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    role = intent.args["role"]
    return event(platform, ids, "CreateRole", "RoleEvent", intent.time, _who(platform, intent), {"Role": [role]},
                 {"RoleName": role, "ProjectName": intent.args["project"], "CurrentProject": intent.args["project"],
                  "OperationText": f"create role {role};"})


def _policy(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    project, role = intent.args["project"], intent.args["role"]
    resources = [f"acs:odps:*:projects/{project}/tables/{platform.table(t).name}" for t in intent.args["tables"]]
    policy = {"Version": "1", "Statement": [{"Effect": "Allow", "Action": ["odps:Select", "odps:Describe"],
                                             "Resource": resources}]}
    return event(platform, ids, "PutRolePolicy", "PrivilegeEvent", intent.time, _who(platform, intent), {"Role": [role]},
                 {"RoleName": role, "CurrentProject": project, "ProjectName": project, "OperationText": json.dumps(policy)})


def _acl(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    table, person = platform.table(intent.args["table"]), _who(platform, intent, "person")
    verb, word = ("grant", "to") if intent.kind == "GrantACL" else ("revoke", "from")
    return event(platform, ids, intent.kind, "PrivilegeEvent", intent.time, _who(platform, intent), {"User": [person.account]},
                 {"ObjectType": "TABLE", "ObjectName": table.name, "UserName": person.account,
                  "CurrentProject": table.project, "ProjectName": table.project,
                  "OperationText": f"{verb} select, describe on table {table.name} {word} user {person.account};"})


def _role_grant(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    project, role, _ = platform.roles[intent.args["role"]]
    person = _who(platform, intent, "person")
    verb, word = ("grant", "to") if intent.kind == "GrantRole" else ("revoke", "from")
    return event(platform, ids, intent.kind, "PrivilegeEvent", intent.time, _who(platform, intent), {"User": [person.account]},
                 {"ObjectType": "PROJECT", "CurrentProject": project, "ProjectName": project, "UserName": person.account,
                  "OperationText": f"{verb} {role} {word} {person.account};"})


def _set_label(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    table = platform.table(intent.args["table"])
    return event(platform, ids, "SetTableLabel", "PrivilegeEvent", intent.time, _who(platform, intent), {"Table": [table.name]},
                 {"ObjectType": "TABLE", "ObjectName": table.name, "ProjectName": table.project,
                  "CurrentProject": table.project, "OperationText": f"SET LABEL {intent.args['level']} TO TABLE {table.name};"})


def _grant_label(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    table, person = platform.table(intent.args["table"]), _who(platform, intent, "person")
    exp = f" WITH EXP {intent.args['days']}" if intent.args.get("days") else ""
    return event(platform, ids, "GrantLabel", "PrivilegeEvent", intent.time, _who(platform, intent), {"User": [person.account]},
                 {"ObjectType": "TABLE", "ObjectName": table.name, "UserName": person.account, "ProjectName": table.project,
                  "CurrentProject": table.project,
                  "OperationText": f"GRANT LABEL {intent.args['level']} ON TABLE {table.name} TO USER {person.account}{exp};"})


def _download(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    table, person = platform.table(intent.args["table"]), _who(platform, intent, "person")
    return event(platform, ids, "DownloadTable", "TunnelEvent", intent.time, person, {"Table": [table.name]},
                 {"TableName": table.name, "Partition": f"ds={intent.time - timedelta(days=1):%Y%m%d}",
                  "CurrentProject": table.project, "ProjectName": table.project, "SesssionId": ids.hex(30)})


RENDER: dict[str, Callable[[Platform, Ids, Intent], dict[str, Any]]] = {
    "CreateTable": _table_event, "ChangeTable": _table_event, "DropTable": _table_event,
    "ddl-start": _ddl_job, "ddl-end": _ddl_job,
    "AddUser": _add_user, "CreateRole": _create_role, "PutRolePolicy": _policy,
    "GrantACL": _acl, "RevokeACL": _acl, "GrantRole": _role_grant, "RevokeRole": _role_grant,
    "SetTableLabel": _set_label, "GrantLabel": _grant_label, "DownloadTable": _download,
}
"""Intent kinds this source renders -> renderer."""


def _table_data(platform: Platform, ids: Ids, name: str, moment: datetime, actor: Person, table_index: int,
                job: str, operation: str) -> dict[str, Any]:
    table = platform.table(table_index)
    return event(platform, ids, name, "TableEvent", moment, actor, {"Table": [table.name]},
                 {"TableName": table.name, "ProjectName": table.project, "CorrelationId": job, "Source": "INSTANCE",
                  "OperationText": operation})


def jobs(platform: Platform, ids: Ids, day: Day) -> Iterator[dict[str, Any]]:
    """Every run of every node: InsertJob at its start, JobChange at its end (Terminated or Failed);
    a non-SQL job shows the tables it read and wrote through ReadTableData / ChangeTableData."""
    for node_day in day.runs:
        node = platform.nodes[node_day.node]
        owner = platform.people[node.owner]
        project = platform.table(node.targets[0]).project
        text = sqltext.sql(platform, node)
        for attempt, run in enumerate(node_day.runs):
            common = {"TaskName": f"{node.name}_{run.begin:%Y%m%d}_{attempt}", "InstanceId": run.job,
                      "TaskType": "SQL" if text else ("DI" if not node.inputs else "MapReduce"),
                      "ProjectName": project, "SKYNET_ID": str(node.node_id), "SKYNET_TASKID": str(node_day.task_id),
                      "OperationText": text or f"jar -resources {node.name}.jar -classpath {node.name}.jar com.acme.Main;"}
            if not platform.job_settings:  # as ActionTrail documents a job: no scheduling settings
                del common["SKYNET_ID"], common["SKYNET_TASKID"]
            yield event(platform, ids, "InsertJob", "JobEvent", run.begin, owner, {"Instance": [run.job]}, common)
            if not text:
                for table in node.inputs:
                    yield _table_data(platform, ids, "ReadTableData", run.begin + timedelta(seconds=30), owner,
                                      table, run.job, "READ_TABLE")
                if run.ok:
                    for table in node.targets:
                        yield _table_data(platform, ids, "ChangeTableData", run.end - timedelta(seconds=10), owner,
                                          table, run.job, "DATA_INGESTION")
            if run.ok and platform.partition_events:  # as MaxCompute logs every partition a job writes (seed 002)
                for table in node.targets:
                    yield _table_data(platform, ids, "ChangeTable", run.end - timedelta(seconds=5), owner, table,
                                      run.job, "ADD_PARTITION")
            extra = {"errorCode": run.error[0], "errorMessage": run.error[1]} if run.error else {}
            yield event(platform, ids, "JobChange", "JobEvent", run.end, owner, {"Instance": [run.job]},
                        {**common, "Status": "Terminated" if run.ok else "Failed"}, **extra)


# ---------------------------------------------------------------------------------------------
# other services' events: a trail delivers every service's events into the same files
# ---------------------------------------------------------------------------------------------

FOREIGN_CALLS: tuple[tuple[str, str, str], ...] = (
    ("Ecs", "DescribeInstances", "ecs.aliyuncs.com"),
    ("Ecs", "RunInstances", "ecs.aliyuncs.com"),
    ("Oss", "GetObject", "oss.aliyuncs.com"),
    ("Ram", "ListUsers", "ram.aliyuncs.com"),
    ("Slb", "DescribeLoadBalancers", "slb.aliyuncs.com"),
    ("Rds", "DescribeDBInstances", "rds.aliyuncs.com"),
)
"""(serviceName, eventName, eventSource) of the other services' API calls a trail also records."""


def foreign_event(ids: Ids, event_time: str) -> dict[str, Any]:
    """An ActionTrail API-call event of another cloud service (same common fields as seed 002)."""
    service, name, source = FOREIGN_CALLS[ids.rng.randrange(len(FOREIGN_CALLS))]
    return {
        "eventId": ids.uuid().upper(), "acsRegion": "cn-hangzhou", "eventName": name, "eventType": "ApiCall",
        "eventTime": event_time, "eventVersion": "1", "requestId": ids.uuid(), "serviceName": service,
        "eventSource": source, "sourceIpAddress": "47.100.XX.XX", "userAgent": "AlibabaCloud (Linux) Java/1.8",
        "userIdentity": {"accountId": ACCOUNT_ID, "principalId": ids.digits(16), "type": "ram-user",
                         "userName": "ops-bot"},
        "apiVersion": "2014-05-26",
    }


class SharedTrail:
    """A MaxCompute file writer whose files also carry other services' events, ``share`` of all
    records (0.7: seven in ten), interleaved deterministically after MaxCompute's own."""

    def __init__(self, writer: Any, ids: Ids, share: float):
        self.writer, self.ids = writer, ids
        self.ratio = share / (1 - share)
        self.owed = 0.0

    def write(self, doc: dict[str, Any], kind: str) -> None:
        self.writer.write(doc, kind)
        self.owed += self.ratio
        while self.owed >= 1 - 1e-9:
            self.owed -= 1
            self.writer.write(foreign_event(self.ids, doc["eventTime"]), "foreign", foreign=True)

    def close(self) -> None:
        self.writer.close()
