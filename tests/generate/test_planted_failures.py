"""`lineage generate --planted-failures N` (issue 67): N times over the period a column that SQL
nodes read by name is dropped or renamed by its owner's DDL job, and every node whose SQL reads it
fails from its next run to the end; `truth/failures.csv` names each failing streak's cause (the
change, with its event id) or `random`. Checked against the generator's own column truth
(`column_feeds.csv`), its runs (`instances.csv`, `jobs.csv`) and the event files."""

from __future__ import annotations

import csv
import gzip
import json
from collections import Counter, defaultdict
from datetime import date, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.facts.extract import facts_of_event
from lineage.generate import generate
from lineage.ingest import records

TABLES, DAYS, PLANTED = 40, 10, 2
ERROR_CODE = "ODPS-0130071"


def _rows(root: Path, name: str) -> list[dict[str, str]]:
    with open(root / "truth" / f"{name}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _maxcompute(root: Path) -> list[dict]:
    return [doc for path in sorted((root / "events" / "maxcompute").rglob("*.json.gz"))
            for doc in json.loads(gzip.decompress(path.read_bytes()))]


def _datahub(root: Path) -> list[dict]:
    docs = []
    for path in sorted((root / "events" / "datahub").glob("*.jsonl.gz")):
        for line in gzip.decompress(path.read_bytes()).splitlines():
            try:
                docs.append(json.loads(line))
            except ValueError:  # the generator's truncated deliveries
                pass
    return docs


@pytest.fixture(scope="module")
def platform(tmp_path_factory):
    """`lineage generate --tables 40 --days 10 --planted-failures 2`, and the same without the option."""
    root = tmp_path_factory.mktemp("planted-failures")
    ran = CliRunner().invoke(main, ["generate", "--out", str(root / "planted"), "--tables", str(TABLES), "--days",
                                    str(DAYS), "--planted-failures", str(PLANTED), "--json"])
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.output)["planted_failures"] == PLANTED
    generate(root / "plain", tables=TABLES, days=DAYS)
    out = root / "planted"
    failures = _rows(out, "failures")
    planted = [f for f in failures if f["cause"] == "planted"]
    changes = {(f["change_event_id"], f["change_time"], f["change_kind"], f["table_id"], f["column_id"])
               for f in planted}
    return {"root": out, "plain": root / "plain", "summary": json.loads(ran.output), "failures": failures, "planted": planted, "changes": changes,
            "instances": _rows(out, "instances"), "jobs": _rows(out, "jobs"), "nodes": _rows(out, "nodes"),
            "column_feeds": _rows(out, "column_feeds")}


def _column_readers(column_feeds: list[dict[str, str]], column: str) -> set[str]:
    """The nodes whose SQL reads the column, by the generator's column truth."""
    return {n for row in column_feeds if row["src"] == column for n in row["nodes"].split(";") if n}


def test_every_change_is_planted_with_its_failures(platform):
    changes = platform["changes"]
    assert len(changes) == PLANTED  # each change broke at least one node
    assert all(kind == "field_removal" for _, _, kind, _, _ in changes)
    assert len({event for event, *_ in changes}) == PLANTED
    for row in platform["planted"]:
        assert row["change_event_id"] and row["table_id"].startswith("table:maxcompute:")
        assert row["column_id"].startswith("column:maxcompute:" + row["table_id"].split(":", 2)[2] + ".")


def test_every_planted_failure_reads_the_column_and_fails_from_the_next_run_to_the_end(platform):
    by_node = defaultdict(list)
    for instance in platform["instances"]:
        by_node[instance["node_id"]].append(instance)
    jobs = defaultdict(list)
    for job in platform["jobs"]:
        jobs[job["instance_id"]].append(job)
    deleted = {n["node_id"]: n["deleted_at"] for n in platform["nodes"] if n["deleted_at"]}
    for row in platform["planted"]:
        node, change = row["node_id"], row["change_time"]
        assert node in _column_readers(platform["column_feeds"], row["column_id"]), row
        assert row["last_success_at"] and row["last_success_at"] < change < row["first_failed_at"], row
        after = [i for i in by_node[node] if i["ended"] > change]
        assert after and after[0]["instance_id"] == row["first_failed_instance"], row
        # from the next day's run to the last day (or the day a release deletes the node), every
        # instance fails: no rerun succeeds
        last = deleted.get(node) or f"{date(2026, 9, 28) + timedelta(days=DAYS - 1):%Y-%m-%d}"
        days = [f"{date.fromisoformat(change[:10]) + timedelta(days=k):%Y-%m-%d}" for k in range(1, DAYS)]
        assert [i["day"] for i in after] == [d for d in days if d <= last[:10]], row
        assert all(i["status"] == "failure" for i in after), row
        name = row["column_id"].rsplit(".", 1)[1]
        for instance in after:
            for job in jobs[instance["instance_id"]]:
                assert job["status"] == "failed" and job["error_code"] == ERROR_CODE, job
                assert job["error_message"] == f"Semantic analysis exception - column {name} cannot be resolved"
        before = [i for i in by_node[node] if i["ended"] < change]
        assert before[-1]["instance_id"] == row["last_success_instance"] and before[-1]["status"] == "success"
        assert not any(f["node_id"] == node and f["first_failed_at"] > row["first_failed_at"]
                       for f in platform["failures"]), row  # one streak, open to the end


def test_every_reader_of_the_column_fails_and_the_tables_other_readers_do_not(platform):
    planted_nodes = defaultdict(set)
    for row in platform["planted"]:
        planted_nodes[row["column_id"]].add(row["node_id"])
    last_run = {}
    for instance in platform["instances"]:
        last_run[instance["node_id"]] = max(last_run.get(instance["node_id"], ""), instance["ended"])
    spared = 0
    for _event, change, _kind, table, column in platform["changes"]:  # (a node deleted before its next run is none)
        readers = {n for n in _column_readers(platform["column_feeds"], column) if last_run[n] > change}
        assert readers == planted_nodes[column]
        others = {n["node_id"] for n in platform["nodes"] if table in n["reads"].split(";")} - readers
        for node in others:  # a reader of the table that does not read the column fails only at random
            assert not any(f["node_id"] == node and f["column_id"] == column for f in platform["failures"])
            spared += 1
    assert spared, "no change has a reader of its table that does not read the column"
    resolved = [j for j in platform["jobs"] if j["error_message"].endswith("cannot be resolved")]
    assert {j["node_id"] for j in resolved} == {r["node_id"] for r in platform["planted"]}


def test_the_change_is_a_ddl_event_in_the_event_files(platform):
    events = {doc["eventId"]: doc for doc in _maxcompute(platform["root"])}
    removed = {(doc["entityUrn"], doc["parameters"]["fieldPath"]) for doc in _datahub(platform["root"])
               if doc["category"] == "TECHNICAL_SCHEMA" and doc["operation"] == "REMOVE"}
    statements = set()
    for event_id, change, kind, table, column in platform["changes"]:
        doc = events[event_id]
        data = doc["additionalEventData"]
        qualified, name = table.split(":", 2)[2], column.rsplit(".", 1)[1]
        assert doc["eventName"] == "JobChange" and data["Status"] == "Terminated"
        assert doc["eventTime"] == change
        sql = data["OperationText"].strip()
        assert sql in (f"ALTER TABLE {qualified} DROP COLUMNS {name};",) or sql.startswith(
            f"ALTER TABLE {qualified} CHANGE COLUMN {name} "), sql
        statements.add(sql.split()[3])
        # the graph records it as the truth says: a field_removal of the column on the table
        facts = facts_of_event("maxcompute", "JobChange", event_id, None, json.dumps(doc))
        found = [(f.src_id, json.loads(f.properties["columns"])) for f in facts
                 if f.op == "change" and f.relationship == kind]
        assert found == [(table, [name])], facts
        assert (f"urn:li:dataset:(urn:li:dataPlatform:maxcompute,{qualified},PROD)", name) in removed
    assert statements == {"DROP", "CHANGE"}  # one drop, one rename


def test_streaks_are_every_failed_instance_and_random_ones_are_the_same_as_without_the_option(platform):
    streaks = set()
    by_node = defaultdict(list)
    for instance in platform["instances"]:
        by_node[instance["node_id"]].append(instance)
    for node, instances in by_node.items():
        for previous, instance in zip([None, *instances], instances):
            if instance["status"] == "failure" and (previous is None or previous["status"] == "success"):
                streaks.add((node, instance["instance_id"]))
    assert streaks == {(f["node_id"], f["first_failed_instance"]) for f in platform["failures"]}
    for row in platform["failures"]:
        if row["cause"] == "random":
            assert not any(row[k] for k in ("change_time", "change_kind", "table_id", "column_id", "change_event_id"))
    assert any(f["cause"] == "random" for f in platform["failures"])
    # the random failures are the plan's own: the same as without the option, but for the broken nodes' days
    broken = {(r["node_id"], r["change_time"]) for r in platform["planted"]}
    plain = {(i["node_id"], i["day"]) for i in _rows(platform["plain"], "instances") if i["status"] == "failure"}
    plain = {(n, d) for n, d in plain if not any(n == b and d > t[:10] for b, t in broken)}
    planted = {(i["node_id"], i["day"]) for i in platform["instances"] if i["status"] == "failure"}
    planted = {(n, d) for n, d in planted if not any(n == b and d > t[:10] for b, t in broken)}
    assert plain == planted


def test_every_record_is_understood(platform):
    """Through the real reader: only the deliberately malformed lines are quarantined."""
    outcomes = Counter()
    for path in sorted((platform["root"] / "events").rglob("*.gz")):
        for row in records.process_file(str(path)):
            row = dict(zip(records.COLUMN_NAMES, row))
            outcomes[(row["status"], row["known"])] += 1
    assert not outcomes[(records.ACCEPTED, False)]
    quarantined = sum(n for (status, _k), n in outcomes.items() if status == records.QUARANTINED)
    assert quarantined == platform["summary"]["counts"]["total"]["malformed"]


def test_columns_truth_closes_the_changed_column(platform):
    rows = _rows(platform["root"], "columns")
    columns = {r["column_id"]: r for r in rows}
    renamed = 0
    for event_id, change, _kind, table, column in platform["changes"]:
        assert columns[column]["valid_to"] == change
        opened = [r["column_id"] for r in rows if r["table_id"] == table and r["valid_from"] == change]
        assert len(opened) <= 1  # a rename's new name opens as the old one closes
        renamed += len(opened)
    assert renamed == PLANTED // 2  # the odd ones are renames

def test_zero_writes_what_no_option_writes(tmp_path):
    generate(tmp_path / "a", tables=24, days=3, seed=5)
    generate(tmp_path / "b", tables=24, days=3, seed=5, planted_failures=0)
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert not (tmp_path / "a" / "truth" / "failures.csv").exists()
    bad = CliRunner().invoke(main, ["generate", "--out", str(tmp_path / "c"), "--planted-failures", "-1"])
    assert bad.exit_code == 2 and "--planted-failures" in bad.output
    with pytest.raises(ValueError, match="--days of at least 3"):
        generate(tmp_path / "d", tables=24, days=2, planted_failures=1)
