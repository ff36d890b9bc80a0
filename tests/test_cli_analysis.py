"""`lineage impact`, `access` and `blast-radius` on the scenario graph: the contract's JSON shapes
and hand-checked answers (see tests/test_scenario.py for the scenario's vertices and edges)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lineage.cli import main

pytestmark = pytest.mark.spark

T = "table:maxcompute:sales_dw.{}".format
OWNER, ANALYST = "user:aliyun:2001", "user:aliyun:2002"
JOB, NODE = "job:maxcompute:20240802020000123job1", "node:dataworks:9001"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_impact_json_is_the_contract_and_hand_checked(scenario_warehouse, engine):
    result = run("impact", T("orders_raw"), "--warehouse", scenario_warehouse, "--as-of", "2024-08-04T00:00:00Z",
                 "--engine", engine, "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert set(doc) == {"sources", "affected", "summary"} and doc["sources"] == [T("orders_raw")]
    for item in doc["affected"]:
        assert set(item) == {"id", "label", "distance", "path"}
        assert item["path"][0] == T("orders_raw") and item["path"][-1] == item["id"]
        assert len(item["path"]) == item["distance"] + 1
    got = {(a["id"], a["distance"]) for a in doc["affected"]}
    assert got == {
        (NODE, 1), (T("orders_clean"), 1),  # the reader that runs again, and the table fed
        ("baseline:dataworks:501", 2),  # the node's SLA
        (OWNER, 2),  # owns the node and orders_clean: told
        (ANALYST, 2),  # can read orders_clean
    }  # not the job run, the node's instance nor its DAG run: they ran before (issue 67)
    assert doc["summary"] == {"Baseline": 1, "Node": 1, "Table": 1, "User": 2}
    analyst = next(a for a in doc["affected"] if a["id"] == ANALYST)
    assert analyst["path"] == [T("orders_raw"), T("orders_clean"), ANALYST]


def test_impact_max_depth_and_readable_table(scenario_warehouse):
    result = run("impact", T("orders_raw"), "--warehouse", scenario_warehouse, "--as-of", "2024-08-04", "--max-depth", "1",
                 "--engine", "local", "--json")
    assert {a["id"] for a in json.loads(result.stdout)["affected"]} == {NODE, T("orders_clean")}
    table = run("impact", T("orders_raw"), "--warehouse", scenario_warehouse, "--as-of", "2024-08-04", "--engine", "local")
    assert table.exit_code == 0 and "affected: 5" in table.stdout


def test_impact_of_an_unknown_id_is_a_usage_error(scenario_warehouse):
    result = run("impact", "table:maxcompute:sales_dw.nope", "--warehouse", scenario_warehouse, "--json")
    assert result.exit_code == 2 and "table:maxcompute:sales_dw.nope" in result.stderr
    bad_time = run("impact", T("orders_raw"), "--warehouse", scenario_warehouse, "--as-of", "last tuesday")
    assert bad_time.exit_code == 2 and "not a time" in bad_time.stderr


CONTRACT_PRINCIPAL = ("id", "label", "name", "privileges", "path")  # DESIGN.md: the minimum, more may follow


@pytest.mark.parametrize("as_of, expected", [
    ("2024-08-01T01:59:59Z", []),
    ("2024-08-04T00:00:00Z", [{"id": ANALYST, "label": "User", "name": "analyst", "privileges": ["describe", "select"],
                              "path": [ANALYST, T("orders_clean")]}]),
    ("2024-08-05T00:00:00Z", [{"id": ANALYST, "label": "User", "name": "analyst", "privileges": ["select"],
                              "path": [ANALYST, T("orders_clean")]}]),
])
def test_access_json_is_the_contract_and_follows_revokes(scenario_warehouse, as_of, expected):
    result = run("access", T("orders_clean"), "--warehouse", scenario_warehouse, "--as-of", as_of, "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["target"] == T("orders_clean")
    assert [{k: p[k] for k in CONTRACT_PRINCIPAL} for p in doc["principals"]] == expected


@pytest.mark.parametrize("as_of, readers", [
    ("2024-08-02T00:00:00Z", []),
    ("2024-08-09T23:59:59Z", [ANALYST]),  # the DataWorks approval
    ("2024-08-10T00:00:00Z", []),  # expired
])
def test_access_follows_approval_expiry(scenario_warehouse, as_of, readers):
    result = run("access", T("customers"), "--warehouse", scenario_warehouse, "--as-of", as_of, "--json")
    assert [p["id"] for p in json.loads(result.stdout)["principals"]] == readers


def test_blast_radius_ranks_the_weeks_changes(scenario_warehouse):
    result = run("blast-radius", "--warehouse", scenario_warehouse, "--since", "2024-08-01", "--until", "2024-08-08",
                 "--engine", "local", "--json")
    assert result.exit_code == 0, result.stderr
    changes = json.loads(result.stdout)["changes"]
    assert len(changes) == 20
    scores = [c["score"] for c in changes]
    assert scores == sorted(scores, reverse=True)
    schema = next(c for c in changes if c["kind"] == "schema_change" and c["entity_id"] == T("orders_raw"))
    # ALTER_TABLE_ADD_COLUMNS: additive (issue 68). Its one reader's job names its columns, but its
    # column lineage is partial: its node is reached as a whole (table_level), with its owner; not
    # orders_clean downstream, nor its baseline
    assert (schema["category"], schema["columns"]) == ("additive", [])
    assert [(a["id"], a["distance"], a["table_level"]) for a in schema["affected"]] == [
        ("node:dataworks:9001", 1, True), ("user:aliyun:2001", 2, True)]
    assert schema["summary"] == {"Node": 1, "User": 1}
    assert schema["score"] == pytest.approx(1.0 * (2 + 1 / 2))  # factor x (Node 2 / 1 + User 1 / 2)
    drop = next(c for c in changes if c["kind"] == "drop")
    assert drop["entity_id"] == T("tmp_backup") and drop["summary"] == {"User": 1}  # the grantee is told


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_blast_radius_limits_the_affected_list_and_streams_everything_with_full(scenario_warehouse, engine):
    window = ("--warehouse", scenario_warehouse, "--since", "2024-08-01", "--until", "2024-08-08", "--engine", engine)
    whole = json.loads(run("blast-radius", *window, "--json").stdout)["changes"]  # default: up to 100 each
    cut = run("blast-radius", *window, "--json", "--affected", "1")
    assert cut.exit_code == 0, cut.stderr
    cut_changes = json.loads(cut.stdout)["changes"]
    assert len(whole) == len(cut_changes) == 20 and any(c["affected_count"] > 1 for c in whole)
    for w, c in zip(whole, cut_changes):
        assert {"change_id", "entity_id", "kind", "time", "score", "summary", "affected"} <= set(c)
        assert (c["change_id"], c["score"], c["summary"], c["affected_count"]) == (
            w["change_id"], w["score"], w["summary"], w["affected_count"])
        assert c["affected"] == w["affected"][:1] and len(w["affected"]) == w["affected_count"] == sum(w["summary"].values())
    full = run("blast-radius", *window, "--full")
    assert full.exit_code == 0, full.stderr
    lines = [json.loads(line) for line in full.stdout.splitlines()]
    assert lines == whole  # one change per line, ranked, every affected vertex
