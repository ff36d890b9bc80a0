"""Table lineage of real-world MaxCompute/Hive SQL; every expectation below is written by hand."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from lineage.sql.lineage import SqlLineage, StatementLineage, table_lineage

PROJECT = "prj"


@dataclass(frozen=True)
class Case:
    """One SQL text and the reads, writes and statement kinds a reader of the SQL expects."""

    id: str
    sql: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    kinds: tuple[str, ...]


TABLE: list[Case] = [
    Case(
        "etl-insert-overwrite-partition-left-join",
        """
        INSERT OVERWRITE TABLE dw.dwd_order_detail PARTITION (ds='${bizdate}')
        SELECT o.order_id, o.user_id, u.user_name, o.amount
        FROM ods.ods_order o
        LEFT JOIN dw.dim_user u ON o.user_id = u.user_id AND u.ds = '${bizdate}'
        WHERE o.ds = '${bizdate}'
        """,
        ("dw.dim_user", "ods.ods_order"),
        ("dw.dwd_order_detail",),
        ("insert",),
    ),
    Case(
        "insert-into-table-unquoted-variable-unqualified",
        """
        INSERT INTO TABLE ads_daily_gmv PARTITION (ds=${bizdate})
        SELECT ds, SUM(amount) AS gmv FROM dwd_order_detail WHERE ds = ${bizdate} GROUP BY ds
        """,
        ("prj.dwd_order_detail",),
        ("prj.ads_daily_gmv",),
        ("insert",),
    ),
    Case(
        "insert-into-without-table-keyword",
        "insert into tmp_users select user_id, name from ods.users_inc where ds = '20240101'",
        ("ods.users_inc",),
        ("prj.tmp_users",),
        ("insert",),
    ),
    Case(
        "dynamic-partitions",
        """
        INSERT OVERWRITE TABLE dw.dwd_log PARTITION (ds, hh)
        SELECT uid, url, ds, hh FROM ods.ods_log WHERE ds >= '20240101'
        """,
        ("ods.ods_log",),
        ("dw.dwd_log",),
        ("insert",),
    ),
    Case(
        "static-and-dynamic-partition",
        """
        INSERT OVERWRITE TABLE dw.dwd_app_event PARTITION (ds='${bizdate}', event_type)
        SELECT device_id, ts, event_type FROM ods.ods_app_event WHERE ds='${bizdate}'
        """,
        ("ods.ods_app_event",),
        ("dw.dwd_app_event",),
        ("insert",),
    ),
    Case(
        "hive-multi-insert",
        """
        FROM ods.ods_event e
        INSERT OVERWRITE TABLE dw.dwd_click PARTITION (ds='${bizdate}')
          SELECT e.uid, e.ts WHERE e.type = 'click'
        INSERT INTO TABLE dw.dwd_view PARTITION (ds='${bizdate}')
          SELECT e.uid, e.ts WHERE e.type = 'view'
        """,
        ("ods.ods_event",),
        ("dw.dwd_click", "dw.dwd_view"),
        ("insert",),
    ),
    Case(
        "multi-insert-from-joined-subquery",
        """
        FROM (SELECT o.*, c.level FROM ods.orders o JOIN dw.dim_customer c ON o.cid = c.cid) src
        INSERT OVERWRITE TABLE ads.vip_orders SELECT * WHERE level = 'vip'
        INSERT OVERWRITE TABLE ads.normal_orders SELECT * WHERE level <> 'vip'
        """,
        ("dw.dim_customer", "ods.orders"),
        ("ads.normal_orders", "ads.vip_orders"),
        ("insert",),
    ),
    Case(
        "ctas-if-not-exists-lifecycle",
        """
        CREATE TABLE IF NOT EXISTS tmp.tmp_active_users LIFECYCLE 7 AS
        SELECT DISTINCT user_id FROM dw.dwd_login WHERE ds = '${bizdate}'
        """,
        ("dw.dwd_login",),
        ("tmp.tmp_active_users",),
        ("ctas",),
    ),
    Case(
        "ctas-lifecycle-union-unqualified",
        """
        create table tmp_all_ids lifecycle 3 as
        select id from ods.a_ids union all select id from ods.b_ids
        """,
        ("ods.a_ids", "ods.b_ids"),
        ("prj.tmp_all_ids",),
        ("ctas",),
    ),
    Case(
        "ctas-plain-with-join",
        "CREATE TABLE rpt.user_city AS SELECT u.id, c.city FROM dw.users u JOIN dw.cities c ON u.cid = c.id",
        ("dw.cities", "dw.users"),
        ("rpt.user_city",),
        ("ctas",),
    ),
    Case(
        "create-view",
        """
        CREATE VIEW IF NOT EXISTS ads.v_user_gmv AS
        SELECT user_id, SUM(amount) AS gmv FROM dw.dwd_order_detail GROUP BY user_id
        """,
        ("dw.dwd_order_detail",),
        ("ads.v_user_gmv",),
        ("create_view",),
    ),
    Case(
        "create-or-replace-view-with-column-comments",
        """
        CREATE OR REPLACE VIEW ads.v_dau (ds COMMENT 'date', dau COMMENT 'daily active')
        COMMENT 'daily active users' AS
        SELECT ds, COUNT(DISTINCT uid) FROM dw.dwd_login GROUP BY ds
        """,
        ("dw.dwd_login",),
        ("ads.v_dau",),
        ("create_view",),
    ),
    Case(
        "alter-view-as-select",
        "ALTER VIEW ads.v_dau AS SELECT ds, COUNT(1) AS dau FROM dw.dwd_login_v2 GROUP BY ds",
        ("dw.dwd_login_v2",),
        ("ads.v_dau",),
        ("create_view",),
    ),
    Case(
        "nested-ctes-insert",
        """
        WITH base AS (SELECT * FROM ods.ods_pay WHERE ds = '${bizdate}'),
             agg AS (SELECT uid, SUM(amt) AS amt FROM base GROUP BY uid),
             top_payer AS (SELECT * FROM agg WHERE amt > 100)
        INSERT OVERWRITE TABLE ads.ads_top_payer PARTITION (ds = '${bizdate}')
        SELECT t.uid, t.amt, u.city FROM top_payer t JOIN dw.dim_user u ON t.uid = u.uid
        """,
        ("dw.dim_user", "ods.ods_pay"),
        ("ads.ads_top_payer",),
        ("insert",),
    ),
    Case(
        "cte-shadows-real-table",
        """
        WITH dim_user AS (SELECT * FROM ods.ods_user WHERE is_valid = 1)
        SELECT f.*, d.name FROM dw.fact_visit f JOIN dim_user d ON f.uid = d.uid
        """,
        ("dw.fact_visit", "ods.ods_user"),
        (),
        ("select",),
    ),
    Case(
        "cte-named-like-the-table-it-reads",
        "WITH orders AS (SELECT * FROM orders WHERE ds = '20240101') SELECT COUNT(*) FROM orders",
        ("prj.orders",),
        (),
        ("select",),
    ),
    Case(
        "cte-scope-ends-with-its-subquery",
        """
        SELECT * FROM (WITH x AS (SELECT * FROM a.t1) SELECT * FROM x) s
        JOIN x ON s.id = x.id
        """,
        ("a.t1", "prj.x"),
        (),
        ("select",),
    ),
    Case(
        "cte-inside-ctas",
        """
        CREATE TABLE tmp.t_new LIFECYCLE 1 AS
        WITH w AS (SELECT id FROM ods.src_w) SELECT w.id FROM w JOIN ods.src_z z ON w.id = z.id
        """,
        ("ods.src_w", "ods.src_z"),
        ("tmp.t_new",),
        ("ctas",),
    ),
    Case(
        "union-all-three-sources",
        """
        INSERT OVERWRITE TABLE dw.dwd_all_orders PARTITION (ds='${bizdate}')
        SELECT order_id, 'app' AS channel FROM ods.app_orders WHERE ds='${bizdate}'
        UNION ALL
        SELECT order_id, 'web' AS channel FROM ods.web_orders WHERE ds='${bizdate}'
        UNION ALL
        SELECT order_id, 'mini' AS channel FROM ods.mini_orders WHERE ds='${bizdate}'
        """,
        ("ods.app_orders", "ods.mini_orders", "ods.web_orders"),
        ("dw.dwd_all_orders",),
        ("insert",),
    ),
    Case(
        "union-distinct-in-subquery",
        "SELECT COUNT(*) FROM (SELECT uid FROM dw.buyers UNION SELECT uid FROM dw.sellers) t",
        ("dw.buyers", "dw.sellers"),
        (),
        ("select",),
    ),
    Case(
        "window-function-dedupe",
        """
        INSERT OVERWRITE TABLE dw.dim_user_latest
        SELECT uid, name, update_time FROM (
          SELECT *, ROW_NUMBER() OVER (PARTITION BY uid ORDER BY update_time DESC) AS rn
          FROM ods.ods_user_inc
        ) t WHERE rn = 1
        """,
        ("ods.ods_user_inc",),
        ("dw.dim_user_latest",),
        ("insert",),
    ),
    Case(
        "window-functions-lag-sum",
        """
        SELECT uid, ds, amt,
               LAG(amt, 1) OVER (PARTITION BY uid ORDER BY ds) AS prev_amt,
               SUM(amt) OVER (PARTITION BY uid ORDER BY ds ROWS BETWEEN 6 PRECEDING AND CURRENT ROW) AS amt_7d
        FROM dw.dws_user_daily
        """,
        ("dw.dws_user_daily",),
        (),
        ("select",),
    ),
    Case(
        "lateral-view-explode",
        """
        INSERT OVERWRITE TABLE dw.dwd_user_tag PARTITION (ds='${bizdate}')
        SELECT uid, tag FROM ods.ods_user_profile
        LATERAL VIEW EXPLODE(SPLIT(tags, ',')) tag_table AS tag
        WHERE ds = '${bizdate}'
        """,
        ("ods.ods_user_profile",),
        ("dw.dwd_user_tag",),
        ("insert",),
    ),
    Case(
        "lateral-view-outer-posexplode-json-tuple",
        """
        SELECT a.id, p.pos, p.item, j.k1
        FROM ods.carts a
        LATERAL VIEW OUTER POSEXPLODE(a.items) p AS pos, item
        LATERAL VIEW JSON_TUPLE(a.ext, 'k1') j AS k1
        """,
        ("ods.carts",),
        (),
        ("select",),
    ),
    Case(
        "select-only-query",
        "SELECT COUNT(*) FROM ods.ods_order WHERE ds = '20240101' LIMIT 10",
        ("ods.ods_order",),
        (),
        ("select",),
    ),
    Case(
        "subqueries-in-where",
        """
        SELECT * FROM dw.orders o
        WHERE o.uid IN (SELECT uid FROM dw.blacklist)
          AND NOT EXISTS (SELECT 1 FROM dw.refunds r WHERE r.order_id = o.order_id)
          AND o.amt > (SELECT AVG(amt) FROM dw.orders_hist)
        """,
        ("dw.blacklist", "dw.orders", "dw.orders_hist", "dw.refunds"),
        (),
        ("select",),
    ),
    Case(
        "all-join-kinds",
        """
        SELECT * FROM t_a a
        JOIN t_b b ON a.id = b.id
        LEFT OUTER JOIN t_c c ON a.id = c.id
        RIGHT JOIN t_d d ON a.id = d.id
        FULL OUTER JOIN t_e e ON a.id = e.id
        LEFT SEMI JOIN t_f f ON a.id = f.id
        LEFT ANTI JOIN t_g g ON a.id = g.id
        CROSS JOIN t_h h
        """,
        ("prj.t_a", "prj.t_b", "prj.t_c", "prj.t_d", "prj.t_e", "prj.t_f", "prj.t_g", "prj.t_h"),
        (),
        ("select",),
    ),
    Case(
        "mapjoin-hint",
        """
        INSERT OVERWRITE TABLE dw.dwd_pv_city
        SELECT /*+ MAPJOIN(c) */ p.uid, c.city_name
        FROM ods.ods_pv p JOIN dim.dim_city c ON p.city_id = c.city_id
        """,
        ("dim.dim_city", "ods.ods_pv"),
        ("dw.dwd_pv_city",),
        ("insert",),
    ),
    Case(
        "three-level-names-kept",
        "INSERT OVERWRITE TABLE proj_a.default.t_out SELECT * FROM proj_b.sales.t_in JOIN t_local ON 1 = 1",
        ("prj.t_local", "proj_b.sales.t_in"),
        ("proj_a.default.t_out",),
        ("insert",),
    ),
    Case(
        "backtick-quoted-names-lower-cased",
        "INSERT INTO `ProjA`.`Tbl_X` SELECT * FROM `ods`.`User Table` u JOIN `Dim_Region` r ON u.rid = r.id",
        ("ods.user table", "prj.dim_region"),
        ("proja.tbl_x",),
        ("insert",),
    ),
    Case(
        "case-differences-deduplicated",
        "SELECT * FROM ODS.Ods_Order o1 JOIN ods.ODS_ORDER o2 ON o1.pid = o2.id",
        ("ods.ods_order",),
        (),
        ("select",),
    ),
    Case(
        "insert-values-writes-only",
        "INSERT INTO TABLE cfg.dim_channel VALUES (1, 'app'), (2, 'web')",
        (),
        ("cfg.dim_channel",),
        ("insert",),
    ),
    Case(
        "insert-values-partition-column-list",
        "INSERT INTO cfg.dim_rate PARTITION (ds='20240101') (cur, rate) VALUES ('usd', 7.1)",
        (),
        ("cfg.dim_rate",),
        ("insert",),
    ),
    Case(
        "read-and-write-same-table",
        "INSERT OVERWRITE TABLE dw.t_snapshot SELECT * FROM dw.t_snapshot WHERE ds <> '${bizdate}'",
        ("dw.t_snapshot",),
        ("dw.t_snapshot",),
        ("insert",),
    ),
    Case(
        "insert-with-column-list-select",
        "INSERT INTO TABLE dw.t_target (a, b) SELECT x, y FROM dw.t_source",
        ("dw.t_source",),
        ("dw.t_target",),
        ("insert",),
    ),
    Case(
        "max-pt-string-is-not-a-table",
        "SELECT * FROM dim.dim_shop WHERE ds = MAX_PT('dim.dim_shop_history')",
        ("dim.dim_shop",),
        (),
        ("select",),
    ),
    Case(
        "group-by-grouping-sets-case-when",
        """
        INSERT OVERWRITE TABLE ads.ads_gmv_cube PARTITION (ds='${bizdate}')
        SELECT province, city,
               SUM(CASE WHEN status = 'paid' THEN amount ELSE 0 END) AS gmv,
               CAST(COUNT(1) AS BIGINT) AS cnt
        FROM dw.dwd_order_detail WHERE ds = '${bizdate}'
        GROUP BY province, city GROUPING SETS ((province), (province, city))
        """,
        ("dw.dwd_order_detail",),
        ("ads.ads_gmv_cube",),
        ("insert",),
    ),
    Case(
        "distribute-sort-by",
        "INSERT OVERWRITE TABLE dw.t_sorted SELECT * FROM dw.t_raw DISTRIBUTE BY uid SORT BY ts",
        ("dw.t_raw",),
        ("dw.t_sorted",),
        ("insert",),
    ),
    Case(
        "script-set-comments-variables",
        """
        -- owner: data team; refreshed daily
        set odps.sql.allow.fullscan=true;
        SET odps.sql.mapper.split.size=256;
        /* step 1: staging */
        INSERT OVERWRITE TABLE tmp_stage PARTITION (ds='${bizdate}')
        SELECT * FROM ods.ods_src WHERE ds='${bizdate}';
        -- step 2: publish
        INSERT OVERWRITE TABLE dw.dwd_pub PARTITION (ds='${bizdate}')
        SELECT * FROM tmp_stage WHERE ds='${bizdate}';
        """,
        ("ods.ods_src", "prj.tmp_stage"),
        ("dw.dwd_pub", "prj.tmp_stage"),
        ("other", "other", "insert", "insert"),
    ),
    Case(
        "script-ddl-then-insert",
        """
        DROP TABLE IF EXISTS tmp.t_work;
        CREATE TABLE IF NOT EXISTS tmp.t_work (id BIGINT, v STRING) LIFECYCLE 1;
        INSERT OVERWRITE TABLE tmp.t_work SELECT id, v FROM ods.src_kv;
        SELECT * FROM tmp.t_work;
        """,
        ("ods.src_kv", "tmp.t_work"),
        ("tmp.t_work",),
        ("ddl", "create_table", "insert", "select"),
    ),
    Case(
        "script-mode-table-variables",
        """
        @users := SELECT uid, city FROM dw.dim_user WHERE ds = '${bizdate}';
        @orders := SELECT uid, amt FROM dw.dwd_order WHERE ds = '${bizdate}';
        INSERT OVERWRITE TABLE ads.city_gmv
        SELECT u.city, SUM(o.amt) FROM @orders o JOIN @users u ON o.uid = u.uid GROUP BY u.city;
        """,
        ("dw.dim_user", "dw.dwd_order"),
        ("ads.city_gmv",),
        ("select", "select", "insert"),
    ),
    Case("ddl-drop-table", "DROP TABLE IF EXISTS dw.t_old", (), (), ("ddl",)),
    Case("ddl-alter-add-partition", "ALTER TABLE dw.t ADD IF NOT EXISTS PARTITION (ds='${bizdate}')", (), (), ("ddl",)),
    Case("ddl-alter-drop-partition", "ALTER TABLE dw.t DROP IF EXISTS PARTITION (ds='20230101')", (), (), ("ddl",)),
    Case("ddl-alter-set-lifecycle", "ALTER TABLE dw.t SET LIFECYCLE 30", (), (), ("ddl",)),
    Case("ddl-alter-rename", "ALTER TABLE dw.t_tmp RENAME TO dw.t_final", (), (), ("ddl",)),
    Case("ddl-alter-merge-smallfiles", "ALTER TABLE dw.t PARTITION (ds='20240101') MERGE SMALLFILES", (), (), ("ddl",)),
    Case("ddl-desc-extended", "DESC EXTENDED ods.ods_order", (), (), ("ddl",)),
    Case("ddl-show-partitions", "SHOW PARTITIONS ods.ods_order", (), (), ("ddl",)),
    Case("ddl-grant", "GRANT SELECT ON TABLE ods.ods_order TO USER RAM$alice@example.com", (), (), ("ddl",)),
    Case("ddl-whoami", "whoami", (), (), ("ddl",)),
    Case(
        "create-table-columns-partitioned-lifecycle-writes-it",
        """
        CREATE TABLE IF NOT EXISTS dw.dwd_new (
          id BIGINT COMMENT 'id',
          name STRING COMMENT 'name'
        ) COMMENT 'new table' PARTITIONED BY (ds STRING COMMENT 'yyyymmdd') LIFECYCLE 365
        """,
        (),
        ("dw.dwd_new",),
        ("create_table",),
    ),
    Case(
        "create-table-like-reads-template",
        "CREATE TABLE IF NOT EXISTS tmp.t_copy LIKE dw.t_orig LIFECYCLE 7",
        ("dw.t_orig",),
        ("tmp.t_copy",),
        ("create_table",),
    ),
    Case(
        "create-table-like-unqualified",
        "create table t_copy2 like t_orig2",
        ("prj.t_orig2",),
        ("prj.t_copy2",),
        ("create_table",),
    ),
    Case(
        "create-table-plain-unqualified",
        "create table t_plain (id bigint, name string)",
        (),
        ("prj.t_plain",),
        ("create_table",),
    ),
    Case(
        "create-external-table-location",
        "CREATE EXTERNAL TABLE IF NOT EXISTS ods.ext_log (line STRING) STORED AS TEXTFILE LOCATION 'oss://bucket/log/'",
        (),
        ("ods.ext_log",),
        ("create_table",),
    ),
    Case(
        "script-drop-create-like-then-insert",
        """
        DROP TABLE IF EXISTS tmp.t_stage;
        CREATE TABLE tmp.t_stage LIKE dw.t_final;
        INSERT OVERWRITE TABLE tmp.t_stage SELECT * FROM ods.t_raw;
        """,
        ("dw.t_final", "ods.t_raw"),
        ("tmp.t_stage",),
        ("ddl", "create_table", "insert"),
    ),
    Case("create-function-is-ddl", "CREATE FUNCTION my_udf AS 'com.x.MyUdf' USING 'udf.jar'", (), (), ("ddl",)),
    Case("ddl-truncate", "TRUNCATE TABLE tmp.t_work", (), (), ("ddl",)),
    Case("ddl-use", "USE other_project", (), (), ("ddl",)),
    Case("explain-is-other", "EXPLAIN INSERT OVERWRITE TABLE a SELECT * FROM b", (), (), ("other",)),
    Case(
        "merge-into",
        """
        MERGE INTO dw.dim_acct t USING (SELECT * FROM ods.acct_inc WHERE ds='${bizdate}') s
        ON t.id = s.id
        WHEN MATCHED THEN UPDATE SET t.balance = s.balance
        WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.balance)
        """,
        ("ods.acct_inc",),
        ("dw.dim_acct",),
        ("merge",),
    ),
    Case(
        "update-with-subquery",
        "UPDATE dw.acct SET status = 'frozen' WHERE id IN (SELECT id FROM risk.frozen_ids)",
        ("risk.frozen_ids",),
        ("dw.acct",),
        ("update",),
    ),
    Case(
        "delete-with-subquery",
        "DELETE FROM dw.acct WHERE id IN (SELECT id FROM risk.closed_ids)",
        ("risk.closed_ids",),
        ("dw.acct",),
        ("delete",),
    ),
    Case(
        "comment-with-table-like-words-ignored",
        """
        -- INSERT OVERWRITE TABLE fake.sink SELECT * FROM fake.source;
        /* FROM fake.other JOIN fake.more; DROP TABLE fake.gone; */
        SELECT id FROM real.src -- JOIN fake.trailing
        """,
        ("real.src",),
        (),
        ("select",),
    ),
    Case(
        "semicolon-inside-string",
        "INSERT OVERWRITE TABLE dw.t_split SELECT SPLIT(line, ';') FROM ods.t_lines WHERE line RLIKE 'a;b'; SELECT 1",
        ("ods.t_lines",),
        ("dw.t_split",),
        ("insert", "select"),
    ),
]


@pytest.mark.parametrize("case", TABLE, ids=[c.id for c in TABLE])
def test_table(case: Case) -> None:
    result = table_lineage(case.sql, default_project=PROJECT)
    assert result.errors == ()
    assert result.ok
    assert (result.reads, result.writes) == (case.reads, case.writes)
    assert tuple(s.kind for s in result.statements) == case.kinds


def test_table_is_big_enough_and_ids_unique() -> None:
    assert len(TABLE) >= 45
    assert len({c.id for c in TABLE}) == len(TABLE)


# --- failures: reported, never guessed --------------------------------------------------------

FAILURES = [
    ("unparsable-unbalanced-paren", "INSERT OVERWRITE TABLE dw.t SELECT a FROM ods.s WHERE (a > 1"),
    ("unparsable-misspelled-keyword", "SELEC * FROM ods.s"),
    ("truncated-after-from", "INSERT OVERWRITE TABLE dw.t SELECT a FROM"),
    ("truncated-where", "SELECT * FROM ods.s WHERE"),
    ("variable-as-target-table", "INSERT OVERWRITE TABLE ${target_table} SELECT * FROM ods.src"),
    ("variable-as-project", "SELECT * FROM ${src_project}.t_users"),
    ("variable-inside-table-name", "SELECT * FROM ods.ods_log_${region}"),
    ("unknown-script-variable", "INSERT OVERWRITE TABLE dw.t SELECT * FROM @never_assigned"),
    ("garbage-words", "hello world this is not sql"),
    ("garbage-single-word", "asdf"),
    ("garbage-symbols", "!!! ??? ###"),
    ("unterminated-string", "SELECT * FROM ods.s WHERE a = 'oops"),
    ("four-part-name", "SELECT * FROM a.b.c.d"),
    ("ctas-sqlglot-cannot-parse", "CREATE TABLE dw.t AUTO PARTITIONED BY (TRUNC_TIME(dt, 'day') AS pt) AS SELECT * FROM ods.s"),
]


@pytest.mark.parametrize("sql", [sql for _, sql in FAILURES], ids=[name for name, _ in FAILURES])
def test_failure_reports_statement_and_contributes_nothing(sql: str) -> None:
    result = table_lineage(sql, default_project=PROJECT)
    assert not result.ok
    assert len(result.errors) == 1 and result.errors[0].startswith("statement 1: ")
    assert (result.reads, result.writes, result.statements) == ((), (), ())


def test_variable_table_error_names_the_variable() -> None:
    result = table_lineage("INSERT OVERWRITE TABLE ${target_table} SELECT * FROM ods.src")
    assert result.errors == ("statement 1: table name is a variable (${target_table})",)


def test_parse_error_message_is_sqlglots_first_line() -> None:
    (message,) = table_lineage("SELECT * FROM ods.s WHERE").errors
    assert message.startswith("statement 1: ") and "\n" not in message and "Line 1" in message


def test_script_with_broken_middle_statement() -> None:
    sql = """
    INSERT OVERWRITE TABLE dw.first SELECT * FROM ods.one;
    INSERT OVERWRITE TABLE dw.second SELECT a, FROM WHERE ods.two;
    INSERT OVERWRITE TABLE dw.third SELECT * FROM ods.three;
    """
    result = table_lineage(sql)
    assert len(result.errors) == 1 and result.errors[0].startswith("statement 2: ")
    assert result.reads == ("ods.one", "ods.three")
    assert result.writes == ("dw.first", "dw.third")
    assert [s.index for s in result.statements] == [1, 3]


def test_unterminated_string_keeps_earlier_statements() -> None:
    result = table_lineage("INSERT INTO dw.a SELECT * FROM ods.b; SELECT * FROM ods.c WHERE x = 'open")
    assert result.writes == ("dw.a",) and result.reads == ("ods.b",)
    assert len(result.errors) == 1 and result.errors[0].startswith("statement 2: ")


def test_failed_assignment_does_not_turn_later_references_into_errors() -> None:
    sql = "@v := SELECT FROM WHERE; INSERT OVERWRITE TABLE dw.out SELECT * FROM @v JOIN ods.dim d ON 1 = 1"
    result = table_lineage(sql)
    assert len(result.errors) == 1 and result.errors[0].startswith("statement 1: ")
    assert (result.reads, result.writes) == (("ods.dim",), ("dw.out",))


# --- qualification, splitting, empties --------------------------------------------------------


def test_default_project_qualifies_only_bare_names() -> None:
    sql = "INSERT OVERWRITE TABLE Out_T SELECT * FROM In_T JOIN other.In_T2 ON 1 = 1 JOIN p.s.In_T3 ON 1 = 1"
    with_project = table_lineage(sql, default_project="My_Proj")
    assert with_project.writes == ("my_proj.out_t",)
    assert with_project.reads == ("my_proj.in_t", "other.in_t2", "p.s.in_t3")
    without = table_lineage(sql)
    assert without.writes == ("out_t",)
    assert without.reads == ("in_t", "other.in_t2", "p.s.in_t3")


def test_semicolons_inside_strings_and_comments_do_not_split() -> None:
    sql = "SELECT ';' AS a FROM ods.x; -- a comment; with semicolons\nSELECT \"x;y\" FROM ods.y /* ; */"
    result = table_lineage(sql)
    assert result.ok
    assert [s.index for s in result.statements] == [1, 2]
    assert result.reads == ("ods.x", "ods.y")


@pytest.mark.parametrize("sql", ["", "   \n\t ", ";", " ; ;\n;", "-- only a comment\n", "/* block */ ;"])
def test_empty_input_has_no_statements_and_no_errors(sql: str) -> None:
    assert table_lineage(sql) == SqlLineage(reads=(), writes=(), statements=(), errors=())


def test_statement_details() -> None:
    result = table_lineage("set a=b; INSERT OVERWRITE TABLE t SELECT * FROM t; SELECT * FROM s", default_project="p")
    assert result.statements == (
        StatementLineage(index=1, kind="other", reads=(), writes=()),
        StatementLineage(index=2, kind="insert", reads=("p.t",), writes=("p.t",)),
        StatementLineage(index=3, kind="select", reads=("p.s",), writes=()),
    )
