"""The generator's column truth (issue 32 part 7) recovered by `lineage build` (the ``generated``
fixture: 60 tables over 8 days, ingested and built once): column FEEDS equal
``truth/column_feeds.csv``, direct and indirect apart; HAS_COLUMN equals ``truth/columns.csv``;
a field removal on the most-read table is narrower column-precise than table-level, on both engines."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from datetime import datetime, timedelta
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from lineage.cli import main


def _rows(truth: Path, name: str) -> list[dict[str, str]]:
    with open(truth / f"{name}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def _edges(warehouse: Path, relationship: str) -> list[dict]:
    return [e for e in pq.read_table(str(warehouse / "graph" / "edges")).to_pylist()
            if e["relationship"] == relationship]


def _diff(name: str, truth: set, graph: set) -> str:
    missing, extra = sorted(truth - graph), sorted(graph - truth)
    return (f"{name}: {len(missing)} missing of {len(truth)}, {len(extra)} extra of {len(graph)}\n"
            + "".join(f"  missing {m}\n" for m in missing[:8]) + "".join(f"  extra   {e}\n" for e in extra[:8]))


def _table(column: str) -> str:
    """``column:maxcompute:p.t.c`` -> ``table:maxcompute:p.t``."""
    return "table:" + column.split(":", 1)[1].rsplit(".", 1)[0]


@pytest.mark.parametrize("qualifier", ["direct", "indirect"])
def test_column_feeds_equal_the_truth(generated, qualifier):
    """Precision and recall 100%, each qualifier on its own."""
    truth = {(r["src"], r["dst"]) for r in _rows(generated.truth, "column_feeds") if r["qualifier"] == qualifier}
    graph = {(e["src"], e["dst"]) for e in _edges(generated.warehouse, "FEEDS")
             if e["src_label"] == "Column" and e["qualifier"] == qualifier}
    assert truth, f"the truth has {qualifier} column lineage"
    assert truth == graph, _diff(f"{qualifier} column FEEDS", truth, graph)


def test_every_generated_statement_kind_gives_column_truth(generated):
    """Every SQL kind and style with table lineage has column pairs; variable and non-SQL nodes none."""
    nodes = {n["node_id"]: n for n in _rows(generated.truth, "nodes")}
    via = {node for r in _rows(generated.truth, "column_feeds") for node in r["nodes"].split(";")}
    assert {nodes[n]["kind"] for n in via} == {"insert", "cte", "ctas", "multi"}
    assert not {n for n in via if nodes[n]["lineage"] != "sql"}


def test_has_column_equals_the_truth(generated):
    """The current schemas: every table's columns as its CreateTable's job states them, those
    ChangeTable adds, staging tables' and the ``etl_batch`` epilogue's; removed fields gone."""
    rows = _rows(generated.truth, "columns")
    truth = {(r["table_id"], r["column_id"]) for r in rows if not r["valid_to"]}
    graph = {(e["src"], e["dst"]) for e in _edges(generated.warehouse, "HAS_COLUMN") if e["valid_to"] is None}
    assert truth == graph, _diff("HAS_COLUMN", truth, graph)
    dropped = {t["table_id"] for t in _rows(generated.truth, "tables") if t["dropped_at"]}
    removed = {r["column_id"] for r in rows if r["valid_to"] and r["table_id"] not in dropped}
    assert removed and all(c.rsplit(".", 1)[1] not in ("id", "gmt_modified", "amount", "ds") for c in removed)
    typed = {r["column_id"].rsplit(".", 1)[1]: r["type"] for r in rows}
    assert typed["id"] == "BIGINT" and typed["ds"] == "STRING" and typed["etl_batch"] == "STRING"


def test_the_hubs_type_change_is_a_column_change(generated):
    """The hub's first release retypes one column (``ALTER TABLE ... CHANGE COLUMN``): the graph
    has a ``column_type_change`` on that column, and the column is still the table's."""
    tables = _rows(generated.truth, "tables")
    hub = max(tables, key=lambda t: int(t["readers"]))["table_id"]
    base = {"id": "BIGINT", "gmt_modified": "DATETIME", "amount": "DOUBLE"}
    jobs = [j for j in _rows(generated.truth, "jobs") if not j["node_id"] and not j["writes"]]
    assert jobs, "ALTER TABLE jobs (ADD COLUMNS, CHANGE COLUMN) write no table"
    changes = pq.read_table(str(generated.warehouse / "graph" / "changes")).to_pylist()
    retyped = {c["entity_id"] for c in changes if c["kind"] == "column_type_change"}
    hub_columns = {r["column_id"]: r for r in _rows(generated.truth, "columns") if r["table_id"] == hub}
    assert len(retyped & set(hub_columns)) == 1, sorted(retyped)
    column = hub_columns[(retyped & set(hub_columns)).pop()]
    assert not column["valid_to"] and column["column_id"].rsplit(".", 1)[1] not in base


def _removal(generated) -> tuple[str, str, str]:
    """(table, removed column, the moment before) of the field removal on the most-read table
    (tables.csv's readers): the graph is asked as it was just before the field went."""
    tables = _rows(generated.truth, "tables")
    hub = max(tables, key=lambda t: int(t["readers"]))["table_id"]
    removed = [r for r in _rows(generated.truth, "columns") if r["table_id"] == hub and r["valid_to"]]
    assert len(removed) == 1, removed
    before = datetime.fromisoformat(removed[0]["valid_to"].replace("Z", "+00:00")) - timedelta(seconds=1)
    return hub, removed[0]["column_id"], before.isoformat()


def _truly_reading(generated, column: str, as_of: str) -> set[str]:
    """Tables whose columns the removed field's value reaches (direct column FEEDS seen by then, transitively)."""
    forward = defaultdict(set)
    for r in _rows(generated.truth, "column_feeds"):
        if r["qualifier"] == "direct" and r["first_seen"].replace("Z", "+00:00") <= as_of:
            forward[r["src"]].add(r["dst"])
    seen, todo = set(), [column]
    while todo:
        for nxt in forward[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return {_table(c) for c in seen}


def _impact_tables(generated, entity: str, as_of: str, engine: str) -> set[str]:
    ran = CliRunner().invoke(main, ["impact", entity, "--warehouse", str(generated.warehouse), "--as-of", as_of,
                                    "--engine", engine, "--json"])
    assert ran.exit_code == 0, ran.output
    return {a["id"] for a in json.loads(ran.stdout)["affected"] if a["label"] == "Table"}


def test_field_removal_on_the_hub_is_narrower_than_its_table(generated):
    hub, column, before = _removal(generated)
    readers = _truly_reading(generated, column, before) - {hub}
    tables = _impact_tables(generated, hub, before, "local") - {hub}  # the tables downstream
    columns = _impact_tables(generated, column, before, "local") - {hub}
    assert readers, "some downstream table reads the removed field"
    assert readers <= columns, sorted(readers - columns)
    assert columns < tables, (len(columns), len(tables), sorted(columns - tables)[:5])


@pytest.mark.spark
def test_field_removal_is_the_same_on_both_engines(generated):
    _, column, before = _removal(generated)
    assert _impact_tables(generated, column, before, "spark") == _impact_tables(generated, column, before, "local")


def test_a_joined_select_item_and_its_qualifiers():
    """Written from DESIGN.md, not from the generator: ``t0.amount + COALESCE(t1.amount, 0)`` takes
    both values (t1's also conditionally); a CASE over t0.amount only shapes its column; the join
    on ``t0.id = t1.id AND t1.ds = ...`` and ``WHERE t0.ds = ...`` shape every column."""
    from types import SimpleNamespace

    from lineage.generate import projection
    from lineage.generate.model import TableSpec

    specs = [TableSpec(0, "ods", "acme_ods", "a_di", "trade", "order", 0),
             TableSpec(1, "ods", "acme_ods", "b_di", "trade", "user", 0)]
    inputs = projection.Inputs(SimpleNamespace(table=lambda i: specs[i]), (0, 1))

    def col(table: str, name: str) -> str:
        return f"column:maxcompute:acme_ods.{table}.{name}"

    amount = projection.flat(inputs, "amount", "DOUBLE")
    assert amount.sql == "t0.amount + COALESCE(t1.amount, 0) AS amount"
    assert amount.sources == {(col("a_di", "amount"), "direct"), (col("b_di", "amount"), "direct"),
                              (col("b_di", "amount"), "indirect")}
    segment = projection.flat(inputs, "segment", "STRING")  # no input has it
    assert segment.sql == "CASE WHEN t0.amount > 100 THEN 'high' ELSE 'low' END AS segment"
    assert segment.sources == {(col("a_di", "amount"), "indirect")}
    assert projection.flat_wide(inputs) == {(col("a_di", "ds"), "indirect"), (col("a_di", "id"), "indirect"),
                                            (col("b_di", "id"), "indirect"), (col("b_di", "ds"), "indirect")}
