"""``blast-radius --pairs-out``: every (change, affected vertex) pair as parquet, streamed, and
the printed answer unchanged. On the demo warehouse, against ``blast`` with every vertex kept."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from lineage.analysis.api import blast
from lineage.analysis.pairs import read_pairs
from lineage.cli import main

pytestmark = pytest.mark.spark
SINCE, UNTIL = "2024-07-01T00:00:00+00:00", "2024-07-08T00:00:00+00:00"


def radius(warehouse, *extra):
    result = CliRunner().invoke(main, ["blast-radius", "--warehouse", str(warehouse), "--since", SINCE, "--until",
                                       UNTIL, "--engine", "local", "--json", *map(str, extra)])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout), result.stderr


def test_pairs_are_every_affected_vertex_and_the_answer_is_unchanged(demo_warehouse, tmp_path):
    plain, _ = radius(demo_warehouse)
    with_pairs, said = radius(demo_warehouse, "--pairs-out", tmp_path / "pairs")
    assert with_pairs == plain  # the same ranking, scores and first 100 affected
    everything = blast(demo_warehouse, since=SINCE, until=UNTIL, engine="local", affected=None)
    expected = [(c.change_id, rank, a.id, a.label, a.distance, list(a.path), a.may_fail)
                for rank, c in enumerate(everything, start=1) for a in c.affected]
    got = [(p["change_id"], p["rank"], p["id"], p["label"], p["distance"], p["path"], p["may_fail"])
           for p in read_pairs(tmp_path / "pairs")]
    # the week's schema changes are column-precise (issue 68): few pairs, still several per change
    assert got == expected and len(got) == sum(c["affected_count"] for c in plain["changes"]) > 5
    assert f"{len(got):,} (change, vertex) pair(s) of {len(plain['changes'])} change(s)" in said
    assert [p.name for p in tmp_path.iterdir()] == ["pairs"]  # no staging folder left behind


def test_a_rerun_replaces_the_dataset_and_an_empty_window_has_its_schema(demo_warehouse, tmp_path, monkeypatch):
    from lineage.analysis import pairs

    monkeypatch.setattr(pairs, "BATCH_ROWS", 3)  # several files (the week has 8 pairs)
    radius(demo_warehouse, "--pairs-out", tmp_path / "pairs")
    files = sorted(p.name for p in (tmp_path / "pairs").iterdir())
    assert len(files) > 2
    result = CliRunner().invoke(main, ["blast-radius", "--warehouse", str(demo_warehouse), "--since", "2030-01-01",
                                       "--until", "2030-01-08", "--engine", "local", "--pairs-out", str(tmp_path / "pairs")])
    assert result.exit_code == 0, result.stderr
    table = pq.read_table(str(tmp_path / "pairs"))
    assert table.num_rows == 0 and table.schema.names == list(pairs.COLUMNS)
    assert sorted(p.name for p in (tmp_path / "pairs").iterdir()) == ["part-00000.parquet"]


def test_report_pairs_are_the_weeks_blast_radius_pairs_beside_the_report(demo_warehouse, tmp_path):
    """``report --pairs``: the report's folder gains ``pairs/``, every pair of its window, as
    ``blast-radius --pairs-out`` writes them for the same window."""
    result = CliRunner().invoke(main, ["report", "--warehouse", str(demo_warehouse), "--out", str(tmp_path / "r"),
                                       "--week", "2024-W27", "--engine", "local", "--pairs"])
    assert result.exit_code in (0, 3), result.stderr  # 3: the report says its inputs are incomplete
    radius(demo_warehouse, "--pairs-out", tmp_path / "pairs")
    beside = list(read_pairs(tmp_path / "r" / "2024-W27" / "pairs"))
    assert beside == list(read_pairs(tmp_path / "pairs")) and len(beside) > 5
    assert sorted(p.name for p in (tmp_path / "r" / "2024-W27").iterdir()) == \
        ["pairs", "report.html", "report.json", "report.md"]
