"""Facts -> temporal graph, with Spark DataFrame operations only (nothing collected).

* **Edges** are folded per ``(src, relationship, dst, qualifier)`` in time order (ties broken by
  event id and fact sequence, so any input order gives the same result). An assert opens an
  interval unless one is open; a retract closes it; an expiry (``valid_until``) closes it at that
  time unless a later assert extends it. Each interval is one edge row ``valid_from/valid_to``.
  For ``LATEST_EXPIRY`` keys (a MaxCompute label grant) the latest assert's expiry replaces the
  earlier ones (shorter or none), instead of the latest end of all of them.
* **Vertices** are every id a fact names: first/last seen, event count, properties merged
  (latest value per key wins), ``deleted_at`` when the latest vertex retract is after the
  latest vertex assert.
* **Run statuses** (``STATUS_LABELS``: Job, Instance) are decided as a whole by the last status
  report, failed operations included (their other facts stay skipped): ``status`` (``failed``
  for a failed operation), ``status_time``, that report's ``error_code``/``error_message``/
  ``status_code`` (nothing stale from an earlier run), and ``status_changes``. Reports at the
  same instant are ordered by ``STATUS_RANK`` (later lifecycle stage wins), then event id.
* **Single-valued relationships** (``SINGLE_VALUED``: a node's owner, its baseline): a new far
  end closes the previous one's interval when it is asserted.
* **People** (:func:`person_names`, the one rule for a person's display name): every name an
  event gives a person (a ``name`` on a User vertex fact: DataWorks ``granteeName``,
  ``applicantName``, ``assigneeName``, owner names; MaxCompute ``UserName``; Dataphin
  ``userName``) and the key of every id that is itself a login (``KEY_IS_NAME``: MaxCompute
  accounts, DataHub corpusers), over the person's merged ids (``aliases``), is kept in
  ``properties.names`` (a JSON list, best first); ``name`` is the first: a login over an
  account spelling (``RAM$corp:dev``) over a numeric uid, then the most recently given. A merged vertex also keeps every id key and
  name in ``properties.aliases`` (a sorted JSON list) for the name resolver.
* **Run lineage** (:func:`run_lineage`): an edge fact that names a run (``properties.run``: an
  OpenLineage run's inputs, outputs and column lineage, reported by any of its events) holds only
  once that run's last status is ``RUN_DONE``, from its completion on; a failed run's never do.
* **Column FEEDS** of a job run's ``pairs`` fact (:mod:`lineage.graph.column_feeds`): folded per
  distinct pairs text, then per pair, to the rows one assert per pair would give (they never close).
* **FEEDS** is derived: a Job, Node or (completed) Instance that READS ``a`` and WRITES ``b`` while
  both edges are valid makes ``(a)-[:FEEDS]->(b)``; overlapping intervals of one table pair merge into one.
  Its ``via`` names definitions (a run's ``definition``: its OpenLineage job or DataWorks node); its
  runs are counted (``run_count``, ``first_run``, ``last_run``), not listed.
* **Changes** are the ``change`` facts, one record each.

Failed operations and mapping errors are skipped here (they stay in the facts dataset), except
that a failed run's status report decides its Job or Instance status.
"""

from __future__ import annotations

from pathlib import Path

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from lineage import ids
from lineage.facts.core import PAIRS
from lineage.graph import column_feeds
from lineage.graph.aliases import resolve_ids
from lineage.graph.column_feeds import VIA_LIMIT, recent_first as _desc
from lineage.render import progress
from lineage.store.schema import CHANGES, EDGES, VERTICES

FAR_FUTURE = "9999-12-31 00:00:00"

STATUS_LABELS = ("Job", "Instance")  # vertices whose status is their last reported one, failures included
STATUS_KEYS = ("status", "status_code", "error_code", "error_message")  # one report's values, taken together
STATUS_RANK: dict[str, int] = {  # same-instant reports: the later stage of a run wins (lower-case status)
    "not_run": 0, "submitted": 0, "start": 0,
    "waiting_time": 1, "waiting_resource": 1, "checking_condition": 1,
    "running": 2, "checking_quality": 3,
    "terminated": 4, "success": 4, "succeeded": 4, "complete": 4,
    "failure": 5, "failed": 5, "cancelled": 5,
}
CLEARED_BY = {"column_lineage": "column_lineage_reason"}
"""A property whose report clears another the report leaves out: a Job's column lineage resolved
complete at build time has no reason, and the partial one extraction gave must not stay beside it
(it did on 72,339 of a 10^6-event month's 92,532 complete jobs)."""
CLEARED = ""  # what a cleared property's latest value is while folding (facts never hold an empty value)
TIME_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'"  # status_time: the export's fixed-width UTC form (session is UTC)
FAILED = "failed"  # the status of a run whose report is a failed operation (MaxCompute errorCode / Failed)
UNKNOWN_RANK = 2  # a status word not in STATUS_RANK ranks with running
RUN_KEY = "run"  # an edge fact's property naming the run it is a report of (lineage.facts.openlineage)
RUN_DONE = ("complete",)  # a run whose last status is one of these (lower-case) holds its reported edges
FEEDS_VIA = ("Job", "Node", "Instance")  # what READS a and WRITES b makes (a)-[:FEEDS]->(b)
DEFINITION = "definition"
"""A run's READS/WRITES property naming the definition it is a run of (``lineage.facts.openlineage``:
the job; ``lineage.facts.maxcompute``: the DataWorks node that submitted the job): what a derived
FEEDS names in ``via``, and a ``pairs`` fact's column FEEDS (``column_feeds.runs``)."""

# (relationship, src label, dst label) -> the side that has one far end at a time: asserting a new
# one closes the previous (a DataWorks node has one ownerId and one baselineId; DataHub owners
# are many, added and removed explicitly, so OWNS of other labels is not here)
SINGLE_VALUED: dict[tuple[str, str, str], str] = {
    ("OWNS", "User", "Node"): "dst",
    ("IN_BASELINE", "Node", "Baseline"): "src",
}

# (relationship, qualifier) whose latest assert decides when its interval ends: a MaxCompute label
# grant is one authorization per user and object, so `GRANT LABEL ... WITH EXP 3` after a grant
# without expiry makes it end in 3 days (other grants add up: an approval's expiry never shortens
# a standing ACL grant of the same privilege)
LATEST_EXPIRY: frozenset[tuple[str, str]] = frozenset({("CAN_ACCESS", "label")})

LISTED: tuple[str, ...] = ("via", "transformations")
"""Column FEEDS properties that are JSON lists: an interval's value is the union over all its
asserts (``via`` most recent first, as a table FEEDS lists its jobs; ``transformations`` by name),
not the latest assert's alone -- two jobs feeding one column pair are both its ``via``."""

_ORDER = ("event_time", "event_id", "seq")
FACT_KEY = ("src_id", "relationship", "dst_id", "qualifier")  # an edge fact's key
EDGE_ROW_KEY = ("src", "relationship", "dst", "qualifier")  # the same key of a folded edge row (EDGES)


def _far() -> Column:
    return F.to_timestamp(F.lit(FAR_FUTURE))


def resolve_aliases(facts: DataFrame, aliases: DataFrame | None) -> DataFrame:
    """Replace every aliased id (src, dst, actor) by its canonical id (identity resolution)."""
    return resolve_ids(facts, ("src_id", "dst_id", "actor"), aliases)


def state_facts(facts: DataFrame, unique: bool = False) -> DataFrame:
    """Facts that change or show state: not failed, not mapping errors, each fact once (``unique``:
    ``facts`` are known to hold each (event id, sequence) once, :func:`unique_facts`)."""
    state = facts.where(~F.col("failed") & F.col("op").isin("assert", "retract", "observe", "change"))
    return state if unique else state.dropDuplicates(["event_id", "seq"])


def unique_facts(facts: DataFrame) -> bool:
    """Whether no (event id, sequence) comes twice in ``facts``. The store holds each fact once by
    construction (ingest keeps an event once per source, a build commits an event's facts with
    the record of their extraction), but two sources may deliver one event id; checked on these
    two columns, a narrow aggregate, it spares the fold's de-duplication by a shuffle of whole fact
    rows (30 s of a 10^6-event build)."""
    return facts.groupBy("event_id", "seq").count().where(F.col("count") > 1).isEmpty()


def latest_props(rows: DataFrame, key: list[str], cleared: bool = False) -> DataFrame:
    """Per key: a map of the latest value of every property (by time, event id, sequence); a
    property whose latest value is :data:`CLEARED` is left out (kept with ``cleared``: what a
    merge onto an earlier row must remove, :mod:`lineage.graph.merge`)."""
    exploded = rows.select(*key, *_ORDER, F.explode("properties").alias("pkey", "pvalue"))
    window = Window.partitionBy(*key, "pkey").orderBy(*[F.col(c).desc_nulls_last() for c in _ORDER])
    latest = exploded.withColumn("_rank", F.row_number().over(window)).where("_rank = 1")
    kept = F.collect_list(F.struct("pkey", "pvalue"))
    if not cleared:
        kept = F.filter(kept, lambda e: e["pvalue"] != CLEARED)
    return latest.groupBy(*key).agg(F.map_from_entries(F.array_sort(kept)).alias("properties"))


def _clearing(properties: Column) -> Column:
    """``properties`` with :data:`CLEARED_BY`'s cleared keys that a report of their lead key leaves out."""
    for lead, cleared in CLEARED_BY.items():
        properties = F.when(properties[lead].isNotNull() & properties[cleared].isNull(),
                            F.map_concat(properties, F.create_map(F.lit(cleared), F.lit(CLEARED)))).otherwise(properties)
    return properties


def status_reports(facts: DataFrame, unique: bool = False) -> DataFrame:
    """The status reports of ``STATUS_LABELS`` vertices, failed operations included (the only
    facts of a failed operation the fold reads): one row per fact, status ``failed`` if failed
    (``unique``: as :func:`state_facts` takes it)."""
    reports = facts.where(
        F.col("relationship").isNull() & F.col("op").isin("assert", "observe") & F.col("src_label").isin(*STATUS_LABELS)
        & F.col("properties")["status"].isNotNull()
    )
    if not unique:
        reports = reports.dropDuplicates(["event_id", "seq"])
    status = F.when(F.col("failed"), F.lit(FAILED)).otherwise(F.col("properties")["status"])
    rank = F.coalesce(_rank_of(F.lower(status)), F.lit(UNKNOWN_RANK))
    return reports.select(
        F.col("src_id").alias("id"), F.col("src_label").alias("label"), *_ORDER, "failed",
        status.alias("status"), rank.alias("rank"),
        *[F.col("properties")[key].alias(key) for key in STATUS_KEYS if key != "status"],
    )


def _rank_of(status: Column) -> Column:
    ranks = F.create_map(*[F.lit(x) for pair in sorted(STATUS_RANK.items()) for x in pair])
    return ranks[status]


def latest_status(reports: DataFrame) -> DataFrame:
    """Per vertex: the map of its last report's status keys, ``status_time``, ``status_changes``."""
    window = Window.partitionBy("id").orderBy(
        F.col("event_time").desc_nulls_last(), F.col("rank").desc(), F.col("event_id").desc(), F.col("seq").desc()
    )
    counts = reports.groupBy("id").agg(F.countDistinct("event_id").alias("_changes"))
    last = reports.withColumn("_n", F.row_number().over(window)).where("_n = 1").join(counts, "id")
    entries = [F.struct(F.lit(key).alias("k"), F.col(key).alias("v")) for key in STATUS_KEYS] + [
        F.struct(F.lit("status_time").alias("k"), F.date_format("event_time", TIME_FORMAT).alias("v")),
        F.struct(F.lit("status_changes").alias("k"), F.col("_changes").cast("string").alias("v")),
    ]
    present = F.filter(F.array(*entries), lambda e: e["v"].isNotNull() & (e["v"] != ""))
    return last.select("id", F.map_from_entries(F.array_sort(present)).alias("_status"))


def vertex_mentions(facts: DataFrame, reports: DataFrame | None = None,
                    pairs: tuple[DataFrame, DataFrame] | None = None) -> DataFrame:
    """One row per (id a fact names, fact): its label, time, vertex op and (cleared) properties;
    ``reports``, ``pairs``: as :func:`fold_vertices` takes them."""
    is_vertex_fact = F.col("relationship").isNull() & F.col("op").isin("assert", "retract", "observe")
    mentions = facts.select(
        F.col("src_id").alias("id"), F.col("src_label").alias("label"), *_ORDER,
        F.when(is_vertex_fact, F.col("op")).alias("vop"),
        F.when(is_vertex_fact & F.col("op").isin("assert", "observe"), _clearing(F.col("properties"))).alias("properties"),
    ).unionByName(
        facts.where(F.col("dst_id").isNotNull()).select(
            F.col("dst_id").alias("id"), F.col("dst_label").alias("label"), *_ORDER,
            F.lit(None).cast("string").alias("vop"), F.lit(None).cast("map<string,string>").alias("properties"),
        )
    )
    if reports is not None:  # a failed run is still seen (and counted) at its failure
        mentions = mentions.unionByName(
            reports.where(F.col("failed")).select(
                "id", "label", *_ORDER, F.lit(None).cast("string").alias("vop"),
                F.lit(None).cast("map<string,string>").alias("properties"),
            )
        )
    if pairs is not None:  # a run whose event names Columns otherwise: a mention per Column, counted once
        mentions = mentions.unionByName(pairs[0].select(
            "id", F.lit("Column").alias("label"), *_ORDER, F.lit(None).cast("string").alias("vop"),
            F.lit(None).cast("map<string,string>").alias("properties")))
    return mentions


def lifetimes(mentions: DataFrame) -> DataFrame:
    """Per id of :func:`vertex_mentions`: label, first and last seen, event count, and the latest
    vertex assert and retract (``_asserted``, ``_retracted``: what decides ``deleted_at``)."""
    return mentions.groupBy("id").agg(
        F.min("label").alias("label"),
        F.min("event_time").alias("first_seen"),
        F.max("event_time").alias("last_seen"),
        F.countDistinct("event_id").alias("event_count"),
        F.max(F.when(F.col("vop") == "assert", F.col("event_time"))).alias("_asserted"),
        F.max(F.when(F.col("vop") == "retract", F.col("event_time"))).alias("_retracted"),
    )


def deletion(asserted: Column, retracted: Column) -> Column:
    """``deleted_at``: the latest vertex retract, when no vertex assert came after it."""
    return F.when(retracted.isNotNull() & (asserted.isNull() | (retracted >= asserted)), retracted)


def vertex_name(properties: Column, vertex_id: Column) -> Column:
    """A vertex's ``name``: its ``name`` property, else the key of its id."""
    return F.coalesce(properties["name"], _key_of(vertex_id))


def fold_vertices(facts: DataFrame, reports: DataFrame | None = None,
                  pairs: tuple[DataFrame, DataFrame] | None = None) -> DataFrame:
    """Every id a fact names, with its lifetime, properties and deletion; ``reports`` (from
    :func:`status_reports`) decide the run status of ``STATUS_LABELS`` vertices; ``pairs``: the
    Columns job runs' column lineage names (``column_feeds.column_mentions``)."""
    mentions = vertex_mentions(facts, reports, pairs)
    base = lifetimes(mentions)
    if pairs is not None:  # the other runs, counted per distinct pairs text: their events are disjoint from the above
        counted = pairs[1].select("id", F.lit("Column").alias("label"), "first_seen", "last_seen",
                                  F.col("n").alias("event_count"), *[F.lit(None).cast("timestamp").alias(c) for c in ("_asserted", "_retracted")])
        base = base.unionByName(counted).groupBy("id").agg(
            F.min("label").alias("label"), F.min("first_seen").alias("first_seen"), F.max("last_seen").alias("last_seen"),
            F.sum("event_count").alias("event_count"), F.max("_asserted").alias("_asserted"), F.max("_retracted").alias("_retracted"))
    props = latest_props(mentions.where(F.col("properties").isNotNull()), ["id"])
    vertices = (
        base.join(props, "id", "left")
        .withColumn("properties", F.coalesce("properties", F.create_map().cast("map<string,string>")))
    )
    if reports is not None:
        vertices = vertices.join(latest_status(reports), "id", "left").withColumn(
            "properties",  # coalesce: the column stays non-null, as declared in lineage.store.schema
            F.coalesce(F.when(F.col("_status").isNotNull(), _with_status(F.col("properties"), F.col("_status"))),
                       F.col("properties")),
        )
    return (
        vertices.withColumn("deleted_at", deletion(F.col("_asserted"), F.col("_retracted")))
        .withColumn("name", vertex_name(F.col("properties"), F.col("id")))
        .select(*VERTICES.names)
    )


def _with_status(properties: Column, status: Column) -> Column:
    """``properties`` without any status key of an earlier report, plus the last report's."""
    kept = F.map_filter(properties, lambda k, _v: ~k.isin(*STATUS_KEYS))
    return F.map_from_entries(F.array_sort(F.map_entries(F.map_concat(kept, status))))


def _expand_wildcards(edges: DataFrame) -> DataFrame:
    """An edge retract without dst closes every (dst, qualifier) of that src and relationship."""
    concrete = edges.where(F.col("dst_id").isNotNull())
    wild = edges.where(F.col("dst_id").isNull()).drop("dst_id", "qualifier", "dst_label")
    targets = concrete.select("src_id", "relationship", "dst_id", "qualifier", "dst_label").distinct()
    expanded = wild.join(targets, ["src_id", "relationship"], "inner")
    return concrete.unionByName(expanded.select(*concrete.columns))


def _replaced(edges: DataFrame) -> DataFrame:
    """``SINGLE_VALUED`` relationships: each assert retracts, at its time, every other far end
    ever asserted for the same vertex (a node's new owner closes the previous owner's OWNS)."""
    out = edges.limit(0)
    for (rel, src_label, dst_label), side in SINGLE_VALUED.items():
        key, other = ("dst_id", "src_id") if side == "dst" else ("src_id", "dst_id")
        asserts = edges.where(
            (F.col("relationship") == rel) & (F.col("src_label") == src_label) & (F.col("dst_label") == dst_label)
            & (F.col("op") == "assert") & F.col(other).isNotNull()
        )
        ends = asserts.select(key, "qualifier", F.col(other).alias("_other")).distinct()
        retracts = (
            asserts.join(ends, [key, "qualifier"]).where(F.col("_other") != F.col(other))
            .withColumn(other, F.col("_other")).withColumn("op", F.lit("retract"))
            .withColumn("valid_until", F.lit(None).cast("timestamp"))
            .select(*edges.columns)
        )
        out = out.unionByName(retracts)
    return edges.unionByName(out)


def _is_latest_expiry() -> Column:
    return F.concat_ws("|", "relationship", "qualifier").isin(*sorted(f"{r}|{q}" for r, q in LATEST_EXPIRY))


class Scratch:
    """A folder where the full fold writes each frame that several of its branches read, and reads
    it back from: every step after it starts from a file scan. Persisted in Spark's cache instead
    (as they were), the frames sat inside one another's plans, and the driver re-planned and
    re-rendered that nest between stages: 80 s of the edges' 180 s at 10^6 events, and 90 s of a
    3,860-event build's 100 s, with no task running. The caller removes the folder."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.written = Path(folder), 0

    def __call__(self, frame: DataFrame, name: str = "") -> DataFrame:
        """``frame`` written to the next numbered subfolder (``NN`` or ``NN-name``) and read back."""
        self.written += 1
        step = "-".join(filter(None, (f"{self.written:02d}", name)))
        progress.update(f"folding, step {step}")  # a line each: where a long fold is
        path = str(self.folder / step)
        frame.write.mode("overwrite").parquet(path)
        return frame.sparkSession.read.schema(frame.schema).parquet(path)


def _kept(frame: DataFrame, scratch: Scratch | None) -> DataFrame:
    """``frame`` written once and read back (:class:`Scratch`) when it is read by several branches
    of the plan: otherwise each branch recomputes it and everything below."""
    return frame if scratch is None else scratch(frame)


def run_lineage(state: DataFrame, reports: DataFrame) -> DataFrame:
    """``state`` with each edge fact that names a run (``properties.run``) kept only when that run's
    last status report (:func:`status_reports`, ordered as for the status) is ``RUN_DONE``, at
    the later of its own time and the completion: any event of an OpenLineage run may name its
    datasets, and lineage exists once it completed; a FAIL or ABORT leaves none."""
    pending = F.col("relationship").isNotNull() & F.col("properties")[RUN_KEY].isNotNull()
    last = Window.partitionBy("id").orderBy(
        F.col("event_time").desc_nulls_last(), F.col("rank").desc(), F.col("event_id").desc(), F.col("seq").desc()
    )
    done = (
        reports.withColumn("_n", F.row_number().over(last)).where((F.col("_n") == 1) & F.lower("status").isin(*RUN_DONE))
        .select(F.col("id").alias("_run"), F.col("event_time").alias("_done"))
    )
    held = (
        state.where(pending).join(done, F.col("properties")[RUN_KEY] == F.col("_run"), "inner")
        .withColumn("event_time", F.greatest("event_time", "_done")).drop("_run", "_done")
    )
    return state.where(~pending).unionByName(held)


def fold_edges(facts: DataFrame, scratch: Scratch | None = None) -> DataFrame:
    """Assert/retract/expiry facts of each edge key -> one row per validity interval.
    ``scratch``: see :func:`_kept` (the edge facts feed three branches, the ordered ones two)."""
    edges = _kept(_expand_wildcards(
        _replaced(facts.where(F.col("relationship").isNotNull() & F.col("op").isin("assert", "retract")))
    ), scratch)
    ordered = Window.partitionBy(*FACT_KEY).orderBy(*_ORDER)
    is_retract = (F.col("op") == "retract").cast("int")
    latest = _is_latest_expiry()
    edges = edges.withColumn(
        "_grp", F.coalesce(F.sum(is_retract).over(ordered.rowsBetween(Window.unboundedPreceding, -1)), F.lit(0))
    ).withColumn("_end", F.when(F.col("op") == "assert", F.coalesce("valid_until", _far())))
    in_group = Window.partitionBy(*FACT_KEY, "_grp").orderBy(*_ORDER)
    before = in_group.rowsBetween(Window.unboundedPreceding, -1)
    prev_end = F.when(latest, F.last("_end", ignorenulls=True).over(before)).otherwise(F.max("_end").over(before))
    opens = (F.col("op") == "assert") & (prev_end.isNull() | (prev_end < F.col("event_time")))
    edges = edges.withColumn("_new", opens.cast("int")).withColumn(
        "_interval", F.sum("_new").over(in_group.rowsBetween(Window.unboundedPreceding, 0))
    )
    edges = _kept(edges.where(F.col("_interval") > 0), scratch)  # a retract with nothing open closes nothing
    interval_key = [*FACT_KEY, "_grp", "_interval"]
    asserted = F.col("op") == "assert"
    last_end = F.max_by("_end", F.when(asserted, F.struct(*_ORDER)))  # the latest assert's
    folded = edges.groupBy(*interval_key).agg(
        F.min("src_label").alias("src_label"),
        F.min("dst_label").alias("dst_label"),
        F.min(F.when(asserted, F.col("event_time"))).alias("valid_from"),
        F.when(F.max(latest.cast("int")) == 1, last_end).otherwise(F.max("_end")).alias("_max_end"),
        F.min(F.when(~asserted, F.col("event_time"))).alias("_retracted"),
        F.max("event_time").alias("last_seen"),
        F.countDistinct("event_id").alias("event_count"),
    )
    expiry = F.when(F.col("_max_end") < _far(), F.col("_max_end"))
    closed_by_retract = F.col("_retracted").isNotNull() & (expiry.isNull() | (F.col("_retracted") <= expiry))
    folded = (
        folded.withColumn("valid_to", F.when(closed_by_retract, F.col("_retracted")).otherwise(expiry))
        .withColumn("closed_by", F.when(closed_by_retract, "retract").when(expiry.isNotNull(), "expiry"))
        .withColumn("expires_at", expiry)
    )
    props = latest_props(edges.where(asserted), interval_key)
    listed = _listed_props(edges.where(asserted), interval_key)
    props = props.join(listed, interval_key, "left").withColumn("properties", F.when(
        F.col("_listed").isNull(), F.col("properties")
    ).otherwise(F.map_concat(F.map_filter("properties", lambda k, _v: ~k.isin(*LISTED)), F.col("_listed")))).drop("_listed")
    return (
        folded.join(props, interval_key, "left")
        .withColumn("properties", F.coalesce("properties", F.create_map().cast("map<string,string>")))
        .withColumnRenamed("src_id", "src")
        .withColumnRenamed("dst_id", "dst")
        .select(*EDGES.names)
    )


def _listed_props(asserts: DataFrame, key: list[str]) -> DataFrame:
    """Per key of a column FEEDS: the :data:`LISTED` properties as the union of its asserts' lists."""
    rows = asserts.where((F.col("relationship") == "FEEDS") & (F.col("src_label") == "Column"))
    items = rows.select(*key, "event_time", F.explode(F.map_filter("properties", lambda k, _v: k.isin(*LISTED)))
                        .alias("pkey", "pvalue"))
    items = items.select(*key, "pkey", F.when(F.col("pkey") == "via", F.col("event_time")).alias("last_seen"),
                         F.explode(F.from_json("pvalue", "array<string>")).alias("via"))
    each = items.groupBy(*key, "pkey", "via").agg(F.max("last_seen").alias("last_seen"))
    ordered = F.transform(F.array_sort(F.collect_list(F.struct("last_seen", "via")), lambda x, y: _desc(x, y)),
                          lambda s: s["via"])
    lists = each.groupBy(*key, "pkey").agg(F.to_json(F.slice(ordered, 1, VIA_LIMIT)).alias("pvalue"))
    return lists.groupBy(*key).agg(F.map_from_entries(F.collect_list(F.struct("pkey", "pvalue"))).alias("_listed"))


def merge_intervals(rows: DataFrame, key: list[str]) -> DataFrame:
    """Number overlapping/touching ``[valid_from, valid_to)`` intervals per key into sessions
    (``_session``); a null ``valid_to`` is open-ended, a null ``valid_from`` is the beginning."""
    ordered = Window.partitionBy(*key).orderBy(F.col("valid_from").asc_nulls_first(), "valid_to", "via")
    prev_end = F.max(F.coalesce("valid_to", _far())).over(ordered.rowsBetween(Window.unboundedPreceding, -1))
    starts = prev_end.isNull() | (prev_end < F.col("valid_from"))
    return rows.withColumn("_start", starts.cast("int")).withColumn(
        "_session", F.sum("_start").over(ordered.rowsBetween(Window.unboundedPreceding, 0))
    )


def is_run(src: Column) -> Column:
    """``lineage.ids.is_run`` on a Spark column: whether an id is a run (it happened once: an instance,
    a DAG run, a MaxCompute job run), not a definition (a node, an OpenLineage job)."""
    run = F.lit(False)
    for prefix in ids.RUN_PREFIXES:
        run = run | src.startswith(prefix)
    return run


def derive_feeds(edges: DataFrame) -> DataFrame:
    """(a)-[:FEEDS {via, via_count, run_count, first_run, last_run}]->(b) for every Job/Node/Instance
    reading a and writing b while both are valid (an Instance's READS/WRITES are a completed run's:
    :func:`run_lineage`). ``via`` names definitions, not runs (DESIGN.md "Definitions and runs"):
    a src's READS/WRITES ``definition`` property (an OpenLineage run's job, a MaxCompute job's
    DataWorks node), else the src itself (a node, a declared job, a job no node submitted), the
    :data:`VIA_LIMIT` most recently seen, each once; ``via_count`` how many. The runs among the
    srcs (:func:`is_run`) are counted, not listed: ``run_count``, and ``first_run``/``last_run``
    (the run that made the edge first, by its start, and last, by its last sight), so a daily job
    adds nothing to the edge but its count. ``event_count`` is the distinct srcs (runs and definitions)."""
    def side(rel: str, end: str, prefix: str) -> DataFrame:
        return edges.where((F.col("relationship") == rel) & F.col("src_label").isin(*FEEDS_VIA)).select(
            "src", F.col("src_label").alias(f"{prefix}_label"), F.col("properties")[DEFINITION].alias(f"{prefix}_def"),
            F.col("dst").alias(end), F.col("dst_label").alias(f"{end}_label"),
            F.col("valid_from").alias(f"{prefix}_from"), F.col("valid_to").alias(f"{prefix}_to"),
            F.col("last_seen").alias(f"{prefix}_seen"),
        )

    pairs = (
        side("READS", "a", "r").join(side("WRITES", "b", "w"), "src")  # a == b kept: the self-loop t->t (DESIGN.md)
        .select(
            "src", "a", "b", "a_label", "b_label",
            F.coalesce("r_def", "w_def", "src").alias("via"),
            is_run(F.col("src")).alias("_run"),
            F.greatest("r_from", "w_from").alias("valid_from"),
            F.least("r_to", "w_to").alias("valid_to"),
            F.greatest("r_seen", "w_seen").alias("last_seen"),
        )
        .where(F.col("valid_to").isNull() | F.col("valid_from").isNull() | (F.col("valid_to") > F.col("valid_from")))
    )
    sessions = merge_intervals(pairs, ["a", "b"])
    ordered = F.array_sort(F.collect_list(F.struct(F.col("last_seen"), F.col("via"))), lambda x, y: _desc(x, y))
    recent = F.slice(F.array_distinct(F.transform(ordered, lambda s: s["via"])), 1, VIA_LIMIT)  # each at its latest
    open_ended = F.max(F.col("valid_to").isNull().cast("int")) == 1
    run = F.col("_run")
    first = F.min(F.when(run, F.struct(F.col("valid_from").alias("t"), F.col("src").alias("id"))))
    last = F.max(F.when(run, F.struct(F.col("last_seen").alias("t"), F.col("src").alias("id"))))
    props = F.create_map(
        F.lit("via"), F.to_json("_via"), F.lit("via_count"), F.col("_via_count").cast("string"),
        F.lit("run_count"), F.col("_runs").cast("string"), F.lit("first_run"), F.col("_first"),
        F.lit("last_run"), F.col("_last"),
    )
    return (
        sessions.groupBy("a", "b", "_session")
        .agg(
            F.min("a_label").alias("src_label"),
            F.min("b_label").alias("dst_label"),
            F.min("valid_from").alias("valid_from"),
            F.when(open_ended, F.lit(None).cast("timestamp")).otherwise(F.max("valid_to")).alias("valid_to"),
            F.max("last_seen").alias("last_seen"),
            F.countDistinct("src").alias("event_count"),
            recent.alias("_via"),
            F.countDistinct("via").alias("_via_count"),
            F.countDistinct(F.when(run, F.col("src"))).alias("_runs"),
            first["id"].alias("_first"),
            last["id"].alias("_last"),
        )
        .select(
            F.col("a").alias("src"), F.col("b").alias("dst"), F.lit("FEEDS").alias("relationship"),
            F.lit("").alias("qualifier"), "src_label", "dst_label", "valid_from", "valid_to", "last_seen",
            "event_count", F.lit(None).cast("string").alias("closed_by"),
            F.map_filter(props, lambda _k, v: v.isNotNull()).alias("properties"),
        )
    )


def _key_of(vertex_id: Column) -> Column:
    return F.regexp_extract(vertex_id, r"^[^:]*:[^:]*:(.*)$", 1)


KEY_IS_NAME: dict[str, bool] = {"maxcompute": True, "datahub": True, "aliyun": False, "dataphin": False}
"""Per User id namespace: is the id's key a name the person goes by (a MaxCompute account, a
DataHub corpuser) or an internal number (an Aliyun UID, a Dataphin user id)."""
PERSON_ORDER = ("numeric", "account", "recency", "text")
"""How a person's names rank, best first: not a numeric uid, then not an account spelling
(``RAM$corp:dev``, ``ALIYUN$bob@x``: a login or display name reads better), then the most recently
given, then alphabetical (deterministic). ``name`` is the first; :func:`person_names` is the one
place it is decided."""
ACCOUNT_SPELLING = r"(?i)^(ram|aliyun)\$"


def _given_names(facts: DataFrame) -> DataFrame:
    """(id, text, time, given) of every name a fact gives a person: the ``name`` of a User vertex
    fact (as written), and the key of a User id whose namespace is ``KEY_IS_NAME`` (lower-cased)."""
    ok = ~F.col("failed") & F.col("op").isin("assert", "retract", "observe", "change")
    named = facts.where(
        ok & F.col("relationship").isNull() & (F.col("src_label") == "User") & F.col("op").isin("assert", "observe")
    ).select(F.col("src_id").alias("id"), F.trim(F.col("properties")["name"]).alias("text"),
             F.col("event_time").alias("time"), F.lit(True).alias("given"))
    keyed_ns = [ns for ns, is_name in sorted(KEY_IS_NAME.items()) if is_name]
    ends = facts.where(ok).select(F.explode(F.array(
        F.when(F.col("src_label") == "User", F.col("src_id")), F.when(F.col("dst_label") == "User", F.col("dst_id"))
    )).alias("id"), F.col("event_time").alias("time"))
    keyed = ends.where(F.split("id", ":")[1].isin(*keyed_ns)).select(
        "id", _key_of(F.col("id")).alias("text"), "time", F.lit(False).alias("given"))
    return named.unionByName(keyed).where(F.col("text").isNotNull() & (F.col("text") != ""))


def person_names(facts: DataFrame, aliases: DataFrame | None) -> DataFrame:
    """Per person (canonical id): ``_name``, the display name, and ``_names``, every name a fact
    gave any of their ids, best first by :data:`PERSON_ORDER`. One name per spelling ignoring
    case: as an event wrote it (``RAM$carol@x:sub``) over a lower-cased id key; its time is the
    latest any event gave it."""
    given = _given_names(facts)
    if aliases is not None:
        table = F.broadcast(aliases.select(F.col("alias").alias("_a"), F.col("canonical").alias("_c")))
        given = given.join(table, given["id"] == table["_a"], "left").withColumn(
            "id", F.coalesce("_c", "id")).drop("_a", "_c")
    spelled = given.groupBy("id", F.lower("text").alias("_lower")).agg(
        F.max_by("text", F.struct("given", "time", "text")).alias("text"), F.max("time").alias("time"))
    ranked = F.array_sort(F.collect_list(F.struct(
        F.col("text").rlike("^[0-9]+$").alias("numeric"),
        F.col("text").rlike(ACCOUNT_SPELLING).alias("account"),
        (-F.coalesce(F.col("time").cast("double"), F.lit(0.0))).alias("recency"),
        F.col("text").alias("text"))))
    return spelled.groupBy("id").agg(ranked.alias("_ranked")).select(
        "id", F.col("_ranked")[0]["text"].alias("_name"), F.to_json(F.transform("_ranked", lambda r: r["text"])).alias("_names"))


def name_people(vertices: DataFrame, names: DataFrame) -> DataFrame:
    """User vertices named by :func:`person_names` (``name``, ``properties.names``); others unchanged."""
    joined = vertices.join(names, "id", "left")
    is_person = (F.col("label") == "User") & F.col("_name").isNotNull()
    listed = F.map_from_arrays(F.array(F.lit("names")), F.array(F.col("_names")))
    return (
        joined.withColumn("name", F.when(is_person, F.col("_name")).otherwise(F.col("name")))
        .withColumn("properties", F.when(is_person, F.map_from_entries(F.array_sort(F.map_entries(F.map_concat(
            F.map_filter("properties", lambda k, _v: k != "names"), listed))))).otherwise(F.col("properties")))
        .select(*VERTICES.names)
    )


def name_merged(vertices: DataFrame, aliases: DataFrame | None) -> DataFrame:
    """Vertices that aliases merged into keep all their names as ``aliases`` (what the name
    resolver answers to): their own name and the key of their id and of every alias id. Their
    ``name`` without any name given (:func:`person_names` decides it otherwise) is the first by
    (numeric, length, text)."""
    if aliases is None:
        return vertices
    merged = aliases.groupBy(F.col("canonical").alias("id")).agg(F.collect_set("alias").alias("_aliases"))
    names = F.array_distinct(F.filter(
        F.concat(F.array(F.col("name"), _key_of(F.col("id"))), F.transform("_aliases", _key_of)),
        lambda n: n.isNotNull() & (n != ""),
    ))
    ranked = F.array_sort(F.transform(names, lambda n: F.struct(
        n.rlike("^[0-9]+$").alias("numeric"), F.length(n).alias("length"), n.alias("text"))))
    listed = F.map_from_arrays(F.array(F.lit("aliases")), F.array(F.to_json(F.array_sort(names))))
    kept = F.map_filter(F.col("properties"), lambda k, _v: k != "aliases")
    is_merged = F.col("_aliases").isNotNull()
    return (
        vertices.join(F.broadcast(merged), "id", "left")
        .withColumn("name", F.when(is_merged, ranked[0]["text"]).otherwise(F.col("name")))
        .withColumn("properties", F.coalesce(F.when(is_merged, F.map_from_entries(F.array_sort(F.map_entries(
            F.map_concat(kept, listed))))), F.col("properties")))
        .select(*VERTICES.names)
    )


def fold_changes(facts: DataFrame) -> DataFrame:
    """Change facts -> Change records (the inputs of blast radius and the report)."""
    changes = facts.where(F.col("op") == "change")
    return changes.select(
        F.sha2(F.concat_ws("|", "event_id", F.col("seq").cast("string")), 256).substr(1, 32).alias("change_id"),
        F.col("src_id").alias("entity_id"),
        F.col("src_label").alias("entity_label"),
        F.col("relationship").alias("kind"),
        F.col("event_time").alias("time"),
        "actor", "event_id", "source", "properties",
    ).select(*CHANGES.names)


def fold(facts: DataFrame, aliases: DataFrame | None = None, scratch: Scratch | None = None,
         feeds: bool = True, texts: DataFrame | None = None) -> tuple[DataFrame, DataFrame, DataFrame]:
    """All facts -> (vertices, edges, changes); ``feeds=False``: without the derived table FEEDS
    (the incremental build, :mod:`lineage.graph.incremental`, derives them from the merged edges);
    ``texts``: the texts of the ``pairs`` facts (``column_feeds``), needed when there are any.

    With ``scratch``, every frame that several branches read is written there once (:func:`_kept`):
    the alias-resolved facts (read by all three outputs), the de-duplicated state facts (by vertices
    and by every branch of the edge fold: recomputed, their shuffle ran ~90 times in one build's
    plan), the status reports and the run lineage (read by each branch of the edge fold: their
    shuffle ran 17 times at 10^6 events), the edge fold's intermediate frames and the folded edges
    (written, and joined to derive FEEDS). The outputs' columns then come back nullable: write them
    with ``Dataset.select_from`` (``lineage.store.schema``)."""
    state, reports, runs = _prepared(facts, aliases, scratch)
    lineage, column_edges, mentions = run_lineage(state, reports), None, None
    if not runs.isEmpty():  # the column steps (and their share of the plan) only when a job run states columns
        mixed, per_text = _per_text(runs, state, texts, scratch)
        asserted = _kept(column_feeds.asserted_keys(state), scratch)  # folded with the runs' pairs of the same keys
        lineage = lineage.unionByName(column_feeds.as_asserts(runs, per_text, asserted, aliases))
        column_edges = _kept(column_feeds.fold_feeds(per_text, aliases, skip=asserted), scratch)
        mentions = column_feeds.column_mentions(runs, per_text, mixed, aliases)
    edges = _kept(fold_edges(_kept(lineage, scratch), scratch), scratch)
    if column_edges is not None:
        edges = edges.unionByName(column_edges)
    if feeds:
        edges = edges.unionByName(derive_feeds(edges))
    return _vertices(facts, state, reports, mentions, aliases), edges, fold_changes(state)


def fold_vertices_of(facts: DataFrame, aliases: DataFrame | None = None, texts: DataFrame | None = None,
                     scratch: Scratch | None = None) -> DataFrame:
    """The vertices of :func:`fold` alone. The incremental build folds selections of facts for their
    vertices only; building the edge fold's plan as well (which Spark analyses as it is built) cost
    it 30-80 s per selection at 10^6 events, with no task running. ``scratch``: the frames its
    branches share written once, as :func:`fold` writes them."""
    state, reports, runs = _prepared(facts, aliases, scratch)
    mentions = None
    if not runs.isEmpty():
        mixed, per_text = _per_text(runs, state, texts, scratch)
        mentions = column_feeds.column_mentions(runs, per_text, mixed, aliases)
    return _vertices(facts, state, reports, mentions, aliases)


def fold_changes_of(facts: DataFrame, aliases: DataFrame | None = None) -> DataFrame:
    """The changes of :func:`fold` alone (a change is one fact's: nothing else is folded for it)."""
    return fold_changes(state_facts(resolve_aliases(facts.where(F.col("op") != PAIRS), aliases)))


def _prepared(facts: DataFrame, aliases: DataFrame | None, scratch: Scratch | None
              ) -> tuple[DataFrame, DataFrame, DataFrame]:
    """(state, reports, runs): what every output of the fold starts from (``PAIRS`` facts only as
    runs: their texts are folded by ``column_feeds``); the alias-resolved facts both read are kept."""
    resolved = _kept(resolve_aliases(facts.where(F.col("op") != PAIRS), aliases), scratch)
    unique = scratch is not None and unique_facts(resolved)  # read from the kept frame: two columns
    state = state_facts(resolved, unique)
    if not unique:  # a filter of the kept frame is as cheap to read again as a copy of it
        state = _kept(state, scratch)
    reports = _kept(status_reports(resolved.where(F.col("op") != "error"), unique), scratch)
    return state, reports, _kept(column_feeds.runs(facts), scratch)


def _per_text(runs: DataFrame, state: DataFrame, texts: DataFrame | None, scratch: Scratch | None
              ) -> tuple[DataFrame, DataFrame]:
    """(mixed, per_text) of the runs' pairs (``column_feeds``)."""
    if texts is None:
        raise ValueError("the facts hold pairs facts: fold them with their texts (column_feeds.apart)")
    mixed = _kept(column_feeds.mixed_events(runs, state), scratch)
    return mixed, _kept(column_feeds.by_text(runs, mixed, texts), scratch)


def _vertices(facts: DataFrame, state: DataFrame, reports: DataFrame, mentions: DataFrame | None,
              aliases: DataFrame | None) -> DataFrame:
    vertices = fold_vertices(state, reports, mentions)
    return name_people(name_merged(vertices, aliases), person_names(facts, aliases))
