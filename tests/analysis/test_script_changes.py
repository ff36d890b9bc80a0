"""A node update says what its script change did (issue 68, item 3), from hand-made DataWorks and
ActionTrail events through ingest + build + ``blast-radius`` on both engines.

Node ``401`` (owner uid 111) writes ``p.o`` daily from ``p.src``, every table's schema stated by a
DDL job. Three nodes read ``p.o`` daily:
``402`` its column ``b`` into ``p.d_b``, ``403`` its column ``a`` into ``p.d_a``, ``404`` all of it
by position (``SELECT *``) into ``p.copy``. Node 401 is updated four times, each update saving
the same settings (DataWorks says nothing else), and its next run shows what the script became:
``b`` computed another way (a break of ``b``'s readers), a column ``c`` added (only the reader by
position notices), a comment (nothing), a filter (every row may differ: every reader).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from handmade import built, cli, job, node_event

from lineage.analysis.categories import categorize
from lineage.sql.script_diff import diff

T = datetime(2024, 7, 1, tzinfo=timezone.utc)
DAY = timedelta(days=1)
NODE, O = "node:dataworks:401", "table:maxcompute:p.o"
READERS = {n: f"node:dataworks:{n}" for n in (402, 403, 404)}
OWNER = "user:aliyun:111"
SETTINGS = {"nodeName": "o_etl", "programType": "ODPS_SQL", "cronExpress": "00 00 05 * * ?",
            "schedulerType": "NORMAL", "ownerId": "111", "priority": 1, "baselineId": 9, "repeatability": True,
            "datasource": "odps_first"}
V1 = "INSERT OVERWRITE TABLE p.o SELECT k AS a, v AS b FROM p.src;"
V2 = "INSERT OVERWRITE TABLE p.o SELECT k AS a, v + 1 AS b FROM p.src;"
V3 = "INSERT OVERWRITE TABLE p.o SELECT k AS a, v + 1 AS b, w AS c FROM p.src;"
V4 = "-- reviewed\nINSERT OVERWRITE TABLE p.o\nSELECT k AS a, v + 1 AS b, w AS c FROM p.src;"
V5 = "INSERT OVERWRITE TABLE p.o SELECT k AS a, v + 1 AS b, w AS c FROM p.src WHERE k > 0;"
SCRIPTS = [V1, V1, V2, V2, V3, V3, V4, V4, V5, V5]  # node 401's script on day 0..9
UPDATES = {name: T + (2 * n + 1) * DAY + timedelta(hours=12)  # between the runs of two versions
           for n, name in enumerate(("redefined", "added", "comment", "filter"))}
DDL = ("CREATE TABLE IF NOT EXISTS p.src (k STRING, v BIGINT, w STRING);\n"
       "CREATE TABLE IF NOT EXISTS p.o (a STRING, b BIGINT);\nCREATE TABLE IF NOT EXISTS p.d_a (a STRING);\n"
       "CREATE TABLE IF NOT EXISTS p.d_b (b BIGINT);\nCREATE TABLE IF NOT EXISTS p.copy (a STRING, b BIGINT);")
READS = {402: "INSERT OVERWRITE TABLE p.d_b SELECT b FROM p.o;", 403: "INSERT OVERWRITE TABLE p.d_a SELECT a FROM p.o;",
         404: "INSERT OVERWRITE TABLE p.copy SELECT * FROM p.o;"}


def events() -> list[dict]:
    created = T - 10 * DAY
    found = [node_event(401, "node-change-created", created, SETTINGS, created), job("ddl", T - 5 * DAY, DDL)]
    found += [node_event(401, "node-change-updated", when, SETTINGS, created) for when in UPDATES.values()]
    for day, sql in enumerate(SCRIPTS):
        found.append(job(f"o{day}", T + day * DAY + timedelta(hours=5), sql, 401))
        found += [job(f"r{n}-{day}", T + day * DAY + timedelta(hours=6), text, n) for n, text in READS.items()]
    return found


@pytest.fixture(scope="module")
def warehouse(spark, tmp_path_factory) -> Path:
    return built(spark, tmp_path_factory.mktemp("script-changes"), events())


def updates(warehouse: Path, engine: str) -> dict[str, dict]:
    doc = cli("blast-radius", "--warehouse", warehouse, "--since", T.date(), "--engine", engine, "--json")
    found = {datetime.fromisoformat(c["time"]): c for c in doc["changes"] if c["kind"] == "node_update"}
    assert sorted(found) == sorted(UPDATES.values())
    return {name: found[when] for name, when in UPDATES.items()}


def test_the_script_diff_says_what_each_edit_did():
    """The pure comparison, on the four edits (``lineage.sql.script_diff``)."""
    said = {name: diff(old, new, "p").to_json() for name, (old, new) in
            {"redefined": (V1, V2), "added": (V2, V3), "comment": (V3, V4), "filter": (V4, V5)}.items()}
    assert {name: d["category"] for name, d in said.items()} == {
        "redefined": "breaking", "added": "additive", "comment": "unchanged", "filter": "table"}
    assert said["redefined"]["tables"][0]["columns"] == [{"column": "b", "change": "redefined"}]
    assert said["added"]["tables"][0]["columns"] == [{"column": "c", "change": "added"}]
    assert said["filter"]["tables"][0]["parts"] == ["the filter"]


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_an_update_reaches_what_its_script_change_touched(warehouse, engine):
    found = updates(warehouse, engine)
    reached = {name: {a["id"] for a in c["affected"]} for name, c in found.items()}
    # b computed another way: b's readers (402 reads b; 404 copies every column), not 403 (reads a)
    redefined = found["redefined"]
    assert (redefined["category"], redefined["effect"]) == ("breaking", "breaks")
    assert redefined["columns"] == [{"column": "p.o.b", "change": "redefined"}]
    assert redefined["script"]["tables"][0]["table"] == "p.o"
    assert {READERS[402], READERS[404]} <= reached["redefined"] and READERS[403] not in reached["redefined"]
    # c added: only the reader taking p.o by position; its owner is told
    added = found["added"]
    assert (added["category"], added["columns"]) == ("additive", [{"column": "p.o.c", "change": "added"}])
    assert READERS[404] in reached["added"] and not {READERS[402], READERS[403]} & reached["added"]
    # a comment: nothing a reader sees; the owner is told, nothing walked
    comment = found["comment"]
    assert (comment["category"], comment["effect"], comment["script"]["category"]) == ("metadata", "notifies", "unchanged")
    assert reached["comment"] == {OWNER}
    # a filter: every row may differ, every reader of p.o
    table = found["filter"]
    assert (table["category"], table["effect"], table["columns"]) == ("breaking", "breaks", [])
    assert set(READERS.values()) | {O} <= reached["filter"]
    assert table["script"]["tables"][0]["parts"] == ["the filter"]
    assert table["score"] > redefined["score"] >= added["score"] > comment["score"]


def test_impact_of_a_change_id_is_its_blast_radius(warehouse):
    """``lineage impact CHANGE_ID`` reads the script change of the update it names, as blast radius."""
    added = updates(warehouse, "local")["added"]
    doc = cli("impact", added["change_id"], "--warehouse", warehouse, "--engine", "local", "--json")
    assert [(c["category"], c["script"], c["affected"]) for c in doc["changes"]] == [
        (added["category"], added["script"], added["affected"])]


def test_the_engines_agree(warehouse):
    assert updates(warehouse, "local") == updates(warehouse, "spark")


def test_without_a_run_after_it_an_update_is_categorized_by_its_settings():
    """No script: the settings decide, as before; a deploy with no script is the safe side."""
    update = {"kind": "node_update", "entity_id": NODE, "properties": {"changed": "{}"}}
    assert categorize(update).category == "metadata"
    assert categorize({**update, "kind": "node_deploy"}).category == "breaking"
    scripted = {**update, "properties": {"changed": '{"cron": ["a", "b"]}', "script": '{"category": "additive", '
                                         '"tables": [{"table": "p.o", "category": "additive", "why": "", "columns": '
                                         '[{"column": "c", "change": "added"}]}]}'}}
    assert (categorize(scripted).category, categorize(scripted).whole) == ("breaking", True)  # the cron wins


def test_the_text_answer_and_the_report_say_what_the_script_did(warehouse, tmp_path):
    from click.testing import CliRunner

    from lineage.cli import main

    ran = CliRunner().invoke(main, ["blast-radius", "--warehouse", str(warehouse), "--since", str(T.date()),
                                    "--engine", "local"], terminal_width=200)
    assert ran.exit_code == 0, ran.output
    assert "script: the filter changed, breaking" in " ".join(ran.output.split())
    assert "p.o.b redefined, breaking" in " ".join(ran.output.split())
    for week in ("2024-W27", "2024-W28"):  # the filter was added on 2024-07-08
        report = CliRunner().invoke(main, ["report", "--warehouse", str(warehouse), "--out", str(tmp_path), "--week",
                                           week, "--engine", "local"])
        assert report.exit_code in (0, 3), report.output  # 3: no DataWorks events on most days, it says
    first, second = ((tmp_path / week / "report.md").read_text() for week in ("2024-W27", "2024-W28"))
    assert "(Node), breaking: columns p.o.b redefined by" in first and "(Node), additive: columns p.o.c added" in first
    assert "(Node), breaking: script (the filter) changed by" in second
    assert "script: the filter changed" in (tmp_path / "2024-W28" / "report.html").read_text()
