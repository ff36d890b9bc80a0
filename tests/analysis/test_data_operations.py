"""Data operations are not changes (issue 68, item 2), from hand-made ActionTrail and DataHub events
through ingest + build + ``blast-radius`` on both engines.

One table ``p.src`` owned by alice, read by three scheduled nodes: ``101`` for three weeks and
yesterday, ``102`` since two days, ``103`` once, 19 days ago (outside the 7-day lookback). Node 101
writes ``p.out``. On the change day: a partition added by a job, rows uploaded through Tunnel, a
partition overwritten (writes: no change, the writers are recorded); then a partition dropped, the
table truncated and its lifecycle changed (notices: alice and the nodes that read it lately, never
``p.out`` downstream nor the idle node 103); one DataHub field removal (one change).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from handmade import actiontrail, built, cli, datahub, job


T = datetime(2024, 7, 10, 10, 0, tzinfo=timezone.utc)
SRC, OUT = "table:maxcompute:p.src", "table:maxcompute:p.out"
ALICE = "user:datahub:alice"
N101, N102, N103 = "node:dataworks:101", "node:dataworks:102", "node:dataworks:103"
def table_event(key: str, name: str, when: datetime, operation: str, source: str = "INSTANCE") -> dict:
    return actiontrail(key, name, "TableEvent", when, {"TableName": "src", "Source": source, "CorrelationId": key,
                                                        "OperationText": operation}, {"Table": ["src"]})


READ = "INSERT OVERWRITE TABLE p.out SELECT k, v FROM p.src;"
EVENTS = [
    job("ddl", T - timedelta(days=21), "CREATE TABLE IF NOT EXISTS p.src (k STRING, v BIGINT) PARTITIONED BY (ds STRING);\n"
                                       "CREATE TABLE IF NOT EXISTS p.out (k STRING, v BIGINT);"),
    datahub("OWNER", "ADD", T - timedelta(days=21), modifier="urn:li:corpuser:alice",
            parameters={"ownerUrn": "urn:li:corpuser:alice", "ownerType": "DATAOWNER"}),
    job("r101a", T - timedelta(days=20), READ, "101"),
    job("r101b", T - timedelta(days=1), READ, "101"),
    job("r102", T - timedelta(days=2), "INSERT OVERWRITE TABLE p.out2 SELECT k FROM p.src;", "102"),
    job("r103", T - timedelta(days=19), "INSERT OVERWRITE TABLE p.out3 SELECT k FROM p.src;", "103"),
    # writes: no change
    table_event("w-partition", "ChangeTable", T, "ADD_PARTITION"),
    table_event("w-tunnel", "ChangeTableData", T + timedelta(minutes=5), "INSERT_TABLE", source="TUNNEL"),
    table_event("w-overwrite", "ChangeTableData", T + timedelta(minutes=10), "INSERT_OVERWRITE_PARTITION"),
    # data removed, retention changed: notices
    table_event("drop-partition", "ChangeTable", T + timedelta(hours=1), "ALTER_TABLE_DROP_PARTITION"),
    table_event("truncate", "ChangeTableData", T + timedelta(hours=2), "TRUNCATE_TABLE"),
    table_event("lifecycle", "ChangeTable", T + timedelta(hours=3), "ALTER_TABLE_CHANGE_LIFECYCLE"),
    # one DataHub event, one change
    datahub("TECHNICAL_SCHEMA", "REMOVE", T + timedelta(hours=4),
            modifier="urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:maxcompute,p.src,PROD),v)",
            parameters={"fieldPath": "v"}),
]


@pytest.fixture(scope="module")
def warehouse(spark, tmp_path_factory) -> Path:
    return built(spark, tmp_path_factory.mktemp("data-operations"), EVENTS)


def changes_of(warehouse: Path, engine: str) -> dict[str, dict]:
    doc = cli("blast-radius", "--warehouse", warehouse, "--since", T.date(), "--engine", engine, "--json")
    return {c["kind"]: c for c in doc["changes"] if c["entity_id"] == SRC}, doc


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_writes_are_not_changes_and_removals_notify_the_recent_readers_and_owners(warehouse, engine):
    found, doc = changes_of(warehouse, engine)
    # a partition added, an upload, an overwrite: no change at all; the rest one change each
    assert sorted(c["kind"] for c in doc["changes"]) == ["field_removal", "lifecycle_change", "partition_drop",
                                                         "truncate"]
    for kind in ("partition_drop", "truncate", "lifecycle_change"):
        change = found[kind]
        assert change["effect"] == "notifies", kind
        # the owner and the nodes that read it in the last 7 days; not node 103 (19 days ago), not
        # the runs (their nodes read), nothing downstream (p.out is not broken by fewer rows)
        assert {a["id"]: a["distance"] for a in change["affected"]} == {ALICE: 1, N101: 1, N102: 1}, kind
    # a removed field still breaks its readers, downstream too
    assert found["field_removal"]["effect"] == "breaks"
    assert OUT in {a["id"] for a in found["field_removal"]["affected"]}


def test_a_write_says_who_wrote_the_table_and_when(warehouse):
    shown = cli("show", SRC, "--warehouse", warehouse, "--json")
    writers = {k["id"] for k in shown["relationships"]["in"].get("WRITES", [])}
    uploaders = {k["id"] for k in shown["relationships"]["in"].get("UPLOADED", [])}
    assert {"job:maxcompute:w-partition", "job:maxcompute:w-overwrite"} <= writers
    assert uploaders == {"user:aliyun:1"}  # the account ram$p:etl, tied to the uid its events give beside it
    assert {c["kind"] for c in shown["changes"]} == {"owner_change", "field_removal", "lifecycle_change", "partition_drop",
                                                     "truncate"}  # alice made owner three weeks before


def test_the_engines_agree(warehouse):
    local, _ = changes_of(warehouse, "local")
    spark, _ = changes_of(warehouse, "spark")
    assert local == spark


def test_a_lifecycle_of_known_days_tells_only_readers_reaching_further_back(tmp_path, spark):
    """ActionTrail's ALTER_TABLE_CHANGE_LIFECYCLE carries no number of days (every recent reader is
    told, above); a record that says ``lifecycle`` (days) tells the readers that have read the table
    for longer than that, whose reads may reach the partitions it now reclaims. Both engines."""
    from export.graphgen import write_graph

    from lineage.analysis.blast import blast_radius
    from lineage.analysis.spark_temporal import SparkTraversal
    from lineage.analysis.temporal import TemporalGraph
    from lineage.graph.api import change_rows

    start = T - timedelta(days=30)
    labels = {SRC: "Table", N101: "Node", N102: "Node", ALICE: "User"}
    vertices = [{"id": i, "label": label, "name": i, "first_seen": start} for i, label in labels.items()]

    def edge(src, rel, dst, since, last):
        return {"src": src, "dst": dst, "relationship": rel, "valid_from": since, "valid_to": None, "last_seen": last}

    edges = [edge(N101, "READS", SRC, start, T - timedelta(days=1)),  # a 30-day history, read yesterday
             edge(N102, "READS", SRC, T - timedelta(days=2), T - timedelta(days=1)),  # reads two days back
             edge(ALICE, "OWNS", SRC, start, start)]
    changes = [{"change_id": "week", "entity_id": SRC, "entity_label": "Table", "kind": "lifecycle_change",
                "time": T, "actor": None, "event_id": "e-week", "source": "test",
                "properties": {"operation": "ALTER_TABLE_CHANGE_LIFECYCLE", "lifecycle": "7"}}]
    warehouse = write_graph(tmp_path, vertices, edges, changes)
    for traversal in (TemporalGraph.from_warehouse(warehouse), SparkTraversal.from_warehouse(warehouse, spark)):
        [found] = blast_radius(change_rows(warehouse), traversal)
        assert found.effect == "notifies"
        assert {a.id for a in found.affected} == {ALICE, N101}, type(traversal).__name__
