"""A generated, deterministic multi-platform event set: the demo's input and a test corpus.

One small retail data platform seen through all four sources: DataWorks nodes that run
MaxCompute SQL every day, the MaxCompute audit trail of those jobs and of grants, Dataphin
permission approvals, and DataHub tags/owners/terms. The same tables and users are named by
several platforms, as in real life. ``days`` scales the volume (jobs and instances per day);
a few deliberately broken records exercise the quarantine. Files are written the way the
platforms deliver them: gzipped JSON Lines (SLS/EventBridge exports), JSON arrays (ActionTrail
to OSS), plain JSON Lines.
"""

from __future__ import annotations

import gzip
import json
import random
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator

START = datetime(2024, 7, 1, 2, 0, tzinfo=timezone.utc)
PROJECT = "retail_dw"
WORKSPACE_ID = 41235
TENANT_ID = 283780010656
OWNER_UID = "1912232488744735"
ANALYST_UID = "1320876710332592"
ACCOUNTS = {  # MaxCompute account names of the people above, and a contractor
    OWNER_UID: "ALIYUN$dw_owner@retail.example",
    ANALYST_UID: "RAM$analyst@retail.example:sub",
    "contractor": "RAM$contractor@retail.example:sub",
}

# node id, node name, target table, source tables (the daily SQL of each node)
PIPELINE: tuple[tuple[int, str, str, tuple[str, ...]], ...] = (
    (700100001, "ods_orders_sync", "ods_orders", ()),
    (700100002, "ods_users_sync", "ods_users", ()),
    (700100003, "dwd_orders", "dwd_orders", ("ods_orders", "ods_users")),
    (700100004, "dws_sales_daily", "dws_sales_daily", ("dwd_orders",)),
    (700100005, "ads_sales_report", "ads_sales_report", ("dws_sales_daily", "dim_region")),
)
TABLES = ("ods_orders", "ods_users", "dim_region", "dwd_orders", "dws_sales_daily", "ads_sales_report")
BASELINE_ID = 117801853


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _sql(target: str, sources: tuple[str, ...]) -> str:
    if not sources:
        return f"INSERT OVERWRITE TABLE {PROJECT}.{target} PARTITION (ds='${{bizdate}}') SELECT * FROM {PROJECT}.{target}_src;"
    joined = " JOIN ".join(f"{PROJECT}.{s} t{i}" + (f" ON t0.id = t{i}.id" if i else "") for i, s in enumerate(sources))
    return f"INSERT OVERWRITE TABLE {PROJECT}.{target} PARTITION (ds='${{bizdate}}') SELECT t0.* FROM {joined};"


class _Ids:
    """Deterministic UUID-like ids."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def uuid(self) -> str:
        h = "%032x" % self.rng.getrandbits(128)
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"

    def instance(self, moment: datetime) -> str:
        return moment.strftime("%Y%m%d%H%M%S") + "%03d" % self.rng.randrange(1000) + "gsjgpv21"


def dataworks_events(days: int, ids: _Ids) -> Iterator[dict[str, Any]]:
    """EventBridge CloudEvents: node creation, then daily instance status changes."""

    def cloudevent(event_type: str, code: str, moment: datetime, data: dict[str, Any]) -> dict[str, Any]:
        return {
            "datacontenttype": "application/json;charset=utf-8",
            "data": {"tenantId": TENANT_ID, "eventCode": code, **data},
            "id": ids.uuid(), "source": "acs.dataworks", "specversion": "1.0", "subject": "",
            "time": moment.isoformat(), "type": event_type, "aliyunaccountid": "123456789098",
            "aliyunregionid": "cn-hangzhou", "aliyuneventbusname": "default",
        }

    for node_id, name, _target, _sources in PIPELINE:
        moment = START - timedelta(days=1)
        yield cloudevent("dataworks:NodeChange:NodeChangeCreated", "node-change-created", moment, {
            "nodeName": name, "programType": "ODPS_SQL", "cronExpress": "00 00 02 * * ?",
            "schedulerType": "NORMAL", "ownerId": OWNER_UID, "priority": 1, "baselineId": BASELINE_ID,
            "operator": OWNER_UID, "repeatability": True, "modifyTime": _ms(moment), "createTime": _ms(moment),
            "nodeId": node_id, "projectId": WORKSPACE_ID,
        })
    for day in range(days):
        dag_id = 446555330 + day
        for step, (node_id, _name, _target, _sources) in enumerate(PIPELINE):
            begin = START + timedelta(days=day, minutes=10 * step)
            task_id = 4532688169 + day * 100 + step
            failing = day == days - 1 and node_id == 700100004  # the last day's dws_sales_daily run fails
            for status, offset in ((4, 0), (5 if failing else 6, 8)):  # running, then success (6) or failure (5)
                moment = begin + timedelta(minutes=offset)
                yield cloudevent("dataworks:InstanceStatusChanges:InstanceStatusChanges", "instance-status-changes", moment, {
                    "beginWaitTimeTime": _ms(begin), "dagId": dag_id, "dagType": 0, "taskType": 0,
                    "modifyTime": _ms(moment), "createTime": _ms(begin), "appId": WORKSPACE_ID, "opCode": 31,
                    "flowId": 1, "nodeId": node_id, "beginWaitResTime": _ms(begin), "taskId": task_id, "status": status,
                })


def maxcompute_events(days: int, ids: _Ids) -> Iterator[dict[str, Any]]:
    """ActionTrail records: tables, grants, and the daily jobs' InsertJob/JobChange pairs."""

    def event(name: str, kind: str, moment: datetime, user: str, resources: dict[str, Any], data: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {
            "eventId": ids.uuid(), "acsRegion": "cn-hangzhou", "eventName": name, "eventType": kind,
            "eventTime": moment.strftime("%Y-%m-%dT%H:%M:%SZ"), "eventVersion": "1", "requestId": ids.uuid(),
            "serviceName": "MaxCompute", "sourceIpAddress": "47.100.XX.XX", "userAgent": "odpscmd 0.45",
            "userIdentity": {"accountId": "196550154****", "principalId": user, "type": "ram-user", "userName": ACCOUNTS.get(user, user)},
            "referencedResources": resources, "additionalEventData": {"ProjectName": PROJECT, **data}, **extra,
        }

    setup = START - timedelta(days=2)
    for table in TABLES:
        yield event("CreateTable", "TableEvent", setup, OWNER_UID, {"Table": [table]},
                    {"TableName": table, "CorrelationId": ids.instance(setup), "Source": "INSTANCE", "OperationText": "CREATE_TABLE"})
    for uid in (ANALYST_UID, "contractor"):
        account = ACCOUNTS[uid]
        yield event("AddUser", "UserEvent", setup, OWNER_UID, {"User": [account]},
                    {"UserName": account, "OperationText": f"add user {account};"})
    analyst = ACCOUNTS[ANALYST_UID]
    yield event("GrantACL", "PrivilegeEvent", setup, OWNER_UID, {"User": [analyst]}, {
        "ObjectType": "TABLE", "ObjectName": "ads_sales_report", "UserName": analyst, "CurrentProject": PROJECT,
        "OperationText": f"grant select on table ads_sales_report to {analyst};"})
    yield event("GrantRole", "PrivilegeEvent", setup, OWNER_UID, {"User": [ACCOUNTS["contractor"]]}, {
        "ObjectType": "PROJECT", "CurrentProject": PROJECT, "UserName": ACCOUNTS["contractor"],
        "OperationText": f"grant role_etl_reader to {ACCOUNTS['contractor']};"})
    backup = "tmp_orders_backup"
    yield event("CreateTable", "TableEvent", setup, OWNER_UID, {"Table": [backup]},
                {"TableName": backup, "Source": "INSTANCE", "OperationText": "CREATE_TABLE"})
    yield event("GrantACL", "PrivilegeEvent", setup, OWNER_UID, {"User": [ACCOUNTS["contractor"]]}, {
        "ObjectType": "TABLE", "ObjectName": backup, "UserName": ACCOUNTS["contractor"], "CurrentProject": PROJECT,
        "OperationText": f"grant select on table {backup} to user {ACCOUNTS['contractor']};"})
    yield event("DropTable", "TableEvent", START + timedelta(days=min(1, days - 1), hours=9), OWNER_UID, {"Table": [backup]},
                {"TableName": backup, "Source": "INSTANCE", "OperationText": "DROP_TABLE"})
    yield event("ChangeTable", "TableEvent", START + timedelta(days=(days - 1) // 2, hours=10), OWNER_UID,
                {"Table": ["dwd_orders"]}, {"TableName": "dwd_orders", "Source": "INSTANCE", "OperationText": "ALTER_TABLE_ADD_COLUMNS"})
    yield event("RevokeRole", "PrivilegeEvent", START + timedelta(days=days - 1, hours=12), OWNER_UID,
                {"User": [ACCOUNTS["contractor"]]}, {
                    "ObjectType": "PROJECT", "CurrentProject": PROJECT, "UserName": ACCOUNTS["contractor"],
                    "OperationText": f"revoke role_etl_reader from {ACCOUNTS['contractor']};"})
    yield event("PutRolePolicy", "PrivilegeEvent", setup, OWNER_UID, {"Role": ["role_etl_reader"]}, {
        "RoleName": "role_etl_reader", "CurrentProject": PROJECT,
        "OperationText": json.dumps({"Version": "1", "Statement": [{"Effect": "Allow", "Action": ["odps:Select"],
                                     "Resource": [f"acs:odps:*:projects/{PROJECT}/tables/dwd_orders"]}]})})
    for day in range(days):
        for step, (node_id, name, target, sources) in enumerate(PIPELINE):
            begin = START + timedelta(days=day, minutes=10 * step, seconds=30)
            instance = ids.instance(begin)
            common = {"TaskName": f"{name}_{begin:%Y%m%d}", "InstanceId": instance, "TaskType": "SQL",
                      "OperationText": _sql(target, sources),
                      # DataWorks-scheduled jobs carry their node and instance ids in the job settings
                      "SKYNET_ID": str(node_id), "SKYNET_TASKID": str(4532688169 + day * 100 + step)}
            yield event("InsertJob", "JobEvent", begin, OWNER_UID, {"Instance": [instance]}, common)
            failed = day == days - 1 and target == "dws_sales_daily"  # the last day's run fails
            done = {**common, "Status": "Failed" if failed else "Terminated"}
            extra = {"errorCode": "ODPS-0130071", "errorMessage": "Semantic analysis exception"} if failed else {}
            yield event("JobChange", "JobEvent", begin + timedelta(minutes=5), OWNER_UID, {"Instance": [instance]}, done, **extra)


def dataphin_events(days: int, ids: _Ids) -> Iterator[dict[str, Any]]:
    """Audit log records of a permission request, approval and later return."""
    moments = (START + timedelta(hours=3), START + timedelta(hours=4), START + timedelta(days=max(days - 1, 0), hours=5))
    names = ("ApplyPrivilege", "ApprovePrivilege", "ReturnPermission")
    users = ("bob:300010002:300001001:1234567890123457", "alice:300010001:300001001:1234567890123456",
             "bob:300010002:300001001:1234567890123457")
    for moment, name, user in zip(moments, names, users):
        yield {
            "log_time": moment.strftime("%Y-%m-%d %H:%M:%S"), "date": moment.strftime("%Y-%m-%d"),
            "time": moment.strftime("%H:%M:%S.000"), "event_id": ids.uuid().upper(), "event_name": name,
            "event_source": f"http://cn-hangzhou-dataphin.aliyun.com/api/permission/{name}", "event_status": "SUCCESS",
            "event_version": "N/A", "user_identity": user, "source_ip": "203.0.113.7", "trace_id": ids.uuid().replace("-", ""),
            "span_id": "0", "resource_id": f"{PROJECT}.ods_users", "resource_name": "ods_users", "resource_type": "Table",
            "region": "cn-hangzhou", "tenant_id": "300001001",
            "request_parameter_json": json.dumps({"objectType": "TABLE", "objectName": f"{PROJECT}.ods_users",
                                                  "privileges": ["SELECT"], "grantee": "300010002"}),
        }


def datahub_events(ids: _Ids) -> Iterator[dict[str, Any]]:
    """Entity change events: PII tag, owner and glossary term on the MaxCompute tables."""
    del ids

    def urn(table: str) -> str:
        return f"urn:li:dataset:(urn:li:dataPlatform:maxcompute,{PROJECT}.{table},PROD)"

    moment = _ms(START - timedelta(hours=12))
    stamp = {"actor": "urn:li:corpuser:data.steward", "time": moment}
    yield {"entityUrn": urn("ods_users"), "entityType": "dataset", "category": "TAG", "operation": "ADD",
           "modifier": "urn:li:tag:PII", "parameters": {"tagUrn": "urn:li:tag:PII"}, "auditStamp": stamp}
    yield {"entityUrn": urn("ods_users"), "entityType": "dataset", "category": "GLOSSARY_TERM", "operation": "ADD",
           "modifier": "urn:li:glossaryTerm:CustomerData", "parameters": {"termUrn": "urn:li:glossaryTerm:CustomerData"},
           "auditStamp": stamp}
    for table in ("dwd_orders", "ads_sales_report"):
        yield {"entityUrn": urn(table), "entityType": "dataset", "category": "OWNER", "operation": "ADD",
               "modifier": "urn:li:corpuser:dw_owner",
               "parameters": {"ownerUrn": "urn:li:corpuser:dw_owner", "ownerType": "TECHNICAL_OWNER"}, "auditStamp": stamp}


ALIASES = f"""# one person, several platforms: the DataWorks UID is the canonical identity
alias,canonical
user:maxcompute:{ACCOUNTS[OWNER_UID].lower()},user:aliyun:{OWNER_UID}
user:datahub:dw_owner,user:aliyun:{OWNER_UID}
user:maxcompute:{ACCOUNTS[ANALYST_UID].lower()},user:aliyun:{ANALYST_UID}
"""
"""The demo's identity alias file (written to WAREHOUSE/aliases.csv)."""

BROKEN_LINES = (
    '{"eventId": "broken-1", "eventName": "InsertJob", "eventType": "JobEvent", "serviceName": "MaxCompute"',  # truncated
    "this line is not JSON",
)


def write_samples(out: str | Path, days: int = 7, seed: int = 7) -> list[Path]:
    """Write the sample event files under ``out`` and return their paths (idempotent)."""
    ids = _Ids(random.Random(seed))
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    written = []

    def jsonl_gz(name: str, docs: Iterator[dict[str, Any]]) -> None:
        path = root / name
        with gzip.GzipFile(path, "wb", mtime=0) as handle:
            for doc in docs:
                handle.write((json.dumps(doc, ensure_ascii=False) + "\n").encode())
        written.append(path)

    def write(name: str, text: str) -> None:
        path = root / name
        path.write_text(text)
        written.append(path)

    jsonl_gz("dataworks-eventbridge.jsonl.gz", dataworks_events(days, ids))
    write("maxcompute-actiontrail.json", json.dumps(list(maxcompute_events(days, ids)), indent=1))
    write("dataphin-audit.jsonl", "".join(json.dumps(d) + "\n" for d in dataphin_events(days, ids)))
    write("datahub-ece.jsonl", "".join(json.dumps(d) + "\n" for d in datahub_events(ids)))
    domain = {"entityUrn": f"urn:li:dataset:(urn:li:dataPlatform:maxcompute,{PROJECT}.ads_sales_report,PROD)",
              "entityType": "dataset", "category": "DOMAIN", "operation": "ADD", "modifier": "urn:li:domain:sales",
              "parameters": {"domainUrn": "urn:li:domain:sales"},
              "auditStamp": {"actor": "urn:li:corpuser:data.steward", "time": _ms(START)}}
    write("mixed-with-broken.jsonl", "\n".join([json.dumps(domain), *BROKEN_LINES]) + "\n")
    return written
