"""A stored vertex or edge row brought up to date by adding the new facts that name it, where that
is what the fold would give: the incremental build's cheap path (:mod:`lineage.graph.incremental`).

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

An edge is the same (:func:`extend_edges`): a node reads and writes the same tables every day, so
a day's new asserts of a key mostly extend its open interval, and refolding each such key from its
month of facts was most of the day build's edge fold (366,000 of its 564,000 facts at 10^6 events).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from lineage.facts.core import PAIRS
from lineage.graph import fold
from lineage.store.schema import EDGES, VERTICES

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


def null_safe(left: DataFrame, right: DataFrame, pairs: list[tuple[str, str]]) -> Column:
    """The join condition: each (``left`` column, ``right`` column) of ``pairs`` equal, nulls equal
    too (an edge key's ``qualifier`` is often null)."""
    condition = None
    for left_col, right_col in pairs:
        term = left[left_col].eqNullSafe(right[right_col])
        condition = term if condition is None else condition & term
    return condition


def semi(frame: DataFrame, keys: DataFrame, pairs: list[tuple[str, str]], how: str = "left_semi") -> DataFrame:
    """``frame`` joined (semi or anti) to ``keys`` on null-safe equality of the column ``pairs``."""
    renamed = keys.select(*[F.col(k).alias(f"_k_{k}") for _f, k in pairs]).distinct()
    return frame.join(renamed, null_safe(frame, renamed, [(c, f"_k_{k}") for c, k in pairs]), how)


def _overlay(base: Column, over: Column) -> Column:
    """``base`` with every key of ``over`` set to ``over``'s value."""
    return F.map_concat(F.map_filter(base, lambda k, _v: ~F.array_contains(F.map_keys(over), k)), over)


def edge_increments(new: DataFrame) -> DataFrame:
    """Per edge key of ``new`` (edge facts, ids resolved, with ``_sv`` and ``_run``: the single-valued
    group and the run, ``incremental._with_groups``): what they would add to an open interval, and
    ``_plain``, whether every one of them is an assert that only extends it: not failed, timed,
    without expiry (``valid_until``), not of a single-valued group (it retracts the others), not a
    run's (held until the run completes, ``fold.run_lineage``), not a FEEDS (a column FEEDS is
    merged per run text, ``column_feeds``)."""
    plain = ((F.col("op") == "assert") & ~F.col("failed") & F.col("event_time").isNotNull()
             & F.col("valid_until").isNull() & F.col("_sv").isNull() & F.col("_run").isNull()
             & (F.col("relationship") != "FEEDS"))
    added = new.where(F.col("dst_id").isNotNull()).groupBy(*fold.FACT_KEY).agg(
        F.min(plain.cast("int")).alias("_plain"),
        F.min("event_time").alias("_first"), F.max("event_time").alias("_n_last_seen"),
        F.countDistinct("event_id").alias("_n_event_count"),
        F.min("src_label").alias("_n_src_label"), F.min("dst_label").alias("_n_dst_label"))
    props = fold.latest_props(new.where(F.col("dst_id").isNotNull() & (F.col("op") == "assert")), list(fold.FACT_KEY), cleared=True)
    return added.join(props.withColumnRenamed("properties", "_n_props"), list(fold.FACT_KEY), "left")


def extend_edges(stored: DataFrame, added: DataFrame) -> DataFrame:
    """Every ``stored`` edge row (``EDGES``) of the keys of ``added`` (:func:`edge_increments`) that the
    new facts only extend, the open one merged with them (the key's closed intervals as they are):
    the key's latest interval is open (no ``valid_to``, not closed), every new fact is ``_plain``
    and later than anything stored of the key. Then the fold would put the new asserts in that
    interval (an open interval's end is far), so: its start stays, last seen and the event count grow (the new events were not counted: they are later),
    the labels are the least, and each property's latest value is the new one (a cleared one
    removed). The other keys are refolded (``incremental.refold``)."""
    is_open = F.col("valid_to").isNull() & F.col("closed_by").isNull()
    row_key = fold.EDGE_ROW_KEY
    per_key = stored.groupBy(*row_key).agg(F.max("last_seen").alias("_last"), F.count(F.when(is_open, 1)).alias("_open"))
    per_key = per_key.select(*[F.col(c).alias(f"_k_{c}") for c in row_key], "_last", "_open")
    ok = added.where(F.col("_plain") == 1)
    on = null_safe(per_key, ok, [(f"_k_{c}", f) for c, f in zip(row_key, fold.FACT_KEY)])
    kept = per_key.join(ok, on).where((F.col("_open") == 1) & (F.col("_first") > F.col("_last"))).select(
        *[f"_k_{c}" for c in row_key], *[c for c in ok.columns if c.startswith("_n_")])
    rows = stored.join(kept, null_safe(stored, kept, [(c, f"_k_{c}") for c in row_key]))
    raw = F.coalesce(F.col("_n_props"), F.create_map().cast("map<string,string>"))
    props = F.map_filter(_overlay(F.col("properties"), raw), lambda _k, v: v != fold.CLEARED)
    merged = {
        "src_label": F.least("src_label", "_n_src_label"),
        "dst_label": F.least("dst_label", "_n_dst_label"),
        "last_seen": F.greatest("last_seen", "_n_last_seen"),
        "event_count": F.col("event_count") + F.col("_n_event_count"),
        "properties": F.map_from_entries(F.array_sort(F.map_entries(props))),
    }
    return rows.select(*[F.when(is_open, merged[c]).otherwise(F.col(c)).alias(c) if c in merged else F.col(c)
                         for c in EDGES.names])
