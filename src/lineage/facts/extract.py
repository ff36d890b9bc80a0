"""Accepted event rows -> fact rows (pure; the build runs it in Spark executors).

The ingest kept each accepted record's JSON (``doc``); it is validated again here with the
same models, so a fact always comes from a fully understood event. An event whose mapping
raises yields one ``error`` fact with the reason: the build counts and lists those, it never
drops them silently. Each source names its fact table (``Source.mapping``); there is no list
of sources here.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING

from lineage.events import registry
from lineage.events.base import FactTable, Source
from lineage.facts import core
from lineage.store.schema import FACTS

if TYPE_CHECKING:
    from pathlib import Path

    import pyarrow as pa
    from pyspark.sql import DataFrame


def fact_table(source: Source) -> FactTable:
    """The source's event -> fact table: the module it names (imported here, so events never
    import facts), or the table object a run-time source holds."""
    if isinstance(source.mapping, str):
        return importlib.import_module(source.mapping)  # type: ignore[return-value]
    return source.mapping


def facts_of_event(source: str, kind: str, event_id: str, event_time: datetime | None, doc: str) -> list[core.Fact]:
    """All facts of one accepted event, or a single ``error`` fact saying why there are none."""
    try:
        event = registry.parse_record(json.loads(doc))
        return core.facts_of(event, event_id, fact_table(registry.source(event.source)))
    except Exception as exc:  # a mapping bug must not lose the event: report it per event
        reason = f"{type(exc).__name__}: {exc}"
        return [core.error_row(event_id, source, kind, event_time, reason)]


def by_script(events: "DataFrame") -> "DataFrame":
    """``events`` (rows with ``source``, ``event_id``, ``doc``) hash-partitioned by their SQL text
    (:attr:`Source.script`) and sorted by it, so that the events of one text are next to each other
    in one task. The SQL caches (``lru_cache`` per Python worker) then parse and analyse a text once
    per build: a daily script's runs spread over every worker were analysed again by each, and
    again whenever a day's distinct scripts outgrew a cache. Other events spread by their id: those
    without a text (Spark's ``xxhash64`` of a null is its seed, not null, so the 530,000 events of a
    10^6-event month that have none were once all in one task, 100 s against 15-23 s for the six
    others) and those whose text is one word, an operation's name rather than a script
    (MaxCompute's ``DATA_INGESTION``, ``READ_TABLE``). The partitions are a whole number of waves
    of tasks, one per core (7 on 2 cores left one core idle for the last)."""
    from pyspark.sql import functions as F

    paths = [(s.name, s.script) for s in registry.SOURCES if s.script]
    text = F.coalesce(*[F.when(F.col("source") == name, F.get_json_object("doc", path)) for name, path in paths],
                      F.lit(None).cast("string"))
    script = F.when(text.rlike(r"\s"), F.xxhash64(text))
    key = F.coalesce(script, F.xxhash64("source", "event_id"))
    cores = events.sparkSession.sparkContext.defaultParallelism
    partitions = -(-events.rdd.getNumPartitions() // cores) * cores
    return (events.withColumn("_script", key).repartition(partitions, "_script")
            .sortWithinPartitions("_script").drop("_script"))


def facts_frame(rows: "DataFrame", facts_of: Callable[[dict], Iterable[core.Fact]], analyses: "Path | None") -> "DataFrame":
    """The facts of ``rows`` (each row a dict to ``facts_of``), as the Python workers send them
    (:func:`core.stored`), a FACTS frame; ``analyses``: where the workers keep script analyses
    (``lineage.sql.memo``). Rows go to the workers and facts come back as Arrow batches
    (``mapInArrow``): pickled one by one into the JVM and checked field by field against the
    schema in Python, they cost 12% of a 300k-event extraction (46 s -> 41 s) for the same rows;
    pyarrow still refuses a value of the wrong type."""
    from lineage.sql import memo

    return rows.mapInArrow(memo.using(analyses, _arrow_task(facts_of)), FACTS.struct())


def _arrow_task(facts_of: Callable[[dict], Iterable[core.Fact]]) -> Callable[[Iterable["pa.RecordBatch"]], Iterator["pa.RecordBatch"]]:
    def task(batches: Iterable["pa.RecordBatch"]) -> Iterator["pa.RecordBatch"]:
        keys: dict[str, str] = {}  # the pairs texts this task sent: each once (core.stored)
        for batch in batches:
            yield fact_batch(list(core.stored((fact for row in _rows(batch) for fact in facts_of(row)), keys)))

    return task


def _rows(batch: "pa.RecordBatch") -> list[dict]:
    """The batch's rows as dicts, timestamps as naive UTC datetimes, as a Spark ``Row`` holds them
    (the process runs in UTC): a mapping compares them with the naive times Spark collects."""
    import pyarrow as pa

    columns = {}
    for field, column in zip(batch.schema, batch.columns):
        if pa.types.is_timestamp(field.type) and field.type.tz is not None:
            column = column.cast(pa.timestamp(field.type.unit))
        columns[field.name] = column.to_pylist()
    return [dict(zip(columns, values)) for values in zip(*columns.values())]


def fact_batch(facts: list[core.Fact]) -> "pa.RecordBatch":
    """``facts`` as one Arrow batch of the FACTS schema (naive times are UTC)."""
    import pyarrow as pa

    schema = FACTS.arrow()
    columns = list(zip(*facts)) if facts else [() for _ in schema]
    arrays = [pa.array([list(p.items()) for p in values] if field.name == "properties" else values, type=field.type)
              for field, values in zip(schema, columns)]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
