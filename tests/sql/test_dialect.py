"""The MaxCompute dialect's overrides, each checked on the tree sqlglot builds (expectations by hand)."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from lineage.sql.dialect import Assignment, MaxCompute, variables_in


def parse(sql: str) -> exp.Expr:
    return sqlglot.parse_one(sql, dialect=MaxCompute)


@pytest.mark.parametrize("sql, texts", [
    ("SELECT * FROM t WHERE ds = ${bizdate}", ["SELECT", "*", "FROM", "t", "WHERE", "ds", "=", "${bizdate}"]),
    ("SELECT * FROM ods.log_${region}_${ds}", ["SELECT", "*", "FROM", "ods", ".", "log_${region}_${ds}"]),
    ("SELECT $[yyyymmdd-1] FROM t", ["SELECT", "$[yyyymmdd-1]", "FROM", "t"]),
    ("SELECT a.items[0] FROM t", ["SELECT", "a", ".", "items", "[", "0", "]", "FROM", "t"]),
    ("SELECT '${in_a_string}' FROM t -- ${in_a_comment}", ["SELECT", "${in_a_string}", "FROM", "t"]),
    ("SELECT ${not_closed\n} FROM t", ["SELECT", "$", "{", "not_closed", "}", "FROM", "t"]),
])
def test_a_scheduling_variable_is_one_token(sql: str, texts: list[str]) -> None:
    assert [t.text for t in MaxCompute().tokenize(sql)] == texts


def test_variables_in_a_name() -> None:
    assert variables_in("log_${region}_$[yyyymmdd]") == ["${region}", "$[yyyymmdd]"]


def test_lifecycle_is_a_table_property() -> None:
    tree = parse("CREATE TABLE t LIFECYCLE 7 AS SELECT 1 FROM s")
    assert isinstance(tree, exp.Create) and isinstance(tree.expression, exp.Select)
    [prop] = tree.args["properties"].expressions
    assert (prop.name, prop.args["value"].sql()) == ("LIFECYCLE", "7")


@pytest.mark.parametrize("sql, verb", [
    ("whoami", "WHOAMI"),
    ("list resources", "LIST"),
    ("set odps.sql.allow.fullscan=true", "SET"),
    ("EXPLAIN INSERT OVERWRITE TABLE a SELECT * FROM b", "EXPLAIN"),
    ("ALTER TABLE t MERGE SMALLFILES", "ALTER"),
])
def test_statements_holding_no_data_move_are_commands_named_by_their_verb(sql: str, verb: str) -> None:
    tree = parse(sql)
    assert isinstance(tree, exp.Command) and tree.this == verb


def test_admin_verbs_are_ordinary_words_elsewhere() -> None:
    tree = parse("SELECT list, kill FROM t")
    assert [c.name for c in tree.expressions] == ["list", "kill"]


def test_alter_with_a_query_is_parsed() -> None:
    assert isinstance(parse("ALTER VIEW v AS SELECT * FROM t"), exp.Alter)


def test_script_assignment() -> None:
    tree = parse("@users := SELECT uid FROM dw.dim_user")
    assert isinstance(tree, Assignment) and tree.name == "users"
    assert [t.name for t in tree.expression.find_all(exp.Table)] == ["dim_user"]
