"""Which DataWorks node ran a MaxCompute job: the build's step between extraction and the fold that
gives a node the tables its jobs read and write when the job's events do not name it (issue 67).

A node's READS/WRITES came only from SQL jobs carrying the optional ``SKYNET_ID`` setting, which
ActionTrail's job events (seed 002) do not document; a sync or other non-SQL job names its tables
in ``ReadTableData``/``ChangeTableData`` events, which carry no setting at all. So every node whose
jobs did not say, and every sync node, reached no table. Here each job is tied to its node by what
the events do carry, in this order (``linked_by``):

* ``settings``: any of the job's events names the node (``SKYNET_ID``): that node;
* ``window``: otherwise the DataWorks instance that ran it, by time. A scheduler starts an instance,
  the instance submits its job seconds later and ends seconds after the job does, so the instance
  is the one whose run (``beginRunningTime``/the RUNNING report to ``finishTime``/the last
  success/failure report) contains the job's (its InsertJob to its last status report, within
  :data:`SLACK`) most tightly: the least lead (instance start to job start) plus lag (job end to
  instance end). Linked only when the next candidate's lead plus lag is :data:`MARGIN` more: two
  instances framing a job alike leave it unlinked (an ad-hoc job, named by itself, as before).

A linked job's READS/WRITES facts are stated again for its node (``Node -[:READS|WRITES]->``, as a
SKYNET job's are) and again for the job with its ``definition`` (the node: a derived FEEDS names the
node in ``via``, not the run); its Job gets ``node``, ``linked_by`` and, when matched by window,
``dataworks_instance``. These derived facts are stored beside the extracted ones (negative ``seq``:
before the event's own, apart from resolution's rounds, :mod:`lineage.graph.resolve`), so the full
and the incremental fold read them like any other. A job is linked once its windows have settled:
when the facts seen reach :data:`SETTLE` past its end (a day's build links the last hour's jobs the
next day; the full build stops at the same place); each build looks back :data:`LOOKBACK` from its
earliest new fact, and states only what is not stored yet (idempotent).
"""

from __future__ import annotations

from datetime import timedelta

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql.window import Window

from lineage import ids
from lineage.store.schema import FACTS

SLACK = timedelta(seconds=5)  # clocks of two services: a job may seem to start a little before its instance
MARGIN = timedelta(seconds=30)  # the runner-up's lead + lag must exceed the best's by this much
SETTLE = timedelta(hours=1)  # a job is linked once the facts reach this far past its end
LOOKBACK = timedelta(days=2)  # a build links the jobs of its new facts' time and this much before
JOB_ENDS = ("terminated", "success", "succeeded", "failed", "cancelled")  # a job's last report (lower-case)
INSTANCE_ENDS = ("success", "failure")
RUNNING = "running"
LINKED_BY = "linked_by"
MIRRORED = ("READS", "WRITES")  # the job's relationships its node gets
DEFINITION = "definition"  # lineage.graph.fold.DEFINITION


def _seconds(t: Column) -> Column:
    return t.cast("double")


def job_windows(facts: DataFrame) -> DataFrame:
    """(job, start, end, skynet, first: the struct of its first fact's event) per Job of ``facts``."""
    status = F.lower(F.col("properties")["status"])
    rows = facts.where((F.col("src_label") == "Job") & F.col("relationship").isNull()
                       & F.col("op").isin("assert", "observe"))
    is_end = status.isin(*JOB_ENDS) | F.col("failed")
    first = F.struct("event_time", "event_id", "source", "kind", "actor")
    return rows.groupBy(F.col("src_id").alias("job")).agg(
        F.min("event_time").alias("start"),
        F.max(F.when(is_end, F.col("event_time"))).alias("end"),
        F.max(F.col("properties")["skynet_id"]).alias("skynet"),
        F.min(F.when(~F.col("failed"), first)).alias("first"),
    )


def instance_windows(facts: DataFrame) -> DataFrame:
    """(instance, node, start, end) per DataWorks Instance of ``facts`` whose run has both ends."""
    props = F.col("properties")
    rows = facts.where((F.col("src_label") == "Instance") & F.col("relationship").isNull()
                       & F.col("op").isin("assert", "observe") & ~F.col("failed"))
    status = F.lower(props["status"])
    windows = rows.groupBy(F.col("src_id").alias("instance")).agg(
        F.coalesce(F.min(F.to_timestamp(props["running_since"])),
                   F.min(F.when(status == RUNNING, F.col("event_time")))).alias("start"),
        F.coalesce(F.max(F.to_timestamp(props["finished_at"])),
                   F.max(F.when(status.isin(*INSTANCE_ENDS), F.col("event_time")))).alias("end"),
    ).where(F.col("start").isNotNull() & F.col("end").isNotNull())
    nodes = (facts.where((F.col("relationship") == "HAS_INSTANCE") & (F.col("src_label") == "Node")
                         & (F.col("dst_label") == "Instance") & (F.col("op") == "assert"))
             .groupBy(F.col("dst_id").alias("instance")).agg(F.max("src_id").alias("node")))
    return windows.join(nodes, "instance")


def links(jobs: DataFrame, instances: DataFrame, horizon: Column) -> DataFrame:
    """(job, node, dataworks_instance, linked_by) of every job :func:`job_windows` gives that can be
    tied to its node: by its settings, else by the instance framing it most tightly (module doc);
    ``horizon``: only jobs that ended before it are matched by window."""
    by_settings = jobs.where(F.col("skynet").isNotNull()).select(
        "job", F.concat(F.lit(ids.make("Node", "dataworks", "")), F.col("skynet")).alias("node"),
        F.lit(None).cast("string").alias("dataworks_instance"), F.lit("settings").alias(LINKED_BY))
    open_ = jobs.where(F.col("skynet").isNull() & F.col("start").isNotNull() & F.col("end").isNotNull()
                       & (F.col("end") <= horizon))
    # an instance is joined on each day it spans, a job on the day it starts: no cross join
    days = instances.withColumn("day", F.explode(F.sequence(F.to_date("start"), F.to_date("end"))))
    slack = SLACK.total_seconds()
    framed = (
        open_.withColumn("day", F.to_date("start")).alias("j")
        .join(days.alias("i"), "day")
        .where((_seconds(F.col("i.start")) - slack <= _seconds(F.col("j.start")))
               & (_seconds(F.col("i.end")) + slack >= _seconds(F.col("j.end"))))
        .select("job", "instance", "node",
                ((_seconds(F.col("j.start")) - _seconds(F.col("i.start")))
                 + (_seconds(F.col("i.end")) - _seconds(F.col("j.end")))).alias("_fit"))
    )
    ranked = Window.partitionBy("job").orderBy("_fit", "instance")
    by_window = (
        framed.withColumn("_n", F.row_number().over(ranked))
        .withColumn("_next", F.lead("_fit").over(ranked))
        .where((F.col("_n") == 1) & (F.col("_next").isNull() | (F.col("_next") - F.col("_fit") >= MARGIN.total_seconds())))
        .select("job", "node", F.col("instance").alias("dataworks_instance"), F.lit("window").alias(LINKED_BY))
    )
    return by_settings.unionByName(by_window)


def _mirrored(facts: DataFrame, linked: DataFrame) -> DataFrame:
    """The derived facts of the linked jobs' READS/WRITES facts lacking a ``definition``: one for the
    node, one for the job naming it (seq -2s-2 and -2s-3 of the fact's seq s: apart, unique)."""
    edges = facts.where((F.col("src_label") == "Job") & F.col("relationship").isin(*MIRRORED)
                        & (F.col("op") == "assert") & ~F.col("failed")
                        & F.col("properties")[DEFINITION].isNull())
    joined = edges.join(linked.withColumnRenamed("job", "src_id"), "src_id")
    about = F.create_map(F.lit("job"), F.col("src_id"), F.lit(LINKED_BY), F.col(LINKED_BY))
    node = joined.select(
        *[c for c in FACTS.names if c not in ("seq", "src_id", "src_label", "properties")],
        (-2 * F.col("seq") - 2).cast("int").alias("seq"), F.col("node").alias("src_id"), F.lit("Node").alias("src_label"),
        F.map_concat(F.map_filter("properties", lambda k, _v: k == "instance_id"), about).alias("properties"))
    job = joined.select(
        *[c for c in FACTS.names if c not in ("seq", "properties")], (-2 * F.col("seq") - 3).cast("int").alias("seq"),
        F.map_concat("properties", F.create_map(F.lit(DEFINITION), F.col("node"))).alias("properties"))
    return node.select(*FACTS.names).unionByName(job.select(*FACTS.names))


def _job_properties(jobs: DataFrame, linked: DataFrame) -> DataFrame:
    """A linked job's ``node``, ``linked_by`` (and ``dataworks_instance``), stated on its first event
    (seq -1; the InsertJob), so it moves neither the job's times nor its count of events: a failed
    run is its node's too (``lineage.analysis.runs``)."""
    end = F.col("first")
    props = F.map_filter(F.create_map(F.lit("node"), F.col("node"), F.lit(LINKED_BY), F.col(LINKED_BY),
                                      F.lit("dataworks_instance"), F.col("dataworks_instance")),
                         lambda _k, v: v.isNotNull())
    return jobs.where(end.isNotNull()).join(linked, "job").select(
        end["event_id"].alias("event_id"), end["source"].alias("source"), end["kind"].alias("kind"),
        end["event_time"].alias("event_time"), end["actor"].alias("actor"), F.lit(-1).alias("seq"),
        F.lit("observe").alias("op"), F.col("job").alias("src_id"), F.lit("Job").alias("src_label"),
        F.lit(None).cast("string").alias("relationship"), F.lit(None).cast("string").alias("dst_id"),
        F.lit(None).cast("string").alias("dst_label"), F.lit(None).cast("string").alias("qualifier"),
        props.alias("properties"), F.lit(None).cast("timestamp").alias("valid_until"), F.lit(False).alias("failed"),
    )


def derived(facts: DataFrame) -> DataFrame:
    """Every derived fact :func:`links` gives over ``facts`` (all a build's facts in its window)."""
    jobs = job_windows(facts)
    horizon = facts.agg(F.max("event_time")).first()[0]
    cut = F.lit(horizon - SETTLE).cast("timestamp") if horizon is not None else F.lit(None).cast("timestamp")
    linked = links(jobs, instance_windows(facts), cut).localCheckpoint()  # read by both below
    return _mirrored(facts, linked).unionByName(_job_properties(jobs, linked))


RELEVANT = ("Job", "Instance", "Node")


def derived_facts(stored: DataFrame | None, new: DataFrame) -> DataFrame:
    """The derived facts over ``stored`` and ``new`` facts that are not stored yet (FACTS columns):
    those of the jobs from :data:`LOOKBACK` before the earliest new fact on (all, on a full build)."""
    earliest = new.agg(F.min("event_time")).first()[0]
    facts = new.select(*FACTS.names)
    if stored is not None:
        old = stored.select(*FACTS.names)
        if earliest is not None:
            old = old.where(F.col("event_time") >= F.lit(earliest - LOOKBACK).cast("timestamp"))
        facts = old.unionByName(facts)
    facts = facts.where(F.col("src_label").isin(*RELEVANT) & (F.col("seq") >= 0))
    found = derived(facts)
    if stored is None:
        return found
    done = stored.where(F.col("seq") < 0).select("source", "event_id", "seq")
    return found.join(done, ["source", "event_id", "seq"], "left_anti")
