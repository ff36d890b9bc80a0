"""The one "valid as of an instant" rule, and its forms for plain values, numpy, Arrow and Spark.

**The rule**: a row is valid at instant ``t`` when its interval ``[start, end)`` contains ``t``:
``start`` is null or ``start <= t``, and ``end`` is null or ``end > t`` (a null bound is open).
Vertices use ``[first_seen, deleted_at)``, edges ``[valid_from, valid_to)`` (:data:`INTERVALS`).
Times are UTC; a naive time is taken as UTC. Without an instant (``None``) every row counts: the
whole history.

:func:`contains` is the definition. The other forms are derived from it, and a test holds them
equal on random intervals:

* :func:`micros` turns a timestamp column into int64 microseconds with the open bounds as
  sentinels (:data:`OPEN_START`, :data:`OPEN_END`), so the rule becomes the integer test
  :func:`valid_mask` ``(start <= t) & (t < end)`` — what the temporal traversals evaluate
  while walking, one comparison pair per edge;
* :func:`arrow_filter` keeps the rows of an Arrow table valid at an instant;
* :func:`spark_valid` is the Spark ``Column`` of the same test.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from lineage.events.times import parse_time

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from pyspark.sql import Column

VERTEX_INTERVAL = ("first_seen", "deleted_at")
EDGE_INTERVAL = ("valid_from", "valid_to")
INTERVALS = {"vertices": VERTEX_INTERVAL, "edges": EDGE_INTERVAL}
OPEN_START = -(2**63)
"""A null start as int64 microseconds: before every instant."""
OPEN_END = 2**63 - 1
"""A null end as int64 microseconds: after every instant."""
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def contains(start: Any, end: Any, moment: datetime) -> bool:
    """The rule: ``[start, end)`` contains ``moment``; a null bound is open, naive times are UTC."""
    first, last = _bound(start), _bound(end)
    return (first is None or first <= moment) and (last is None or last > moment)


def _bound(value: Any) -> datetime | None:
    """A bound as an aware datetime: the graph's rows hold them so already (no parsing: 163,000
    bounds of a hub table's ``show``); anything else is parsed."""
    return value if value is None or (type(value) is datetime and value.tzinfo is not None) else parse_time(value)


def instant(moment: datetime) -> int:
    """``moment`` as int64 microseconds since the epoch (UTC; naive means UTC), exactly."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    delta = aware - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def micros(column: "pa.ChunkedArray | pa.Array | None", length: int, *, start: bool) -> "np.ndarray":
    """A timestamp column as int64 microseconds, nulls (or an absent column) as the open bound.

    Finer units are rounded *up* to the microsecond: for an integer instant ``t`` (datetimes
    have microsecond resolution) ``x <= t`` iff ``ceil(x) <= t`` and ``x > t`` iff
    ``ceil(x) > t``, so the integer test is exactly the rule."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    fill = OPEN_START if start else OPEN_END
    if column is None or pa.types.is_null(column.type):
        return np.full(length, fill, dtype=np.int64)
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks() if column.num_chunks else pa.array([], column.type)
    unit = getattr(column.type, "unit", "us")
    ints = np.array(pc.fill_null(pc.cast(column, pa.int64()), 0).to_numpy(zero_copy_only=False), dtype=np.int64)
    if unit in ("s", "ms"):
        ints *= {"s": 1_000_000, "ms": 1000}[unit]
    elif unit == "ns":
        ints = -((-ints) // 1000)  # ceiling division
    if column.null_count:
        ints[column.is_null().to_numpy(zero_copy_only=False)] = fill
    return ints


def valid_mask(starts: "np.ndarray", ends: "np.ndarray", moment: "int | np.ndarray | None") -> "np.ndarray":
    """The rule on int64 microsecond arrays from :func:`micros` (``moment`` from :func:`instant`,
    one per row or one for all; None: every row)."""
    import numpy as np

    if moment is None:
        return np.ones(len(starts), dtype=bool)
    return (starts <= moment) & (moment < ends)


def arrow_filter(table: "pa.Table", interval: tuple[str, str], moment: datetime | None) -> "pa.Table":
    """The rows of ``table`` valid at ``moment`` (all of them when None); an absent or all-null
    bound column is open on that side."""
    if moment is None:
        return table
    columns = [table.column(name) if name in table.column_names else None for name in interval]
    t = instant(moment)
    keep = valid_mask(micros(columns[0], table.num_rows, start=True), micros(columns[1], table.num_rows, start=False), t)
    import pyarrow as pa

    return table.filter(pa.array(keep, pa.bool_()))


def spark_valid(interval: tuple[str, str], moment: "datetime | Column") -> "Column":
    """The rule as a Spark column: ``moment`` a datetime or a timestamp column."""
    from pyspark.sql import Column
    from pyspark.sql import functions as F

    t = moment if isinstance(moment, Column) else F.lit(moment).cast("timestamp")
    start, end = (F.col(name) for name in interval)
    return (start.isNull() | (start <= t)) & (end.isNull() | (end > t))


def spark_micros(column: "Column", *, start: bool) -> "Column":
    """A timestamp column as microseconds with the open-bound sentinels (the :func:`micros` of
    Spark), so joins test the rule as two long comparisons."""
    from pyspark.sql import functions as F

    return F.coalesce(F.unix_micros(column), F.lit(OPEN_START if start else OPEN_END).cast("long"))
