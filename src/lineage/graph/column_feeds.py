"""A job run's column lineage, one fact per run, folded per distinct lineage first.

Why: a daily job asserts the same ~25 column pairs every run; as one FEEDS fact per pair, column
FEEDS were 4.2M of a 10^6-event month's 7.8M facts, and each was written, read, de-duplicated and
windowed like any edge fact. A MaxCompute job's column lineage is now one ``pairs`` fact (op
:data:`PAIRS`, on the Job, ``properties.pairs``: the sorted JSON list of
``{src, dst, qualifier, transformations}``), and the fold groups the runs by their pairs text -- a
script's runs share it -- before it looks at a single pair. Stored, a ``pairs`` fact holds only its
text's key (``properties.pairs_key``); each distinct text is stored once, in the warehouse's
``pairs_texts`` (``lineage.store.schema.PAIRS_TEXTS``: ``text``, the key; ``pairs``, the text), and
every function here that needs the pairs takes those ``texts``.

The result is the fold of one assert per pair (tested against it: ``tests/graph/test_column_feeds.py``):
column FEEDS are never retracted and never expire (no mapping does either), so a key's one interval
opens at its first run and stays open; ``last_seen`` is its last run, ``event_count`` its runs,
``via`` the :data:`VIA_LIMIT` most recent definitions (a job's node, else the job) and
``transformations`` the union. That holds because each event has at most one current ``pairs`` fact (extraction gives none for a job the
build resolves, ``lineage.graph.resolve``, and a later resolution supersedes an earlier one), so
runs never count twice. Column FEEDS asserted one per pair (OpenLineage's) keep the edge fold; where
one of their keys is also in a ``pairs`` fact, the runs naming it are turned into one assert per
pair for that key only, so the two fold together exactly as before.

A Column's first/last seen and event count (``fold.fold_vertices``) count the runs naming it: per
distinct pairs text, added up, for the runs whose event names no Column otherwise; one mention per
run for the others (a CTAS states the columns it feeds), so no event counts twice.
"""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from lineage.facts.core import PAIRS, PAIRS_KEY, TEXT
from lineage.graph.aliases import resolve_ids
from lineage.store.schema import EDGES, FACTS, PAIRS_TEXTS, VERTICES

KEY = "pairs"
"""The ``pairs`` fact's property as extracted, and the texts' column: the JSON list of the run's
pairs (:data:`PAIR_TYPE`)."""
PAIR_TYPE = "array<struct<src:string,dst:string,qualifier:string,transformations:array<string>>>"
VIA_LIMIT = 20  # a FEEDS keeps the most recent jobs/nodes it came through (``fold`` imports it)
DEFINITION = "definition"  # a ``pairs`` fact's node, named in ``via`` instead of the job run (``fold.DEFINITION``)
_PAIR_KEY = ["src_id", "dst_id", "qualifier"]


def apart(frame: DataFrame) -> tuple[DataFrame, DataFrame]:
    """The rows the build's Python workers send (``lineage.facts.core.stored``) as (the facts, the
    texts: ``PAIRS_TEXTS`` rows, each text once per task that sent it)."""
    texts = frame.where(F.col("op") == TEXT).select(F.col("src_id").alias("text"), F.col("properties")[KEY].alias("pairs"))
    return frame.where(F.col("op") != TEXT), texts.select(*PAIRS_TEXTS.names)


def runs(facts: DataFrame) -> DataFrame:
    """(event_id, ..., seq, via, text: the key of its pairs) of every ``pairs`` fact that holds (not
    failed), once; ``via`` is the definition the run is of (``properties.definition``: the DataWorks
    node that submitted the job, DESIGN.md "Definitions and runs"), else the job run itself."""
    return (facts.where((F.col("op") == PAIRS) & ~F.col("failed"))
            .select("event_id", "source", "kind", "event_time", "actor", "seq",
                    F.coalesce(F.col("properties")[DEFINITION], F.col("src_id")).alias("via"),
                    _text_key().alias("text")).dropDuplicates(["event_id", "seq"]))


def _text_key() -> Column:
    return F.col("properties")[PAIRS_KEY]


def _texts_of(frame: DataFrame, texts: DataFrame) -> DataFrame:
    """(text, pairs) of the ``pairs`` facts in ``frame``, each once."""
    named = frame.where(F.col("op") == PAIRS).select(_text_key().alias("text")).distinct()
    return texts.join(named, "text", "left_semi")


def recent_first(x: Column, y: Column) -> Column:
    """Comparator of (last_seen, via) structs: most recent first, then by id (deterministic)."""
    return (F.when(x["last_seen"] > y["last_seen"], -1).when(x["last_seen"] < y["last_seen"], 1)
            .when(x["via"] < y["via"], -1).when(x["via"] > y["via"], 1).otherwise(0))


def _recent(entries: Column) -> Column:
    """A list of (last_seen, via) structs -> each via once at its latest, most recent first, the first
    :data:`VIA_LIMIT` (as ``fold._listed_props`` orders a FEEDS' jobs)."""
    ordered = F.array_sort(entries, lambda x, y: recent_first(x, y))
    return F.slice(F.array_distinct(F.transform(ordered, lambda s: s["via"])), 1, VIA_LIMIT)


def mixed_events(frame: DataFrame, state: DataFrame) -> DataFrame:
    """(event_id) of the ``runs`` whose event names a Column in another fact too (a CTAS states the
    columns it feeds): their Columns are counted per run, not per text. Few; narrow."""
    named = state.where((F.col("src_label") == "Column") | (F.col("dst_label") == "Column")).select("event_id")
    return frame.select("event_id").join(named, "event_id", "left_semi").distinct()


def by_text(frame: DataFrame, mixed: DataFrame, texts: DataFrame) -> DataFrame:
    """Per distinct (pairs text, ``mixed``: the run's event is in ``mixed``) of the ``runs``: the
    text (``pairs``, from the stored ``texts``), how many runs, first and last, its :data:`VIA_LIMIT`
    most recent vias, each once at its latest (a script run daily by one job must not crowd out the
    other jobs that run it). Read by the fold of the FEEDS and of the Columns alike; ``mixed`` is
    broadcast."""
    flagged = (frame.join(F.broadcast(mixed.withColumn("mixed", F.lit(True))), "event_id", "left")
               .withColumn("mixed", F.coalesce("mixed", F.lit(False))))
    each = flagged.groupBy("text", "mixed", "via").agg(F.max("event_time").alias("last_seen"))  # a via once, at its latest
    entry = F.struct(F.col("last_seen"), F.col("via"))
    recent = each.groupBy("text", "mixed").agg(
        F.slice(F.array_sort(F.collect_list(entry), lambda x, y: recent_first(x, y)), 1, VIA_LIMIT).alias("recent"))
    counted = flagged.groupBy("text", "mixed").agg(
        F.countDistinct("event_id").alias("n"), F.min("event_time").alias("first"), F.max("event_time").alias("last"))
    return counted.join(recent, ["text", "mixed"]).join(texts, "text")


def _exploded(frame: DataFrame, aliases: DataFrame | None) -> DataFrame:
    """One row per pair of each row's ``pairs`` text, ids resolved, the row's columns kept."""
    others = frame.columns
    pairs = frame.select(*others, F.explode(F.from_json("pairs", PAIR_TYPE)).alias("_p"))
    return resolve_ids(pairs.select(*others, F.col("_p.src").alias("src_id"), F.col("_p.dst").alias("dst_id"),
                                 F.col("_p.qualifier").alias("qualifier"), F.col("_p.transformations").alias("transformations")),
                    ("src_id", "dst_id"), aliases)


def asserted_keys(state: DataFrame) -> DataFrame:
    """(src_id, dst_id, qualifier) of the column FEEDS that facts assert one per pair (OpenLineage's;
    a run not complete included: routing a key through :func:`as_asserts` is exact either way)."""
    return (state.where((F.col("relationship") == "FEEDS") & (F.col("src_label") == "Column") & (F.col("op") == "assert"))
            .select(*_PAIR_KEY).distinct())


def as_asserts(frame: DataFrame, texts: DataFrame, keys: DataFrame, aliases: DataFrame | None) -> DataFrame:
    """The ``runs``' pairs of ``keys`` (src_id, dst_id, qualifier) as one FEEDS assert fact each, as an
    assert per pair would have been (for the keys that facts of another shape also assert);
    ``texts``: :func:`by_text` of the runs."""
    hit = _exploded(texts.select("text", "pairs"), aliases).join(keys, _PAIR_KEY, "left_semi").select("text", "pairs").distinct()
    pairs = _exploded(frame.join(hit, "text"), aliases).join(keys, _PAIR_KEY, "left_semi")
    props = F.create_map(F.lit("transformations"), F.to_json("transformations"), F.lit("via"), F.to_json(F.array("via")))
    made = {"op": F.lit("assert"), "src_label": F.lit("Column"), "relationship": F.lit("FEEDS"),
            "dst_label": F.lit("Column"), "properties": props, "valid_until": F.lit(None).cast("timestamp"),
            "failed": F.lit(False)}
    return pairs.select(*[made[c].alias(c) if c in made else F.col(c) for c in FACTS.names])


def fold_feeds(texts: DataFrame, aliases: DataFrame | None, skip: DataFrame | None = None) -> DataFrame:
    """The column FEEDS edge rows (``lineage.store.schema.EDGES``) of the runs (``texts``: their
    :func:`by_text`), without the keys in ``skip`` (src_id, dst_id, qualifier: folded from asserts instead)."""
    pairs = _exploded(texts, aliases)
    if skip is not None:
        pairs = pairs.join(skip, _PAIR_KEY, "left_anti")
    folded = pairs.groupBy(*_PAIR_KEY).agg(
        F.min("first").alias("valid_from"), F.max("last").alias("last_seen"), F.sum("n").alias("event_count"),
        _recent(F.flatten(F.collect_list("recent"))).alias("_via"),
        F.slice(F.array_sort(F.array_distinct(F.flatten(F.collect_list("transformations")))), 1, VIA_LIMIT).alias("_tr"))
    never = F.lit(None).cast("timestamp")
    return folded.select(
        F.col("src_id").alias("src"), F.lit("FEEDS").alias("relationship"), F.col("dst_id").alias("dst"), "qualifier",
        F.lit("Column").alias("src_label"), F.lit("Column").alias("dst_label"), "valid_from", never.alias("valid_to"),
        "last_seen", F.col("event_count").cast("long").alias("event_count"), F.lit(None).cast("string").alias("closed_by"),
        F.map_from_arrays(F.array(F.lit("transformations"), F.lit("via")),
                          F.array(F.to_json("_tr"), F.to_json("_via"))).alias("properties")).select(*EDGES.names)


def column_mentions(frame: DataFrame, texts: DataFrame, mixed: DataFrame,
                    aliases: DataFrame | None) -> tuple[DataFrame, DataFrame]:
    """What the ``runs`` add to the Column vertices: (mentions, counted). ``mentions``: one row per
    Column a run of a ``mixed`` event names (id, event_time, event_id, seq); ``counted``: for the
    other runs, from their ``texts`` (:func:`by_text`), per Column (id, first_seen, last_seen, n runs)."""
    runs = frame.join(F.broadcast(mixed), "event_id", "left_semi").join(texts.where(F.col("mixed")).select("text", "pairs"), "text")
    mentions = _columns(_exploded(runs, aliases), ["event_time", "event_id", "seq"]).distinct()
    bulk = _columns(_exploded(texts.where(~F.col("mixed")), aliases), ["text", "n", "first", "last"])
    counted = bulk.distinct().groupBy("id").agg(
        F.min("first").alias("first_seen"), F.max("last").alias("last_seen"), F.sum("n").alias("n"))
    return mentions, counted


def _columns(pairs: DataFrame, kept: list[str]) -> DataFrame:
    """Both ends of each pair as ``id`` rows, with the ``kept`` columns."""
    return pairs.select(*kept, F.col("src_id").alias("id")).unionByName(pairs.select(*kept, F.col("dst_id").alias("id")))


def texts_naming(frame: DataFrame, ids: DataFrame, texts: DataFrame, aliases: DataFrame | None) -> DataFrame:
    """The ``runs`` (as stored facts: any frame with ``properties``) whose pairs name an id of ``ids``
    (one column ``id``) -- what the incremental fold refolds a touched Column or column FEEDS from."""
    return _facts_whose_pairs(frame, texts, aliases, lambda pairs: _columns(pairs, ["text"]).join(ids, "id", "left_semi"))


def texts_with_keys(frame: DataFrame, keys: DataFrame, texts: DataFrame, aliases: DataFrame | None) -> DataFrame:
    """The ``pairs`` facts of ``frame`` naming a key of ``keys`` (src_id, relationship, dst_id, qualifier)."""
    wanted = keys.where(F.col("relationship") == "FEEDS").select(*_PAIR_KEY)
    return _facts_whose_pairs(frame, texts, aliases, lambda pairs: pairs.join(wanted, _PAIR_KEY, "left_semi"))


def _facts_whose_pairs(frame: DataFrame, texts: DataFrame, aliases: DataFrame | None,
                       keep: Callable[[DataFrame], DataFrame]) -> DataFrame:
    """The ``pairs`` facts of ``frame`` whose text has a pair ``keep`` keeps (given one row per pair,
    with its ``text`` key): each distinct text exploded once, not each fact."""
    held = frame.where(F.col("op") == PAIRS).withColumn("_text", _text_key())
    hit = keep(_exploded(_texts_of(frame, texts), aliases)).select(F.col("text").alias("_text")).distinct()
    return held.join(hit, "_text", "left_semi").drop("_text")


def touched(frame: DataFrame, texts: DataFrame, aliases: DataFrame | None) -> tuple[DataFrame, DataFrame]:
    """(ids, keys) that the ``pairs`` facts in ``frame`` name: their Columns, their FEEDS keys."""
    pairs = _exploded(_texts_of(frame, texts), aliases)
    keys = pairs.select("src_id", F.lit("FEEDS").alias("relationship"), "dst_id", "qualifier").distinct()
    return _columns(pairs, []).distinct(), keys


def _json_list(text: Column) -> Column:
    return F.from_json(text, "array<string>")


def merge_feeds(stored: DataFrame, texts: DataFrame, aliases: DataFrame | None, blocked: DataFrame) -> DataFrame:
    """The column FEEDS rows (``EDGES``) of the keys that new runs name (``texts``: their
    :func:`by_text`), each the ``stored`` row (the previous generation's edges) merged with what the
    runs add, where that equals a refold from every run: the key is not in ``blocked`` (src_id,
    dst_id, qualifier: asserted one per pair, or named by a superseded run) and the runs all come
    after its stored ``last_seen`` (so its vias, each at its latest, go before the stored ones). A
    daily job's runs assert the same keys every day; refolding each from a month of runs made the
    day's build cost more than the full build (``benchmarks/README.md``)."""
    new = fold_feeds(texts, aliases).join(
        blocked.select(F.col("src_id").alias("src"), F.col("dst_id").alias("dst"), "qualifier"), ["src", "dst", "qualifier"], "left_anti")
    old = stored.where((F.col("relationship") == "FEEDS") & (F.col("src_label") == "Column")).select(
        "src", "dst", "qualifier", *[F.col(c).alias(f"_o_{c}") for c in ("valid_from", "last_seen", "event_count", "properties")])
    both = new.join(old, ["src", "dst", "qualifier"], "left").where(
        F.col("_o_last_seen").isNull() | (F.col("valid_from") > F.col("_o_last_seen")))
    kept = F.col("_o_properties").isNull()

    def listed(name: str, merged: Column) -> Column:
        return F.when(kept, F.col("properties")[name]).otherwise(F.to_json(F.slice(merged, 1, VIA_LIMIT)))

    new_tr, old_tr = _json_list(F.col("properties")["transformations"]), _json_list(F.col("_o_properties")["transformations"])
    new_via, old_via = _json_list(F.col("properties")["via"]), _json_list(F.col("_o_properties")["via"])
    merged = {
        "valid_from": F.coalesce("_o_valid_from", "valid_from"),
        "event_count": F.col("event_count") + F.coalesce("_o_event_count", F.lit(0)),
        "properties": F.map_from_arrays(F.array(F.lit("transformations"), F.lit("via")), F.array(
            listed("transformations", F.array_sort(F.array_distinct(F.concat(old_tr, new_tr)))),
            listed("via", F.array_distinct(F.concat(new_via, old_via))))),
    }
    return both.select(*[merged[c].alias(c) if c in merged else F.col(c) for c in EDGES.names])


def merge_columns(stored: DataFrame, counted: DataFrame, blocked: DataFrame) -> DataFrame:
    """The Column vertices (``VERTICES``) that new runs name, counted per text (``counted``: the
    second part of :func:`column_mentions`, id, first_seen, last_seen, n), each its ``stored`` row
    with those runs added (first and last seen, event count), where no fact but those runs changes
    it: the id is not in ``blocked`` (one column ``id``: named by another new fact, a superseded run
    or a run counted per mention) and has a stored row. A run adds nothing else to a Column."""
    new = counted.join(blocked, "id", "left_anti").select(
        "id", F.col("first_seen").alias("_n_first"), F.col("last_seen").alias("_n_last"), F.col("n").alias("_n"))
    merged = {
        "first_seen": F.least("first_seen", "_n_first"),
        "last_seen": F.greatest("last_seen", "_n_last"),
        "event_count": F.col("event_count") + F.col("_n"),
    }
    return stored.join(new, "id").select(*[merged[c].alias(c) if c in merged else F.col(c) for c in VERTICES.names])
