"""MaxCompute ActionTrail events: catalogue, envelopes, leniency and required ids (seed 002)."""

from __future__ import annotations

import json
import typing
from datetime import datetime, timezone
from pathlib import Path

import pytest
from pydantic import ValidationError

from lineage.events import maxcompute
from lineage.events.base import RecordError

DATA = Path(__file__).resolve().parents[1] / "data" / "maxcompute"

# Every eventName of the seed's "Scope" table, with its eventType group.
SEED_KINDS = {
    "InsertJob": "JobEvent", "JobChange": "JobEvent",
    "DownloadTable": "TunnelEvent", "UploadTable": "TunnelEvent", "InstanceTunnel": "TunnelEvent",
    "CreateRole": "RoleEvent", "DropRole": "RoleEvent",
    "AddUser": "UserEvent", "RemoveUser": "UserEvent",
    "CreateTable": "TableEvent", "ChangeTable": "TableEvent", "DropTable": "TableEvent",
    "DescribeTable": "TableEvent", "ReadTableData": "TableEvent", "ChangeTableData": "TableEvent",
    "GrantRole": "PrivilegeEvent", "RevokeRole": "PrivilegeEvent", "GrantACL": "PrivilegeEvent",
    "RevokeACL": "PrivilegeEvent", "GrantLabel": "PrivilegeEvent", "RevokeLabel": "PrivilegeEvent",
    "PutRolePolicy": "PrivilegeEvent", "SetProjectPolicy": "PrivilegeEvent",
    "SetTableLabel": "PrivilegeEvent", "SetUserLabel": "PrivilegeEvent",
    "CreateProject": "AdminEvent", "UpdateProject": "AdminEvent", "DeleteProject": "AdminEvent",
}

# The smallest additionalEventData each kind accepts (its required ids).
MINIMAL_DATA = {
    "InsertJob": {"InstanceId": "20201027135756"}, "JobChange": {"InstanceId": "20201027135756"},
    "DownloadTable": {"TableName": "t", "ProjectName": "p"}, "UploadTable": {"TableName": "t", "ProjectName": "p"},
    "InstanceTunnel": {"InstanceId": "20201027080131"},
    "CreateRole": {"RoleName": "r", "ProjectName": "p"}, "DropRole": {"RoleName": "r", "ProjectName": "p"},
    "AddUser": {"UserName": "ram$a@b.com:sub", "ProjectName": "p"},
    "RemoveUser": {"UserName": "ram$a@b.com:sub", "ProjectName": "p"},
    **{k: {"TableName": "t", "ProjectName": "p"} for k in (
        "CreateTable", "ChangeTable", "DropTable", "DescribeTable", "ReadTableData", "ChangeTableData")},
    **{k: {"UserName": "aliyun$a@b.com", "ProjectName": "p"} for k in (
        "GrantRole", "RevokeRole", "GrantACL", "RevokeACL", "GrantLabel", "RevokeLabel")},
    "PutRolePolicy": {"RoleName": "r", "ProjectName": "p"},
    "SetProjectPolicy": {"CurrentProject": "p"},
    "SetTableLabel": {"ObjectName": "t"},
    "SetUserLabel": {"UserName": "aliyun$a@b.com"},
    "CreateProject": {"ProjectName": "p"}, "UpdateProject": {"ProjectName": "p"}, "DeleteProject": {"ProjectName": "p"},
}


def event(kind: str = "InsertJob", **overrides: typing.Any) -> dict[str, typing.Any]:
    """A bare ActionTrail MaxCompute event with the seed's common Example values."""
    doc: dict[str, typing.Any] = {
        "eventId": "918510a4-7b63-47d2-b053-8f9db82c431a",
        "acsRegion": "cn-hangzhou",
        "eventName": kind,
        "eventTime": "2020-01-09T12:12:14Z",
        "eventType": SEED_KINDS.get(kind, "JobEvent"),
        "serviceName": "MaxCompute",
        "userIdentity": {"accountId": "196550154****", "principalId": "10095174****",
                         "type": "root-account", "userName": "root"},
        "additionalEventData": dict(MINIMAL_DATA.get(kind, {})),
    }
    doc.update(overrides)
    return doc


def parse(doc: dict[str, typing.Any]):
    envelope = maxcompute.SOURCE.detect(doc)
    assert envelope is not None, "record not detected as MaxCompute"
    return maxcompute.parse(doc, envelope)


# --- catalogue --------------------------------------------------------------------------------


def test_kinds_are_the_seed_catalogue() -> None:
    assert maxcompute.KINDS == frozenset(SEED_KINDS)
    assert maxcompute.EVENT_TYPES == SEED_KINDS
    assert set(maxcompute.MODELS) == set(SEED_KINDS)


@pytest.mark.parametrize("kind", sorted(SEED_KINDS))
def test_every_kind_has_a_model_tagged_with_it(kind: str) -> None:
    model = maxcompute.MODELS[kind]
    assert issubclass(model, maxcompute.MaxComputeEvent)
    assert model.__doc__
    tag = model.model_fields["event_name"].annotation
    assert kind in typing.get_args(tag)


@pytest.mark.parametrize("kind", sorted(SEED_KINDS))
def test_every_kind_parses_with_only_its_required_ids(kind: str) -> None:
    parsed = parse(event(kind))
    assert (parsed.kind, parsed.known, parsed.envelope) == (kind, True, "actiontrail")
    assert type(parsed.model) is maxcompute.MODELS[kind]
    assert parsed.event_id == "918510a4-7b63-47d2-b053-8f9db82c431a"
    assert parsed.event_time == datetime(2020, 1, 9, 12, 12, 14, tzinfo=timezone.utc)
    assert parsed.actor == "root"


# --- seed fixtures (the generic fixture test runs them all through the reader) ----------------


def _assembled() -> list[Path]:
    return sorted(DATA.glob("*/assembled.json")) + [DATA / "common" / "example_event.json"]


@pytest.mark.parametrize("path", _assembled(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_assembled_fixture(path: Path) -> None:
    from lineage.io.reader import read_file

    expect = json.loads(path.with_name(path.name.replace(".json", ".expect.json")).read_text())
    [record] = list(read_file(path))
    if expect["expect"] == "quarantined":
        assert record.doc is None and expect["reason"] in (record.error or "")
        return
    assert record.doc is not None, record.error
    parsed = parse(record.doc)
    assert (parsed.kind, type(parsed.model).__name__, parsed.event_id) == (
        expect["kind"], expect["model"], expect["event_id"])


def test_seed_example_event_is_a_failed_job() -> None:
    from lineage.io.reader import read_file

    [record] = list(read_file(DATA / "common" / "example_event.json"))
    model = parse(record.doc).model
    assert model.failed is True
    assert model.error_message == "ODPS-0130161:[1,18] Parse exception - invalid token 'bigstring'"
    assert model.referenced_resources.instance == ["2020102713575683gc2j****"]


def test_describe_table_and_set_project_policy_parse_once_the_seed_typos_are_fixed() -> None:
    # The seed's samples have a trailing comma / a stray quote; the intended records parse.
    describe = parse(event("DescribeTable", additionalEventData={"TableName": "ttt", "ProjectName": "prj1"}))
    assert describe.model.additional_event_data.table_name == "ttt"
    policy = parse(event("SetProjectPolicy", additionalEventData={"CurrentProject": "test_prj"}))
    assert policy.model.additional_event_data.current_project == "test_prj"


# --- leniency ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "refs, expected",
    [
        ({"Instance": ["2020102713575683gc2j****"]}, ["2020102713575683gc2j****"]),
        ({"Instance": "2020102713575683gc2j****"}, ["2020102713575683gc2j****"]),
        ({"Instance": "a1,a2"}, ["a1", "a2"]),
        ({"Instance": [20201027135756]}, ["20201027135756"]),
        ('{"Instance": ["a1"]}', ["a1"]),
    ],
    ids=["list", "single-string", "comma-string", "number", "json-string"],
)
def test_referenced_resources_are_lists_whatever_the_wire_shape(refs, expected) -> None:
    model = parse(event("InsertJob", referencedResources=refs)).model
    assert model.referenced_resources.instance == expected


def test_masked_and_numeric_ids_are_text() -> None:
    model = parse(event("InsertJob", additionalEventData={"InstanceId": 20201027135756})).model
    assert model.additional_event_data.instance_id == "20201027135756"
    assert model.user_identity.account_id == "196550154****"
    numeric = parse(event(userIdentity={"accountId": 1965501540000, "principalId": 10095174})).model
    assert (numeric.user_identity.account_id, numeric.user_identity.principal_id) == ("1965501540000", "10095174")


@pytest.mark.parametrize("key", ["SesssionId", "SessionId"])
def test_tunnel_session_id_accepts_the_seed_spelling_and_the_correct_one(key: str) -> None:
    data = {"TableName": "t", "ProjectName": "p", key: "20201027200931a3baca0b037518a7"}
    model = parse(event("DownloadTable", additionalEventData=data)).model
    assert model.additional_event_data.session_id == "20201027200931a3baca0b037518a7"
    assert model.additional_event_data.model_dump(by_alias=True)["SesssionId"] == "20201027200931a3baca0b037518a7"


@pytest.mark.parametrize(
    "value",
    ["2020-01-09T12:12:14Z", "2020-01-09 12:12:14", 1578571934000, "1578571934000", "2020-01-09T20:12:14+08:00"],
)
def test_event_time_formats(value) -> None:
    parsed = parse(event(eventTime=value))
    assert parsed.event_time == datetime(2020, 1, 9, 12, 12, 14, tzinfo=timezone.utc)


def test_unparseable_event_time_names_the_field() -> None:
    with pytest.raises(ValidationError) as info:
        parse(event(eventTime="20***14"))
    assert ("eventTime",) in [err["loc"] for err in info.value.errors()]


def test_additional_event_data_as_a_json_string() -> None:
    model = parse(event("CreateTable", additionalEventData='{"TableName": "ttt", "ProjectName": "meta_dev"}')).model
    assert model.additional_event_data.table_name == "ttt"


def test_operation_text_is_kept_verbatim() -> None:
    sql = "insert overwrite table a\n  select *   from b; -- note"
    data = {"InstanceId": "i1", "OperationText": sql}
    assert parse(event("InsertJob", additionalEventData=data)).model.additional_event_data.operation_text == sql


def test_update_project_properties_embedded_json() -> None:
    props = '{"odps.sql.decimal.odps2":"true","odps.sql.hive.compatible":"false"}'
    model = parse(event("UpdateProject", additionalEventData={"ProjectName": "xxx", "Properties": props,
                                                              "State": "FROZEN"})).model
    assert model.additional_event_data.properties == {"odps.sql.decimal.odps2": "true",
                                                      "odps.sql.hive.compatible": "false"}
    assert model.additional_event_data.state == "FROZEN"


def test_role_policy_document_is_readable_and_text_kept() -> None:
    text = ('{\n    "Statement": [{"Action": ["odps:Read", "odps:List"], "Effect": "Allow",'
            ' "Resource": ["acs:odps:*:projects/p1"]}],\n    "Version": "1"}')
    data = {"RoleName": "test1_role", "ProjectName": "meta_dev", "OperationText": text}
    policy_data = parse(event("PutRolePolicy", additionalEventData=data)).model.additional_event_data
    assert policy_data.operation_text == text
    assert policy_data.policy.version == "1"
    assert policy_data.policy.statement[0].action == ["odps:Read", "odps:List"]
    assert policy_data.policy.statement[0].resource == ["acs:odps:*:projects/p1"]
    data["OperationText"] = "not a policy"
    assert parse(event("PutRolePolicy", additionalEventData=data)).model.additional_event_data.policy is None


def test_extra_fields_are_kept() -> None:
    model = parse(event(eventRW="Write", additionalEventData={"InstanceId": "i1", "Priority": 9})).model
    assert model.model_extra["eventRW"] == "Write"
    assert model.additional_event_data.model_extra["Priority"] == 9


# --- failed operations -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "overrides, failed",
    [
        ({}, False),
        ({"errorCode": "ODPS-10000"}, True),
        ({"eventName": "JobChange", "additionalEventData": {"InstanceId": "i1", "Status": "Failed"}}, True),
        ({"eventName": "JobChange", "additionalEventData": {"InstanceId": "i1", "Status": "Terminated"}}, False),
        ({"eventName": "SomethingNew", "additionalEventData": {"Status": "failed"}}, True),
    ],
    ids=["ok", "error-code", "status-failed", "status-other", "unknown-kind-status"],
)
def test_failed_operations_are_valid_events(overrides, failed: bool) -> None:
    parsed = parse(event("InsertJob", **overrides))
    assert parsed.model.failed is failed


# --- unknown kinds and required ids -----------------------------------------------------------


def test_unknown_kind_is_kept_as_generic_activity() -> None:
    parsed = parse(event("CreateFunction", additionalEventData={"FunctionName": "f"},
                         referencedResources={"Function": "f"}))
    assert parsed.known is False
    assert parsed.kind == "CreateFunction"
    assert type(parsed.model) is maxcompute.UnknownMaxComputeEvent
    assert parsed.model.additional_event_data == {"FunctionName": "f"}
    assert parsed.model.referenced_resources == {"Function": ["f"]}


@pytest.mark.parametrize(
    "kind, data, loc",
    [
        ("InsertJob", {"ProjectName": "meta"}, ("additionalEventData", "InstanceId")),
        ("JobChange", {"InstanceId": None, "Status": "Failed"}, ("additionalEventData", "InstanceId")),
        ("InstanceTunnel", {"InstanceId": "  "}, ("additionalEventData", "InstanceId")),
        ("DownloadTable", {"ProjectName": "p"}, ("additionalEventData", "TableName")),
        ("CreateTable", {"TableName": "t"}, ("additionalEventData", "ProjectName")),
        ("CreateRole", {"ProjectName": "p"}, ("additionalEventData", "RoleName")),
        ("AddUser", {"ProjectName": "p"}, ("additionalEventData", "UserName")),
        ("GrantACL", {"ProjectName": "p", "ObjectName": "p"}, ("additionalEventData", "UserName")),
        ("SetProjectPolicy", {}, ("additionalEventData", "CurrentProject")),
        ("SetTableLabel", {"ObjectType": "TABLE"}, ("additionalEventData", "ObjectName")),
        ("DeleteProject", {"Properties": "{}"}, ("additionalEventData", "ProjectName")),
        ("ReadTableData", None, ("additionalEventData",)),
    ],
)
def test_known_kind_missing_its_id_names_the_field(kind: str, data, loc: tuple[str, ...]) -> None:
    doc = event(kind)
    if data is None:
        del doc["additionalEventData"]
    else:
        doc["additionalEventData"] = data
    with pytest.raises(ValidationError) as info:
        parse(doc)
    assert loc in [err["loc"] for err in info.value.errors()]


def test_record_without_event_name_is_a_record_error() -> None:
    with pytest.raises(RecordError) as info:
        maxcompute.parse({"eventId": "x", "serviceName": "MaxCompute"}, "actiontrail")
    assert info.value.field == "eventName"


# --- identity, ids, envelopes ------------------------------------------------------------------


@pytest.mark.parametrize(
    "identity, actor",
    [
        ({"principalId": "10095174****", "userName": "root"}, "root"),
        ({"principalId": "2035670932****", "type": "ram-user"}, "2035670932****"),
        ({"accountId": "196550154****"}, None),
        (None, None),
    ],
)
def test_actor_is_user_name_else_principal(identity, actor) -> None:
    assert parse(event(userIdentity=identity)).actor == actor


def test_missing_event_id_leaves_it_to_the_content_hash() -> None:
    doc = event()
    del doc["eventId"]
    assert parse(doc).event_id is None


@pytest.mark.parametrize(
    "marker",
    [
        {"serviceName": "MaxCompute"},
        {"serviceName": "Odps"},
        {"serviceName": None, "eventSource": "odps.aliyuncs.com"},
        {"serviceName": None},  # no service named: eventType + eventName of the seed's catalogue
    ],
    ids=["service-maxcompute", "service-odps", "event-source", "catalogue"],
)
def test_bare_actiontrail_event_is_detected(marker) -> None:
    assert maxcompute.SOURCE.detect(event("CreateTable", **marker)) == "actiontrail"


def test_unknown_kind_needs_the_service_name() -> None:
    assert maxcompute.SOURCE.detect(event("CreateFunction", serviceName=None, eventType="FunctionEvent")) is None


@pytest.mark.parametrize("as_string", [True, False], ids=["event-json-string", "event-object"])
def test_sls_delivery_envelope(as_string: bool) -> None:
    inner = event("DropTable", additionalEventData={"TableName": "hot_user_hs_top30", "ProjectName": "prj1",
                                                   "OperationText": "DROP_TABLE"})
    doc = {"__topic__": "actiontrail_audit_event", "__time__": 1578571934, "owner_id": "196550154****",
           "event": json.dumps(inner) if as_string else inner}
    assert maxcompute.SOURCE.detect(doc) == "sls"
    parsed = maxcompute.parse(doc, "sls")
    assert (parsed.kind, parsed.envelope, parsed.event_id) == ("DropTable", "sls", inner["eventId"])
    assert parsed.model.additional_event_data.table_name == "hot_user_hs_top30"


def test_sls_envelope_falls_back_to_the_log_time() -> None:
    inner = event()
    del inner["eventTime"]
    parsed = maxcompute.parse({"__topic__": "actiontrail_audit_event", "__time__": "1578571934",
                               "event": json.dumps(inner)}, "sls")
    assert parsed.event_time == datetime(2020, 1, 9, 12, 12, 14, tzinfo=timezone.utc)


OTHER_SOURCES = {
    "dataworks-cloudevent": {
        "specversion": "1.0", "id": "45ef4dewdwe1-7c35-447a-bd93-fab****", "source": "acs.dataworks",
        "type": "dataworks:NodeChangeEvent:UpdateNode", "time": "2024-07-12T11:08:50Z",
        "data": {"eventCode": "node-change-updated", "operator": "1107550004253538", "nodeId": "700003679716"},
    },
    "dataworks-fc": {
        "eventType": "dataworks:FileChange:CommitFile", "messageId": "e5fb7c2a-8d3e-4b8e-b44a-d7d1****",
        "messageBody": {"tenantId": "28378****10656", "projectId": 12345, "fileId": 502065},
    },
    "dataphin": {
        "event_id": "7f3c7d0e", "event_name": "CREATE_TABLE", "event_time": "2024-01-02 10:00:00",
        "user_identity": {"user_id": "300001", "user_name": "alice"}, "module": "Asset",
    },
    "datahub-ece": {
        "entityUrn": "urn:li:dataset:(urn:li:dataPlatform:maxcompute,proj.tbl,PROD)",
        "entityType": "dataset", "category": "TAG", "operation": "ADD",
        "auditStamp": {"actor": "urn:li:corpuser:datahub", "time": 1649953100653},
    },
    "actiontrail-other-service": {
        "eventId": "92b33345-0cef-47be-821f-fb9914d3****", "eventName": "DeleteDisk", "eventType": "ApiCall",
        "serviceName": "Ecs", "userIdentity": {"type": "system", "userName": "ecs.aliyuncs.com"},
        "eventTime": "2022-10-22T21:52:00Z",
    },
    "sls-other-service": {
        "__topic__": "actiontrail_audit_event",
        "event": json.dumps({"eventId": "e1", "eventName": "DeleteDisk", "serviceName": "Ecs",
                             "eventType": "ApiCall", "eventTime": "2022-10-22T21:52:00Z"}),
    },
    "sls-broken-event": {"__topic__": "actiontrail_audit_event", "event": '{"eventName": "InsertJob", '},
    "snake-case-lookalike": {"event_id": "x", "event_name": "InsertJob", "service_name": "MaxCompute"},
}


@pytest.mark.parametrize("name", sorted(OTHER_SOURCES))
def test_detect_rejects_other_sources(name: str) -> None:
    assert maxcompute.SOURCE.detect(OTHER_SOURCES[name]) is None


def test_unknown_envelope_is_a_record_error() -> None:
    with pytest.raises(RecordError):
        maxcompute.parse(event(), "eventbridge")
