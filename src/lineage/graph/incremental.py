"""The build after an ingest folds only what the new facts touch, and gives the full fold's graph.

Why: every fact refolded on every build made a day's build cost half the month's. The fold is a
function of the facts, and a row of its output depends on a known set of them, so the rows the new
facts touch are refolded by :func:`lineage.graph.fold.fold` itself, from *all* the stored facts of
their keys (an old fact of a touched key still counts, a late fact lands in its place), and every
other row of the previous generation is copied as it is:

* a **vertex** is every fact naming its id (src or dst, after aliases). Of the ids the new facts
  name, one that every new fact names later than its stored ``last_seen`` is its stored row merged
  with them (:mod:`lineage.graph.merge`: a day's busy tables and nodes, a table's columns stated
  again); one that no stored fact names is folded from the new facts alone (a day's new jobs and
  instances); the others (named by a late fact, a person, an alias group, a Column a run names and
  ``merge_columns`` does not take) are refolded from every fact naming them;
* an **edge** ``(src, relationship, dst, qualifier)`` reads its own facts, the wildcard retracts of
  its ``(src, relationship)``, the asserts of its ``SINGLE_VALUED`` group (a node's other owners)
  and the status reports of the run its facts name (``run_lineage``): touched are the keys the new
  facts name, every key of a ``(src, relationship)`` a new wildcard retract is in, of a
  single-valued group a new fact is in, or of a run a new fact reports on; refolded from those facts.
  But a key of the new facts' own that none of those groups names, whose new facts are all plain
  asserts later than its stored rows, which only extend its open interval (a node's daily READS and
  WRITES), is its stored rows with the open one merged with them (:func:`lineage.graph.merge.extend_edges`);
* **derived FEEDS** (a, b) read the READS of a and WRITES of b of every job: refolded
  (``derive_feeds`` over the merged edges) for every a read and b written by a job whose edges were
  touched;
* a **column FEEDS** or a **Column** a job run's ``pairs`` fact names (``column_feeds``): touched by a
  new run naming it. Where only new runs name it and they add to it without reordering it (a FEEDS
  whose runs all come after its stored ``last_seen``, a Column no other new fact names), its stored
  row is merged with those runs (``column_feeds.merge_feeds``, ``merge_columns``): a daily job
  asserts the same column pairs every day, and refolding each from a month of runs made the day's
  build cost more than the full build. The others are refolded from every run whose pairs name them;
* a **Change** is one fact: the new facts' changes are added.

:func:`why_full` says when this cannot be proved equal to a full fold (another fold version, another
alias table, facts re-extracted or removed): the build then folds everything and says why.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timezone
from pathlib import Path
from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from lineage.facts.core import PAIRS
from lineage.graph import column_feeds, fold, merge, resolve
from lineage.store.schema import CHANGES, EDGES, FACTS, VERTICES
from lineage.store.warehouse import Warehouse

MANIFEST = "manifest.json"  # beside a generation's datasets: what it was folded from
UNQUALIFIED = "unqualified_feeds"
"""The manifest's record of whether any of its facts asserts FEEDS without a qualifier
(:func:`asserted_unqualified_feeds`): when it says none, the next build looks at its new facts only."""
_RAW = {"src_id": "_raw_src", "dst_id": "_raw_dst", "actor": "_raw_actor"}
COLUMN_PREFIX = "column:"  # a Column's id (lineage.ids.column)


def fact_files(wh: Warehouse) -> list[str]:
    """The facts dataset's files, relative to it: facts are only ever added as new files (or all
    replaced), so the files not in a generation's manifest are the facts it has not folded."""
    if not wh.facts.is_dir():
        return []
    return sorted(p.relative_to(wh.facts).as_posix() for p in wh.facts.rglob("*.parquet") if not _hidden(p, wh.facts))


def _hidden(path: Path, base: Path) -> bool:
    return any(part.startswith((".", "_")) for part in path.relative_to(base).parts)


def aliases_hash(mapping: dict[str, str] | None) -> str:
    """The alias table as folded (its content, not its file's time)."""
    text = json.dumps(sorted((mapping or {}).items()))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def read_manifest(wh: Warehouse) -> dict[str, Any] | None:
    path = wh.generation_dir / MANIFEST if wh.generation else None
    if path is None or not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def why_full(manifest: dict[str, Any] | None, files: list[str], version: str, aliases: str,
             reextracted: bool, full: bool, tied: str | None = None) -> str | None:
    """Why the build must fold every fact (None: the incremental fold gives the same graph).
    One rule per row, first that holds wins."""
    recorded = set((manifest or {}).get("fact_files", ()))
    rules = (
        (full, "--full was asked"),
        (manifest is None, "no graph generation with a record of its facts yet"),
        (reextracted, "the facts were extracted again"),
        (manifest is not None and manifest.get("graph_version") != version, "the fold's code changed"),
        (manifest is not None and manifest.get("aliases") != aliases, "the alias table changed"),
        (manifest is not None and tied is not None and manifest.get("tied") != tied,
         "the identities the events tie together changed (graph.identities)"),
        (not recorded <= set(files), "facts the graph was folded from are gone"),
    )
    return next((why for holds, why in rules if holds), None)


def unreadable(old: Warehouse) -> str | None:
    """Why the previous generation cannot be copied from (a damaged file's footer), or None: the
    incremental build reads it, a full one never does (the repair of a damaged graph is a build)."""
    import pyarrow.dataset as ds

    for name in ("vertices", "edges", "changes"):
        try:
            ds.dataset(str(getattr(old, name)), format="parquet").count_rows()
        except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
            return f"the previous graph's {name} cannot be read ({str(error).splitlines()[0][:200]})"
    return None


def read_facts(spark, wh: Warehouse, files: list[str]) -> DataFrame:
    """The facts of ``files`` (relative to the facts dataset), with their partition column."""
    if not files:
        return spark.createDataFrame([], FACTS.ddl)
    return (spark.read.option("basePath", str(wh.facts)).parquet(*[str(wh.facts / f) for f in files])
            .select(*FACTS.names))


def _resolved(facts: DataFrame, aliases: DataFrame | None) -> DataFrame:
    """``facts`` with ids resolved as the fold resolves them, their raw ids kept beside."""
    kept = facts.select(*FACTS.names, *[F.col(c).alias(raw) for c, raw in _RAW.items()])
    return fold.resolve_aliases(kept, aliases)


def _raw(resolved: DataFrame) -> DataFrame:
    """Back to the facts as stored (the fold resolves them itself)."""
    return resolved.select(*[F.col(_RAW[c]).alias(c) if c in _RAW else F.col(c) for c in FACTS.names])


def _single_valued() -> Column:
    """The single-valued group of an edge fact (``SINGLE_VALUED``: relationship|the one side), or null."""
    group = F.lit(None).cast("string")
    for (rel, src_label, dst_label), side in sorted(fold.SINGLE_VALUED.items()):
        held = (F.col("relationship") == rel) & (F.col("src_label") == src_label) & (F.col("dst_label") == dst_label)
        group = F.when(held, F.concat_ws("|", F.lit(rel), F.col(f"{side}_id"))).otherwise(group)
    return group


def _with_groups(facts: DataFrame) -> DataFrame:
    return facts.withColumn("_sv", _single_valued()).withColumn("_run", F.col("properties")[fold.RUN_KEY])


def _any(frame: DataFrame, conditions: list[tuple[DataFrame, list[tuple[str, str]]]]) -> DataFrame:
    """The rows of ``frame`` matching any of ``conditions`` (keys, column pairs), each row once."""
    marks = []
    for index, (keys, pairs) in enumerate(conditions):
        mark = f"_m{index}"
        renamed = keys.select(*[F.col(k).alias(f"_k{index}_{k}") for _c, k in pairs]).distinct().withColumn(mark, F.lit(True))
        condition = merge.null_safe(frame, renamed, [(c, f"_k{index}_{k}") for c, k in pairs])
        frame = frame.join(renamed, condition, "left").drop(*[f"_k{index}_{k}" for _c, k in pairs])
        marks.append(F.col(mark))
    matched = marks[0]
    for mark in marks[1:]:
        matched = matched | mark
    return frame.where(F.coalesce(matched, F.lit(False))).drop(*[f"_m{i}" for i in range(len(conditions))])


def refold(old: Warehouse, facts: DataFrame, new: DataFrame, gone: DataFrame, aliases: DataFrame | None,
           scratch: fold.Scratch, texts: DataFrame) -> tuple[DataFrame, DataFrame, DataFrame, dict[str, int]]:
    """(vertices, edges, changes) of all ``facts`` given the generation ``old`` folded from all but
    ``new`` and ``gone`` (the stored facts a resolution among ``new`` superseded: ``facts`` holds
    ``new``, not ``gone``; ``texts``: the ``pairs`` facts' texts); and how many vertex ids and edge
    keys were refolded, and merged (the vertices and edges new facts only add to: :mod:`lineage.graph.merge`;
    the Columns and column FEEDS only the new runs name: ``column_feeds.merge_feeds``). Each step's result is written to ``scratch`` and read back (but
    ``facts``, read as they are stored: 20 s of a 10^6-event day build went to writing them again): the fold's plan on a
    selection stays the size of one fold's (kept in memory instead, the optimizer spent minutes on
    the plan of all the steps at once). The edge and vertex folds take ``scratch`` too, for the
    frames their branches share (the vertex folds' state facts, status reports and runs: each of
    their branches recomputed them from the selection, 13-16 s of each fold at 10^6 events); the
    change fold reads the new facts once and does not."""
    spark = facts.sparkSession

    every = _with_groups(_resolved(facts, aliases))  # not written: a scan of the stored facts costs less than writing them again
    fresh = scratch(_with_groups(_resolved(new.unionByName(gone), aliases)), "new")
    is_edge = F.col("relationship").isNotNull() & F.col("op").isin("assert", "retract")  # what fold_edges reads
    is_vertex = F.col("relationship").isNull()
    old_vertices = spark.read.parquet(str(old.vertices))
    old_edges = spark.read.parquet(str(old.edges)).select(*EDGES.names)

    # the Columns and column FEEDS that only the new runs name: their stored rows merged with the runs
    named = fresh.select(F.col("src_id").alias("id")).union(fresh.select(F.col("dst_id").alias("id")))
    named = scratch(named.where(F.col("id").isNotNull()).distinct(), "named")
    day_runs = new.join(facts.where(F.col("op") == PAIRS).select("event_id", "seq"), ["event_id", "seq"], "left_semi")
    day_runs = scratch(column_feeds.runs(day_runs), "runs")
    mixed = column_feeds.mixed_events(day_runs, every)
    per_text = scratch(column_feeds.by_text(day_runs, mixed, texts), "texts")
    gone_ids, gone_keys = column_feeds.touched(gone, texts, aliases)
    stated = every.where(is_edge & (F.col("relationship") == "FEEDS") & (F.col("src_label") == "Column"))  # stated per pair
    blocked = stated.select("src_id", "dst_id", "qualifier").unionByName(gone_keys.select("src_id", "dst_id", "qualifier"))
    merged_edges = scratch(column_feeds.merge_feeds(old_edges, per_text, aliases, blocked), "merged-edges")
    mentions, counted = column_feeds.column_mentions(day_runs, per_text, mixed, aliases)
    merged_vertices = scratch(column_feeds.merge_columns(
        old_vertices, counted, named.unionByName(gone_ids).unionByName(mentions.select("id"))), "merged-vertices")
    merged_keys = merged_edges.select(F.col("src").alias("src_id"), "relationship", F.col("dst").alias("dst_id"), "qualifier")

    # vertices every new fact names later than their stored last sighting: their stored row merged with those facts
    run_ids, pair_keys = column_feeds.touched(fresh, texts, aliases)  # the Columns and column FEEDS of new job runs
    run_ids = scratch(run_ids, "run-columns")
    superseded = _resolved(gone, aliases)  # a superseded fact was counted: its vertices are refolded
    blocked = run_ids.unionByName(gone_ids).unionByName(
        superseded.select(F.col("src_id").alias("id"))).unionByName(superseded.select(F.col("dst_id").alias("id")))
    if aliases is not None:  # an alias group's names are decided over all its facts
        blocked = blocked.unionByName(aliases.select(F.col("canonical").alias("id")))
    plain = scratch(merge.mergeable(old_vertices, fresh, blocked), "mergeable")
    current = scratch(_resolved(resolve.current(new), aliases), "current")  # the new facts the fold reads
    merged_plain = scratch(merge.merge_vertices(merge.semi(old_vertices, plain, [("id", "id")]), merge.increments(current)),
                           "merged-plain")

    # an id no stored fact names (no stored row; not a Column a stored run's pairs may name): folded
    # from the new facts alone, without reading the month's (a day's new jobs and instances)
    pair_ids = merge.semi(run_ids, merged_vertices, [("id", "id")], "left_anti")
    by_fact_key = [(c, c) for c in fold.FACT_KEY]
    pair_keys = merge.semi(pair_keys, merged_keys, by_fact_key, "left_anti")
    others = merge.semi(named.union(pair_ids).distinct(), plain, [("id", "id")], "left_anti")
    unseen = scratch(merge.semi(others, old_vertices, [("id", "id")], "left_anti")
                     .where(~F.col("id").startswith(COLUMN_PREFIX)), "unseen")
    unseen_facts = _raw(_any(current, [(unseen, [("src_id", "id")]), (unseen, [("dst_id", "id")])]))
    vertices_unseen = scratch(merge.semi(fold.fold_vertices_of(unseen_facts, aliases, texts, scratch), unseen, [("id", "id")]), "unseen-vertices")

    # the other vertices a new fact names, refolded from every fact naming them
    touched_ids = scratch(merge.semi(others, unseen, [("id", "id")], "left_anti"), "ids")
    naming = _any(every, [(touched_ids, [("src_id", "id")]), (touched_ids, [("dst_id", "id")])])
    columns = touched_ids.where(F.col("id").startswith(COLUMN_PREFIX))
    if not columns.isEmpty():  # a Column is named by the runs whose pairs name it too
        naming = naming.unionByName(column_feeds.texts_naming(every, columns, texts, aliases))
    naming = scratch(_raw(naming), "vfacts")
    vertices_new = scratch(merge.semi(fold.fold_vertices_of(naming, aliases, texts, scratch), touched_ids, [("id", "id")]), "vertices")

    # edges: the keys of the groups new facts are in
    new_edges = fresh.where(is_edge)
    # the new facts' own keys (a fact superseded since, ``resolve.superseded``, is in ``fresh`` only,
    # and its key must be refolded to go), and every key of a group a new fact can close: the
    # (src, relationship) of a wildcard retract, the single-valued group of an assert, a reported run.
    # Another new key in a (src, relationship) changes nothing of the group's other keys: a node's
    # new instance does not refold its month of HAS_INSTANCE (156,000 of a day's 213,000 keys)
    own = new_edges.where(F.col("dst_id").isNotNull()).select(*fold.FACT_KEY)
    wild = new_edges.where(F.col("dst_id").isNull()).select("src_id", "relationship")
    groups_sv = new_edges.where(F.col("_sv").isNotNull()).select("_sv")
    runs = fresh.where(is_vertex & F.col("src_id").isNotNull()).select(F.col("src_id").alias("_run"))
    concrete = every.unionByName(fresh).where(is_edge & F.col("dst_id").isNotNull())
    keyed = _any(concrete, [(wild, [("src_id", "src_id"), ("relationship", "relationship")]),
                            (groups_sv, [("_sv", "_sv")]), (runs, [("_run", "_run")])])
    # of the new facts' own keys, those no group above names, nor a superseded fact: where every new
    # fact only extends the key's open interval (a node's daily READS and WRITES, a table's columns
    # stated again), its stored rows merged with them (``merge.extend_edges``); the rest refolded
    held = keyed.select(*fold.FACT_KEY).unionByName(pair_keys.select(*fold.FACT_KEY)).unionByName(
        superseded.where(is_edge & F.col("dst_id").isNotNull()).select(*fold.FACT_KEY))
    tagged = held.withColumn("_own", F.lit(0)).unionByName(own.withColumn("_own", F.lit(1)))
    new_keys = scratch(tagged.groupBy(*fold.FACT_KEY).agg(F.min("_own").alias("_own")), "keys")
    only_own = new_keys.where(F.col("_own") == 1)
    key_of_edge = list(zip(fold.EDGE_ROW_KEY, fold.FACT_KEY))  # an edge row's key against an edge fact's
    own_rows = merge.semi(old_edges, only_own, key_of_edge)  # not every edge grouped: 17 s of shuffle at 10^6
    extended = scratch(merge.extend_edges(own_rows, merge.edge_increments(
        merge.semi(new_edges, only_own, by_fact_key))), "extended-edges")
    extended_keys = extended.select(F.col("src").alias("src_id"), "relationship", F.col("dst").alias("dst_id"), "qualifier")
    touched_keys = scratch(merge.semi(new_keys, extended_keys, by_fact_key, "left_anti")
                           .select(*fold.FACT_KEY), "refolded-keys")
    of_touched = merge.semi(concrete, touched_keys, by_fact_key)
    sv_groups = of_touched.where(F.col("_sv").isNotNull()).select("_sv")
    # a touched key's own facts, the wildcard retracts of its (src, relationship), its single-valued
    # group's asserts, and the runs naming it
    edge_rows = every.where(is_edge)
    group_facts = scratch(_any(edge_rows.where(F.col("dst_id").isNotNull()), [
        (touched_keys, by_fact_key), (sv_groups, [("_sv", "_sv")])]).unionByName(
        _any(edge_rows.where(F.col("dst_id").isNull()), [
            (touched_keys, [("src_id", "src_id"), ("relationship", "relationship")]), (sv_groups, [("_sv", "_sv")])]))
        .unionByName(column_feeds.texts_with_keys(every, touched_keys, texts, aliases)), "groups")
    named_runs = group_facts.where(F.col("_run").isNotNull()).select(F.col("_run").alias("src_id"))
    reports = merge.semi(every.where(is_vertex), named_runs, [("src_id", "src_id")])
    edge_facts = scratch(_raw(group_facts.unionByName(reports)), "efacts")  # disjoint: edge and vertex facts
    folded = fold.fold(edge_facts, aliases, scratch, feeds=False, texts=texts)[1]
    edges_new = scratch(merge.semi(folded, touched_keys, key_of_edge).select(*EDGES.names), "edges")

    # untouched rows of the old generation as they are, refolded and merged rows in their place
    replaced_ids = touched_ids.unionByName(merged_vertices.select("id")).unionByName(plain)  # (unseen: not stored)
    vertices = merge.semi(old_vertices, replaced_ids, [("id", "id")], "left_anti").select(*VERTICES.names)
    for rows in (vertices_new, vertices_unseen, merged_vertices, merged_plain):
        vertices = vertices.unionByName(rows.select(*VERTICES.names))
    derived = is_derived_feeds()
    replaced_keys = touched_keys.unionByName(merged_keys).unionByName(extended_keys)
    base = scratch(merge.semi(old_edges.where(~derived), replaced_keys, key_of_edge, "left_anti")
                   .unionByName(edges_new).unionByName(merged_edges).unionByName(extended), "base")

    # derived FEEDS: refolded for every (a, b) a touched job reads and writes
    jobs = touched_keys.unionByName(extended_keys).where(F.col("relationship").isin("READS", "WRITES")).select(
        F.col("src_id").alias("src"))  # an extended READS has a later last_seen: its FEEDS are derived again
    job_edges = merge.semi(old_edges.unionByName(edges_new), jobs, [("src", "src")])
    read = scratch(job_edges.where(F.col("relationship") == "READS").select(F.col("dst").alias("a")).distinct(), "read")
    written = scratch(job_edges.where(F.col("relationship") == "WRITES").select(F.col("dst").alias("b")).distinct(), "written")
    feeding = merge.semi(base.where(F.col("relationship") == "READS"), read, [("dst", "a")]).unionByName(
        merge.semi(base.where(F.col("relationship") == "WRITES"), written, [("dst", "b")]))
    feeds_new = scratch(fold.derive_feeds(feeding).select(*EDGES.names), "feeds")
    old_feeds = old_edges.where(derived)
    outside = merge.semi(old_feeds, read, [("src", "a")], "left_anti").unionByName(
        merge.semi(merge.semi(old_feeds, read, [("src", "a")]), written, [("dst", "b")], "left_anti"))
    edges = base.unionByName(outside).unionByName(feeds_new)

    # changes: one per change fact, so the new facts' are added
    old_changes = spark.read.parquet(str(old.changes)).select(*CHANGES.names)
    changes_new = scratch(fold.fold_changes_of(new, aliases), "changes")
    changes = old_changes.unionByName(merge.semi(changes_new, old_changes, [("change_id", "change_id")], "left_anti"))
    counts = {"vertices": touched_ids.count() + unseen.count(), "edges": touched_keys.count(),
              "merged_vertices": merged_vertices.count() + merged_plain.count(), "merged_edges": merged_edges.count() + extended_keys.distinct().count()}
    return vertices, edges, changes, counts


def is_derived_feeds() -> Column:
    """A table FEEDS row derived from READS and WRITES (``derive_feeds``: no qualifier), not a
    column FEEDS asserted by a fact (qualified ``direct``/``indirect``)."""
    return (F.col("relationship") == "FEEDS") & F.coalesce(F.col("qualifier") == "", F.lit(False))


def asserted_unqualified_feeds(facts: DataFrame) -> bool:
    """Whether any fact asserts a FEEDS edge without a qualifier: its rows would look derived."""
    return bool(facts.where((F.col("relationship") == "FEEDS") & F.coalesce(F.col("qualifier"), F.lit("")).isin("")).limit(1).count())


def earliest(new: DataFrame) -> str | None:
    """The earliest event time among new facts, ISO (None when one has no time: it may be anywhere)."""
    row = new.agg(F.min("event_time").alias("first"),
                  F.count(F.when(F.col("event_time").isNull(), 1)).alias("untimed")).first()
    if row is None or row["untimed"] or row["first"] is None:
        return None
    first = row["first"]
    return (first if first.tzinfo else first.replace(tzinfo=timezone.utc)).isoformat()
