"""One declaration of every dataset the build writes (lineage.store.schema): the real build's parquet
files, the fold's DataFrames and the Fact tuple all follow it."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from lineage.store import schema
from lineage.facts.core import Fact

WRITTEN = [
    (schema.VERTICES, "graph/vertices"),
    (schema.EDGES, "graph/edges"),
    (schema.CHANGES, "graph/changes"),
    (schema.EXTRACTED, "facts_extracted"),
    (schema.FACTS, "facts"),
    (schema.PAIRS_TEXTS, "pairs_texts"),
]


def test_the_fact_tuple_has_the_declared_columns():
    assert Fact._fields == schema.FACTS.names
    assert schema.FACTS.ddl.startswith("event_id string, source string, kind string, event_time timestamp")


def test_ddl_struct_and_arrow_come_from_the_same_columns(spark):
    for dataset in (*schema.GRAPH, schema.FACTS, schema.EXTRACTED, schema.PAIRS_TEXTS):
        struct = dataset.struct()
        assert tuple(struct.fieldNames()) == dataset.names == tuple(dataset.arrow().names)
        assert [f.nullable for f in struct.fields] == [f.nullable for f in dataset.arrow()]
        parsed = spark.createDataFrame([], dataset.ddl).schema  # Spark's reading of the DDL
        assert [(f.name, f.dataType) for f in parsed.fields] == [(f.name, f.dataType) for f in struct.fields]


@pytest.mark.parametrize(("dataset", "path"), WRITTEN, ids=[d.name for d, _ in WRITTEN])
def test_the_real_build_writes_the_declared_schema(demo_warehouse, spark, dataset, path):
    """The demo's build (Spark) wrote exactly these parquet schemas (facts: partitioned by source,
    which is a directory, not a column of the files)."""
    expected = dataset.arrow()
    real = ds.dataset(str(demo_warehouse / path), format="parquet").schema
    if dataset is schema.FACTS:
        expected = pa.schema([f for f in expected if f.name != "source"])
        real = pa.schema([f for f in real if f.name != "source"])
        # createDataFrame(rows, ddl) makes every column nullable
        assert all(f.nullable for f in real)
    assert real.equals(expected), f"{path}:\n{real}\nvs declared\n{expected}"
    frame = spark.read.parquet(str(demo_warehouse / path))
    names = list(dataset.names)
    if dataset is schema.FACTS:  # the partition column comes last when read back
        names = [n for n in names if n != "source"] + ["source"]
    assert [f.name for f in frame.schema.fields] == names
