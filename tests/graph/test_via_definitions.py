"""A FEEDS edge's ``via`` names definitions, not runs (DESIGN.md "Definitions and runs"), through the
`lineage` command on hand-made events: an OpenLineage job that runs daily is named once and its
runs are counted, built day by day (incremental) as in one full build; a MaxCompute job run a
DataWorks node submitted (SKYNET_ID) is named by the node, one no node submitted by its own id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.graph.api import load_rows

pytestmark = pytest.mark.spark

JOB = "job:openlineage:sched/daily.load"
A, B = "table:postgres:shop.public.orders", "table:postgres:shop.public.orders_daily"
RUNS = ("3f1c2a10-0000-4000-8000-000000000001", "3f1c2a10-0000-4000-8000-000000000002")


def _run_events(run_id: str, day: int) -> list[dict[str, Any]]:
    """START naming the input, COMPLETE naming the output with its column lineage (any event of a run may name them)."""
    base = {"producer": "https://example.com/scheduler", "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            "run": {"runId": run_id}, "job": {"namespace": "sched", "name": "daily.load"}}
    columns = {"_producer": "https://example.com/scheduler",
               "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet",
               "fields": {"total": {"inputFields": [
                   {"namespace": "postgres://db:5432", "name": "shop.public.orders", "field": "amount",
                    "transformations": [{"type": "DIRECT", "subtype": "AGGREGATION"}]}]}}}
    return [
        {**base, "eventType": "START", "eventTime": f"2024-07-0{day}T01:00:00Z",
         "inputs": [{"namespace": "postgres://db:5432", "name": "shop.public.orders"}], "outputs": []},
        {**base, "eventType": "COMPLETE", "eventTime": f"2024-07-0{day}T01:05:00Z", "inputs": [],
         "outputs": [{"namespace": "postgres://db:5432", "name": "shop.public.orders_daily", "facets": {"columnLineage": columns}}]},
    ]


def _job_change(instance: str, day: int, sql: str, **extra: str) -> dict[str, Any]:
    return {"eventId": f"mc-{instance}", "eventName": "JobChange", "eventTime": f"2024-07-0{day}T02:00:00Z",
            "eventType": "JobEvent", "serviceName": "MaxCompute",
            "userIdentity": {"principalId": "1001", "type": "ram-user", "userName": "ann"},
            "additionalEventData": {"Status": "Terminated", "ProjectName": "meta", "InstanceId": instance,
                                    "TaskType": "SQL", "OperationText": sql, **extra}}


def _cli(*args: object) -> None:
    ran = CliRunner().invoke(main, [str(a) for a in args])
    assert ran.exit_code == 0, ran.output


def _ingest(warehouse: Path, folder: Path, name: str, docs: list[dict[str, Any]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(json.dumps(d) + "\n" for d in docs))
    _cli("ingest", folder / name, "--warehouse", warehouse, "--json", "--parse-in", "local")


def _feeds(warehouse: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    _, edges = load_rows(warehouse)
    return {(e["src"], e["dst"], e["qualifier"] or ""): e for e in edges if e["relationship"] == "FEEDS"}


def _essential(feeds: dict[tuple[str, str, str], dict[str, Any]]) -> dict[tuple[str, str, str], tuple]:
    return {k: (e["valid_from"], e["valid_to"], e["last_seen"], e["event_count"], dict(e["properties"]))
            for k, e in feeds.items()}


def test_a_daily_openlineage_job_is_named_once_and_its_runs_counted(tmp_path):
    day_by_day, full = tmp_path / "wh", tmp_path / "full"
    _ingest(day_by_day, tmp_path / "in1", "day1.jsonl", _run_events(RUNS[0], 1))
    _cli("build", "--warehouse", day_by_day, "--json")
    _ingest(day_by_day, tmp_path / "in2", "day2.jsonl", _run_events(RUNS[1], 2))
    _cli("build", "--warehouse", day_by_day, "--json")  # incremental: only the second day's facts folded
    feeds = _feeds(day_by_day)
    table = feeds[(A, B, "")]
    assert json.loads(table["properties"]["via"]) == [JOB]
    assert {k: table["properties"][k] for k in ("via_count", "run_count", "first_run", "last_run")} == {
        "via_count": "1", "run_count": "2",
        "first_run": f"instance:openlineage:{RUNS[0]}", "last_run": f"instance:openlineage:{RUNS[1]}"}
    column = feeds[("column:postgres:shop.public.orders.amount", "column:postgres:shop.public.orders_daily.total", "direct")]
    assert json.loads(column["properties"]["via"]) == [JOB] and column["event_count"] == 2
    # the full build of both days gives the same FEEDS
    _ingest(full, tmp_path / "both", "both.jsonl", _run_events(RUNS[0], 1) + _run_events(RUNS[1], 2))
    _cli("build", "--warehouse", full, "--json")
    assert _essential(_feeds(full)) == _essential(feeds)


def test_a_maxcompute_job_a_node_submitted_is_named_by_the_node(tmp_path):
    sql = "INSERT OVERWRITE TABLE meta.b SELECT id, name FROM meta.a;"
    docs = [
        _job_change("20240701020000aaa", 1, sql, SKYNET_ID="700123", SKYNET_TASKID="4600"),
        _job_change("20240702020000bbb", 2, sql, SKYNET_ID="700123", SKYNET_TASKID="4601"),
        _job_change("20240702030000ccc", 2, "INSERT OVERWRITE TABLE meta.c SELECT id FROM meta.a;"),  # ad hoc
    ]
    warehouse = tmp_path / "wh"
    _ingest(warehouse, tmp_path / "in", "jobs.jsonl", docs)
    _cli("build", "--warehouse", warehouse, "--json")
    feeds = _feeds(warehouse)
    scheduled = feeds[("table:maxcompute:meta.a", "table:maxcompute:meta.b", "")]["properties"]
    assert json.loads(scheduled["via"]) == ["node:dataworks:700123"]
    assert (scheduled["via_count"], scheduled["run_count"]) == ("1", "2")
    assert (scheduled["first_run"], scheduled["last_run"]) == ("job:maxcompute:20240701020000aaa", "job:maxcompute:20240702020000bbb")
    adhoc = feeds[("table:maxcompute:meta.a", "table:maxcompute:meta.c", "")]["properties"]
    assert json.loads(adhoc["via"]) == ["job:maxcompute:20240702030000ccc"] and adhoc["run_count"] == "1"
    columns = {k: json.loads(e["properties"]["via"]) for k, e in feeds.items() if k[2]}
    into_b = [via for (_s, dst, _q), via in columns.items() if dst.startswith("column:maxcompute:meta.b.")]
    assert into_b and all(via == ["node:dataworks:700123"] for via in into_b), columns
