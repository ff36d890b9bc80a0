"""What a script change did to the tables it writes (``lineage.sql.script_diff``, issue 68 item 3):
one case per rule, each read by hand."""

from __future__ import annotations

import pytest

from lineage.sql.script_diff import diff

BASE = ("SET odps.sql.allow.fullscan=true;\n"
        "INSERT OVERWRITE TABLE p.t PARTITION (ds='${bizdate}')\n"
        "SELECT s.a, s.b + 1 AS b FROM p.s s WHERE s.ds = '${bizdate}';")


def edit(old: str, new: str) -> str:
    assert old in BASE
    return BASE.replace(old, new)


CASES = [
    # (what, new script, category, columns of p.t, parts)
    ("spacing, a comment, another SET", "-- v2\nSET odps.sql.type.system.odps2=true;\n" + BASE.split(";\n", 1)[1]
     .replace("b + 1", "b+1"), "unchanged", [], []),
    ("a column added", edit("AS b FROM", "AS b, s.c FROM"), "additive", [("c", "added")], []),
    ("a column removed", edit(", s.b + 1 AS b", ""), "breaking", [("b", "removed")], []),
    ("a column renamed: removed and added", edit("AS b FROM", "AS b2 FROM"), "breaking",
     [("b", "removed"), ("b2", "added")], []),
    ("a column computed another way", edit("s.b + 1", "s.b * 2"), "breaking", [("b", "redefined")], []),
    ("a filter changed", edit("WHERE s.ds", "WHERE s.b > 0 AND s.ds"), "table", [], ["the filter"]),
    ("a join added", edit("p.s s WHERE", "p.s s JOIN p.u u ON s.a = u.a WHERE"), "table", [], ["a join"]),
    ("grouped", edit("'${bizdate}';", "'${bizdate}' GROUP BY s.a, s.b;"), "table", [], ["the grouping"]),
    ("a limit", BASE[:-1] + " LIMIT 10;", "table", [], ["LIMIT"]),
    ("another partition written", edit("ds='${bizdate}')", "ds='${yesterday}')"), "table", [],
     ["the partition written"]),
    ("DISTINCT: a column added changes the rows", edit("SELECT s.a", "SELECT DISTINCT s.a"), "table", [], ["DISTINCT"]),
    ("a column exploding rows", edit("AS b FROM", "AS b, explode(s.tags) AS tag FROM"), "table", [("tag", "added")], []),
]


@pytest.mark.parametrize("what,new,category,columns,parts", CASES, ids=[c[0] for c in CASES])
def test_each_kind_of_edit(what, new, category, columns, parts):
    found = diff(BASE, new, "p")
    assert found is not None, what
    (table,) = found.tables
    assert (found.category, table.table, table.category) == (category, "p.t", category), what
    assert list(table.columns) == columns and list(table.parts) == parts, what


def test_a_script_writing_several_tables_is_its_worst_table():
    old = ("FROM p.s INSERT OVERWRITE TABLE p.x SELECT a INSERT OVERWRITE TABLE p.y SELECT a, b;")
    new = ("FROM p.s INSERT OVERWRITE TABLE p.x SELECT a, c INSERT OVERWRITE TABLE p.y SELECT a;")
    found = diff(old, new, "p")
    assert found.category == "breaking"
    assert [(t.table, t.category, t.columns) for t in found.tables] == [
        ("p.x", "additive", (("c", "added"),)), ("p.y", "breaking", (("b", "removed"),))]


def test_a_union_branch_and_a_cte_are_part_of_which_rows():
    union = "INSERT INTO p.t SELECT a FROM p.x UNION ALL SELECT a FROM p.y;"
    assert diff(union, union.replace("FROM p.y", "FROM p.y WHERE a > 1"), "p").category == "table"
    assert diff(union, union.replace("SELECT a FROM p.y", "SELECT a + 1 FROM p.y"), "p").tables[0].columns == (
        ("a", "redefined"),)
    cte = "WITH x AS (SELECT a FROM p.s WHERE a > 0) INSERT OVERWRITE TABLE p.t SELECT a FROM x;"
    found = diff(cte, cte.replace("a > 0", "a > 1"), "p")
    assert (found.category, found.tables[0].parts) == ("table", ("a CTE",))


def test_tables_written_or_no_longer_written():
    old, new = "INSERT INTO p.x SELECT a FROM p.s;", "INSERT INTO p.y SELECT a FROM p.s;"
    assert [(t.table, t.category) for t in diff(old, new, "p").tables] == [("p.x", "table"), ("p.y", "additive")]


def test_a_script_not_understood_says_nothing():
    assert diff(BASE, "INSERT INTO ((", "p") is None  # does not parse: the caller keeps the safe side
    assert diff("jar -resources a.jar com.acme.Main;", "jar -resources b.jar com.acme.Main;", "p") is None
    assert diff(None, BASE, "p") is None
