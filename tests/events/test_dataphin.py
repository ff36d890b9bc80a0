"""Dataphin audit log records: catalogue, user_identity, base64/JSON fields, times, detection."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from lineage.events import dataphin
from lineage.events.base import RecordError

DATA = Path(__file__).resolve().parents[1] / "data" / "dataphin"
# /work/shared/seeds, found from the main checkout (parents[3]) or a worktree under /work/wt (parents[4])
SEED = next(
    (p / "shared" / "seeds" / "003_3cb644e3db63ad62.txt" for p in Path(__file__).resolve().parents
     if (p / "shared" / "seeds").is_dir()),
    Path("/nonexistent"),
)

EXAMPLE = {  # the log-field table's Example column (seed lines 23-159)
    "log_time": "2021-09-06 16:23:16",
    "date": "2021-09-06",
    "time": "16:23:16.062",
    "event_id": "0520D29C-1834-5A06-B711-4A5AE132C894****",
    "event_name": "ChangeFile",
    "event_source": "http://cn-shanghai-dataphin.aliyun.com/api/file/285113803570922****",
    "event_status": "SUCCESS",
    "event_version": "N/A",
    "user_identity": "{UserName}:30000****:30000****:22937234192469****",
    "source_ip": "221.6.XX.XX,100.104.XX.XX,100.120.XX.XX",
    "trace_id": "ac1606a616391198657692073d****",
    "span_id": 0,
    "response_element": "ZGF0YXBoaW4=",
    "resource_id": "t_3200016408177999872_20211213_320001640817799****",
    "resource_name": "Common SQL",
    "resource_type": "File",
    "region": "cn-hangzhou",
    "additional_event_data": "ZGF0YXBoaW4=",
    "tenant_id": "30399****",
}


def record(**changes: Any) -> dict[str, Any]:
    doc = dict(EXAMPLE)
    for key, value in changes.items():
        if value is None:
            doc.pop(key, None)
        else:
            doc[key] = value
    return doc


def parse(doc: dict[str, Any]):
    envelope = dataphin.SOURCE.detect(doc)
    assert envelope == "log"
    return dataphin.parse(doc, envelope)


# --- catalogue ------------------------------------------------------------------------------


def _seed_listings(text: str) -> list[tuple[str, str, str]]:
    """(module, event name, description) rows of the seed's "... events" tables, in order."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    ident = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
    rows, module = [], None
    for i, line in enumerate(lines):
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if line.endswith(" events") and following in {"Event name", "Parameter", "Name"}:
            module = line.removesuffix(" events").removesuffix(" log")
        elif line.startswith("上一篇"):
            break
        elif module and ident.match(line) and following.endswith(".") and line not in {
            "Parameter", "Description", "Name"
        }:
            rows.append((module, line, following))
    return rows


@pytest.mark.skipif(not SEED.exists(), reason="seed document not available")
def test_catalogue_transcribes_every_listing_of_the_seed():
    expected = _seed_listings(SEED.read_text(encoding="utf-8"))
    listed = [(m, name, desc) for m, events in dataphin.LISTINGS for name, desc in events]
    assert listed == expected
    assert len(dataphin.KINDS) == len({name for _, name, _ in expected}) == 572


@pytest.mark.parametrize(
    "name, module",
    [
        ("ApplyPrivilege", "Management center"),
        ("ReturnPermission", "Management center"),
        ("AuthorizeExpire", "Management center"),
        ("ApprovePrivilege", "Management center"),
        ("GrantPermission", "Management center"),
        ("RevokePermission", "Management center"),
        ("ConfigFunctionPermission", "Management center"),
        ("CreateRowPermissions", "Management center"),
        ("RoleProjectSave", "Management center"),
        ("AdminSetRole", "Data warehouse planning"),
        ("grantMetaDataTable", "Asset governance"),
        ("UpdateAssetMaintenancePermission", "Asset operation"),
        ("PublishXApp", "Super X"),
        ("mtaskCallBack", "Notification center"),
        ("INSERT_INTO_TABLE", "Publish and development"),
        ("Deletetenant", "Management center"),  # spelled as the doc prints it
    ],
)
def test_catalogue_has(name: str, module: str):
    assert name in dataphin.KINDS
    assert dataphin.CATALOGUE[name][0] == module


def test_names_listed_twice_keep_their_other_listing():
    assert dataphin.CATALOGUE["ApprovePrivilege"] == (
        "Management center",
        "Approves a permission request.",
    )
    assert dataphin.ALSO_LISTED["ApprovePrivilege"] == (
        ("Notification center", "Approves or rejects an approval ticket."),
    )
    assert ("Asset governance", "Changes the data table owner.") in dataphin.ALSO_LISTED[
        "ChangeOwner"
    ]
    assert "DataDownloadBasicSetting" not in dataphin.ALSO_LISTED  # listed twice, identically


def test_every_kind_has_a_model():
    assert set(dataphin.MODELS) == set(dataphin.KINDS)
    assert set(dataphin.MODELS.values()) == {dataphin.DataphinEvent}


# --- the example record ---------------------------------------------------------------------


def test_example_record():
    event = parse(EXAMPLE)
    model = event.model
    assert (event.source, event.kind, event.known) == ("dataphin", "ChangeFile", True)
    assert event.event_id == "0520D29C-1834-5A06-B711-4A5AE132C894****"
    assert event.actor == "30000****"
    assert event.event_time == datetime(2021, 9, 6, 16, 23, 16, 62000, tzinfo=timezone.utc)
    assert model.response_element == model.additional_event_data == "dataphin"
    assert model.source_ip == ["221.6.XX.XX", "100.104.XX.XX", "100.120.XX.XX"]
    assert model.span_id == "0"
    assert model.event_version == "N/A"
    assert model.tenant_id == "30399****"
    assert model.failed is False


# --- user_identity --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, parts",
    [
        (
            "{UserName}:30000****:30000****:22937234192469****",
            ("{UserName}", "30000****", "30000****", "22937234192469****"),
        ),
        ("ldap:carol:300010003:300001001:42", ("ldap:carol", "300010003", "300001001", "42")),
        ("alice:300010001:300001001:", ("alice", "300010001", "300001001", None)),
    ],
)
def test_user_identity_is_split_from_the_right(raw: str, parts: tuple):
    identity = parse(record(user_identity=raw)).model.user_identity
    assert (identity.user_name, identity.user_id, identity.tenant_id, identity.account_id) == parts
    assert identity.raw == raw


@pytest.mark.parametrize("raw", ["alice", "alice:300010001:300001001", 12345])
def test_malformed_user_identity_is_a_field_error(raw: Any):
    with pytest.raises(ValidationError) as error:
        parse(record(user_identity=raw))
    assert error.value.errors()[0]["loc"][0] == "user_identity"


def test_no_user_identity_means_no_actor():
    event = parse(record(user_identity=None, event_name="AuthorizeExpire"))
    assert event.actor is None and event.model.user_identity is None


# --- base64, embedded JSON, status, lists ---------------------------------------------------


@pytest.mark.parametrize(
    "wire, decoded",
    [
        ("ZGF0YXBoaW4=", "dataphin"),
        ("eyJ0aWNrZXRJZCI6IlQtMTAwMSJ9", '{"ticketId":"T-1001"}'),
        ("not base64!", "not base64!"),
        ("", ""),
    ],
)
def test_base64_fields_are_decoded_leniently(wire: str, decoded: str):
    model = parse(record(response_element=wire, additional_event_data=wire)).model
    assert model.response_element == model.additional_event_data == decoded


def test_json_string_fields_are_parsed():
    model = parse(
        record(
            request_parameter_json='{"objectName": "ods.dim_user", "privileges": ["SELECT"]}',
            user_identity_json='{"userName": "alice", "userId": "300010001"}',
            request_parameter="fileId=42",
        )
    ).model
    assert model.request_parameter_json == {"objectName": "ods.dim_user", "privileges": ["SELECT"]}
    assert model.user_identity_json["userId"] == "300010001"
    assert model.request_parameter == "fileId=42"


def test_broken_embedded_json_is_a_field_error():
    with pytest.raises(ValidationError) as error:
        parse(record(request_parameter_json='{"objectName": '))
    assert error.value.errors()[0]["loc"][0] == "request_parameter_json"


@pytest.mark.parametrize(
    "status, failed", [("SUCCESS", False), ("FAIL", True), ("fail", True), (None, None)]
)
def test_failed(status: str | None, failed: bool | None):
    assert parse(record(event_status=status)).model.failed is failed


def test_single_source_ip_is_a_one_item_list():
    assert parse(record(source_ip="221.6.XX.XX")).model.source_ip == ["221.6.XX.XX"]


# --- times ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes, expected",
    [
        ({}, datetime(2021, 9, 6, 16, 23, 16, 62000, tzinfo=timezone.utc)),  # date + time
        ({"date": None, "time": None}, datetime(2021, 9, 6, 16, 23, 16, tzinfo=timezone.utc)),
        (
            {"date": None, "time": None, "log_time": 1630945396062},  # epoch millis
            datetime(2021, 9, 6, 16, 23, 16, 62000, tzinfo=timezone.utc),
        ),
        (
            {"date": None, "time": None, "log_time": None, "__time__": "1630945396"},
            datetime(2021, 9, 6, 16, 23, 16, tzinfo=timezone.utc),
        ),
        ({"time": None, "log_time": None}, datetime(2021, 9, 6, tzinfo=timezone.utc)),
    ],
)
def test_event_time(changes: dict, expected: datetime):
    assert parse(record(**changes)).event_time == expected


def test_unparseable_log_time_is_a_field_error():
    with pytest.raises(ValidationError) as error:
        parse(record(log_time="2021-09-06 16:2*:**"))
    assert error.value.errors()[0]["loc"][0] == "log_time"


def test_sls_keys_are_kept():
    model = parse(
        record(
            __time__="1630945396",
            __source__="100.104.12.8",
            __topic__="dataphin_audit",
            **{"__tag__:__receive_time__": "1630945397"},
        )
    ).model
    assert model.sls_time == datetime(2021, 9, 6, 16, 23, 16, tzinfo=timezone.utc)
    assert (model.sls_source, model.sls_topic) == ("100.104.12.8", "dataphin_audit")
    assert model.model_extra["__tag__:__receive_time__"] == "1630945397"


# --- unknown kinds and required ids ---------------------------------------------------------


def test_unknown_event_name_is_generic_activity():
    event = parse(record(event_name="SomeFutureEvent", event_id=None, extra_field="x"))
    assert (event.kind, event.known, event.event_id) == ("SomeFutureEvent", False, None)
    assert isinstance(event.model, dataphin.UnknownDataphinEvent)
    assert event.actor == "30000****"
    assert event.model.model_extra["extra_field"] == "x"


def test_known_kind_without_event_id_is_rejected_naming_the_field():
    with pytest.raises(ValidationError) as error:
        parse(record(event_name="GrantPermission", event_id=None))
    assert error.value.errors()[0]["loc"] == ("event_id",)


def test_missing_event_name_names_the_field():
    with pytest.raises(RecordError) as error:
        dataphin.parse(record(event_name=None), "log")
    assert error.value.field == "event_name"


# --- detection ------------------------------------------------------------------------------

OTHER_SOURCES = [
    {  # DataWorks CloudEvent (EventBridge)
        "specversion": "1.0",
        "id": "45ef4dewdwe1-7c35-447a-bd93-fab****",
        "source": "acs.dataworks",
        "type": "dataworks:FileChange:CommitFile",
        "time": "2024-07-12T11:08:50Z",
        "data": {"eventCode": "commit-file", "operator": "1234567890", "projectId": 12345},
    },
    {  # DataWorks Function Compute extension message
        "eventType": "commit-file",
        "messageId": "ac1606a616391198657692073d****",
        "messageBody": {"operator": "1234567890", "projectId": 12345},
    },
    {  # MaxCompute through ActionTrail
        "eventId": "B3C5F4A2-1C8E-4C7A-9D2E-****",
        "eventName": "CreateTable",
        "eventSource": "odps.aliyuncs.com",
        "serviceName": "Odps",
        "eventTime": "2024-07-12T03:08:50Z",
        "userIdentity": {"principalId": "28378****10656", "type": "ram-user"},
    },
    {  # DataHub Entity Change Event
        "entityUrn": "urn:li:dataset:(urn:li:dataPlatform:maxcompute,proj.tbl,PROD)",
        "entityType": "dataset",
        "category": "TAG",
        "operation": "ADD",
        "auditStamp": {"actor": "urn:li:corpuser:alice", "time": 1720753730000},
    },
]


@pytest.mark.parametrize("doc", OTHER_SOURCES, ids=["cloudevent", "fc", "actiontrail", "ece"])
def test_detect_rejects_other_sources(doc: dict):
    assert dataphin.SOURCE.detect(doc) is None


@pytest.mark.parametrize(
    "doc",
    [
        {"event_name": "UserLogIn", "user_identity": "alice:1:2:3"},
        {"event_name": "UserLogIn", "event_id": "x"},
        {"event_name": "UserLogIn", "log_time": "2021-09-06 16:23:16"},
    ],
)
def test_detect_accepts_minimal_records(doc: dict):
    assert dataphin.SOURCE.detect(doc) == "log"


@pytest.mark.parametrize("doc", [{}, {"event_name": "UserLogIn"}, {"event_id": "x"}, []])
def test_detect_rejects_non_records(doc: Any):
    assert dataphin.SOURCE.detect(doc) is None


# --- fixtures (until the lead's reader runs them all) ---------------------------------------


def _resolve(obj: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(obj, dict):
            obj = obj[part]
        elif isinstance(obj, list):
            obj = obj[int(part)]
        else:
            obj = getattr(obj, part)
    return obj.isoformat() if isinstance(obj, datetime) else obj


def _fixture_cases() -> list[tuple[str, dict, dict]]:
    cases = []
    for expect_file in sorted(DATA.rglob("*.expect.json")):
        stem = expect_file.name.removesuffix(".expect.json")
        (data_file,) = [p for p in expect_file.parent.glob(f"{stem}.*") if p != expect_file]
        expect = json.loads(expect_file.read_text(encoding="utf-8"))
        text = data_file.read_text(encoding="utf-8")
        if data_file.suffix == ".jsonl":
            docs = [json.loads(line) for line in text.splitlines() if line.strip()]
            expects = expect["records"]
        else:
            docs, expects = [json.loads(text)], [expect]
        assert len(docs) == len(expects), data_file
        rel = data_file.relative_to(DATA)
        cases += [(f"{rel}:{i + 1}", d, e) for i, (d, e) in enumerate(zip(docs, expects))]
    return cases


@pytest.mark.parametrize(
    "name, doc, expect", [pytest.param(*case, id=case[0]) for case in _fixture_cases()]
)
def test_fixture(name: str, doc: dict, expect: dict):
    assert expect["expect"] == "accepted"
    envelope = dataphin.SOURCE.detect(doc)
    assert envelope == expect["envelope"]
    event = dataphin.parse(doc, envelope)
    assert (event.source, event.kind, event.known) == (
        expect["source"],
        expect["kind"],
        expect["known"],
    )
    assert type(event.model).__name__ == expect["model"]
    assert event.event_id == expect["event_id"]
    for path, value in expect["fields"].items():
        assert _resolve(event.model, path) == value, path
