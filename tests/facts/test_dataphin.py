"""Dataphin audit log -> facts: permission grants, approvals, revokes, returns, expiries.

Expectations are read off the records (tests/data/dataphin/permission/permission-events.jsonl,
synthetic in the seed's field shape) and the seed's catalogue (003, lines 485-513, 2991-2999).
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

import pytest
from seedfixtures import accepted_docs

from lineage.generate import samples
from lineage.facts import dataphin
from lineage.facts.core import FACT_NAMES
from lineage.facts.extract import facts_of_event

DOCS = accepted_docs()["dataphin"]
BY_ID = {doc["event_id"]: doc for doc in DOCS}
DIM_USER = "table:maxcompute:ods_demo.dim_user"
FCT_ORDER = "table:maxcompute:ods_demo.fct_order"
ALICE, BOB, CAROL = "user:dataphin:300010001", "user:dataphin:300010002", "user:dataphin:300010003"


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def facts(doc: dict[str, Any]) -> list[dict[str, Any]]:
    rows = facts_of_event("dataphin", doc.get("event_name", ""), doc.get("event_id") or "x", None, json.dumps(doc))
    return [dict(zip(FACT_NAMES, row)) for row in rows]


def edges(rows: list[dict[str, Any]], rel: str = "CAN_ACCESS") -> set[tuple[Any, ...]]:
    return {(r["op"], r["src_id"], r["relationship"], r["dst_id"], r["qualifier"]) for r in rows if r["relationship"] == rel}


def changes(rows: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {(r["src_id"], r["relationship"]) for r in rows if r["op"] == "change"}


def record(name: str, request: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    """An inline record in the log-field shape of seed 003 (and of the permission fixtures)."""
    doc = {
        "log_time": "2024-08-01 09:00:00", "date": "2024-08-01", "time": "09:00:00.000",
        "event_id": f"INLINE-{name}", "event_name": name, "event_status": "SUCCESS",
        "user_identity": "alice:300010001:300001001:1234567890123456",
        "resource_id": "ods_demo.dim_user", "resource_name": "dim_user", "resource_type": "Table",
        "tenant_id": "300001001",
    }
    if request is not None:
        doc["request_parameter_json"] = json.dumps(request)
    doc.update(fields)
    return {k: v for k, v in doc.items() if v is not None}


# --------------------------------------------------------------------------------------------
# every fixture, every mapped kind
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.get("event_name", "?"))
def test_every_accepted_fixture_maps_without_error(doc: dict[str, Any]) -> None:
    rows = facts(doc)
    assert rows, "a catalogue event yields at least its actor or resource"
    assert all(r["op"] != "error" for r in rows), rows


INLINE = {
    "grantMetaDataTable": record("grantMetaDataTable", {"privileges": ["SELECT"], "grantee": "300010002"}),
}


def test_every_mapped_permission_kind_is_exercised() -> None:
    specific = {kind for kind, rows in dataphin.MAPPING.items() if rows is not dataphin.GENERIC}
    covered = {doc["event_name"] for doc in DOCS} | set(INLINE)
    assert specific <= covered, specific - covered
    assert any(doc["event_name"] in dataphin.MAPPING and dataphin.MAPPING[doc["event_name"]] is dataphin.GENERIC
               for doc in DOCS), "a generic catalogue event (ChangeFile) is exercised"


def test_mapping_covers_the_whole_catalogue_and_nothing_else() -> None:
    from lineage.events.dataphin import KINDS

    assert set(dataphin.MAPPING) == set(KINDS)
    assert all(emit.note for rows in dataphin.MAPPING.values() for emit in rows)


# --------------------------------------------------------------------------------------------
# the permission fixtures, hand-checked
# --------------------------------------------------------------------------------------------


def test_grant_asserts_one_interval_per_privilege_for_the_grantee() -> None:
    rows = facts(BY_ID["5B0C1E2A-7D3F-4A61-9C8E-000000000003"])  # alice grants carol SELECT, DESCRIBE
    assert edges(rows) == {
        ("assert", CAROL, "CAN_ACCESS", DIM_USER, "select"),
        ("assert", CAROL, "CAN_ACCESS", DIM_USER, "describe"),
    }
    select = next(r for r in rows if r["qualifier"] == "select")
    assert select["properties"]["privileges"] == '["select"]'
    assert select["properties"]["by"] == ALICE
    assert select["actor"] == ALICE
    assert select["event_time"] == utc("2024-07-12 10:06:00.003")
    assert select["valid_until"] is None
    assert changes(rows) == {(DIM_USER, "permission_change")}
    assert not any(r["failed"] for r in rows)


def test_failed_grant_changes_nothing() -> None:
    rows = facts(BY_ID["5B0C1E2A-7D3F-4A61-9C8E-000000000004"])  # event_status FAIL
    assert rows and all(r["op"] == "observe" and r["failed"] for r in rows)
    assert edges(rows) == {("observe", BOB, "CAN_ACCESS", FCT_ORDER, "update")}


def test_revoke_retracts_the_named_privilege_at_the_revoke_time() -> None:
    rows = facts(BY_ID["5B0C1E2A-7D3F-4A61-9C8E-000000000006"])  # alice revokes carol's SELECT
    assert edges(rows) == {("retract", CAROL, "CAN_ACCESS", DIM_USER, "select")}
    retract = next(r for r in rows if r["relationship"] == "CAN_ACCESS")
    assert retract["event_time"] == utc("2024-07-12 11:30:00.006")
    assert changes(rows) == {(DIM_USER, "permission_change")}


def test_return_retracts_the_actors_own_privilege() -> None:
    rows = facts(BY_ID["5B0C1E2A-7D3F-4A61-9C8E-000000000005"])  # carol (ldap:carol) returns DESCRIBE
    assert edges(rows) == {("retract", CAROL, "CAN_ACCESS", DIM_USER, "describe")}
    user = next(r for r in rows if r["src_id"] == CAROL and r["relationship"] is None)
    assert user["properties"]["name"] == "ldap:carol"


def test_approval_without_a_grantee_asserts_no_access() -> None:
    rows = facts(BY_ID["5B0C1E2A-7D3F-4A61-9C8E-000000000002"])  # alice approves ticket T-1001
    assert edges(rows) == set()
    assert changes(rows) == {(DIM_USER, "permission_change")}
    table = next(r for r in rows if r["src_id"] == DIM_USER and r["op"] == "observe")
    assert table["properties"]["ticket_id"] == "T-1001"
    assert table["properties"]["name"] == "dim_user"


def test_application_is_only_a_request() -> None:
    rows = facts(BY_ID["5B0C1E2A-7D3F-4A61-9C8E-000000000001"])  # bob applies for SELECT
    assert {r["op"] for r in rows} == {"observe"}
    assert {r["src_id"] for r in rows} == {DIM_USER, BOB}


def test_expiry_without_holder_records_the_change_only() -> None:
    rows = facts(BY_ID["5B0C1E2A-7D3F-4A61-9C8E-000000000007"])  # no user_identity, no request
    assert edges(rows) == set()
    assert changes(rows) == {(DIM_USER, "permission_change")}
    assert all(r["actor"] is None for r in rows)


# --------------------------------------------------------------------------------------------
# inline records for what the fixtures lack
# --------------------------------------------------------------------------------------------


def test_approval_with_grantee_and_expiry_grants_until_the_expiry() -> None:
    rows = facts(record("ApprovePrivilege", {"ticketId": "T-2", "result": "APPROVED", "grantee": "300010002",
                                             "privileges": ["SELECT"], "expireDate": "2024-10-12"}))
    assert edges(rows) == {("assert", BOB, "CAN_ACCESS", DIM_USER, "select")}
    grant = next(r for r in rows if r["relationship"] == "CAN_ACCESS")
    assert grant["valid_until"] == datetime(2024, 10, 12, tzinfo=UTC)
    assert grant["properties"]["by"] == ALICE  # the approver acted
    assert grant["properties"]["ticket_id"] == "T-2"


def test_rejection_grants_nothing_and_changes_nothing() -> None:
    rows = facts(record("ApprovePrivilege", {"grantee": "300010002", "privileges": ["SELECT"], "result": "REJECTED"}))
    assert edges(rows) == set() and changes(rows) == set()


def test_grant_expiry_closes_the_interval() -> None:
    rows = facts(record("GrantPermission", {"grantee": "300010002", "privileges": "SELECT,UPDATE",
                                            "expireTime": "2024-09-01 00:00:00"}))
    assert edges(rows) == {("assert", BOB, "CAN_ACCESS", DIM_USER, "select"),
                           ("assert", BOB, "CAN_ACCESS", DIM_USER, "update")}
    assert {r["valid_until"] for r in rows if r["relationship"] == "CAN_ACCESS"} == {utc("2024-09-01 00:00:00")}


def test_revoke_without_privileges_closes_only_the_unnamed_grant() -> None:
    grant = facts(record("GrantPermission", {"grantee": "300010002"}))
    revoke = facts(record("RevokePermission", {"grantee": "300010002"}))
    assert edges(grant) == {("assert", BOB, "CAN_ACCESS", DIM_USER, "")}
    assert edges(revoke) == {("retract", BOB, "CAN_ACCESS", DIM_USER, "")}


def test_revoke_without_grantee_retracts_nothing() -> None:
    rows = facts(record("RevokePermission", {"privileges": ["SELECT"]}))
    assert edges(rows) == set()
    assert changes(rows) == {(DIM_USER, "permission_change")}


def test_expiry_of_the_actors_permission() -> None:
    rows = facts(record("AuthorizeExpire", {"privileges": ["SELECT"]},
                        user_identity="bob:300010002:300001001:1234567890123457"))
    assert edges(rows) == {("retract", BOB, "CAN_ACCESS", DIM_USER, "select")}


def test_grant_on_a_project() -> None:
    rows = facts(record("GrantPermission", {"objectType": "PROJECT", "objectName": "ODS_Demo",
                                            "privileges": ["READ"], "grantee": "300010002"},
                        resource_type="Project", resource_id="12345", resource_name="ODS_Demo"))
    assert edges(rows) == {("assert", BOB, "CAN_ACCESS", "project:maxcompute:ods_demo", "read")}
    assert changes(rows) == {("project:maxcompute:ods_demo", "permission_change")}


def test_grant_meta_data_table_is_a_grant() -> None:
    rows = facts(INLINE["grantMetaDataTable"])
    assert edges(rows) == {("assert", BOB, "CAN_ACCESS", DIM_USER, "select")}


def test_a_logical_table_id_names_no_compute_table() -> None:
    rows = facts(record("GrantPermission", {"privileges": ["SELECT"], "grantee": "300010002"},
                        resource_id="t_3200016408177999872_20211213_320001640817799****", resource_name="dim_user"))
    assert edges(rows) == set() and changes(rows) == set()
    assert {r["src_id"] for r in rows} == {ALICE}


def test_generic_catalogue_event_observes_actor_and_named_table() -> None:
    rows = facts(record("PublishManualTable", None, resource_id="ODS_Demo.Manual_Sales"))
    assert {(r["op"], r["src_id"]) for r in rows} == {("observe", ALICE), ("observe", "table:maxcompute:ods_demo.manual_sales")}


def test_masked_identity_is_kept_as_text() -> None:
    doc = next(d for d in DOCS if d["event_name"] == "ChangeFile")  # the doc's Example column
    rows = facts(doc)
    assert [(r["op"], r["src_id"], r["properties"]["name"]) for r in rows] == [
        ("observe", "user:dataphin:30000****", "{UserName}")]


def test_unknown_event_name_yields_nothing() -> None:
    assert facts(record("NotInTheCatalogue", {"grantee": "300010002", "privileges": ["SELECT"]})) == []


def test_demo_records_map_without_error() -> None:
    docs = list(samples.dataphin_events(7, samples._Ids(random.Random(7))))
    rows = [row for doc in docs for row in facts(doc)]
    assert rows and all(r["op"] != "error" for r in rows)
    # the demo's return names no grantee: the holder is the actor (bob), who loses SELECT
    assert ("retract", BOB, "CAN_ACCESS", "table:maxcompute:retail_dw.ods_users", "select") in edges(rows)
