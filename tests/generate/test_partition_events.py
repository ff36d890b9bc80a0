"""`lineage generate --partition-events` (issue 68): MaxCompute logs a ``ChangeTable`` with
``OperationText: ADD_PARTITION`` for every partition a job writes (seed 002). The generator writes one
per table a successful run writes; each is a write (who wrote the table, when), never a change."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

from lineage.cli import main
from lineage.facts.core import FACT_NAMES
from lineage.facts.extract import facts_of_event
from generate.test_job_settings import _lines, _records


def _generate(root: Path, *options: str) -> dict:
    ran = CliRunner().invoke(main, ["generate", "--out", str(root), "--tables", "24", "--days", "2", "--json", *options])
    assert ran.exit_code == 0, ran.output
    return json.loads(ran.output)


def _facts(root: Path) -> list[dict]:
    rows = []
    for n, record in enumerate(r for d in _lines(root, "maxcompute") for r in _records(d)):
        rows += [dict(zip(FACT_NAMES, row)) for row in facts_of_event("maxcompute", "?", f"e{n}", None, json.dumps(record))]
    return rows


def test_partition_events_are_writes_and_make_no_change(tmp_path):
    summary = _generate(tmp_path / "partitions", "--partition-events")
    _generate(tmp_path / "default")
    assert summary["partition_events"] is True
    records = [r for d in _lines(tmp_path / "partitions", "maxcompute") for r in _records(d)]
    added = [r for r in records if r.get("eventName") == "ChangeTable"
             and r["additionalEventData"].get("OperationText") == "ADD_PARTITION"]
    runs = {r["additionalEventData"]["InstanceId"] for r in records if r.get("eventName") == "JobChange"
            and r["additionalEventData"].get("Status") == "Terminated" and "SKYNET_ID" in r["additionalEventData"]}
    # every successful scheduled run wrote a partition of each of its tables, and only they did
    assert {r["additionalEventData"]["CorrelationId"] for r in added} == runs and len(added) >= len(runs) > 20
    with_partitions, without = _facts(tmp_path / "partitions"), _facts(tmp_path / "default")
    changes = Counter(f["relationship"] for f in with_partitions if f["op"] == "change")
    assert changes == Counter(f["relationship"] for f in without if f["op"] == "change")
    # each is the job writing the table: a WRITES from the job the CorrelationId names
    writes = {(f["src_id"], f["dst_id"]) for f in with_partitions if f["relationship"] == "WRITES"}
    for r in added:
        data = r["additionalEventData"]
        assert (f"job:maxcompute:{data['CorrelationId']}",
                f"table:maxcompute:{data['ProjectName']}.{data['TableName']}") in writes
