"""Script analyses kept across builds (``lineage.sql.memo``): the facts made from analyses read back
are the facts made from analyses computed, a damaged entry is computed again, and nothing is kept
without a directory."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from lineage.facts.core import PAIRS
from lineage.facts.extract import facts_of_event
from lineage.facts.maxcompute import columns, helpers
from lineage.generate import generate
from lineage.ingest.records import ACCEPTED, COLUMN_NAMES, process_file
from lineage.sql import memo

CACHED = (helpers._lineage_of, columns._script, columns._needs, columns._outcome)


@pytest.fixture
def kept(tmp_path):
    """Analyses kept under a fresh directory, each process cache empty before and after."""
    root = tmp_path / "cache" / "a-version"
    for fn in CACHED:
        fn.cache_clear()
    memo.use(root)
    yield root
    memo.use(None)
    for fn in CACHED:
        fn.cache_clear()


@pytest.fixture(scope="module")
def events(tmp_path_factory) -> list[dict]:
    """Every accepted event of a generated platform (its MaxCompute jobs' scripts among them)."""
    root = tmp_path_factory.mktemp("memo")
    generate(root / "platform", tables=40, days=2, seed=5)
    rows = []
    for path in sorted((root / "platform" / "events").rglob("*.json*")):
        rows += [dict(zip(COLUMN_NAMES, row)) for row in process_file(str(path))]
    accepted = [r for r in rows if r["status"] == ACCEPTED]
    assert sum(r["kind"] == "JobChange" for r in accepted) > 50
    return accepted


def _facts(events: list[dict]) -> list[list]:
    return [facts_of_event(r["source"], r["kind"], r["event_id"], r["event_time"], r["doc"]) for r in events]


def test_facts_from_analyses_read_back_equal_facts_from_analyses_computed(events, kept, monkeypatch):
    memo.use(None)
    computed = _facts(events)
    made = [f for facts in computed for f in facts]
    assert {"READS", "WRITES", "HAS_COLUMN"} <= {f.relationship for f in made}  # table lineage, schemas
    assert any(f.op == PAIRS for f in made)  # and column lineage
    for fn in CACHED:
        fn.cache_clear()

    memo.use(kept)
    assert _facts(events) == computed  # analysed, and kept
    entries = list(kept.rglob("*.json"))
    assert len(entries) > 100
    for fn in CACHED:
        fn.cache_clear()  # as the next build's worker: nothing in memory

    def never(*_args, **_kw):
        raise AssertionError("analysed again: the kept analysis was not read")

    monkeypatch.setattr(helpers, "table_lineage", never)
    monkeypatch.setattr(columns, "column_lineage", never)
    assert _facts(events) == computed
    assert sorted(kept.rglob("*.json")) == sorted(entries)


def test_a_damaged_entry_is_computed_again_and_rewritten(kept, caplog):
    calls: list[str] = []

    @memo.on_disk("twice", list, tuple, maxsize=0)  # the files alone, no memory
    def twice(text: str, n: int) -> tuple[str, ...]:
        calls.append(text)
        return (text,) * n

    assert twice("a", 2) == twice("a", 2) == ("a", "a")
    assert twice("a", 3) == ("a", "a", "a")  # other arguments: another entry
    assert calls == ["a", "a"]
    entries = sorted(kept.rglob("*.json"))
    assert len(entries) == 2 and not list(kept.rglob(".tmp-*"))

    for entry in entries:
        entry.write_text('{"not": "a list"')
    assert twice("a", 2) == ("a", "a") and calls == ["a", "a", "a"]
    assert "unreadable" in caplog.text and "computed again" in caplog.text
    assert [_readable(e) for e in entries].count(["a", "a"]) == 1
    assert twice("a", 2) == ("a", "a") and calls == ["a", "a", "a"]  # rewritten whole: read back


def _readable(path: Path):
    try:
        return json.loads(path.read_text())
    except ValueError:
        return None


def test_nothing_is_kept_without_a_directory_or_where_it_cannot_be_written(tmp_path, caplog):
    calls: list[str] = []

    @memo.on_disk("once", list, tuple, maxsize=0)  # the files alone, no memory
    def once(text: str) -> tuple[str, ...]:
        calls.append(text)
        return (text,)

    memo.use(None)
    assert once("b") == once("b") == ("b",) and calls == ["b", "b"]

    blocked = tmp_path / "a-file"
    blocked.write_text("")
    memo.use(blocked / "analyses")  # under a file: cannot be made
    try:
        assert once("c") == ("c",) and once("d") == ("d",)
    finally:
        memo.use(None)
    assert caplog.text.count("not kept") == 1  # said once, not once per analysis


def test_an_analysis_in_memory_is_still_kept_under_the_next_directory(tmp_path):
    """A worker that analysed a script for one warehouse writes it under the next one's too (a
    notebook or a test session building two warehouses in one Spark session)."""
    calls: list[str] = []

    @memo.on_disk("remembered", list, tuple)
    def remembered(text: str) -> tuple[str, ...]:
        calls.append(text)
        return (text,)

    first, second = tmp_path / "first", tmp_path / "second"
    try:
        memo.use(first)
        assert remembered("x") == remembered("x") == ("x",) and calls == ["x"]  # in memory: once
        memo.use(second)
        assert remembered("x") == ("x",)
    finally:
        memo.use(None)
    assert len(list(first.rglob("*.json"))) == len(list(second.rglob("*.json"))) == 1


def test_only_the_current_versions_analyses_are_kept(tmp_path):
    cache = tmp_path / "cache" / "sql"
    current, older = memo.directory(cache, "v2"), memo.directory(cache, "v1")
    for directory in (current, older):
        (directory / "ab").mkdir(parents=True)
        (directory / "ab" / "x.json").write_text("[]")
    assert current != older and current.name.startswith("v2-sqlglot-")
    memo.keep_only(cache, current)
    assert [p.name for p in cache.iterdir()] == [current.name]
    memo.keep_only(cache, None)
    assert not list(cache.iterdir())
    memo.keep_only(tmp_path / "none-yet", None)  # no cache yet: nothing to do


def test_an_analysis_not_read_for_weeks_is_removed_and_a_read_one_kept(kept):
    @memo.on_disk("same", list, tuple, maxsize=0)  # the files alone, no memory
    def same(text: str) -> tuple[str, ...]:
        return (text,)

    same("old"), same("read")
    now = time.time()
    weeks_ago = now - (memo.KEEP_DAYS + 1) * 86_400
    for path in kept.rglob("*.json"):
        os.utime(path, (weeks_ago, weeks_ago))
    assert same("read") == ("read",)  # read back: marked as read now
    memo.keep_only(kept.parent, kept, now=now)
    assert [json.loads(p.read_text()) for p in kept.rglob("*.json")] == [["read"]]
    memo.keep_only(kept.parent, kept, now=now + (memo.KEEP_DAYS + 1) * 86_400)
    assert not list(kept.rglob("*.json"))
