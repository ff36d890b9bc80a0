"""A week in which the sources fall silent is a gap, not a quiet week (issue 30): input health
judges each source against its own history, on a generated platform of seven weeks whose
deliveries were cut the ways they fail in practice."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.report.health import judge

pytestmark = pytest.mark.spark

START, DAYS = date(2026, 9, 28), 49  # Monday of 2026-W40 to Sunday of 2026-W46
STOPS, STOPPED_AFTER = "maxcompute", date(2026, 10, 28)  # in 2026-W44: nothing from Thursday on
DROPS = "dataworks"  # in 2026-W45: a twelfth of its events every day
LAST = START + timedelta(days=DAYS - 1)


def _days(first: date, n: int) -> list[date]:
    return [first + timedelta(days=i) for i in range(n)]


def _partition(warehouse: Path, source: str, day: date) -> Path:
    return warehouse / "events" / f"source={source}" / f"event_date={day.isoformat()}"


@pytest.fixture(scope="module")
def cut(spark, tmp_path_factory):
    """The platform ingested, then its deliveries cut (the events a source never sent are removed
    from the store before the build, as if never delivered), then built."""
    from lineage.generate import generate
    from lineage.graph.build import build

    root = tmp_path_factory.mktemp("silent")
    generate(root / "platform", tables=40, days=DAYS, start=START)
    warehouse = root / "warehouse"
    ran = CliRunner().invoke(main, ["ingest", str(root / "platform" / "events"), "--warehouse", str(warehouse)])
    assert ran.exit_code == 0, ran.output
    for day in _days(STOPPED_AFTER + timedelta(days=1), 4):
        shutil.rmtree(_partition(warehouse, STOPS, day))
    for day in _days(date(2026, 11, 2), 7):
        folder = _partition(warehouse, DROPS, day)
        table = pq.read_table(folder)
        assert table.num_rows > 100  # a day big enough for a tenfold drop to be judged
        for old in folder.iterdir():
            old.unlink()
        pq.write_table(table.take(list(range(0, table.num_rows, 12))), folder / "part-00000.parquet")
    (warehouse / "aliases.csv").write_text((root / "platform" / "aliases.csv").read_text())
    build(warehouse, spark=spark)
    return warehouse


def report(warehouse: Path, week: str, out: Path):
    result = CliRunner().invoke(main, ["report", "--warehouse", str(warehouse), "--out", str(out), "--week", week,
                                       "--engine", "local"])
    doc = json.loads((out / week / "report.json").read_text())
    return result, doc, {s["source"]: s for s in doc["input_health"]["sources"]}


def test_a_normal_week_has_no_gap(cut, tmp_path):
    result, doc, sources = report(cut, "2026-W43", tmp_path)
    assert result.exit_code == 0, result.output
    assert doc["input_health"]["gaps"] == 0 and doc["input_health"]["alerts"] == []
    assert {s for s, h in sources.items() if h["expected_daily"]} == {"dataphin", "dataworks", "maxcompute"}
    assert not sources["datahub"]["expected_daily"]  # it speaks once a week: never a gap


def test_a_source_that_stops_midweek_is_named_with_its_silent_days(cut, tmp_path):
    result, doc, sources = report(cut, "2026-W44", tmp_path)
    assert result.exit_code == 3, result.output
    silent = [d.isoformat() for d in _days(STOPPED_AFTER + timedelta(days=1), 4)]
    assert sources[STOPS]["gaps"] == silent and sources[STOPS]["last_day"] == STOPPED_AFTER.isoformat()
    assert [s for s, h in sources.items() if h["gaps"]] == [STOPS]
    assert doc["input_health"]["alerts"] == [f"no {STOPS} events since {STOPPED_AFTER.isoformat()}"]
    assert f"input gap: no {STOPS} events since {STOPPED_AFTER.isoformat()}" in result.stderr
    html = (tmp_path / "2026-W44" / "report.html").read_text()
    md = (tmp_path / "2026-W44" / "report.md").read_text()
    header = html.split("</header>")[0]  # said first, before any figure
    assert f"no {STOPS} events since {STOPPED_AFTER.isoformat()}" in header
    assert md.index(f"no {STOPS} events since") < md.index("## Headline")  # before the week's figures


def test_a_tenfold_drop_is_a_gap_on_every_low_day(cut, tmp_path):
    result, doc, sources = report(cut, "2026-W45", tmp_path)
    assert result.exit_code == 3, result.output
    week = [d.isoformat() for d in _days(date(2026, 11, 2), 7)]
    dropped = sources[DROPS]
    assert dropped["low_days"] == week and dropped["gaps"] == week
    assert dropped["usual_daily"] > 100 and all(n * 10 < dropped["usual_daily"] for n in dropped["per_day"].values())
    assert [s for s, h in sources.items() if h["gaps"]] == [DROPS]
    assert f"{DROPS} delivered under a tenth of its usual {dropped['usual_daily']} events a day" in \
        doc["input_health"]["alerts"][0]


def test_a_week_after_the_last_delivery_names_every_daily_source(cut, tmp_path):
    result, doc, sources = report(cut, "2026-W48", tmp_path)  # two weeks after the platform's last day
    assert result.exit_code == 3, result.output
    assert doc["input_health"]["alerts"] == [f"no {s} events since {LAST.isoformat()}"
                                             for s in ("dataphin", "dataworks", "maxcompute")]
    for source in ("dataphin", "dataworks", "maxcompute"):
        assert len(sources[source]["gaps"]) == 7 and sources[source]["total"] == 0
    assert not sources["datahub"]["gaps"]
    assert len([line for line in result.stderr.splitlines() if line.startswith("lineage: input gap:")]) == 3


def test_weekly_with_nothing_new_keeps_the_graph(cut, tmp_path):
    """A scheduler's second run with no new delivery ingests nothing and does not rebuild."""
    events = tmp_path / "new"
    events.mkdir()
    urn = "urn:li:dataset:(urn:li:dataPlatform:maxcompute,acme.late_table,PROD)"
    (events / "datahub-late.jsonl").write_text(json.dumps({
        "entityUrn": urn, "entityType": "dataset", "category": "TAG", "operation": "ADD", "modifier": "urn:li:tag:x",
        "parameters": {"tagUrn": "urn:li:tag:x"}, "auditStamp": {"actor": "urn:li:corpuser:ann", "time": 1794571200000},
    }) + "\n")
    args = ["weekly", str(events), "--warehouse", str(cut), "--out", str(tmp_path / "r"), "--week", "2026-W46",
            "--engine", "local"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output  # W46 was delivered in full
    assert "weekly: graph built" in first.stderr
    builds = sorted((cut / "builds").glob("*.json"))
    second = CliRunner().invoke(main, args)
    assert second.exit_code == 0, second.output
    assert "weekly: ingested 0 new event(s)" in second.stderr
    assert f"nothing new since build {builds[-1].stem}" in second.stderr
    assert sorted((cut / "builds").glob("*.json")) == builds  # no build ran


def test_judge_against_history_is_pure():
    first = date(2026, 11, 23)
    history = Counter({(first - timedelta(days=i)).isoformat(): 600 for i in range(1, 29)})
    week = [(first + timedelta(days=i)).isoformat() for i in range(7)]
    normal = history + Counter({d: 580 for d in week})
    assert judge(normal, week, first)["silent"] == [] and judge(normal, week, first)["low"] == []
    quiet = history + Counter({d: 50 for d in week})  # under a tenth of 600 is a drop
    assert judge(history + Counter({d: 70 for d in week}), week, first)["low"] == []  # 70: not a tenth less
    assert judge(quiet, week, first)["low"] == week
    small = Counter({(first - timedelta(days=i)).isoformat(): 12 for i in range(1, 29)}) + Counter({d: 1 for d in week})
    assert judge(small, week, first)["low"] == []  # 12 a day: a drop to 1 is within noise
    rare = Counter({(first - timedelta(days=i)).isoformat(): 5 for i in range(1, 29, 7)})
    assert not judge(rare, week, first)["expected_daily"] and judge(rare, week, first)["silent"] == []
