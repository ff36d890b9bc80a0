"""Report fixtures: the demo warehouse (tests/conftest.py), and one variant of the demo with a
day missing from DataWorks and a Dataphin approval that expires mid-week, built once."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

WEEK = "2024-W27"  # the demo's 7 days: Monday 2024-07-01 to Sunday 2024-07-07
GAP_DAY = "2024-07-03"
EXPIRING = {  # bob's colleague carol gets dws_sales_daily approved until Friday 2024-07-05
    "log_time": "2024-07-02 09:00:00", "date": "2024-07-02", "time": "09:00:00.000",
    "event_id": "5E7C1A00-0000-4000-8000-00000000EXP1", "event_name": "ApprovePrivilege",
    "event_source": "http://cn-hangzhou-dataphin.aliyun.com/api/permission/ApprovePrivilege",
    "event_status": "SUCCESS", "event_version": "N/A", "user_identity": "alice:300010001:300001001:1234567890123456",
    "source_ip": "203.0.113.7", "trace_id": "0" * 32, "span_id": "0", "resource_id": "retail_dw.dws_sales_daily",
    "resource_name": "dws_sales_daily", "resource_type": "Table", "region": "cn-hangzhou", "tenant_id": "300001001",
    "request_parameter_json": json.dumps({"objectType": "TABLE", "objectName": "retail_dw.dws_sales_daily",
                                          "privileges": ["SELECT"], "grantee": "300010003",
                                          "expireDate": "2024-07-05 00:00:00"}),
}
CAROL = "user:dataphin:300010003"


def drop_day(path: Path, day: str) -> int:
    """Remove the CloudEvents of one day from a gzipped JSON Lines file; how many were removed."""
    with gzip.open(path, "rt") as handle:
        lines = handle.read().splitlines()
    kept = [line for line in lines if not json.loads(line)["time"].startswith(day)]
    with gzip.GzipFile(path, "wb", mtime=0) as handle:
        handle.write(("\n".join(kept) + "\n").encode())
    return len(lines) - len(kept)


@pytest.fixture(scope="session")
def gap_events(tmp_path_factory) -> Path:
    """The demo's events with DataWorks silent on GAP_DAY and an approval expiring mid-week."""
    from lineage.generate.samples import write_samples

    events = tmp_path_factory.mktemp("gap") / "events"
    write_samples(events)
    assert drop_day(events / "dataworks-eventbridge.jsonl.gz", GAP_DAY) > 0
    with (events / "dataphin-audit.jsonl").open("a") as handle:
        handle.write(json.dumps(EXPIRING) + "\n")
    return events


@pytest.fixture(scope="session")
def hostile_warehouse(spark, tmp_path_factory) -> Path:
    """The hostile DataHub file (tests/report/hostile.py) ingested and built once."""
    from lineage.graph.build import build
    from lineage.ingest.pipeline import ingest

    from .hostile import write

    root = tmp_path_factory.mktemp("hostile")
    lines = len(write(root / "events").read_text(encoding="utf-8").splitlines())
    result = ingest([root / "events"], root / "warehouse", spark=spark)
    assert (result.total.read, result.total.accepted) == (lines, lines)  # hostile text is data: all of it kept
    build(root / "warehouse", spark=spark)
    return root / "warehouse"
