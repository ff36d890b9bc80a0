"""Hand-made events for the tests that follow a few changes through ingest + build + the CLI
(issue 68): ActionTrail's MaxCompute events, DataHub's entity change events, DataWorks' node
events, shaped as the seeds document them, and one warehouse built from them."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from click.testing import CliRunner

USER = {"accountId": "1", "principalId": "1", "type": "ram-user", "userName": "RAM$p:etl"}


def actiontrail(key: str, name: str, kind: str, when: datetime, data: dict, resources: dict | None = None) -> dict:
    """An ActionTrail MaxCompute event (seed 002) of project ``p``."""
    return {"eventId": f"e-{key}", "acsRegion": "cn-hangzhou", "eventName": name, "eventType": kind,
            "eventTime": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "serviceName": "MaxCompute", "userIdentity": USER,
            "referencedResources": resources or {}, "additionalEventData": {"ProjectName": "p", **data}}


def job(instance: str, when: datetime, sql: str, node: int | str | None = None) -> dict:
    """A finished SQL job running ``sql``, submitted by DataWorks node ``node`` (its SKYNET_ID)."""
    return actiontrail(instance, "JobChange", "JobEvent", when,
                       {"InstanceId": instance, "Status": "Terminated", "TaskType": "SQL", "TaskName": instance,
                        "OperationText": sql, **({"SKYNET_ID": str(node)} if node else {})}, {"Instance": [instance]})


def datahub(category: str, operation: str, when: datetime, table: str = "p.src", **fields: object) -> dict:
    """A DataHub entity change event on a MaxCompute dataset, by alice."""
    urn = f"urn:li:dataset:(urn:li:dataPlatform:maxcompute,{table},PROD)"
    return {"entityUrn": urn, "entityType": "dataset", "category": category, "operation": operation,
            "auditStamp": {"actor": "urn:li:corpuser:alice", "time": int(when.timestamp() * 1000)}, **fields}


def node_event(node: int, code: str, when: datetime, settings: dict, created: datetime, **changes: object) -> dict:
    """A DataWorks node-change event (seed 000) of ``node``: its settings after the change."""
    return {"datacontenttype": "application/json;charset=utf-8",
            "data": {**settings, **changes, "eventCode": code, "nodeId": node, "projectId": 94, "tenantId": 28378,
                     "operator": "111", "modifyTime": int(when.timestamp() * 1000),
                     "createTime": int(created.timestamp() * 1000)}}


def cli(*args: object) -> Any:
    """A CLI command's ``--json`` answer (it must succeed)."""
    from lineage.cli import main

    ran = CliRunner().invoke(main, [str(a) for a in args])
    assert ran.exit_code == 0, ran.output
    return json.loads(ran.output)


def built(spark: Any, root: Path, events: Iterable[dict]) -> Path:
    """``events`` written one file per source, ingested and built into ``root / "warehouse"``."""
    from lineage.graph.build import build
    from lineage.ingest.pipeline import ingest

    files = {"maxcompute.jsonl": [], "datahub-ece.jsonl": [], "dataworks.jsonl": []}
    for event in events:
        name = "maxcompute.jsonl" if "eventName" in event else "dataworks.jsonl" if "data" in event else "datahub-ece.jsonl"
        files[name].append(event)
    (root / "events").mkdir(parents=True)
    for name, rows in files.items():
        if rows:
            (root / "events" / name).write_text("".join(json.dumps(e) + "\n" for e in rows))
    warehouse = root / "warehouse"
    ingest([root / "events"], warehouse, spark=spark)
    build(warehouse, spark=spark)
    return warehouse
