"""Column lineage resolved with the graph's schemas (issue 32): the build's step between extraction
and the fold.

Extraction sees one event at a time, so a finished SQL job whose column lineage needed the columns
of a table another job's DDL (or a DataHub schema event) stated is left partial, its Job naming
those tables (``column_lineage_unknown_tables``, :mod:`lineage.facts.maxcompute.columns`). Here
each such job is computed again with those tables' columns as of its time -- built from the
HAS_COLUMN facts of every source (assert/retract intervals, positions, partition flag) -- and the
result is stored as more facts of the job's event (its run's ``pairs`` fact -- extraction gives
such a job none, so each run has one; its Job's ``column_lineage``/``column_lineage_reason`` with a
later ``seq``, so they win), which the fold then folds like any other. Only the needed tables' schema rows reach the driver; the jobs are computed
on the executors, once per distinct SQL text and schema (``columns._columns_of``'s cache).

Which jobs: those of the new facts, and stored ones a new schema fact dated before them concerns
(a late DDL event). A job resolved again supersedes its earlier resolution: the fold reads only the
last round of an event's derived facts (:func:`current`), and an incremental build refolds what the
earlier round named (:func:`superseded`), so a FEEDS named by a positional INSERT's output names
while the target was unknown goes when the target's schema arrives late, as in a full build.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from lineage.events import registry
from lineage.facts import core
from lineage.facts.extract import by_script, facts_frame
from lineage.facts.maxcompute import actor_id, columns
from lineage.store.schema import FACTS

SEQ_BASE = 100_000
"""A resolution's facts are numbered ``round * SEQ_BASE + i``: after the event's own, and a later
build's after an earlier one's (the fold keeps the last value of a property by ``seq``)."""
_KEY = (datetime.min, "")  # before every fact: the sort key of a fact without a time
Versions = dict[str, tuple[list[tuple[datetime, str]], list[tuple[str, ...]]]]
"""``project.table`` -> (the (time, event id) of each change to its columns, its columns after it)."""


def _needing(facts: DataFrame) -> DataFrame:
    """(source, event_id, event_time, unknown: the tables, JSON) of the jobs whose column lineage
    needed unknown tables (their extraction status facts)."""
    unknown = F.col("properties")[columns.UNKNOWN_TABLES]
    return (facts.where((F.col("src_label") == "Job") & F.col("relationship").isNull() & ~F.col("failed")
                        & (F.col("seq") < SEQ_BASE) & unknown.isNotNull())
            .select("source", "event_id", "event_time", unknown.alias("unknown")))


def _tables_of(facts: DataFrame, jobs: DataFrame) -> DataFrame:
    """(source, event_id, src_id: a table) the ``jobs`` read or write (their READS/WRITES facts): any
    of them a resolution may ask for (the second ``*`` of a UNION is named only once the first is known)."""
    rows = facts.where((F.col("src_label") == "Job") & F.col("relationship").isin("READS", "WRITES")
                       & (F.col("dst_label") == "Table") & ~F.col("failed"))
    return rows.select("source", "event_id", F.col("dst_id").alias("src_id")).join(jobs, ["source", "event_id"], "left_semi")


def _schema_facts(facts: DataFrame) -> DataFrame:
    return facts.where((F.col("relationship") == "HAS_COLUMN") & F.col("op").isin("assert", "retract") & ~F.col("failed"))


def jobs_to_resolve(stored: DataFrame | None, new: DataFrame) -> DataFrame:
    """(source, event_id, unknown) of the new facts' jobs needing a schema, and of stored ones a table
    of which has a new HAS_COLUMN fact dated before them."""
    jobs = _needing(new).select("source", "event_id", "unknown")
    if stored is None:
        return jobs.distinct()
    late = _schema_facts(new).select("src_id", F.col("event_time").alias("_t"), F.col("event_id").alias("_e"))
    olds = _needing(stored)
    concerned = olds.join(_tables_of(stored, olds.select("source", "event_id")), ["source", "event_id"]).join(
        late, "src_id").where(
        (F.col("_t") < F.col("event_time")) | ((F.col("_t") == F.col("event_time")) & (F.col("_e") < F.col("event_id"))))
    return jobs.unionByName(concerned.select("source", "event_id", "unknown")).distinct()


def schema_versions(stored: Path | None, new: DataFrame, jobs: DataFrame) -> Versions:
    """Every version of the columns of the tables ``jobs`` read or write, from the HAS_COLUMN facts of
    the ``stored`` facts dataset and of the ``new`` facts. The stored ones are read in Arrow, the
    few rows of those tables only: a Spark join of every stored fact cost 18 s of a 10^6-event day
    build, the Arrow scan 3 s."""
    tables = {r["src_id"] for r in _tables_of(new, jobs).select("src_id").distinct().collect()}
    if stored is not None:  # a stored job a late schema concerns: its tables are in the stored facts
        tables |= _stored_tables(stored, {(r["source"], r["event_id"]) for r in jobs.select("source", "event_id").collect()})
    if not tables:
        return {}
    wanted = new.sparkSession.createDataFrame([(t,) for t in sorted(tables)], "src_id string")
    rows = [r.asDict() for r in _schema_facts(new).join(F.broadcast(wanted), "src_id").select(*_schema_row()).collect()]
    if stored is not None:
        rows += _stored_schema_rows(stored, tables)
    by_table: dict[str, list[Any]] = defaultdict(list)
    for row in rows:
        by_table[row["src_id"].split(":", 2)[2]].append(row)
    return {name: _versions(sorted(found, key=lambda r: (r["event_time"] or _KEY[0], r["event_id"], r["seq"])))
            for name, found in by_table.items()}


def _schema_row() -> list[Any]:
    """What :func:`_versions` reads of a HAS_COLUMN fact."""
    return ["src_id", "dst_id", "op", "event_time", "event_id", "seq",
            F.col("properties")["position"].alias("position"), F.col("properties")["partition"].alias("partition")]


def _arrow_facts(stored: Path, columns: list[str], where: Any) -> Any:
    import pyarrow.dataset as ds

    return ds.dataset(str(stored), format="parquet", partitioning="hive").to_table(columns=columns, filter=where)


def _stored_tables(stored: Path, jobs: set[tuple[str, str]]) -> set[str]:
    """The tables the stored facts say the ``jobs`` (source, event_id) read or write, as ``_tables_of``."""
    import pyarrow.compute as pc

    if not jobs:
        return set()
    where = ((pc.field("src_label") == "Job") & pc.field("relationship").isin(["READS", "WRITES"])
             & (pc.field("dst_label") == "Table") & ~pc.field("failed")
             & pc.field("event_id").isin(sorted({e for _s, e in jobs})))
    found = _arrow_facts(stored, ["source", "event_id", "dst_id"], where).to_pylist()
    return {r["dst_id"] for r in found if (r["source"], r["event_id"]) in jobs}


def _stored_schema_rows(stored: Path, tables: set[str]) -> list[dict[str, Any]]:
    """The stored HAS_COLUMN facts (``_schema_facts``) of ``tables``, as :func:`_schema_row` dicts (times
    naive UTC, as Spark collects them)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not tables:
        return []
    where = ((pc.field("relationship") == "HAS_COLUMN") & pc.field("op").isin(["assert", "retract"])
             & ~pc.field("failed") & pc.field("src_id").isin(sorted(tables)))
    found = _arrow_facts(stored, ["src_id", "dst_id", "op", "event_time", "event_id", "seq", "properties"], where)
    props = found.column("properties")
    return pa.table({
        "src_id": found.column("src_id"), "dst_id": found.column("dst_id"), "op": found.column("op"),
        "event_time": pc.cast(found.column("event_time"), pa.timestamp("us")), "event_id": found.column("event_id"),
        "seq": found.column("seq"),
        "position": pc.map_lookup(props, pa.scalar("position"), "first"),
        "partition": pc.map_lookup(props, pa.scalar("partition"), "first"),
    }).to_pylist()


def _versions(rows: list[Any]) -> tuple[list[tuple[datetime, str]], list[tuple[str, ...]]]:
    """A table's columns after each (time, event) that changed them: data columns by position (those
    without one, e.g. DataHub's added fields, after them in the order they came), partition columns last."""
    open_: dict[str, tuple[bool, float, int]] = {}
    keys: list[tuple[datetime, str]] = []
    states: list[tuple[str, ...]] = []
    for n, row in enumerate(rows):
        prefix = "column:" + row["src_id"].split(":", 1)[1] + "."
        column = row["dst_id"][len(prefix):] if row["dst_id"] else None
        if row["op"] == "retract":
            open_ = {} if column is None else {c: v for c, v in open_.items() if c != column}
        elif column:
            was = open_.get(column)
            position = float(row["position"]) if row["position"] else (was[1] if was else float("inf"))
            partition = row["partition"] == "true" if row["partition"] is not None else bool(was and was[0])
            open_[column] = (partition, position, was[2] if was else n)
        key = (row["event_time"] or _KEY[0], row["event_id"])
        state = tuple(sorted(open_, key=lambda c: open_[c]))
        if keys and keys[-1] == key:
            states[-1] = state
        else:
            keys.append(key)
            states.append(state)
    return keys, states


def as_of(versions: Versions, table: str, time: datetime | None, event_id: str) -> tuple[str, ...]:
    """The table's columns before the event (time, id): empty when none was known."""
    keys, states = versions.get(table, ([], []))
    i = bisect_left(keys, (time or _KEY[0], event_id))
    return states[i - 1] if i else ()


def resolve_event(row: Any, versions: Versions, round_: int) -> Iterator[core.Fact]:
    """The derived facts of one job's event (an events row): its ``pairs`` fact, then its status."""
    try:
        event = registry.parse_record(json.loads(row["doc"]))
        found = columns.resolved(event, lambda table: as_of(versions, table, row["event_time"], row["event_id"]),
                                 json.loads(row["unknown"]))
        if found is None:
            return
        feeds, status = found
    except Exception as exc:  # as extraction: a bug is an error fact, never a lost event
        yield core.error_row(row["event_id"], row["source"], row["kind"], row["event_time"], f"resolve: {exc!r}")
        return
    outs = [(core.PAIRS, "Job", None, None, o) for o in feeds] + [("observe", "Job", None, None, status)]
    for i, (op, src_label, rel, dst_label, out) in enumerate(outs):
        yield core.Fact(
            event_id=row["event_id"], source=row["source"], kind=row["kind"], event_time=event.event_time,
            actor=actor_id(event), seq=round_ * SEQ_BASE + i, op=op, src_id=out.src, src_label=src_label,
            relationship=rel, dst_id=out.dst, dst_label=dst_label, qualifier=out.qualifier,
            properties=core.clean_props(out.props), valid_until=None, failed=False)


def derived_facts(events_of: Callable[[DataFrame], DataFrame], stored: Path | None, new: DataFrame,
                  round_: int, analyses: Path | None = None) -> DataFrame | None:
    """The facts resolving the column lineage of the jobs that need the graph's schemas, as the Python
    workers send them (``core.stored``: ``column_feeds.apart`` splits off the texts; None: no job).
    ``events_of``: the stored events of (source, event_id) keys; ``stored``: the facts dataset (None:
    there are only the ``new`` facts); ``analyses``: where the scripts' analyses are kept across builds
    (``lineage.sql.memo``; None: not kept)."""
    spark = new.sparkSession
    jobs = jobs_to_resolve(None if stored is None else spark.read.parquet(str(stored)).select(*FACTS.names), new)
    jobs = jobs.localCheckpoint()  # read three times below, and its plan scans every stored fact
    if jobs.isEmpty():
        return None
    versions = spark.sparkContext.broadcast(schema_versions(stored, new, jobs))
    todo = by_script(events_of(jobs.select("source", "event_id")).join(jobs, ["source", "event_id"]))
    return facts_frame(todo, lambda r: resolve_event(r, versions.value, round_), analyses)


def _round() -> Column:
    return F.floor(F.col("seq") / SEQ_BASE)


def _last_rounds(facts: DataFrame) -> DataFrame:
    return facts.where(F.col("seq") >= SEQ_BASE).groupBy("event_id").agg(F.max(_round()).alias("_last"))


def current(facts: DataFrame) -> DataFrame:
    """``facts`` without the derived facts an event's later resolution superseded: what the fold reads.

    The superseded (event, round) pairs are few (a job resolved again after a late schema) and come
    to the driver, so the fold's plan over ``facts`` stays a scan and a filter: a union with an
    aggregate here, referenced by every step of the fold, made a 169-event build's driver need more
    than 700 MB of heap."""
    rounds = facts.where(F.col("seq") >= SEQ_BASE).select("event_id", _round().alias("_round")).distinct()
    last = rounds.groupBy("event_id").agg(F.max("_round").alias("_last"))
    gone = [(r["event_id"], int(r["_round"])) for r in
            rounds.join(last, "event_id").where(F.col("_round") < F.col("_last")).select("event_id", "_round").collect()]
    if not gone:
        return facts
    pairs = facts.sparkSession.createDataFrame(gone, "event_id string, _round long")
    return (facts.withColumn("_round", F.when(F.col("seq") >= SEQ_BASE, _round()))
            .join(F.broadcast(pairs), ["event_id", "_round"], "left_anti").drop("_round"))


def superseded(facts: DataFrame, new: DataFrame) -> DataFrame:
    """The stored derived facts a resolution among ``new`` superseded: what the incremental fold must
    refold although no current fact names it any more."""
    older = facts.where(F.col("seq") >= SEQ_BASE).join(_last_rounds(new), "event_id")
    return older.where(_round() < F.col("_last")).select(*facts.columns)
