"""The ingest job: paths -> rows (local or Spark) -> de-duplicated datasets in the warehouse.

Two ways to produce the rows, one way to store them. Small inputs are parsed in the driver
(no Python worker start-up); large ones are parsed by Spark tasks, one file per task, each
streaming its file so no file is ever loaded into the driver. Both call the same pure
``records.process_file``; de-duplication, classification, counting and writing are the same
Spark plan for both, so their outputs are identical.

Counts reconcile by construction: every row read is exactly one of accepted, quarantined,
duplicate or foreign (another product's record, e.g. an ActionTrail event of another cloud
service: counted per kind and skipped), and the summary is computed from those rows (and checked).

A run holds the warehouse's writer lock (:mod:`lineage.store.lock`) and stages its datasets and run
log, committed at once at the end (:mod:`lineage.store.commit`): killed at any point, the warehouse
holds all of the run or none of it, and re-running the same input finishes the work (what the
run had stored counts as duplicates; nothing is lost or stored twice).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from lineage.store.commit import Transaction
from lineage.events.base import PLAUSIBLE_AHEAD, PLAUSIBLE_SINCE
from lineage.ingest import records
from lineage.io.reader import DEFAULT_INCLUDE, DEFAULT_MAX_RECORD_BYTES, expand_paths
from lineage.store.lock import DEFAULT_WAIT, writer
from lineage.store.runs import RunReport, new_run_id
from lineage.settings import Settings, current
from lineage.store.testhooks import pause_point
from lineage.store.warehouse import Warehouse

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

PARSE_IN = ("auto", "local", "spark")
"""Where records are parsed: in the driver (local), in Spark tasks, or auto (by input size).
Not the analysis ``engine`` (the graph engine): ingest has no engine."""

EVENT_COLUMNS = (
    "event_id", "source", "kind", "known", "envelope", "event_time", "event_date", "actor",
    "doc", "payload", "repairs", "file", "line", "delivery", "run_id", "ingested_at",
)
QUARANTINE_COLUMNS = (
    "quarantine_key", "source", "file", "line", "delivery", "reason", "raw", "raw_bytes", "raw_truncated",
    "run_id", "ingested_at",
)
DUPLICATE_COLUMNS = ("source", "event_id", "kind", "file", "line", "why", "run_id", "ingested_at")


@dataclass
class Counts:
    read: int = 0
    accepted: int = 0
    quarantined: int = 0
    duplicates: int = 0
    foreign: int = 0
    unknown_kind: int = 0
    """Accepted records of a kind the mapping does not know (a part of ``accepted``)."""
    implausible_time: int = 0
    """Accepted records whose time is before 2000 or over a day after the ingest (a part of
    ``accepted``): a wrong unit or a wrong clock, stored as given (``events.base.implausible``)."""

    def add(self, other: "Counts") -> None:
        for name in (f.name for f in fields(self)):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def reconciles(self) -> bool:
        return self.read == self.accepted + self.quarantined + self.duplicates + self.foreign


@dataclass
class IngestResult(RunReport):
    """What one run did; ``as_obj`` is the ``ingest --json`` document and ``WAREHOUSE/runs/<run>.json``."""

    derived = ("engine", "reconciles")

    run_id: str
    warehouse: str
    parse_in: str
    files: int
    sources: dict[str, Counts]
    total: Counts
    empty_files: list[str] = field(default_factory=list)
    skipped_files: list[str] = field(default_factory=list)
    quarantine_examples: list[dict[str, object]] = field(default_factory=list)
    unknown_kinds: list[dict[str, object]] = field(default_factory=list)
    """Accepted kinds the mapping does not know: ``{source, kind, count, example_id}``, most first."""
    foreign_kinds: list[dict[str, object]] = field(default_factory=list)
    """Foreign records per ``{source, kind, count}`` (``service:Ecs``), most first."""
    quarantine_path: str = ""

    @property
    def understood(self) -> int:
        """Records recognised: accepted, already held, or recognisably another product's."""
        return self.total.accepted + self.total.duplicates + self.total.foreign

    @property
    def engine(self) -> str:
        """Deprecated name of ``parse_in``, kept in the JSON for existing readers."""
        return self.parse_in

    @property
    def reconciles(self) -> bool:
        return self.total.reconciles and all(c.reconciles for c in self.sources.values())


def ingest(
    paths: Iterable[str | os.PathLike[str]],
    warehouse: str | os.PathLike[str],
    *,
    spark: "SparkSession | None" = None,
    parse_in: str = "auto",
    include: tuple[str, ...] = DEFAULT_INCLUDE,
    exclude: tuple[str, ...] = (),
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    local_max_bytes: int | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    settings: Settings | None = None,
    wait: float = DEFAULT_WAIT,
    say: Callable[[str], None] | None = None,
) -> IngestResult:
    """Ingest files/directories into ``warehouse``; re-running on the same input adds nothing.
    ``local_max_bytes`` defaults to the ``LINEAGE_INGEST_LOCAL_MAX_BYTES`` setting; ``wait``:
    seconds to wait for another writer of the warehouse; ``say``: where lock messages go."""
    if parse_in not in PARSE_IN:
        raise ValueError(f"parse_in must be one of {', '.join(PARSE_IN)}, not {parse_in!r}")
    settings = settings or current()
    if local_max_bytes is None:
        local_max_bytes = settings.ingest_local_max_bytes
    wh = Warehouse.at(warehouse)
    scan = expand_paths(paths, include=include, exclude=exclude)
    total_bytes = sum(_size(path) for path in scan.files)
    use_local = parse_in == "local" or (parse_in == "auto" and total_bytes <= local_max_bytes)
    with writer(wh.root, "lineage ingest", wait, say):
        if spark is None:
            from lineage.spark import get_spark

            spark = get_spark("lineage-ingest", settings=settings)
        run_id = new_run_id()
        now = datetime.now(timezone.utc)

        problem_rows = [records.process(problem) for problem in scan.problems]
        if use_local:
            rows = list(problem_rows)
            for index, path in enumerate(scan.files, 1):
                if progress:
                    progress(index, len(scan.files), str(path))
                rows.extend(records.process_file(str(path), max_record_bytes))
                pause_point("ingest.file")
            frame = spark.createDataFrame(rows, records.DDL)
        else:
            context = spark.sparkContext
            names = [str(path) for path in scan.files]
            limit = max_record_bytes
            # one file per task: a partition is never more than one file, whatever the input's size
            rdd = context.parallelize(names, max(1, len(names))).flatMap(lambda name: records.process_file(name, limit))
            frame = spark.createDataFrame(rdd, records.DDL).unionByName(spark.createDataFrame(problem_rows, records.DDL))

        with Transaction(wh.root, "ingest") as txn:  # committed at the end of the block
            result = _store(spark, frame, wh, txn, run_id, now)
            result.parse_in = "local" if use_local else "spark"
            result.files = len(scan.files)
            result.skipped_files = scan.skipped
            result.log(txn.append(wh.runs))
        return result


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _store(spark: "SparkSession", frame: "DataFrame", wh: Warehouse, txn: Transaction, run_id: str,
           now: datetime) -> IngestResult:
    """Classify and count the rows; stage the new events, duplicates and quarantine in ``txn``."""
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    # the rows carry each event's document twice (doc, payload): kept on disk, not in the driver's
    # heap, so memory does not grow with the input (10^6 events held in memory crashed a 4 GiB driver)
    frame = frame.withColumn("run_id", F.lit(run_id)).withColumn("ingested_at", F.lit(now).cast("timestamp"))
    frame = frame.persist(StorageLevel.DISK_ONLY)

    # accepted rows: the first occurrence of an id in this run, unless an earlier run has it
    first = Window.partitionBy("source", "event_id").orderBy("file", "line", "delivery")
    accepted = frame.filter(F.col("status") == records.ACCEPTED).withColumn("_rank", F.row_number().over(first))
    if Warehouse.has_data(wh.events):
        seen = spark.read.parquet(str(wh.events)).select("source", "event_id").distinct().withColumn("_seen", F.lit(True))
        accepted = accepted.join(seen, ["source", "event_id"], "left")
    else:
        accepted = accepted.withColumn("_seen", F.lit(None).cast("boolean"))
    accepted = accepted.withColumn(
        "outcome",
        F.when(F.col("_seen").isNotNull(), F.lit("earlier-run"))
        .when(F.col("_rank") > 1, F.lit("same-run"))
        .otherwise(F.lit("new")),
    ).persist(StorageLevel.DISK_ONLY)

    quarantined = frame.filter(F.col("status") == records.QUARANTINED).withColumnRenamed("event_id", "quarantine_key")
    if Warehouse.has_data(wh.quarantine):
        known = spark.read.parquet(str(wh.quarantine)).select("quarantine_key").distinct().withColumn("_seen", F.lit(True))
        quarantined = quarantined.join(known, ["quarantine_key"], "left")
    else:
        quarantined = quarantined.withColumn("_seen", F.lit(None).cast("boolean"))
    quarantined = quarantined.persist(StorageLevel.MEMORY_AND_DISK)

    # the same rule as events.base.implausible, as a column (null times are not implausible)
    time = F.col("event_time")
    implausible = (time < F.lit(PLAUSIBLE_SINCE)) | (time > F.lit(now + PLAUSIBLE_AHEAD))
    sources: dict[str, Counts] = {}
    grouped = accepted.groupBy("source", "outcome", "known", F.coalesce(implausible, F.lit(False)).alias("implausible"))
    for row in grouped.count().collect():
        counts = sources.setdefault(row["source"], Counts())
        counts.read += row["count"]
        if row["outcome"] == "new":
            counts.accepted += row["count"]
            counts.unknown_kind += row["count"] if row["known"] is False else 0
            counts.implausible_time += row["count"] if row["implausible"] else 0
        else:
            counts.duplicates += row["count"]
    for row in quarantined.groupBy("source").count().collect():
        counts = sources.setdefault(row["source"], Counts())
        counts.read += row["count"]
        counts.quarantined += row["count"]
    foreign_rows = frame.filter(F.col("status") == records.FOREIGN).groupBy("source", "kind").count().collect()
    foreign = sorted(({"source": r["source"], "kind": r["kind"], "count": r["count"]} for r in foreign_rows),
                     key=lambda f: (-f["count"], f["source"], f["kind"]))
    for item in foreign:
        counts = sources.setdefault(item["source"], Counts())
        counts.read += item["count"]
        counts.foreign += item["count"]
    total = Counts()
    for counts in sources.values():
        total.add(counts)
    if not total.reconciles:  # cannot happen by construction; never report counts that do not add up
        raise RuntimeError(f"ingest counts do not reconcile: {total}")

    new_events = accepted.filter(F.col("outcome") == "new")
    if total.accepted:
        (new_events.select(*EVENT_COLUMNS).repartition("source", "event_date")
         .write.mode("append").partitionBy("source", "event_date").parquet(str(txn.append(wh.events))))
        pause_point("ingest.write")
    if total.duplicates:
        (accepted.filter(F.col("outcome") != "new").withColumnRenamed("outcome", "why")
         .select(*DUPLICATE_COLUMNS).coalesce(1).write.mode("append").parquet(str(txn.append(wh.duplicates))))
        pause_point("ingest.write")
    new_quarantine = quarantined.filter(F.col("_seen").isNull()).select(*QUARANTINE_COLUMNS)
    if total.quarantined:
        (new_quarantine.coalesce(1).write.mode("append").partitionBy("source")
         .parquet(str(txn.append(wh.quarantine))))
        pause_point("ingest.write")

    examples = [
        {"file": r["file"], "line": r["line"], "source": r["source"], "reason": r["reason"]}
        for r in quarantined.orderBy("file", "line").select("file", "line", "source", "reason").limit(10).collect()
    ]
    unknown = [
        {"source": r["source"], "kind": r["kind"], "count": r["count"], "example_id": r["example_id"]}
        for r in new_events.filter(F.col("known") == F.lit(False)).groupBy("source", "kind")
        .agg(F.count(F.lit(1)).alias("count"), F.min("event_id").alias("example_id"))
        .orderBy(F.desc("count"), "source", "kind").limit(20).collect()
    ]
    empty = [r["file"] for r in frame.filter(F.col("status") == records.EMPTY_FILE).select("file").orderBy("file").collect()]
    for cached in (accepted, quarantined, frame):
        cached.unpersist()

    return IngestResult(
        run_id=run_id, warehouse=str(wh.root), parse_in="", files=0,
        sources=dict(sorted(sources.items())), total=total, empty_files=empty,
        quarantine_examples=examples, unknown_kinds=unknown, foreign_kinds=foreign[:20],
        quarantine_path=str(wh.quarantine),
    )
