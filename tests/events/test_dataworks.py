"""DataWorks events: catalogue, envelopes, leniency and required ids (seeds 000 and 001)."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from lineage.events import dataworks, registry
from lineage.events.base import RecordError
from lineage.events.dataworks.security import (
    AuthorizedObject,
    DataServiceAuthorizedApi,
    MaxComputeAuthorizedObject,
)
from lineage.io.reader import read_file

DATA = Path(__file__).resolve().parents[1] / "data" / "dataworks"

# Every event code of the English page's tables, and those only the Chinese page lists.
ENGLISH_CODES = {
    "node-change-created", "node-change-updated", "node-change-deleted", "undeploy-node", "freeze-node",
    "unfreeze-node", "delete-file", "commit-file", "deploy-file", "run-file", "review-file", "commit-table",
    "deploy-table", "backfill-data", "instance-status-changes", "dag-status-changes", "freeze-instance",
    "unfreeze-instance", "kill-instance", "rerun-instance", "set-instance-success", "workbench-monitor-alert",
    "approval-change-created", "approval-change-finished", "approval-change-before-create",
    "dqc-check-feedback-event", "dqc-check-finished-event", "delete-project", "project-deleted",
    "download-resources", "download-resources-execute", "upload-data-to-table",
}
CHINESE_ONLY_CODES = {
    "start-diJob", "batch-start-diJob", "pre-freeze-instance", "expired-task-instances-deleted",
    "delete-task-instance-dependencies", "batch-create-data-quality-rules", "update-data-quality-rule",
    "batch-delete-data-quality-rules", "create-data-quality-evaluation-task", "clone-data-quality-evaluation-task",
    "batch-delete-data-quality-evaluation-tasks", "create-data-quality-evaluation-task-notification",
    "update-data-quality-evaluation-task-notification",
}

# kind -> (the smallest body it accepts, the wire name of its required field or None)
MINIMAL: dict[str, tuple[dict[str, Any], str | None]] = {
    **{k: ({"nodeId": 70003}, "nodeId") for k in ("node-change-created", "node-change-updated", "node-change-deleted")},
    **{k: ({"nodeIds": [1, 2]}, "nodeIds") for k in ("undeploy-node", "freeze-node", "unfreeze-node")},
    **{k: ({"fileId": 50830}, "fileId") for k in ("delete-file", "commit-file", "deploy-file", "run-file")},
    "review-file": ({"resourceId": "50***9789"}, "resourceId"),
    **{k: ({"tableName": "table1"}, "tableName") for k in ("commit-table", "deploy-table")},
    "start-diJob": ({"jobId": 5777}, "jobId"),
    "batch-start-diJob": ({"jobIds": [5777, 5679]}, "jobIds"),
    "backfill-data": ({"rootNodeId": 10000838271}, "rootNodeId"),
    "instance-status-changes": ({"taskId": 4532688169}, "taskId"),
    "dag-status-changes": ({"dagId": 500358972116}, "dagId"),
    **{k: ({"taskIds": [523536569736]}, "taskIds") for k in (
        "freeze-instance", "unfreeze-instance", "kill-instance", "rerun-instance", "set-instance-success",
        "pre-freeze-instance")},
    "expired-task-instances-deleted": ({"deletedTaskInstanceIds": [524035]}, "deletedTaskInstanceIds"),
    "delete-task-instance-dependencies": ({"taskInstanceId": 52049}, "taskInstanceId"),
    "workbench-monitor-alert": ({"alarmType": "SLA_ALERT"}, "alarmType"),
    **{k: ({"process": {"processId": "528535869984706"}}, "process") for k in (
        "approval-change-created", "approval-change-finished")},
    "approval-change-before-create": ({"order": {"deadlineDate": "1"}}, "order"),
    **{k: ({"ruleId": 28610334}, "ruleId") for k in ("dqc-check-feedback-event", "dqc-check-finished-event")},
    "batch-create-data-quality-rules": ({"target": {"tableGuid": "odps.p.t"}}, "target"),
    "update-data-quality-rule": ({"id": 100001}, "id"),
    **{k: ({"ids": [10001]}, "ids") for k in (
        "batch-delete-data-quality-rules", "batch-delete-data-quality-evaluation-tasks")},
    "create-data-quality-evaluation-task": ({"target": {"tableGuid": "odps.p.t"}}, "target"),
    "clone-data-quality-evaluation-task": ({"id": 10001}, "id"),
    **{k: ({"dataQualityEvaluationTaskId": 10001}, "dataQualityEvaluationTaskId") for k in (
        "create-data-quality-evaluation-task-notification", "update-data-quality-evaluation-task-notification")},
    **{k: ({"projectId": 380708}, "projectId") for k in ("delete-project", "project-deleted")},
    # a download is about its SQL, which some module types (dw_excel) do not have: nothing required
    **{k: ({}, None) for k in ("download-resources", "download-resources-execute")},
    "upload-data-to-table": ({"tableGuid": "odps.mc_project.test_table"}, "tableGuid"),
}

REQUIRED = sorted((kind, key) for kind, (_, key) in MINIMAL.items() if key)


def body(kind: str, **fields: Any) -> dict[str, Any]:
    """A bare ``{"datacontenttype", "data"}`` body of ``kind`` with its minimal fields."""
    data = {"eventCode": kind, "tenantId": 28378, **copy.deepcopy(MINIMAL[kind][0]), **fields}
    return {"datacontenttype": "application/json;charset=utf-8", "data": data}


def cloudevent(event_type: str, data: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "datacontenttype": "application/json;charset=utf-8", "data": data,
        "id": "539fd8f4-4ea1-4625-aa8b-6c906674****", "source": "acs.dataworks", "specversion": "1.0",
        "subject": "", "time": "2020-11-19T21:04:41+08:00", "type": event_type,
        "aliyunaccountid": "123456789098****", "aliyunpublishtime": "2020-11-19T21:04:42.179PRC",
        "aliyuneventbusname": "default", "aliyunregionid": "cn-hangzhou", "aliyunpublishaddr": "172.25.XX.XX",
        **fields,
    }


def fc(event_type: str, message_body: Any, **fields: Any) -> dict[str, Any]:
    return {
        "blockBusiness": True, "eventCategoryType": "resources-download", "eventType": event_type,
        "extensionBizId": "job_6603643923728775070", "messageBody": message_body,
        "messageId": "52d44ee7-b51f-4d4d-afeb-*******", **fields,
    }


def fixture_docs(relative: str) -> list[dict[str, Any]]:
    """The records of a seed fixture, read through the real reader (repairs included)."""
    return [raw.doc for raw in read_file(DATA / relative) if raw.doc is not None]


def parse(doc: dict[str, Any]):
    envelope = dataworks.SOURCE.detect(doc)
    assert envelope is not None, doc
    return dataworks.parse(doc, envelope)


# ---------------------------------------------------------------------------------------------
# catalogue
# ---------------------------------------------------------------------------------------------


def test_kinds_are_the_documented_event_codes():
    assert dataworks.KINDS == ENGLISH_CODES | CHINESE_ONLY_CODES
    assert set(MINIMAL) == set(dataworks.KINDS)


@pytest.mark.parametrize("kind", sorted(ENGLISH_CODES | CHINESE_ONLY_CODES))
def test_every_kind_has_an_event_model(kind: str):
    model = dataworks.MODELS[kind]
    assert issubclass(model, dataworks.DataWorksEvent)
    assert model.__doc__ and model.model_fields["data"].annotation.__doc__


@pytest.mark.parametrize(
    ("event_type", "kind"),
    [
        ("dataworks:NodeChange:NodeChangeCreated", "node-change-created"),
        ("dataworks:NodeChange:UnFreezeNode", "unfreeze-node"),
        ("dataworks:TableChange:DeployTabl", "deploy-table"),  # the document's typo
        ("dataworks:TableChange:DeployTable", "deploy-table"),
        # the table gives instance-status-changes as this type's code; the sample says this
        ("dataworks:DagStatusChanges:DagStatusChanges", "dag-status-changes"),
        ("dataworks:InstanceStatusChanges:InstanceStatusChanges", "instance-status-changes"),
        ("dataworks:ApprovalChange:ApprovalChangeBeforeCreate", "approval-change-before-create"),
        ("dataworks:ResourcesUpload:UploadDataToTable", "upload-data-to-table"),
    ],
)
def test_eventbridge_types_map_to_codes(event_type: str, kind: str):
    assert dataworks.EVENT_TYPES[event_type] == kind
    assert parse(cloudevent(event_type, body(kind)["data"])).kind == kind


def test_every_eventbridge_type_maps_to_a_kind():
    assert set(dataworks.EVENT_TYPES.values()) <= dataworks.KINDS
    assert len({v for v in dataworks.EVENT_TYPES.values()}) == len(ENGLISH_CODES)


@pytest.mark.parametrize("kind", sorted(MINIMAL))
def test_minimal_body_of_every_kind_is_accepted(kind: str):
    event = parse(body(kind))
    assert (event.source, event.kind, event.known, event.envelope) == ("dataworks", kind, True, "body")
    assert isinstance(event.model, dataworks.MODELS[kind])
    assert event.model.data.tenant_id == "28378"


@pytest.mark.parametrize(("kind", "key"), REQUIRED)
def test_missing_required_id_names_the_field(kind: str, key: str):
    doc = body(kind)
    del doc["data"][key]
    with pytest.raises(ValidationError) as info:
        dataworks.parse(doc, "body")
    assert any(error["loc"] == ("data", key) for error in info.value.errors())
    with pytest.raises(RecordError, match=f"data.{key}"):
        registry.parse_record(doc)


@pytest.mark.parametrize(("kind", "key"), [(k, v) for k, v in REQUIRED if v not in ("process", "order", "target")])
@pytest.mark.parametrize("empty", [None, "", []])
def test_null_or_empty_required_id_is_rejected(kind: str, key: str, empty: Any):
    with pytest.raises(ValidationError):
        dataworks.parse(body(kind, **{key: empty}), "body")


# ---------------------------------------------------------------------------------------------
# envelopes: kind, id, time, actor
# ---------------------------------------------------------------------------------------------


def test_cloudevent_kind_from_type_wins_over_event_code():
    doc = cloudevent("dataworks:InstanceStatusChanges:InstanceStatusChanges", {"eventCode": "xxxx", "taskId": 1})
    event = parse(doc)
    assert (event.envelope, event.kind, event.known) == ("cloudevent", "instance-status-changes", True)
    assert event.event_id == doc["type"] + ":539fd8f4-4ea1-4625-aa8b-6c906674****"
    assert event.event_time == datetime(2020, 11, 19, 13, 4, 41, tzinfo=timezone.utc)
    assert event.model.aliyun_publish_time == datetime(2020, 11, 19, 13, 4, 42, 179000, tzinfo=timezone.utc)


def test_cloudevent_id_is_scoped_by_type():
    """The seed gives the download and the upload sample one id: two events, not a duplicate."""
    (download,) = fixture_docs("download-resources/execute_cloudevent_en.json")
    (upload,) = fixture_docs("upload-data-to-table/cloudevent_en.json")
    assert download["id"] == upload["id"]
    assert parse(download).event_id != parse(upload).event_id
    assert parse(download).event_id == parse(copy.deepcopy(download)).event_id  # a re-delivery is one event
    untyped = {"source": "acs.dataworks", "id": "539fd8f4", "data": {"eventCode": "commit-file", "fileId": 1}}
    assert parse(untyped).event_id == "539fd8f4"


def test_cloudevent_unknown_type_falls_back_to_event_code():
    event = parse(cloudevent("dataworks:Something:New", body("commit-file")["data"]))
    assert (event.kind, event.known, type(event.model).__name__) == ("commit-file", True, "FileChangeEvent")


def test_cloudevent_of_unknown_kind_is_generic_activity():
    event = parse(cloudevent("dataworks:Something:New", {"tenantId": 1, "operator": "19***735"}))
    assert (event.kind, event.known) == ("dataworks:Something:New", False)
    assert isinstance(event.model, dataworks.UnknownDataWorksEvent)
    assert event.actor == "19***735" and event.event_id is not None


def test_cloudevent_time_missing_uses_body_time_then_publish_time():
    data = body("node-change-updated", modifyTime=1646364549642)["data"]
    event = parse(cloudevent("dataworks:NodeChange:NodeChangeUpdated", data, time=None))
    assert event.event_time == datetime(2022, 3, 4, 3, 29, 9, 642000, tzinfo=timezone.utc)
    del data["modifyTime"]
    event = parse(cloudevent("dataworks:NodeChange:NodeChangeUpdated", data, time=None))
    assert event.event_time == datetime(2020, 11, 19, 13, 4, 42, 179000, tzinfo=timezone.utc)


def test_cloudevent_with_bad_time_is_a_field_error():
    with pytest.raises(ValidationError, match="time"):
        parse(cloudevent("dataworks:NodeChange:NodeChangeUpdated", {"nodeId": 1}, time="yesterday"))


def test_fc_message_kind_id_and_body():
    event = parse(fc("upload-data-to-table", {"eventCode": "xxxx", "tableGuid": "odps.p.t", "operatorUid": "12*"}))
    assert (event.envelope, event.kind, event.known) == ("fc", "upload-data-to-table", True)
    assert event.event_id == "52d44ee7-b51f-4d4d-afeb-*******"
    assert event.model.data.table_guid == "odps.p.t" and event.actor == "12*"
    assert event.model.block_business is True and event.model.event_category_type == "resources-download"


def test_fc_message_body_may_be_a_json_string():
    event = parse(fc("commit-file", json.dumps({"fileId": 50830, "operator": "19***735"})))
    assert (event.kind, event.model.data.file_id, event.actor) == ("commit-file", "50830", "19***735")


def test_fc_event_type_unknown_falls_back_to_body_event_code():
    event = parse(fc("some-category", {"eventCode": "freeze-node", "nodeIds": "1,2"}))
    assert (event.kind, event.model.data.node_ids) == ("freeze-node", ["1", "2"])


def test_body_without_event_code_is_unknown():
    event = parse({"datacontenttype": "application/json", "data": {"tableName": "t1", "operator": "42"}})
    assert (event.kind, event.known, event.envelope) == (dataworks.UNKNOWN_KIND, False, "body")
    assert event.event_id is None and event.actor == "42"
    assert event.model.data.tableName == "t1"  # extras kept


def test_body_with_unknown_event_code_keeps_the_code():
    event = parse({"datacontenttype": "application/json", "data": {"eventCode": "pre-kill-instance", "taskIds": [1]}})
    assert (event.kind, event.known) == ("pre-kill-instance", False)


def test_approval_pre_event_kind_from_body_event_type():
    doc = {"datacontenttype": "application/json", "data": {"eventType": "approval-create-before", "order": {}}}
    assert parse(doc).kind == "approval-change-before-create"
    doc["data"]["eventType"] = "approval"  # not an event name: no kind
    assert parse(doc).kind == dataworks.UNKNOWN_KIND


@pytest.mark.parametrize(
    ("relative", "actor"),
    [
        ("node-change/created_body_en.json", "19***735"),  # operator
        ("download-resources/execute_cloudevent_en.json", "14931896037*******"),  # operatorUid
        ("approval-change/finished_body_en.json", "286098539641742899"),  # the approver (assignee)
        ("approval-change-before-create/body_en.json", "1239****8872"),
        ("instance-status-changes/body_en.json", None),  # the scheduler acted
    ],
)
def test_actor_is_the_operator_of_the_event(relative: str, actor: str | None):
    assert parse(fixture_docs(relative)[0]).actor == actor


def test_approval_created_actor_is_the_applicant():
    doc = body("approval-change-created", assignee="999", process={"applicant": "286098539641742899"})
    assert parse(doc).actor == "286098539641742899"


def test_dqc_feedback_actor_and_time():
    event = parse(body("dqc-check-feedback-event", createUser="110755000425****", beginTime="1676448145000"))
    assert event.actor == "110755000425****"
    assert event.event_time == datetime(2023, 2, 15, 8, 2, 25, tzinfo=timezone.utc)


# ---------------------------------------------------------------------------------------------
# leniency
# ---------------------------------------------------------------------------------------------


def test_masked_ids_and_masked_times():
    (doc,) = fixture_docs("node-change/created_body_en.json")  # bare 70***003 etc., repaired to strings
    data = parse(doc).model.data
    ids = (data.node_id, data.baseline_id, data.tenant_id, data.project_id)
    assert ids == ("70***003", "70***287", "28***656", "9***4")
    assert data.modify_time is None and data.create_time is None  # 17***864 cannot be a time


@pytest.mark.parametrize(
    "wire",
    [
        [10000405472, 10000405473],
        "10000405472,10000405473",
        " 10000405472 , 10000405473 ",
        "[10000405472, 10000405473]",
    ],
)
def test_id_lists_arrays_or_comma_strings(wire: Any):
    data = parse(body("workbench-monitor-alert", alarmType="REMIND_ALERT", nodeIds=wire, taskIds=wire)).model.data
    assert data.node_ids == data.task_ids == ["10000405472", "10000405473"]


def test_multiple_time_periods_is_a_json_string_holding_an_array():
    (doc,) = fixture_docs("backfill-data/body_en.json")
    periods = parse(doc).model.data.multiple_time_periods
    assert [(p.biz_begin_time, p.biz_end_time) for p in periods] == [("2022-04-17", "2022-04-17")]
    inline = parse(body("backfill-data", multipleTimePeriods=[{"bizBeginTime": "a", "bizEndTime": "b"}]))
    assert inline.model.data.multiple_time_periods[0].biz_end_time == "b"
    with pytest.raises(ValidationError, match="multipleTimePeriods"):
        parse(body("backfill-data", multipleTimePeriods="[{\"bizBeginTime\": "))


@pytest.mark.parametrize(
    "wire", [1652700577000, "1652700577000", 1652700577, "2022-05-16 11:29:37", "2022-05-16T19:29:37+08:00"]
)
def test_times_as_millis_seconds_or_formatted(wire: Any):
    data = parse(body("instance-status-changes", modifyTime=wire)).model.data
    assert data.modify_time == datetime(2022, 5, 16, 11, 29, 37, tzinfo=timezone.utc)


def test_numbers_booleans_and_escapes_from_strings():
    (doc,) = fixture_docs("dqc-check/finished_body_en.json")
    data = parse(doc).model.data
    assert (data.actual_expression, data.op, data.fixed_check, data.expect_value) == ("ds=20230210", ">=", True, 0.0)
    data = parse(body("download-resources", dataRowSize="123456", fileSize="10241024")).model.data
    assert (data.data_row_size, data.file_size) == (123456, 10241024)
    assert parse(body("project-deleted", blockBusiness="false")).model.data.block_business is False


@pytest.mark.parametrize(
    ("apply_period", "expires_at"),
    [
        ("2997964800000", datetime(2064, 12, 31, 16, 0, tzinfo=timezone.utc)),
        ("2997***0000", None),  # masked (Chinese sample)
        ("30", None),  # too small to be epoch millis: not a 1970 date
        (None, None),
    ],
)
def test_apply_period_expiry(apply_period: str | None, expires_at: datetime | None):
    doc = body("approval-change-finished", process={"approvalContent": {"applyPeriod": apply_period}})
    assert parse(doc).model.data.process.approval_content.expires_at == expires_at


def test_approval_grantees_and_maxcompute_content():
    raws = list(read_file(DATA / "approval-change/created_then_truncated_en.json"))
    assert [raw.error is None for raw in raws] == [True, False]  # the second sample is truncated
    content = parse(raws[0].doc).model.data.process.approval_content
    assert content.expires_at == datetime(2064, 12, 31, 16, 0, tzinfo=timezone.utc)
    assert [(g.grantee_id, g.grantee_type_sub) for g in content.grantee_accounts] == [
        ("2860985***99", "103"), ("237857631119109360", "105")]
    (item,) = content.array_data
    assert isinstance(item, MaxComputeAuthorizedObject)
    assert (item.odps_project, item.odps_table, item.actions) == ("B_MC1", "loghub_070103", ["Select", "Describe"])


@pytest.mark.parametrize(
    ("relative", "form"),
    [
        ("authorized-content/maxcompute_fragment_en.json", MaxComputeAuthorizedObject),
        ("authorized-content/dataservice_fragment_en.json", DataServiceAuthorizedApi),
        ("authorized-content/dataservice_fragment_zh.json", DataServiceAuthorizedApi),
    ],
)
def test_array_data_forms_from_the_appendixes(relative: str, form: type):
    (item,) = fixture_docs(relative)
    doc = body("approval-change-finished", process={"approvalContent": {"arrayData": [item]}})
    (parsed,) = parse(doc).model.data.process.approval_content.array_data
    assert type(parsed) is form
    if form is DataServiceAuthorizedApi:
        assert (parsed.name, parsed.type, parsed.resource_version) == ("api_api", "1", 1)


def test_array_data_of_another_form_is_kept_whole():
    doc = body("approval-change-created", process={"approvalContent": {"arrayData": [{"foo": 1}]}})
    (parsed,) = parse(doc).model.data.process.approval_content.array_data
    assert type(parsed) is AuthorizedObject and parsed.model_extra == {"foo": 1}


def test_download_keeps_sql_text():
    (doc,) = fixture_docs("download-resources/execute_cloudevent_en.json")
    assert parse(doc).model.data.sql_text == "select sku_code, sku_name from dim_sku"


def test_di_job_v1_id_and_v2_job_id():
    v1 = {"datacontenttype": "application/json", "data": {"eventCode": "start-diJob", "id": 5280}}
    assert parse(v1).model.data.job_id == "5280"
    (doc,) = fixture_docs("di-job/batch_start_zh.json")
    data = parse(doc).model.data
    assert [m.id for m in data.table_mappings] == ["5777", "5679"]
    first = data.table_mappings[0].table_mapping[0]
    assert (first.src_table, first.dst_table) == ("test_verify1", "test_verify1")


def test_notification_receivers_under_the_misspelt_key():
    notifications = {"condition": "c", "notifications": [{"channels": ["Mail"], "notificaionReceivers": [
        {"receiverType": "AliUid", "receiverValues": ["1107550004253538"], "extension": "{ \"atAll\": true }"}]}]}
    doc = body(
        "create-data-quality-evaluation-task", notifications=notifications, runtimeConf="{\"queue\": \"default\"}"
    )
    data = parse(doc).model.data
    (receiver,) = data.notifications.notifications[0].notification_receivers
    assert receiver.extension == {"atAll": True} and data.runtime_conf == {"queue": "default"}


# ---------------------------------------------------------------------------------------------
# partial samples without an event code: their body validates against the intended model
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("relative", "kind", "check"),
    [
        ("table-change/body_no_code_en.json", "commit-table", ("table_name", "table1")),
        ("table-change/body_no_code_zh.json", "deploy-table", ("max_compute_project", "project1")),
        ("node-change/deleted_body_no_code_en.json", "node-change-deleted", ("node_id", "100***150")),
        ("node-batch-operation/body_no_code_en.json", "freeze-node", ("node_ids", ["1", "2", "3"])),
        ("node-batch-operation/body_no_code_zh.json", "undeploy-node", ("node_ids", ["1", "2", "3"])),
        ("workbench-monitor-alert/topic_body_no_code_en.json", "workbench-monitor-alert", ("topic_id", "1084769")),
        ("workbench-monitor-alert/topic_inline_zh.json", "workbench-monitor-alert", ("task_id", "307***0357")),
        ("workbench-monitor-alert/remind_body_no_code_en.json", "workbench-monitor-alert",
         ("task_ids", ["3072900896", "3072900870", "3072900855"])),
        ("workbench-monitor-alert/remind_inline_zh.json", "workbench-monitor-alert",
         ("node_ids", ["1000***5472", "1000***5473", "1000***5474"])),
        ("workbench-monitor-alert/resource_group_body_no_code_en.json", "workbench-monitor-alert",
         ("resource_group_name", "emr_exclusive_scheduld")),
        ("workbench-monitor-alert/resource_group_inline_zh.json", "workbench-monitor-alert",
         ("remind_type", "RES_GROUP_THRESHOLD")),
        ("dqc-check/feedback_body_no_code_en.json", "dqc-check-feedback-event", ("rule_check_id", "521771452")),
        ("dqc-check/feedback_inline_zh.json", "dqc-check-feedback-event",
         ("task_id", "167644814****9a26ecf4063a88797")),
    ],
)
def test_partial_sample_body_validates_as_its_kind(relative: str, kind: str, check: tuple[str, Any]):
    (doc,) = fixture_docs(relative)
    assert parse(doc).kind == dataworks.UNKNOWN_KIND  # no event code: generic activity
    event = dataworks.parse_body(kind, doc)
    assert isinstance(event, dataworks.MODELS[kind])
    attribute, value = check
    assert getattr(event.data, attribute) == value
    assert dataworks.parse_body(kind, doc["data"]).data == event.data  # the data object alone works too


def test_parse_body_rejects_an_unknown_kind():
    with pytest.raises(RecordError, match="kind"):
        dataworks.parse_body("no-such-event", {"data": {}})


# ---------------------------------------------------------------------------------------------
# detection
# ---------------------------------------------------------------------------------------------

OTHER_SOURCES = {
    "maxcompute": {
        "eventId": "918510a4-7b63-47d2-b053-8f9db82c431a", "eventName": "InsertJob", "eventSource": "Odps",
        "serviceName": "MaxCompute", "eventType": "JobEvent", "eventTime": "2020-01-09T12:12:14Z",
        "userIdentity": {"principalId": "1234", "accountId": "1234", "type": "ram-user"},
        "additionalEventData": {"InstanceId": "20201027135756"},
    },
    "dataphin": {
        "event_id": "a1b2", "event_name": "CreateTable", "log_time": "2024-01-01 00:00:00",
        "user_identity": {"user_id": "300"}, "data": "eyJhIjogMX0=",
    },
    "datahub": {
        "entityUrn": "urn:li:dataset:(urn:li:dataPlatform:maxcompute,p.t,PROD)", "entityType": "dataset",
        "category": "TAG", "operation": "ADD", "modifier": "urn:li:tag:pii",
        "auditStamp": {"actor": "urn:li:corpuser:jdoe", "time": 1649953100653},
    },
    "other-cloudevent": {"specversion": "1.0", "id": "x", "source": "acs.oss", "type": "oss:ObjectCreated:PutObject",
                         "data": {"eventCode": "x"}},
    "arraydata-item": {"ownerBaseId": "1", "objectType": "TABLE", "odpsTable": "t", "actions": ["Select"]},
    "bare-data-without-code": {"data": {"tenantId": 1}},
    "data-not-an-object": {"datacontenttype": "application/json", "data": "text"},
    "empty": {},
}


@pytest.mark.parametrize("name", sorted(OTHER_SOURCES))
def test_detect_rejects_other_shapes(name: str):
    assert dataworks.SOURCE.detect(OTHER_SOURCES[name]) is None


@pytest.mark.parametrize(
    ("doc", "envelope"),
    [
        (cloudevent("dataworks:NodeChange:NodeChangeCreated", {"nodeId": 1}), "cloudevent"),
        ({"type": "dataworks:NodeChange:NodeChangeCreated", "data": {"nodeId": 1}}, "cloudevent"),
        ({"source": "acs.dataworks", "data": {}}, "cloudevent"),
        (fc("commit-file", {"fileId": 1}), "fc"),
        (fc("commit-file", "{\"fileId\": 1}"), "fc"),
        ({"datacontenttype": "application/json;charset=utf-8", "data": {}}, "body"),
        ({"data": {"eventCode": "project-deleted", "projectId": 1}}, "body"),
    ],
)
def test_detect_recognises_the_three_envelopes(doc: dict[str, Any], envelope: str):
    assert dataworks.SOURCE.detect(doc) == envelope
    source, claimed = registry.detect(doc)  # and no other source claims it
    assert (source.name, claimed) == ("dataworks", envelope)


def test_parse_rejects_an_unknown_envelope():
    with pytest.raises(RecordError, match="envelope"):
        dataworks.parse({"data": {}}, "smoke-signal")
