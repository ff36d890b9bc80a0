"""`lineage generate`: deterministic, the shape that was asked for, and its ground truth recovered
by `lineage build` (the ``generated`` fixture: 60 tables over 8 days, ingested and built once)."""

from __future__ import annotations

import csv
import gzip
import json
from collections import Counter, defaultdict
from datetime import datetime, timezone
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from conftest import GENERATED_DAYS, GENERATED_TABLES
from lineage.cli import main
from lineage.generate import generate, model
from lineage.ingest import records

SOURCES = {"dataworks", "maxcompute", "dataphin", "datahub"}


def _rows(truth: Path, name: str) -> list[dict[str, str]]:
    with open(truth / f"{name}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def _ids(cell: str) -> set[str]:
    return set(cell.split(";")) if cell else set()


def _edges(warehouse: Path) -> list[dict]:
    return pq.read_table(str(warehouse / "graph" / "edges")).to_pylist()


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_same_seed_same_bytes_other_seed_other_platform(tmp_path):
    first = generate(tmp_path / "a", tables=30, days=3, seed=11)
    second = generate(tmp_path / "b", tables=30, days=3, seed=11)
    other = generate(tmp_path / "c", tables=30, days=3, seed=12)
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert first.summary == second.summary
    assert _files(tmp_path / "a") != _files(tmp_path / "c")


def test_every_record_is_understood_with_a_known_kind(tmp_path):
    """Through the real reader and dispatcher: only the deliberately malformed lines are quarantined."""
    result = generate(tmp_path, tables=24, days=4, seed=3)
    outcomes = Counter()
    for path in sorted((tmp_path / "events").rglob("*.gz")):
        for row in records.process_file(str(path)):
            row = dict(zip(records.COLUMN_NAMES, row))
            outcomes[(row["source"], row["status"], row["known"])] += 1
    counts = result.summary["counts"]
    accepted = {s for (s, status, known) in outcomes if status == records.ACCEPTED}
    assert accepted == SOURCES
    assert not any(known is False for (_s, status, known) in outcomes if status == records.ACCEPTED)
    quarantined = sum(n for (_s, status, _k), n in outcomes.items() if status == records.QUARANTINED)
    assert quarantined == counts["total"]["malformed"]
    for source in SOURCES:
        delivered = sum(n for (s, status, _k), n in outcomes.items() if s == source and status == records.ACCEPTED)
        assert delivered == counts["sources"][source]["records"] + counts["sources"][source]["duplicates"], source


def test_files_per_source_per_day_gzipped_as_delivered(generated):
    events = generated.root / "events"
    for folder in ("dataworks/eventbridge", "dataworks/fc", "dataphin", "datahub"):
        assert len(list((events / folder).glob("*.jsonl.gz"))) == GENERATED_DAYS, folder
    arrays = sorted((events / "maxcompute").glob("*/actiontrail-*.json.gz"))
    assert len({p.parent.name for p in arrays}) == GENERATED_DAYS
    with gzip.open(arrays[0]) as handle:
        assert isinstance(json.load(handle), list)  # ActionTrail delivers JSON arrays to OSS
    with gzip.open(next((events / "dataworks" / "eventbridge").glob("*.gz"))) as handle:
        first = json.loads(handle.readline())
    assert first["source"] == "acs.dataworks" and first["type"].startswith("dataworks:")
    with gzip.open(next((events / "dataworks" / "fc").glob("*.gz"))) as handle:
        first = json.loads(handle.readline())
    assert {"eventType", "messageId", "messageBody"} <= set(first)


def test_counts_reconcile_with_ingest_json(generated):
    counts, ingested = generated.summary["counts"], generated.ingest
    assert ingested["reconciles"] is True
    for source in SOURCES:
        assert ingested["sources"][source]["accepted"] == counts["sources"][source]["records"], source
        assert ingested["sources"][source]["duplicates"] == counts["sources"][source]["duplicates"], source
    assert counts["total"]["malformed"] > 0 and counts["total"]["duplicates"] > 0
    assert ingested["total"]["quarantined"] == counts["total"]["malformed"]
    assert ingested["total"]["duplicates"] == counts["total"]["duplicates"]
    assert ingested["total"]["read"] == counts["total"]["read"]
    assert ingested["total"]["unknown_kind"] == 0


def test_layers_and_power_law_fan_in(generated):
    tables = _rows(generated.truth, "tables")
    layers = Counter(t["layer"] for t in tables)
    assert list(layers) == ["ods", "dim", "dwd", "dws", "ads", "rpt"] and min(layers.values()) >= 2
    assert sum(not t["planted"] for t in tables) == GENERATED_TABLES  # and the planted pipelines (model.PLANTED)
    assert sum(bool(t["planted"]) for t in tables) == sum(len(members) for _, members in model.PLANTED)
    readers = sorted((int(t["readers"]) for t in tables), reverse=True)
    assert readers[0] >= 8, "a hub table read by many nodes"
    assert sum(r == 0 for r in readers) >= len(readers) // 3, "most tables are read by few or none"
    assert sum(readers[:3]) >= 0.25 * sum(readers), "a few tables take a large share of all reads"
    # and the built graph shows the same: the hub feeds many tables
    fan_out = Counter(e["src"] for e in _edges(generated.warehouse) if e["relationship"] == "FEEDS"
                      and e["src_label"] != "Column")  # table FEEDS (column FEEDS: issue 32)
    hub = generated.summary["interesting"]["hub_table"]
    assert fan_out[hub] == max(fan_out.values()) >= 8


def test_power_law_holds_at_size():
    platform = model.build(7, 1000, 1, datetime(2026, 9, 28, tzinfo=timezone.utc))
    readers = sorted((t.readers for t in platform.tables), reverse=True)
    assert readers[0] >= 100 and sum(readers[:50]) >= 0.6 * sum(readers)
    assert all(1 <= len(n.inputs) <= 5 for n in platform.nodes if n.kind != "nosql" or n.inputs)


def test_failures_reruns_and_grant_churn(generated):
    stats = generated.summary["stats"]
    jobs = _rows(generated.truth, "jobs")
    failed = [j for j in jobs if j["status"] == "failed"]
    assert stats["failed_jobs"] == len(failed) > 0 and stats["reruns"] > 0
    assert 0.002 <= len(failed) / len(jobs) <= 0.05  # ~1%
    kinds = Counter(a["kind"] for a in _rows(generated.truth, "access"))
    for kind in ("GrantACL", "RevokeACL", "approval-change-finished", "ApplyPrivilege", "ApprovePrivilege",
                 "GrantPermission", "GrantLabel"):
        assert kinds[kind] > 0, kind
    assert stats["grants"] > stats["revokes"] > 0
    changes = Counter(c["kind"] for c in _rows(generated.truth, "changes"))
    for kind in ("ChangeTable", "DropTable", "node-change-updated", "node-change-deleted", "dh_schema",
                 "dh_deprecation"):
        assert changes[kind] > 0, kind
    interesting = generated.summary["interesting"]
    assert all(interesting[k] for k in ("hub_table", "pii_table", "dropped_table", "busy_user"))
    aliases = (generated.root / "aliases.csv").read_text().splitlines()
    assert aliases[1] == "alias,canonical"
    per_person = Counter(line.split(",")[1] for line in aliases[2:])
    assert len(per_person) >= 8 and set(per_person.values()) == {3}  # MaxCompute, Dataphin, DataHub -> the UID


def test_build_recovers_feeds_exactly(generated):
    """FEEDS vs the truth: precision and recall 100% (jobs with parsable SQL or read/write audit events)."""
    truth = {(r["src"], r["dst"]) for r in _rows(generated.truth, "feeds")}
    feeds = {(e["src"], e["dst"]) for e in _edges(generated.warehouse)
             if e["relationship"] == "FEEDS" and e["src_label"] != "Column"}  # feeds.csv is table level
    assert truth, "the truth has lineage"
    missing, extra = truth - feeds, feeds - truth
    assert not missing and not extra, f"missing {sorted(missing)[:5]}, extra {sorted(extra)[:5]}"


def test_build_recovers_what_each_job_reads_and_writes(generated):
    edges = defaultdict(set)
    for e in _edges(generated.warehouse):
        if e["relationship"] in ("READS", "WRITES") and e["src_label"] == "Job":
            edges[(e["src"], e["relationship"])].add(e["dst"])
    jobs = _rows(generated.truth, "jobs")
    by_lineage = Counter((j["lineage"], j["status"]) for j in jobs)
    assert by_lineage[("sql", "finished")] and by_lineage[("audit", "finished")] and by_lineage[("none", "finished")]
    for job in jobs:
        reads, writes = edges[(job["job_id"], "READS")], edges[(job["job_id"], "WRITES")]
        if job["status"] == "failed":
            assert not writes, job  # a failed job creates no lineage
        elif job["lineage"] == "none":  # a table name that is a variable: never guessed
            assert not reads and not writes, job
        else:
            assert (reads, writes) == (_ids(job["reads"]), _ids(job["writes"])), job


def test_cli_generate_json(tmp_path):
    ran = CliRunner().invoke(main, ["generate", "--out", str(tmp_path), "--tables", "20", "--days", "2",
                                    "--start", "2026-01-05", "--seed", "3", "--json"])
    assert ran.exit_code == 0, ran.output
    summary = json.loads(ran.stdout)
    assert summary["start"] == "2026-01-05" and summary["days"] == 2 and summary["tables"] == 20
    assert (tmp_path / "events" / "datahub" / "2026-01-06.jsonl.gz").is_file()
    assert (tmp_path / "truth" / "summary.json").is_file()
    bad = CliRunner().invoke(main, ["generate", "--out", str(tmp_path), "--tables", "3"])
    assert bad.exit_code == 2


@pytest.mark.parametrize("tables", [12, 13])
def test_smallest_platforms_have_every_layer(tmp_path, tables):
    result = generate(tmp_path, tables=tables, days=1)
    assert result.events > 0
    assert {r["layer"] for r in _rows(tmp_path / "truth", "tables")} == {"ods", "dim", "dwd", "dws", "ads", "rpt"}
