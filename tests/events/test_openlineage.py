"""OpenLineage as a source, through the `lineage` command: ids, quarantine, runs and impact.

The published events of ../shared/conformance/openlineage-events are met through the CLI when the
folder is there (never copied: the tests run where it is absent); the hand-written samples in
tests/data/openlineage and one MaxCompute UNLOAD job show a table reaching, across the platform
boundary, tables an OpenLineage run and job write.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lineage import ids
from lineage.cli import main

SAMPLES = Path(__file__).parents[1] / "data" / "openlineage"
CONFORMANCE = Path(__file__).parents[2].parent / "shared" / "conformance" / "openlineage-events" / "events.jsonl"


def run(*args: object):
    return CliRunner().invoke(main, [str(a) for a in args])


# --- one dataset, one id (README's table: the same rows) -------------------------------------

ID_EXAMPLES = [
    ("maxcompute://service.cn-hangzhou.maxcompute.aliyun.com/api", "Sales_DW.Orders", "table:maxcompute:sales_dw.orders"),
    ("odps://sales_dw", "orders", "table:maxcompute:sales_dw.orders"),
    ("oss://Lake-Bucket", "/exports/orders/ds=20240701", "location:oss://lake-bucket/exports/orders"),
    ("oss://lake-bucket.oss-cn-hangzhou.aliyuncs.com", "exports/orders", "location:oss://lake-bucket/exports/orders"),
    ("s3a://lake", "warehouse/t", "location:s3://lake/warehouse/t"),
    ("hdfs://nn:8020", "/user/hive/warehouse/t1", "location:hdfs://nn:8020/user/hive/warehouse/t1"),
    ("gs://mock-bucket", "result.csv", "location:gs://mock-bucket/result.csv"),
    ("file", "/tmp/t", "location:file:///tmp/t"),
    ("dbfs", "/user/hive/warehouse/temp", "location:dbfs:///user/hive/warehouse/temp"),
    ("postgres://db:5432", "shop.public.orders", "table:postgres:shop.public.orders"),
    ("snowflake://ASDF1234.eu-central-1.aws", "DEMO_DB.public.customers", "table:snowflake:demo_db.public.customers"),
    ("bigquery", "p.d.t", "table:bigquery:p.d.t"),
    ("kafka://kafka-prod", "lineage-test-topic-json", "table:kafka:lineage-test-topic-json"),
]


@pytest.mark.parametrize("namespace, name, expected", ID_EXAMPLES)
def test_an_openlineage_dataset_is_the_vertex_other_sources_name(namespace, name, expected):
    assert ids.openlineage_dataset(namespace, name) == expected


def test_a_symlink_to_a_maxcompute_table_wins_and_columns_follow_the_rule():
    assert ids.openlineage_dataset("s3://lake", "orders", [("hive://metastore:9083", "default.orders"),
                                                           ("odps://sales_dw", "Orders")]) == "table:maxcompute:sales_dw.orders"
    assert ids.openlineage_dataset("s3://lake", "orders", [("hive://metastore:9083", "default.orders")]) == "location:s3://lake/orders"
    assert ids.openlineage_column("location:s3://lake/Orders", "Amount") == "column:s3:lake/orders.amount"
    assert ids.openlineage_column("table:postgres:shop.public.orders", "ID") == "column:postgres:shop.public.orders.id"
    assert ids.openlineage_job("Airflow", "DAG.Task") == "job:openlineage:airflow/dag.task"
    assert ids.openlineage_run("RUN_ID") == "instance:openlineage:run_id"


# --- the graph, through the command -------------------------------------------------------------

UNLOAD = {  # MaxCompute exports sales_dw.orders to the lake path the Spark run reads
    "eventId": "ol-unload-1", "eventName": "JobChange", "eventTime": "2024-07-01T01:00:00Z", "eventType": "JobEvent",
    "serviceName": "MaxCompute", "userIdentity": {"principalId": "1001", "type": "ram-user", "userName": "ann"},
    "additionalEventData": {"Status": "Terminated", "ProjectName": "sales_dw", "InstanceId": "20240701010000unload",
                            "TaskType": "SQL", "OperationText": "UNLOAD FROM sales_dw.orders INTO LOCATION "
                            "'oss://oss-cn-hangzhou-internal.aliyuncs.com/lake-bucket/exports/orders/ds=20240701';"},
}


@pytest.fixture(scope="module")
def built(spark, tmp_path_factory):
    """One warehouse: the samples, the UNLOAD job, and the conformance events when present."""
    root = tmp_path_factory.mktemp("openlineage")
    inputs = root / "in"
    inputs.mkdir()
    samples = [p for p in sorted(SAMPLES.glob("*.json")) if not p.name.endswith(".expect.json")]
    lines = [json.dumps(json.loads(p.read_text())) for p in samples]
    (inputs / "samples.jsonl").write_text("\n".join([*lines, json.dumps(UNLOAD)]) + "\n")
    # a Kafka delivery of one event (the wrappers are peeled before the source looks)
    event = json.loads((SAMPLES / "running-parent.json").read_text())
    (inputs / "kafka.json").write_text(json.dumps({"topic": "openlineage", "partition": 0, "offset": 7,
                                                   "value": json.dumps(event)}))
    paths = [inputs, *([CONFORMANCE] if CONFORMANCE.is_file() else [])]
    warehouse = root / "wh"
    ingest = run("ingest", *paths, "--warehouse", warehouse, "--json", "--parse-in", "local")
    assert ingest.exit_code == 0, ingest.stderr
    build = run("build", "--warehouse", warehouse, "--json")
    assert build.exit_code == 0, build.stderr
    return warehouse, json.loads(ingest.stdout), json.loads(build.stdout)


def _graph(warehouse: Path) -> tuple[list[dict], list[dict]]:
    import pyarrow.parquet as pq

    rows = [pq.read_table(warehouse / "graph" / name).to_pylist() for name in ("vertices", "edges")]
    for row in (*rows[0], *rows[1]):
        row["properties"] = dict(row["properties"] or ())  # a parquet map reads as (key, value) pairs
    return rows[0], rows[1]


@pytest.mark.spark
def test_samples_and_deliveries_are_accepted_and_counts_reconcile(built):
    _, summary, result = built
    ol = summary["sources"]["openlineage"]
    extra = 80 if CONFORMANCE.is_file() else 0
    # 6 samples + the Kafka-delivered copy (a duplicate of running-parent) + the conformance events
    assert (ol["read"], ol["accepted"], ol["duplicates"], ol["quarantined"]) == (7 + extra, 6 + extra, 1, 0)
    assert summary["reconciles"] is True and result["mapping_errors"] == 0


@pytest.mark.spark
@pytest.mark.skipif(not CONFORMANCE.is_file(), reason="../shared/conformance is not on this machine")
def test_the_published_events_are_accepted_with_the_ids_of_designs_rule(built):
    warehouse, _, _ = built
    vertices, edges = _graph(warehouse)
    have = {v["id"] for v in vertices}
    for expected in (  # one per namespace kind of the 80 events, read off DESIGN.md's rule
        "table:postgres:workshop.public.taxes", "table:bigquery:bigquery-public-data.samples.shakespeare",
        "table:snowflake:demo_db.public.customers", "table:kafka:lineage-test-topic-json",
        "table:food_delivery:public.orders", "table:my-datasource-namespace:instance.schema.input-1",
        "table:file.localhost:file://localhost/in_file1.txt", "table:openlineage:dataset_a",
        "location:gs://mock-bucket/result.csv", "location:hdfs://dataproc-producer-test-m/user/hive/warehouse/t1",
        "location:s3://blob-sink/instance.schema.table", "location:file:///tmp/cll_test/tbl1",
        "location:dbfs:///user/hive/warehouse/temp", "job:openlineage:my-scheduler-namespace/myjob.buggy_task🕷",
        "instance:openlineage:run_id", "column:file:/tmp/cll_test/tbl1.ident",
    ):
        assert expected in have, expected
    feeds = {(e["src"], e["dst"]) for e in edges if e["relationship"] == "FEEDS"}
    # lines 1-2: the input is on START, the output on COMPLETE: one run, one FEEDS
    assert ("table:postgres:workshop.public.taxes", "table:postgres:workshop.public.unpaid_taxes") in feeds
    # Marquez's seed names datasets on START only; COMPLETE carries none
    assert ("table:food_delivery:public.orders", "table:food_delivery:public.orders_7_days") in feeds
    # dbt's failed model run (lines 9-14) asserts no lineage; its run says it failed
    failed = next(v for v in vertices if v["id"] == "instance:openlineage:5a0c2f59-3f8e-4a43-9b1e-7c2d51e0a102")
    assert failed["properties"]["status"] == "failed" and failed["properties"]["error_code"] == "FAIL"
    assert not [e for e in edges if e["src"] == failed["id"] and e["relationship"] in ("READS", "WRITES")]


@pytest.mark.spark
@pytest.mark.skipif(not CONFORMANCE.is_file(), reason="../shared/conformance is not on this machine")
def test_every_feeds_names_its_openlineage_job_never_a_run(built):
    """DESIGN.md "Definitions and runs": ``via`` of every table and column FEEDS names the OpenLineage
    job that makes it (the one MaxCompute job here, a run no node submitted, by its own id)."""
    warehouse, _, _ = built
    _, edges = _graph(warehouse)
    feeds = [e for e in edges if e["relationship"] == "FEEDS"]
    assert {e["src_label"] for e in feeds} == {"Table", "Location", "Column"}
    unload = "job:maxcompute:20240701010000unload"
    for e in feeds:
        via = json.loads(e["properties"]["via"])
        assert via and all(v.startswith("job:openlineage:") or v == unload for v in via), (e["src"], e["dst"], via)
        assert not any(v.startswith("instance:") for v in via)
    table = next(e for e in feeds if (e["src"], e["dst"]) == ("table:postgres:workshop.public.taxes",
                                                               "table:postgres:workshop.public.unpaid_taxes"))
    assert json.loads(table["properties"]["via"]) == ["job:openlineage:workshop/process_taxes"]
    assert table["properties"]["run_count"] == "1"
    assert table["properties"]["last_run"] == "instance:openlineage:d46e465b-d358-4d32-83d4-df660ff614dd"
    # the JobEvent's declared lineage: a job, no run
    declared = next(e for e in feeds if (e["src"], e["dst"]) == ("table:openlineage:dataset_a", "table:openlineage:dataset_b"))
    assert (declared["properties"]["via"], declared["properties"]["run_count"]) == ('["job:openlineage:openlineage/name"]', "0")


@pytest.mark.spark
def test_impact_of_a_maxcompute_table_reaches_tables_openlineage_jobs_write(built):
    warehouse, _, _ = built
    result = run("impact", "table:maxcompute:sales_dw.orders", "--warehouse", warehouse, "--json", "--engine", "local")
    assert result.exit_code == 0, result.stderr
    affected = {a["id"]: a for a in json.loads(result.stdout)["affected"]}
    assert "location:oss://lake-bucket/exports/orders" in affected  # MaxCompute UNLOAD
    assert "table:maxcompute:sales_dw.orders_lake" in affected  # the Spark run (START + COMPLETE)
    assert "table:postgres:shop.public.report" in affected  # the Airflow job's declared lineage
    # the failed run read sales_dw.orders but asserted nothing: its output is not reached
    assert "location:hdfs://nn:8020/warehouse/lake/orders" not in affected


@pytest.mark.spark
def test_a_runs_lineage_holds_from_its_completion_and_columns_feed(built):
    warehouse, _, _ = built
    _, edges = _graph(warehouse)
    reads = [e for e in edges if e["relationship"] == "READS"
             and e["src"] == "instance:openlineage:0190a1b2-0000-7000-8000-000000000001"]
    assert [str(e["valid_from"]) for e in reads] == ["2024-07-01 02:10:00.123456+00:00"]  # START named it; COMPLETE holds it
    columns = {(e["src"], e["dst"], e["qualifier"], e["properties"]["transformations"]) for e in edges
               if e["relationship"] == "FEEDS" and e["src_label"] == "Column"
               and e["dst"].startswith("column:maxcompute:sales_dw.orders_lake.")}
    assert columns == {
        ("column:oss:lake-bucket/exports/orders.order_id", "column:maxcompute:sales_dw.orders_lake.order_id", "direct", '["IDENTITY"]'),
        ("column:oss:lake-bucket/exports/orders.status", "column:maxcompute:sales_dw.orders_lake.order_id", "indirect", '["FILTER"]'),
    }
    before = run("upstream", "table:maxcompute:sales_dw.orders_lake", "--warehouse", warehouse, "--json",
                 "--as-of", "2024-07-01T02:05:00Z")
    assert before.exit_code == 0, before.stderr
    assert "location:oss://lake-bucket/exports/orders" not in before.stdout  # still running then


@pytest.mark.spark
@pytest.mark.parametrize("change, reason", [
    (lambda d: d.pop("producer"), "openlineage RunEvent: producer: Field required"),
    (lambda d: d["run"].pop("runId"), "openlineage RunEvent: run.runId: Field required"),
    (lambda d: d.update(eventType="PAUSED"), "openlineage RunEvent: eventType: Input should be"),
    (lambda d: d["inputs"][0].pop("name"), "openlineage RunEvent: inputs.0.name: Field required"),
    (lambda d: d.update(eventTime="yesterday"), "openlineage RunEvent: eventTime: not a recognised time"),
])
def test_what_the_spec_requires_and_a_record_lacks_is_quarantined_naming_the_field(spark, tmp_path, change, reason):
    doc = json.loads((SAMPLES / "start-spark.json").read_text())
    change(doc)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(doc) + "\n")
    result = run("ingest", path, "--warehouse", tmp_path / "wh", "--json", "--parse-in", "local")
    summary = json.loads(result.stdout)
    assert summary["sources"]["openlineage"]["quarantined"] == 1
    example = summary["quarantine_examples"][0]
    assert (example["file"].endswith("bad.jsonl"), example["line"]) == (True, 1)
    assert example["reason"].startswith(reason), example["reason"]


def test_older_producer_and_schema_url_spellings_are_tolerated():
    from lineage.events import registry

    doc = json.loads((SAMPLES / "start-spark.json").read_text())
    doc["_producer"] = doc.pop("producer")
    doc["_schemaURL"] = doc.pop("schemaURL")
    event = registry.parse_record(doc)
    assert (event.source, event.kind, event.model.producer) == ("openlineage", "START", doc["_producer"])
