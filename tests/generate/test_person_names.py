"""Issue 28 on the generated platform: every person whose events carry a name is called by it in
`access --json`, in the human `access` table and in the export's User nodes -- checked against
the generator's truth (``truth/people.csv``), partner UIDs that only an approval's
``granteeName`` names included."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timedelta

import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.export import records
from lineage.graph.api import load_rows

pytestmark = pytest.mark.spark


def _rows(truth, name: str) -> list[dict[str, str]]:
    with open(truth / f"{name}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def truth_people(generated) -> dict[str, dict[str, str]]:
    return {row["user_id"]: row for row in _rows(generated.truth, "people")}


@pytest.fixture(scope="module")
def vertices(generated) -> dict[str, dict]:
    return {v["id"]: v for v in load_rows(generated.warehouse)[0]}


def _names(vertex: dict) -> list[str]:
    props = vertex.get("properties") or {}
    return json.loads(dict(props)["names"])


def test_every_person_is_named_by_a_name_their_events_carry(truth_people, vertices):
    guests = [p for p in truth_people.values() if p["kind"] == "guest"]
    assert guests, "the generator has partner UIDs that only an approval's granteeName names"
    seen = 0
    for person, row in truth_people.items():
        if person not in vertices:
            continue
        seen += 1
        given = row["names"].split(";")
        vertex = vertices[person]
        assert _names(vertex) and set(_names(vertex)) <= set(given), person  # as the events wrote them
        assert given[-1] in _names(vertex), person  # the MaxCompute account (AddUser names everyone)
        assert vertex["name"] == _names(vertex)[0] and vertex["name"] in given, person
        assert not vertex["name"].isdigit()
    assert seen >= len(truth_people) // 2
    assert any(len(_names(vertices[p])) > 1 for p in truth_people if p in vertices), "some go by two names"
    assert all(vertices[g["user_id"]]["name"] == g["names"] for g in guests)


def _moment(text: str) -> str:
    return (datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ") + timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _grants(generated, truth_people) -> list[tuple[str, str, str]]:
    """(as of, table, principal): each guest's first approval, and a few grants to merged people."""
    rows = [r for r in _rows(generated.truth, "access")
            if r["ok"] == "1" and r["kind"] in ("approval-change-finished", "GrantACL")
            and r["table_id"].startswith("table:")]
    guests = {}
    for r in rows:
        if truth_people.get(r["principal"], {}).get("kind") == "guest":
            guests.setdefault(r["principal"], (_moment(r["time"]), r["table_id"], r["principal"]))
    people = [(_moment(r["time"]), r["table_id"], r["principal"]) for r in rows
              if truth_people.get(r["principal"], {}).get("kind") == "person"][:4]
    return [*guests.values(), *people]


def test_access_names_every_principal_in_json_and_in_the_table(generated, truth_people, vertices):
    grants = _grants(generated, truth_people)
    assert any(truth_people[p]["kind"] == "guest" for _, _, p in grants)
    for as_of, table, principal in grants:
        args = ["access", table, "--warehouse", str(generated.warehouse), "--as-of", as_of]
        ran = CliRunner().invoke(main, [*args, "--json"])
        assert ran.exit_code == 0, ran.output
        doc = json.loads(ran.stdout)
        listed = {p["id"]: p for p in doc["principals"]}
        assert principal in listed, (table, principal)
        for p in doc["principals"] + doc["owners"] + doc["metadata_owners"]:
            assert p["name"] == vertices[p["id"]]["name"], p  # a role's name, a person's display name
        expected = vertices[principal]["name"]
        assert expected in truth_people[principal]["names"].split(";")
        assert listed[principal]["name"] == expected
        human = CliRunner().invoke(main, args, env={"COLUMNS": "400"})
        assert human.exit_code == 0, human.output
        line = next(line for line in human.stdout.splitlines() if principal in line)
        assert expected in line, line


def test_the_export_names_user_nodes_the_same(generated, truth_people, vertices):
    nodes, _ = records.graph(generated.warehouse)
    users = {n.id: n for n in nodes if n.id in truth_people}
    assert len(users) >= len(truth_people) // 2
    assert any(truth_people[i]["kind"] == "guest" for i in users)
    for person, node in users.items():
        assert node.props["name"] == vertices[person]["name"], person
        assert node.props["name"] in truth_people[person]["names"].split(";"), person
        assert node.props["names"] == _names(vertices[person]) and node.props["names"][0] == node.props["name"], person
