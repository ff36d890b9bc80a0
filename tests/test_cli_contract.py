"""DESIGN.md's `--json` keys are the minimum checks outside this repo read: a command may add keys,
never rename or drop these. One test per command, on the demo's events (issue 28)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from lineage.cli import main

pytestmark = pytest.mark.spark

T = "table:maxcompute:retail_dw.{}".format
AS_OF = "2024-07-06T00:00:00Z"
WINDOW = ("--since", "2024-07-01", "--until", "2024-07-08")
COUNTS = {"read", "accepted", "quarantined", "duplicates", "foreign"}


def cli(*args) -> dict:
    ran = CliRunner().invoke(main, [str(a) for a in args])
    assert ran.exit_code == 0, ran.output
    return json.loads(ran.stdout)


def has(doc: dict, keys: set[str], where: str) -> None:
    assert keys <= set(doc), f"{where}: {sorted(keys - set(doc))} missing"


def test_ingest_json_keeps_the_contract(spark, tmp_path):
    from lineage.generate.samples import write_samples

    write_samples(tmp_path / "events")
    doc = cli("ingest", tmp_path / "events", "--warehouse", tmp_path / "warehouse", "--json")
    has(doc["total"], COUNTS, "total")
    total = doc["total"]
    assert total["read"] == total["accepted"] + total["quarantined"] + total["duplicates"] + total["foreign"]
    for source, counts in doc["sources"].items():
        has(counts, COUNTS, source)


def test_impact_json_keeps_the_contract(demo_warehouse):
    doc = cli("impact", T("dwd_orders"), "--warehouse", demo_warehouse, "--as-of", AS_OF, "--engine", "local", "--json")
    has(doc, {"sources", "affected", "summary"}, "impact")
    assert doc["affected"] and doc["summary"]
    for item in doc["affected"]:
        has(item, {"id", "label", "distance", "path"}, item["id"])


def test_access_json_keeps_the_contract_and_names_every_principal(demo_warehouse):
    doc = cli("access", T("dwd_orders"), "--warehouse", demo_warehouse, "--as-of", AS_OF, "--json")
    has(doc, {"target", "principals"}, "access")
    assert doc["principals"], "someone reads dwd_orders"
    for p in doc["principals"]:
        has(p, {"id", "label", "name", "privileges", "path"}, p["id"])
    people = doc["principals"] + doc["owners"] + doc["metadata_owners"]
    assert doc["owners"] and doc["metadata_owners"]  # what the human table shows, in JSON too
    assert all(p["name"] and not p["name"].isdigit() for p in people)  # logins, not uids


def test_blast_radius_json_keeps_the_contract(demo_warehouse):
    doc = cli("blast-radius", "--warehouse", demo_warehouse, *WINDOW, "--engine", "local", "--json")
    has(doc, {"since", "until", "changes"}, "blast-radius")
    assert doc["changes"]
    for change in doc["changes"]:
        has(change, {"change_id", "entity_id", "kind", "time", "score", "summary", "affected"}, change["change_id"])


def test_blast_radius_json_says_each_change_s_effect(demo_warehouse):
    doc = cli("blast-radius", "--warehouse", demo_warehouse, *WINDOW, "--engine", "local", "--json")
    assert all(change["effect"] in {"breaks", "exposes", "restricts", "notifies"} for change in doc["changes"])


def test_hygiene_json_keeps_the_contract(demo_warehouse):
    doc = cli("hygiene", "--warehouse", demo_warehouse, "--as-of", AS_OF, "--engine", "local", "--json")
    has(doc, {"as_of", "unused", "cycles", "islands", "importance"}, "hygiene")
    for key, keys in (("unused", {"id", "owners", "writers"}), ("cycles", {"tables", "jobs"}),
                      ("islands", {"size", "tables"}), ("importance", {"id", "score"})):
        for item in doc[key]:
            has(item, keys, key)


def test_report_json_keeps_the_contract(demo_warehouse, tmp_path):
    ran = CliRunner().invoke(main, ["report", "--warehouse", str(demo_warehouse), "--out", str(tmp_path),
                                    "--week", "2024-W27", "--engine", "local"])
    assert ran.exit_code in (0, 3), ran.output  # 3: written, inputs incomplete
    doc = json.loads((tmp_path / "2024-W27" / "report.json").read_text())
    assert doc["schema"] == "lineage.report/1"
    has(doc, {"schema", "changes", "input_health"}, "report")
    assert doc["changes"] and all("change_id" in c for c in doc["changes"])
    for source in doc["input_health"]["sources"]:
        has(source, {"source", "gaps"}, "input_health")
