"""The daily SQL of a node, as DataWorks developers write it for MaxCompute, and what it truly
reads and writes (the ground truth: known from the template, never from parsing the SQL).

One template per kind (``model.SQL_KINDS``): the table says which function renders which kind.
Within a kind, a node has a *style* (``model.STYLES``: a MERGE or an UPDATE with a join instead of the
INSERT, dynamic partitions, a staging table swapped in by EXCHANGE PARTITION or CLONE TABLE, a
lake file read as ``parquet.`oss://...```, an UNLOAD to OSS) and a preamble and epilogue that
move no data or only change the schema (``ADD JAR``, ``MSCK REPAIR``, ``DESC``, ``ANALYZE``,
``ALTER TABLE ... ADD COLUMNS``): the statements real jobs run. ``model`` chooses them.
"""

from __future__ import annotations

from collections.abc import Callable

from lineage import ids
from lineage.generate.model import NodeSpec, Platform

BIZDATE = "'${bizdate}'"
HEADER = "--odps sql\n--********************************************************************--\n"
LAKE = ("fx_rates", "holiday_calendar", "geo_regions")
"""Reference datasets in the data lake that CTE jobs join as ``parquet.`oss://acme-lake/ref/<name>/```."""
LAKE_URI = "oss://oss-cn-hangzhou-internal.aliyuncs.com/acme-lake/ref/{name}/"
SPARK_URI = "oss://oss-cn-hangzhou-internal.aliyuncs.com/acme-lake/spark/{name}/"
"""A lake table a Spark job writes (``generate.openlineage``), joined back by MaxCompute jobs;
the truth's id is ``location:oss://acme-lake/spark/<name>``."""
EXPORT_URI = "oss://oss-cn-hangzhou-internal.aliyuncs.com/acme-export/{project}/{table}/ds=${{bizdate}}/"
"""Where an UNLOAD writes; the truth's id is ``location:oss://acme-export/<project>/<table>``."""
PREAMBLES = {
    "none": "", "add_jar": "ADD JAR acme_udf.jar;\n", "msck": "MSCK REPAIR TABLE {input};\n", "whoami": "WHOAMI;\n",
    "desc": "DESC {input};\n", "show": "SHOW PARTITIONS {input};\n", "use": "USE {project};\n",
}
"""``model.PREAMBLES`` -> the statements before the work (``{input}``: the first table read)."""
EPILOGUES = {
    "none": "", "analyze": "ANALYZE TABLE {target} COMPUTE STATISTICS;\n",
    "lifecycle": "ALTER TABLE {target} SET LIFECYCLE 365;\n",
    "add_columns": "ALTER TABLE {target} ADD COLUMNS IF NOT EXISTS (etl_batch STRING);\n",
}
"""``model.EPILOGUES`` -> the statements after the work."""


def style(node: NodeSpec) -> str:
    """The node's style within its kind (``model.STYLES``)."""
    return node.style


def lake_dataset(node: NodeSpec) -> str:
    return LAKE[node.node_id % len(LAKE)]


def _q(platform: Platform, index: int) -> str:
    return platform.table(index).qualified


def _joins(platform: Platform, inputs: tuple[int, ...], first: str = "t0", lake: tuple[str, ...] = ()) -> str:
    """``a t0 LEFT JOIN b t1 ON t0.id = t1.id AND t1.ds = ...``: the FROM clause over every input
    (and the Spark-written lake tables the node joins, ``lake``)."""
    parts = [f"{_q(platform, inputs[0])} {first}"]
    for n, index in enumerate(inputs[1:], start=1):
        parts.append(f"LEFT JOIN {_q(platform, index)} t{n} ON {first}.id = t{n}.id AND t{n}.ds = {BIZDATE}")
    for n, name in enumerate(lake):
        parts.append(f"LEFT JOIN parquet.`{SPARK_URI.format(name=name)}` sp{n} ON {first}.id = sp{n}.id")
    return "\n  ".join(parts)


def _columns(inputs: tuple[int, ...]) -> str:
    cols = ["t0.id", "t0.gmt_modified"]
    cols += [f"t{n}.amount AS amount_{n}" for n in range(1, len(inputs))]
    return ", ".join(cols)


def _target(platform: Platform, node: NodeSpec, which: int = 0) -> str:
    return _q(platform, node.targets[which])


def _insert(platform: Platform, node: NodeSpec) -> str:
    target, how = _target(platform, node), style(node)
    query = f"SELECT {_columns(node.inputs)}\nFROM {_joins(platform, node.inputs, lake=node.lake_reads)}\nWHERE t0.ds = {BIZDATE}"
    if how == "merge":
        work = (f"MERGE INTO {target} t USING (\n{query}\n) s\nON t.id = s.id AND t.ds = {BIZDATE}\n"
                f"WHEN MATCHED THEN UPDATE SET t.gmt_modified = s.gmt_modified\n"
                f"WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.gmt_modified, {BIZDATE});\n")
    elif how == "update_join":
        work = (f"UPDATE {target} t SET gmt_modified = s.gmt_modified\nFROM (\n{query}\n) s\n"
                f"WHERE t.id = s.id AND t.ds = {BIZDATE};\n")
    elif how == "dynamic":
        work = (f"INSERT OVERWRITE TABLE {target} PARTITION (ds)\n"
                f"SELECT {_columns(node.inputs)}, t0.ds\nFROM {_joins(platform, node.inputs, lake=node.lake_reads)}\nWHERE t0.ds = {BIZDATE};\n")
    else:
        work = f"INSERT OVERWRITE TABLE {target} PARTITION (ds={BIZDATE})\n{query};\n"
    if how == "unload":
        table = platform.table(node.targets[0])
        work += (f"UNLOAD FROM (SELECT * FROM {target} WHERE ds = {BIZDATE})\n"
                 f"INTO LOCATION '{EXPORT_URI.format(project=table.project, table=table.name)}'\nSTORED AS PARQUET;\n")
    return f"SET odps.sql.allow.fullscan=true;\n{work}"


def _cte(platform: Platform, node: NodeSpec) -> str:
    first, rest = node.inputs[0], node.inputs[1:]
    joined = "".join(f"\n  LEFT JOIN {_q(platform, i)} t{n} ON b.id = t{n}.id" for n, i in enumerate(rest, start=1))
    if style(node) == "lake":
        joined += f"\n  LEFT JOIN parquet.`{LAKE_URI.format(name=lake_dataset(node))}` ref ON b.id = ref.id"
    return (f"WITH base AS (\n  SELECT id, gmt_modified, amount FROM {_q(platform, first)} WHERE ds = {BIZDATE}\n),\n"
            f"enriched AS (\n  SELECT b.id, b.gmt_modified, SUM(b.amount) AS amount FROM base b{joined}\n"
            f"  GROUP BY b.id, b.gmt_modified\n)\n"
            f"INSERT OVERWRITE TABLE {_target(platform, node)} PARTITION (ds={BIZDATE})\n"
            f"SELECT id, gmt_modified, amount FROM enriched;\n")


def temp_table(platform: Platform, node: NodeSpec) -> str:
    return f"{platform.table(node.targets[0]).project}.{node.temp}"


def _ctas(platform: Platform, node: NodeSpec) -> str:
    temp, target, how = temp_table(platform, node), _target(platform, node), style(node)
    query = f"SELECT {_columns(node.inputs)}\nFROM {_joins(platform, node.inputs, lake=node.lake_reads)}\nWHERE t0.ds = {BIZDATE}"
    if how == "exchange":  # build the partition aside, then swap it in
        return (f"CREATE TABLE IF NOT EXISTS {temp} (id BIGINT, gmt_modified DATETIME, cnt BIGINT)\n"
                f"PARTITIONED BY (ds STRING) LIFECYCLE 1;\n"
                f"INSERT OVERWRITE TABLE {temp} PARTITION (ds={BIZDATE})\n"
                f"SELECT t0.id, t0.gmt_modified, COUNT(1) AS cnt\nFROM {_joins(platform, node.inputs, lake=node.lake_reads)}\n"
                f"WHERE t0.ds = {BIZDATE}\nGROUP BY t0.id, t0.gmt_modified;\n"
                f"ALTER TABLE {target} EXCHANGE PARTITION (ds={BIZDATE}) WITH TABLE {temp};\n")
    if how == "clone":
        return (f"DROP TABLE IF EXISTS {temp};\nCREATE TABLE {temp} LIFECYCLE 1 AS\n{query};\n"
                f"CLONE TABLE {temp} TO {target} IF EXISTS OVERWRITE;\n")
    return (f"DROP TABLE IF EXISTS {temp};\n"
            f"CREATE TABLE {temp} LIFECYCLE 1 AS\n{query};\n"
            f"INSERT OVERWRITE TABLE {target} PARTITION (ds={BIZDATE})\n"
            f"SELECT id, gmt_modified, COUNT(1) AS cnt FROM {temp} GROUP BY id, gmt_modified;\n")


def _multi(platform: Platform, node: NodeSpec) -> str:
    return (f"FROM (\n  SELECT {_columns(node.inputs)}\n  FROM {_joins(platform, node.inputs, lake=node.lake_reads)}\n"
            f"  WHERE t0.ds = {BIZDATE}\n) src\n"
            f"INSERT OVERWRITE TABLE {_target(platform, node, 0)} PARTITION (ds={BIZDATE})\n"
            f"  SELECT id, gmt_modified\n"
            f"INSERT OVERWRITE TABLE {_target(platform, node, 1)} PARTITION (ds={BIZDATE})\n"
            f"  SELECT id, COUNT(1) GROUP BY id;\n")


def _variable(platform: Platform, node: NodeSpec) -> str:
    project = platform.table(node.targets[0]).project
    return (f"INSERT OVERWRITE TABLE {project}.${{target_table}} PARTITION (ds={BIZDATE})\n"
            f"SELECT * FROM {_q(platform, node.inputs[0])} WHERE ds = {BIZDATE};\n")


TEMPLATES: dict[str, Callable[[Platform, NodeSpec], str]] = {
    "insert": _insert, "cte": _cte, "ctas": _ctas, "multi": _multi, "variable": _variable,
}
"""SQL kinds -> renderer. ``nosql`` nodes run MapReduce/Spark: no SQL text at all."""
LINEAGE_FROM = {"insert": "sql", "cte": "sql", "ctas": "sql", "multi": "sql", "variable": "none", "nosql": "audit"}
"""Where ``build`` can learn a kind's lineage: its SQL, its read/write audit events, or nowhere."""


def sql(platform: Platform, node: NodeSpec) -> str | None:
    render = TEMPLATES.get(node.kind)
    if not render or not node.inputs:
        return None
    if node.kind == "variable":
        return f"{HEADER}{render(platform, node)}"
    table = platform.table(node.targets[0])
    fill = {"input": _q(platform, node.inputs[0]), "target": table.qualified, "project": table.project}
    return (f"{HEADER}{PREAMBLES[node.preamble].format(**fill)}{render(platform, node)}"
            f"{EPILOGUES[node.epilogue].format(**fill)}")


def truth(platform: Platform, node: NodeSpec) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(tables and locations read, written) by one run of the node, as canonical ids."""
    reads = [platform.table(i).id for i in node.inputs]
    writes = [platform.table(i).id for i in node.targets]
    if node.kind == "ctas" and node.inputs:
        temp = ids.table_from_qualified(temp_table(platform, node), None)
        reads.append(temp)
        writes.append(temp)
    if node.kind == "insert" and node.inputs and style(node) == "unload":
        table = platform.table(node.targets[0])
        reads.append(table.id)  # the export reads what the job just wrote
        writes.append(f"location:oss://acme-export/{table.project}/{table.name}")
    reads += [f"location:oss://acme-lake/spark/{name}" for name in node.lake_reads]
    if node.kind == "cte" and node.inputs and style(node) == "lake":
        reads.append(f"location:oss://acme-lake/ref/{lake_dataset(node)}")
    return tuple(sorted(set(reads))), tuple(sorted(set(writes)))
