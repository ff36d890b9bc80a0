"""What a script's DDL says about columns (issue 32 part 2), and the schema a later statement of
the same script sees; each expectation read off the SQL."""

from __future__ import annotations

from lineage.sql.columns import column_lineage
from lineage.sql.ddl import ADD, CHANGE, CREATE, DROP, DROP_TABLE, REPLACE, UNKNOWN


def changes(sql: str) -> list[tuple[str, str, tuple, str | None]]:
    return [(c.table, c.op, tuple((x.name, x.type, x.partition) for x in c.columns), c.old)
            for c in column_lineage(sql, default_project="p").schema]


def test_create_table_lists_partition_columns_last_with_their_types():
    sql = "CREATE TABLE IF NOT EXISTS p.t (id BIGINT COMMENT 'key', amt DECIMAL(10,2)) PARTITIONED BY (ds STRING, hr STRING) LIFECYCLE 7;"
    assert changes(sql) == [("p.t", CREATE, (("id", "bigint", False), ("amt", "decimal(10, 2)", False),
                                             ("ds", "string", True), ("hr", "string", True)), None)]
    assert changes("CREATE TABLE t (a STRING);")[0][1] == REPLACE  # without IF NOT EXISTS the schema is the new one


def test_alter_table_column_forms():
    sql = """ALTER TABLE t ADD COLUMNS (c1 STRING, c2 BIGINT);
             ALTER TABLE t ADD COLUMNS IF NOT EXISTS (c3 STRING);
             ALTER TABLE other.t ADD COLUMN c4 DOUBLE;
             ALTER TABLE t DROP COLUMNS c1, c2;
             ALTER TABLE t CHANGE COLUMN c3 c5 STRING;
             ALTER TABLE t CHANGE c4 c4 BIGINT;
             ALTER TABLE t RENAME COLUMN a TO b;
             DROP TABLE IF EXISTS t;"""
    assert changes(sql) == [
        ("p.t", ADD, (("c1", "string", False), ("c2", "bigint", False)), None),
        ("p.t", ADD, (("c3", "string", False),), None),
        ("other.t", ADD, (("c4", "double", False),), None),
        ("p.t", DROP, (("c1", None, False), ("c2", None, False)), None),
        ("p.t", CHANGE, (("c5", "string", False),), "c3"),
        ("p.t", CHANGE, (("c4", "bigint", False),), "c4"),
        ("p.t", CHANGE, (("b", None, False),), "a"),
        ("p.t", DROP_TABLE, (), None),
    ]


def test_ctas_columns_are_the_query_outputs_and_unknown_when_it_cannot_be_resolved():
    assert changes("CREATE TABLE t2 AS SELECT a.id, a.x + 1 AS y FROM p.src a;") == [
        ("p.t2", REPLACE, (("id", None, False), ("y", None, False)), None)]
    assert changes("CREATE TABLE t3 AS SELECT * FROM p.src;") == [("p.t3", UNKNOWN, (), None)]


def test_a_later_statement_sees_the_columns_the_script_created_added_and_dropped():
    sql = """CREATE TABLE IF NOT EXISTS stage (id BIGINT, v STRING) PARTITIONED BY (ds STRING);
             ALTER TABLE stage ADD COLUMNS (w STRING);
             ALTER TABLE stage DROP COLUMN v;
             INSERT OVERWRITE TABLE out SELECT * FROM stage;"""
    # stage's columns are id, w (added before the partition column), ds; out has unknown columns, so SELECT *'s names
    assert column_lineage(sql, default_project="p").pairs() == {
        ("p.stage.id", "p.out.id"), ("p.stage.w", "p.out.w"), ("p.stage.ds", "p.out.ds")}


def test_exchange_partition_and_clone_are_whole_table_identity_when_the_columns_are_known():
    sql = """CREATE TABLE IF NOT EXISTS tmp (id BIGINT, cnt BIGINT) PARTITIONED BY (ds STRING);
             INSERT OVERWRITE TABLE tmp PARTITION (ds='${bizdate}') SELECT s.id, COUNT(1) AS cnt FROM src s GROUP BY s.id;
             ALTER TABLE dst EXCHANGE PARTITION (ds='${bizdate}') WITH TABLE tmp;
             CLONE TABLE tmp TO dst2 IF EXISTS OVERWRITE;
             CLONE TABLE elsewhere TO dst3;"""
    found = column_lineage(sql, default_project="p")
    identity = {(f.source, f.target) for f in found.feeds if f.transformations == ("IDENTITY",)}
    assert {("p.tmp.id", "p.dst.id"), ("p.tmp.cnt", "p.dst.cnt"), ("p.tmp.ds", "p.dst.ds"),
            ("p.tmp.id", "p.dst2.id"), ("p.tmp.cnt", "p.dst2.cnt"), ("p.tmp.ds", "p.dst2.ds")} <= identity
    assert found.partial == ("statement 5: clone_table: columns of p.elsewhere unknown",)

