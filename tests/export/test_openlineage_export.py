"""`lineage export openlineage`: the graph's runs as OpenLineage RunEvents that consumers (and our
own ingest) read back as the same lineage, delivered over HTTP exactly once across interruptions."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lineage import ids
from lineage.cli import main
from lineage.graph.api import load_rows
from tests.export.graphgen import T0, write_graph

# --------------------------------------------------------------------------------------------
# a hand-made graph: a DataWorks node whose instance ran a MaxCompute job with column lineage,
# a failed job, a storage location and a running job
# --------------------------------------------------------------------------------------------

NODE, INSTANCE, JOB = "node:dataworks:700", "instance:dataworks:4600", "job:maxcompute:20240701abc"
FAILED, RUNNING = "job:maxcompute:20240701bad", "job:maxcompute:20240701run"
ORDERS, DAILY, LAKE = "table:maxcompute:sales.orders", "table:maxcompute:sales.daily", "location:oss://lake/exports/daily"


def _v(vid: str, label: str, name: str, minutes: int = 0, **props: str) -> dict[str, Any]:
    return {"id": vid, "label": label, "name": name, "first_seen": T0 + timedelta(minutes=minutes),
            "last_seen": T0 + timedelta(minutes=minutes + 10), "properties": props}


def _e(src: str, rel: str, dst: str, qualifier: str = "", minutes: int = 0, **props: str) -> dict[str, Any]:
    return {"src": src, "dst": dst, "relationship": rel, "qualifier": qualifier, "src_label": ids.label_of(src),
            "dst_label": ids.label_of(dst), "valid_from": T0 + timedelta(minutes=minutes),
            "last_seen": T0 + timedelta(minutes=minutes), "properties": props}


def hand_made(warehouse: Path) -> Path:
    sql = "INSERT OVERWRITE TABLE sales.daily SELECT region, SUM(amount) AS total FROM sales.orders WHERE ok GROUP BY region"
    vertices = [
        _v(ORDERS, "Table", "orders"), _v(DAILY, "Table", "daily"), _v(LAKE, "Location", "oss://lake/exports/daily"),
        _v(NODE, "Node", "daily_etl"), _v("user:aliyun:42", "User", "alice"),
        _v(INSTANCE, "Instance", "4600", 1, status="success", workspace="31001", status_time="2024-07-01T00:12:00Z"),
        _v(JOB, "Job", "daily_etl_20240701_0", 2, status="Terminated", project="sales", sql=sql, skynet_id="700",
           skynet_taskid="4600", status_time="2024-07-01T00:11:00Z"),
        _v(FAILED, "Job", "adhoc_1", 30, status="failed", project="sales", sql="SELECT * FROM nowhere",
           error_code="ODPS-0130131", error_message="Table not found - nowhere"),
        _v(RUNNING, "Job", "adhoc_2", 40, status="Running", project="sales", sql="SELECT 1"),
    ]
    via = f'["{JOB}"]'
    edges = [
        _e("user:aliyun:42", "OWNS", NODE),
        _e(NODE, "HAS_INSTANCE", INSTANCE, minutes=1),
        _e(NODE, "READS", ORDERS), _e(NODE, "WRITES", DAILY),
        _e(JOB, "READS", ORDERS, minutes=11), _e(JOB, "WRITES", DAILY, minutes=11), _e(JOB, "WRITES", LAKE, minutes=11),
        _e(ORDERS, "FEEDS", DAILY, minutes=11, via=via), _e(ORDERS, "FEEDS", LAKE, minutes=11, via=via),
        _e("column:maxcompute:sales.orders.region", "FEEDS", "column:maxcompute:sales.daily.region", "direct", 11,
           via=via, transformations='["IDENTITY"]'),
        _e("column:maxcompute:sales.orders.amount", "FEEDS", "column:maxcompute:sales.daily.total", "direct", 11,
           via=via, transformations='["AGGREGATION"]'),
        _e("column:maxcompute:sales.orders.ok", "FEEDS", "column:maxcompute:sales.daily.total", "indirect", 11,
           via=via, transformations='["FILTER"]'),
        _e("column:maxcompute:sales.orders.region", "FEEDS", "column:maxcompute:sales.daily.total", "indirect", 11,
           via=via, transformations='["GROUP_BY"]'),
    ]
    return write_graph(warehouse, vertices, edges)


def export(args: list[str], env: dict[str, str] | None = None) -> tuple[int, dict[str, Any] | None, str]:
    ran = CliRunner().invoke(main, ["export", "openlineage", *args, "--json"], env=env)
    try:
        summary = json.loads(ran.stdout)
    except ValueError:
        summary = None
    return ran.exit_code, summary, ran.output


def read_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


# --------------------------------------------------------------------------------------------
# parsing with openlineage-python's own classes
# --------------------------------------------------------------------------------------------


def _facet(cls: type, doc: dict[str, Any], **nested: Any) -> Any:
    kwargs = {k: v for k, v in doc.items() if not k.startswith("_")}
    return cls(**{**kwargs, **nested}, producer=doc["_producer"])


def _column_lineage(doc: dict[str, Any]) -> Any:
    from openlineage.client.facet_v2 import column_lineage_dataset as cl

    def field(f: dict[str, Any]) -> Any:
        return cl.InputField(namespace=f["namespace"], name=f["name"], field=f["field"],
                             transformations=[cl.Transformation(**t) for t in f.get("transformations", [])])

    return _facet(cl.ColumnLineageDatasetFacet, doc, fields={
        name: cl.Fields(inputFields=[field(f) for f in spec["inputFields"]],
                        **{k: v for k, v in spec.items() if k != "inputFields"})
        for name, spec in doc["fields"].items()}, dataset=[field(f) for f in doc.get("dataset", [])])


def _facets(docs: dict[str, Any]) -> dict[str, Any]:
    from openlineage.client.facet_v2 import (error_message_run, job_type_job, ownership_job, parent_run,
                                             processing_engine_run, sql_job)

    builders = {
        "sql": lambda d: _facet(sql_job.SQLJobFacet, d),
        "jobType": lambda d: _facet(job_type_job.JobTypeJobFacet, d),
        "ownership": lambda d: _facet(ownership_job.OwnershipJobFacet, d,
                                      owners=[ownership_job.Owner(**o) for o in d["owners"]]),
        "processing_engine": lambda d: _facet(processing_engine_run.ProcessingEngineRunFacet, d),
        "errorMessage": lambda d: _facet(error_message_run.ErrorMessageRunFacet, d),
        "parent": lambda d: _facet(parent_run.ParentRunFacet, d, run=parent_run.Run(runId=d["run"]["runId"]),
                                   job=parent_run.Job(namespace=d["job"]["namespace"], name=d["job"]["name"])),
        "columnLineage": _column_lineage,
    }
    unknown = set(docs) - set(builders)
    assert not unknown, f"facets this test cannot rebuild: {unknown}"
    return {name: builders[name](doc) for name, doc in docs.items()}


def rebuilt(doc: dict[str, Any]) -> Any:
    """The event made again from its JSON by openlineage-python's classes (their validators run:
    UUID runId, ISO eventTime, facet schemas)."""
    from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState

    return RunEvent(
        eventType=RunState(doc["eventType"]), eventTime=doc["eventTime"], producer=doc["producer"],
        run=Run(runId=doc["run"]["runId"], facets=_facets(doc["run"].get("facets", {}))),
        job=Job(namespace=doc["job"]["namespace"], name=doc["job"]["name"], facets=_facets(doc["job"].get("facets", {}))),
        inputs=[InputDataset(namespace=d["namespace"], name=d["name"], facets=_facets(d.get("facets", {})))
                for d in doc.get("inputs", [])],
        outputs=[OutputDataset(namespace=d["namespace"], name=d["name"], facets=_facets(d.get("facets", {})))
                 for d in doc.get("outputs", [])])


SHARED = Path(__file__).parents[2].parent / "shared" / "conformance"
SPEC = SHARED / "openlineage-spec"  # OpenLineage's JSON Schema (spec 2-0-2) and facet schemas, unchanged
PUBLIC = SHARED / "openlineage-events" / "events.jsonl"  # 80 published events


def assert_valid(docs: list[dict[str, Any]]) -> None:
    """Every event valid against OpenLineage.json, every columnLineage facet against its own schema
    (all four schemas in one registry, as SPEC's README says)."""
    from jsonschema import Draft202012Validator, FormatChecker
    from referencing import Registry, Resource

    schemas = [json.loads(f.read_text()) for f in [SPEC / "OpenLineage.json", *sorted((SPEC / "facets").glob("*.json"))]]
    registry = Registry().with_resources((doc["$id"], Resource.from_contents(doc)) for doc in schemas)
    by_id = {doc["$id"].rsplit("/", 1)[1]: doc["$id"] for doc in schemas}
    event = Draft202012Validator(schemas[0], registry=registry, format_checker=FormatChecker())
    columns = Draft202012Validator({"$ref": by_id["ColumnLineageDatasetFacet.json"] + "#/$defs/ColumnLineageDatasetFacet"},
                                   registry=registry)
    for doc in docs:
        assert not list(event.iter_errors(doc)), (doc["job"], [e.message for e in event.iter_errors(doc)][:3])
        for output in doc.get("outputs", []):
            facet = output.get("facets", {}).get("columnLineage")
            assert facet is None or not list(columns.iter_errors(facet)), [e.message for e in columns.iter_errors(facet)][:3]


def assert_parses(docs: list[dict[str, Any]]) -> None:
    from openlineage.client.serde import Serde

    for doc in docs:
        assert doc["schemaURL"].startswith("https://openlineage.io/spec/2-0-2/")
        assert Serde.to_dict(rebuilt(doc)) == doc


# --------------------------------------------------------------------------------------------
# what the events say (no Spark)
# --------------------------------------------------------------------------------------------


@pytest.fixture
def hand_events(tmp_path: Path) -> list[dict[str, Any]]:
    warehouse = hand_made(tmp_path / "wh")
    code, summary, output = export(["--warehouse", str(warehouse), "--out", str(tmp_path / "ol.jsonl")])
    assert code == 0, output
    assert summary == {"target": str(tmp_path / "ol.jsonl"), "runs": 4, "events": 7, "sent": 7, "skipped": 0,
                       "failed": 0, "failures": []}
    return read_events(tmp_path / "ol.jsonl")


def _of(events: list[dict[str, Any]], job_name: str, event_type: str, namespace: str = "maxcompute://sales") -> dict[str, Any]:
    return next(e for e in events if (e["job"]["namespace"], e["job"]["name"], e["eventType"]) == (namespace, job_name, event_type))


def test_a_run_carries_its_datasets_sql_owners_engine_and_column_lineage(hand_events):
    done = _of(hand_events, "daily_etl", "COMPLETE")  # the MaxCompute job is named after its node
    assert done["job"]["namespace"] == "maxcompute://sales"
    datasets = {(d["namespace"], d["name"]) for d in done["inputs"] + done["outputs"]}
    assert datasets == {("maxcompute://sales", "sales.orders"), ("maxcompute://sales", "sales.daily"),
                        ("oss://lake", "exports/daily")}
    assert {ids.openlineage_dataset(ns, n) for ns, n in datasets} == {ORDERS, DAILY, LAKE}  # our ingest reads them back
    assert done["job"]["facets"]["sql"]["query"].startswith("INSERT OVERWRITE TABLE sales.daily")
    assert done["job"]["facets"]["ownership"]["owners"] == [{"name": "user:aliyun:42"}]
    assert done["run"]["facets"]["processing_engine"]["name"] == "lineage"
    parent = done["run"]["facets"]["parent"]
    dataworks = next(e for e in hand_events if e["job"]["namespace"] == "dataworks://31001")
    assert parent["run"]["runId"] == dataworks["run"]["runId"] and parent["job"]["name"] == "daily_etl"
    daily = next(d for d in done["outputs"] if d["name"] == "sales.daily")
    fields = daily["facets"]["columnLineage"]["fields"]
    assert fields["region"]["inputFields"] == [{"namespace": "maxcompute://sales", "name": "sales.orders", "field": "region",
                                                "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}]}]
    assert {(f["field"], t["type"], t["subtype"]) for f in fields["total"]["inputFields"] for t in f["transformations"]} == {
        ("amount", "DIRECT", "AGGREGATION"), ("ok", "INDIRECT", "FILTER"), ("region", "INDIRECT", "GROUP_BY")}


def test_a_failed_run_says_why_and_asserts_no_lineage_a_running_one_only_started(hand_events):
    failed = _of(hand_events, "adhoc_1", "FAIL")
    assert failed["run"]["facets"]["errorMessage"]["message"] == "ODPS-0130131: Table not found - nowhere"
    assert not failed.get("outputs")
    assert [e["eventType"] for e in hand_events if e["job"]["name"] == "adhoc_2"] == ["START"]
    dataworks = [e for e in hand_events if e["job"]["namespace"] == "dataworks://31001"]
    assert [e["eventType"] for e in dataworks] == ["START", "COMPLETE"]  # the node's lineage, as it ran
    assert {d["name"] for d in dataworks[1]["inputs"] + dataworks[1]["outputs"]} == {"sales.orders", "sales.daily"}
    times = [e["eventTime"] for e in hand_events]
    assert times == sorted(times)


def test_every_event_parses_with_openlineage_python(hand_events):
    assert_parses(hand_events)


@pytest.mark.skipif(not SPEC.is_dir(), reason="../shared/conformance is not on this machine")
def test_every_event_is_valid_against_the_openlineage_json_schema(hand_events):
    assert_valid(hand_events)


def test_since_until_choose_events_by_time(tmp_path):
    warehouse = hand_made(tmp_path / "wh")
    code, summary, output = export(["--warehouse", str(warehouse), "--out", str(tmp_path / "late.jsonl"),
                                    "--since", "2024-07-01T00:30:00Z", "--until", "2024-07-01T01:00:00Z"])
    assert code == 0, output
    assert {e["job"]["name"] for e in read_events(tmp_path / "late.jsonl")} == {"adhoc_1", "adhoc_2"}
    assert summary["runs"] == 2 and summary["events"] == 3


def test_one_target_is_required(tmp_path):
    code, _, output = export(["--warehouse", str(hand_made(tmp_path / "wh"))])
    assert code == 2 and "--out FILE or --url URL" in output


# --------------------------------------------------------------------------------------------
# HTTP: a small OpenLineage receiver on 127.0.0.1
# --------------------------------------------------------------------------------------------


class Receiver:
    """Marquez's ``POST /api/v1/lineage`` on loopback: keeps what it acknowledged (across restarts,
    like Marquez's database), can die after ``limit`` acknowledgements or answer 503 ``flaky`` times."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.headers: list[str | None] = []
        self.limit: int | None = None
        self.flaky = 0
        self.server: ThreadingHTTPServer | None = None
        self.port = 0

    def start(self) -> "Receiver":
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path != "/api/v1/lineage":
                    self.send_response(404)
                elif owner.limit is not None and len(owner.received) >= owner.limit:
                    self.close_connection = True  # dead: no answer; the server is stopped below
                    threading.Thread(target=owner.stop, daemon=True).start()
                    return
                elif owner.flaky:
                    owner.flaky -= 1
                    self.send_response(503)
                else:
                    owner.received.append(json.loads(body))
                    owner.headers.append(self.headers.get("Authorization"))
                    self.send_response(201)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v1/lineage"


@pytest.fixture
def receiver():
    r = Receiver().start()
    yield r
    r.stop()


def _keys(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["run"]["runId"], e["eventType"]) for e in events]


def test_killed_receiver_restarted_gets_every_event_once(tmp_path, receiver):
    warehouse = hand_made(tmp_path / "wh")
    export(["--warehouse", str(warehouse), "--out", str(tmp_path / "all.jsonl")])
    expected = read_events(tmp_path / "all.jsonl")

    receiver.limit = 3
    code, _, output = export(["--warehouse", str(warehouse), "--url", receiver.url, "--retry-seconds", "1"])
    assert code == 1 and "run the export again to resume" in output
    assert len(receiver.received) == 3 and receiver.server is None  # it died after three

    receiver.limit = None
    receiver.start()  # the same port, the same store
    code, summary, output = export(["--warehouse", str(warehouse), "--url", receiver.url])
    assert code == 0, output
    assert (summary["sent"], summary["skipped"], summary["failed"]) == (4, 3, 0)
    assert receiver.received == expected  # all of them, in order, none twice

    code, summary, _ = export(["--warehouse", str(warehouse), "--url", receiver.url])
    assert code == 0 and (summary["sent"], summary["skipped"]) == (0, 7)
    assert len(receiver.received) == 7
    assert (warehouse / "exports").is_dir() and not list((warehouse / "exports").rglob("journal.jsonl"))


def test_failing_requests_are_retried_and_the_token_is_sent_never_shown(tmp_path, receiver):
    warehouse = hand_made(tmp_path / "wh")
    receiver.flaky = 4
    code, summary, output = export(["--warehouse", str(warehouse), "--url", receiver.url],
                                   env={"OPENLINEAGE_API_KEY": "s3cret-token"})
    assert code == 0, output
    assert (summary["runs"], summary["events"], summary["sent"], summary["failed"]) == (4, 7, 7, 0)
    assert len(set(_keys(receiver.received))) == 7 == len(receiver.received)
    assert set(receiver.headers) == {"Bearer s3cret-token"}
    assert "s3cret" not in output and not any("s3cret" in p.read_text(errors="replace")
                                              for p in (warehouse / "exports").rglob("*") if p.is_file())


def test_an_event_the_endpoint_refuses_is_counted_and_sent_again_next_run(tmp_path, receiver):
    warehouse = hand_made(tmp_path / "wh")
    code, summary, output = export(["--warehouse", str(warehouse), "--url", receiver.url.replace("lineage", "nothing")])
    assert code == 3 and summary["failed"] == 7 and summary["sent"] == 0
    assert "refused" in output and "HTTP 404" in output
    code, summary, _ = export(["--warehouse", str(warehouse), "--url", receiver.url])
    assert code == 0 and summary["sent"] == 7


# --------------------------------------------------------------------------------------------
# round trips through our own ingest (Spark)
# --------------------------------------------------------------------------------------------


def _ingest_and_build(events: Path, warehouse: Path, spark) -> None:
    from lineage.graph.build import build

    ran = CliRunner().invoke(main, ["ingest", str(events), "--warehouse", str(warehouse), "--json"])
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.stdout)["total"]["quarantined"] == 0
    build(warehouse, spark=spark)


def _feeds(warehouse: Path, columns: bool = False) -> dict[tuple[str, str, str], list[str]]:
    _, edges = load_rows(warehouse)
    return {(e["src"], e["dst"], e["qualifier"]): json.loads(e["properties"].get("transformations") or "[]")
            for e in edges if e["relationship"] == "FEEDS" and (e["src_label"] == "Column") == columns}


def test_hand_made_round_trip_keeps_table_and_column_feeds(tmp_path, hand_events, spark):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "ol.jsonl").write_text("".join(json.dumps(e) + "\n" for e in hand_events))
    again = tmp_path / "again"
    _ingest_and_build(tmp_path / "in", again, spark)
    assert set(_feeds(again)) == {(ORDERS, DAILY, ""), (ORDERS, LAKE, "")}
    assert _feeds(again, columns=True) == _feeds(tmp_path / "wh", columns=True)


@pytest.mark.skipif(not (PUBLIC.is_file() and SPEC.is_dir()), reason="../shared/conformance is not on this machine")
def test_public_events_round_trip_keeps_every_table_feeds(tmp_path, spark):
    """The 80 published events, built, exported and ingested again: every table FEEDS comes back
    (a JobEvent's declared lineage too, exported as a JobEvent), and every exported event is valid."""
    first, again = tmp_path / "wh", tmp_path / "again"
    _ingest_and_build(PUBLIC, first, spark)
    out = tmp_path / "out" / "ol.jsonl"
    code, summary, output = export(["--warehouse", str(first), "--out", str(out)])
    assert code == 0, output
    events = read_events(out)
    assert_valid(events)
    declared = [e for e in events if "run" not in e]
    assert [(e["job"]["namespace"], e["job"]["name"]) for e in declared] == [("openlineage", "name")]
    assert summary["events"] == len(events) and summary["runs"] == len({e["run"]["runId"] for e in events if "run" in e})
    _ingest_and_build(out.parent, again, spark)
    assert set(_feeds(again)) == set(_feeds(first))
    assert ("table:openlineage:dataset_a", "table:openlineage:dataset_b", "") in _feeds(again)
    assert set(_feeds(again, columns=True)) == set(_feeds(first, columns=True))


@pytest.fixture(scope="module")
def generated_export(generated, tmp_path_factory):
    out = tmp_path_factory.mktemp("ol-export") / "events" / "openlineage.jsonl"
    code, summary, output = export(["--warehouse", str(generated.warehouse), "--out", str(out)])
    assert code == 0, output
    return out, summary


def test_generated_platform_round_trip_gives_the_same_table_feeds(generated, generated_export, tmp_path, spark):
    out, summary = generated_export
    assert summary["runs"] > 0 and summary["events"] >= summary["runs"]
    again = tmp_path / "again"
    _ingest_and_build(out.parent, again, spark)
    original, back = set(_feeds(generated.warehouse)), set(_feeds(again))
    assert back <= original
    # The one principled difference: FEEDS that only a DataWorks node's declared lineage gives,
    # with no run of it while both its READS and WRITES held, have no run to export.
    _, edges = load_rows(generated.warehouse)
    for pair in original - back:
        props = next(e["properties"] for e in edges
                     if (e["src"], e["dst"], e["qualifier"], e["relationship"]) == (*pair, "FEEDS"))
        via = json.loads(props["via"])
        assert all(v.startswith("node:") for v in via) and props["run_count"] == "0", (pair, props)
    assert _feeds(again, columns=True) == _feeds(generated.warehouse, columns=True)


def test_generated_platform_events_parse_and_name_known_datasets(generated, generated_export):
    out, _ = generated_export
    events = read_events(out)
    assert_parses(events)
    vertices, _ = load_rows(generated.warehouse)
    known = {v["id"] for v in vertices}
    named = {ids.openlineage_dataset(d["namespace"], d["name"]) for e in events for d in e["inputs"] + e["outputs"]}
    assert named and named <= known
    assert {e["eventType"] for e in events} >= {"START", "COMPLETE", "FAIL"}
