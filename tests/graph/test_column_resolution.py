"""Column lineage resolved with the graph's schemas at build time (issue 32, part 1): a job's
``SELECT *`` over, or positional INSERT into, a table whose columns another job's DDL (or a DataHub
schema event) stated, built through ingest + build. Expected pairs are read off the SQL below."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F

from lineage.graph import resolve
from lineage.graph.build import build
from lineage.ingest.pipeline import ingest

USER = {"accountId": "1", "principalId": "1", "type": "ram-user", "userName": "RAM$p:etl"}


def at(day: int, hour: int = 2) -> datetime:
    return datetime(2024, 7, day, hour, tzinfo=timezone.utc)


def job(instance: str, when: datetime, sql: str) -> dict:
    return {"eventId": f"e-{instance}", "acsRegion": "cn-hangzhou", "eventName": "JobChange", "eventType": "JobEvent",
            "eventTime": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "serviceName": "MaxCompute", "userIdentity": USER,
            "additionalEventData": {"InstanceId": instance, "Status": "Terminated", "ProjectName": "p",
                                    "TaskType": "SQL", "TaskName": instance, "OperationText": sql}}


def field_added(table: str, field: str, when: datetime) -> dict:
    urn = f"urn:li:dataset:(urn:li:dataPlatform:maxcompute,{table},PROD)"
    return {"entityUrn": urn, "entityType": "dataset", "category": "TECHNICAL_SCHEMA", "operation": "ADD",
            "modifier": f"urn:li:schemaField:({urn},{field})",
            "parameters": {"fieldUrn": f"urn:li:schemaField:({urn},{field})", "fieldPath": field, "nullable": True},
            "auditStamp": {"actor": "urn:li:corpuser:steward", "time": int(when.timestamp() * 1000)}}


DDL = [job("ddl_src", at(2), "CREATE TABLE IF NOT EXISTS p.src (a STRING, b BIGINT);"),
       job("ddl_tgt", at(2, 3), "CREATE TABLE IF NOT EXISTS p.tgt (x STRING, y BIGINT) PARTITIONED BY (ds STRING);")]
HUB = [field_added("p.hub", "k", at(2, 4)), field_added("p.hub", "v", at(2, 5))]
JOBS = [
    job("early", at(1), "INSERT OVERWRITE TABLE p.before SELECT * FROM p.src;"),  # no schema yet
    job("star", at(3), "INSERT OVERWRITE TABLE p.dst SELECT * FROM p.src;"),
    job("positional", at(3, 3), "INSERT INTO TABLE p.tgt PARTITION (ds='20240703') SELECT a AS foo, b + 1 AS bar FROM p.src;"),
    job("hub", at(3, 4), "INSERT INTO TABLE p.tgt PARTITION (ds) SELECT k, v, '20240703' AS ds FROM p.hub;"),
]


def c(table: str, column: str) -> str:
    return f"column:maxcompute:p.{table}.{column}"


EXPECTED = {  # (source, target, qualifier) -> the job, read off the SQL
    (c("src", "a"), c("dst", "a"), "direct"): "star",
    (c("src", "b"), c("dst", "b"), "direct"): "star",
    (c("src", "a"), c("tgt", "x"), "direct"): "positional",  # by position, not tgt.foo
    (c("src", "b"), c("tgt", "y"), "direct"): "positional",
    (c("hub", "k"), c("tgt", "x"), "direct"): "hub",  # DataHub's fields, in the order they were added
    (c("hub", "v"), c("tgt", "y"), "direct"): "hub",  # the dynamic partition ds from a literal: no pair
}


def _write(folder: Path, maxcompute: list[dict], datahub: list[dict]) -> Path:
    folder.mkdir(parents=True)
    (folder / "maxcompute.jsonl").write_text("".join(json.dumps(e) + "\n" for e in maxcompute))
    if datahub:
        (folder / "datahub-ece.jsonl").write_text("".join(json.dumps(e) + "\n" for e in datahub))
    return folder


def _graph(warehouse: Path) -> tuple[dict, dict]:
    edges = pq.read_table(str(warehouse / "graph" / "edges")).to_pylist()
    feeds = {(e["src"], e["dst"], e["qualifier"]): [v.split(":")[-1] for v in json.loads(dict(e["properties"])["via"])]
             for e in edges if e["relationship"] == "FEEDS" and e["src_label"] == "Column"}
    jobs = {v["id"].split(":")[-1]: dict(v["properties"]) for v in pq.read_table(str(warehouse / "graph" / "vertices")).to_pylist()
            if v["label"] == "Job"}
    return feeds, jobs


@pytest.fixture(scope="module")
def built(spark, tmp_path_factory):
    """One build over every event, and the same events in two ingests, the DDL arriving late."""
    root = tmp_path_factory.mktemp("resolve")
    once = root / "once"
    ingest([_write(root / "all", DDL + JOBS, HUB)], once, spark=spark)
    first = build(once, spark=spark)
    staged = root / "staged"
    ingest([_write(root / "jobs", JOBS, [])], staged, spark=spark)
    build(staged, spark=spark)
    ingest([_write(root / "late", DDL, HUB)], staged, spark=spark)
    late = build(staged, spark=spark)
    return first, late, _graph(once), _graph(staged), root


def test_select_star_and_positional_insert_use_the_graphs_schema(built):
    first, _, (feeds, jobs), *_ = built
    assert first.mapping_errors == 0
    assert {k: v for k, v in feeds.items()} == {k: [v] for k, v in EXPECTED.items()}
    for name in ("positional", "hub"):
        assert jobs[name]["column_lineage"] == "complete", jobs[name]
        assert "column_lineage_reason" not in jobs[name], jobs[name]  # extraction's, partial: superseded
    assert jobs["star"]["column_lineage"] == "partial"  # p.dst's columns are unknown: named by the query's
    assert "p.dst" in jobs["star"]["column_lineage_reason"]


def test_a_job_before_the_schema_existed_stays_partial(built):
    _, _, (feeds, jobs), *_ = built
    assert not [k for k in feeds if k[1].startswith(c("before", ""))]
    assert jobs["early"]["column_lineage"] == "partial"
    assert "SELECT * over p.src" in jobs["early"]["column_lineage_reason"]
    assert json.loads(jobs["early"]["column_lineage_unknown_tables"]) == ["p.before", "p.src"]


def test_a_schema_ingested_late_is_resolved_by_the_next_incremental_build(built):
    """The jobs first built without the DDL (``positional`` then named tgt.foo, tgt.bar by its
    outputs): the incremental build after the late DDL resolves them again, the earlier pairs go,
    and the graph's column FEEDS and jobs are the one build's."""
    _, late, once, staged, _ = built
    assert late.fold == "incremental" and late.mapping_errors == 0
    assert staged[0] == once[0]
    assert not [k for k in staged[0] if k[1] in (c("tgt", "foo"), c("tgt", "bar"))]
    for name in ("early", "star", "positional", "hub"):
        assert {k: v for k, v in staged[1][name].items() if k.startswith("column_lineage")} == \
            {k: v for k, v in once[1][name].items() if k.startswith("column_lineage")}, name


def test_the_fold_reads_every_stored_fact_but_superseded_resolutions(built, spark):
    """What the fold reads: the stored facts themselves when no resolution was superseded (so its
    plan is a scan: a derived union made a 169-event build need over 700 MB of driver heap), else
    all but the earlier rounds of a job resolved again."""
    root = built[4]
    once = spark.read.parquet(str(root / "once" / "facts"))
    assert resolve.current(once) is once
    staged = spark.read.parquet(str(root / "staged" / "facts"))
    rounds = staged.where(F.col("seq") >= resolve.SEQ_BASE).select("event_id", F.floor(F.col("seq") / resolve.SEQ_BASE).alias("r"))
    by_event = {}
    for row in rounds.distinct().collect():
        by_event.setdefault(row["event_id"], set()).add(row["r"])
    assert any(len(r) > 1 for r in by_event.values())  # the late DDL resolved jobs again
    kept = resolve.current(staged)
    left = {(r["event_id"], r["r"]) for r in kept.where(F.col("seq") >= resolve.SEQ_BASE)
            .select("event_id", F.floor(F.col("seq") / resolve.SEQ_BASE).alias("r")).distinct().collect()}
    assert left == {(e, max(r)) for e, r in by_event.items()}
    assert kept.where(F.col("seq") < resolve.SEQ_BASE).count() == staged.where(F.col("seq") < resolve.SEQ_BASE).count()
