"""``why`` and ``failed_after`` on generated events with planted failures (issue 67): a column
dropped or renamed by its table owner's DDL job makes every SQL node reading it fail from its next
run (``lineage generate --planted-failures``, truth in ``truth/failures.csv``). Ingested and built
like any platform; asked on both engines."""

from __future__ import annotations

import csv
from datetime import timedelta

import pytest

from lineage.analysis import api
from lineage.events.times import parse_time

TABLES, DAYS, PLANTED = 40, 10, 2


@pytest.fixture(scope="module")
def planted(spark, tmp_path_factory):
    from conftest import generated_platform

    found = generated_platform(spark, tmp_path_factory.mktemp("planted"), TABLES, DAYS, planted_failures=PLANTED)
    rows = list(csv.DictReader((found.truth / "failures.csv").open()))
    assert [r for r in rows if r["cause"] == "planted"], "the generator planted no failure"
    return found, rows


def _is_planted(cause, row) -> bool:
    change = cause.change if hasattr(cause, "change") else cause
    return (change["entity_id"] == row["table_id"] and change["kind"] == "field_removal"
            and abs((change["time"] - parse_time(row["change_time"])).total_seconds()) <= 600)


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_why_names_the_planted_change_first_for_every_planted_failure(planted, engine):
    found, rows = planted
    for row in (r for r in rows if r["cause"] == "planted"):
        as_of = (parse_time(row["first_failed_at"]) + timedelta(minutes=30)).isoformat()
        answer = api.why(found.warehouse, row["node_id"], as_of=as_of, engine=engine)
        assert answer.first_failure is not None and answer.last_success is not None, row
        assert answer.causes and _is_planted(answer.causes[0], row), (row, [c.to_json() for c in answer.causes])
        assert answer.causes[0].path[0] == row["table_id"] and answer.causes[0].path[-1] == row["node_id"]
        assert "cannot be resolved" in (answer.error or "")


def test_failed_after_is_the_planted_failures_of_nodes_that_had_succeeded(planted):
    found, rows = planted
    instances = list(csv.DictReader((found.truth / "instances.csv").open()))
    for row in (r for r in rows if r["cause"] == "planted"):
        moment = parse_time(row["change_time"])
        ranked = api.blast(found.warehouse, since=(moment - timedelta(minutes=20)).isoformat(),
                           until=(moment + timedelta(minutes=20)).isoformat(), engine="local")
        change = next(c for c in ranked if _is_planted({"entity_id": c.entity_id, "kind": c.kind, "time": c.time}, row))
        failing = {r["definition"] for r in change.failed_after}
        assert row["node_id"] in failing  # the planted failure is its evidence
        for node in failing & {r["node_id"] for r in instances}:  # by the truth: each had succeeded last before it
            before = [r for r in instances if r["node_id"] == node and r["ended"] and parse_time(r["ended"]) < moment]
            assert before and max(before, key=lambda r: r["ended"])["status"] == "success", node
