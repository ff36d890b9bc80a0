"""DataWorks events -> facts: scheduling, tables, data quality, approvals, console (seeds 000, 001).

Expected ids and values are read off the seed samples (tests/data/dataworks, lines cited) and the
seed's field descriptions; inline records copy a seed body and change only what the case needs
(the English page's samples for freeze/undeploy, node deletion, tables and feedback carry no
``eventCode``, so their fixtures are generic activity: the inline copies add the code).
"""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone
from typing import Any

import pytest

from lineage.events import dataworks as dataworks_events
from lineage.events import registry
from lineage.facts import dataworks
from lineage.facts.core import FACT_NAMES
from lineage.facts.extract import facts_of_event
from lineage.io.reader import read_file
from seedfixtures import DATA, accepted_docs

DOCS = accepted_docs()["dataworks"]
CDD = "table:maxcompute:da_simple_202112.cdd"
YUPENG = "user:aliyun:286098539641742899"
EXPIRY = datetime(2064, 12, 31, 16, 0, tzinfo=timezone.utc)  # applyPeriod 2997964800000 = 2065-01-01 CST


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def fixture(relative: str, index: int = 0) -> dict[str, Any]:
    return list(read_file(DATA / "dataworks" / relative))[index].doc


def facts(doc: dict[str, Any]) -> list[dict[str, Any]]:
    rows = facts_of_event("dataworks", "?", "evt-1", None, json.dumps(doc, ensure_ascii=False))
    return [dict(zip(FACT_NAMES, row)) for row in rows]


def tuples(rows: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
    """(op, src, relationship, dst, qualifier): the shape of the graph a user will see."""
    return {(r["op"], r["src_id"], r["relationship"], r["dst_id"], r["qualifier"]) for r in rows}


def props_of(rows: list[dict[str, Any]], src: str, op: str | None = None, rel: str | None = None) -> dict[str, str]:
    found = [r for r in rows if r["src_id"] == src and r["relationship"] == rel and (op is None or r["op"] == op)]
    assert len(found) == 1, found
    return found[0]["properties"]


def body(code: str | None, data: dict[str, Any]) -> dict[str, Any]:
    """A message body in the seed's ``{"datacontenttype", "data"}`` shape."""
    payload = {**data, "eventCode": code} if code else dict(data)
    return {"datacontenttype": "application/json;charset=utf-8", "data": payload}


def with_code(relative: str, code: str, **changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(fixture(relative))
    doc["data"].update({"eventCode": code, **changes})
    return doc


# --------------------------------------------------------------------------------------------
# inline records (seed shapes) for the kinds whose samples lack a code or are quarantined
# --------------------------------------------------------------------------------------------

NODE_DELETED = body("node-change-deleted", {  # 000:916, masked numbers as strings
    "nodeName": "", "programType": "ODPS_SQL", "cronExpress": "00 20 00 * * ?", "schedulerType": "NORMAL",
    "ownerId": "1912232488744735", "priority": 1, "baselineId": 117801853, "repeatability": True,
    "modifyTime": 1646364549642, "createTime": 1646364549642, "datasource": "odps_source",
    "tenantId": "28378****10656", "nodeId": "100***150", "projectId": "30**95", "operator": "**************",
})
NODE_UPDATED = body("node-change-updated", {
    "nodeName": "dwd_order", "programType": "ODPS_SQL", "cronExpress": "00 30 05 * * ?", "ownerId": "1912232488744735",
    "priority": 3, "modifyTime": 1720000000000, "nodeId": 700003, "projectId": 94, "operator": "1912232488744735",
})
NODE_BATCH = {"operator": "19***735", "projectId": 123456, "tenantId": 123456, "nodeIds": [1, 2, 3],
              "extensionBizId": "123456"}  # 000:1079 / 001:538
FILE_DEPLOY = body("deploy-file", {  # 000:337 with a nodeId (the field table lists it)
    "fileName": "dwd_order", "changeType": "1", "operator": "19***735", "fileCreateTime": "2024-07-12 11:08:50",
    "fileOwner": "19***735", "fileVersion": 2, "projectId": "9***4", "fileType": 10, "fileId": "50***830",
    "nodeId": "70***003",
})
REVIEW = body("review-file", {  # 000:553 with its placeholders filled in
    "id": 111, "tenantId": 28, "projectId": 94, "status": "Accepted", "resourceName": "dwd_order.sql",
    "resourceType": "File", "resourceId": "50***9789", "submitTime": 1688697808000, "lastReviewTime": 1688697808000,
    "reviewUrl": "https://example.invalid/review/111", "reviewer": "1107***538", "submitter": "19***735",
})
TABLE_BODY = {"operator": "**************", "projectId": "12*****56", "tenantId": "12******56",
              "extensionBizId": "123456", "tableName": "table1", "tableType": "ODPS",
              "maxComputeProject": "project1"}  # 000:671
FEEDBACK = body("dqc-check-feedback-event", {  # 000:3205
    "ruleCheckId": 521771452, "feedbackContent": "Skip", "ruleId": 28610334, "createUser": "110755000425****",
    "taskId": "167644814****9a26ecf4063a88797", "beginTime": "1676448145000", "envType": "ODPS",
    "projectName": "test_mc_2303_kongjian", "projectId": 242601, "tenantId": 524257424564736,
})
EVALUATION_TASK = body("create-data-quality-evaluation-task", {  # 001:1123 with its comma restored
    "name": "表数据准确性监控",
    "target": {"databaseType": "maxcompute", "tableGuid": "odps.project_demo.tb_table_demo"},
    "trigger": {"type": "ByScheduledTaskInstance", "taskIds": [1001, 1002]}, "dataSourceId": 201,
    "rules": [{"name": "表行数大于0", "enabled": True, "severity": "High"},
              {"id": 100002, "name": "表行数大于100",
               "checkingConfig": {"type": "fixed", "thresholds": {"expected": {"expression": "$checkValue > 100"}}}}],
    "projectId": "30***03", "tenantId": "524***4736", "operator": "110***3538", "operationTime": 1734505954897,
})
DELETE_PROJECT = {"data": {"eventCode": "delete-project", "projectId": "7***7", "tenantId": "2807****0784",
                           "operator": "1493189603770213"}}  # 000:3667 closed, the operator filled in
REMIND_ALERT = body("workbench-monitor-alert", {  # 000:1847
    "alarmType": "REMIND_ALERT", "nodeIds": "10000405472,10000405473,10000405474", "projectId": 9876,
    "remindId": 7605, "remindName": "Error alert", "remindType": "ERROR", "remindUnit": "NODE",
    "taskIds": "3072900896,3072900870,3072900855", "tenantId": 259025816027648,
})
TOPIC_ALERT = body("workbench-monitor-alert", {  # 000:1772
    "alarmType": "TOPIC_ALERT", "nodeId": 10000316315, "projectId": 9109, "taskId": 3072750357, "taskStatus": 5,
    "tenantId": 280749521950784, "topicId": 1084769,
})


def instance_op(code: str) -> dict[str, Any]:
    return body(code, {"operator": "182293110403****", "projectId": 123488, "projectType": "PROD",
                       "taskIds": [523536569736], "tenantId": 280749521950784})  # 000:1466


INLINE: dict[str, dict[str, Any]] = {
    "node-change-deleted": NODE_DELETED,
    "node-change-updated": NODE_UPDATED,
    "undeploy-node": body("undeploy-node", NODE_BATCH),
    "freeze-node": body("freeze-node", NODE_BATCH),
    "unfreeze-node": body("unfreeze-node", NODE_BATCH),
    "deploy-file": FILE_DEPLOY,
    "run-file": with_code("file-change/delete_body_en.json", "run-file"),
    "review-file": REVIEW,
    "commit-table": body("commit-table", TABLE_BODY),
    "deploy-table": body("deploy-table", TABLE_BODY),
    **{code: instance_op(code) for code in ("unfreeze-instance", "kill-instance", "rerun-instance",
                                            "set-instance-success")},
    "dqc-check-feedback-event": FEEDBACK,
    "create-data-quality-evaluation-task": EVALUATION_TASK,
    "delete-project": DELETE_PROJECT,
    "clone-data-quality-evaluation-task": body("clone-data-quality-evaluation-task", {  # 001:1131, a MaxCompute target
        "id": 10001, "targets": [{"databaseType": "maxcompute", "tableGuid": "odps.project_demo.tb_other"}],
        "projectId": "9***4", "operator": "19***735", "operationTime": 1734505954897}),
    # 000:3821 (quarantined: never closed): the file-generation pre-event, the execute body without ip
    "download-resources": body("download-resources", {
        k: v for k, v in fixture("download-resources/execute_cloudevent_en.json")["data"].items()
        if k not in ("eventCode", "ip")}),
}


def kind_of(doc: dict[str, Any]) -> str:
    return registry.parse_record(doc).kind


# --------------------------------------------------------------------------------------------
# the table covers the catalogue; every fixture maps; every mapped kind is exercised
# --------------------------------------------------------------------------------------------


def test_mapping_and_ignored_cover_every_kind_once() -> None:
    assert set(dataworks.MAPPING) | set(dataworks.IGNORED) == set(dataworks_events.KINDS)
    assert not set(dataworks.MAPPING) & set(dataworks.IGNORED)
    assert all(reason.strip() for reason in dataworks.IGNORED.values())
    assert all(emit.note for emits in dataworks.MAPPING.values() for emit in emits)


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: str(d.get("data", {}).get("eventCode") or d.get("type") or "?"))
def test_every_accepted_fixture_maps_without_error(doc: dict[str, Any]) -> None:
    rows = facts(doc)
    assert all(r["op"] != "error" for r in rows), rows
    assert all(r["failed"] is False for r in rows)


@pytest.mark.parametrize("doc", list(INLINE.values()), ids=list(INLINE))
def test_every_inline_record_maps_without_error(doc: dict[str, Any]) -> None:
    rows = facts(doc)
    assert rows and all(r["op"] != "error" for r in rows), rows


def test_every_mapped_kind_is_exercised() -> None:
    produced = {kind_of(doc) for doc in [*DOCS, *INLINE.values()] if facts(doc)}
    assert set(dataworks.MAPPING) - produced == set()


# --------------------------------------------------------------------------------------------
# scheduling: nodes, files, instances, DAG runs
# --------------------------------------------------------------------------------------------


def test_node_created_asserts_node_project_baseline_owner_and_a_change() -> None:
    rows = facts(fixture("node-change/created_body_en.json"))  # 000:165
    node = "node:dataworks:70***003"
    assert tuples(rows) == {
        ("assert", node, None, None, ""),
        ("assert", node, "IN_PROJECT", "project:dataworks:9***4", ""),
        ("assert", node, "IN_BASELINE", "baseline:dataworks:70***287", ""),
        ("assert", "user:aliyun:19****735", "OWNS", node, ""),
        ("change", node, "node_create", None, ""),
    }
    props = props_of(rows, node, "assert")
    assert props["name"] == "****" and props["program_type"] == "ODPS_SQL"
    assert props["cron"] == "00 04 00 * * ?" and props["owner"] == "19****735" and props["priority"] == "1"
    assert "modified_at" not in props  # the masked 17***864 is no time
    assert {r["actor"] for r in rows} == {"user:aliyun:19***735"}


def test_node_updated_is_a_node_update_change() -> None:
    rows = facts(NODE_UPDATED)
    assert ("change", "node:dataworks:700003", "node_update", None, "") in tuples(rows)
    assert props_of(rows, "node:dataworks:700003", "assert")["cron"] == "00 30 05 * * ?"
    assert rows[0]["event_time"] == datetime.fromtimestamp(1720000000, tz=timezone.utc)  # modifyTime


def test_node_deleted_retracts_the_node_at_its_modify_time() -> None:
    rows = facts(NODE_DELETED)
    node = "node:dataworks:100***150"
    assert tuples(rows) == {
        ("retract", node, None, None, ""),
        ("retract", node, "IN_BASELINE", None, ""),  # every baseline edge of the node closes
        ("change", node, "node_delete", None, ""),
    }
    assert {r["event_time"] for r in rows} == {datetime.fromtimestamp(1646364549.642, tz=timezone.utc)}
    assert {r["actor"] for r in rows} == {None}  # "**************" names nobody


@pytest.mark.parametrize(("code", "prop", "value", "change"), [
    ("freeze-node", "frozen", "true", "node_freeze"),
    ("unfreeze-node", "frozen", "false", "node_unfreeze"),
    ("undeploy-node", "deployed", "false", "node_undeploy"),
])
def test_node_batch_operations_observe_and_change_every_node(code: str, prop: str, value: str, change: str) -> None:
    rows = facts(body(code, NODE_BATCH))
    nodes = [f"node:dataworks:{i}" for i in (1, 2, 3)]
    assert tuples(rows) == ({("observe", n, None, None, "") for n in nodes}
                            | {("change", n, change, None, "") for n in nodes})
    assert all(props_of(rows, n, "observe")[prop] == value for n in nodes)
    assert {r["actor"] for r in rows} == {"user:aliyun:19***735"}


def test_committed_file_exists_in_its_workspace() -> None:
    rows = facts(fixture("file-change/commit_body_en.json"))  # 000:337, no nodeId
    f = "file:dataworks:50***830"
    assert tuples(rows) == {("assert", f, None, None, ""), ("assert", f, "IN_PROJECT", "project:dataworks:9***4", "")}
    props = props_of(rows, f, "assert")
    assert props["change_type"] == "create" and props["version"] == "1" and props["owner"] == "19***735"


def test_deployed_file_defines_its_node_and_deploys_it() -> None:
    rows = facts(FILE_DEPLOY)
    f, node = "file:dataworks:50***830", "node:dataworks:70***003"
    assert tuples(rows) == {
        ("assert", f, None, None, ""),
        ("assert", f, "DEFINES", node, ""),
        ("assert", f, "IN_PROJECT", "project:dataworks:9***4", ""),
        ("observe", node, None, None, ""),
        ("change", node, "node_deploy", None, ""),
    }
    assert props_of(rows, node, "observe")["deployed"] == "true"


def test_deploying_a_deletion_retracts_the_file_and_undeploys_the_node() -> None:
    doc = copy.deepcopy(FILE_DEPLOY)
    doc["data"]["changeType"] = "2"
    rows = facts(doc)
    f, node = "file:dataworks:50***830", "node:dataworks:70***003"
    assert ("retract", f, None, None, "") in tuples(rows)
    assert ("change", node, "node_undeploy", None, "") in tuples(rows)
    assert not {t for t in tuples(rows) if t[0] == "assert" and t[1] == f and t[2] in (None, "DEFINES")}
    assert props_of(rows, node, "observe")["deployed"] == "false"


def test_deleted_file_is_retracted_with_every_defines_edge() -> None:
    rows = facts(fixture("file-change/delete_body_en.json"))  # 000:458
    f = "file:dataworks:50***830"
    assert tuples(rows) == {("retract", f, None, None, ""), ("retract", f, "DEFINES", None, "")}


def test_reviewed_file_is_observed_with_its_review_status() -> None:
    rows = facts(REVIEW)
    props = props_of(rows, "file:dataworks:50***9789", "observe")
    assert props["review_status"] == "Accepted" and props["reviewer"] == "1107***538"
    assert props["name"] == "dwd_order.sql"
    batch = copy.deepcopy(REVIEW)
    batch["data"]["resourceType"] = "BatchFiles"  # a batch id is no file id
    assert facts(batch) == []


def test_instance_status_change_links_node_instance_dag_but_not_the_placeholder_flow() -> None:
    rows = facts(fixture("instance-status-changes/body_en.json"))  # 000:1283, flowId 1
    inst = "instance:dataworks:4532688169"
    assert tuples(rows) == {
        ("observe", inst, None, None, ""),
        ("assert", "node:dataworks:1002698219", "HAS_INSTANCE", inst, ""),
        ("assert", inst, "IN_DAG", "dag:dataworks:446555330", ""),
    }
    props = props_of(rows, inst, "observe")
    assert props["status"] == "waiting_resource" and props["status_code"] == "3"  # 3: waiting for resources
    assert props["dag_type"] == "auto_triggered" and props["task_type"] == "NORMAL"
    assert props["waiting_resource_since"] == "2022-05-16T11:29:37+00:00"
    assert {r["actor"] for r in rows} == {None}  # the scheduler, not a person


@pytest.mark.parametrize(("status", "name"), [
    (4, "running"), (5, "failure"), (6, "success"), (8, "checking_condition"),
])
def test_instance_status_codes_are_named_as_the_seed_documents(status: int, name: str) -> None:
    doc = copy.deepcopy(fixture("instance-status-changes/body_en.json"))
    doc["data"].update(status=status, flowId=700123, finishTime=1652700600000)
    rows = facts(doc)
    inst = "instance:dataworks:4532688169"
    assert props_of(rows, inst, "observe")["status"] == name
    assert ("assert", "dag:dataworks:446555330", "IN_FLOW", "flow:dataworks:700123", "") in tuples(rows)
    assert all(r["failed"] is False for r in rows)  # a failed run is a state, not a failed operation


def test_dag_status_change_observes_the_run() -> None:
    rows = facts(fixture("dag-status-changes/body_en.json"))  # 000:1532
    dag = "dag:dataworks:500358972116"
    assert tuples(rows) == {("observe", dag, None, None, "")}  # flowId 1 (ATCLOUD_FLOW): no workflow
    props = props_of(rows, dag, "observe")
    assert props["name"] == "P_test_spark_true_copy_20221108_105631"
    assert props["status"] == "success" and props["dag_type"] == "backfill" and props["env"] == "PROD"
    assert {r["actor"] for r in rows} == {"user:aliyun:11****538"}


@pytest.mark.parametrize(("relative", "task"), [
    ("instance-operation/freeze_instance_body_en.json", "523536569736"),
    ("instance-operation/freeze_instance_masked_zh.json", "523***9736"),
])
def test_frozen_instances_are_observed_frozen(relative: str, task: str) -> None:
    rows = facts(fixture(relative))
    assert tuples(rows) == {("observe", f"instance:dataworks:{task}", None, None, "")}
    props = rows[0]["properties"]
    assert props == {"last_operation": "freeze", "frozen": "true", "env": "PROD"}


@pytest.mark.parametrize(("code", "operation"), [
    ("kill-instance", "kill"), ("rerun-instance", "rerun"), ("set-instance-success", "set_success"),
    ("unfreeze-instance", "unfreeze"),
])
def test_instance_operations_record_the_last_operation(code: str, operation: str) -> None:
    rows = facts(instance_op(code))
    assert props_of(rows, "instance:dataworks:523536569736", "observe")["last_operation"] == operation


def test_pre_freeze_is_a_pending_operation_only() -> None:
    rows = facts(fixture("instance-operation/pre_freeze_instance_zh.json"))  # 001:655
    assert rows[0]["properties"] == {"pending_operation": "freeze"}


def test_expired_instances_are_retracted() -> None:
    rows = facts(fixture("expired-task-instances-deleted/body_zh.json"))  # 001:679
    assert tuples(rows) == {("retract", f"instance:dataworks:{i}", None, None, "")
                            for i in ("524***035", "524***498", "524***637")}
    assert {r["event_time"] for r in rows} == {utc("2024-12-18T07:12:34.897000")}


def test_removed_dependencies_are_observed_on_the_downstream_instance() -> None:
    rows = facts(fixture("delete-task-instance-dependencies/body_zh.json"))  # 001:707
    props = props_of(rows, "instance:dataworks:52******49", "observe")
    assert json.loads(props["removed_upstream_instances"]) == ["52******35", "52******98", "52******37"]


def test_backfill_observes_root_and_included_nodes() -> None:
    rows = facts(fixture("backfill-data/body_en.json"))  # 000:1132
    assert tuples(rows) == {("observe", "node:dataworks:10000838271", None, None, ""),
                            ("observe", "node:dataworks:10***271", None, None, "")}
    props = props_of(rows, "node:dataworks:10000838271", "observe")
    assert props["last_backfill"] == "P_fff_20220418_215404"
    assert json.loads(props["last_backfill_periods"]) == ["2022-04-17..2022-04-17"]


def test_sla_alert_observes_baseline_node_and_instance() -> None:
    rows = facts(fixture("workbench-monitor-alert/sla_body_en.json"))  # 000:1665
    node, inst = "node:dataworks:10000398734", "instance:dataworks:3072893778"
    assert tuples(rows) == {
        ("observe", "baseline:dataworks:137000723", None, None, ""),
        ("observe", node, None, None, ""),
        ("observe", inst, None, None, ""),
        ("assert", node, "HAS_INSTANCE", inst, ""),
    }
    baseline = props_of(rows, "baseline:dataworks:137000723", "observe")
    assert baseline["status"] == "overtime" and baseline["name"].startswith("Dedicated to the check")


def test_rule_alert_observes_each_listed_node_and_instance_without_pairing_them() -> None:
    rows = facts(REMIND_ALERT)
    assert {t for t in tuples(rows) if t[2]} == set()  # no HAS_INSTANCE: the lists are not pairs
    assert {r["src_id"] for r in rows} == {
        *(f"node:dataworks:{i}" for i in ("10000405472", "10000405473", "10000405474")),
        *(f"instance:dataworks:{i}" for i in ("3072900896", "3072900870", "3072900855")),
    }
    assert props_of(rows, "node:dataworks:10000405472")["last_alert_rule"] == "Error alert"


def test_topic_alert_names_the_instance_status() -> None:
    rows = facts(TOPIC_ALERT)
    assert props_of(rows, "instance:dataworks:3072750357", "observe")["status"] == "failure"  # taskStatus 5


# --------------------------------------------------------------------------------------------
# data: tables, download, upload, Data Integration
# --------------------------------------------------------------------------------------------


def test_committed_table_is_a_maxcompute_table_in_its_project() -> None:
    rows = facts(body("commit-table", TABLE_BODY))
    t = "table:maxcompute:project1.table1"
    assert tuples(rows) == {("assert", t, None, None, ""),
                            ("assert", t, "IN_PROJECT", "project:maxcompute:project1", "")}
    assert props_of(rows, t, "assert")["name"] == "table1"


def test_deployed_table_is_a_schema_change() -> None:
    rows = facts(body("deploy-table", TABLE_BODY))
    assert ("change", "table:maxcompute:project1.table1", "schema_change", None, "") in tuples(rows)


def test_emr_table_names_no_cluster_so_yields_nothing() -> None:
    assert facts(body("deploy-table", {**TABLE_BODY, "tableType": "EMR"})) == []


def test_download_reads_tables_of_its_sql() -> None:
    rows = facts(fixture("download-resources/execute_cloudevent_en.json"))  # 000:3927
    user = "user:aliyun:14931896037*******"
    # select sku_code, sku_name from dim_sku, in workspace test_project (data source odps_first)
    assert tuples(rows) == {("assert", user, "DOWNLOADED", "table:maxcompute:test_project.dim_sku", "")}
    props = rows[0]["properties"]
    assert props["rows"] == "123456" and props["module"] == "sqlx_query" and props["ip"] == "198.10.X.X"
    joined = body("download-resources", {"operatorUid": "1493", "datasourceName": "odps_first",
                                         "queryDwProjectName": "test_project",
                                         "sqlText": "select a.x from dim_sku a join other_prj.fct b on a.k = b.k"})
    assert {r["dst_id"] for r in facts(joined)} == {"table:maxcompute:test_project.dim_sku",
                                                     "table:maxcompute:other_prj.fct"}


def test_download_of_a_path_is_a_location() -> None:
    doc = body("download-resources", {"operatorUid": "1493", "datasourceName": "odps_first",
                                      "queryDwProjectName": "test_project",
                                      "sqlText": "select * from parquet.`oss://Lake/ref/fx/` r join dim_sku s on r.k = s.k"})
    assert {(r["relationship"], r["dst_id"], r["dst_label"]) for r in facts(doc)} == {
        ("DOWNLOADED", "location:oss://lake/ref/fx", "Location"),
        ("DOWNLOADED", "table:maxcompute:test_project.dim_sku", "Table"),
    }


def test_download_from_a_non_maxcompute_source_yields_nothing() -> None:
    doc = body("download-resources", {"operatorUid": "1493", "datasourceName": "holo_db",
                                      "sqlText": "select * from public.orders"})
    assert facts(doc) == []


def test_upload_is_an_uploaded_edge_to_the_guid_table() -> None:
    rows = facts(fixture("upload-data-to-table/cloudevent_en.json"))  # 000:4052
    user, t = "user:aliyun:1222222*****", "table:maxcompute:mc_project.test_table"
    assert tuples(rows) == {("assert", user, "UPLOADED", t, ""), ("observe", t, None, None, "")}
    assert props_of(rows, user, "assert", "UPLOADED")["write_type"] == "OVERWRITE"
    emr = copy.deepcopy(fixture("upload-data-to-table/cloudevent_en.json"))
    emr["data"]["tableGuid"] = "emr_hive.C-ABC123.ods.orders"  # emr_hive.<cluster>.<schema>.<table>
    assert ("assert", user, "UPLOADED", "table:emr_hive:c-abc123.ods.orders", "") in tuples(facts(emr))


def test_di_job_start_records_the_job_and_emits_no_feeds() -> None:
    rows = facts(fixture("di-job/start_v1_zh.json"))  # 001:146: dst tables named under odps_first only
    job = "job:dataworks:5280"
    assert tuples(rows) == {("observe", job, None, None, ""),
                            ("assert", job, "IN_PROJECT", "project:dataworks:9***4", "")}
    props = props_of(rows, job, "observe")
    assert props["name"] == "sync_mysql_to_odps_20240726_192307"
    assert "mysql_3357_pub_ip_1.xiaobo_sharding_79fz.xb_test_116 -> odps_first.ods_xb_test_116" in json.loads(
        props["table_mapping"])
    assert {r["actor"] for r in rows} == {"user:aliyun:1504650005316516"}


def test_di_destination_guid_gets_the_job_as_properties() -> None:
    doc = copy.deepcopy(fixture("di-job/start_v2_zh.json"))  # 001:192
    doc["data"]["tableMapping"][0]["dstTable"] = "odps.ods_prj.test_verify1"
    rows = facts(doc)
    assert all(r["relationship"] != "FEEDS" for r in rows)
    props = props_of(rows, "table:maxcompute:ods_prj.test_verify1", "observe")
    assert props["di_job"] == "5777" and props["di_source"] == "mysql_public.di_test.test_verify1"


def test_batch_di_start_records_each_job() -> None:
    rows = facts(fixture("di-job/batch_start_zh.json"))  # 001:305
    assert {r["src_id"] for r in rows if r["op"] == "observe"} == {"job:dataworks:5777", "job:dataworks:5679"}
    assert props_of(rows, "job:dataworks:5679", "observe")["name"] == "sync_mysql_to_odps_20240726_192307"


# --------------------------------------------------------------------------------------------
# access: approval orders
# --------------------------------------------------------------------------------------------


def test_finished_approval_grants_every_action_until_apply_period() -> None:
    rows = facts(fixture("approval-change/finished_body_en.json"))  # 000:2483
    grants = {t for t in tuples(rows) if t[2] == "CAN_ACCESS"}
    assert grants == {("assert", YUPENG, "CAN_ACCESS", CDD, "select"),
                      ("assert", YUPENG, "CAN_ACCESS", CDD, "describe")}
    for row in (r for r in rows if r["relationship"] == "CAN_ACCESS"):
        assert row["valid_until"] == EXPIRY
        assert row["properties"]["approval"] == "528539182432192"
        assert json.loads(row["properties"]["privileges"]) == [row["qualifier"].capitalize()]
        assert row["event_time"] == datetime.fromtimestamp(1652095981, tz=timezone.utc)  # createTime
    assert ("change", CDD, "permission_change", None, "") in tuples(rows)
    assert props_of(rows, "approval:dataworks:528539182432192", "observe")["granted"] == "true"
    assert {r["actor"] for r in rows} == {YUPENG}  # the assignee (approver)


def test_masked_apply_period_gives_no_expiry() -> None:
    rows = facts(fixture("approval-change/finished_inline_masked_zh.json"))  # 001:830, "2997***0000"
    grants = [r for r in rows if r["relationship"] == "CAN_ACCESS"]
    assert {(r["src_id"], r["dst_id"]) for r in grants} == {("user:aliyun:286***899", CDD)}
    assert {r["valid_until"] for r in grants} == {None}


def finished_with(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(fixture("approval-change/finished_body_en.json"))
    content = doc["data"]["process"]["approvalContent"]
    for key, value in changes.items():
        if key in ("status",):
            doc["data"][key] = value
        else:
            content[key] = value
    return doc


def test_every_grantee_gets_every_object() -> None:
    created = fixture("approval-change/created_then_truncated_en.json")["data"]["process"]["approvalContent"]
    second = {**created["arrayData"][0]}  # odps.b_mc1.loghub_070103, Select + Describe
    doc = finished_with(granteeAccounts=created["granteeAccounts"],
                        arrayData=[finished_with()["data"]["process"]["approvalContent"]["arrayData"][0], second])
    grants = {t for t in tuples(facts(doc)) if t[2] == "CAN_ACCESS"}
    users = {"user:aliyun:2860985***99", "user:aliyun:237857631119109360"}
    tables = {CDD, "table:maxcompute:b_mc1.loghub_070103"}
    assert grants == {("assert", u, "CAN_ACCESS", t, q) for u in users for t in tables for q in ("select", "describe")}


@pytest.mark.parametrize("status", ["Rejected", "Canceled", "REFUSE"])
def test_rejected_or_cancelled_approval_grants_nothing(status: str) -> None:
    rows = facts(finished_with(status=status))
    assert {t for t in tuples(rows) if not t[1].startswith("user:")} == {
        ("observe", "approval:dataworks:528539182432192", None, None, "")}
    assert all(t[0] == "observe" and t[2] is None for t in tuples(rows))  # people named, nothing granted
    assert rows[0]["properties"]["granted"] == "false"


def test_created_approval_is_only_observed() -> None:
    rows = facts(fixture("approval-change/created_then_truncated_en.json"))  # 000:2118
    assert {t for t in tuples(rows) if not t[1].startswith("user:")} == {
        ("observe", "approval:dataworks:528535869984706", None, None, "")}
    assert all(t[0] == "observe" and t[2] is None for t in tuples(rows))
    assert rows[0]["properties"]["status"] == "Submit"
    assert {r["actor"] for r in rows} == {YUPENG}  # the applicant


def test_an_approval_names_its_people_and_skips_masked_names() -> None:
    """Issue 28: granteeName is often the only name a grantee's UID ever gets."""
    rows = facts(fixture("approval-change/created_then_truncated_en.json"))  # 000:2118
    named = {(r["src_id"], r["properties"]["name"]) for r in rows if r["src_label"] == "User"}
    assert named == {
        (YUPENG, "yupeng.sunyp"),  # applicant and approver (assignee)
        ("user:aliyun:2860985***99", "RAM$dataworks_3h1_1:yupeng.sunyp"),  # grantees
        ("user:aliyun:237857631119109360", "RAM$dataworks_3h1_1:dev"),
    }  # the object's ownerAccountName ALIYUN$******(******) is masked: no one


def test_dataservice_content_grants_nothing() -> None:
    api = {"resourceId": "DsApiDeploy/1/workspaceId/2/dsDeployId/3", "name": "api_api", "dsDeployId": "3",
           "resourceVersion": 1, "type": 1, "url": "https://x.data.aliyun.com/?id=3"}  # 000:3063
    rows = facts(finished_with(arrayData=[api]))
    assert [r for r in rows if r["op"] != "observe"] == []


def test_column_and_project_level_requests() -> None:
    item = finished_with()["data"]["process"]["approvalContent"]["arrayData"][0]
    columns = {**item, "columns": ["phone", "Email"], "actions": ["Select"]}
    project = {"objectType": "PROJECT", "odpsProject": "DA_SIMPLE_202112", "actions": ["CreateTable"]}
    grants = {t for t in tuples(facts(finished_with(arrayData=[columns, project]))) if t[2] == "CAN_ACCESS"}
    assert grants == {
        ("assert", YUPENG, "CAN_ACCESS", f"column:maxcompute:da_simple_202112.cdd.{c}", "select")
        for c in ("phone", "email")
    } | {("assert", YUPENG, "CAN_ACCESS", "project:maxcompute:da_simple_202112", "createtable")}


# --------------------------------------------------------------------------------------------
# data quality
# --------------------------------------------------------------------------------------------

CHECKED = "table:maxcompute:test_mc_2303_kongjian.sx_dim_1209_001"


def test_check_finished_links_rule_to_table_with_the_latest_result() -> None:
    rows = facts(fixture("dqc-check/finished_body_en.json"))  # 000:3291
    rule = "qualityrule:dataworks:28610334"
    assert tuples(rows) == {("observe", rule, None, None, ""), ("observe", CHECKED, None, None, ""),
                            ("assert", rule, "CHECKS", CHECKED, "")}
    rule_props, table_props = props_of(rows, rule, "observe"), props_of(rows, CHECKED, "observe")
    assert rule_props["name"] == "Difference compared with the previous day" and rule_props["strength"] == "strong"
    assert rule_props["quality_status"] == table_props["quality_status"] == "passed"  # checkResult 0
    assert table_props["quality_checked_at"] == "2023-02-15T20:14:55+00:00"  # endTime
    assert table_props["quality_partition"] == "ds=20230210"


@pytest.mark.parametrize(("result", "status"), [(-1, "error"), (1, "warned"), (2, "critical")])
def test_check_results_are_named(result: int, status: str) -> None:
    doc = copy.deepcopy(fixture("dqc-check/finished_body_en.json"))
    doc["data"]["checkResult"] = result
    assert props_of(facts(doc), CHECKED, "observe")["quality_status"] == status


def test_feedback_is_observed_on_the_rule() -> None:
    rows = facts(FEEDBACK)
    props = props_of(rows, "qualityrule:dataworks:28610334", "observe")
    assert props["last_feedback"] == "Skip" and props["last_feedback_check"] == "521771452"
    assert {r["actor"] for r in rows} == {"user:aliyun:110755000425****"}


def test_batch_created_rules_without_ids_only_mark_the_table() -> None:
    rows = facts(fixture("data-quality-rule/batch_create_inline_zh.json"))  # 001:1044
    t = "table:maxcompute:project_demo.tb_table_demo"
    assert tuples(rows) == {("observe", t, None, None, "")}
    assert json.loads(rows[0]["properties"]["quality_rules_added"]) == ["表行数大于0"]


def test_monitor_rules_with_ids_check_the_target_table() -> None:
    rows = facts(EVALUATION_TASK)
    t, rule = "table:maxcompute:project_demo.tb_table_demo", "qualityrule:dataworks:100002"
    assert tuples(rows) == {("assert", rule, None, None, ""), ("assert", rule, "CHECKS", t, ""),
                            ("observe", t, None, None, "")}
    assert props_of(rows, rule, "assert")["expected"] == "$checkValue > 100"
    assert props_of(rows, t, "observe")["quality_monitor"] == "表数据准确性监控"


def test_updated_rule_is_asserted_with_its_settings() -> None:
    rows = facts(fixture("data-quality-rule/update_inline_zh.json"))  # 001:1098
    props = props_of(rows, "qualityrule:dataworks:100001", "assert")
    assert props["name"] == "表行数大于0" and props["severity"] == "High" and props["metric"] == "count"
    assert props["critical"] == "$checkValue <= 0"


def test_deleted_rules_are_retracted_with_their_checks_at_operation_time() -> None:
    rows = facts(fixture("data-quality-rule/batch_delete_inline_zh.json"))  # 001:1097
    rules = [f"qualityrule:dataworks:{i}" for i in ("10***01", "10***02", "10***03")]
    assert tuples(rows) == ({("retract", r, None, None, "") for r in rules}
                            | {("retract", r, "CHECKS", None, "") for r in rules})
    assert {r["event_time"] for r in rows} == {utc("2024-12-18T07:12:34.897000")}


def test_clone_onto_emr_placeholders_yields_nothing_but_onto_guids_marks_tables() -> None:
    doc = fixture("data-quality-evaluation-task/clone_inline_zh.json")  # 001:1131: "an-emr-table-guid"
    assert facts(doc) == []
    rows = facts(INLINE["clone-data-quality-evaluation-task"])
    assert props_of(rows, "table:maxcompute:project_demo.tb_other", "observe")["quality_monitor_cloned_from"] == "10001"


# --------------------------------------------------------------------------------------------
# console
# --------------------------------------------------------------------------------------------


def test_deleted_workspace_is_retracted_with_a_project_deletion() -> None:
    rows = facts(fixture("project-deletion/project_deleted_body_en.json"))  # 000:3710
    p = "project:dataworks:380708"
    assert tuples(rows) == {("retract", p, None, None, ""), ("change", p, "project_deletion", None, "")}
    assert props_of(rows, p, "retract")["name"] == "test2"
    assert {r["actor"] for r in rows} == {"user:aliyun:1493189603770213"}
    assert {r["event_time"] for r in rows} == {utc("2023-12-11T02:09:16.896000")}  # timestamp


def test_workspace_deletion_pre_event_is_only_a_request() -> None:
    rows = facts(DELETE_PROJECT)
    assert tuples(rows) == {("observe", "project:dataworks:7***7", None, None, "")}
    assert rows[0]["properties"]["deletion_requested"] == "true"


# --------------------------------------------------------------------------------------------
# actor and failure
# --------------------------------------------------------------------------------------------


def test_failed_is_never_true_and_fully_masked_actors_are_nobody() -> None:
    for doc in [*DOCS, *INLINE.values()]:
        event = registry.parse_record(doc)
        assert dataworks.failed(event) is False
        actor = dataworks.actor_id(event)
        assert actor is None or (actor.startswith("user:aliyun:") and set(actor[12:]) - {"*"})


def test_ignored_kinds_yield_nothing() -> None:
    for relative in ("approval-change-before-create/body_en.json",
                     "data-quality-evaluation-task/batch_delete_inline_zh.json",
                     "data-quality-notification/create_inline_zh.json"):
        doc = fixture(relative)
        assert kind_of(doc) in dataworks.IGNORED
        assert facts(doc) == []
