"""`lineage generate --no-job-settings` (issue 67): MaxCompute jobs as ActionTrail documents them,
naming no DataWorks node; each instance frames its job by seconds, as a scheduler does. Only the
settings and the instances' running/finish times differ from the default output."""

from __future__ import annotations

import csv
import gzip
import json
from datetime import timedelta
from pathlib import Path

from click.testing import CliRunner

from lineage.cli import main
from lineage.events.times import parse_time


def _generate(root: Path, *options: str) -> None:
    ran = CliRunner().invoke(main, ["generate", "--out", str(root), "--tables", "24", "--days", "2", *options])
    assert ran.exit_code == 0, ran.output


def _lines(root: Path, source: str) -> list[dict]:
    docs = []
    for path in sorted((root / "events" / source).rglob("*.gz")):
        text = gzip.open(path, "rt").read()
        if text.lstrip().startswith(("[", "{\"Records")):
            docs += [json.loads(text)]
            continue
        for line in filter(None, text.splitlines()):
            try:
                docs.append(json.loads(line))
            except ValueError:  # the generator's planted malformed record
                pass
    return docs


def _records(doc: dict) -> list[dict]:
    return doc.get("Records", [doc]) if isinstance(doc, dict) else doc


def test_jobs_name_no_node_and_instances_frame_them(tmp_path):
    _generate(tmp_path / "bare", "--no-job-settings")
    _generate(tmp_path / "default")
    bare = [r for d in _lines(tmp_path / "bare", "maxcompute") for r in _records(d)]
    jobs = [r for r in bare if r.get("eventName") in ("InsertJob", "JobChange")]
    assert jobs and not [r for r in jobs if "SKYNET_ID" in json.dumps(r)]
    default = [r for d in _lines(tmp_path / "default", "maxcompute") for r in _records(d)]
    assert len(default) == len(bare)  # the same events, the settings aside
    truth = {r["job_id"]: r for r in csv.DictReader((tmp_path / "bare" / "truth" / "jobs.csv").open())}
    started = {f"job:maxcompute:{r['additionalEventData']['InstanceId']}": parse_time(r["eventTime"])
               for r in jobs if r["eventName"] == "InsertJob"}
    ended = {f"job:maxcompute:{r['additionalEventData']['InstanceId']}": parse_time(r["eventTime"])
             for r in jobs if r["eventName"] == "JobChange"}
    running: dict[str, list] = {}
    for doc in _lines(tmp_path / "bare", "dataworks"):
        data = doc.get("data", {})
        if data.get("eventCode") == "instance-status-changes" and data["status"] in (4, 5, 6):
            running.setdefault(f"instance:dataworks:{data['taskId']}", []).append(parse_time(doc["time"]))
    framed = 0
    for job, row in truth.items():
        if not row["instance_id"] or job not in started:
            continue
        times = running[row["instance_id"]]
        if len(times) > 2:  # a rerun: two runs of one instance
            continue
        # 1-30 s before, 1-20 s after; the job's events carry whole seconds, the instance's milliseconds
        assert min(times) <= started[job] <= min(times) + timedelta(seconds=30), job
        assert max(times) - timedelta(seconds=21) <= ended[job] <= max(times), job
        framed += 1
    assert framed > 20
