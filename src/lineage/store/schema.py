"""The parquet datasets the build writes, declared once: facts, pairs_texts, facts_extracted,
vertices, edges, changes.

Each :class:`Dataset` is a tuple of columns (name, Spark SQL type, nullable) in the order they
are written. The Spark DDL (``createDataFrame(rows, FACTS.ddl)``), the Spark ``StructType`` and
the pyarrow schema (the export tests' and benchmarks' writers) are all derived from it, so a
column added here reaches every writer and reader at once. Nullability is what Spark's fold
writes (``tests/test_schema.py`` checks the real build against these declarations).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType


@dataclass(frozen=True)
class Column:
    name: str
    type: str  # Spark SQL type: one of the keys of _ARROW / _SPARK below
    nullable: bool = True


@dataclass(frozen=True)
class Dataset:
    """One parquet dataset's columns, in order."""

    name: str
    columns: tuple[Column, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def ddl(self) -> str:
        """``"name type, ..."`` for ``spark.createDataFrame(rows, ddl)``."""
        return ", ".join(f"{c.name} {c.type}" for c in self.columns)

    def struct(self) -> "StructType":
        """The Spark ``StructType`` (with the nullability Spark writes)."""
        from pyspark.sql import types as T

        return T.StructType([T.StructField(c.name, _spark_type(c.type), c.nullable) for c in self.columns])

    def select_from(self, frame: "DataFrame") -> "DataFrame":
        """``frame``'s columns of this dataset, in order, with the declared nullability. A column
        declared NOT NULL is never null by construction, but Spark reads every parquet column back
        as nullable, so a frame folded from files written along the way (``graph.fold.Scratch``,
        the incremental build's) would write it nullable: its zero is never used."""
        from pyspark.sql import functions as F

        return frame.select(*[F.col(c.name) if c.nullable else F.coalesce(F.col(c.name), _zero(c.type)).alias(c.name)
                              for c in self.columns])

    def arrow(self) -> "pa.Schema":
        """The pyarrow schema of the parquet files Spark writes for this dataset."""
        import pyarrow as pa

        return pa.schema([pa.field(c.name, _arrow_type(c.type), nullable=c.nullable) for c in self.columns])


def _spark_type(kind: str) -> Any:
    from pyspark.sql import types as T

    table = {
        "string": T.StringType(), "int": T.IntegerType(), "bigint": T.LongType(), "boolean": T.BooleanType(),
        "timestamp": T.TimestampType(), "map<string,string>": T.MapType(T.StringType(), T.StringType(), True),
    }
    return table[kind]


def _zero(kind: str) -> Any:
    from pyspark.sql import functions as F

    if kind == "map<string,string>":
        return F.create_map().cast(kind)
    return F.lit({"string": "", "int": 0, "bigint": 0, "boolean": False}[kind]).cast(kind)


def _arrow_type(kind: str) -> Any:
    import pyarrow as pa

    table = {
        "string": pa.string(), "int": pa.int32(), "bigint": pa.int64(), "boolean": pa.bool_(),
        "timestamp": pa.timestamp("us", tz="UTC"),  # Spark writes UTC-adjusted microseconds
        "map<string,string>": pa.map_(pa.field("key", pa.string(), nullable=False), pa.field("value", pa.string())),
    }
    return table[kind]


def _columns(*spec: tuple[str, str] | tuple[str, str, bool]) -> tuple[Column, ...]:
    return tuple(Column(*item) for item in spec)


NOT_NULL = False

# one row per fact (lineage.facts.core.Fact is the same columns as a named tuple)
FACTS = Dataset("facts", _columns(
    ("event_id", "string"),
    ("source", "string"),
    ("kind", "string"),
    ("event_time", "timestamp"),
    ("actor", "string"),
    ("seq", "int"),
    ("op", "string"),
    ("src_id", "string"),
    ("src_label", "string"),
    ("relationship", "string"),
    ("dst_id", "string"),
    ("dst_label", "string"),
    ("qualifier", "string"),
    ("properties", "map<string,string>"),
    ("valid_until", "timestamp"),
    ("failed", "boolean"),
))

# each distinct text of the ``pairs`` facts once (they hold its key: lineage.facts.core.stored)
PAIRS_TEXTS = Dataset("pairs_texts", _columns(
    ("text", "string"),
    ("pairs", "string"),
))

# which events were extracted, by which mapping version (incremental builds)
EXTRACTED = Dataset("facts_extracted", _columns(
    ("source", "string"),
    ("event_id", "string"),
    ("version", "string", NOT_NULL),
    ("facts", "int", NOT_NULL),
    ("extracted_at", "timestamp", NOT_NULL),
))

VERTICES = Dataset("vertices", _columns(
    ("id", "string"),
    ("label", "string"),
    ("name", "string"),
    ("first_seen", "timestamp"),
    ("last_seen", "timestamp"),
    ("deleted_at", "timestamp"),
    ("event_count", "bigint", NOT_NULL),
    ("properties", "map<string,string>", NOT_NULL),
))

EDGES = Dataset("edges", _columns(
    ("src", "string"),
    ("dst", "string"),
    ("relationship", "string"),
    ("qualifier", "string"),
    ("src_label", "string"),
    ("dst_label", "string"),
    ("valid_from", "timestamp"),
    ("valid_to", "timestamp"),
    ("last_seen", "timestamp"),
    ("event_count", "bigint", NOT_NULL),
    ("closed_by", "string"),
    ("properties", "map<string,string>", NOT_NULL),
))

CHANGES = Dataset("changes", _columns(
    ("change_id", "string"),
    ("entity_id", "string"),
    ("entity_label", "string"),
    ("kind", "string"),
    ("time", "timestamp"),
    ("actor", "string"),
    ("event_id", "string"),
    ("source", "string"),
    ("properties", "map<string,string>"),
))

GRAPH = (VERTICES, EDGES, CHANGES)  # what `lineage build` writes under DIR/graph/
