"""`lineage search`, `show`, `history` and `diff` on the demo warehouse (lineage.generate.samples), and names
in place of ids for every command that takes one: golden terminal output at 80 and 160 columns
(read by hand), the JSON shapes and the exit statuses."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lineage.cli import main

pytestmark = pytest.mark.spark

DWD = "table:maxcompute:retail_dw.dwd_orders"
DWD_NODE = "node:dataworks:700100003"
ODS_USERS = "table:maxcompute:retail_dw.ods_users"
BACKUP = "table:maxcompute:retail_dw.tmp_orders_backup"
OWNER = "user:aliyun:1912232488744735"


def run(*args, columns: int = 80):
    env = {"COLUMNS": str(columns), "LINES": "50", "FORCE_COLOR": None, "TTY_COMPATIBLE": None, "NO_COLOR": "1"}
    return CliRunner(env=env).invoke(main, [str(a) for a in args])


CASES = {
    "show-dwd_orders": ("show", "retail_dw.dwd_orders", "--as-of", "2024-07-05T00:00:00Z", "--limit", "3"),
    "show-tmp_orders_backup": ("show", "tmp_orders_backup"),  # deleted: shown as it last was
    "history-ods_users": ("history", "ods_users"),
    "diff-week": ("diff", "--from", "2024-07-01", "--to", "2024-07-08", "--limit", "3"),
    "diff-access": ("diff", "--from", "2024-07-01", "--to", "2024-07-08", "--relationship", "CAN_ACCESS",
                    "--relationship", "has_role"),
}


@pytest.mark.parametrize("columns", [80, 160])
@pytest.mark.parametrize("case", list(CASES))
def test_terminal_output_matches_the_golden(demo_warehouse, golden_text, case, columns):
    command, *rest = CASES[case]
    result = run(command, *rest, "--warehouse", demo_warehouse, columns=columns)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= columns for line in lines), "a line is wider than the terminal"
    golden_text(f"{case}-{columns}", result.stdout)


def test_search_json_ranks_with_labels(demo_warehouse):
    result = run("search", "dwd_orders", "--warehouse", demo_warehouse, "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert set(doc) == {"query", "total", "results"} and doc["query"] == "dwd_orders"
    assert all(set(r) == {"id", "label", "name", "score"} for r in doc["results"])
    assert [(r["id"], r["score"]) for r in doc["results"][:2]] == [(DWD, 3), (DWD_NODE, 3)]  # exact; the table first
    assert {r["label"] for r in doc["results"][2:]} == {"Job"} and all(r["score"] == 2 for r in doc["results"][2:])
    assert doc["total"] == len(doc["results"]) == 9  # the table, its node, seven daily jobs dwd_orders_2024070x
    limited = json.loads(run("search", "orders", "--warehouse", demo_warehouse, "--json", "--limit", "2").stdout)
    assert len(limited["results"]) == 2 and limited["total"] > 2


def test_show_json_by_name_is_show_by_id(demo_warehouse):
    by_id = run("show", DWD, "--warehouse", demo_warehouse, "--as-of", "2024-07-05", "--json")
    by_name = run("show", "retail_dw.dwd_orders", "--warehouse", demo_warehouse, "--as-of", "2024-07-05", "--json")
    assert by_id.exit_code == by_name.exit_code == 0
    doc = json.loads(by_id.stdout)
    assert doc == json.loads(by_name.stdout)
    assert doc["id"] == DWD and doc["label"] == "Table" and doc["name"] == "dwd_orders" and doc["exists"]
    assert set(doc) == {"id", "label", "name", "as_of", "exists", "first_seen", "last_seen", "deleted_at",
                        "event_count", "properties", "relationships", "changes"}
    assert set(doc["relationships"]) == {"out", "in"}
    assert [k["id"] for k in doc["relationships"]["out"]["FEEDS"]] == ["table:maxcompute:retail_dw.dws_sales_daily"]
    assert [k["id"] for k in doc["relationships"]["in"]["OWNS"]] == [OWNER]
    assert len(doc["relationships"]["in"]["READS"]) == 5  # the node and the jobs of 07-01..07-04 (--limit is human only)
    assert [c["kind"] for c in doc["changes"]] == ["schema_change", "owner_change", "permission_change", "create"]


def test_show_of_a_dropped_table_has_its_drop_and_last_relationships(demo_warehouse):
    doc = json.loads(run("show", BACKUP, "--warehouse", demo_warehouse, "--json").stdout)
    assert doc["deleted_at"] == "2024-07-02T11:00:00+00:00" and doc["as_of"] == "2024-07-02T10:59:59.999999+00:00"
    assert doc["changes"][0]["kind"] == "drop"
    assert [k["id"] for k in doc["relationships"]["in"]["CAN_ACCESS"]] == ["user:maxcompute:ram$contractor@retail.example:sub"]
    gone = json.loads(run("show", BACKUP, "--warehouse", demo_warehouse, "--as-of", "2024-07-03", "--json").stdout)
    assert not gone["exists"] and gone["relationships"] == {"out": {}, "in": {}}


def test_history_json_is_oldest_first(demo_warehouse):
    doc = json.loads(run("history", BACKUP, "--warehouse", demo_warehouse, "--json").stdout)
    assert doc["id"] == BACKUP and set(doc) == {"id", "label", "name", "events"}
    times = [e["time"] for e in doc["events"]]
    assert times == sorted(times)
    assert [(e["event"], e["relationship"] or e["detail"]) for e in doc["events"]] == [
        ("first_seen", None), ("opened", "CAN_ACCESS"), ("opened", "IN_PROJECT"), ("change", "create"),
        ("change", "permission_change"), ("change", "drop"), ("deleted", None)]  # created, then granted


def test_diff_json_counts_what_the_lists_hold(demo_warehouse):
    doc = json.loads(run("diff", "--from", "2024-07-01", "--to", "2024-07-08", "--warehouse", demo_warehouse, "--json").stdout)
    assert set(doc) == {"from", "to", "relationships", "summary", "edges", "vertices"}
    for what in ("opened", "closed"):
        counted = {rel: c[what] for rel, c in doc["summary"]["edges"].items() if c[what]}
        listed: dict[str, int] = {}
        for e in doc["edges"][what]:
            listed[e["relationship"]] = listed.get(e["relationship"], 0) + 1
            assert doc["from"] < e["at"] <= doc["to"]
        assert counted == listed
    assert [v["id"] for v in doc["vertices"]["deleted"]] == [BACKUP]
    closed = {(e["src"], e["relationship"], e["dst"]) for e in doc["edges"]["closed"]}
    assert ("user:dataphin:300010002", "CAN_ACCESS", ODS_USERS) in closed  # bob returned his grant on 07-07
    access = json.loads(run("diff", "--from", "2024-07-01", "--to", "2024-07-08", "--relationship", "can_access",
                            "--warehouse", demo_warehouse, "--json").stdout)
    assert access["relationships"] == ["CAN_ACCESS"] and access["vertices"] is None
    assert {e["relationship"] for e in access["edges"]["opened"] + access["edges"]["closed"]} == {"CAN_ACCESS"}


@pytest.mark.parametrize("args", [
    ("diff", "--from", "2024-07-08", "--to", "2024-07-01"),
    ("diff", "--from", "2024-07-01", "--to", "2024-07-08", "--relationship", "LIKES"),
    ("diff", "--from", "yesterday", "--to", "2024-07-08"),
])
def test_diff_bad_usage_exits_2(demo_warehouse, args):
    result = run(*args, "--warehouse", demo_warehouse)
    assert result.exit_code == 2 and result.stdout == "" and result.stderr.startswith("Error: ")


ID_COMMANDS = [("show",), ("history",), ("access",), ("impact", "--engine", "local")]


@pytest.mark.parametrize("command", ID_COMMANDS, ids=lambda c: c[0])
def test_a_name_of_two_entities_exits_2_listing_both(demo_warehouse, command):
    """`dwd_orders` is a table and the node that writes it: never one of them silently."""
    result = run(*command, "dwd_orders", "--warehouse", demo_warehouse, "--json")
    assert result.exit_code == 2 and result.stdout == ""
    assert "'dwd_orders' is the name of 2 vertices" in result.stderr
    assert f"{DWD}  (Table, dwd_orders)" in result.stderr and f"{DWD_NODE}  (Node, dwd_orders)" in result.stderr


@pytest.mark.parametrize("command", ID_COMMANDS, ids=lambda c: c[0])
def test_an_unknown_name_exits_2_with_the_nearest_candidates(demo_warehouse, command):
    result = run(*command, "dwd_order", "--warehouse", demo_warehouse, "--json")
    assert result.exit_code == 2 and result.stdout == ""
    assert "no vertex has the id or name 'dwd_order'; nearest:" in result.stderr
    assert DWD in result.stderr and DWD_NODE in result.stderr
    lines = result.stderr.splitlines()  # one candidate a line (not one line of \x0a escapes)
    assert f"  {DWD}  (Table, dwd_orders)" in lines and "\\x0a" not in result.stderr


def test_impact_and_access_by_name_answer_with_canonical_ids(demo_warehouse):
    by_id = run("impact", DWD, "--warehouse", demo_warehouse, "--as-of", "2024-07-05", "--engine", "local", "--json")
    by_name = run("impact", "retail_dw.dwd_orders", "--warehouse", demo_warehouse, "--as-of", "2024-07-05",
                  "--engine", "local", "--json")
    assert by_id.exit_code == by_name.exit_code == 0
    assert json.loads(by_name.stdout) == json.loads(by_id.stdout)
    assert json.loads(by_name.stdout)["sources"] == [DWD]
    two = json.loads(run("impact", "ods_users", "RETAIL_DW.ods_orders", "--warehouse", demo_warehouse, "--as-of",
                         "2024-07-05", "--engine", "local", "--json").stdout)
    assert two["sources"] == [ODS_USERS, "table:maxcompute:retail_dw.ods_orders"]
    access_id = run("access", ODS_USERS, "--warehouse", demo_warehouse, "--as-of", "2024-07-03", "--json")
    access_name = run("access", "ods_users", "--warehouse", demo_warehouse, "--as-of", "2024-07-03", "--json")
    assert access_id.exit_code == access_name.exit_code == 0
    assert json.loads(access_name.stdout) == json.loads(access_id.stdout)
    assert json.loads(access_name.stdout)["target"] == ODS_USERS
