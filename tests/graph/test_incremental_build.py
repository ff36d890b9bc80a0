"""A build after each day's ingest folds only what the new facts touch, and its graph is the full
fold's, row by row (issue 31 part 3); a build with nothing new folds nothing; readers of a
warehouse read one complete graph generation while a build commits the next."""

from __future__ import annotations

import gzip
import json
import random
import threading
from pathlib import Path

import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from graph.test_index import assert_index_of_its_own_graph
from lineage.generate import generate
from lineage.graph.build import build, mapping_version
from lineage.ingest.pipeline import ingest
from lineage.sql import memo
from lineage.store.warehouse import Warehouse

DAYS = 3


def _records(path: Path) -> list[str]:
    """The records of one generated file, one JSON text each (a JSON array's elements, or lines)."""
    data = path.read_bytes()
    text = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode()
    if text.lstrip().startswith("["):
        return [json.dumps(r) for r in json.loads(text)]
    return [line for line in text.splitlines() if line.strip()]


def _split(events: Path, out: Path, parts: int, seed: int, stray: float = 0.25) -> list[Path]:
    """Every record of ``events`` put in one of ``parts`` folders, as JSON Lines, one file per source
    file: a day's file in its day's folder, but a ``stray`` share of its records (and every record of
    a file without a date) in one at random, so a day's folder holds late and early events too."""
    rng = random.Random(seed)
    folders = [out / f"day{n}" for n in range(parts)]
    files = sorted(p for p in events.rglob("*") if p.is_file())
    dates = sorted({p.name[:10] for p in files if p.name[:4].isdigit()})
    for source in files:
        day = dates.index(source.name[:10]) * parts // len(dates) if source.name[:10] in dates else None
        lines: list[list[str]] = [[] for _ in folders]
        for record in _records(source):
            lines[day if day is not None and rng.random() >= stray else rng.randrange(parts)].append(record)
        name = "_".join(source.relative_to(events).parts).replace(".gz", "") + ".jsonl"
        for folder, chunk in zip(folders, lines):
            if chunk:
                folder.mkdir(parents=True, exist_ok=True)
                (folder / name).write_text("\n".join(chunk) + "\n")
    return folders


def _rows(path: Path, key: tuple[str, ...]) -> list[dict]:
    rows = pq.read_table(str(path)).to_pylist()
    for row in rows:
        row["properties"] = sorted((row.get("properties") or {}).items()) if isinstance(row.get("properties"), dict) \
            else sorted(row.get("properties") or [])
    return sorted(rows, key=lambda r: tuple(str(r[k]) for k in key))


def _graph(warehouse: Path) -> dict[str, list[dict]]:
    wh = Warehouse.at(warehouse)
    return {
        "vertices": _rows(wh.vertices, ("id",)),
        "edges": _rows(wh.edges, ("src", "relationship", "dst", "qualifier", "valid_from", "valid_to")),
        "changes": _rows(wh.changes, ("change_id",)),
    }


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    root = tmp_path_factory.mktemp("incremental")
    generate(root / "platform", tables=16, days=DAYS, seed=3)
    return root


@pytest.mark.parametrize("seed", [11])
def test_day_by_day_builds_equal_one_full_build(spark, platform, seed):
    events, aliases = platform / "platform" / "events", platform / "platform" / "aliases.csv"
    folders = _split(events, platform / f"split{seed}", DAYS, seed)
    daily = platform / f"daily{seed}"
    results, seen, stop = [], [], threading.Event()

    def reader() -> None:  # reads while the builds commit: each snapshot one whole generation
        while not stop.is_set():
            snap = Warehouse.at(daily)
            if snap.generation:
                seen.append((snap.generation, *(ds.dataset(str(getattr(snap, name))).count_rows()
                                                for name in ("vertices", "edges", "changes"))))
            stop.wait(0.05)

    for number, folder in enumerate(folders):
        ingest([folder], daily, spark=spark)
        opened = Warehouse.at(daily)  # a command's snapshot, opened before the build
        watching = threading.Thread(target=reader) if number else None
        if watching:
            watching.start()
        results.append(build(daily, spark=spark, aliases=aliases))
        if watching:
            stop.set()
            watching.join()
            stop.clear()
    # the snapshot opened before the last build still reads the generation before it, whole
    assert opened.generation == results[-2].generation != Warehouse.at(daily).generation
    assert ds.dataset(str(opened.edges)).count_rows() == results[-2].edges
    # the first build folds everything (no graph yet), every later one only what its day touched
    assert [r.fold for r in results] == ["full"] + ["incremental"] * (DAYS - 1), [r.fold_reason for r in results]
    assert all(r.new_events and r.refolded_vertices for r in results[1:])
    # the column FEEDS and Columns only a day's runs name are merged, the others refolded: both ways
    assert all(r.merged_edge_keys and r.merged_vertices for r in results[1:]), [r.merged_edge_keys for r in results]
    assert not (daily / ".txn").exists()  # the scratch of the incremental fold is gone
    # each day's scripts' analyses kept for the next (lineage.sql.memo): one directory, this code's
    kept = list(Warehouse.at(daily).sql_cache.iterdir())
    assert [p.name for p in kept] == [memo.directory(Path(), mapping_version()).name] and any(kept[0].rglob("*.json"))
    counts = {r.generation: (r.generation, r.vertices, r.edges, r.changes) for r in results}
    assert len({s[0] for s in seen}) >= 1
    assert all(s == counts[s[0]] for s in seen)  # never a mix of two generations, never half written

    # nothing new: returns at once, without Spark (given none that works) and without a new generation
    again = build(daily, spark=object(), aliases=aliases)
    assert (again.fold, again.generation, again.new_events) == ("none", results[-1].generation, 0)
    assert (again.vertices, again.edges) == (results[-1].vertices, results[-1].edges)

    whole = platform / f"whole{seed}"
    ingest([events], whole, spark=spark)
    once = build(whole, spark=spark, aliases=aliases)
    assert once.fold == "full"
    daily_graph, whole_graph = _graph(daily), _graph(whole)
    for name in ("vertices", "edges", "changes"):
        assert len(daily_graph[name]) == len(whole_graph[name]), name
        assert daily_graph[name] == whole_graph[name], name
    assert len(whole_graph["edges"]) > 500 and any(e["relationship"] == "FEEDS" for e in whole_graph["edges"])
    # each generation, incremental or full, is written with the question index of its own graph
    for warehouse in (daily, whole):
        assert_index_of_its_own_graph(Warehouse.at(warehouse))
    # each pairs text stored once, however many builds met it; every text of the one build among them
    daily_texts, whole_texts = (ds.dataset(str(w / "pairs_texts")).to_table().column("text").to_pylist() for w in (daily, whole))
    assert whole_texts and len(daily_texts) == len(set(daily_texts)) and set(whole_texts) <= set(daily_texts)


def test_a_fact_asserting_feeds_without_a_qualifier_makes_every_build_full(spark, tmp_path):
    """Such a fact would look like a derived table FEEDS to the incremental fold: the build that meets
    it folds everything, its manifest records it, and so does every later build; until then each
    manifest says none, and a build looks only at its new facts (issue 31 part 3)."""
    import pyarrow as pa

    from graph.test_column_resolution import DDL, JOBS, _write
    from lineage.graph import incremental
    from lineage.store.schema import FACTS

    wh = tmp_path / "wh"
    ingest([_write(tmp_path / "jobs", JOBS, [])], wh, spark=spark)
    first = build(wh, spark=spark)
    manifest = lambda: incremental.read_manifest(Warehouse.at(wh))  # noqa: E731
    assert first.fold == "full" and manifest()[incremental.UNQUALIFIED] is False

    row = {name: None for name in FACTS.names}
    row.update(event_id="injected", kind="k", seq=0, op="assert", src_id="table:maxcompute:p.a", src_label="Table",
               relationship="FEEDS", dst_id="table:maxcompute:p.b", dst_label="Table", qualifier="",
               properties=[], failed=False)
    schema = FACTS.arrow()
    table = pa.Table.from_pylist([row], schema=schema).drop_columns(["source"])  # the partition is the folder
    pq.write_table(table, str(wh / "facts" / "source=maxcompute" / "part-injected.parquet"))

    met = build(wh, spark=spark)
    assert (met.fold, met.fold_reason) == ("full", "a fact asserts FEEDS without a qualifier")
    assert manifest()[incremental.UNQUALIFIED] is True
    ingest([_write(tmp_path / "ddl", DDL, [])], wh, spark=spark)
    after = build(wh, spark=spark)
    assert after.new_events and (after.fold, after.fold_reason) == ("full", "a fact asserts FEEDS without a qualifier")
