"""`lineage generate --openlineage-share` (issue 34, part 4): Spark jobs read MaxCompute tables (through
the connector or an UNLOAD's export files) and write lake tables that MaxCompute jobs join back; their
runs are OpenLineage RunEvents under events/openlineage/. Checked on the ``openlineage_platform``
fixture (tests/generate/conftest.py): ingested and built, its FEEDS equal the truth across the
boundary, and `impact` of a MaxCompute table reaches what Spark wrote and the tables read from it."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
from click.testing import CliRunner

from lineage.cli import main
from lineage.generate import generate

LAKE = "location:oss://acme-lake/spark/"


def _rows(truth: Path, name: str) -> list[dict[str, str]]:
    with open(truth / f"{name}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def _ids(cell: str) -> set[str]:
    return set(cell.split(";")) if cell else set()


def _edges(warehouse: Path) -> list[dict]:
    return pq.read_table(str(warehouse / "graph" / "edges")).to_pylist()


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_share_zero_writes_what_no_option_writes(tmp_path):
    generate(tmp_path / "a", tables=24, days=3, seed=5)
    generate(tmp_path / "b", tables=24, days=3, seed=5, openlineage_share=0.0)
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert not (tmp_path / "a" / "events" / "openlineage").exists()


def test_runs_are_openlineage_json_lines_that_ingest_finds(openlineage_platform):
    files = sorted((openlineage_platform.root / "events" / "openlineage").glob("*.jsonl"))
    assert [f.stem for f in files] == sorted({r["day"] for r in _rows(openlineage_platform.truth, "openlineage")})
    events = [json.loads(line) for f in files for line in f.read_text().splitlines()]
    kinds = Counter(e["eventType"] for e in events)
    runs = _rows(openlineage_platform.truth, "openlineage")
    assert kinds["START"] == len(runs)  # one START per run, then its COMPLETE or FAIL
    assert kinds["COMPLETE"] == sum(r["status"] == "complete" for r in runs) > 0
    assert kinds["FAIL"] == sum(r["status"] == "fail" for r in runs) > 0
    assert any("columnLineage" in o.get("facets", {}) for e in events for o in e["outputs"])
    assert any(i["namespace"] == "oss://acme-export" for e in events for i in e["inputs"])  # an UNLOAD's files
    assert any(i["namespace"].startswith("maxcompute://") for e in events for i in e["inputs"])  # the connector
    ingested = openlineage_platform.ingest["sources"]["openlineage"]
    assert ingested["accepted"] == len(events) and ingested["quarantined"] == 0


def test_feeds_across_the_boundary_equal_the_truth(openlineage_platform):
    """MaxCompute -> Spark (a COMPLETE run's inputs to its lake table) -> MaxCompute (the job joining
    it): the built graph's FEEDS equal feeds.csv, and the boundary's are there."""
    truth = {(r["src"], r["dst"]) for r in _rows(openlineage_platform.truth, "feeds")}
    edges = _edges(openlineage_platform.warehouse)
    feeds = {(e["src"], e["dst"]) for e in edges if e["relationship"] == "FEEDS" and e["src_label"] != "Column"}
    missing, extra = truth - feeds, feeds - truth
    assert not missing and not extra, f"missing {sorted(missing)[:5]}, extra {sorted(extra)[:5]}"
    runs = _rows(openlineage_platform.truth, "openlineage")
    into_spark = {(a, b) for r in runs if r["status"] == "complete" for a in _ids(r["reads"]) for b in _ids(r["writes"])}
    out_of_spark = {(a, b) for a, b in truth if a.startswith(LAKE)}
    assert into_spark and out_of_spark
    assert {(a, b) for a, b in feeds if b.startswith(LAKE)} == into_spark
    assert all(b.startswith("table:maxcompute:") for _, b in out_of_spark)
    # a failed run asserted nothing: its Instance says so
    status = {e["src"]: e for e in edges if e["relationship"] == "READS" and e["src_label"] == "Instance"}
    for run in runs:
        assert (run["run_id"] in status) == (run["status"] == "complete"), run


def test_column_lineage_facet_becomes_column_feeds(openlineage_platform):
    events = [json.loads(line) for f in (openlineage_platform.root / "events" / "openlineage").glob("*.jsonl")
              for line in f.read_text().splitlines()]
    job = next(e for e in events if e["eventType"] == "COMPLETE" and "columnLineage" in e["outputs"][0]["facets"])
    lake = f"column:oss:acme-lake/{job['outputs'][0]['name']}.amount"
    column_feeds = {(e["src"], e["dst"]) for e in _edges(openlineage_platform.warehouse)
                    if e["relationship"] == "FEEDS" and e["src_label"] == "Column"}
    sources = {a for a, b in column_feeds if b == lake}
    assert sources and all(a.endswith(".amount") for a in sources)


def test_impact_of_a_maxcompute_table_reaches_the_spark_tables(openlineage_platform):
    runs = [r for r in _rows(openlineage_platform.truth, "openlineage") if r["status"] == "complete"]
    run = next(r for r in runs if any(t.startswith("table:maxcompute:") for t in _ids(r["reads"])))
    table = sorted(t for t in _ids(run["reads"]) if t.startswith("table:maxcompute:"))[0]
    (lake,) = _ids(run["writes"])
    readers = [n for n in _rows(openlineage_platform.truth, "nodes") if lake in _ids(n["reads"])]
    assert readers
    ran = CliRunner().invoke(main, ["impact", table, "--warehouse", str(openlineage_platform.warehouse), "--json"])
    assert ran.exit_code == 0, ran.output
    reached = {a["id"]: a for a in json.loads(ran.stdout)["affected"]}
    # the Spark run read it: its job runs again (the run itself ran before: not listed), its lake table is derived
    assert lake in reached and run["job_id"] in reached and run["run_id"] not in reached
    for node in readers:  # and the MaxCompute tables joining the lake table
        assert _ids(node["writes"]) <= set(reached), node["node_id"]
