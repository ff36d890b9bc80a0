"""The report's trend is computed once per week and kept (``lineage.report.history``): the next
report walks its own week only, uses what earlier reports kept while it holds, and computes a
week again once a build folds facts dated before its end. On a copy of the demo warehouse."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone

import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.report import history
from lineage.report.job import write
from lineage.report.window import week

from .conftest import EXPIRING, WEEK

pytestmark = pytest.mark.spark
NEXT = "2024-W28"


def report(warehouse, out, name, *extra):
    """report.json, with how each trend window was had (``write``'s account, which the CLI says)."""
    written = write(warehouse, out, week(name), engine="local", fresh="--fresh-history" in extra)
    doc = json.loads((out / name / "report.json").read_text())
    doc["_how"] = written.history
    return doc


def trend(doc):
    return {f["key"]: f["trend"] for f in doc["headline"]}


def how(doc):
    return doc["_how"]


def test_the_cli_says_what_it_kept(copy, tmp_path):
    report(copy, tmp_path, WEEK)
    result = CliRunner().invoke(main, ["report", "--warehouse", str(copy), "--out", str(tmp_path), "--week", NEXT,
                                       "--engine", "local"])
    assert result.exit_code == 3, result.stderr  # written; the demo's inputs end in W27: W28 is a gap
    assert "the trend's 7 earlier week(s) kept from earlier reports, 1 walked" in result.stderr
    fresh = CliRunner().invoke(main, ["report", "--warehouse", str(copy), "--out", str(tmp_path), "--week", NEXT,
                                      "--engine", "local", "--fresh-history"])
    assert fresh.exit_code == 3 and "kept from earlier reports" not in fresh.stderr


@pytest.fixture
def copy(demo_warehouse, tmp_path):
    target = tmp_path / "warehouse"
    shutil.copytree(demo_warehouse, target, symlinks=True, ignore=shutil.ignore_patterns(history.FOLDER))
    return target


def test_the_next_report_walks_one_week_and_keeps_the_trend(copy, tmp_path):
    first = report(copy, tmp_path, WEEK)
    assert set(how(first).values()) == {"computed"} and len(how(first)) == 8 and list(how(first))[-1] == WEEK
    again = report(copy, tmp_path, WEEK)  # the same week: the seven before it kept, its own walked
    assert list(how(again).values()) == ["kept"] * 7 + ["computed"]
    assert trend(again) == trend(first)
    first.pop("generated_at"), again.pop("generated_at"), first.pop("_how"), again.pop("_how")
    assert again == first  # the same inputs, the same report.json: where figures came from is not in it

    following = report(copy, tmp_path, NEXT)
    assert list(how(following).values()) == ["kept"] * 7 + ["computed"]  # W21..W27 kept, W28 walked
    fresh = report(copy, tmp_path, NEXT, "--fresh-history")
    assert set(how(fresh).values()) == {"computed"}
    assert trend(following) == trend(fresh)  # what was kept is what a full walk gives
    assert trend(following)["changes"][-2] == trend(first)["changes"][-1] > 0  # W27's changes, from W27's report


def test_kept_figures_are_what_the_trend_shows(copy, tmp_path):
    """The trend really reads the kept file (so it is not walked again): an edit shows through,
    and ``--fresh-history`` computes it again."""
    first = report(copy, tmp_path, WEEK)
    kept = copy / history.FOLDER / f"{WEEK}.json"
    doc = json.loads(kept.read_text())
    doc["figures"]["changes"] = 999
    kept.write_text(json.dumps(doc))
    assert trend(report(copy, tmp_path, NEXT))["changes"][-2] == 999
    assert trend(report(copy, tmp_path, NEXT, "--fresh-history"))["changes"][-2] == trend(first)["changes"][-1]


def test_a_build_with_facts_dated_in_a_week_computes_it_again(copy, tmp_path, spark):
    from lineage.graph.build import build
    from lineage.ingest.pipeline import ingest

    report(copy, tmp_path, WEEK)
    late = dict(EXPIRING, event_id="5E7C1A00-0000-4000-8000-00000000LATE", log_time="2024-06-26 09:00:00",
                date="2024-06-26", time="09:00:00.000")  # arrives now, dated Wednesday of 2024-W26
    events = tmp_path / "late"
    events.mkdir()
    (events / "dataphin-audit.jsonl").write_text(json.dumps(late) + "\n")
    ingest([events], copy, spark=spark)
    built = build(copy, spark=spark)
    assert built.fold == "incremental" and built.earliest_new_fact == "2024-06-26T09:00:00+00:00"

    after = report(copy, tmp_path, WEEK)
    assert list(how(after).values()) == ["kept"] * 6 + ["computed"] * 2  # W20..W25 kept; W26 (and W27) walked
    assert trend(after) == trend(report(copy, tmp_path, WEEK, "--fresh-history"))


W26 = week("2024-W26")


@pytest.mark.parametrize("logs, voids", [
    ([], False),
    ([{"build_id": "b0", "fold": "full"}], False),  # at or before the build it was kept after
    ([{"build_id": "b2", "fold": "none"}], False),
    ([{"build_id": "b2", "fold": "incremental", "earliest_new_fact": "2024-07-01T00:00:00+00:00"}], False),
    ([{"build_id": "b2", "fold": "incremental", "earliest_new_fact": "2024-06-30T23:59:59+00:00"}], True),
    ([{"build_id": "b2", "fold": "incremental", "earliest_new_fact": None}], True),  # a fact without a time
    ([{"build_id": "b2", "fold": "full", "fold_reason": "the mapping code changed"}], True),
    ([{"build_id": "b2", "fold": "unreadable"}], True),
])
def test_what_voids_a_kept_week(logs, voids):
    assert (history.voided(W26, "b1", logs) is not None) == voids


def test_a_window_that_has_not_ended_is_not_kept(tmp_path):
    from lineage.store.warehouse import Warehouse

    wh = Warehouse(tmp_path)
    logs = [{"build_id": "b1", "fold": "full"}]
    assert not history.keep(wh, W26, {"changes": 1}, logs, datetime(2024, 6, 28, tzinfo=timezone.utc))
    assert history.keep(wh, W26, {"changes": 1}, logs, datetime(2024, 7, 2, tzinfo=timezone.utc))
    assert history.kept(wh, W26, ["changes"], logs) == {"changes": 1}
    assert history.kept(wh, W26, ["changes", "people"], logs) is None  # a figure it never kept
