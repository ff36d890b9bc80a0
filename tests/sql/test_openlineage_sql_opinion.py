"""A second opinion on table lineage: every SQL script of a generated platform parsed by
``openlineage-sql`` (OpenLineage's parser, Rust, sqlparser-rs) as well as by this project's
``lineage.sql.lineage.table_lineage`` (what ``build`` uses), tables compared per script as canonical
ids. Where the two disagree, the generator's truth (``sqltext.truth``: known from the template, never
from parsing) says who is right. The disagreements are keyed by the node's kind and style and by the
role the table plays in the node (its input, its target, its staging table, a lake path, an export
path), never by table names, so a change of the templates' columns or names keeps the list."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from lineage import ids
from lineage.sql.lineage import table_lineage

ol = pytest.importorskip("openlineage_sql")

from lineage.generate import model, sqltext  # noqa: E402  (after the skip: the generator is heavy)

TABLES, DAYS, SEED = 200, 7, 7
START = datetime(2026, 9, 28, tzinfo=timezone.utc)

CTE_INSERT = ("Hive/MaxCompute's `WITH ... INSERT OVERWRITE TABLE t SELECT ... FROM cte`: openlineage-sql parses the "
              "INSERT but reports none of the tables the CTEs read; ours follows the CTEs down to their tables, as the "
              "truth says the job reads them")
CTAS_LIFECYCLE = ("`CREATE TABLE t LIFECYCLE 1 AS SELECT ...`: MaxCompute's LIFECYCLE clause is a parse error for "
                  "openlineage-sql, so the CTAS's reads and its write of the staging table are lost; ours knows the "
                  "clause (sql/dialect.py)")
EXCHANGE = ("`ALTER TABLE t EXCHANGE PARTITION (...) WITH TABLE staging` (MaxCompute/Hive) is not SQL openlineage-sql "
            "knows: the target the staging table is swapped into is never written for it; ours writes it, and the "
            "truth says the node writes it")
CLONE = ("`CLONE TABLE staging TO t IF EXISTS OVERWRITE` is MaxCompute-only: openlineage-sql cannot parse it, so t is "
         "not written; ours reads staging and writes t, as the truth says")
UNLOAD = ("`UNLOAD FROM (SELECT * FROM t ...) INTO LOCATION 'oss://...'` is MaxCompute-only: openlineage-sql cannot "
          "parse it, so the export path is not written and t not read back; ours has both, as the truth says")
MULTI_INSERT = ("Hive's multi-insert `FROM (...) src INSERT OVERWRITE TABLE a SELECT ... INSERT OVERWRITE TABLE b "
                "SELECT ...` is a parse error for openlineage-sql (it wants SELECT first): no table at all; ours reads "
                "the inputs and writes both targets, as the truth says")
VARIABLE = ("`INSERT OVERWRITE TABLE p.${target_table} ...`: openlineage-sql writes a table literally named "
            "`${target_table}` (no such table exists) and keeps the statement's read; ours reports the statement "
            "as unresolvable (sql_error) and gives it no tables, so the job is not half-known. The truth agrees that "
            "nobody can learn this node's lineage from its SQL (sqltext.LINEAGE_FROM: none)")

# (kind, style) -> {(which parser alone has the table, reads|writes, the table's role in the node): why}
EXPECTED = {
    ("cte", "plain"): {("ours", "reads", "input"): CTE_INSERT},
    ("cte", "lake"): {("ours", "reads", "input"): CTE_INSERT, ("ours", "reads", "lake"): CTE_INSERT},
    ("ctas", "plain"): {("ours", "reads", "input"): CTAS_LIFECYCLE},
    ("ctas", "exchange"): {("ours", "reads", "staging"): EXCHANGE, ("ours", "writes", "target"): EXCHANGE},
    # the staging table's write agrees, by luck: openlineage-sql counts the `DROP TABLE IF EXISTS staging` before the
    # failed CTAS as an output
    ("ctas", "clone"): {("ours", "reads", "input"): CTAS_LIFECYCLE, ("ours", "reads", "staging"): CLONE,
                        ("ours", "writes", "target"): CLONE},
    ("insert", "unload"): {("ours", "reads", "target"): UNLOAD, ("ours", "writes", "export"): UNLOAD},
    ("multi", "plain"): {("ours", "reads", "input"): MULTI_INSERT, ("ours", "writes", "target"): MULTI_INSERT},
    ("variable", "plain"): {("openlineage", "reads", "input"): VARIABLE, ("openlineage", "writes", "variable"): VARIABLE},
}
AGREE = {("insert", "plain"), ("insert", "dynamic"), ("insert", "merge"), ("insert", "update_join")}
"""Kinds and styles where the two parsers give the same tables for every script."""


def statements(script: str) -> list[str]:
    """The script's statements, split where a line ends in ``;`` (the generator's scripts hold no
    ``;`` inside strings), so openlineage-sql gets them one by one as its API wants."""
    return [s for s in re.split(r";[ \t]*\n", script.strip().rstrip(";")) if s.strip()]


def _ol_id(table, project: str) -> str:
    """openlineage-sql's table as a canonical id: ``schema.name`` is MaxCompute's ``project.table``."""
    return ids.table_from_qualified(f"{table.schema or project}.{table.name}") or table.qualified_name


def openlineage(script: str, project: str) -> tuple[set[str], set[str]]:
    found = ol.parse(statements(script), dialect="hive", default_schema=project)
    return {_ol_id(t, project) for t in found.in_tables}, {_ol_id(t, project) for t in found.out_tables}


def ours(script: str, project: str) -> tuple[set[str], set[str]]:
    """What build makes of the script: tables (the job's project for unqualified names) and paths."""
    found = table_lineage(script, default_project=project)
    reads = {ids.table_from_qualified(n, project) for n in found.reads} | {ids.location(u) for u in found.read_locations}
    writes = {ids.table_from_qualified(n, project) for n in found.writes} | {ids.location(u) for u in found.written_locations}
    return reads - {None}, writes - {None}


def role(platform: model.Platform, node: model.NodeSpec, table: str) -> str:
    """What the table is to the node: which is what the list is keyed by."""
    if table in {platform.table(i).id for i in node.inputs}:
        return "input"
    if table in {platform.table(i).id for i in node.targets}:
        return "target"
    if node.kind == "ctas" and table == ids.table_from_qualified(sqltext.temp_table(platform, node)):
        return "staging"
    if "${" in table:
        return "variable"
    if table.startswith("location:oss://acme-lake/"):
        return "lake"
    if table.startswith("location:oss://acme-export/"):
        return "export"
    return f"other {table}"  # unknown to the list: the test fails and names it


@pytest.fixture(scope="module")
def compared():
    """Per script: (kind, style), both parsers' and the truth's (reads, writes), and the disagreements."""
    platform = model.build(SEED, TABLES, DAYS, START)
    rows = []
    for node in platform.nodes:
        script = sqltext.sql(platform, node)
        if not script:
            continue
        project = platform.table(node.targets[0]).project
        theirs, mine = openlineage(script, project), ours(script, project)
        truth = tuple(set(side) for side in sqltext.truth(platform, node))
        differ = set()
        for which, side in (("reads", 0), ("writes", 1)):
            differ |= {("ours", which, role(platform, node, t)) for t in mine[side] - theirs[side]}
            differ |= {("openlineage", which, role(platform, node, t)) for t in theirs[side] - mine[side]}
        rows.append(((node.kind, sqltext.style(node)), theirs, mine, truth, differ))
    return rows


def test_every_kind_and_style_is_seen(compared):
    """The platform is big enough that each kind and style the list speaks of has scripts."""
    assert {key for key, *_ in compared} == set(EXPECTED) | AGREE


def test_disagreements_are_the_listed_ones(compared):
    """The union of the disagreements per kind and style is exactly the list (none elsewhere)."""
    found: dict[tuple[str, str], set] = {}
    for key, _, _, _, differ in compared:
        found.setdefault(key, set()).update(differ)
    assert {k: v for k, v in found.items() if v} == {k: set(v) for k, v in EXPECTED.items()}


def test_ours_is_the_truth_where_they_disagree(compared):
    """Wherever openlineage-sql differs from us, we equal the generator's truth; the one kind whose
    lineage nobody can learn from its SQL (variable) we leave empty rather than half-known."""
    for key, theirs, mine, truth, differ in compared:
        if not differ:
            continue
        if key[0] == "variable":
            assert mine == (set(), set()) and theirs != truth, key
            continue
        assert mine == truth, key
        assert theirs != truth, key


def test_where_they_agree_both_are_the_truth(compared):
    """Where the two parsers agree, they agree on the truth (no shared blind spot)."""
    for key, theirs, mine, truth, differ in compared:
        if not differ:
            assert mine == theirs == truth, key
