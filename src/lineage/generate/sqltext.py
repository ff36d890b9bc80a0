"""The daily SQL of a node, as DataWorks developers write it for MaxCompute, and what it truly
reads and writes (the ground truth: known from the template, never from parsing the SQL).

One template per kind (``model.SQL_KINDS``): the table says which function renders which kind.
"""

from __future__ import annotations

from collections.abc import Callable

from lineage import ids
from lineage.generate.model import NodeSpec, Platform

BIZDATE = "'${bizdate}'"
HEADER = "--odps sql\n--********************************************************************--\n"


def _q(platform: Platform, index: int) -> str:
    return platform.table(index).qualified


def _joins(platform: Platform, inputs: tuple[int, ...], first: str = "t0") -> str:
    """``a t0 LEFT JOIN b t1 ON t0.id = t1.id AND t1.ds = ...``: the FROM clause over every input."""
    parts = [f"{_q(platform, inputs[0])} {first}"]
    for n, index in enumerate(inputs[1:], start=1):
        parts.append(f"LEFT JOIN {_q(platform, index)} t{n} ON {first}.id = t{n}.id AND t{n}.ds = {BIZDATE}")
    return "\n  ".join(parts)


def _columns(inputs: tuple[int, ...]) -> str:
    cols = ["t0.id", "t0.gmt_modified"]
    cols += [f"t{n}.amount AS amount_{n}" for n in range(1, len(inputs))]
    return ", ".join(cols)


def _target(platform: Platform, node: NodeSpec, which: int = 0) -> str:
    return _q(platform, node.targets[which])


def _insert(platform: Platform, node: NodeSpec) -> str:
    return (f"{HEADER}SET odps.sql.allow.fullscan=true;\n"
            f"INSERT OVERWRITE TABLE {_target(platform, node)} PARTITION (ds={BIZDATE})\n"
            f"SELECT {_columns(node.inputs)}\nFROM {_joins(platform, node.inputs)}\n"
            f"WHERE t0.ds = {BIZDATE};\n")


def _cte(platform: Platform, node: NodeSpec) -> str:
    first, rest = node.inputs[0], node.inputs[1:]
    joined = "".join(f"\n  LEFT JOIN {_q(platform, i)} t{n} ON b.id = t{n}.id" for n, i in enumerate(rest, start=1))
    return (f"{HEADER}WITH base AS (\n  SELECT id, gmt_modified, amount FROM {_q(platform, first)} WHERE ds = {BIZDATE}\n),\n"
            f"enriched AS (\n  SELECT b.id, b.gmt_modified, SUM(b.amount) AS amount FROM base b{joined}\n"
            f"  GROUP BY b.id, b.gmt_modified\n)\n"
            f"INSERT OVERWRITE TABLE {_target(platform, node)} PARTITION (ds={BIZDATE})\n"
            f"SELECT id, gmt_modified, amount FROM enriched;\n")


def temp_table(platform: Platform, node: NodeSpec) -> str:
    return f"{platform.table(node.targets[0]).project}.{node.temp}"


def _ctas(platform: Platform, node: NodeSpec) -> str:
    temp = temp_table(platform, node)
    return (f"{HEADER}DROP TABLE IF EXISTS {temp};\n"
            f"CREATE TABLE {temp} LIFECYCLE 1 AS\nSELECT {_columns(node.inputs)}\nFROM {_joins(platform, node.inputs)}\n"
            f"WHERE t0.ds = {BIZDATE};\n"
            f"INSERT OVERWRITE TABLE {_target(platform, node)} PARTITION (ds={BIZDATE})\n"
            f"SELECT id, gmt_modified, COUNT(1) AS cnt FROM {temp} GROUP BY id, gmt_modified;\n")


def _multi(platform: Platform, node: NodeSpec) -> str:
    return (f"{HEADER}FROM (\n  SELECT {_columns(node.inputs)}\n  FROM {_joins(platform, node.inputs)}\n"
            f"  WHERE t0.ds = {BIZDATE}\n) src\n"
            f"INSERT OVERWRITE TABLE {_target(platform, node, 0)} PARTITION (ds={BIZDATE})\n"
            f"  SELECT id, gmt_modified\n"
            f"INSERT OVERWRITE TABLE {_target(platform, node, 1)} PARTITION (ds={BIZDATE})\n"
            f"  SELECT id, COUNT(1) GROUP BY id;\n")


def _variable(platform: Platform, node: NodeSpec) -> str:
    project = platform.table(node.targets[0]).project
    return (f"{HEADER}INSERT OVERWRITE TABLE {project}.${{target_table}} PARTITION (ds={BIZDATE})\n"
            f"SELECT * FROM {_q(platform, node.inputs[0])} WHERE ds = {BIZDATE};\n")


TEMPLATES: dict[str, Callable[[Platform, NodeSpec], str]] = {
    "insert": _insert, "cte": _cte, "ctas": _ctas, "multi": _multi, "variable": _variable,
}
"""SQL kinds -> renderer. ``nosql`` nodes run MapReduce/Spark: no SQL text at all."""
LINEAGE_FROM = {"insert": "sql", "cte": "sql", "ctas": "sql", "multi": "sql", "variable": "none", "nosql": "audit"}
"""Where ``build`` can learn a kind's lineage: its SQL, its read/write audit events, or nowhere."""


def sql(platform: Platform, node: NodeSpec) -> str | None:
    render = TEMPLATES.get(node.kind)
    return render(platform, node) if render and node.inputs else None


def truth(platform: Platform, node: NodeSpec) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(tables read, tables written) by one run of the node, as canonical ids."""
    reads = [platform.table(i).id for i in node.inputs]
    writes = [platform.table(i).id for i in node.targets]
    if node.kind == "ctas" and node.inputs:
        temp = ids.table_from_qualified(temp_table(platform, node), None)
        reads.append(temp)
        writes.append(temp)
    return tuple(sorted(set(reads))), tuple(sorted(set(writes)))
