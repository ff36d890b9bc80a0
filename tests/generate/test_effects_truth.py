"""The generator's planted access changes (issue 29, part 4) as `lineage blast-radius --json` sees
them on the generated platform (the ``generated`` fixture): each planted revoke restricts and marks
the nodes its owner runs on the table *may fail*; each planted grant exposes the table to the
principals who had no path before. Expected values are the generator's truth/effects.json."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timedelta

import pytest
from click.testing import CliRunner

from lineage.cli import main


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _truth(generated) -> list[dict]:
    return json.loads((generated.truth / "effects.json").read_text())["changes"]


def _rows(generated, name: str) -> list[dict[str, str]]:
    with open(generated.truth / f"{name}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def _blast(generated, engine: str) -> list[dict]:
    ran = CliRunner().invoke(main, ["blast-radius", "--warehouse", str(generated.warehouse), "--engine", engine,
                                    "--json", "--affected", "0"])
    assert ran.exit_code == 0, ran.output
    return json.loads(ran.stdout)["changes"]


def _check(planted: list[dict], changes: list[dict], generated) -> None:
    """Each planted change found once, with its effect; its principals and its failing nodes
    exactly (a node deleted before the revoke runs no more: it is not among them)."""
    by_change: dict[tuple, list[dict]] = {}
    for c in changes:
        by_change.setdefault((c["entity_id"], _when(c["time"]), c["kind"]), []).append(c)
    for plant in planted:
        want = plant["change"]
        found = by_change.get((want["entity_id"], _when(want["time"]), want["kind"]))
        assert found and len(found) == 1, want
        got = found[0]
        assert got["effect"] == plant["effect"], (want, got["effect"])
        assert (got["gained"], got["lost"]) == (plant["gained"], plant["lost"]), want
        assert sorted(got["may_fail"]) == sorted(plant["may_fail"]), (want, got["may_fail"])


def test_the_truth_plants_revokes_that_break_jobs_and_sensitive_grants(generated):
    planted = _truth(generated)
    revokes = [p for p in planted if p["effect"] == "restricts"]
    sensitive = [p for p in planted if p["effect"] == "exposes" and p["sensitive"]]
    assert len(revokes) == 2 and all(p["may_fail"] and p["lost"] for p in revokes)
    assert {p["change"]["action"] for p in sensitive} == {"GrantACL", "GrantLabel"}
    assert all(p["gained"] for p in sensitive)
    pii = {t["table_id"] for t in _rows(generated, "tables") if t["pii"] == "1"}
    assert {p["change"]["entity_id"] for p in sensitive} <= pii
    # a failing node is owned by the revoked person and reads the table (nodes.csv, from the model)
    nodes = {n["node_id"]: n for n in _rows(generated, "nodes")}
    runs = {(j["node_id"], j["day"]) for j in _rows(generated, "jobs")}
    for p in revokes:
        day = f"{_when(p['change']['time']) + timedelta(days=1):%Y-%m-%d}"
        for node in p["may_fail"]:
            assert (node, day) in runs, (node, day)  # still scheduled the day after the revoke
            assert p["change"]["entity_id"] in nodes[node]["reads"].split(";")
            assert nodes[node]["owner"] == p["lost"][0] and nodes[node]["lineage"] == "sql"


def test_blast_radius_finds_the_planted_effects_local(generated):
    _check(_truth(generated), _blast(generated, "local"), generated)


@pytest.mark.spark
def test_blast_radius_finds_the_planted_effects_spark(generated):
    _check(_truth(generated), _blast(generated, "spark"), generated)
