"""DataHub entity change events -> facts: urn ids, tags/terms/domains/owners, schema, lifecycle, proposals.

Expectations are read off the seed's samples (004: tag at line 105, owner at 504, schema field at
906, lifecycle at 1051-1157, action requests at 1220-1664) and inline records in their shape.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from seedfixtures import accepted_docs

from lineage.generate import samples
from lineage.facts import datahub
from lineage.facts.core import FACT_NAMES
from lineage.facts.extract import facts_of_event

DOCS = accepted_docs()["datahub"]
STAMP_TIME = datetime(2022, 4, 14, 16, 18, 20, 653000, tzinfo=UTC)  # 1649953100653 ms
ABC = "table:datahub:abc"  # the seed's placeholder urn:li:dataset:abc (no platform)
JDOE = "user:datahub:jdoe"
MC_URN = "urn:li:dataset:(urn:li:dataPlatform:maxcompute,Retail_DW.ods_users,PROD)"
MC_TABLE = "table:maxcompute:retail_dw.ods_users"


def facts(doc: dict[str, Any]) -> list[dict[str, Any]]:
    rows = facts_of_event("datahub", "", "x", None, json.dumps(doc))
    return [dict(zip(FACT_NAMES, row)) for row in rows]


def shape(rows: list[dict[str, Any]]) -> set[tuple[Any, ...]]:
    return {(r["op"], r["src_id"], r["relationship"], r["dst_id"]) for r in rows}


def seed(category: str, operation: str, entity_type: str = "dataset") -> dict[str, Any]:
    return next(d for d in DOCS if d["category"] == category and d["operation"] == operation
                and d["entityType"] == entity_type)


def ece(category: str, operation: str, entity: str = MC_URN, modifier: str | None = None,
        parameters: dict[str, Any] | None = None, entity_type: str = "dataset") -> dict[str, Any]:
    """An inline entity change event in the seed's shape."""
    doc: dict[str, Any] = {"entityUrn": entity, "entityType": entity_type, "category": category,
                           "operation": operation,
                           "auditStamp": {"actor": "urn:li:corpuser:data.steward", "time": 1720000000000}}
    if modifier is not None:
        doc["modifier"] = modifier
    if parameters is not None:
        doc["parameters"] = parameters
    return doc


# --------------------------------------------------------------------------------------------
# every fixture, every mapped kind
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: f"{d['category']}:{d['operation']}:{d['entityType']}")
def test_every_accepted_fixture_maps_without_error(doc: dict[str, Any]) -> None:
    rows = facts(doc)
    assert rows
    assert all(r["op"] != "error" for r in rows), rows
    assert all(r["actor"] == JDOE for r in rows)


INLINE = {
    "TECHNICAL_SCHEMA:MODIFY": ece("TECHNICAL_SCHEMA", "MODIFY", modifier=f"urn:li:schemaField:({MC_URN},amount)",
                                   parameters={"fieldPath": "amount", "nullable": True}),
    "DOCUMENTATION:ADD": ece("DOCUMENTATION", "ADD", parameters={"description": "Users of the shop."}),
    "DOCUMENTATION:MODIFY": ece("DOCUMENTATION", "MODIFY", parameters={"description": "Shop users."}),
    "DOCUMENTATION:REMOVE": ece("DOCUMENTATION", "REMOVE", parameters={}),
}


def test_every_mapped_kind_is_exercised() -> None:
    covered = {f"{d['category']}:{d['operation']}" for d in DOCS} | set(INLINE)
    assert set(datahub.MAPPING) <= covered, set(datahub.MAPPING) - covered
    for doc in INLINE.values():
        assert facts(doc) and all(r["op"] != "error" for r in facts(doc))


# --------------------------------------------------------------------------------------------
# urns -> ids
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("urn, want", [
    ("urn:li:dataset:(urn:li:dataPlatform:maxcompute,proj.tbl,PROD)", "table:maxcompute:proj.tbl"),
    ("urn:li:dataset:(urn:li:dataPlatform:odps,Proj.Tbl,DEV)", "table:maxcompute:proj.tbl"),
    ("urn:li:dataset:(urn:li:dataPlatform:snowflake,example.table,PROD)", "table:snowflake:example.table"),
    ("urn:li:dataset:abc", ABC),
    ("urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:maxcompute,proj.tbl,PROD),Email)",
     "column:maxcompute:proj.tbl.email"),
    ("urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD),"  # noqa: ISC004
     "[version=2.0].[type=struct].address.[type=string].zip)", "column:hive:db.t.address.zip"),
    ("urn:li:chart:(looker,Sales_Chart)", "chart:datahub:looker.Sales_Chart"),
    ("urn:li:dashboard:(superset,12)", "dashboard:datahub:superset.12"),
    ("urn:li:dataFlow:(airflow,etl_daily,prod)", "dataflow:datahub:airflow.etl_daily"),
    ("urn:li:dataJob:(urn:li:dataFlow:(airflow,etl_daily,prod),load_users)", "datajob:datahub:airflow.etl_daily.load_users"),
    ("urn:li:tag:PII", "tag:datahub:PII"),
    ("urn:li:glossaryTerm:ExampleNode.ExampleTerm", "glossaryterm:datahub:ExampleNode.ExampleTerm"),
    ("urn:li:domain:ExampleDomain", "domain:datahub:ExampleDomain"),
    ("urn:li:structuredProperty:prop1", "structuredproperty:datahub:prop1"),
    ("urn:li:actionRequest:abc-123", "proposal:datahub:abc-123"),
    ("urn:li:corpuser:jdoe", JDOE),
    ("urn:li:corpGroup:Data_Eng", "user:datahub:data_eng"),
    ("urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)", None),
    ("not an urn", None),
    (None, None),
])
def test_entity_ids(urn: str | None, want: str | None) -> None:
    assert datahub.entity_id(urn) == want


# --------------------------------------------------------------------------------------------
# the seed's samples, hand-checked
# --------------------------------------------------------------------------------------------


def test_tag_add_and_remove() -> None:
    added, removed = facts(seed("TAG", "ADD")), facts(seed("TAG", "REMOVE"))
    assert shape(added) == {("assert", ABC, "TAGGED", "tag:datahub:PII"), ("change", ABC, "tag_change", None)}
    assert shape(removed) == {("retract", ABC, "TAGGED", "tag:datahub:PII"), ("change", ABC, "tag_change", None)}
    assert {r["event_time"] for r in added + removed} == {STAMP_TIME}


def test_glossary_term_and_domain() -> None:
    assert ("assert", ABC, "HAS_TERM", "glossaryterm:datahub:ExampleNode.ExampleTerm") in shape(facts(seed("GLOSSARY_TERM", "ADD")))
    assert ("change", ABC, "term_change", None) in shape(facts(seed("GLOSSARY_TERM", "REMOVE")))
    assert shape(facts(seed("DOMAIN", "REMOVE"))) == {("retract", ABC, "IN_DOMAIN", "domain:datahub:ExampleDomain"),
                                                      ("change", ABC, "domain_change", None)}


def test_owner_add_and_remove() -> None:
    added = facts(seed("OWNER", "ADD"))
    assert shape(added) == {("assert", JDOE, "OWNS", ABC), ("change", ABC, "owner_change", None)}
    owns = next(r for r in added if r["relationship"] == "OWNS")
    assert owns["properties"]["ownerType"] == "BUSINESS_OWNER"
    assert ("retract", JDOE, "OWNS", ABC) in shape(facts(seed("OWNER", "REMOVE")))


def test_structured_property_values() -> None:
    added = facts(seed("STRUCTURED_PROPERTY", "ADD"))
    modified = facts(seed("STRUCTURED_PROPERTY", "MODIFY"))
    removed = facts(seed("STRUCTURED_PROPERTY", "REMOVE"))  # no parameters: the property is the modifier
    prop = "structuredproperty:datahub:prop1"
    assert shape(added) == shape(modified) == {("assert", ABC, "HAS_PROPERTY", prop)}
    assert json.loads(added[0]["properties"]["values"]) == ["value1"]
    assert json.loads(modified[0]["properties"]["values"]) == ["value1", "value2"]
    assert shape(removed) == {("retract", ABC, "HAS_PROPERTY", prop)}


def test_deprecation() -> None:
    rows = facts(seed("DEPRECATION", "MODIFY"))
    assert shape(rows) == {("observe", ABC, None, None), ("change", ABC, "deprecation", None)}
    assert next(r for r in rows if r["op"] == "observe")["properties"]["deprecated"] == "true"
    undeprecated = facts(ece("DEPRECATION", "MODIFY", modifier="ACTIVE", parameters={"status": "ACTIVE"}))
    assert shape(undeprecated) == {("observe", MC_TABLE, None, None), ("change", MC_TABLE, "undeprecation", None)}
    assert next(r for r in undeprecated if r["op"] == "observe")["properties"]["deprecated"] == "false"


def test_schema_field_added_and_removed() -> None:
    column = "column:datahub:abc.newfieldname"
    added = facts(seed("TECHNICAL_SCHEMA", "ADD"))
    assert shape(added) == {("assert", ABC, "HAS_COLUMN", column), ("assert", column, None, None),
                            ("change", ABC, "schema_change", None)}
    assert next(r for r in added if r["src_id"] == column)["properties"]["name"] == "newFieldName"
    removed = facts(seed("TECHNICAL_SCHEMA", "REMOVE"))
    # one event, one change: a field removed is a field removal, not also a schema change (issue 68)
    assert shape(removed) == {("retract", ABC, "HAS_COLUMN", column), ("retract", column, None, None),
                              ("change", ABC, "field_removal", None)}
    assert {r["event_time"] for r in removed} == {STAMP_TIME}


def test_schema_field_modified() -> None:
    rows = facts(INLINE["TECHNICAL_SCHEMA:MODIFY"])
    column = "column:maxcompute:retail_dw.ods_users.amount"
    assert shape(rows) == {("assert", MC_TABLE, "HAS_COLUMN", column), ("observe", column, None, None),
                           ("change", MC_TABLE, "schema_change", None)}


@pytest.mark.parametrize("operation, op, change", [
    ("CREATE", "assert", "create"), ("SOFT_DELETE", "retract", "drop"), ("HARD_DELETE", "retract", "drop")])
def test_lifecycle(operation: str, op: str, change: str) -> None:
    rows = facts(seed("LIFECYCLE", operation))
    assert shape(rows) == {(op, ABC, None, None), ("change", ABC, change, None)}
    assert next(r for r in rows if r["op"] == op)["properties"]["name"] == "abc"


def test_lifecycle_of_a_user_and_a_tag() -> None:
    user = facts(ece("LIFECYCLE", "CREATE", entity="urn:li:corpuser:new.analyst", entity_type="corpuser"))
    assert ("assert", "user:datahub:new.analyst", None, None) in shape(user)
    tag = facts(ece("LIFECYCLE", "HARD_DELETE", entity="urn:li:tag:Legacy", entity_type="tag"))
    assert shape(tag) == {("retract", "tag:datahub:Legacy", None, None), ("change", "tag:datahub:Legacy", "drop", None)}


# --------------------------------------------------------------------------------------------
# proposals: pending, never applied
# --------------------------------------------------------------------------------------------

SNOWFLAKE = "table:snowflake:example.table"


@pytest.mark.parametrize("key, kind", [
    ("abc-123", "DOMAIN_ASSOCIATION"), ("def-456", "OWNER_ASSOCIATION"), ("ghi-789", "TAG_ASSOCIATION"),
    ("mno-102", "TERM_ASSOCIATION"), ("pqr-103", "UPDATE_DESCRIPTION"), ("stu-104", "STRUCTURED_PROPERTY_ASSOCIATION")])
def test_proposal_is_pending_and_points_at_its_target(key: str, kind: str) -> None:
    doc = next(d for d in DOCS if d["entityUrn"] == f"urn:li:actionRequest:{key}")
    rows = facts(doc)
    proposal = f"proposal:datahub:{key}"
    assert shape(rows) == {("assert", proposal, None, None), ("assert", proposal, "PROPOSED", SNOWFLAKE)}
    vertex = next(r for r in rows if r["relationship"] is None)
    assert vertex["properties"]["status"] == "pending"
    assert vertex["properties"]["type"] == kind
    assert vertex["event_time"] == datetime(1970, 1, 15, 6, 56, 7, 890000, tzinfo=UTC)  # 1234567890 ms


def test_tag_proposal_carries_the_tag_but_no_tag_edge() -> None:
    rows = facts(next(d for d in DOCS if d["entityUrn"] == "urn:li:actionRequest:ghi-789"))
    assert not {r["relationship"] for r in rows} & {"TAGGED", "HAS_TERM", "IN_DOMAIN", "OWNS", "HAS_PROPERTY"}
    assert next(r for r in rows if r["relationship"] is None)["properties"]["tagUrn"] == "urn:li:tag:pii"
    assert not any(r["op"] == "change" for r in rows)


def test_glossary_term_creation_proposal_has_no_target() -> None:
    rows = facts(next(d for d in DOCS if d["entityUrn"] == "urn:li:actionRequest:jkl-101"))
    assert shape(rows) == {("assert", "proposal:datahub:jkl-101", None, None)}
    assert rows[0]["properties"]["glossaryEntityName"] == "ExampleTerm"


# --------------------------------------------------------------------------------------------
# identity and robustness
# --------------------------------------------------------------------------------------------


def test_maxcompute_dataset_tag_lands_on_the_maxcompute_table() -> None:
    rows = facts(ece("TAG", "ADD", modifier="urn:li:tag:PII", parameters={"tagUrn": "urn:li:tag:PII"}))
    assert ("assert", MC_TABLE, "TAGGED", "tag:datahub:PII") in shape(rows)
    assert {r["actor"] for r in rows} == {"user:datahub:data.steward"}


def test_tag_on_a_schema_field_tags_the_column() -> None:
    field = f"urn:li:schemaField:({MC_URN},Phone)"
    rows = facts(ece("TAG", "ADD", entity=field, entity_type="schemaField", modifier="urn:li:tag:PII"))
    column = "column:maxcompute:retail_dw.ods_users.phone"
    assert shape(rows) == {("assert", column, "TAGGED", "tag:datahub:PII"), ("change", column, "tag_change", None)}


def test_owner_group_of_a_chart() -> None:
    rows = facts(ece("OWNER", "ADD", entity="urn:li:chart:(looker,sales)", entity_type="chart",
                     parameters={"ownerUrn": "urn:li:corpGroup:bi_team", "ownerType": "TECHNICAL_OWNER"}))
    assert ("assert", "user:datahub:bi_team", "OWNS", "chart:datahub:looker.sales") in shape(rows)


def test_unsupported_entity_type_is_skipped() -> None:
    rows = facts(ece("TAG", "ADD", entity="urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)",
                     entity_type="mlModel", modifier="urn:li:tag:PII"))
    assert rows == []


def test_documentation_is_observed() -> None:
    rows = facts(INLINE["DOCUMENTATION:ADD"])
    assert shape(rows) == {("observe", MC_TABLE, None, None)}
    assert rows[0]["properties"]["description"] == "Users of the shop."


def test_never_failed() -> None:
    assert not any(r["failed"] for doc in DOCS for r in facts(doc))


def test_demo_records_map_without_error() -> None:
    rows = [row for doc in samples.datahub_events(None) for row in facts(doc)]
    assert rows and all(r["op"] != "error" for r in rows)
    assert ("assert", "table:maxcompute:retail_dw.ods_users", "TAGGED", "tag:datahub:PII") in shape(rows)
    assert ("assert", "user:datahub:dw_owner", "OWNS", "table:maxcompute:retail_dw.dwd_orders") in shape(rows)


@pytest.mark.parametrize("doc", [
    ece("TAG", "REMOVE", modifier="urn:li:glossaryTerm:NotATag"),  # wrong kind of urn
    ece("TAG", "REMOVE", modifier="urn:li:tag:(unbalanced"),  # unparseable urn
    ece("OWNER", "REMOVE", entity="urn:li:mlModel:(urn:li:dataPlatform:sagemaker,churn,PROD)",
        entity_type="mlModel", modifier="urn:li:corpuser:jdoe"),  # owned thing not in the graph
], ids=["term-as-tag", "bad-urn", "unsupported-owned"])
def test_malformed_subjects_yield_no_edge_and_no_wildcard(doc: dict[str, Any]) -> None:
    rows = facts(doc)
    assert all(r["op"] != "error" for r in rows)
    assert not any(r["relationship"] in ("TAGGED", "OWNS") for r in rows)
