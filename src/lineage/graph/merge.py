"""A stored vertex row brought up to date by adding the new facts that name it, where that is what
the fold would give: the incremental build's cheap path (:mod:`lineage.graph.incremental`).

Why: the vertices a day's facts name are mostly the platform's busy tables, users and nodes, and
refolding each from every fact naming it read half the month's facts on every build. The vertex
fold is additive once every new fact naming a vertex comes after its stored ``last_seen``
(:func:`mergeable`): first and last seen, the event count (the new events were not counted: they
come later than any that were), the label (the least), the properties (the new latest value of a
key replaces the stored one, a cleared one removes it), the status (the last new report, its
``status_changes`` added to the stored count) and ``deleted_at`` (decided by the new vertex
asserts and retracts when there are any: they are the latest). A person's names and an alias
group's names are decided over all their facts (``fold.person_names``, ``fold.name_merged``):
those vertices are refolded. A Column that a new job run's pairs name is counted per run text
(``column_feeds``): the caller blocks it, and ``column_feeds.merge_columns`` merges it or it is
refolded; one only other facts name (a table's schema stated again) is merged here.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from lineage.facts.core import PAIRS
from lineage.graph import fold
from lineage.store.schema import VERTICES

REFOLDED_LABELS = ("User",)  # named over every fact (people)
STATUS = (*fold.STATUS_KEYS, "status_time", "status_changes")  # what a new last report replaces


def mergeable(stored: DataFrame, new: DataFrame, blocked: DataFrame) -> DataFrame:
    """The ids (one column ``id``) whose stored row is merged with ``new`` (facts, ids resolved):
    every new fact naming them has a time later than the row's ``last_seen``, they are not of
    :data:`REFOLDED_LABELS`, and not in ``blocked`` (``id``: an alias group, a superseded fact's)."""
    named = new.select(F.col("src_id").alias("id"), "event_time").unionByName(
        new.select(F.col("dst_id").alias("id"), "event_time")).where(F.col("id").isNotNull())
    first = named.groupBy("id").agg(F.min("event_time").alias("_first"),
                                    F.count(F.when(F.col("event_time").isNull(), 1)).alias("_untimed"))
    rows = stored.where(~F.col("label").isin(*REFOLDED_LABELS)).select("id", "last_seen")
    later = rows.join(first, "id").where((F.col("_untimed") == 0) & (F.col("_first") > F.col("last_seen")))
    return later.select("id").join(blocked.select("id").distinct(), "id", "left_anti")


def increments(facts: DataFrame) -> DataFrame:
    """Per id the new ``facts`` (resolved, not yet state-filtered) name: the fold of those facts
    alone, before it is merged: lifetime, latest properties (cleared ones kept) and last status."""
    resolved = facts.where(F.col("op") != PAIRS)
    state, reports = fold.state_facts(resolved), fold.status_reports(resolved.where(F.col("op") != "error"))
    mentions = fold.vertex_mentions(state, reports)
    props = fold.latest_props(mentions.where(F.col("properties").isNotNull()), ["id"], cleared=True)
    return (fold.lifetimes(mentions).join(props.withColumnRenamed("properties", "_props"), "id", "left")
            .join(fold.latest_status(reports), "id", "left"))


def merge_vertices(stored: DataFrame, added: DataFrame) -> DataFrame:
    """``stored`` vertex rows (``VERTICES``) merged with their :func:`increments` ``added`` (inner:
    only the rows of ``added``'s ids)."""
    new = added.select(*[F.col(c).alias(f"_n_{c}") for c in added.columns])
    rows = stored.join(new, F.col("id") == F.col("_n_id"))
    status = F.col("_n__status")
    decided = F.col("properties")["status_changes"].isNotNull() | status.isNotNull()
    raw = F.coalesce(F.col("_n__props"), F.create_map().cast("map<string,string>"))
    raw = F.when(decided, F.map_filter(raw, lambda k, _v: ~k.isin(*fold.STATUS_KEYS))).otherwise(raw)
    kept = F.when(status.isNotNull(), F.map_filter("properties", lambda k, _v: ~k.isin(*STATUS))).otherwise(F.col("properties"))
    props = _overlay(kept, raw)
    props = F.map_filter(props, lambda _k, v: v != fold.CLEARED)
    counted = (F.coalesce(F.col("properties")["status_changes"].cast("long"), F.lit(0))
               + status["status_changes"].cast("long")).cast("string")
    now = _overlay(status, F.create_map(F.lit("status_changes"), counted))
    props = F.when(status.isNotNull(), _overlay(props, now)).otherwise(props)
    props = F.map_from_entries(F.array_sort(F.map_entries(props)))
    decides = F.col("_n__asserted").isNotNull() | F.col("_n__retracted").isNotNull()
    merged = {
        "label": F.least("label", "_n_label"),
        "first_seen": F.least("first_seen", "_n_first_seen"),
        "last_seen": F.greatest("last_seen", "_n_last_seen"),
        "event_count": F.col("event_count") + F.col("_n_event_count"),
        "properties": props,
        "deleted_at": F.when(decides, fold.deletion(F.col("_n__asserted"), F.col("_n__retracted")))
                       .otherwise(F.col("deleted_at")),
    }
    out = rows.select("id", *[merged[c].alias(c) if c in merged else F.col(c) for c in VERTICES.names if c != "id"])
    return out.withColumn("name", fold.vertex_name(F.col("properties"), F.col("id"))).select(*VERTICES.names)


def _overlay(base: Column, over: Column) -> Column:
    """``base`` with every key of ``over`` set to ``over``'s value."""
    return F.map_concat(F.map_filter(base, lambda k, _v: ~F.array_contains(F.map_keys(over), k)), over)
