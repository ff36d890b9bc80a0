"""A node update says what changed (issue 68, item 3), from hand-made DataWorks and ActionTrail
events through ingest + build + ``blast-radius`` on both engines.

Node ``301`` (owner uid 111) runs a daily job reading ``p.src`` into ``p.out``. Then, an hour
apart: an update that changes nothing (DataWorks sends one on every save), one that changes only
its owner (111 -> 222), one that changes its schedule. Only the last is a break; the first two
tell the owners, and every answer says which settings changed, before and after.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import handmade
import pytest
from handmade import built, cli, job

T = datetime(2024, 7, 10, 10, 0, tzinfo=timezone.utc)
NODE, OUT = "node:dataworks:301", "table:maxcompute:p.out"
OWNER, NEW_OWNER = "user:aliyun:111", "user:aliyun:222"
SETTINGS = {"nodeName": "out_etl", "programType": "ODPS_SQL", "cronExpress": "00 30 05 * * ?",
            "schedulerType": "NORMAL", "ownerId": "111", "priority": 1, "baselineId": 9, "repeatability": True,
            "datasource": "odps_first"}
CREATED = T - timedelta(days=10)
SQL = "INSERT OVERWRITE TABLE p.out SELECT k FROM p.src;"


def node_event(code: str, when: datetime, **changes: object) -> dict:
    return handmade.node_event(301, code, when, SETTINGS, CREATED, **changes)


NOTHING, OWNER_ONLY, SCHEDULE = T, T + timedelta(hours=1), T + timedelta(hours=2)
DATAWORKS = [
    node_event("node-change-created", CREATED),
    node_event("node-change-updated", NOTHING),
    node_event("node-change-updated", OWNER_ONLY, ownerId="222"),
    node_event("node-change-updated", SCHEDULE, ownerId="222", cronExpress="00 30 09 * * ?"),
]
MAXCOMPUTE = [job(f"r{day}", T - timedelta(days=9 - day), SQL, 301) for day in range(9)]


@pytest.fixture(scope="module")
def warehouse(spark, tmp_path_factory) -> Path:
    return built(spark, tmp_path_factory.mktemp("node-updates"), DATAWORKS + MAXCOMPUTE)


def updates(warehouse: Path, engine: str) -> dict[datetime, dict]:
    doc = cli("blast-radius", "--warehouse", warehouse, "--since", T.date(), "--engine", engine, "--json")
    return {datetime.fromisoformat(c["time"]): c for c in doc["changes"] if c["kind"] == "node_update"}


@pytest.mark.parametrize("engine", ["local", "spark"])
def test_an_update_says_what_changed_and_only_an_output_setting_breaks(warehouse, engine):
    found = updates(warehouse, engine)
    assert sorted(found) == [NOTHING, OWNER_ONLY, SCHEDULE]
    nothing, owner, schedule = (found[t] for t in (NOTHING, OWNER_ONLY, SCHEDULE))
    # saved without a difference: the owner is told, nothing is walked
    assert (nothing["category"], nothing["effect"], nothing["settings"]) == ("metadata", "notifies", [])
    assert {a["id"] for a in nothing["affected"]} == {OWNER}
    # a new owner: both owners are told
    assert (owner["category"], owner["effect"]) == ("metadata", "notifies")
    assert owner["settings"] == [{"setting": "owner", "before": "111", "after": "222"}]
    assert {a["id"] for a in owner["affected"]} == {OWNER, NEW_OWNER}
    # another schedule: its outputs land at another time, downstream is walked
    assert (schedule["category"], schedule["effect"]) == ("breaking", "breaks")
    assert schedule["settings"] == [{"setting": "cron", "before": "00 30 05 * * ?", "after": "00 30 09 * * ?"}]
    assert OUT in {a["id"] for a in schedule["affected"]}
    assert schedule["score"] > max(nothing["score"], owner["score"])


def test_the_engines_agree(warehouse):
    assert updates(warehouse, "local") == updates(warehouse, "spark")
