"""Every node reaches its tables (issue 67, ``lineage.graph.links``), on hand-made events through
the real pipeline (ingest, build), asked on both engines.

Three days. Node ``sync`` (9102, a Data Integration node) loads ``p.src`` at 01:00: its job's
InsertJob and JobChange name the node (``SKYNET_ID``), its write is a ``ChangeTableData`` event,
which names no node. Node ``sql`` (9101) runs ``INSERT OVERWRITE p.out SELECT ... FROM p.src`` at
02:00: its jobs name no node at all; its instance starts running seconds before the job and ends
seconds after. Node ``decoy`` (9103) runs from 01:50 to 03:00 each day: its instance frames the
same jobs, loosely. At 04:00 an ad-hoc job reads ``p.src`` inside two instances that frame it
alike (9104 and 9105): it stays ad hoc. On day 3 column ``b`` of ``p.src`` is dropped and the
``sql`` node's job fails on it.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest
from click.testing import CliRunner

from lineage.analysis import api
from lineage.cli import main
from lineage.graph.build import build
from lineage.store.warehouse import Warehouse

T0 = datetime(2024, 8, 1, tzinfo=timezone.utc)
SRC, OUT = "table:maxcompute:p.src", "table:maxcompute:p.out"
SYNC, SQL, DECOY = "node:dataworks:9102", "node:dataworks:9101", "node:dataworks:9103"
AMBIGUOUS = ("node:dataworks:9104", "node:dataworks:9105")
DAYS = 3


def at(day: int, hour: int, minute: int = 0, second: int = 0) -> datetime:
    return T0 + timedelta(days=day - 1, hours=hour, minutes=minute, seconds=second)


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def ms(t: datetime) -> int:
    return int(t.timestamp() * 1000)


def trail(eid: str, name: str, kind: str, t: datetime, data: dict, resources: dict) -> dict:
    return {"eventId": eid, "eventName": name, "eventType": kind, "eventTime": iso(t), "serviceName": "MaxCompute",
            "userIdentity": {"principalId": "2001", "type": "root-account", "userName": "ALIYUN$owner@corp.example"},
            "referencedResources": resources, "additionalEventData": {"ProjectName": "p", **data}}


def job(eid: str, instance_id: str, begin: datetime, end: datetime, sql: str | None, node: int | None,
        error: str | None = None) -> list[dict]:
    settings = {"SKYNET_ID": str(node), "SKYNET_TASKID": str(node * 10)} if node else {}
    common = {"InstanceId": instance_id, "TaskName": instance_id, "TaskType": "SQL" if sql else "DI",
              "OperationText": sql or "sync job", **settings}
    res = {"Instance": [instance_id]}
    ended = trail(f"{eid}-c", "JobChange", "JobEvent", end, {**common, "Status": "Failed" if error else "Terminated"}, res)
    if error:
        ended.update(errorCode="ODPS-0130071", errorMessage=error)
    return [trail(f"{eid}-i", "InsertJob", "JobEvent", begin, common, res), ended]


def table_data(eid: str, name: str, t: datetime, table: str, instance_id: str) -> dict:
    return trail(eid, name, "TableEvent", t, {"TableName": table, "CorrelationId": instance_id, "Source": "INSTANCE",
                                               "OperationText": "DATA_INGESTION"}, {"Table": [table]})


def cloud(eid: str, code: str, kind: str, t: datetime, data: dict) -> dict:
    return {"datacontenttype": "application/json;charset=utf-8", "id": eid, "source": "acs.dataworks",
            "specversion": "1.0", "subject": "", "time": iso(t), "type": kind, "aliyunaccountid": "123456789098",
            "aliyunregionid": "cn-shanghai", "data": {"tenantId": 1, "eventCode": code, **data}}


def node(node_id: int, name: str, program: str) -> dict:
    return cloud(f"node-{node_id}", "node-change-created", "dataworks:NodeChange:NodeChangeCreated", T0, {
        "nodeName": name, "programType": program, "cronExpress": "00 00 02 * * ?", "schedulerType": "NORMAL",
        "ownerId": "2001", "priority": 1, "operator": "2001", "repeatability": True, "modifyTime": ms(T0),
        "createTime": ms(T0), "nodeId": node_id, "projectId": 7788})


def instance(node_id: int, day: int, begin: datetime, end: datetime, ok: bool = True) -> list[dict]:
    task = node_id * 100 + day
    out = []
    for status, t in ((4, begin), (6 if ok else 5, end)):
        out.append(cloud(f"inst-{task}-{status}", "instance-status-changes",
                         "dataworks:InstanceStatusChanges:InstanceStatusChanges", t, {
                             "beginWaitTimeTime": ms(begin), "dagId": 6000 + day, "dagType": 0, "taskType": 0,
                             "modifyTime": ms(t), "createTime": ms(at(day, 0)), "appId": 7788, "opCode": 31,
                             "flowId": 1, "nodeId": node_id, "beginWaitResTime": ms(begin), "taskId": task,
                             "status": status}))
    return out


def events(day: int) -> tuple[list[dict], list[dict]]:
    """(MaxCompute trail records, DataWorks EventBridge events) of ``day``."""
    mc: list[dict] = []
    if day == 1:
        mc += job("ddl", "ddl0", at(1, 0, 10), at(1, 0, 11),
                  "CREATE TABLE IF NOT EXISTS src (a BIGINT, b STRING);\nCREATE TABLE IF NOT EXISTS out (a BIGINT, b STRING);",
                  None)
    if day == 3:
        mc += job("drop", "drop3", at(3, 0, 30), at(3, 0, 31), "ALTER TABLE src DROP COLUMNS (b);", None)
    sync_job, sql_job, adhoc = f"sync{day}", f"sql{day}", f"adhoc{day}"
    mc += job(f"sync{day}", sync_job, at(day, 1, 0, 20), at(day, 1, 10), None, 9102)
    mc.append(table_data(f"sync{day}-w", "ChangeTableData", at(day, 1, 9, 50), "src", sync_job))
    mc += job(f"sql{day}", sql_job, at(day, 2, 0, 12), at(day, 2, 20),
              "INSERT OVERWRITE TABLE out SELECT a, b FROM src;", None,
              "Semantic analysis exception - column b cannot be resolved" if day == 3 else None)
    mc += job(f"adhoc{day}", adhoc, at(day, 4, 5), at(day, 4, 6), "INSERT OVERWRITE TABLE out SELECT a, b FROM src;", None)
    dw = [node(9101, "sql", "ODPS_SQL"), node(9102, "sync", "DI"), node(9103, "decoy", "ODPS_SQL"),
          node(9104, "left", "ODPS_SQL"), node(9105, "right", "ODPS_SQL")] if day == 1 else []
    dw += instance(9102, day, at(day, 1), at(day, 1, 10, 15))
    dw += instance(9101, day, at(day, 2), at(day, 2, 20, 9), ok=day < 3)
    dw += instance(9103, day, at(day, 1, 50), at(day, 3))
    dw += instance(9104, day, at(day, 4), at(day, 4, 10))  # both frame the ad-hoc job by 9 minutes
    dw += instance(9105, day, at(day, 4, 1), at(day, 4, 11))
    return mc, dw


def ingest(root, warehouse, days) -> None:
    for day in days:
        mc, dw = events(day)
        folder = root / f"day{day}"
        folder.mkdir()
        (folder / "actiontrail.json").write_text(json.dumps(mc))
        (folder / "eventbridge.jsonl").write_text("\n".join(json.dumps(e) for e in dw) + "\n")
        ran = CliRunner().invoke(main, ["ingest", str(folder), "--warehouse", str(warehouse)])
        assert ran.exit_code == 0, ran.output


@pytest.fixture(scope="module")
def warehouse(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("links")
    ingest(root, root / "wh", range(1, DAYS + 1))
    build(root / "wh", spark=spark)
    return root / "wh"


def _graph(warehouse):
    import pyarrow.parquet as pq

    wh = Warehouse(warehouse)
    vertices = {r["id"]: dict(r["properties"]) for r in pq.read_table(str(wh.vertices)).to_pylist()}
    edges = {(r["src"], r["relationship"], r["dst"]): dict(r["properties"]) for r in pq.read_table(str(wh.edges)).to_pylist()}
    return vertices, edges


def test_each_node_reads_and_writes_its_tables_whether_or_not_its_jobs_name_it(warehouse):
    vertices, edges = _graph(warehouse)
    assert (SYNC, "WRITES", SRC) in edges  # a sync node: its write names only the job
    assert (SQL, "READS", SRC) in edges and (SQL, "WRITES", OUT) in edges  # its jobs name no node
    assert not {k for k in edges if (k[0] == DECOY or k[0] in AMBIGUOUS) and k[1] in ("READS", "WRITES")}  # not theirs
    for day in range(1, DAYS + 1):
        assert vertices[f"job:maxcompute:sync{day}"]["linked_by"] == "settings"
        linked = vertices[f"job:maxcompute:sql{day}"]
        assert (linked["node"], linked["linked_by"], linked["dataworks_instance"]) == (
            SQL, "window", f"instance:dataworks:{9101 * 100 + day}")
        assert "node" not in vertices[f"job:maxcompute:adhoc{day}"]  # two instances frame it alike: ad hoc
    via = json.loads(edges[(SRC, "FEEDS", OUT)]["via"])
    assert SQL in via and not [v for v in via if v.startswith("job:maxcompute:sql")]  # the node, not its runs


@pytest.mark.parametrize("engine", ["local", pytest.param("spark", marks=pytest.mark.spark)])
def test_a_sync_nodes_change_reaches_the_tables_it_writes_and_their_readers(warehouse, engine, spark):
    found = api.impact(warehouse, [SYNC], engine=engine, spark=spark if engine == "spark" else None)
    reached = {a.id for a in found.affected}
    assert {SRC, OUT, SQL} <= reached
    assert not [a for a in reached if a.startswith(("job:maxcompute:", "instance:"))]


@pytest.mark.parametrize("engine", ["local", pytest.param("spark", marks=pytest.mark.spark)])
def test_a_table_change_reaches_the_node_whose_jobs_do_not_name_it(warehouse, engine, spark):
    found = api.impact(warehouse, [SRC], engine=engine, spark=spark if engine == "spark" else None)
    by_id = {a.id: a for a in found.affected}
    assert SQL in by_id and by_id[SQL].path == (SRC, SQL)
    assert DECOY not in by_id and not [a for a in by_id if a.startswith("job:maxcompute:sql")]


@pytest.mark.parametrize("engine", ["local", pytest.param("spark", marks=pytest.mark.spark)])
def test_why_a_node_whose_jobs_do_not_name_it_fails_names_the_column_drop(warehouse, engine):
    answer = api.why(warehouse, SQL, engine=engine)
    assert answer.last_success.id in ("instance:dataworks:910102", "job:maxcompute:sql2")  # day 2: its runs
    assert answer.first_failure.id in ("instance:dataworks:910103", "job:maxcompute:sql3")
    assert "column b cannot be resolved" in answer.error  # its job's error: the job is the node's run
    first = answer.causes[0]
    assert (first.change["entity_id"], first.change["kind"]) == (SRC, "field_removal")
    assert first.path[0] == SRC and first.path[-1] == SQL


def test_a_day_by_day_build_ties_the_same_jobs(warehouse, spark, tmp_path):
    ingest(tmp_path, tmp_path / "wh", [1])
    build(tmp_path / "wh", spark=spark)
    ingest(tmp_path, tmp_path / "wh", [2, 3])
    build(tmp_path / "wh", spark=spark)
    once, daily = _graph(warehouse), _graph(tmp_path / "wh")
    assert {k for k in daily[1] if k[0].startswith("node:")} == {k for k in once[1] if k[0].startswith("node:")}
    linked = {v: p.get("node") for v, p in once[0].items() if v.startswith("job:")}
    assert {v: p.get("node") for v, p in daily[0].items() if v.startswith("job:")} == linked
