"""Runs are evidence, not impact (issue 67), on a hand-made graph, on both engines.

Table ``s`` (columns a, b) feeds ``o``. Node ``daily`` reads ``s`` and writes ``o`` every day at
01:00 (its DataWorks instances); its runs succeed on days 1-2 and fail from day 3 with an error
naming column ``a``. Node ``broken`` reads ``s`` and has failed every day since day 1. Every day an
ad-hoc MaxCompute job run reads ``s`` and writes ``o`` (no node). On day 2 at 12:00 column ``a`` of
``s`` is removed; an hour later a table nothing here reads, ``x``, changes too. Weeks later, the
same weekly change is asked again: its score must not grow with the runs piled up since.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner
from export.graphgen import write_graph

from lineage.analysis import api, runs
from lineage.cli import main

T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)
S, O, X = "table:maxcompute:p.s", "table:maxcompute:p.o", "table:maxcompute:p.x"
DAILY, BROKEN = "node:dataworks:100", "node:dataworks:200"
OWNER = "user:aliyun:owner"
REMOVAL, UNRELATED, WEEK1, WEEK2 = "a" * 32, "b" * 32, "c" * 32, "d" * 32
DAYS = 21


def day(n: int, hour: int = 1) -> datetime:
    return T0 + timedelta(days=n - 1, hours=hour)


def inst(node: str, n: int) -> str:
    return f"instance:dataworks:{node.rsplit(':', 1)[1]}{n:02d}"


def vertex(vid: str, label: str, at: datetime, **props: str) -> dict:
    return {"id": vid, "label": label, "name": vid.rsplit(":", 1)[1], "first_seen": at, "last_seen": at,
            "properties": props}


def edge(src: str, rel: str, dst: str, at: datetime) -> dict:
    return {"src": src, "dst": dst, "relationship": rel, "qualifier": "", "valid_from": at, "last_seen": at,
            "src_label": None, "dst_label": None}


def change(cid: str, entity: str, kind: str, at: datetime, **props: str) -> dict:
    return {"change_id": cid, "entity_id": entity, "entity_label": "Table", "kind": kind, "time": at,
            "actor": OWNER, "event_id": cid, "source": "maxcompute", "properties": props}


def graph() -> tuple[list[dict], list[dict], list[dict]]:
    v = [vertex(t, "Table", T0) for t in (S, O, X)]
    v += [vertex(f"column:maxcompute:p.s.{c}", "Column", T0) for c in "ab"]
    v += [vertex(DAILY, "Node", T0), vertex(BROKEN, "Node", T0), vertex(OWNER, "User", T0)]
    e = [edge(S, "HAS_COLUMN", f"column:maxcompute:p.s.{c}", T0) for c in "ab"]
    e += [edge(DAILY, "READS", S, T0), edge(DAILY, "WRITES", O, T0), edge(BROKEN, "READS", S, T0),
          edge(S, "FEEDS", O, T0), edge(OWNER, "OWNS", DAILY, T0)]
    for n in range(1, DAYS + 1):
        good = n <= 2
        v.append(vertex(inst(DAILY, n), "Instance", day(n), status="SUCCESS" if good else "FAILURE",
                        finished_at=day(n, 2).isoformat()))
        v.append(vertex(inst(BROKEN, n), "Instance", day(n), status="FAILURE", finished_at=day(n, 2).isoformat()))
        job = f"job:maxcompute:adhoc{n:02d}"
        v.append(vertex(job, "Job", day(n, 3), status="Terminated"))
        e += [edge(DAILY, "HAS_INSTANCE", inst(DAILY, n), day(n)), edge(BROKEN, "HAS_INSTANCE", inst(BROKEN, n), day(n)),
              edge(job, "READS", S, day(n, 3)), edge(job, "WRITES", O, day(n, 3))]
        if not good:  # the node's MaxCompute job says why
            failed = f"job:maxcompute:daily{n:02d}"
            v.append(vertex(failed, "Job", day(n), status="Failed", skynet_id="100", error_code="ODPS-0130071",
                            error_message="Semantic analysis exception - column a cannot be resolved"))
    changes = [change(REMOVAL, S, "field_removal", day(2, 12), columns='["a"]'),
               change(UNRELATED, X, "schema_change", day(2, 13)),
               change(WEEK1, O, "schema_change", day(8, 12)), change(WEEK2, O, "schema_change", day(15, 12))]
    return v, e, changes


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    v, e, c = graph()
    return write_graph(tmp_path_factory.mktemp("runs") / "wh", v, e, c)


ENGINES = ["local", pytest.param("spark", marks=pytest.mark.spark)]


def _blast(warehouse, engine, request):
    spark = request.getfixturevalue("spark") if engine == "spark" else None
    return {c.change_id: c for c in api.blast(warehouse, engine=engine, spark=spark)}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_change_reaches_what_runs_again_never_a_run_before_it(warehouse, engine, request):
    found = _blast(warehouse, engine, request)
    removal = found[REMOVAL]
    reached = {a.id for a in removal.affected}
    assert {O, DAILY, BROKEN, OWNER} <= reached  # the table it feeds, the daily readers, their owner
    assert not {a for a in reached if a.startswith(("instance:", "job:maxcompute:", "dag:"))}
    assert set(removal.summary) <= {"Table", "Node", "User", "Column"}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_weekly_change_scores_the_same_each_week(warehouse, engine, request):
    found = _blast(warehouse, engine, request)
    first, second = found[WEEK1], found[WEEK2]
    assert first.score == second.score and first.summary == second.summary  # 7 more days of runs in between


@pytest.mark.parametrize("engine", ENGINES)
def test_failed_after_names_the_new_failures_of_a_node_that_had_succeeded(warehouse, engine, request):
    found = _blast(warehouse, engine, request)
    failed = [r["id"] for r in found[REMOVAL].failed_after]
    daily_runs = {inst(DAILY, n) for n in range(3, DAYS + 1)} | {f"job:maxcompute:daily{n:02d}" for n in range(3, DAYS + 1)}
    assert set(failed) == daily_runs  # the daily node's streak, both its instances and its jobs
    assert not any(inst(BROKEN, n) in failed for n in range(1, DAYS + 1))  # failing before: not evidence
    assert found[UNRELATED].failed_after == ()
    doc = found[REMOVAL].to_json()
    assert doc["columns"] == [{"column": "a", "change": "removed"}]
    assert {"id", "label", "time"} <= set(doc["failed_after"][0])


def test_why_a_node_started_failing_names_the_removal_first(warehouse):
    answer = api.why(warehouse, DAILY)
    assert answer.last_success.id == inst(DAILY, 2) and answer.first_failure.id in {
        inst(DAILY, 3), "job:maxcompute:daily03"}
    assert [c.change["change_id"] for c in answer.causes] == [REMOVAL]  # not the change to x, nobody reads it
    assert answer.causes[0].named and answer.causes[0].path == (S, DAILY)
    doc = answer.to_json()
    assert doc["target"] == DAILY and doc["causes"][0]["change_id"] == REMOVAL
    assert {"change_id", "entity_id", "kind", "time", "path"} <= set(doc["causes"][0])


def test_why_a_run_is_its_node_streak_and_a_node_failing_before_has_no_cause(warehouse):
    assert [c.change["change_id"] for c in api.why(warehouse, inst(DAILY, 9)).causes] == [REMOVAL]
    broken = api.why(warehouse, BROKEN)
    assert broken.first_failure.id == inst(BROKEN, 1) and broken.last_success is None
    assert REMOVAL not in {c.change["change_id"] for c in broken.causes}  # it failed before the removal


def test_why_of_a_run_that_succeeded_has_nothing_to_explain(warehouse):
    doc = api.why(warehouse, inst(DAILY, 1)).to_json()
    assert doc["last_success"] is None and doc["first_failure"] is None and doc["causes"] == []


def test_why_cli_json_and_text(warehouse):
    out = CliRunner().invoke(main, ["why", DAILY, "--warehouse", str(warehouse), "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    assert doc["causes"][0]["change_id"] == REMOVAL and doc["first_failure"]["id"]
    text = CliRunner().invoke(main, ["why", DAILY, "--warehouse", str(warehouse)])
    assert text.exit_code == 0 and "field_removal" in text.output and "column a cannot be resolved" in text.output
    unknown = CliRunner().invoke(main, ["why", "node:dataworks:999", "--warehouse", str(warehouse)])
    assert unknown.exit_code == 2


def test_failure_streak_rules():
    def run(n: int, status: str) -> runs.Run:
        return runs.Run(f"r{n}", "Instance", "n", day(n), day(n, 2), status)

    history = runs.History({"n": [run(1, "SUCCESS"), run(2, "FAILURE"), run(3, "RUNNING"), run(4, "FAILURE"),
                                  run(5, "SUCCESS"), run(6, "FAILURE")]})
    assert [r.id for r in runs.failed_after(history, day(1, 12), ["n"])] == ["r2", "r4"]  # to the next success
    assert runs.failed_after(history, day(2, 12), ["n"]) == []  # its last run before had failed
    assert [r.id for r in runs.failed_after(history, day(5, 12), ["n"])] == ["r6"]


def test_an_error_names_a_column_only_as_a_whole_word():
    assert runs.names_column("Semantic analysis exception - column a cannot be resolved", ["a"])
    assert not runs.names_column("Semantic analysis exception - column amount cannot be resolved", ["a"])
    assert not runs.names_column(None, ["a"]) and not runs.names_column("column a", [])
