"""DataWorks OpenEvent messages, in the two envelopes the platform delivers them in.

Scheduling, quality and approval events arrive through EventBridge as CloudEvents
(``{type, id, time, data}``); upload/download events are extension points delivered to a
Function Compute handler (``{eventType, messageId, messageBody}``). Shapes follow seed 000's
samples (field names, epoch-millisecond times, the numeric ids).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

from lineage.generate.ident import Ids
from lineage.generate.model import WORKSPACES, Intent, Platform
from lineage.generate.plan import Day

TENANT_ID = 283780010656
ACCOUNT = "1234567890987654"
TYPES = {
    "node-change-created": "dataworks:NodeChange:NodeChangeCreated",
    "node-change-updated": "dataworks:NodeChange:NodeChangeUpdated",
    "node-change-deleted": "dataworks:NodeChange:NodeChangeDeleted",
    "instance-status-changes": "dataworks:InstanceStatusChanges:InstanceStatusChanges",
    "dag-status-changes": "dataworks:DagStatusChanges:DagStatusChanges",
    "rerun-instance": "dataworks:InstanceChange:RerunInstance",
    "workbench-monitor-alert": "dataworks:MonitorAlert:WorkbenchMonitorAlert",
    "approval-change-finished": "dataworks:ApprovalChange:ApprovalChangeFinished",
    "dqc-check-finished-event": "dataworks:DqcCheck:DqcCheckFinishedEvent",
    "batch-create-data-quality-rules": "dataworks:DataQuality:BatchCreateDataQualityRules",
}
"""EventBridge ``type`` per event code."""
FC_KINDS = {"download-resources-execute": "resources-download", "upload-data-to-table": "resources-upload"}
"""Event codes delivered as Function Compute extension messages, with their category."""


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def cloudevent(ids: Ids, code: str, moment: datetime, data: dict[str, Any]) -> dict[str, Any]:
    return {
        "datacontenttype": "application/json;charset=utf-8",
        "data": {**data, "eventCode": code, "tenantId": TENANT_ID},
        "id": ids.uuid(), "source": "acs.dataworks", "specversion": "1.0", "subject": "",
        "time": moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z", "type": TYPES[code],
        "aliyunaccountid": ACCOUNT, "aliyunpublishtime": (moment + timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
        "aliyunregionid": "cn-hangzhou", "aliyuneventbusname": "default",
    }


def fc_message(ids: Ids, code: str, data: dict[str, Any]) -> dict[str, Any]:
    return {"blockBusiness": False, "eventCategoryType": FC_KINDS[code], "eventType": code,
            "extensionBizId": f"job_{ids.digits(19)}", "messageBody": {**data, "eventCode": code, "tenantId": TENANT_ID},
            "messageId": ids.uuid()}


def _node_body(platform: Platform, n: int, moment: datetime, actor: int) -> dict[str, Any]:
    node = platform.nodes[n]
    table = platform.table(node.targets[0])
    program = "ODPS_SQL" if node.kind != "nosql" else ("DI" if table.layer == "ods" else "ODPS_MR")
    body = {
        "nodeName": node.name, "programType": program, "cronExpress": f"00 {node.minute % 60:02d} {node.minute // 60:02d} * * ?",
        "schedulerType": "NORMAL", "ownerId": platform.people[node.owner].uid, "priority": 1,
        "operator": platform.people[actor].uid, "repeatability": True, "modifyTime": _ms(moment),
        "createTime": _ms(platform.day(0)), "datasource": "odps_first", "nodeId": node.node_id,
        "projectId": WORKSPACES[table.project],
    }
    if node.baseline is not None:
        body["baselineId"] = node.baseline
    return body


def _node_change(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    return cloudevent(ids, intent.kind, intent.time,
                      _node_body(platform, intent.args["node"], intent.time, intent.args["actor"]))


def _table_guid(platform: Platform, table: int) -> str:
    return f"odps.{platform.table(table).qualified}"


def _rules(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    table = platform.table(intent.args["table"])
    rules = [{"id": rule, "name": f"{table.name} row count > 0", "enabled": True, "severity": "High",
              "description": "partition must not be empty", "templateCode": "system:table:table_count:fixed:0",
              "samplingConfig": {"metric": "count"},
              "checkingConfig": {"type": "fixed", "thresholds": {"expected": {"expression": "$checkValue > 0"},
                                                                  "critical": {"expression": "$checkValue <= 0"}}}}
             for rule in intent.args["rules"]]
    return cloudevent(ids, intent.kind, intent.time, {
        "projectId": WORKSPACES[table.project], "operator": platform.people[intent.args["actor"]].uid,
        "operationTime": _ms(intent.time), "dataQualityTaskId": intent.args["rules"][0],
        "target": {"databaseType": "maxcompute", "tableGuid": _table_guid(platform, table.index)}, "rules": rules})


def _check(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    table = platform.table(intent.args["table"])
    biz = intent.time - timedelta(days=1)
    return cloudevent(ids, intent.kind, intent.time, {
        "projectId": WORKSPACES[table.project], "id": ids.digits(9), "taskId": ids.hex(40),
        "entityId": 1_560_000 + table.index, "ruleId": intent.args["rule"], "property": "-",
        "bizdate": biz.strftime("%Y-%m-%d 00:00:00"), "dateType": "YMD",
        "actualExpression": f"ds={biz:%Y%m%d}", "matchExpression": "ds=$[yyyymmdd]", "blockType": 1,
        "checkResult": intent.args["result"], "checkResultStatus": intent.args["result"], "methodName": "table_count",
        "beginTime": intent.time.strftime("%Y-%m-%d %H:%M:%S"), "endTime": intent.time.strftime("%Y-%m-%d %H:%M:%S"),
        "externalType": "CWF2", "externalId": "triggerBySchedule", "projectName": table.project,
        "tableName": table.name, "templateId": 47, "ruleName": f"{table.name} row count > 0"})


def _alert(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    node = platform.nodes[intent.args["node"]]
    return cloudevent(ids, intent.kind, intent.time, {
        "alarmType": "SLA_ALERT", "baselineId": intent.args["baseline"],
        "baselineName": platform.baselines[intent.args["baseline"]], "baselineStatus": 3,
        "bizDate": _ms(intent.time.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)),
        "inGroupId": 1, "nodeId": node.node_id, "projectId": WORKSPACES[platform.table(node.targets[0]).project],
        "taskId": intent.args["task_id"]})


def _approval(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    table = platform.table(intent.args["table"])
    approver = platform.people[intent.args["approver"]]
    if "guest" in intent.args:  # a partner account: the owner applies for it, granteeName its only name
        guest = platform.guests[intent.args["guest"]]
        applicant, grantee = approver, (guest.uid, guest.grantee_name)
    else:
        applicant = platform.people[intent.args["person"]]
        grantee = (applicant.uid, applicant.account)
    until = intent.time + timedelta(days=intent.args["days"])
    workspace = WORKSPACES[table.project]
    return cloudevent(ids, intent.kind, intent.time, {
        "appId": workspace, "assignee": approver.uid, "assigneeName": approver.login, "comments": "ok",
        "createTime": _ms(intent.time - timedelta(hours=2)), "eventType": "approval",
        "process": {
            "applicant": applicant.uid, "applicantName": applicant.login,
            "approvalContent": {
                "applyPeriod": str(_ms(until)), "applyReason": "analysis",
                "arrayData": [{"objectType": "TABLE", "odpsTable": table.name, "envType": 1,
                               "projectGuid": f"odps.{table.project}", "objectGuid": _table_guid(platform, table.index),
                               "objectName": table.name, "odpsProject": table.project, "projectName": table.project,
                               "actions": ["Select", "Describe"], "projectId": workspace, "workspaceId": str(workspace)}],
                "contentType": "application/json",
                "granteeAccounts": [{"granteeId": grantee[0], "granteeTypeSub": 103, "granteeType": 1,
                                     "granteeName": grantee[1]}],
                "odpsProjectName": table.project, "projectEnv": "1", "resourceSummary": table.name,
                "tenantId": TENANT_ID, "workspaceId": workspace},
            "assignmentCategory": "MaxCompute", "createTime": _ms(intent.time - timedelta(hours=2)),
            "processId": str(intent.args["id"]), "status": "Approved", "title": "MaxComputeTable",
            "updateTime": _ms(intent.time)},
        "status": "Approved"})


def _download(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    table, person = platform.table(intent.args["table"]), platform.people[intent.args["person"]]
    return fc_message(ids, intent.kind, {
        "moduleType": "sqlx_query", "operatorBaseId": person.uid, "operatorUid": person.uid,
        "fileName": f"{table.name}.csv", "fileSize": 10_000 + ids.rng.randrange(10**7), "datasourceId": "1111",
        "datasourceName": "odps_first", "queryDwProjectId": str(WORKSPACES[table.project]),
        "queryDwProjectName": table.project, "dataRowSize": str(ids.rng.randrange(10**6)),
        "sqlText": f"SELECT * FROM {table.qualified} WHERE ds = '{intent.time - timedelta(days=1):%Y%m%d}'",
        "ip": "198.51.100.7"})


def _upload(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    table, person = platform.table(intent.args["table"]), platform.people[intent.args["person"]]
    return fc_message(ids, intent.kind, {
        "uploadSourceType": "LOCAL", "optTableType": "EXISTING", "targetEngineType": "MAXCOMPUTE",
        "writeType": "APPEND", "conflictMode": "IGNORE", "operatorBaseId": person.uid, "operatorUid": person.uid,
        "datasourceId": "1111", "datasourceName": "odps_first", "tableGuid": _table_guid(platform, table.index),
        "queryDwProjectId": str(WORKSPACES[table.project]), "queryDwProjectName": table.project,
        "fileSize": 1000 + ids.rng.randrange(10**6)})


RENDER: dict[str, Callable[[Platform, Ids, Intent], dict[str, Any]]] = {
    "node-change-created": _node_change, "node-change-updated": _node_change, "node-change-deleted": _node_change,
    "batch-create-data-quality-rules": _rules, "dqc-check-finished-event": _check,
    "workbench-monitor-alert": _alert, "approval-change-finished": _approval,
    "download-resources-execute": _download, "upload-data-to-table": _upload,
}
"""Intent kinds this source renders -> renderer."""


def _status(platform: Platform, ids: Ids, day: Day, node_day: Any, status: int, moment: datetime) -> dict[str, Any]:
    node = platform.nodes[node_day.node]
    return cloudevent(ids, "instance-status-changes", moment, {
        "beginWaitTimeTime": _ms(node_day.waiting), "dagId": node_day.dag_id, "dagType": 0, "taskType": 0,
        "modifyTime": _ms(moment), "createTime": _ms(day.date), "appId": WORKSPACES[platform.table(node.targets[0]).project],
        "opCode": 31, "flowId": node.flow, "nodeId": node.node_id, "beginWaitResTime": _ms(node_day.waiting),
        "taskId": node_day.task_id, "status": status})


def framing(platform: Platform, run: Any) -> tuple[datetime, datetime]:
    """When the instance of ``run`` (its MaxCompute job) starts and ends running. Where jobs name their
    node (SKYNET_ID) the same instants; without (``--no-job-settings``) as a scheduler does: the
    instance starts 1-30 s before it submits the job and ends 1-20 s after the job ends (from the
    job's id, not the platform's random stream: the other events stay the same)."""
    if platform.job_settings:
        return run.begin, run.end
    spread = zlib.crc32(run.job.encode())
    return run.begin - timedelta(seconds=1 + spread % 30), run.end + timedelta(seconds=1 + spread // 30 % 20)


def runs(platform: Platform, ids: Ids, day: Day) -> Iterator[dict[str, Any]]:
    """Instance status changes (waiting, running, success/failure; a rerun runs again) and DAG runs."""
    dags: dict[int, list[Any]] = {}
    for node_day in day.runs:
        dags.setdefault(node_day.dag_id, []).append(node_day)
        first = node_day.runs[0]
        begin, end = framing(platform, first)
        yield _status(platform, ids, day, node_day, 2, node_day.waiting)
        yield _status(platform, ids, day, node_day, 4, begin)
        yield _status(platform, ids, day, node_day, 6 if first.ok else 5, end)
        if node_day.rerun_at is not None:
            node = platform.nodes[node_day.node]
            yield cloudevent(ids, "rerun-instance", node_day.rerun_at, {
                "taskIds": [node_day.task_id], "projectType": "PROD", "operator": platform.people[node.owner].uid,
                "projectId": WORKSPACES[platform.table(node.targets[0]).project]})
            again = node_day.runs[-1]
            begin, end = framing(platform, again)
            yield _status(platform, ids, day, node_day, 4, begin)
            yield _status(platform, ids, day, node_day, 6 if again.ok else 5, end)
    for dag_id, members in sorted(dags.items()):
        node = platform.nodes[members[0].node]
        ended = max(framing(platform, m.runs[-1])[1] for m in members)
        for status, moment in ((4, min(m.waiting for m in members)), (6 if all(m.ok for m in members) else 5, ended)):
            yield cloudevent(ids, "dag-status-changes", moment, {
                "bizDate": (day.date - timedelta(days=1)).strftime("%Y-%m-%d 00:00:00"),
                "createTime": day.date.strftime("%Y-%m-%d %H:%M:%S"), "dagId": dag_id,
                "dagName": f"{platform.flows[node.flow]}_{day.date:%Y%m%d}", "dagType": 0, "flowId": node.flow,
                "flowName": platform.flows[node.flow], "operator": platform.people[0].uid, "projectEnv": "PROD",
                "projectId": WORKSPACES[platform.table(node.targets[0]).project], "status": status})
