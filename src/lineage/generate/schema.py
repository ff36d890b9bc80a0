"""Every generated table's schema: typed columns and the partition column ``ds``.

A table's columns are a function of its name alone (a hash, not the plan's random generator:
adding schemas changes nothing else of the platform): the three every table has, then two to
five of ``EXTRAS``. Its writer's SQL (``generate.sqltext``) produces exactly these columns, in
this order, and the job that created it states them (``ddl``), as the events carry them.
"""

from __future__ import annotations

import zlib

from lineage import ids
from lineage.generate.model import TableSpec

BASE: tuple[tuple[str, str], ...] = (("id", "BIGINT"), ("gmt_modified", "DATETIME"), ("amount", "DOUBLE"))
"""The columns every table has, first."""
EXTRAS: tuple[tuple[str, str], ...] = (
    ("user_id", "BIGINT"), ("shop_id", "BIGINT"), ("sku_id", "BIGINT"), ("region", "STRING"),
    ("status", "STRING"), ("channel", "STRING"), ("city", "STRING"), ("category", "STRING"),
    ("price", "DECIMAL(18,2)"), ("quantity", "BIGINT"), ("discount", "DOUBLE"), ("pay_time", "DATETIME"),
)
"""Table-specific columns: each table has 2-5 of them, in this order."""
PARTITION = ("ds", "STRING")
ETL_BATCH = ("etl_batch", "STRING")
"""The column a script's ``ALTER TABLE ... ADD COLUMNS IF NOT EXISTS`` epilogue adds (``sqltext.EPILOGUES``)."""
NUMERIC = ("BIGINT", "DOUBLE", "DECIMAL(18,2)")


def columns(table: TableSpec) -> tuple[tuple[str, str], ...]:
    """(name, type) of the table's data columns, in order (``ds`` not included)."""
    return data_columns(table.name)


def data_columns(name: str) -> tuple[tuple[str, str], ...]:
    roll = zlib.crc32(f"schema:{name}".encode())
    count = 2 + roll % 4
    chosen = sorted(range(len(EXTRAS)), key=lambda i: zlib.crc32(f"{name}:{i}".encode()))[:count]
    return BASE + tuple(EXTRAS[i] for i in sorted(chosen))


def typed(cols: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{n} {t}" for n, t in cols)


def ddl(table: TableSpec) -> str:
    """The statement that created the table (the job ``CreateTable``'s CorrelationId names)."""
    return (f"CREATE TABLE IF NOT EXISTS {table.qualified} ({typed(columns(table))})\n"
            f"PARTITIONED BY ({PARTITION[0]} {PARTITION[1]}) LIFECYCLE 365;\n")


def column_id(table_id: str, name: str) -> str:
    return ids.column(table_id, name)


def ids_of(table: TableSpec) -> list[tuple[str, str]]:
    """(column id, type) of every column of the table as created, ``ds`` last."""
    return [(ids.column(table.id, n), t) for n, t in columns(table) + (PARTITION,)]
