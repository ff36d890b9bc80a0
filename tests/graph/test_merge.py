"""A stored vertex or edge merged with the later facts naming it is the row the fold of all its facts
gives (issue 31 part 3: the day's build merges the vertices and edges it can instead of refolding them)."""

from __future__ import annotations

import json

from pyspark.sql import functions as F

from lineage.graph import column_feeds, fold, merge, resolve
from lineage.graph.build import _read_texts, aliases_frame
from lineage.store.schema import VERTICES
from lineage.store.warehouse import Warehouse


def build_log(wh: Warehouse) -> dict:
    """The warehouse's one build's log."""
    logs = sorted(wh.builds.glob("*.json"))
    assert len(logs) == 1, logs
    return json.loads(logs[0].read_text())


def _rows(frame) -> dict[str, dict]:
    return {r["id"]: {**r.asDict(), "properties": sorted(r["properties"].items())} for r in frame.collect()}


def test_merged_vertices_equal_the_fold_of_all_their_facts(spark, generated, tmp_path):
    wh = Warehouse.at(generated.warehouse)
    facts = resolve.current(spark.read.parquet(str(wh.facts)))
    aliases, _count = aliases_frame(spark, None, wh, facts)
    texts = _read_texts(spark, wh.pairs_texts)
    times = sorted(r[0] for r in facts.select("event_time").distinct().collect() if r[0] is not None)
    cut = times[len(times) * 2 // 3]  # the first two thirds of the platform's time folded, then the rest merged
    after = facts.where(F.col("event_time") > cut)
    before = facts.where(~(F.col("event_time") > cut) | F.col("event_time").isNull())  # untimed facts: stored

    # fold()[0], without building the edges' plan; its shared frames written once, as the build does
    stored = fold.fold_vertices_of(before, aliases, texts, fold.Scratch(tmp_path / "scratch")).cache()
    built = build_log(wh)
    assert built["fold"] == "full", built  # so its vertices are the fold of all the facts, as the build wrote them
    whole = spark.read.parquet(str(wh.vertices))
    later = fold.resolve_aliases(after, aliases)
    runs = column_feeds.touched(later, texts, aliases)[0]  # Columns a later run names: column_feeds' to merge
    blocked = aliases.select(F.col("canonical").alias("id")).unionByName(runs)
    ids = merge.mergeable(stored, later, blocked).cache()
    merged = _rows(VERTICES.select_from(merge.merge_vertices(stored.join(ids, "id", "left_semi"), merge.increments(later))))
    expected = _rows(whole.join(ids, "id", "left_semi"))

    assert merged.keys() == expected.keys()
    differing = {i: {k for k in row if row[k] != expected[i][k]} for i, row in merged.items() if row != expected[i]}
    assert not differing, [(i, {k: (merged[i][k], expected[i][k]) for k in ks}) for i, ks in list(differing.items())[:3]]
    labels = {row["label"] for row in merged.values()}
    assert {"Table", "Node", "Instance", "Column"} <= labels, labels  # the busy vertices a day's facts name
    before_counts = {r["id"]: r["event_count"] for r in stored.join(ids, "id", "left_semi").select("id", "event_count").collect()}
    changed = [i for i, row in merged.items() if row["event_count"] > before_counts[i]]
    assert len(changed) == len(merged)  # every one of them had later facts added
    assert any(int(dict(row["properties"]).get("status_changes", 0)) > 1 for row in merged.values())  # re-reported
    # and the ones that cannot be merged are not: people, the Columns a later run names, an alias group
    assert not labels & set(merge.REFOLDED_LABELS)
    assert not {r["id"] for r in runs.collect()} & merged.keys()
    assert not {r["canonical"] for r in aliases.collect()} & merged.keys()
    # nor one that a new fact names no later than its last sighting (a late event): it is refolded
    table = next(i for i, row in merged.items() if row["label"] == "Table")
    early = fold.resolve_aliases(before, aliases).where(F.col("src_id") == table).limit(1)
    named = {v for row in early.collect() for v in (row["src_id"], row["dst_id"])}
    assert table in named
    again = {r["id"] for r in merge.mergeable(stored, later.unionByName(early), blocked).collect()}
    assert table not in again and again == set(merged) - named


def test_extended_edges_equal_the_fold_of_all_their_facts(spark, generated, tmp_path):
    """A stored edge whose later facts only extend its open interval (a node's daily READS), merged
    with them, is the full fold's row; a key a later retract or expiry touches is not merged."""
    from lineage.graph import incremental
    from lineage.store.schema import EDGES

    wh = Warehouse.at(generated.warehouse)
    facts = resolve.current(spark.read.parquet(str(wh.facts)))
    aliases, _count = aliases_frame(spark, None, wh, facts)
    texts = _read_texts(spark, wh.pairs_texts)
    times = sorted(r[0] for r in facts.select("event_time").distinct().collect() if r[0] is not None)
    cut = times[len(times) * 2 // 3]
    after = facts.where(F.col("event_time") > cut)
    before = facts.where(~(F.col("event_time") > cut) | F.col("event_time").isNull())
    assert build_log(wh)["fold"] == "full"

    # folded as the build folds (its shared frames written once to scratch files): the nested plan
    # recomputed them branch by branch
    stored = fold.fold(before, aliases, fold.Scratch(tmp_path / "scratch"), feeds=False, texts=texts)[1].cache()
    later = incremental._with_groups(fold.resolve_aliases(after, aliases)).where(F.col("relationship").isNotNull())
    # the keys a later fact touches through a group, which refold takes apart: a wildcard retract's
    # (src, relationship), a single-valued group, a run
    wild = later.where(F.col("dst_id").isNull()).select("src_id", "relationship").distinct()
    groups = later.where(F.col("_sv").isNotNull()).select("_sv").distinct()
    candidates = (later.where(F.col("dst_id").isNotNull()).join(wild, ["src_id", "relationship"], "left_anti")
                  .join(groups, "_sv", "left_anti").where(F.col("_run").isNull()))
    extended = EDGES.select_from(merge.extend_edges(stored, merge.edge_increments(candidates))).cache()
    whole = spark.read.parquet(str(wh.edges))

    def rows(frame) -> dict:
        out = {}
        for r in frame.collect():
            out.setdefault((r["src"], r["relationship"], r["dst"], r["qualifier"]), []).append(
                {**r.asDict(), "properties": sorted(r["properties"].items())})
        return {k: sorted(v, key=lambda x: str(x["valid_from"])) for k, v in out.items()}

    merged = rows(extended)
    keys = spark.createDataFrame(list(merged), "src string, relationship string, dst string, qualifier string")
    expected = rows(whole.join(keys, ["src", "relationship", "dst", "qualifier"], "left_semi"))
    assert merged and merged.keys() == expected.keys()
    differing = [k for k in merged if merged[k] != expected[k]]
    assert not differing, [(k, merged[k], expected[k]) for k in differing[:2]]
    relationships = {k[1] for k in merged}
    assert {"READS", "WRITES"} <= relationships, relationships  # a node's daily lineage
    before_counts = {(r["src"], r["relationship"], r["dst"], r["qualifier"]): r["event_count"]
                     for r in stored.where(F.col("valid_to").isNull()).collect()}
    assert all(any(row["event_count"] > before_counts[k] for row in merged[k]) for k in merged)  # each grew
    # a key with a later retract, or a later assert with an expiry, is left to the refold
    unplain = {(r["src_id"], r["relationship"], r["dst_id"], r["qualifier"]) for r in candidates.where(
        (F.col("op") != "assert") | F.col("valid_until").isNotNull() | F.col("failed")).collect()}
    assert unplain and not unplain & merged.keys()
