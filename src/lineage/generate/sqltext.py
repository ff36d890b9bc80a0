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
from dataclasses import dataclass

from lineage import ids
from lineage.generate import projection, schema
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


@dataclass(frozen=True)
class Script:
    """A node's daily SQL and what it truly does at column level (from the template):
    ``pairs`` (source column, target column, qualifier), ``made`` (table id, column, type) for the
    columns the script itself creates or adds (a staging table's, the ``etl_batch`` epilogue's)."""

    sql: str
    pairs: frozenset[tuple[str, str, str]] = frozenset()
    made: tuple[tuple[str, str, str], ...] = ()


def _target(platform: Platform, node: NodeSpec, which: int = 0) -> str:
    return _q(platform, node.targets[which])


def _flat(platform: Platform, node: NodeSpec, target: int) -> tuple[list[projection.Item], projection.Sources, str]:
    """The target's columns selected over the node's joined inputs: (items, wide, the query)."""
    inputs = projection.Inputs(platform, node.inputs)
    items = [projection.flat(inputs, n, k) for n, k in schema.columns(platform.table(target))]
    query = (f"SELECT {', '.join(i.sql for i in items)}\nFROM {_joins(platform, node.inputs, lake=node.lake_reads)}\n"
             f"WHERE t0.ds = {BIZDATE}")
    return items, projection.flat_wide(inputs, node.lake_reads), query


def _insert(platform: Platform, node: NodeSpec) -> Script:
    target, how, table = _target(platform, node), style(node), platform.table(node.targets[0])
    items, wide, query = _flat(platform, node, node.targets[0])
    names = [i.name for i in items]
    pairs = projection.pairs(table.id, items, wide)
    if how in ("merge", "update_join"):  # the target's own key and partition shape what they assign
        wide = wide | projection.shaping({ids.column(table.id, "id"), ids.column(table.id, "ds"),
                                          ids.column(platform.table(node.inputs[0]).id, "id")})
    if how == "merge":
        work = (f"MERGE INTO {target} t USING (\n{query}\n) s\nON t.id = s.id AND t.ds = {BIZDATE}\n"
                f"WHEN MATCHED THEN UPDATE SET {', '.join(f't.{n} = s.{n}' for n in names[1:])}\n"
                f"WHEN NOT MATCHED THEN INSERT ({', '.join(names)}, ds) "
                f"VALUES ({', '.join(f's.{n}' for n in names)}, {BIZDATE});\n")
        pairs = projection.pairs(table.id, items + [projection.Item("ds", BIZDATE, frozenset())], wide)
    elif how == "update_join":
        work = (f"UPDATE {target} t SET {', '.join(f'{n} = s.{n}' for n in names[1:])}\nFROM (\n{query}\n) s\n"
                f"WHERE t.id = s.id AND t.ds = {BIZDATE};\n")
        pairs = projection.pairs(table.id, items[1:], wide)
    elif how == "dynamic":
        work = (f"INSERT OVERWRITE TABLE {target} PARTITION (ds)\n"
                f"SELECT {', '.join(i.sql for i in items)}, t0.ds\n"
                f"FROM {_joins(platform, node.inputs, lake=node.lake_reads)}\nWHERE t0.ds = {BIZDATE};\n")
        first = projection.Inputs(platform, node.inputs[:1])
        pairs = projection.pairs(table.id, items + [projection.Item("ds", "t0.ds", first.one(0, "ds"))], wide)
    else:
        work = f"INSERT OVERWRITE TABLE {target} PARTITION (ds={BIZDATE})\n{query};\n"
    if how == "unload":
        work += (f"UNLOAD FROM (SELECT * FROM {target} WHERE ds = {BIZDATE})\n"
                 f"INTO LOCATION '{EXPORT_URI.format(project=table.project, table=table.name)}'\nSTORED AS PARQUET;\n")
    return Script(f"SET odps.sql.allow.fullscan=true;\n{work}", frozenset(pairs))


def _cte(platform: Platform, node: NodeSpec) -> Script:
    first, rest = node.inputs[0], node.inputs[1:]
    inputs = projection.Inputs(platform, node.inputs)
    lake = style(node) == "lake"
    table = platform.table(node.targets[0])
    made = [projection.grouped(inputs, n, k, " * ref.rate" if lake else "") for n, k in schema.columns(table)]
    items, keys = [item for item, _ in made], [item for item, key in made if key]
    own = [n for n in (i.name for i in keys) if n != "id"]  # t0's extra columns carried through base
    joined = "".join(f"\n  LEFT JOIN {_q(platform, i)} t{n} ON b.id = t{n}.id" for n, i in enumerate(rest, start=1))
    if lake:
        joined += f"\n  LEFT JOIN parquet.`{LAKE_URI.format(name=lake_dataset(node))}` ref ON b.id = ref.id"
    base = ", ".join(["id", "gmt_modified", "amount", *own])
    sql = (f"WITH base AS (\n  SELECT {base},\n    ROW_NUMBER() OVER (PARTITION BY id ORDER BY gmt_modified DESC) AS rn\n"
           f"  FROM {_q(platform, first)} WHERE ds = {BIZDATE}\n),\n"
           f"enriched AS (\n  SELECT {', '.join(i.sql for i in items)}\n  FROM base b{joined}\n"
           f"  WHERE b.rn = 1\n  GROUP BY {', '.join(i.sql for i in keys)}\n)\n"
           f"INSERT OVERWRITE TABLE {_target(platform, node)} PARTITION (ds={BIZDATE})\n"
           f"SELECT * FROM enriched;\n")
    return Script(sql, frozenset(projection.pairs(table.id, items, projection.grouped_wide(inputs, keys))))


def temp_table(platform: Platform, node: NodeSpec) -> str:
    return f"{platform.table(node.targets[0]).project}.{node.temp}"


def _ctas(platform: Platform, node: NodeSpec) -> Script:
    temp, target, how = temp_table(platform, node), _target(platform, node), style(node)
    table = platform.table(node.targets[0])
    temp_id = ids.table_from_qualified(temp, None)
    items, wide, query = _flat(platform, node, node.targets[0])
    names = [i.name for i in items]
    pairs = projection.pairs(temp_id, items, wide)
    cols = schema.columns(table)
    made = [(temp_id, n, k) for n, k in cols]
    if how == "exchange":  # build the partition aside, then swap it in
        sql = (f"CREATE TABLE IF NOT EXISTS {temp} ({schema.typed(cols)})\n"
               f"PARTITIONED BY (ds STRING) LIFECYCLE 1;\n"
               f"INSERT OVERWRITE TABLE {temp} PARTITION (ds={BIZDATE})\n{query};\n"
               f"ALTER TABLE {target} EXCHANGE PARTITION (ds={BIZDATE}) WITH TABLE {temp};\n")
        made.append((temp_id, *schema.PARTITION))
        return Script(sql, frozenset(pairs | projection.identity(temp_id, table.id, names + ["ds"])), tuple(made))
    if how == "clone":
        sql = (f"DROP TABLE IF EXISTS {temp};\nCREATE TABLE {temp} LIFECYCLE 1 AS\n{query};\n"
               f"CLONE TABLE {temp} TO {target} IF EXISTS OVERWRITE;\n")
    else:
        sql = (f"DROP TABLE IF EXISTS {temp};\n"
               f"CREATE TABLE {temp} LIFECYCLE 1 AS\n{query};\n"
               f"INSERT OVERWRITE TABLE {target} PARTITION (ds={BIZDATE})\n"
               f"SELECT * FROM {temp};\n")
    return Script(sql, frozenset(pairs | projection.identity(temp_id, table.id, names)), tuple(made))


def _multi(platform: Platform, node: NodeSpec) -> Script:
    """One scan, two targets: the first as selected, the second rolled up by id."""
    first, second = (platform.table(t) for t in node.targets[:2])
    inputs = projection.Inputs(platform, node.inputs)
    wanted = dict(schema.columns(first))
    wanted.update((n, k) for n, k in schema.columns(second) if n not in wanted)
    src = {n: projection.flat(inputs, n, k) for n, k in wanted.items()}
    wide = projection.flat_wide(inputs, node.lake_reads)
    rolled = [projection.rollup(src, n, k) for n, k in schema.columns(second)]
    keys = [item for item, key in rolled if key]
    firsts = [projection.Item(n, n, src[n].sources) for n, _ in schema.columns(first)]
    sql = (f"FROM (\n  SELECT {', '.join(i.sql for i in src.values())}\n"
           f"  FROM {_joins(platform, node.inputs, lake=node.lake_reads)}\n"
           f"  WHERE t0.ds = {BIZDATE}\n) src\n"
           f"INSERT OVERWRITE TABLE {first.qualified} PARTITION (ds={BIZDATE})\n"
           f"  SELECT {', '.join(i.sql for i in firsts)}\n"
           f"INSERT OVERWRITE TABLE {second.qualified} PARTITION (ds={BIZDATE})\n"
           f"  SELECT {', '.join(i.sql for i, _ in rolled)} GROUP BY {', '.join(k.sql for k in keys)};\n")
    grouping = wide | projection.shaping({c for k in keys for c, _ in k.sources})
    pairs = projection.pairs(first.id, firsts, wide) | projection.pairs(second.id, [i for i, _ in rolled], grouping)
    return Script(sql, frozenset(pairs))


def _variable(platform: Platform, node: NodeSpec) -> Script:
    project = platform.table(node.targets[0]).project
    return Script(f"INSERT OVERWRITE TABLE {project}.${{target_table}} PARTITION (ds={BIZDATE})\n"
                  f"SELECT * FROM {_q(platform, node.inputs[0])} WHERE ds = {BIZDATE};\n")


TEMPLATES: dict[str, Callable[[Platform, NodeSpec], Script]] = {
    "insert": _insert, "cte": _cte, "ctas": _ctas, "multi": _multi, "variable": _variable,
}
"""SQL kinds -> renderer. ``nosql`` nodes run MapReduce/Spark: no SQL text at all."""
LINEAGE_FROM = {"insert": "sql", "cte": "sql", "ctas": "sql", "multi": "sql", "variable": "none", "nosql": "audit"}
"""Where ``build`` can learn a kind's lineage: its SQL, its read/write audit events, or nowhere."""


def script(platform: Platform, node: NodeSpec) -> Script | None:
    """The node's script as of its current inputs (rendered once per inputs: a run renders it daily)."""
    render = TEMPLATES.get(node.kind)
    if not render or not node.inputs:
        return None
    key = (node.node_id, node.inputs, node.lake_reads)
    if key not in platform.scripts:
        platform.scripts[key] = _script(platform, node, render)
    return platform.scripts[key]


def _script(platform: Platform, node: NodeSpec, render: Callable[[Platform, NodeSpec], Script]) -> Script:
    done = render(platform, node)
    if node.kind == "variable":
        return Script(f"{HEADER}{done.sql}")  # a table name nobody can resolve: no column truth either
    table = platform.table(node.targets[0])
    fill = {"input": _q(platform, node.inputs[0]), "target": table.qualified, "project": table.project}
    made = done.made + (((table.id, *schema.ETL_BATCH),) if node.epilogue == "add_columns" else ())
    return Script(f"{HEADER}{PREAMBLES[node.preamble].format(**fill)}{done.sql}"
                  f"{EPILOGUES[node.epilogue].format(**fill)}", done.pairs, made)


def sql(platform: Platform, node: NodeSpec) -> str | None:
    found = script(platform, node)
    return found.sql if found else None


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
