"""Columns from MaxCompute events (issue 32 parts 2 and 3): hand-made ActionTrail events -> facts
-> the real Spark fold; every expected value below is read off the SQL of the events."""

from __future__ import annotations

import json
import typing

import pytest

from foldbatch import Cases, fold_all
from lineage.events import maxcompute as events
from lineage.facts.core import Fact
from lineage.facts.extract import facts_of_event

P = "shop"
ODS, DIM, DWS, ADS, TMP = (f"table:maxcompute:{P}.{t}" for t in ("ods_orders", "dim_customer", "dws_region_sales",
                                                                    "ads_copy", "tmp_paid"))


def col(table: str, name: str) -> str:
    return f"column:maxcompute:{table.split(':', 2)[2]}.{name}"


def at(day: int) -> str:
    return f"2024-07-0{day}T02:00:00Z"


def action(kind: str, data: dict[str, typing.Any], day: int, event_id: str) -> dict[str, typing.Any]:
    return {"eventId": event_id, "acsRegion": "cn-hangzhou", "eventName": kind, "eventTime": at(day),
            "eventType": events.EVENT_TYPES[kind], "serviceName": "MaxCompute",
            "userIdentity": {"accountId": "1", "principalId": "1", "type": "ram-user", "userName": "RAM$shop:etl"},
            "additionalEventData": data}


def job(instance: str, day: int, sql: str) -> dict[str, typing.Any]:
    return action("JobChange", {"InstanceId": instance, "Status": "Terminated", "ProjectName": P, "TaskType": "SQL",
                                "TaskName": instance, "OperationText": sql}, day, f"e-{instance}")


def create_table(name: str, instance: str, day: int) -> dict[str, typing.Any]:
    return action("CreateTable", {"TableName": name, "ProjectName": P, "CorrelationId": instance, "Source": "INSTANCE",
                                  "OperationText": "CREATE_TABLE"}, day, f"e-create-{name}")


EVENTS = [
    create_table("ods_orders", "j1", 1),
    job("j1", 1, "CREATE TABLE IF NOT EXISTS ods_orders (order_id BIGINT, customer_id BIGINT, "
                 "amount DECIMAL(10,2), status STRING) PARTITIONED BY (ds STRING) LIFECYCLE 30;"),
    create_table("dim_customer", "j2", 1),
    job("j2", 1, "CREATE TABLE IF NOT EXISTS dim_customer (id BIGINT, region STRING, vip BOOLEAN);"),
    job("j3", 2, """CREATE TABLE IF NOT EXISTS dws_region_sales (region STRING, total DECIMAL(18,2), orders BIGINT)
                    PARTITIONED BY (ds STRING);
                    INSERT OVERWRITE TABLE dws_region_sales PARTITION (ds='${bizdate}')
                    SELECT c.region, SUM(o.amount) AS total, COUNT(o.order_id) AS orders
                    FROM ods_orders o JOIN dim_customer c ON o.customer_id = c.id
                    WHERE o.status = 'paid' AND o.ds = '${bizdate}'
                    GROUP BY c.region;"""),
    job("j4", 2, "INSERT OVERWRITE TABLE ads_copy SELECT * FROM dws_region_sales;"),
    job("j5", 2, "DROP TABLE IF EXISTS tmp_paid; CREATE TABLE tmp_paid LIFECYCLE 1 AS "
                 "SELECT o.order_id FROM ods_orders o;"),
    job("j6", 3, "ALTER TABLE ods_orders DROP COLUMNS status; ALTER TABLE dim_customer CHANGE COLUMN vip vip STRING;"),
    job("j7", 3, "DROP TABLE IF EXISTS tmp_paid; CREATE TABLE tmp_paid LIFECYCLE 1 AS "
                 "SELECT o.customer_id AS buyer FROM ods_orders o;"),
]


def facts_of(doc: dict[str, typing.Any]) -> list[Fact]:
    return facts_of_event("maxcompute", doc["eventName"], doc["eventId"], None, json.dumps(doc))


@pytest.fixture(scope="module")
def graph(spark):
    cases = Cases()
    cases.add("shop", [f for doc in EVENTS for f in facts_of(doc)])
    vertices, edges, changes = fold_all(spark, cases)["shop"]
    return vertices, edges, changes


def has_column(edges, table):
    return {e["dst"]: (e["valid_from"].date().day, e["valid_to"].date().day if e["valid_to"] else None)
            for e in edges if e["relationship"] == "HAS_COLUMN" and e["src"] == table}


def column_feeds(edges, into):
    return {(e["src"], e["qualifier"]): json.loads(e["properties"]["transformations"])
            for e in edges if e["relationship"] == "FEEDS" and e["dst"] == into}


def test_create_table_states_columns_with_partition_columns_last(graph):
    vertices, edges, _ = graph
    assert has_column(edges, ODS) == {col(ODS, "order_id"): (1, None), col(ODS, "customer_id"): (1, None),
                                      col(ODS, "amount"): (1, None),
                                      col(ODS, "status"): (1, 3),  # dropped by j6 on day 3
                                      col(ODS, "ds"): (1, None)}
    ds, amount = vertices[col(ODS, "ds")]["properties"], vertices[col(ODS, "amount")]["properties"]
    assert (ds["position"], ds["partition"], ds["type"]) == ("5", "true", "string")
    assert (amount["position"], amount["type"]) == ("3", "decimal(10, 2)")


def test_a_dropped_column_closes_and_is_a_field_removal(graph):
    vertices, edges, changes = graph
    [edge] = [e for e in edges if e["relationship"] == "HAS_COLUMN" and e["dst"] == col(ODS, "status")]
    assert edge["closed_by"] == "retract"
    assert vertices[col(ODS, "status")]["deleted_at"] is not None
    [removal] = [c for c in changes if c["kind"] == "field_removal"]
    assert removal["entity_id"] == ODS and json.loads(removal["properties"]["columns"]) == ["status"]


def test_a_type_change_is_a_change_on_the_column(graph):
    vertices, _, changes = graph
    [change] = [c for c in changes if c["kind"] == "column_type_change"]
    assert change["entity_id"] == col(DIM, "vip") and change["properties"]["type"] == "string"
    assert vertices[col(DIM, "vip")]["properties"]["type"] == "string"  # the latest stated type


def test_column_feeds_of_an_aggregating_join(graph):
    _, edges, _ = graph
    shaping = {(col(ODS, "customer_id"), "indirect"): ["JOIN"], (col(DIM, "id"), "indirect"): ["JOIN"],
               (col(ODS, "status"), "indirect"): ["FILTER"], (col(ODS, "ds"), "indirect"): ["FILTER"],
               (col(DIM, "region"), "indirect"): ["GROUP_BY"]}
    # c.region is both the value of region and what every output row is grouped by
    assert column_feeds(edges, col(DWS, "region")) == {(col(DIM, "region"), "direct"): ["IDENTITY"], **shaping}
    assert column_feeds(edges, col(DWS, "total")) == {(col(ODS, "amount"), "direct"): ["AGGREGATION"], **shaping}
    assert column_feeds(edges, col(DWS, "orders")) == {(col(ODS, "order_id"), "direct"): ["AGGREGATION"], **shaping}
    assert column_feeds(edges, col(DWS, "ds")) == {}  # a static partition value is no pair
    [via] = {e["properties"]["via"] for e in edges if e["relationship"] == "FEEDS" and e["dst"] == col(DWS, "total")}
    assert json.loads(via) == ["job:maxcompute:j3"]


def test_column_feeds_hold_from_the_jobs_time_like_table_feeds(graph):
    _, edges, _ = graph
    table = [e for e in edges if e["relationship"] == "FEEDS" and (e["src"], e["dst"]) == (ODS, DWS)]
    column = [e for e in edges if e["relationship"] == "FEEDS" and e["dst"] == col(DWS, "total")
              and e["qualifier"] == "direct"]
    assert [(e["valid_from"], e["valid_to"]) for e in column] == [(e["valid_from"], e["valid_to"]) for e in table]


def test_select_star_over_a_table_of_another_job_is_partial(graph):
    vertices, edges, _ = graph
    props = vertices["job:maxcompute:j4"]["properties"]
    assert props["column_lineage"] == "partial"
    assert "shop.dws_region_sales" in props["column_lineage_reason"]
    assert not [e for e in edges if e["relationship"] == "FEEDS" and e["dst"].startswith("column:maxcompute:shop.ads_copy")]
    assert [e for e in edges if e["relationship"] == "FEEDS" and (e["src"], e["dst"]) == (DWS, ADS)]  # the table FEEDS stays
    assert vertices["job:maxcompute:j3"]["properties"]["column_lineage"] == "complete"


def test_a_recreated_table_closes_its_former_columns(graph):
    _, edges, _ = graph
    assert has_column(edges, TMP) == {col(TMP, "order_id"): (2, 3), col(TMP, "buyer"): (3, None)}
    assert column_feeds(edges, col(TMP, "buyer")) == {(col(ODS, "customer_id"), "direct"): ["IDENTITY"]}


def _job_runs(edges) -> dict[tuple[str, str], set[str]]:
    """(a, b) -> the job runs that READ a and WRITE b: what made a table FEEDS (its ``via`` names
    their definitions, a node for a job it submitted, DESIGN.md "Definitions and runs")."""
    reads: dict[str, set[str]] = {}
    for e in edges:
        if e["relationship"] == "READS" and e["src"].startswith("job:"):
            reads.setdefault(e["src"], set()).add(e["dst"])
    out: dict[tuple[str, str], set[str]] = {}
    for e in edges:
        if e["relationship"] == "WRITES" and e["src"].startswith("job:"):
            for a in reads.get(e["src"], ()):
                out.setdefault((a, e["dst"]), set()).add(e["src"])
    return out


def test_every_table_feeds_edge_has_a_column_pair_or_a_partial_job(graph):
    vertices, edges, _ = graph
    column_pairs = {(e["src"].rsplit(".", 1)[0], e["dst"].rsplit(".", 1)[0]) for e in edges
                    if e["relationship"] == "FEEDS" and e["src"].startswith("column:")}
    runs = _job_runs(edges)
    for e in edges:
        if e["relationship"] == "FEEDS" and e["src"].startswith("table:"):
            pair = (e["src"].replace("table:", "column:", 1), e["dst"].replace("table:", "column:", 1))
            partial = any(vertices[j]["properties"].get("column_lineage") == "partial"
                          for j in runs.get((e["src"], e["dst"]), ()))
            assert pair in column_pairs or partial, (e["src"], e["dst"])


def test_on_the_generated_platform_every_table_feeds_has_a_column_path_or_a_partial_job(generated):
    """The generated platform (`generated` fixture): column FEEDS join Column vertices; each table
    FEEDS edge between two tables has a column path from the first table's columns to the second's
    (through a staging table's at most), or a job it comes through has partial or no column lineage
    (a job without SQL: its lineage comes from audit events only)."""
    from lineage.graph.api import load_rows

    vertices, edges = load_rows(generated.warehouse)
    by_id = {v["id"]: v for v in vertices}
    column_feeds = [e for e in edges if e["relationship"] == "FEEDS" and e["src_label"] == "Column"]
    assert column_feeds and all(e["dst_label"] == "Column" and e["qualifier"] in ("direct", "indirect")
                                for e in column_feeds)
    assert {e["qualifier"] for e in column_feeds} == {"direct", "indirect"}
    nxt: dict[str, set[str]] = {}
    for e in column_feeds:
        nxt.setdefault(e["src"].rsplit(".", 1)[0], set()).add(e["dst"].rsplit(".", 1)[0])
    checked, runs = 0, _job_runs(edges)
    for e in edges:
        if e["relationship"] != "FEEDS" or e["src_label"] != "Table" or e["dst_label"] != "Table":
            continue
        jobs = [by_id.get(j, {}).get("properties", {}) for j in runs.get((e["src"], e["dst"]), ())]
        if not jobs or any(j.get("column_lineage") != "complete" for j in jobs) or e["src"] == e["dst"]:
            continue
        src, dst = (t.replace("table:", "column:", 1) for t in (e["src"], e["dst"]))
        one = nxt.get(src, set())
        assert dst in one or any(dst in nxt.get(mid, set()) for mid in one), (e["src"], e["dst"])
        checked += 1
    assert checked > 50


def test_added_columns_come_before_the_partition_columns():
    """MaxCompute keeps partition columns last: ADD COLUMNS after CREATE ... PARTITIONED BY."""
    found = facts_of(job("j9", 1, "CREATE TABLE IF NOT EXISTS t9 (id BIGINT) PARTITIONED BY (ds STRING);"
                                  "ALTER TABLE t9 ADD COLUMNS (note STRING);"))
    positions = {f.dst_id: f.properties.get("position") for f in found
                 if f.relationship == "HAS_COLUMN" and f.op == "assert"}
    t9 = f"table:maxcompute:{P}.t9"
    assert positions == {col(t9, "id"): "1", col(t9, "note"): "2", col(t9, "ds"): "3"}


def test_a_storage_path_read_as_a_table_gives_no_column():
    """``parquet.`oss://...``` is a Location (table lineage's rule); no event states its columns,
    so its column pairs are not made into Column ids of a table that does not exist."""
    from lineage.facts.maxcompute.columns import _column

    assert _column("parquet.oss://acme-lake/ref/fx_rates/.id") is None
    assert _column("sales_dw.orders_raw.id") == "column:maxcompute:sales_dw.orders_raw.id"
