"""A stored vertex merged with the later facts naming it is the row the fold of all its facts gives
(issue 31 part 3: the day's build merges the vertices it can instead of refolding them)."""

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


def test_merged_vertices_equal_the_fold_of_all_their_facts(spark, generated):
    wh = Warehouse.at(generated.warehouse)
    facts = resolve.current(spark.read.parquet(str(wh.facts)))
    aliases, _count = aliases_frame(spark, None, wh)
    texts = _read_texts(spark, wh.pairs_texts)
    times = sorted(r[0] for r in facts.select("event_time").distinct().collect() if r[0] is not None)
    cut = times[len(times) * 2 // 3]  # the first two thirds of the platform's time folded, then the rest merged
    after = facts.where(F.col("event_time") > cut)
    before = facts.where(~(F.col("event_time") > cut) | F.col("event_time").isNull())  # untimed facts: stored

    stored = fold.fold_vertices_of(before, aliases, texts).cache()  # fold()[0], without building the edges' plan
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
