"""Select lists a generated job writes its target with, derived from the input tables' schemas,
each item carrying its column lineage: the column truth is known from the template, never from
parsing the SQL.

DESIGN.md's qualifiers: ``direct`` when an input's value flows into the output (identity,
transformation, aggregation), ``indirect`` when it only shapes it. JOIN, FILTER and GROUP BY
columns shape every output of the query their rows pass through (``wide``); a window's
PARTITION BY / ORDER BY and a CASE condition shape only their own item; a COALESCE/NVL argument
is both. Through a subquery or CTE a pair stays direct only if both steps are.
"""

from __future__ import annotations

from dataclasses import dataclass

from lineage import ids
from lineage.generate import schema
from lineage.generate.model import Platform

DIRECT, INDIRECT = "direct", "indirect"
Sources = frozenset[tuple[str, str]]
"""(column id, qualifier) pairs."""


@dataclass(frozen=True)
class Item:
    """One output column: its name, its select expression, and where its value comes from."""

    name: str
    sql: str
    sources: Sources


def shaping(columns: object) -> Sources:
    """Columns that only shape an output (indirect)."""
    return frozenset((c, INDIRECT) for c in columns)  # type: ignore[attr-defined]


def through(item_sources: Sources, qualifier: str) -> Sources:
    """Sources reached through an output used as ``qualifier``: indirect if either step is."""
    return item_sources if qualifier == DIRECT else shaping({c for c, _ in item_sources})


class Inputs:
    """The tables a node reads, as ``t0``, ``t1``, ... of its FROM clause."""

    def __init__(self, platform: Platform, inputs: tuple[int, ...]):
        self.tables = [platform.table(i) for i in inputs]
        self.names = [{n for n, _ in schema.columns(t)} for t in self.tables]

    def __len__(self) -> int:
        return len(self.tables)

    def col(self, n: int, name: str) -> str:
        return ids.column(self.tables[n].id, name)

    def holder(self, name: str) -> int | None:
        """The first input having the column."""
        return next((n for n, names in enumerate(self.names) if name in names), None)

    def one(self, n: int, name: str, qualifier: str = DIRECT) -> Sources:
        return frozenset({(self.col(n, name), qualifier)})


def flat(inputs: Inputs, name: str, kind: str) -> Item:
    """An output of ``SELECT ... FROM t0 LEFT JOIN t1 ...`` (one row per row of ``t0``)."""
    c = inputs.one
    if name == "amount" and len(inputs) > 1:
        return Item(name, "t0.amount + COALESCE(t1.amount, 0) AS amount",
                    c(0, "amount") | c(1, "amount") | c(1, "amount", INDIRECT))
    held = inputs.holder(name)
    if held == 0:
        return Item(name, f"t0.{name}", c(0, name))
    if held is not None and kind == "STRING":
        return Item(name, f"NVL(t{held}.{name}, 'unknown') AS {name}", c(held, name) | c(held, name, INDIRECT))
    if held is not None:
        return Item(name, f"t{held}.{name} AS {name}", c(held, name))
    derived = {  # no input has it: computed from t0's own columns
        "STRING": (f"CASE WHEN t0.amount > 100 THEN 'high' ELSE 'low' END AS {name}", c(0, "amount", INDIRECT)),
        "BIGINT": (f"ROW_NUMBER() OVER (PARTITION BY t0.id ORDER BY t0.gmt_modified DESC) AS {name}",
                   c(0, "id", INDIRECT) | c(0, "gmt_modified", INDIRECT)),
        "DATETIME": (f"t0.gmt_modified AS {name}", c(0, "gmt_modified")),
    }
    text, sources = derived.get(kind, (f"ROUND(t0.amount * 0.9, 2) AS {name}", c(0, "amount")))
    return Item(name, text, sources)


def flat_wide(inputs: Inputs, lake: tuple[str, ...] = ()) -> Sources:
    """``WHERE t0.ds = ...`` and each ``LEFT JOIN ti ON t0.id = ti.id AND ti.ds = ...``."""
    cols = {inputs.col(0, "ds")}
    if len(inputs) > 1 or lake:
        cols.add(inputs.col(0, "id"))
    for n in range(1, len(inputs)):
        cols |= {inputs.col(n, "id"), inputs.col(n, "ds")}
    return shaping(cols)


def grouped(inputs: Inputs, name: str, kind: str, rate: str = "") -> tuple[Item, bool]:
    """An output of the CTE job's ``enriched``: ``base b`` (t0 deduplicated) joined to t1.., grouped
    by ``b.id`` and t0's own extra columns; (item, whether it is a GROUP BY key)."""
    c = inputs.one
    fixed = {"id": (Item("id", "b.id", c(0, "id")), True),
             "gmt_modified": (Item(name, "MAX(b.gmt_modified) AS gmt_modified", c(0, "gmt_modified")), False),
             "amount": (Item(name, f"SUM(b.amount{rate}) AS amount", c(0, "amount")), False)}
    if name in fixed:
        return fixed[name]
    held = inputs.holder(name)
    if held == 0:
        return Item(name, f"b.{name}", c(0, name)), True
    if held is not None:
        agg = "MAX" if kind in ("STRING", "DATETIME") else "SUM"
        return Item(name, f"{agg}(t{held}.{name}) AS {name}", c(held, name)), False
    derived = {
        "STRING": (f"CASE WHEN SUM(b.amount) > 1000 THEN 'big' ELSE 'small' END AS {name}", c(0, "amount", INDIRECT)),
        "BIGINT": (f"COUNT(b.id) AS {name}", c(0, "id")),
        "DATETIME": (f"MIN(b.gmt_modified) AS {name}", c(0, "gmt_modified")),
    }
    text, sources = derived.get(kind, (f"ROUND(AVG(b.amount), 2) AS {name}", c(0, "amount")))
    return Item(name, text, sources), False


def grouped_wide(inputs: Inputs, keys: list[Item]) -> Sources:
    """``base``'s ``WHERE ds = ...``, its ``rn = 1`` dedup (a window over id and gmt_modified), the
    joins on ``b.id = ti.id`` and the GROUP BY keys."""
    cols = {inputs.col(0, "ds"), inputs.col(0, "id"), inputs.col(0, "gmt_modified")}
    cols |= {inputs.col(n, "id") for n in range(1, len(inputs))}
    cols |= {c for key in keys for c, _ in key.sources}
    return shaping(cols)


def rollup(src: dict[str, Item], name: str, kind: str) -> tuple[Item, bool]:
    """An output of ``SELECT ... FROM (<flat>) src GROUP BY id, <string columns>``."""
    inner = src[name].sources
    if name == "id" or kind == "STRING":
        return Item(name, name, inner), True
    agg = "MAX" if kind == "DATETIME" else "SUM"
    return Item(name, f"{agg}({name}) AS {name}", inner), False


def pairs(target: str, items: list[Item], wide: Sources) -> set[tuple[str, str, str]]:
    """(source column, target column, qualifier) of items written into table ``target``."""
    out: set[tuple[str, str, str]] = set()
    for item in items:
        dst = ids.column(target, item.name)
        out.update((src, dst, q) for src, q in item.sources | wide)
    return out


def identity(source: str, target: str, names: list[str]) -> set[tuple[str, str, str]]:
    """Whole-table moves (``SELECT *``, EXCHANGE PARTITION, CLONE): each column into its namesake."""
    return {(ids.column(source, n), ids.column(target, n), DIRECT) for n in names}
