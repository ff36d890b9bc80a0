"""The `lineage` command's contract: JSON on stdout, messages on stderr, exit 0/2/1."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.events import registry
from seedfixtures import DATA, records_with_expectations

pytestmark = pytest.mark.spark


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_ingest_all_seed_samples_json_reconciles(spark, warehouse):
    result = run("ingest", DATA, "--exclude", "*.expect.json", "--warehouse", warehouse, "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    total = doc["total"]
    assert total["read"] == total["accepted"] + total["quarantined"] + total["duplicates"]
    assert doc["reconciles"] is True and total["duplicates"] == 0
    expected_accepted = expected_quarantined = 0
    for _path, _raw, want in records_with_expectations():
        expected_accepted += want["expect"] == "accepted"
        expected_quarantined += want["expect"] == "quarantined"
    assert total["accepted"] == expected_accepted  # every valid sample accepted
    assert total["quarantined"] == expected_quarantined
    assert set(doc["sources"]) >= set(registry.names())
    if total["quarantined"]:
        assert f"quarantined; they are in {warehouse.resolve() / 'quarantine'}" in result.stderr

    again = run("ingest", DATA, "--exclude", "*.expect.json", "--warehouse", warehouse, "--json")
    second = json.loads(again.stdout)["total"]
    assert (second["accepted"], second["duplicates"]) == (0, total["accepted"])


def test_human_summary_names_quarantined_records_and_unknown_kinds(spark, tmp_path, warehouse):
    good = next(DATA.glob("dataphin/permission/*.jsonl"))
    bad = tmp_path / "bad.jsonl"
    future = {"id": "f-1", "source": "acs.dataworks", "specversion": "1.0", "time": "2024-07-12T11:08:50+08:00",
              "type": "dataworks:FutureChange:SomethingNew", "data": {"eventCode": "something-new", "tenantId": 1}}
    bad.write_text('{"event_id": "1", "event_name": \n' + json.dumps(future) + "\n")
    result = run("ingest", good, bad, "--warehouse", warehouse)
    assert result.exit_code == 0
    assert "total" in result.stdout and f"quarantined {bad}:1: truncated JSON" in result.stdout
    assert "unknown kind: dataworks:something-new (1)" in result.stdout
    assert "1 record(s) quarantined" in result.stderr


def test_strict_exits_2_when_anything_is_quarantined(spark, tmp_path, warehouse):
    good = next(DATA.glob("dataphin/permission/*.jsonl"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text("nonsense\n")
    assert run("ingest", good, bad, "--warehouse", warehouse, "--strict").exit_code == 2


def test_nothing_readable_exits_2(spark, tmp_path, warehouse):
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "junk.json").write_bytes(b"\x00\x01binary")
    result = run("ingest", tmp_path / "empty.json", tmp_path / "junk.json", "--warehouse", warehouse)
    assert result.exit_code == 2
    assert "nothing could be read" in result.stderr


def test_missing_path_and_bad_usage_exit_2(tmp_path, warehouse):
    result = run("ingest", tmp_path / "missing.json", "--warehouse", warehouse)
    assert result.exit_code == 2 and "no such file or directory" in result.stderr
    assert run("ingest", tmp_path).exit_code == 2  # --warehouse is required
    assert run("ingest", tmp_path, "--warehouse", warehouse, "--engine", "fast").exit_code == 2
    assert run("ingest", tmp_path, "--warehouse", warehouse, "--parse-in", "fast").exit_code == 2
    clash = run("ingest", tmp_path, "--warehouse", warehouse, "--parse-in", "local", "--engine", "spark")
    assert clash.exit_code == 2 and "--engine is the old name of --parse-in" in clash.stderr


def test_parse_in_and_its_deprecated_name_engine(spark, tmp_path):
    """``--parse-in`` says where records are parsed; ``--engine``, its old name, still works (hidden)."""
    good = next(DATA.glob("dataphin/permission/*.jsonl"))
    new = run("ingest", good, "--warehouse", tmp_path / "a", "--parse-in", "spark", "--json")
    assert new.exit_code == 0, new.stderr
    assert json.loads(new.stdout)["parse_in"] == "spark" and "deprecated" not in new.stderr
    old = run("ingest", good, "--warehouse", tmp_path / "b", "--engine", "spark", "--json")
    assert old.exit_code == 0, old.stderr
    doc = json.loads(old.stdout)
    assert doc["parse_in"] == doc["engine"] == "spark"
    assert "ingest --engine is deprecated: use --parse-in" in old.stderr
    assert json.loads(old.stdout)["total"] == json.loads(new.stdout)["total"]
    help_text = run("ingest", "--help").stdout
    assert "--parse-in" in help_text and "--engine" not in help_text


def test_build_all_seed_samples_maps_every_event(spark, warehouse):
    """Every accepted seed sample goes through the mappings without a mapping error."""
    assert run("ingest", DATA, "--exclude", "*.expect.json", "--warehouse", warehouse).exit_code == 0
    result = run("build", "--warehouse", warehouse, "--json")
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["mapping_errors"] == 0, doc["error_examples"]
    assert doc["events"] == doc["new_events"] > 100
    assert doc["vertices"] == sum(doc["vertices_by_label"].values()) > 0
    assert {"CAN_ACCESS", "HAS_ROLE", "MEMBER_OF", "TAGGED", "HAS_COLUMN"} <= set(doc["edges_by_relationship"])
    assert (warehouse / "graph" / "vertices").is_dir() and (warehouse / "graph" / "edges").is_dir()


def test_build_without_events_is_a_usage_error(tmp_path):
    result = run("build", "--warehouse", tmp_path / "empty")
    assert result.exit_code == 2
    assert "no events in" in result.stderr and "lineage ingest" in result.stderr


def test_build_with_a_bad_alias_file_names_file_and_line(spark, warehouse, tmp_path):
    run("ingest", DATA / "datahub", "--exclude", "*.expect.json", "--warehouse", warehouse)
    aliases = tmp_path / "aliases.csv"
    aliases.write_text("alias,canonical\nuser:datahub:bob,user:aliyun:1\nuser:datahub:bob,table:maxcompute:p.t\n")
    result = run("build", "--warehouse", warehouse, "--aliases", aliases)
    assert result.exit_code == 2
    assert f"{aliases}:3:" in result.stderr
