"""Column-precise breaks (issue 68, item 1), from hand-made ActionTrail and DataHub events through
ingest + build + ``blast-radius`` on both engines.

``p.src (k, v, w)`` owned by alice is read by five scheduled nodes, each a daily job:
``201`` names ``k, v`` into ``p.a``; ``202`` names ``w`` into ``p.b``; ``203`` takes ``SELECT *``
into ``p.c``; ``204`` writes an unnamed expression into ``p.d``, whose columns no event states, so its
column use is unknown; ``205``
and ``206`` read ``p.a.v`` and ``p.a.k`` into ``p.e`` and ``p.f``. Then, a day apart: a nullable
column added (DataHub), a column added (MaxCompute's ``ChangeTable``, which names none), ``w``
dropped, ``v`` renamed, ``k``'s type changed (each by a DDL job).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from handmade import actiontrail, built, cli, datahub, job

from lineage.analysis.categories import ADDITIVE, BREAKING, TABLE, categorize

T = datetime(2024, 7, 10, 10, 0, tzinfo=timezone.utc)
SRC = "table:maxcompute:p.src"
ALICE = "user:datahub:alice"
N = {n: f"node:dataworks:{n}" for n in (201, 202, 203, 204, 205, 206)}
TABLES = {t: f"table:maxcompute:p.{t}" for t in "abcdef"}
DDL = ("CREATE TABLE IF NOT EXISTS p.src (k STRING, v BIGINT, w STRING) PARTITIONED BY (ds STRING);\n"
       "CREATE TABLE IF NOT EXISTS p.a (k STRING, v BIGINT);\nCREATE TABLE IF NOT EXISTS p.b (w STRING);\n"
       "CREATE TABLE IF NOT EXISTS p.c (k STRING, v BIGINT, w STRING);\n"
       "CREATE TABLE IF NOT EXISTS p.e (v BIGINT);\nCREATE TABLE IF NOT EXISTS p.f (k STRING);")
SCRIPTS = {
    201: "INSERT OVERWRITE TABLE p.a SELECT k, v FROM p.src WHERE ds = '1';",
    202: "INSERT OVERWRITE TABLE p.b SELECT w FROM p.src WHERE ds = '1';",
    203: "INSERT OVERWRITE TABLE p.c SELECT * FROM p.src WHERE ds = '1';",
    204: "INSERT OVERWRITE TABLE p.d SELECT upper(k) FROM p.src;",
    205: "INSERT OVERWRITE TABLE p.e SELECT v FROM p.a;",
    206: "INSERT OVERWRITE TABLE p.f SELECT k FROM p.a;",
}
DAY = timedelta(days=1)
ADD_DATAHUB, ADD_MAXCOMPUTE, DROP_W, RENAME_V, RETYPE_K = (T + n * DAY for n in range(5))
EVENTS = [
    job("ddl", T - 20 * DAY, DDL),
    datahub("OWNER", "ADD", T - 20 * DAY, modifier="urn:li:corpuser:alice",
            parameters={"ownerUrn": "urn:li:corpuser:alice", "ownerType": "DATAOWNER"}),
    # every node runs every day until the last change
    *(job(f"r{node}-{day}", T - 10 * DAY + day * DAY + node * timedelta(minutes=1), sql, node)
      for day in range(15) for node, sql in SCRIPTS.items()),
    datahub("TECHNICAL_SCHEMA", "ADD", ADD_DATAHUB,
            modifier="urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:maxcompute,p.src,PROD),x)",
            parameters={"fieldPath": "x", "nullable": True}),
    actiontrail("add-columns", "ChangeTable", "TableEvent", ADD_MAXCOMPUTE,
                {"TableName": "src", "Source": "INSTANCE", "CorrelationId": "add-columns",
                 "OperationText": "ALTER_TABLE_ADD_COLUMNS"}, {"Table": ["src"]}),
    job("drop-w", DROP_W, "ALTER TABLE p.src DROP COLUMNS w;"),
    job("rename-v", RENAME_V, "ALTER TABLE p.src CHANGE COLUMN v v2 BIGINT;"),
    job("retype-k", RETYPE_K, "ALTER TABLE p.src CHANGE COLUMN k k BIGINT;"),
]


@pytest.fixture(scope="module")
def warehouse(spark, tmp_path_factory) -> Path:
    return built(spark, tmp_path_factory.mktemp("column-breaks"), EVENTS)


@pytest.fixture(scope="module", params=["local", "spark"])
def changes(request, warehouse) -> dict[datetime, dict]:
    doc = cli("blast-radius", "--warehouse", warehouse, "--since", T.date(), "--engine", request.param, "--json")
    mine = (SRC, "column:maxcompute:p.src.")
    return {datetime.fromisoformat(c["time"]): c for c in doc["changes"] if c["entity_id"].startswith(mine)}


def reached(change: dict) -> dict[str, bool]:
    """Affected definitions, tables and people -> reached at table level."""
    return {a["id"]: a["table_level"] for a in change["affected"]}


def test_a_nullable_column_added_reaches_only_the_readers_taking_the_table_by_position(changes):
    change = changes[ADD_DATAHUB]
    assert (change["kind"], change["category"], change["columns"]) == (
        "schema_change", ADDITIVE, [{"column": "x", "change": "added"}])
    # the SELECT * node and the owner; the node of unknown column use, marked; never a node naming
    # its columns (201, 202) nor anything downstream
    assert reached(change) == {N[203]: False, N[204]: True, ALICE: False}


def test_a_column_added_that_names_no_column_is_still_additive(changes):
    change = changes[ADD_MAXCOMPUTE]
    assert (change["category"], change["columns"]) == (ADDITIVE, [])
    assert reached(change) == {N[203]: False, N[204]: True, ALICE: False}


def test_a_dropped_column_reaches_its_readers_only(changes):
    change = changes[DROP_W]
    assert (change["kind"], change["category"], change["columns"]) == (
        "field_removal", BREAKING, [{"column": "w", "change": "removed"}])
    found = reached(change)
    assert {N[202], N[203], TABLES["b"], TABLES["c"]} <= set(found)
    assert not (found.keys() & {N[201], N[205], N[206], TABLES["a"], TABLES["e"], TABLES["f"]})
    # unknown column use: reached as a whole, and what it writes
    assert found[N[204]] is True and found[TABLES["d"]] is True
    assert found[N[202]] is False and found[TABLES["b"]] is False


def test_a_renamed_column_reaches_its_readers_and_theirs_column_by_column(changes):
    change = changes[RENAME_V]
    assert change["category"] == BREAKING and change["columns"] == [{"column": "v", "change": "removed"}]
    found = reached(change)
    # v's readers (201 by name, 203 by *), and downstream only p.a.v's reader 205, not 206 (p.a.k)
    assert {N[201], N[203], TABLES["a"], TABLES["c"], N[205], TABLES["e"]} <= set(found)
    assert not (found.keys() & {N[202], N[206], TABLES["b"], TABLES["f"]})
    assert found[N[204]] is True


def test_a_type_change_reaches_the_readers_of_that_column(changes):
    change = changes[RETYPE_K]
    assert change["category"] == BREAKING
    found = reached(change)
    assert {N[201], TABLES["a"], N[206], TABLES["f"]} <= set(found)
    assert not (found.keys() & {N[202], N[205], TABLES["b"], TABLES["e"]})


def test_the_additive_change_ranks_below_the_breaks(changes):
    ranked = sorted(changes.values(), key=lambda c: -c["score"])
    assert ranked[-1]["category"] == ADDITIVE and ranked[-2]["category"] == ADDITIVE
    assert ranked[0]["category"] == BREAKING


@pytest.mark.parametrize("kind, properties, category", [
    ("schema_change", {"operation": "add", "field_path": "x", "nullable": "true"}, ADDITIVE),
    ("schema_change", {"operation": "ALTER_TABLE_ADD_COLUMNS"}, ADDITIVE),
    ("schema_change", {"operation": "add", "field_path": "x", "nullable": "false"}, ADDITIVE),
    ("schema_change", {"operation": "modify", "field_path": "x"}, BREAKING),
    ("schema_change", {"operation": "ALTER_TABLE_RENAME"}, TABLE),
    ("schema_change", {}, TABLE),
    ("field_removal", {"columns": '["a", "b"]'}, BREAKING),
    ("column_type_change", {"type": "bigint"}, BREAKING),
])
def test_one_function_decides_the_category_with_a_safe_default(kind, properties, category):
    assert categorize({"kind": kind, "entity_id": SRC, "properties": properties}).category == category


def test_the_engines_agree(warehouse):
    local, spark = (cli("blast-radius", "--warehouse", warehouse, "--since", T.date(), "--engine", engine, "--json")
                    for engine in ("local", "spark"))
    assert local["changes"] == spark["changes"]


def test_the_report_names_each_change_s_category_and_columns(warehouse, tmp_path):
    from click.testing import CliRunner

    from lineage.cli import main

    ran = CliRunner().invoke(main, ["report", "--warehouse", str(warehouse), "--out", str(tmp_path), "--week", "2024-W28",
                                    "--engine", "local"])
    assert ran.exit_code == 0, ran.output
    [md] = tmp_path.rglob("report.md")
    [html] = tmp_path.rglob("report.html")
    text, page = md.read_text(), html.read_text()
    assert "additive: columns x added" in text and "breaking: columns w removed" in text
    assert "columns x added" in page and ">additive<" in page
