"""Every statement kind real MaxCompute / Hive / Spark jobs run: what it reads and writes (tables
and storage paths), its kind and whether it moves data, changes a schema or neither.

Every expectation below was written by reading the SQL, not from the code's output. Unqualified
names are in project ``prj``; paths are canonical (``lineage.ids.location_uri``: scheme and bucket
lower-case, an OSS endpoint host dropped, trailing ``/`` and Hive partition directories dropped, a
path without scheme on the cluster's default file system ``hdfs://``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from lineage import ids
from lineage.sql.kinds import DATA, KINDS, NONE, SCHEMA
from lineage.sql.lineage import table_lineage

PROJECT = "prj"


@dataclass(frozen=True)
class Case:
    """One statement: the fine kind, effect, tables read/written, paths read/written."""

    id: str
    sql: str
    statement: str
    effect: str
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    read_at: tuple[str, ...] = ()
    written_at: tuple[str, ...] = ()


TABLE: list[Case] = [
    # --- INSERT INTO / OVERWRITE ... PARTITION, dynamic partitions, multi-insert, directories --------
    Case("insert-overwrite-static-partition",
         "INSERT OVERWRITE TABLE dw.dwd_pay PARTITION (ds='20240601') SELECT id, amt FROM ods.ods_pay WHERE ds='20240601'",
         "insert", DATA, ("ods.ods_pay",), ("dw.dwd_pay",)),
    Case("insert-into-partition-unqualified",
         "INSERT INTO TABLE t_hist PARTITION (ds='${bizdate}') SELECT * FROM t_stage",
         "insert", DATA, ("prj.t_stage",), ("prj.t_hist",)),
    Case("insert-dynamic-partitions",
         "INSERT OVERWRITE TABLE dw.t_log PARTITION (ds, hh) SELECT uid, url, ds, hh FROM ods.s_log",
         "insert", DATA, ("ods.s_log",), ("dw.t_log",)),
    Case("insert-static-and-dynamic-partition",
         "INSERT OVERWRITE TABLE dw.t_evt PARTITION (ds='1', region) SELECT a, region FROM ods.evt e JOIN dim.region r ON e.rid = r.id",
         "insert", DATA, ("dim.region", "ods.evt"), ("dw.t_evt",)),
    Case("insert-values-reads-nothing",
         "INSERT INTO dw.cfg VALUES (1, 'a'), (2, 'b')",
         "insert", DATA, (), ("dw.cfg",)),
    Case("insert-union-all",
         "INSERT OVERWRITE TABLE ads.all_ids SELECT id FROM ods.a UNION ALL SELECT id FROM ods.b",
         "insert", DATA, ("ods.a", "ods.b"), ("ads.all_ids",)),
    Case("insert-distribute-sort",
         "INSERT OVERWRITE TABLE dw.sorted SELECT * FROM dw.unsorted DISTRIBUTE BY k SORT BY v",
         "insert", DATA, ("dw.unsorted",), ("dw.sorted",)),
    Case("multi-insert",
         "FROM ods.src s INSERT OVERWRITE TABLE dw.a PARTITION (ds='1') SELECT s.x INSERT INTO TABLE dw.b SELECT s.y",
         "multi_insert", DATA, ("ods.src",), ("dw.a", "dw.b")),
    Case("insert-overwrite-directory-oss",
         "INSERT OVERWRITE DIRECTORY 'oss://Exports/daily/orders/' SELECT * FROM dw.orders",
         "insert_directory", DATA, ("dw.orders",), (), (), ("oss://exports/daily/orders",)),
    Case("insert-overwrite-local-directory",
         "INSERT OVERWRITE LOCAL DIRECTORY '/tmp/dump' SELECT * FROM dw.small",
         "insert_directory", DATA, ("dw.small",), (), (), ("file:///tmp/dump",)),
    Case("insert-from-parquet-path-on-oss",
         "INSERT OVERWRITE TABLE ods.ods_click SELECT * FROM parquet.`oss://lake/raw/click/`",
         "insert", DATA, (), ("ods.ods_click",), ("oss://lake/raw/click",)),
    # --- SELECT, paths read as files --------------------------------------------------------------
    Case("select-parquet-bare-path",
         "SELECT * FROM parquet.`/data/path`",
         "select", DATA, (), (), ("hdfs:///data/path",)),
    Case("select-orc-hdfs-path-join-table",
         "SELECT a.k, b.v FROM orc.`hdfs://nn1:8020/warehouse/a` a JOIN dw.b b ON a.k = b.k",
         "select", DATA, ("dw.b",), (), ("hdfs://nn1:8020/warehouse/a",)),
    Case("select-json-file-s3a",
         "SELECT COUNT(1) FROM json.`s3a://Logs/app/2024/events.json`",
         "select", DATA, (), (), ("s3://logs/app/2024/events.json",)),
    Case("select-delta-partition-dir-dropped",
         "SELECT * FROM delta.`oss://lake/sales/ds=20240101/`",
         "select", DATA, (), (), ("oss://lake/sales",)),
    Case("select-csv-in-cte",
         "WITH r AS (SELECT * FROM csv.`oss://lake/ref/rates.csv`) SELECT * FROM dw.fx JOIN r ON fx.c = r.c",
         "select", DATA, ("dw.fx",), (), ("oss://lake/ref/rates.csv",)),
    Case("select-project-named-like-a-format-is-a-table",
         "SELECT * FROM parquet.users",
         "select", DATA, ("parquet.users",)),
    Case("script-assignment",
         "@a := SELECT * FROM dw.t1 WHERE ds = '1'",
         "script_assignment", DATA, ("dw.t1",)),
    # --- CTAS and views ---------------------------------------------------------------------------
    Case("ctas-lifecycle",
         "CREATE TABLE tmp.t_x LIFECYCLE 1 AS SELECT a FROM dw.t_y",
         "ctas", DATA, ("dw.t_y",), ("tmp.t_x",)),
    Case("ctas-from-avro-path",
         "CREATE TABLE ods.imported AS SELECT * FROM avro.`oss://oss-cn-shanghai.aliyuncs.com/landing/imp/`",
         "ctas", DATA, (), ("ods.imported",), ("oss://landing/imp",)),
    Case("create-view-as",
         "CREATE VIEW ads.v_gmv AS SELECT ds, SUM(amt) FROM dw.dwd_pay GROUP BY ds",
         "create_view", DATA, ("dw.dwd_pay",), ("ads.v_gmv",)),
    Case("create-materialized-view",
         "CREATE MATERIALIZED VIEW ads.mv_uv AS SELECT ds, COUNT(DISTINCT uid) FROM dw.visits GROUP BY ds",
         "create_view", DATA, ("dw.visits",), ("ads.mv_uv",)),
    Case("alter-view-as",
         "ALTER VIEW ads.v_gmv AS SELECT ds, SUM(amt) FROM dw.dwd_pay_v2 GROUP BY ds",
         "alter_view_as", DATA, ("dw.dwd_pay_v2",), ("ads.v_gmv",)),
    # --- MERGE, UPDATE / DELETE with joins --------------------------------------------------------
    Case("merge-using-table",
         "MERGE INTO dw.acct t USING ods.acct_inc s ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.bal = s.bal "
         "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.bal)",
         "merge", DATA, ("ods.acct_inc",), ("dw.acct",)),
    Case("merge-using-join-subquery",
         "MERGE INTO dw.dim_user t USING (SELECT u.id, c.city FROM ods.users u JOIN dim.city c ON u.cid = c.id) s "
         "ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.city = s.city",
         "merge", DATA, ("dim.city", "ods.users"), ("dw.dim_user",)),
    Case("merge-delete-branch",
         "MERGE INTO dw.acct t USING risk.closed s ON t.id = s.id WHEN MATCHED THEN DELETE",
         "merge", DATA, ("risk.closed",), ("dw.acct",)),
    Case("update-from-join",
         "UPDATE dw.acct t SET status = s.status FROM ods.acct_status s WHERE t.id = s.id",
         "update", DATA, ("ods.acct_status",), ("dw.acct",)),
    Case("update-from-joined-subquery",
         "UPDATE dw.acct t SET lvl = s.lvl FROM (SELECT a.id, b.lvl FROM ods.a a JOIN ods.b b ON a.id = b.id) s "
         "WHERE t.id = s.id",
         "update", DATA, ("ods.a", "ods.b"), ("dw.acct",)),
    Case("update-constant",
         "UPDATE dw.acct SET status = 'closed' WHERE id = 7",
         "update", DATA, (), ("dw.acct",)),
    Case("delete-exists-join",
         "DELETE FROM dw.acct WHERE EXISTS (SELECT 1 FROM risk.fraud f WHERE f.id = acct.id)",
         "delete", DATA, ("risk.fraud",), ("dw.acct",)),
    Case("delete-in-subquery-unqualified",
         "DELETE FROM t_orders WHERE uid IN (SELECT uid FROM t_banned)",
         "delete", DATA, ("prj.t_banned",), ("prj.t_orders",)),
    # --- EXCHANGE PARTITION, CLONE ----------------------------------------------------------------
    Case("exchange-partition",
         "ALTER TABLE dw.t1 EXCHANGE PARTITION (ds='20240101') WITH TABLE dw.t2",
         "exchange_partition", DATA, ("dw.t2",), ("dw.t1",)),
    Case("exchange-partition-multi-key-unqualified",
         "alter table sales exchange partition (ds='1', hh='02') with table sales_stage",
         "exchange_partition", DATA, ("prj.sales_stage",), ("prj.sales",)),
    Case("exchange-partition-backquoted",
         "ALTER TABLE `dw`.`fact` EXCHANGE PARTITION (ds='${bizdate}') WITH TABLE `tmp`.`fact_new`",
         "exchange_partition", DATA, ("tmp.fact_new",), ("dw.fact",)),
    Case("clone-table",
         "CLONE TABLE prod.orders TO dev.orders IF EXISTS OVERWRITE",
         "clone_table", DATA, ("prod.orders",), ("dev.orders",)),
    Case("clone-table-partitions",
         "CLONE TABLE prod.orders PARTITION (ds='1'), PARTITION (ds='2') TO bak.orders IF EXISTS IGNORE",
         "clone_table", DATA, ("prod.orders",), ("bak.orders",)),
    # --- LOAD / UNLOAD ----------------------------------------------------------------------------
    Case("load-overwrite-from-oss-endpoint-location",
         "LOAD OVERWRITE TABLE ods.ods_csv FROM LOCATION "
         "'oss://oss-cn-hangzhou-internal.aliyuncs.com/landing/csv/' STORED BY 'com.aliyun.odps.CsvStorageHandler'",
         "load_location", DATA, (), ("ods.ods_csv",), ("oss://landing/csv",)),
    Case("load-into-partition-from-location",
         "LOAD INTO TABLE ods.ods_pq PARTITION (ds='20240101') FROM LOCATION 'oss://landing/pq/' STORED AS PARQUET",
         "load_location", DATA, (), ("ods.ods_pq",), ("oss://landing/pq",)),
    Case("hive-load-data-inpath",
         "LOAD DATA INPATH '/user/etl/in/orders' OVERWRITE INTO TABLE ods.orders PARTITION (ds='1')",
         "load_data", DATA, (), ("ods.orders",), ("hdfs:///user/etl/in/orders",)),
    Case("hive-load-data-local-inpath",
         "LOAD DATA LOCAL INPATH '/home/etl/x.csv' INTO TABLE ods.x",
         "load_data", DATA, (), ("ods.x",), ("file:///home/etl/x.csv",)),
    Case("unload-table-partition",
         "UNLOAD FROM dw.sales PARTITION (ds='20240101') INTO LOCATION 'oss://export/sales/' STORED AS PARQUET",
         "unload", DATA, ("dw.sales",), (), (), ("oss://export/sales",)),
    Case("unload-query",
         "UNLOAD FROM (SELECT s.id, u.name FROM dw.sales s JOIN dw.users u ON s.uid = u.id) "
         "INTO LOCATION 'oss://oss-cn-beijing-internal.aliyuncs.com/export/joined/' STORED AS ORC",
         "unload", DATA, ("dw.sales", "dw.users"), (), (), ("oss://export/joined",)),
    # --- TRUNCATE and partition drops: data removed, nothing flows -------------------------------
    Case("truncate", "TRUNCATE TABLE tmp.t_work", "truncate", DATA),
    Case("truncate-partition", "TRUNCATE TABLE dw.t PARTITION (ds='1')", "truncate", DATA),
    Case("alter-drop-partition", "ALTER TABLE dw.t DROP IF EXISTS PARTITION (ds='20230101')", "alter_drop_partition", DATA),
    # --- schema: CREATE TABLE (LIKE, external, LOCATION), DROP, ALTER -----------------------------
    Case("create-table-like",
         "CREATE TABLE IF NOT EXISTS tmp.t_copy LIKE dw.t_orig",
         "create_table_like", SCHEMA, ("dw.t_orig",), ("tmp.t_copy",)),
    Case("create-table-columns",
         "CREATE TABLE dw.t_new (id BIGINT, name STRING) PARTITIONED BY (ds STRING) LIFECYCLE 30",
         "create_table", SCHEMA, (), ("dw.t_new",)),
    Case("create-external-table-oss-endpoint",
         "CREATE EXTERNAL TABLE IF NOT EXISTS ods.ext_log (line STRING) STORED BY 'com.aliyun.odps.TextStorageHandler' "
         "LOCATION 'oss://oss-cn-hangzhou-internal.aliyuncs.com/Logs-Bucket/app/'",
         "create_external_table", SCHEMA, (), ("ods.ext_log",), ("oss://logs-bucket/app",)),
    Case("create-external-table-parquet-virtual-host",
         "CREATE EXTERNAL TABLE ods.ext_pq (a STRING) PARTITIONED BY (ds STRING) STORED AS PARQUET "
         "LOCATION 'oss://lake.oss-cn-shanghai-internal.aliyuncs.com/pq/a/'",
         "create_external_table", SCHEMA, (), ("ods.ext_pq",), ("oss://lake/pq/a",)),
    Case("create-table-with-location-hdfs",
         "CREATE TABLE dw.t_loc (a STRING) LOCATION 'hdfs://nn:8020/warehouse/t_loc'",
         "create_external_table", SCHEMA, (), ("dw.t_loc",), ("hdfs://nn:8020/warehouse/t_loc",)),
    Case("create-function", "CREATE FUNCTION my_udf AS 'com.x.MyUdf' USING 'udf.jar'", "create_other", SCHEMA),
    Case("drop-table", "DROP TABLE IF EXISTS dw.t_old", "drop", SCHEMA),
    Case("drop-view", "DROP VIEW IF EXISTS ads.v_old", "drop", SCHEMA),
    Case("alter-rename-table", "ALTER TABLE dw.t_tmp RENAME TO dw.t_final", "alter_rename", SCHEMA),
    Case("alter-add-columns", "ALTER TABLE dw.t ADD COLUMNS (c1 BIGINT COMMENT 'x', c2 STRING)", "alter_add_column", SCHEMA),
    Case("alter-add-columns-if-not-exists", "ALTER TABLE dw.t ADD COLUMNS IF NOT EXISTS (c3 STRING)",
         "alter_add_column", SCHEMA),
    Case("alter-drop-columns", "ALTER TABLE dw.t DROP COLUMNS c1, c2", "alter_drop_column", SCHEMA),
    Case("alter-change-column", "ALTER TABLE dw.t CHANGE COLUMN old_name new_name BIGINT", "alter_change_column", SCHEMA),
    Case("alter-change-column-comment", "ALTER TABLE dw.t CHANGE COLUMN c1 COMMENT 'new comment'",
         "alter_change_column", SCHEMA),
    Case("alter-change-rename-to", "ALTER TABLE dw.t CHANGE c1 RENAME TO c9", "alter_change_column", SCHEMA),
    Case("alter-replace-columns", "ALTER TABLE dw.t REPLACE COLUMNS (a BIGINT)", "alter_change_column", SCHEMA),
    Case("alter-add-partition", "ALTER TABLE dw.t ADD IF NOT EXISTS PARTITION (ds='${bizdate}')", "alter_add_partition",
         SCHEMA),
    Case("alter-add-partition-with-location",
         "ALTER TABLE ods.ext ADD PARTITION (ds='1') LOCATION 'oss://lake/ext/ds=1/'", "alter_add_partition", SCHEMA),
    Case("alter-set-location",
         "ALTER TABLE ods.ext SET LOCATION 'oss://lake/ext_v2/'",
         "alter_set_location", SCHEMA, (), ("ods.ext",), ("oss://lake/ext_v2",)),
    Case("alter-set-lifecycle", "ALTER TABLE dw.t SET LIFECYCLE 30", "alter_other", SCHEMA),
    Case("alter-set-tblproperties", "ALTER TABLE dw.t SET TBLPROPERTIES ('comment' = 'x')", "alter_other", SCHEMA),
    Case("alter-changeowner", "ALTER TABLE dw.t CHANGEOWNER TO 'RAM$bob@x.com'", "alter_owner", SCHEMA),
    Case("create-resource-raw-command", "CREATE RESOURCE file dict.txt", "ddl_command", SCHEMA),
    Case("drop-resource-raw-command", "DROP RESOURCE udf.jar", "ddl_command", SCHEMA),
    Case("create-auto-partitioned-table-raw-command",
         "CREATE TABLE dw.t_auto (a STRING, dt DATETIME) AUTO PARTITIONED BY (TRUNC_TIME(dt, 'day') AS pt)",
         "ddl_command", SCHEMA),
    Case("comment-on-table", "COMMENT ON TABLE dw.t IS 'orders'", "comment", SCHEMA),
    # --- neither: session, resources, describing ----------------------------------------------------
    Case("merge-smallfiles", "ALTER TABLE dw.t PARTITION (ds='1') MERGE SMALLFILES", "alter_merge_smallfiles", NONE),
    Case("add-jar", "ADD JAR /tmp/udf.jar", "add_resource", NONE),
    Case("add-file", "ADD FILE oss://bucket/conf/app.conf AS app.conf", "add_resource", NONE),
    Case("add-archive", "add archive data.tar.gz", "add_resource", NONE),
    Case("add-py", "ADD PY my_udf.py", "add_resource", NONE),
    Case("msck-repair", "MSCK REPAIR TABLE ods.ext_log", "msck", NONE),
    Case("msck-add-partitions", "MSCK TABLE ods.ext_log ADD PARTITIONS", "msck", NONE),
    Case("set-flag", "SET odps.sql.allow.fullscan=true", "set", NONE),
    Case("set-project-flag", "set odps.sql.type.system.odps2 = true", "set", NONE),
    Case("analyze", "ANALYZE TABLE dw.t COMPUTE STATISTICS", "analyze", NONE),
    Case("analyze-columns", "ANALYZE TABLE dw.t PARTITION (ds='1') COMPUTE STATISTICS FOR COLUMNS", "analyze", NONE),
    Case("desc", "DESC dw.t", "describe", NONE),
    Case("desc-extended-partition", "desc extended dw.t partition (ds='1')", "describe", NONE),
    Case("desc-project", "DESC PROJECT prj EXTENDED", "describe", NONE),
    Case("desc-instance", "DESC INSTANCE 20240101xxxx", "describe", NONE),
    Case("show-tables", "SHOW TABLES", "show", NONE),
    Case("show-partitions", "SHOW PARTITIONS dw.t", "show", NONE),
    Case("show-create-table", "SHOW CREATE TABLE dw.t", "show", NONE),
    Case("whoami", "WHOAMI", "whoami", NONE),
    Case("use", "USE other_project", "use", NONE),
    Case("explain", "EXPLAIN INSERT OVERWRITE TABLE dw.a SELECT * FROM dw.b", "explain", NONE),
    Case("grant", "GRANT SELECT ON TABLE dw.t TO USER RAM$alice@example.com", "privilege", NONE),
    Case("list-resources", "LIST RESOURCES", "admin_command", NONE),
    Case("refresh-table", "REFRESH TABLE dw.t", "cache", NONE),
]


@pytest.mark.parametrize("case", TABLE, ids=[c.id for c in TABLE])
def test_statement(case: Case) -> None:
    result = table_lineage(case.sql, default_project=PROJECT)
    assert result.errors == ()
    [statement] = result.statements
    assert (statement.statement, statement.effect) == (case.statement, case.effect)
    assert (result.reads, result.writes) == (case.reads, case.writes)
    assert (result.read_locations, result.written_locations) == (case.read_at, case.written_at)


def test_table_covers_every_kind_and_is_big_enough() -> None:
    assert len(TABLE) >= 60 and len({c.id for c in TABLE}) == len(TABLE)
    assert {k.name for k in KINDS} == {c.statement for c in TABLE}


def test_every_kind_names_its_effect_and_an_example() -> None:
    assert len({k.name for k in KINDS}) == len(KINDS)
    for kind in KINDS:
        assert kind.effect in (DATA, SCHEMA, NONE) and kind.example, kind.name


def test_a_script_of_the_kinds_that_used_to_be_unparsable() -> None:
    sql = """
    ADD JAR acme_udf.jar;
    ADD FILE conf.txt;
    ADD ARCHIVE dict.zip;
    MSCK REPAIR TABLE ods.ext;
    ALTER TABLE dw.fact EXCHANGE PARTITION (ds='1') WITH TABLE tmp.fact_stage;
    SELECT * FROM parquet.`oss://lake/x/`;
    """
    result = table_lineage(sql)
    assert result.errors == ()
    assert [s.kind for s in result.statements] == ["ddl", "ddl", "ddl", "ddl", "exchange", "select"]
    assert (result.reads, result.writes, result.read_locations) == (("tmp.fact_stage",), ("dw.fact",), ("oss://lake/x",))


def test_a_variable_in_an_exchanged_table_is_reported_not_guessed() -> None:
    result = table_lineage("ALTER TABLE dw.t EXCHANGE PARTITION (ds='1') WITH TABLE tmp.t_${suffix}")
    assert result.errors == ("statement 1: table name is a variable (${suffix})",)
    assert (result.reads, result.writes) == ((), ())


def test_unknown_statements_stay_unparsable() -> None:
    for sql in ("CLONE something weird", "UNLOAD everything", "LOAD FROM nowhere"):
        result = table_lineage(sql)
        assert len(result.errors) == 1 and result.statements == (), sql


@pytest.mark.parametrize("path, expected", [
    ("oss://oss-cn-hangzhou-internal.aliyuncs.com/Bucket/data/ds=20240101/", "location:oss://bucket/data"),
    ("oss://mybucket.oss-cn-beijing.aliyuncs.com/a/B/", "location:oss://mybucket/a/B"),
    ("oss://bucket", "location:oss://bucket"),
    ("/data/path", "location:hdfs:///data/path"),
    ("s3a://B/x//y/", "location:s3://b/x/y"),
    ("file:/tmp/x", "location:file:///tmp/x"),
    ("hdfs://nn:8020/warehouse/t/ds=1/hh=2", "location:hdfs://nn:8020/warehouse/t"),
])
def test_location_ids_are_canonical(path: str, expected: str) -> None:
    assert ids.location(path) == expected
    assert ids.label_of(expected) == "Location"


def test_a_local_path_is_on_the_client() -> None:
    assert ids.location("/tmp/x", local=True) == "location:file:///tmp/x"
    assert ids.location("  ") is None
