"""Issue 19 on the generated platform (the ``generated`` fixture: 60 tables over 8 days): what the
last event decides -- run statuses, merged people's names, owners, expiries -- checked against the
generator's ground truth (``OUT/truth``), not against the fold's own output."""

from __future__ import annotations

import csv
import json
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner

from lineage import ids
from lineage.analysis import access as access_analysis
from lineage.cli import main
from lineage.export import records
from lineage.facts.maxcompute.helpers import JOB_SUCCESS
from lineage.graph.api import load_rows

pytestmark = pytest.mark.spark


def _rows(truth: Path, name: str) -> list[dict[str, str]]:
    with open(truth / f"{name}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def _props(vertex: dict) -> dict[str, str]:
    value = vertex.get("properties") or {}
    return dict(value) if not isinstance(value, list) else dict(value)


def _iso(value: str) -> str:
    """A truth time (whole seconds) in the graph's ``status_time`` form."""
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").strftime("%Y-%m-%dT%H:%M:%S.000000Z")


@pytest.fixture(scope="module")
def graph(generated):
    vertices, edges = load_rows(generated.warehouse)
    return {v["id"]: v for v in vertices}, edges


# ---------------------------------------------------------------------------------------------
# run statuses: MaxCompute jobs and DataWorks instances
# ---------------------------------------------------------------------------------------------


def test_every_failed_job_says_failed_with_its_error_code_and_every_finished_job_says_finished(generated, graph):
    vertices, _ = graph
    jobs = _rows(generated.truth, "jobs")
    failed = [j for j in jobs if j["status"] == "failed"]
    finished = [j for j in jobs if j["status"] == "finished"]
    assert failed and finished and len(failed) + len(finished) == len(jobs)
    assert all(j["error_code"].startswith("ODPS-") for j in failed), "the truth records each failure's code"
    wrong = []
    for job in jobs:
        props = _props(vertices.get(job["job_id"], {}))
        if job["status"] == "failed":
            ok = (props.get("status") == "failed" and props.get("error_code") == job["error_code"]
                  and props.get("error_message") == job["error_message"])
        else:
            ok = (props.get("status", "").lower() in JOB_SUCCESS and "error_code" not in props
                  and "error_message" not in props)
        if not ok or props.get("status_time") != _iso(job["ended"]):
            wrong.append((job["job_id"], job["status"], job["error_code"], {k: props.get(k) for k in (
                "status", "status_time", "error_code")}))
    assert not wrong, f"{len(wrong)} jobs whose status is not the truth's, e.g. {wrong[:3]}"
    # both counts equal the truth's, counted on the graph itself (every Job vertex)
    graph_jobs = [v for v in vertices.values() if v["label"] == "Job"]
    in_graph = Counter("failed" if _props(v).get("status") == "failed"
                       else "finished" if _props(v).get("status", "").lower() in JOB_SUCCESS
                       else _props(v).get("status") for v in graph_jobs)
    assert in_graph == {"failed": len(failed), "finished": len(finished)}
    assert generated.summary["stats"]["failed_jobs"] == len(failed)
    assert generated.summary["stats"]["finished_jobs"] == len(finished)
    failing = Counter(_props(v).get("error_code") for v in graph_jobs if _props(v).get("status") == "failed")
    assert failing == Counter(j["error_code"] for j in failed)


def test_every_instance_has_its_final_status_after_reruns(generated, graph):
    vertices, _ = graph
    instances = _rows(generated.truth, "instances")
    assert any(i["rerun"] == "1" for i in instances) and any(i["status"] == "failure" for i in instances)
    wrong = []
    for instance in instances:
        props = _props(vertices.get(instance["instance_id"], {}))
        # waiting, running, the end; a rerun runs and ends again (the rerun request is not a status)
        changes = str(3 + 2 * int(instance["rerun"]))
        # DataWorks times carry milliseconds, the truth whole seconds
        if (props.get("status"), props.get("status_time", "")[:19], props.get("status_changes")) != (
                instance["status"], instance["ended"][:19], changes):
            wrong.append((instance["instance_id"], instance["status"], instance["rerun"], props.get("status"),
                          props.get("status_changes")))
    assert not wrong, f"{len(wrong)} instances whose status is not the truth's, e.g. {wrong[:3]}"
    in_graph = Counter(_props(v).get("status") for v in vertices.values() if v["label"] == "Instance")
    assert in_graph == Counter(i["status"] for i in instances)
    assert in_graph["failure"] == generated.summary["stats"]["failed_instances"]


# ---------------------------------------------------------------------------------------------
# merged people: named by their account names
# ---------------------------------------------------------------------------------------------


def _people(generated) -> dict[str, dict[str, str]]:
    """canonical id -> {platform: alias key}, from the generator's alias file."""
    people: dict[str, dict[str, str]] = {}
    for line in (generated.root / "aliases.csv").read_text().splitlines()[2:]:
        alias, canonical = line.split(",")
        people.setdefault(canonical, {})[alias.split(":")[1]] = alias.split(":", 2)[2]
    return people


def test_merged_people_are_named_by_a_login_and_keep_every_name(generated, graph):
    """A merged person's name is the first of their names (issue 28: an account or login over a
    uid, the most recently given): their DataHub login or their MaxCompute account, never the uid."""
    vertices, _ = graph
    people = _people(generated)
    named = 0
    for person, keys in people.items():
        if person not in vertices:
            continue
        vertex = vertices[person]
        assert vertex["name"] == json.loads(_props(vertex)["names"])[0], person
        assert vertex["name"].lower() in {keys["datahub"], keys["maxcompute"]}, (person, vertex["name"])
        assert not vertex["name"].isdigit()
        assert json.loads(_props(vertex)["aliases"]) == sorted({*keys.values(), ids.key_of(person)}), person
        named += 1
    assert named >= len(people) // 2
    assert not [i for i in vertices if i.startswith(("user:maxcompute:", "user:datahub:", "user:dataphin:"))
                and i.split(":", 2)[2] in {k for keys in people.values() for k in keys.values()}]


def _granted_tables(generated) -> list[str]:
    """Tables the truth granted to a person and never revoked: readable through a direct grant."""
    seen: dict[tuple[str, str], bool] = {}
    for row in _rows(generated.truth, "access"):
        if row["ok"] == "1" and row["table_id"].startswith("table:") and row["kind"] in ("GrantACL", "RevokeACL"):
            seen[(row["principal"], row["table_id"])] = row["kind"] == "GrantACL"
    return sorted({table for (_p, table), held in seen.items() if held})


def test_access_names_merged_people(generated, graph):
    """`access --json` keeps the contract's keys (id, label, name, privileges, path) and names each
    principal as the graph's vertex of that id does; the human output prints it next to the id."""
    vertices, edges = graph
    people = _people(generated)
    table = _granted_tables(generated)[0]
    ran = CliRunner().invoke(main, ["access", table, "--warehouse", str(generated.warehouse), "--json"])
    assert ran.exit_code == 0, ran.output
    principals = [p for p in json.loads(ran.stdout)["principals"] if p["label"] == "User"]
    assert principals and all(set(p) >= {"id", "label", "name", "privileges", "path"} for p in principals)
    merged = [p for p in principals if p["id"] in people]
    assert merged, "a merged person reads the table"
    for p in merged:
        assert p["name"] == vertices[p["id"]]["name"] and p["name"].lower() in people[p["id"]].values()
    named = {p.id: p.name for p in access_analysis.who_can_access(list(vertices.values()), edges, table)}
    assert {p["id"]: named[p["id"]] for p in merged} == {p["id"]: p["name"] for p in merged}
    wide = {"COLUMNS": "400"}  # rich folds long cells at 80 columns
    human = CliRunner().invoke(main, ["access", table, "--warehouse", str(generated.warehouse)], env=wide)
    assert human.exit_code == 0, human.output
    for p in merged:
        line = next(line for line in human.stdout.splitlines() if p["id"] in line)
        assert p["name"] in line, line


def test_the_export_names_merged_people_by_their_display_name(generated, graph):
    """The export's records layer: the node a Neo4j/FalkorDB export writes for each merged person."""
    nodes, _ = records.graph(generated.warehouse)
    people = _people(generated)
    exported = {n.id: n for n in nodes if n.id in people}
    assert len(exported) >= len(people) // 2
    for person, node in exported.items():
        assert node.props["name"] == graph[0][person]["name"], person
        assert node.props["name"].lower() in people[person].values(), person
        assert node.props["aliases"] == sorted({*people[person].values(), ids.key_of(person)})


# ---------------------------------------------------------------------------------------------
# other properties the last event decides: a grant's latest expiry, owners
# ---------------------------------------------------------------------------------------------


def test_a_label_grant_ends_when_its_latest_grant_says(generated, graph):
    """GrantLabel is one authorization per user and table: a re-grant `WITH EXP d` replaces the
    expiry of the grant before it (the setup grants level 2 without expiry; the churn re-grants
    some with 3 to 14 days). The graph's latest label interval ends when the latest grant says."""
    _, edges = graph
    last: dict[tuple[str, str], str] = {}
    for row in _rows(generated.truth, "access"):
        if row["kind"] == "GrantLabel" and row["ok"] == "1":
            last[(row["principal"], row["table_id"])] = row["expires"]
    assert any(last.values()) and not all(last.values())
    intervals: dict[tuple[str, str], list[dict]] = {}
    for e in edges:
        if e["relationship"] == "CAN_ACCESS" and e["qualifier"] == "label":
            intervals.setdefault((e["src"], e["dst"]), []).append(e)
    assert set(intervals) == set(last)
    for key, expires in last.items():
        latest = max(intervals[key], key=lambda e: e["valid_from"])
        ends = latest["valid_to"].astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if latest["valid_to"] else ""
        assert (ends, latest["closed_by"] or "") == (expires, "expiry" if expires else ""), key


def test_every_table_and_node_has_the_truths_owner(generated, graph):
    """Current OWNS edges against the truth (a node has one owner at a time: ``SINGLE_VALUED``)."""
    _, edges = graph
    owners: dict[str, set[str]] = {}
    for e in edges:
        if e["relationship"] == "OWNS" and e["valid_to"] is None:
            owners.setdefault(e["dst"], set()).add(e["src"])
    for name in ("tables", "nodes"):
        rows = _rows(generated.truth, name)
        key = "table_id" if name == "tables" else "node_id"
        gone = "dropped_at" if name == "tables" else "deleted_at"
        wrong = {r[key]: owners.get(r[key]) for r in rows if not r[gone] and owners.get(r[key]) != {r["owner"]}}
        assert not wrong, f"{name} whose owner is not the truth's: {wrong}"
