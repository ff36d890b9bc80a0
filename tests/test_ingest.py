"""The ingest job end to end on the real local SparkSession: counts, datasets, idempotence."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lineage.events import registry
from lineage.ingest.pipeline import ingest
from seedfixtures import DATA, accepted_docs

pytestmark = pytest.mark.spark


def sample_docs() -> dict[str, list[dict]]:
    return accepted_docs(known_only=True)


def table(path: Path) -> list[dict]:
    """Rows of a parquet dataset (pyarrow, independent of Spark), without per-run columns."""
    if not path.exists():
        return []
    rows = pq.read_table(path).to_pylist()
    for row in rows:
        row.pop("run_id", None)
        row.pop("ingested_at", None)
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str))


def jsonl(path: Path, docs: list[dict], extra: list[str] = ()) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([json.dumps(d) for d in docs] + list(extra)) + "\n")
    return path


def test_mixed_sources_in_one_file(spark, tmp_path, warehouse):
    docs = sample_docs()
    mixed = [docs[source][0] for source in registry.names()]
    path = jsonl(tmp_path / "mixed.jsonl", mixed, extra=['{"eventName": "InsertJob", "oops"', "not json at all"])
    result = ingest([path], warehouse, spark=spark)
    assert {s: c.accepted for s, c in result.sources.items() if c.accepted} == dict.fromkeys(registry.names(), 1)
    assert result.total.read == len(mixed) + 2 and result.total.quarantined == 2 and result.total.reconciles
    events = table(warehouse / "events")
    assert sorted(e["source"] for e in events) == sorted(registry.names())
    assert all(e["file"] == str(path) and e["payload"] and e["doc"] for e in events)
    quarantine = table(warehouse / "quarantine")
    assert [(q["line"], q["source"]) for q in sorted(quarantine, key=lambda q: q["line"])] == [
        (len(mixed) + 1, "unrecognized"), (len(mixed) + 2, "unrecognized")]
    assert "truncated JSON" in quarantine[0]["reason"] or "truncated JSON" in quarantine[1]["reason"]
    assert {q["raw"] for q in quarantine} == {'{"eventName": "InsertJob", "oops"', "not json at all"}


def test_duplicates_within_a_run_and_across_runs(spark, tmp_path, warehouse):
    a, b = sample_docs()["dataphin"][:2]
    path = jsonl(tmp_path / "d.jsonl", [a, b, a], extra=["{broken"])
    first = ingest([path], warehouse, spark=spark)
    assert (first.total.read, first.total.accepted, first.total.duplicates, first.total.quarantined) == (4, 2, 1, 1)
    again = ingest([path], warehouse, spark=spark)
    assert (again.total.read, again.total.accepted, again.total.duplicates, again.total.quarantined) == (4, 0, 3, 1)
    assert len(table(warehouse / "events")) == 2  # re-ingesting adds nothing
    assert len(table(warehouse / "quarantine")) == 1
    whys = sorted(d["why"] for d in table(warehouse / "duplicates"))
    assert whys == ["earlier-run", "earlier-run", "earlier-run", "same-run"]
    assert len(list((warehouse / "runs").glob("*.json"))) == 2


def test_events_are_partitioned_by_source_and_event_date(spark, tmp_path, warehouse):
    docs = sample_docs()["dataphin"]
    ingest([jsonl(tmp_path / "p.jsonl", docs)], warehouse, spark=spark)
    partitions = {p.relative_to(warehouse / "events").as_posix() for p in (warehouse / "events").glob("*/*")}
    assert "source=dataphin/event_date=2024-07-12" in partitions


def test_local_and_spark_paths_give_identical_output(spark, tmp_path):
    inputs = [DATA]
    local = ingest(inputs, tmp_path / "local", spark=spark, parse_in="local", exclude=("*.expect.json",))
    distributed = ingest(inputs, tmp_path / "spark", spark=spark, parse_in="spark", exclude=("*.expect.json",))
    assert (local.parse_in, distributed.parse_in) == ("local", "spark")
    assert local.sources == distributed.sources and local.total == distributed.total
    for dataset in ("events", "quarantine", "duplicates"):
        assert table(tmp_path / "local" / dataset) == table(tmp_path / "spark" / dataset), dataset
    assert local.total.accepted > 30


def test_bad_inputs_are_each_explained_and_nothing_is_lost(spark, tmp_path, warehouse):
    good = sample_docs()["dataphin"]
    bad = tmp_path / "bad"
    jsonl(bad / "good.jsonl", good[:2])
    (bad / "truncated.json").write_text('{\n  "event_id": "x",\n  "event_name": "ChangeFile"\n')
    wrong_type = dict(good[0], event_id="wt-1", user_identity=["not", "a", "string"])
    missing = {k: v for k, v in good[0].items() if k != "event_id"}
    unknown = dict(good[0], event_id="unknown-1", event_name="SomethingNew")
    jsonl(bad / "fields.jsonl", [wrong_type, missing, unknown])
    (bad / "empty.json").write_bytes(b"")
    (bad / "binary.json").write_bytes(b"\x00\x01\x02\x03 PK")
    big = dict(good[0], event_id="big-1", additional_event_data="x" * (50 * 1024 * 1024))
    jsonl(bad / "big.jsonl", [big])
    jsonl(bad / "dups.jsonl", [good[0], good[0]])
    (bad / "corrupt.json.gz").write_bytes(gzip.compress(b'{"a": 1}\n' * 1000)[:40])
    os.symlink(tmp_path / "nowhere.json", bad / "unreadable.json")

    result = ingest([bad], warehouse, spark=spark)
    counts = result.total
    assert counts.reconciles
    assert counts.read == counts.accepted + counts.quarantined + counts.duplicates
    assert result.empty_files == [str(bad / "empty.json")]
    assert result.sources["dataphin"].unknown_kind == 1
    reasons = {(Path(q["file"]).name, q["line"]): q["reason"] for q in table(warehouse / "quarantine")}
    assert "truncated JSON" in reasons[("truncated.json", 1)]
    assert "user_identity" in reasons[("fields.jsonl", 1)]
    assert "event_id" in reasons[("fields.jsonl", 2)]
    assert reasons[("binary.json", 0)].startswith("binary file")
    assert reasons[("unreadable.json", 0)].startswith("cannot read file")
    assert any(name == "corrupt.json.gz" and "corrupt" in why for (name, _), why in reasons.items())
    accepted_ids = {e["event_id"] for e in table(warehouse / "events")}
    assert {"big-1", "unknown-1", good[0]["event_id"], good[1]["event_id"]} <= accepted_ids
    assert counts.duplicates == 2  # good[0] appears in good.jsonl and twice in dups.jsonl
