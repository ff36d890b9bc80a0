"""The facts cross from the build's Python workers to Spark as Arrow batches
(``lineage.facts.extract.facts_frame``): every field arrives as the mapping made it, naive times
read as UTC as Spark reads them, and a value of the wrong type is refused, not written as null."""

from __future__ import annotations

from datetime import datetime, timezone

import pyarrow as pa
import pytest

from lineage.facts.core import Fact
from lineage.facts.extract import _rows, fact_batch
from lineage.store.schema import FACTS


def _fact(**changes) -> Fact:
    fact = Fact(event_id="e1", source="maxcompute", kind="CreateTable", event_time=datetime(2026, 10, 1, 8, 30),
                actor="user:maxcompute:alice", seq=0, op="assert", src_id="table:maxcompute:p.t", src_label="Table",
                relationship=None, dst_id=None, dst_label=None, qualifier="", properties={"name": "t", "owner": "alice"},
                valid_until=None, failed=False)
    return fact._replace(**changes)


def test_a_batch_holds_every_field_of_every_fact():
    facts = [_fact(), _fact(seq=1, op="retract", relationship="HAS_COLUMN", dst_id="column:maxcompute:p.t.c",
                            dst_label="Column", properties={}, valid_until=datetime(2026, 10, 2, tzinfo=timezone.utc))]
    batch = fact_batch(facts)
    assert batch.schema == FACTS.arrow() and batch.num_rows == 2
    rows = batch.to_pylist()
    assert rows[0]["event_time"] == datetime(2026, 10, 1, 8, 30, tzinfo=timezone.utc)  # naive: UTC
    assert rows[1]["valid_until"] == datetime(2026, 10, 2, tzinfo=timezone.utc)
    assert dict(rows[0]["properties"]) == {"name": "t", "owner": "alice"} and rows[1]["properties"] == []
    assert [(r["seq"], r["op"], r["dst_id"], r["failed"]) for r in rows] == [
        (0, "assert", None, False), (1, "retract", "column:maxcompute:p.t.c", False)]
    assert fact_batch([]).num_rows == 0


def test_a_value_of_the_wrong_type_is_refused():
    with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError)):
        fact_batch([_fact(properties={"rows": 12})])  # properties are strings (core.clean_props)
    with pytest.raises((pa.ArrowInvalid, pa.ArrowTypeError)):
        fact_batch([_fact(seq="0")])


def test_rows_come_to_the_mapping_with_naive_utc_times_as_spark_rows_do():
    table = pa.table({"event_id": ["e1"], "event_time": pa.array([datetime(2026, 10, 1, 8, 30)], pa.timestamp("us", tz="UTC"))})
    assert _rows(table.to_batches()[0]) == [{"event_id": "e1", "event_time": datetime(2026, 10, 1, 8, 30)}]
