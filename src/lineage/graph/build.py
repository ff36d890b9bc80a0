"""The build job: accepted events -> facts (incremental) -> folded graph and Change records.

Facts are extracted only for events not extracted before by the same mapping version (a
changed mapping, SQL parser or id scheme re-extracts everything); the fold then refolds what the
new facts touch from all the stored facts of their keys (:mod:`lineage.graph.incremental`), or
every fact when it cannot prove that equal, so building after each day's ingest gives the same
graph as one build over everything. Each build writes a new graph generation and flips the link
``graph/current`` to it (:mod:`lineage.store.warehouse`); a build with nothing new returns at once. A build holds the warehouse's writer lock (:mod:`lineage.store.lock`) and commits in two
steps (:mod:`lineage.store.commit`): the new facts with the record of their extraction, then the
graph with the build's log. Killed at any point, the warehouse is as before or as after a step,
and the next build does the rest.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from lineage.store.commit import Transaction
from lineage.analysis.propagation import exposure_part
from lineage.facts import core
from lineage.facts.extract import by_script, facts_frame, facts_of_event
from lineage.graph import around, column_feeds, fold, identities, incremental, links, resolve
from lineage.graph import index as question_index
from lineage.errors import UsageError
from lineage.graph.aliases import read_aliases
from lineage.render.progress import forwarded
from lineage.store.lock import DEFAULT_WAIT, writer
from lineage.store.runs import RunReport, new_run_id
from lineage.store.schema import CHANGES, EDGES, EXTRACTED, FACTS, PAIRS_TEXTS, VERTICES
from lineage.settings import Settings
from lineage.sql import memo
from lineage.store.testhooks import pause_point
from lineage.store.warehouse import AROUND, CURRENT, INDEX, Warehouse

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

    from pyspark.sql import DataFrame, SparkSession

# What the facts depend on: every source file of these packages (sub-packages included, so a
# new source or a split module is covered without editing a list) and of these modules; a
# change to any of them re-extracts every event. Absent ones are skipped.
VERSIONED_PACKAGES = ("events", "facts", "sql")
VERSIONED_FILES = ("ids.py", "analysis/rules.py")
"""Besides the packages: the ids, and the table saying which operations are writes and which changes."""


class NothingToBuild(UsageError):
    """The warehouse holds no events (a usage error: ingest first)."""


@dataclass
class BuildResult(RunReport):
    """What one build did; ``as_obj`` is ``build --json`` and ``WAREHOUSE/builds/<build>.json``."""

    id_field = "build_id"

    build_id: str
    warehouse: str
    mapping_version: str
    reextracted: bool
    events: int
    new_events: int
    new_facts: int
    facts: int
    failed_facts: int
    mapping_errors: int
    vertices: int
    edges: int
    changes: int
    vertices_by_label: dict[str, int] = field(default_factory=dict)
    edges_by_relationship: dict[str, int] = field(default_factory=dict)
    error_examples: list[dict[str, object]] = field(default_factory=list)
    aliases: int = 0
    tied_identities: int = 0
    """Accounts merged into the uid the events give beside them (``graph.identities``), beside the file's ``aliases``."""
    graph_version: str = ""
    fold: str = "full"
    """``full`` (every fact), ``incremental`` (what the new facts touch) or ``none`` (nothing new)."""
    fold_reason: str = ""
    """Why the fold was full (or why there was none)."""
    generation: str = ""
    refolded_vertices: int = 0
    refolded_edge_keys: int = 0
    merged_vertices: int = 0
    """An incremental fold: the vertices and column FEEDS whose stored row was merged with the new
    facts naming them instead of refolded (``graph.merge``, ``column_feeds.merge_feeds``)."""
    merged_edge_keys: int = 0
    earliest_new_fact: str | None = None
    """An incremental fold: the earliest event time among the facts it folded (None: some had no
    time, or the fold was not incremental). The graph before it is as it was (report history)."""


def mapping_version(packages: tuple[str, ...] = VERSIONED_PACKAGES) -> str:
    """A hash of the code that turns events into facts (see ``VERSIONED_PACKAGES``)."""
    root = resources.files("lineage")
    digest = hashlib.sha256()
    for package in packages:
        for name, entry in sorted(_python_files(root.joinpath(package), package)):
            digest.update(name.encode() + b"\0" + entry.read_bytes())
    for name in VERSIONED_FILES:
        entry = root.joinpath(name)
        if entry.is_file():
            digest.update(name.encode() + b"\0" + entry.read_bytes())
    return digest.hexdigest()[:16]


def graph_version() -> str:
    """A hash of all the code a graph is made by: the facts' and the fold's."""
    return mapping_version((*VERSIONED_PACKAGES, "graph"))


def up_to_date(warehouse: str | Path) -> dict | None:
    """The last build's log when the graph it wrote is still what a build would write now: no
    event stored since (the events' row count is the one it built from; ingest only appends),
    the same code, an aliases file no newer than it. ``weekly`` then skips the build."""
    import pyarrow.dataset as ds

    wh = Warehouse.at(warehouse)
    logs = sorted(wh.builds.glob("*.json")) if wh.builds.is_dir() else []
    if not logs or not all(Warehouse.has_data(p) for p in (wh.events, wh.vertices, wh.edges)):
        return None
    last = json.loads(logs[-1].read_text())
    if last.get("graph_version") != graph_version():
        return None
    if wh.aliases.is_file() and wh.aliases.stat().st_mtime > logs[-1].stat().st_mtime:
        return None
    stored = ds.dataset(str(wh.events), format="parquet", partitioning="hive").count_rows()
    return last if stored == last.get("events") else None


def _python_files(folder: Traversable, prefix: str) -> Iterator[tuple[str, Traversable]]:
    """(path under ``lineage``, file) of every ``.py`` file below ``folder``."""
    if not folder.is_dir():
        return
    for entry in folder.iterdir():
        name = f"{prefix}/{entry.name}"
        if entry.is_dir():
            yield from _python_files(entry, name)
        elif entry.name.endswith(".py"):
            yield name, entry


def alias_mapping(path: str | Path | None, wh: Warehouse) -> dict[str, str]:
    """The alias table from ``path`` (or the warehouse's aliases.csv when present)."""
    if path is None and wh.aliases.is_file():
        path = wh.aliases
    return read_aliases(path) if path is not None else {}


def aliases_frame(spark: "SparkSession", path: str | Path | None, wh: Warehouse,
                  facts: "DataFrame | None" = None) -> tuple["DataFrame | None", int]:
    """The alias table the fold applies: the file's from ``path`` (or the warehouse's aliases.csv
    when present), with ``facts``, the identities they tie together (``graph.identities``); and
    the file's line count."""
    mapping = alias_mapping(path, wh)
    tied = identities.ties(identities.tied_pairs(facts)) if facts is not None else {}
    return mapping_frame(spark, identities.combined(mapping, tied)), len(mapping)


def mapping_frame(spark: "SparkSession", mapping: dict[str, str]) -> "DataFrame | None":
    """alias -> canonical as a frame (None when empty: the fold then resolves nothing)."""
    if not mapping:
        return None
    return spark.createDataFrame(sorted(mapping.items()), "alias string, canonical string")


def unchanged(wh: Warehouse, aliases: str | Path | None = None) -> BuildResult | None:
    """The last build's result when nothing was ingested or changed since (no Spark, no fold):
    :func:`up_to_date`, the same alias table, and the facts its generation was folded from."""
    last = up_to_date(wh.root)
    manifest = incremental.read_manifest(wh.latest())
    if last is None or manifest is None:
        return None
    if manifest.get("aliases") != incremental.aliases_hash(alias_mapping(aliases, wh)):
        return None
    if set(manifest.get("fact_files", ())) != set(incremental.fact_files(wh)):
        return None
    result = BuildResult(**{f.name: last[f.name] for f in fields(BuildResult) if f.name in last})
    result.new_events = result.new_facts = result.refolded_vertices = result.refolded_edge_keys = 0
    result.merged_vertices = result.merged_edge_keys = 0
    result.fold, result.fold_reason = "none", f"nothing new since build {last.get('build_id')}"
    return result


def build(
    warehouse: str | Path,
    *,
    spark: "SparkSession | None" = None,
    aliases: str | Path | None = None,
    progress: Callable[[str], None] | None = None,
    settings: Settings | None = None,
    full: bool = False,
    wait: float = DEFAULT_WAIT,
    say: Callable[[str], None] | None = None,
) -> BuildResult:
    """Build (or bring up to date) the graph of ``warehouse``. ``full``: extract the facts of
    every event again (replacing the facts: the repair for damaged facts); ``wait``: seconds to
    wait for another writer; ``say``: where lock and recovery messages go."""
    wh = Warehouse.at(warehouse)
    nothing = f"no events in {wh.events}: run `lineage ingest PATH... --warehouse {wh.root}` first"
    if not wh.root.is_dir():
        raise NothingToBuild(nothing)  # before the lock, which would create the directory
    with writer(wh.root, "lineage build", wait, say):
        if not Warehouse.has_data(wh.events):
            raise NothingToBuild(nothing)
        if not full and (same := unchanged(wh, aliases)) is not None:
            same.build_id = new_run_id()
            with Transaction(wh.root, "build.log") as txn:  # a build is logged even when it folds nothing
                current = wh.latest()
                if not question_index.usable(current.index):  # a generation built before it, or damaged
                    (progress or (lambda _msg: None))("writing the question index")
                    question_index.write(current.vertices, current.edges, txn.replace(current.index),
                                         exposure_part(current.vertices, current.edges))
                    same.fold_reason += "; the question index written"
                if not around.usable(current.around):  # likewise
                    (progress or (lambda _msg: None))("writing the edges around each vertex")
                    around.write(current.edges, txn.replace(current.around))
                    same.fold_reason += "; the edges around each vertex written"
                same.log(txn.append(wh.builds))
            return same
        if spark is None:
            from lineage.spark import get_spark

            spark = get_spark("lineage-build", settings=settings)
        step = progress or (lambda _msg: None)
        with forwarded(step):  # the fold's step lines go where this build's progress goes
            return _build(spark, wh, aliases, step, full)


def _build(spark: "SparkSession", wh: Warehouse, aliases: str | Path | None, say: Callable[[str], None],
           full: bool) -> BuildResult:
    import pyarrow.parquet as pq
    from pyspark import StorageLevel
    from pyspark.sql import functions as F

    version = mapping_version()
    build_id = new_run_id()

    reextract = full
    if full:
        say("--full: extracting the facts of every event again")
    elif Warehouse.has_data(wh.extracted):
        versions = set(pq.read_table(str(wh.extracted), columns=["version"]).column("version").unique().to_pylist())
        reextract = versions != {version}
        if reextract:
            say(f"the event mapping changed (version {version}): re-extracting facts from every event")

    # a script's analyses are kept for the next build (every day's scripts ran the day before),
    # those of another code version removed; --full analyses every script again
    analyses = memo.directory(wh.sql_cache, version)
    memo.keep_only(wh.sql_cache, None if full else analyses)
    events = spark.read.parquet(str(wh.events)).select(*EXTRACTION_COLUMNS)
    total_events = events.count()
    new = events
    if not reextract and Warehouse.has_data(wh.extracted):
        done = spark.read.parquet(str(wh.extracted)).select("source", "event_id")
        new = events_of(wh, _event_keys(spark, wh).join(done, ["source", "event_id"], "left_anti"))
    new = new.persist(StorageLevel.DISK_ONLY)
    new_count = new.count()
    new_facts = 0
    # facts and the record of which events they came from are committed together: never one
    # without the other (facts without it would be extracted again by the next build: doubled)
    with Transaction(wh.root, "build.facts") as facts_txn:  # committed at the end of the block
        stage = facts_txn.replace if reextract else facts_txn.append
        facts_dir, extracted_dir, texts_dir = stage(wh.facts), stage(wh.extracted), stage(wh.pairs_texts)
        texts_stored = None if reextract else wh.pairs_texts
        if new_count:
            say(f"extracting facts from {new_count} new event(s) of {total_events}")
            sent = facts_frame(by_script(new), lambda r: facts_of_event(
                r["source"], r["kind"], r["event_id"], r["event_time"], r["doc"]), analyses).persist(StorageLevel.MEMORY_AND_DISK)
            facts_new, new_facts = _write_facts(sent, facts_dir, texts_dir, texts_stored, say)
            pause_point("build.write")
            say("recording which events were extracted")
            per_event = facts_new.groupBy("source", "event_id").agg(F.count(F.lit(1)).cast("int").alias("facts"))
            extracted = (
                new.select("source", "event_id")
                .join(per_event, ["source", "event_id"], "left")
                .select("source", "event_id", F.lit(version).alias("version"),
                        F.coalesce("facts", F.lit(0)).cast("int").alias("facts"),
                        F.current_timestamp().alias("extracted_at"))
                .select(*EXTRACTED.names)
            )
            extracted.coalesce(1).write.mode("append").parquet(str(extracted_dir))
            new_facts += _resolve(spark, wh, facts_new, reextract, facts_dir, texts_dir, texts_stored, say, analyses)
            new_facts += _link(spark, wh, facts_new, reextract, facts_dir, say)
            sent.unpersist()
        new.unpersist()

    if Warehouse.has_data(wh.facts):
        stored = spark.read.parquet(str(wh.facts)).select(*FACTS.names)
    else:
        stored = spark.createDataFrame([], FACTS.ddl)
    facts = resolve.current(stored)  # a later resolution of a job supersedes (a scan and a filter: not kept)
    texts = _read_texts(spark, wh.pairs_texts)
    old = wh.latest()
    files, manifest = incremental.fact_files(wh), incremental.read_manifest(old)
    file_mapping = alias_mapping(aliases, wh)
    tied = identities.ties(identities.tied_pairs(facts))  # people-sized: collected
    alias_df, alias_count = mapping_frame(spark, identities.combined(file_mapping, tied)), len(file_mapping)
    undecided = {a: c for a, c in tied.items() if a not in file_mapping}  # what the ties add to the file
    alias_key, tied_key, now = incremental.aliases_hash(file_mapping), incremental.aliases_hash(undecided), graph_version()
    reason = incremental.why_full(manifest, files, now, alias_key, reextract, full, tied_key)
    if reason is None:
        reason = incremental.unreadable(old)
    new_files = [f for f in files if f not in set((manifest or {}).get("fact_files", ()))]
    new_facts_df = incremental.read_facts(spark, wh, new_files)  # a lazy scan of the new files: read by the check and the fold
    # a generation's manifest says whether its facts assert one: then only the new facts are looked at
    unqualified = incremental.asserted_unqualified_feeds(
        new_facts_df if reason is None and manifest.get(incremental.UNQUALIFIED) is False else facts)
    if reason is None and unqualified:
        reason = "a fact asserts FEEDS without a qualifier"
    scratch = fold.Scratch(wh.root / ".txn" / f"build.scratch-{build_id}")  # hidden from readers, removed below
    refolded = {"vertices": 0, "edges": 0, "merged_vertices": 0, "merged_edges": 0}
    earliest = None
    if reason is None and not new_files:
        say("no new facts: the graph stays as it is")
        kind, generation = "none", old.generation or ""
    else:
        generation = f"g-{build_id}"
        if reason is None:
            kind = "incremental"
            say(f"folding what {len(new_files)} new fact file(s) touch into the temporal graph")
            gone = resolve.superseded(stored, new_facts_df)
            vertices, edges, changes, refolded = incremental.refold(old, facts, new_facts_df, gone, alias_df, scratch, texts)
            earliest = incremental.earliest(new_facts_df)
        else:
            kind = "full"
            say(f"folding every fact into the temporal graph ({reason})")
            vertices, edges, changes = fold.fold(facts, alias_df, scratch, texts=texts)
    # a new generation beside the previous one, then the link graph/current flipped to it, with the log
    with Transaction(wh.root, "build.graph") as graph_txn:  # committed at the end of the block
        if kind == "none":
            staged = {"vertices": old.vertices, "edges": old.edges, "changes": old.changes}
        else:
            where = graph_txn.replace(wh.graph / generation)
            staged = {name: where / name for name in ("vertices", "edges", "changes")}
            for name, frame in (("vertices", vertices), ("edges", edges), ("changes", changes)):
                say(f"writing {name}")
                clustered = DATASETS[name].select_from(frame).sortWithinPartitions(*CLUSTERED_BY[name])
                clustered.write.mode("overwrite").option("parquet.block.size", ROW_GROUP_BYTES).parquet(str(staged[name]))
                pause_point("build.graph-write")
            say("writing the edges around each vertex")
            around.write(staged["edges"], where / AROUND)
            say("writing the question index")
            question_index.write(staged["vertices"], staged["edges"], where / INDEX,
                                 exposure_part(staged["vertices"], staged["edges"]))
            (where / incremental.MANIFEST).write_text(json.dumps(
                {"build_id": build_id, "graph_version": now, "aliases": alias_key, "tied": tied_key, "fact_files": files,
                 incremental.UNQUALIFIED: unqualified}, indent=1))
            graph_txn.point(wh.graph / CURRENT, generation)
            for name in ("vertices", "edges", "changes"):
                graph_txn.point(wh.graph / name, f"{CURRENT}/{name}")

        stored_v = spark.read.parquet(str(staged["vertices"]))
        stored_e = spark.read.parquet(str(staged["edges"]))
        by_label = {r["label"]: r["count"] for r in stored_v.groupBy("label").count().orderBy("label").collect()}
        by_rel = {r["relationship"]: r["count"] for r in stored_e.groupBy("relationship").count().orderBy("relationship").collect()}
        errors = facts.where(F.col("op") == core.ERROR)
        counted = facts.agg(F.count(F.when(F.col("op") != core.ERROR, 1)).alias("facts"),
                            F.count(F.when(F.col("failed"), 1)).alias("failed"),
                            F.count(F.when(F.col("op") == core.ERROR, 1)).alias("errors")).first()  # one scan
        examples = [
            {"source": r["source"], "kind": r["kind"], "event_id": r["event_id"], "reason": r["properties"].get("reason")}
            for r in errors.orderBy("source", "event_id").limit(10).collect()
        ] if counted["errors"] else []
        result = BuildResult(
            build_id=build_id,
            warehouse=str(wh.root),
            mapping_version=version,
            reextracted=reextract,
            events=total_events,
            new_events=new_count,
            new_facts=new_facts,
            facts=counted["facts"],
            failed_facts=counted["failed"],
            mapping_errors=counted["errors"],
            vertices=sum(by_label.values()),
            edges=sum(by_rel.values()),
            changes=spark.read.parquet(str(staged["changes"])).count(),
            vertices_by_label=by_label,
            edges_by_relationship=by_rel,
            error_examples=examples,
            aliases=alias_count,
            tied_identities=len(tied),
            graph_version=graph_version(),
            fold=kind,
            fold_reason=reason or ("nothing new to fold" if kind == "none" else ""),
            generation=generation,
            refolded_vertices=refolded["vertices"],
            refolded_edge_keys=refolded["edges"],
            merged_vertices=refolded["merged_vertices"],
            merged_edge_keys=refolded["merged_edges"],
            earliest_new_fact=earliest,
        )
        result.log(graph_txn.append(wh.builds))
    if kind != "none":
        shutil.rmtree(scratch.folder, ignore_errors=True)
        try:
            scratch.folder.parent.rmdir()  # .txn: none at rest
        except OSError:
            pass
    prune(wh)
    return result


EXTRACTION_COLUMNS = ("source", "kind", "event_id", "event_time", "doc")
"""What extraction and resolution read of an event."""


def _event_keys(spark: "SparkSession", wh: Warehouse) -> "DataFrame":
    """(source, event_id, event_date: its partition) of every stored event: without the documents."""
    return spark.read.parquet(str(wh.events)).select("source", "event_id", "event_date")


def events_of(wh: Warehouse, keys: "DataFrame") -> "DataFrame":
    """The stored events (:data:`EXTRACTION_COLUMNS`) of ``keys`` (source, event_id; with ``event_date``,
    their partition, when known), read from their partitions only. Why: a document is most of an
    event's bytes, and a day's build that joined the month's events to find the day's (or the jobs
    it resolves) read and shuffled every document: 28 s and 22 s of a 10^6-event day build."""
    from pyspark.sql import functions as F

    spark = keys.sparkSession
    if "event_date" not in keys.columns:
        keys = _event_keys(spark, wh).join(keys.select("source", "event_id"), ["source", "event_id"], "left_semi")
    # computed once, read twice; a checkpoint, not a cache: a cached frame is found again by its plan,
    # and the next build's plan of the same files is the same (it read this build's keys)
    keys = keys.localCheckpoint()
    found = keys.select("source", "event_date").distinct().collect()
    events = spark.read.parquet(str(wh.events))
    if not found:
        return events.select(*EXTRACTION_COLUMNS).limit(0)
    place = F.concat_ws("|", "source", F.coalesce("event_date", F.lit("")))  # an event without a time: its own partition
    where = sorted({f"{r['source']}|{r['event_date'] or ''}" for r in found})
    return (events.where(place.isin(*where)).join(keys.select("source", "event_id"), ["source", "event_id"], "left_semi")
            .select(*EXTRACTION_COLUMNS))


def _resolve(spark: "SparkSession", wh: Warehouse, facts_new: "DataFrame", reextract: bool,
             facts_dir: Path, texts_dir: Path, texts_stored: Path | None, say: Callable[[str], None],
             analyses: Path) -> int:
    """Column lineage of jobs that needed another table's columns, computed with the graph's
    (:mod:`lineage.graph.resolve`), written beside the new facts (their texts beside the new
    texts): how many facts."""
    stored = None if reextract or not Warehouse.has_data(wh.facts) else wh.facts
    round_ = 1 + (len(list(wh.builds.glob("*.json"))) if wh.builds.is_dir() else 0)
    derived = resolve.derived_facts(lambda keys: events_of(wh, keys), stored, facts_new.select(*FACTS.names), round_,
                                    analyses)
    if derived is None:
        return 0
    say("resolving column lineage with the graph's schemas")
    sent = derived.persist()
    count = _write_facts(sent, facts_dir, texts_dir, texts_stored, say)[1]
    sent.unpersist()
    return count


def _link(spark: "SparkSession", wh: Warehouse, facts_new: "DataFrame", reextract: bool, facts_dir: Path,
          say: Callable[[str], None]) -> int:
    """The facts tying MaxCompute jobs to the DataWorks nodes that ran them (:mod:`lineage.graph.links`),
    written beside the new facts: how many."""
    stored = None if reextract or not Warehouse.has_data(wh.facts) else spark.read.parquet(str(wh.facts))
    derived = links.derived_facts(stored, facts_new.select(*FACTS.names)).persist()
    count = derived.count()
    if count:
        say(f"tying {count} job fact(s) to the DataWorks nodes that ran them")
        _append_facts(derived, facts_dir)
    derived.unpersist()
    return count


def _write_facts(sent: "DataFrame", facts_dir: Path, texts_dir: Path, texts_stored: Path | None,
                 say: Callable[[str], None]) -> tuple["DataFrame", int]:
    """The rows the Python workers sent (``core.stored``; persisted): their facts written beside the
    new facts, their texts beside the new texts (:func:`_write_texts`); (the facts, how many)."""
    facts, texts = column_feeds.apart(sent)
    count = facts.count()
    say(f"writing {count} fact(s)")
    if count:
        _append_facts(facts, facts_dir)
    _write_texts(texts, texts_dir, texts_stored)
    return facts, count


def _append_facts(facts: "DataFrame", facts_dir: Path) -> None:
    """``facts`` added to the facts dataset, a folder per source, each task writing its own rows: a
    shuffle by source first (one file per source) made the write of 4.3 million facts 26 s, not 14 s."""
    facts.write.mode("append").partitionBy("source").parquet(str(facts_dir))


def _write_texts(texts: "DataFrame", staged: Path, stored: Path | None) -> None:
    """Each pairs text of ``texts`` once, unless it is stored already (``stored``: the warehouse's texts
    when the build appends to its facts) or staged by this build: the texts stay each stored once."""
    spark = texts.sparkSession
    known = [str(p) for p in (stored, staged) if p is not None and Warehouse.has_data(p)]
    fresh = texts.dropDuplicates(["text"])
    if known:
        fresh = fresh.join(spark.read.parquet(*known).select("text"), "text", "left_anti")
    fresh.coalesce(1).write.mode("append").parquet(str(staged))


def _read_texts(spark: "SparkSession", path: Path) -> "DataFrame":
    """The stored pairs texts (``PAIRS_TEXTS``), each once."""
    if not Warehouse.has_data(path):
        return spark.createDataFrame([], PAIRS_TEXTS.ddl)
    return spark.read.parquet(str(path)).select(*PAIRS_TEXTS.names).dropDuplicates(["text"])


DATASETS = {"vertices": VERTICES, "edges": EDGES, "changes": CHANGES}
CLUSTERED_BY = {"vertices": ("label", "id"), "edges": ("relationship", "src_label", "src"), "changes": ("entity_id",)}
"""Each file of a generation is sorted so, and written in small row groups (:data:`ROW_GROUP_BYTES`):
their min/max statistics let a reader of part of the graph (``graph.api.load_rows``: a question's
relationships, its labels) skip the rest without reading it -- the graph's clustered index."""
ROW_GROUP_BYTES = 4 * 1024 * 1024

KEEP_GENERATIONS = 2  # the current one and the one before: a reader that opened it may still read it


def prune(wh: Warehouse) -> None:
    """Remove the graph generations older than the last ``KEEP_GENERATIONS`` (under the lock)."""
    current = wh.latest().generation
    if current is None:
        return
    names = sorted(p.name for p in wh.graph.iterdir() if p.is_dir() and not p.is_symlink() and p.name.startswith("g-"))
    older = [n for n in names if n < current]
    for name in older[: max(0, len(older) - (KEEP_GENERATIONS - 1))]:
        shutil.rmtree(wh.graph / name, ignore_errors=True)
