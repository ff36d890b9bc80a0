"""One change reported by several sources is one change to rank (lineage.graph.reports): the
rule on hand-written records, then a column added to a table reported by MaxCompute's ActionTrail
and by DataHub, through ingest + build + the CLI."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.graph.build import build
from lineage.graph.reports import merged
from lineage.ingest.pipeline import ingest

T = datetime(2024, 7, 3, 16, 15, 11, tzinfo=timezone.utc)


def rec(change_id: str, source: str, kind: str = "schema_change", entity: str = "table:maxcompute:p.hub",
        after: float = 0.0, **props: str) -> dict:
    return {"change_id": change_id, "entity_id": entity, "entity_label": "Table", "kind": kind,
            "time": T + timedelta(seconds=after), "actor": "user:aliyun:1", "event_id": f"e-{change_id}",
            "source": source, "properties": props}


def test_two_sources_reporting_one_change_give_one_record_naming_both():
    rows = merged([rec("a", "maxcompute", operation="ALTER_TABLE_ADD_COLUMNS", correlation_id="c1"),
                   rec("b", "datahub", after=0.9, operation="add", field_path="col_9")])
    assert len(rows) == 1
    assert rows[0]["change_id"] == "a" and rows[0]["source"] == "maxcompute"  # the earliest report
    assert [(r["source"], r["change_id"]) for r in rows[0]["reported_by"]] == [("maxcompute", "a"), ("datahub", "b")]
    assert rows[0]["properties"] == {"operation": "ALTER_TABLE_ADD_COLUMNS", "correlation_id": "c1", "field_path": "col_9"}


@pytest.mark.parametrize("second, why", [
    (rec("b", "maxcompute", after=60), "one source twice: two changes"),
    (rec("b", "datahub", after=6 * 3600 + 1), "more than six hours apart"),
    (rec("b", "datahub", after=60, operation="modify"), "another operation: a column modified, not added"),
    (rec("b", "datahub", entity="table:maxcompute:p.other"), "another table"),
    (rec("b", "datahub", kind="drop"), "another kind"),
])
def test_reports_that_are_not_one_change_stay_apart(second, why):
    rows = merged([rec("a", "maxcompute", operation="ALTER_TABLE_ADD_COLUMNS"), second])
    assert [r["change_id"] for r in rows] == ["a", "b"], why
    assert all(len(r["reported_by"]) == 1 for r in rows)


def test_a_late_delivery_hours_later_is_still_the_same_change():
    """Real DataHub delivers a column addition 2 h after ActionTrail (issue 68): one change."""
    rows = merged([rec("a", "maxcompute", operation="ALTER_TABLE_ADD_COLUMNS"),
                   rec("b", "datahub", after=3 * 3600, operation="add", field_path="col_9")])
    assert [[r["change_id"] for r in row["reported_by"]] for row in rows] == [["a", "b"]]


def test_grants_and_owner_changes_close_together_are_never_merged():
    for kind in ("permission_change", "owner_change", "tag_change"):
        assert len(merged([rec("a", "maxcompute", kind=kind), rec("b", "datahub", kind=kind, after=1)])) == 2, kind


def test_field_removals_of_different_columns_are_two_changes():
    removed = [rec("a", "maxcompute", kind="field_removal", columns='["user_id"]'),
               rec("b", "datahub", kind="field_removal", after=2, field_path="amount"),
               rec("c", "datahub", kind="field_removal", after=3, field_path="user_id")]
    rows = merged(removed)
    assert [[r["change_id"] for r in row["reported_by"]] for row in rows] == [["a", "c"], ["b"]]


def test_a_second_report_joins_the_first_open_change_of_another_source():
    rows = merged([rec("a", "maxcompute"), rec("b", "maxcompute", after=120), rec("c", "datahub", after=121)])
    assert [[r["change_id"] for r in row["reported_by"]] for row in rows] == [["a", "c"], ["b"]]


USER = {"accountId": "1", "principalId": "1", "type": "ram-user", "userName": "RAM$p:etl"}


def actiontrail(key: str, name: str, kind: str, when: datetime, resources: dict, data: dict) -> dict:
    return {"eventId": f"e-{key}", "acsRegion": "cn-hangzhou", "eventName": name, "eventType": kind,
            "eventTime": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "serviceName": "MaxCompute", "userIdentity": USER,
            "referencedResources": resources, "additionalEventData": {"ProjectName": "p", **data}}


def job(instance: str, when: datetime, sql: str) -> dict:
    return actiontrail(instance, "JobChange", "JobEvent", when, {"Instance": [instance]},
                       {"InstanceId": instance, "Status": "Terminated", "TaskType": "SQL", "TaskName": instance,
                        "OperationText": sql})


def datahub_field_added(table: str, field: str, when: datetime) -> dict:
    urn = f"urn:li:dataset:(urn:li:dataPlatform:maxcompute,{table},PROD)"
    return {"entityUrn": urn, "entityType": "dataset", "category": "TECHNICAL_SCHEMA", "operation": "ADD",
            "modifier": f"urn:li:schemaField:({urn},{field})",
            "parameters": {"fieldUrn": f"urn:li:schemaField:({urn},{field})", "fieldPath": field, "nullable": True},
            "auditStamp": {"actor": "urn:li:corpuser:etl", "time": int(when.timestamp() * 1000) + 868}}


def cli(*args: object) -> dict:
    ran = CliRunner().invoke(main, [str(a) for a in args])
    assert ran.exit_code == 0, ran.output
    return json.loads(ran.output)


@pytest.fixture(scope="module")
def warehouse(spark, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("reports")
    events = root / "events"
    events.mkdir()
    day = T - timedelta(days=1)
    maxcompute = [
        job("ddl", day, "CREATE TABLE IF NOT EXISTS p.hub (k STRING, v BIGINT);"),
        job("reader", day + timedelta(hours=1), "INSERT OVERWRITE TABLE p.out SELECT k, v FROM p.hub;"),
        actiontrail("change", "ChangeTable", "TableEvent", T, {"Table": ["hub"]},
                    {"TableName": "hub", "Source": "INSTANCE", "OperationText": "ALTER_TABLE_ADD_COLUMNS"}),
        job("late-ddl", day, "CREATE TABLE IF NOT EXISTS p.late (k STRING);"),
        actiontrail("late", "ChangeTable", "TableEvent", T, {"Table": ["late"]},
                    {"TableName": "late", "Source": "INSTANCE", "OperationText": "ALTER_TABLE_ADD_COLUMNS"}),
    ]
    (events / "maxcompute.jsonl").write_text("".join(json.dumps(e) + "\n" for e in maxcompute))
    hub = [datahub_field_added("p.hub", "col_9", T),
           datahub_field_added("p.late", "col_1", T + timedelta(hours=3))]  # delivered three hours later
    (events / "datahub-ece.jsonl").write_text("".join(json.dumps(e) + "\n" for e in hub))
    wh = root / "warehouse"
    ingest([events], wh, spark=spark)
    build(wh, spark=spark)
    return wh


def test_blast_radius_ranks_the_change_once_with_both_reports(warehouse):
    doc = cli("blast-radius", "--warehouse", warehouse, "--engine", "local", "--json")
    hub = [c for c in doc["changes"] if c["entity_id"] == "table:maxcompute:p.hub" and c["kind"] == "schema_change"]
    assert len(hub) == 1
    assert sorted(r["source"] for r in hub[0]["reported_by"]) == ["datahub", "maxcompute"]
    assert hub[0]["change_id"] == next(r["change_id"] for r in hub[0]["reported_by"] if r["source"] == "maxcompute")
    # the DataHub report names the column: a column added, whose one reader names its columns
    assert (hub[0]["category"], hub[0]["columns"]) == ("additive", [{"column": "col_9", "change": "added"}])
    assert "table:maxcompute:p.out" not in {a["id"] for a in hub[0]["affected"]}


def test_a_report_delivered_three_hours_later_is_the_same_change(warehouse):
    """Real DataHub delivers hours after ActionTrail (issue 68): one change, counted once."""
    doc = cli("blast-radius", "--warehouse", warehouse, "--engine", "local", "--json")
    late = [c for c in doc["changes"] if c["entity_id"] == "table:maxcompute:p.late"]
    assert [c["kind"] for c in late] == ["schema_change"]
    assert sorted(r["source"] for r in late[0]["reported_by"]) == ["datahub", "maxcompute"]


def test_impact_finds_the_change_by_either_reports_id(warehouse):
    doc = cli("blast-radius", "--warehouse", warehouse, "--engine", "local", "--json")
    hub = next(c for c in doc["changes"] if len(c["reported_by"]) > 1)
    for report in hub["reported_by"]:
        found = cli("impact", report["change_id"], "--warehouse", warehouse, "--engine", "local", "--json")
        assert [c["change_id"] for c in found["changes"]] == [hub["change_id"]]
        assert found["affected"] == hub["affected"]
