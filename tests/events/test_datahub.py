"""DataHub Entity Change Event v1: kinds, envelopes, leniency, required ids, URN parsing."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from lineage.events import datahub
from lineage.events.base import RecordError
from lineage.events.datahub import (
    KINDS,
    MODELS,
    ActionRequestEvent,
    EntityChangeEvent,
    LifecycleChangeEvent,
    PlatformEvent,
    UnknownEntityChangeEvent,
    parse,
    parse_urn,
)

detect = datahub.SOURCE.detect

DATA = Path(__file__).resolve().parents[1] / "data" / "datahub"
FIXTURES = sorted(DATA.rglob("*.expect.json"))

TAG_ADD: dict[str, Any] = {
    "entityUrn": "urn:li:dataset:abc",
    "entityType": "dataset",
    "category": "TAG",
    "operation": "ADD",
    "modifier": "urn:li:tag:PII",
    "parameters": {"tagUrn": "urn:li:tag:PII"},
    "auditStamp": {"actor": "urn:li:corpuser:jdoe", "time": 1649953100653},
}
T_2022 = datetime(2022, 4, 14, 16, 18, 20, 653000, tzinfo=timezone.utc)

PROPOSAL: dict[str, Any] = {
    "entityType": "actionRequest",
    "entityUrn": "urn:li:actionRequest:ghi-789",
    "category": "LIFECYCLE",
    "operation": "CREATE",
    "auditStamp": {"actor": "urn:li:corpuser:jdoe", "time": 1234567890},
    "version": 0,
    "parameters": {
        "actionRequestType": "TAG_ASSOCIATION",
        "resourceUrn": "urn:li:dataset:(urn:li:dataPlatform:snowflake,example.table,PROD)",
        "tagUrn": "urn:li:tag:pii",
        "resourceType": "dataset",
    },
}


def with_(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(base)
    for key, value in changes.items():
        if value is ...:
            doc.pop(key, None)
        else:
            doc[key] = value
    return doc


def ece(doc: dict[str, Any]):
    return parse(doc, "ece")


def attr(model: Any, path: str) -> Any:
    for part in path.split("."):
        model = model[int(part)] if isinstance(model, list) else getattr(model, part)
    if isinstance(model, datetime):
        return model.isoformat()
    return model


# --- kinds and models ------------------------------------------------------------------------


def test_kinds_are_the_documented_category_operation_pairs():
    assert KINDS == {
        "TAG:ADD", "TAG:REMOVE", "GLOSSARY_TERM:ADD", "GLOSSARY_TERM:REMOVE",
        "DOMAIN:ADD", "DOMAIN:REMOVE", "OWNER:ADD", "OWNER:REMOVE",
        "STRUCTURED_PROPERTY:ADD", "STRUCTURED_PROPERTY:REMOVE", "STRUCTURED_PROPERTY:MODIFY",
        "DEPRECATION:MODIFY", "TECHNICAL_SCHEMA:ADD", "TECHNICAL_SCHEMA:REMOVE",
        "LIFECYCLE:CREATE", "LIFECYCLE:SOFT_DELETE", "LIFECYCLE:HARD_DELETE",
    }  # fmt: skip


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_has_a_model_whose_tags_accept_it(kind):
    model = MODELS[kind]
    assert issubclass(model, EntityChangeEvent)
    category, operation = kind.split(":")
    assert category in model.model_fields["category"].annotation.__args__
    assert operation in model.model_fields["operation"].annotation.__args__


def test_action_request_model_refines_lifecycle_create():
    assert issubclass(ActionRequestEvent, MODELS["LIFECYCLE:CREATE"])


# --- the seed's samples ----------------------------------------------------------------------


@pytest.mark.parametrize("expect_path", FIXTURES, ids=lambda p: str(p.relative_to(DATA)))
def test_seed_fixture(expect_path: Path):
    expect = json.loads(expect_path.read_text())
    doc = json.loads(expect_path.with_name(expect_path.name.replace(".expect", "")).read_text())
    assert expect["expect"] == "accepted"
    envelope = detect(doc)
    assert envelope == expect["envelope"]
    event = parse(doc, envelope)
    assert event.source == expect["source"] == datahub.SOURCE.name
    assert (event.kind, event.known, event.event_id) == (expect["kind"], expect["known"], expect["event_id"])
    assert type(event.model).__name__ == expect["model"]
    assert isinstance(event.model, MODELS[event.kind])
    for path, value in expect["fields"].items():
        assert attr(event.model, path) == value, path


def test_every_seed_sample_has_a_fixture():
    assert len(FIXTURES) == 24


# --- envelope fields: event_id / event_time / actor ------------------------------------------


def test_ece_has_no_event_id_and_uses_the_audit_stamp():
    event = ece(TAG_ADD)
    assert event.event_id is None
    assert event.event_time == T_2022
    assert event.actor == "urn:li:corpuser:jdoe"


@pytest.mark.parametrize(
    "time, expected",
    [
        (1649953100653, T_2022),
        ("1649953100653", T_2022),
        (1649953100653.0, T_2022),
        ("2022-04-14T16:18:20.653Z", T_2022),
        # the proposal samples' 1234567890 is millis (1970-01-15), not epoch seconds (2009)
        (1234567890, datetime(1970, 1, 15, 6, 56, 7, 890000, tzinfo=timezone.utc)),
    ],
)
def test_audit_stamp_time_is_always_millis(time, expected):
    doc = with_(TAG_ADD, auditStamp={"actor": "urn:li:corpuser:jdoe", "time": time})
    assert ece(doc).event_time == expected


# --- leniency --------------------------------------------------------------------------------


def test_category_and_operation_case_is_tolerated():
    event = ece(with_(TAG_ADD, category=" tag", operation="add"))
    assert event.kind == "TAG:ADD" and event.known
    assert event.model.category == "TAG"


def test_parameters_as_a_json_string():
    event = ece(with_(TAG_ADD, parameters='{"tagUrn": "urn:li:tag:PII"}'))
    assert event.model.parameters.tag_urn == "urn:li:tag:PII"


@pytest.mark.parametrize("values", ['["value1","value2"]', ["value1", "value2"]])
def test_property_values_json_string_or_inline(values):
    doc = with_(
        TAG_ADD,
        category="STRUCTURED_PROPERTY",
        operation="MODIFY",
        modifier="urn:li:structuredProperty:prop1",
        parameters={"propertyUrn": "urn:li:structuredProperty:prop1", "propertyValues": values},
    )
    assert ece(doc).model.parameters.property_values == ["value1", "value2"]


def test_invalid_embedded_json_is_a_field_error():
    doc = with_(
        TAG_ADD,
        category="STRUCTURED_PROPERTY",
        operation="ADD",
        parameters={"propertyUrn": "urn:li:structuredProperty:p", "propertyValues": '["value1"'},
    )
    with pytest.raises(ValidationError, match="propertyValues"):
        ece(doc)


@pytest.mark.parametrize("nullable, expected", [(False, False), ("false", False), ("true", True), (1, True)])
def test_nullable_bool_leniency(nullable, expected):
    doc = with_(
        TAG_ADD,
        category="TECHNICAL_SCHEMA",
        modifier="urn:li:schemaField:(urn:li:dataset:abc,f)",
        parameters={"fieldPath": "f", "nullable": nullable},
    )
    assert ece(doc).model.parameters.nullable is expected


def test_proposal_embedded_lists_are_decoded():
    doc = with_(
        PROPOSAL,
        parameters={
            "actionRequestType": "OWNER_ASSOCIATION",
            "resourceUrn": "urn:li:dataset:(urn:li:dataPlatform:snowflake,example.table,PROD)",
            "owners": json.dumps([{"type": "TECHNICAL_OWNER", "ownerUrn": "urn:li:corpGroup:eng"}]),
            "domains": '["urn:li:domain:a","urn:li:domain:b"]',
        },
    )
    params = ece(doc).model.parameters
    assert params.owners[0].owner_urn == "urn:li:corpGroup:eng"
    assert params.domains == ["urn:li:domain:a", "urn:li:domain:b"]


def test_extra_fields_are_kept():
    event = ece(with_(TAG_ADD, somethingNew={"a": 1}))
    assert event.model.model_extra == {"somethingNew": {"a": 1}}


def test_modifier_alone_names_the_tag():
    event = ece(with_(TAG_ADD, parameters=...))
    assert event.model.parameters is None and event.model.modifier == "urn:li:tag:PII"


def test_lifecycle_create_of_a_dataset_is_not_a_proposal():
    event = ece(with_(TAG_ADD, category="LIFECYCLE", operation="CREATE", modifier=..., parameters=...))
    assert type(event.model) is LifecycleChangeEvent


# --- unknown kinds ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "category, operation",
    [("DOCUMENTATION", "ADD"), ("TAG", "MODIFY"), ("ASSERTION", "RUN"), ("INCIDENT", "ACTIVE")],
)
def test_unknown_kind_is_kept_not_rejected(category, operation):
    event = ece(with_(TAG_ADD, category=category, operation=operation, parameters={"x": "[1]"}))
    assert event.known is False
    assert event.kind == f"{category}:{operation}"
    assert isinstance(event.model, UnknownEntityChangeEvent)
    assert event.model.parameters == {"x": "[1]"}
    assert (event.event_time, event.actor) == (T_2022, "urn:li:corpuser:jdoe")


def test_unknown_kind_tolerates_a_broken_audit_stamp():
    event = ece(with_(TAG_ADD, category="DOCUMENTATION", auditStamp={"time": "soon"}))
    assert event.known is False and event.event_time is None and event.actor is None


# --- required ids ----------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["entityUrn", "auditStamp"])
def test_missing_common_field_is_named(field):
    with pytest.raises(ValidationError, match=field):
        ece(with_(TAG_ADD, **{field: ...}))


def test_missing_audit_time_is_named():
    with pytest.raises(ValidationError, match=r"auditStamp\.time"):
        ece(with_(TAG_ADD, auditStamp={"actor": "urn:li:corpuser:jdoe"}))


@pytest.mark.parametrize("field", ["category", "operation"])
def test_missing_category_or_operation_raises_record_error(field):
    with pytest.raises(RecordError) as info:
        ece(with_(TAG_ADD, **{field: None}))
    assert info.value.field == field


@pytest.mark.parametrize(
    "category, operation, field",
    [
        ("TAG", "ADD", "parameters.tagUrn"),
        ("GLOSSARY_TERM", "REMOVE", "parameters.termUrn"),
        ("DOMAIN", "ADD", "parameters.domainUrn"),
        ("OWNER", "REMOVE", "parameters.ownerUrn"),
        ("STRUCTURED_PROPERTY", "REMOVE", "parameters.propertyUrn"),
        ("DEPRECATION", "MODIFY", "parameters.status"),
        ("TECHNICAL_SCHEMA", "ADD", "parameters.fieldUrn"),
    ],
)
def test_change_without_its_subject_is_rejected(category, operation, field):
    doc = with_(TAG_ADD, category=category, operation=operation, modifier=..., parameters={})
    with pytest.raises(RecordError) as info:
        ece(doc)
    assert info.value.field == field


def test_malformed_entity_urn_is_a_field_error():
    with pytest.raises(ValidationError, match=r"entityUrn[\s\S]*malformed DataHub URN"):
        ece(with_(TAG_ADD, entityUrn="urn:li:dataset:(urn:li:dataPlatform:hive,db.t"))


def test_proposal_without_type_is_rejected():
    doc = with_(PROPOSAL, parameters={"resourceUrn": "urn:li:dataset:abc"})
    with pytest.raises(RecordError) as info:
        ece(doc)
    assert info.value.field == "parameters.actionRequestType"


@pytest.mark.parametrize(
    "request_type, drop",
    [("TAG_ASSOCIATION", "tagUrn"), ("TAG_ASSOCIATION", "resourceUrn"), ("DOMAIN_ASSOCIATION", "domains")],
)
def test_proposal_without_what_it_proposes_is_rejected(request_type, drop):
    params = dict(PROPOSAL["parameters"], actionRequestType=request_type, domains='["urn:li:domain:x"]')
    params.pop(drop)
    with pytest.raises(RecordError) as info:
        ece(with_(PROPOSAL, parameters=params))
    assert info.value.field == f"parameters.{drop}"


def test_proposal_of_an_undocumented_type_needs_only_its_type():
    doc = with_(PROPOSAL, parameters={"actionRequestType": "DATA_CONTRACT"})
    event = ece(doc)
    assert isinstance(event.model, ActionRequestEvent) and event.known


# --- other envelopes -------------------------------------------------------------------------


def platform_event(value: Any, name: str = "entityChangeEvent") -> dict[str, Any]:
    return {
        "header": {"timestampMillis": 1649953100999},
        "name": name,
        "payload": {"value": value, "contentType": "application/json"},
    }


@pytest.mark.parametrize("value", [json.dumps(TAG_ADD), TAG_ADD, json.dumps(TAG_ADD).encode()])
def test_platform_event_unwraps_the_json_string(value):
    doc = platform_event(value)
    assert detect(doc) == "platform-event"
    event = parse(doc, "platform-event")
    assert (event.kind, event.envelope, event.known) == ("TAG:ADD", "platform-event", True)
    assert event.model.parameters.tag_urn == "urn:li:tag:PII"
    assert (event.event_id, event.event_time, event.actor) == (None, T_2022, "urn:li:corpuser:jdoe")


def test_platform_event_with_invalid_value_names_the_field():
    with pytest.raises(RecordError) as info:
        parse(platform_event('{"entityUrn": '), "platform-event")
    assert info.value.field == "payload.value"


def test_platform_event_of_another_name_is_unknown():
    doc = platform_event('{"notification": 1}', name="notificationRequestEvent")
    assert detect(doc) == "platform-event"
    event = parse(doc, "platform-event")
    assert event.known is False and event.kind == "PlatformEvent:notificationRequestEvent"
    assert isinstance(event.model, PlatformEvent)
    assert event.event_time == datetime(2022, 4, 14, 16, 18, 20, 999000, tzinfo=timezone.utc)


def test_actions_event_envelope():
    doc = {"event_type": "EntityChangeEvent_v1", "event": TAG_ADD, "meta": {"kafka": {"offset": 7}}}
    assert detect(doc) == "actions-envelope"
    event = parse(doc, "actions-envelope")
    assert (event.kind, event.known, event.event_time) == ("TAG:ADD", True, T_2022)


# --- detection must not claim the other sources' records -------------------------------------

OTHER_SOURCES = {
    "dataworks-cloudevent": {
        "specversion": "1.0",
        "id": "45ef4dewdwe1-7c35-447a-bd93-fab****",
        "source": "acs.dataworks",
        "type": "dataworks:FileChange:CommitFile",
        "time": "2024-07-12T11:08:50Z",
        "data": {"eventCode": "commit-file", "operator": "1107550004253538", "projectId": 1234},
    },
    "dataworks-fc": {
        "eventType": "node-change-created",
        "messageId": "a1b2c3",
        "messageBody": {"nodeId": 700000000123, "operator": "1107550004253538"},
    },
    "maxcompute-actiontrail": {
        "eventId": "9A5B3C4D-0000",
        "eventName": "CreateTable",
        "eventSource": "odps.aliyuncs.com",
        "serviceName": "Odps",
        "eventTime": "2024-07-12T11:08:50Z",
        "userIdentity": {"principalId": "2033****", "type": "ram-user"},
        "requestParameters": {"ProjectName": "p", "TableName": "t"},
    },
    "dataphin": {
        "event_id": "e-1",
        "event_name": "CREATE_TABLE",
        "event_time": "2024-07-12 11:08:50",
        "user_identity": {"user_id": "300***12", "user_name": "bob"},
        "resource": {"name": "t"},
    },
}


@pytest.mark.parametrize("name", sorted(OTHER_SOURCES))
def test_detect_rejects_other_sources(name):
    assert detect(OTHER_SOURCES[name]) is None


@pytest.mark.parametrize("doc", [{}, [], "x", {"entityUrn": "urn:li:dataset:abc"}, {"event_type": "Other_v1", "event": {}}])
def test_detect_rejects_non_records(doc):
    assert detect(doc) is None


# --- URNs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "urn, expected",
    [
        (
            "urn:li:dataset:(urn:li:dataPlatform:snowflake,example.table,PROD)",
            {"entity_type": "dataset", "platform": "snowflake", "name": "example.table", "env": "PROD"},
        ),
        (
            "urn:li:dataset:(urn:li:dataPlatform:maxcompute,proj.t,with,commas,DEV)",
            {"platform": "maxcompute", "name": "proj.t,with,commas", "env": "DEV"},
        ),
        ("urn:li:dataset:abc", {"entity_type": "dataset", "name": "abc", "platform": None, "env": None}),
        (
            "urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD),a.b)",
            {"entity_type": "schemaField", "field_path": "a.b", "parent.platform": "hive", "parent.name": "db.t"},
        ),
        (
            "urn:li:schemaField:(urn:li:dataset:abc,newFieldName)",
            {"field_path": "newFieldName", "parent.raw": "urn:li:dataset:abc"},
        ),
        (
            "urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD),[version=2.0].[type=struct].x)",
            {"field_path": "[version=2.0].[type=struct].x"},
        ),
        ("urn:li:tag:PII", {"entity_type": "tag", "name": "PII", "parts": ("PII",)}),
        ("urn:li:glossaryTerm:ExampleNode.ExampleTerm", {"entity_type": "glossaryTerm", "name": "ExampleNode.ExampleTerm"}),
        ("urn:li:corpuser:jdoe", {"entity_type": "corpuser", "name": "jdoe"}),
        ("urn:li:corpGroup:data eng", {"entity_type": "corpGroup", "name": "data eng"}),
        ("urn:li:domain:ExampleDomain", {"entity_type": "domain", "name": "ExampleDomain"}),
        ("urn:li:dashboard:(looker,dashboards.19)", {"platform": "looker", "name": "dashboards.19"}),
        ("urn:li:chart:(urn:li:dataPlatform:superset,42)", {"platform": "superset", "name": "42"}),
        ("urn:li:dataFlow:(airflow,daily_etl,prod)", {"platform": "airflow", "name": "daily_etl", "env": "prod"}),
        (
            "urn:li:dataJob:(urn:li:dataFlow:(airflow,daily_etl,prod),load_orders)",
            {"name": "load_orders", "parent.entity_type": "dataFlow", "parent.name": "daily_etl"},
        ),
        ("  urn:li:tag:PII  ", {"raw": "urn:li:tag:PII"}),
    ],
)
def test_parse_urn(urn, expected):
    parsed = parse_urn(urn)
    for path, value in expected.items():
        assert attr(parsed, path) == value, path


@pytest.mark.parametrize(
    "urn, message",
    [
        ("", "expected 'urn:li:<entityType>:<key>'"),
        ("dataset:abc", "expected 'urn:li:<entityType>:<key>'"),
        ("urn:li:", "missing entity type"),
        ("urn:li:dataset", "missing ':<key>' after the entity type"),
        ("urn:li:dataset:", "empty key"),
        ("urn:li:data set:x", "invalid entity type"),
        ("urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD", "unbalanced '('"),
        ("urn:li:dataset:(urn:li:dataPlatform:hive,db.t),PROD)", "unexpected text after the closing"),
        ("urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)x", "unexpected text after the closing"),
        ("urn:li:dataset:(urn:li:dataPlatform:hive,db.t)", "needs 3 components"),
        ("urn:li:dataset:(urn:li:dataPlatform:hive,,PROD)", "empty tuple component #2"),
        ("urn:li:dataset:(urn:li:tag:x,db.t,PROD)", "expected a dataPlatform urn"),
        ("urn:li:schemaField:newFieldName", "needs a tuple key"),
        ("urn:li:schemaField:(notaurn,f)", "expected 'urn:li:<entityType>:<key>'"),
        ("urn:li:dataJob:(urn:li:dataset:abc,task)", "expected a dataFlow urn as parent"),
        ("urn:li:tag:a)b", "unbalanced parentheses"),
    ],
)
def test_parse_urn_rejects_malformed(urn, message):
    with pytest.raises(ValueError, match="malformed DataHub URN") as info:
        parse_urn(urn)
    assert message in str(info.value)


def test_parse_urn_rejects_non_strings():
    with pytest.raises(ValueError, match="must be a string"):
        parse_urn(None)
