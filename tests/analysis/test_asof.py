"""The one as-of rule (``lineage.graph.asof.contains``) and its derived forms agree: numpy
microseconds (what the temporal traversals test while walking), Arrow filters (also on naive,
nanosecond and millisecond columns), the plain-row helpers of ``graph.api`` and the Spark column."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import numpy as np
import pyarrow as pa
import pytest

from lineage.graph import api
from lineage.graph.asof import EDGE_INTERVAL, VERTEX_INTERVAL, arrow_filter, contains, instant, micros, valid_mask

T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)


def random_rows(rng: random.Random, n: int = 400) -> list[tuple[datetime | None, datetime | None]]:
    def moment() -> datetime | None:
        return None if rng.random() < 0.25 else T0 + timedelta(seconds=rng.randint(0, 20), microseconds=rng.choice([0, 1, 999_999]))

    return [(moment(), moment()) for _ in range(n)]


MOMENTS = [T0 + timedelta(seconds=s, microseconds=us) for s in range(-1, 22) for us in (0, 1, 999_999)]


def test_numpy_and_arrow_forms_are_the_rule():
    rows = random_rows(random.Random(3))
    for unit, zone in (("us", "UTC"), ("us", None), ("ns", "UTC"), ("ms", None)):
        kind = pa.timestamp(unit, tz=zone)
        strip = (lambda v: v) if zone else (lambda v: v and v.replace(tzinfo=None))
        if unit == "ms":  # a millisecond column cannot hold our microseconds: round the rows
            rows = [tuple(v and v.replace(microsecond=v.microsecond // 1000 * 1000) for v in r) for r in rows]
        table = pa.table({"valid_from": pa.array([strip(r[0]) for r in rows], kind),
                          "valid_to": pa.array([strip(r[1]) for r in rows], kind), "k": list(range(len(rows)))})
        starts = micros(table.column("valid_from"), len(rows), start=True)
        ends = micros(table.column("valid_to"), len(rows), start=False)
        for moment in MOMENTS:
            expected = [i for i, (s, e) in enumerate(rows) if contains(s, e, moment)]
            assert np.flatnonzero(valid_mask(starts, ends, instant(moment))).tolist() == expected, (unit, moment)
            assert arrow_filter(table, EDGE_INTERVAL, moment).column("k").to_pylist() == expected, (unit, moment)
            edges = [{"valid_from": s, "valid_to": e} for s, e in rows]
            assert [i for i, row in enumerate(edges) if api.valid_at(row, moment)] == expected
            vertices = [{"first_seen": s, "deleted_at": e} for s, e in rows]
            assert [i for i, row in enumerate(vertices) if api.exists_at(row, moment)] == expected
    assert valid_mask(starts, ends, None).all()


def test_a_sub_microsecond_bound_is_rounded_the_rule_s_way():
    t = T0 + timedelta(microseconds=5)
    ns = pa.array([instant(t) * 1000 + 1, instant(t) * 1000 - 1, instant(t) * 1000], pa.int64()).cast(pa.timestamp("ns", tz="UTC"))
    # start 1 ns after t: not yet valid at t; start 1 ns before: valid; exactly t: valid
    assert valid_mask(micros(ns, 3, start=True), micros(None, 3, start=False), instant(t)).tolist() == [False, True, True]
    # end 1 ns after t: still valid at t; end 1 ns before or exactly at t: over
    assert valid_mask(micros(None, 3, start=True), micros(ns, 3, start=False), instant(t)).tolist() == [True, False, False]


@pytest.mark.spark
def test_the_spark_form_is_the_rule(spark):
    from pyspark.sql import functions as F

    from lineage.graph.asof import spark_micros, spark_valid

    rows = random_rows(random.Random(5), 200)
    frame = spark.createDataFrame([(i, s, e) for i, (s, e) in enumerate(rows)], "k int, first_seen timestamp, deleted_at timestamp")
    probes = MOMENTS[::4]
    checks = [F.array_sort(F.collect_list(F.when(spark_valid(VERTEX_INTERVAL, m), F.col("k")))).alias(f"m{i}")
              for i, m in enumerate(probes)]
    by_micros = [F.array_sort(F.collect_list(F.when(
        (spark_micros(F.col("first_seen"), start=True) <= F.lit(instant(m))) &
        (F.lit(instant(m)) < spark_micros(F.col("deleted_at"), start=False)), F.col("k")))).alias(f"u{i}")
        for i, m in enumerate(probes)]
    got = frame.agg(*checks, *by_micros).collect()[0]
    for i, moment in enumerate(probes):
        expected = [k for k, (s, e) in enumerate(rows) if contains(s, e, moment)]
        assert got[f"m{i}"] == expected == got[f"u{i}"], moment
