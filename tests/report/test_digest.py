"""The report keeps of each affected set only what its sections read (`lineage.report.digest`,
issue 31): on a platform whose hubs change daily, four weeks are millions of (change, vertex)
pairs. The report made from the kept sets must be the one made from every affected vertex."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.report import build as report_build
from lineage.report import digest

from .conftest import WEEK

pytestmark = pytest.mark.spark


def _report(warehouse, out, week):
    ran = CliRunner().invoke(main, ["report", "--warehouse", str(warehouse), "--out", str(out), "--week", week,
                                    "--engine", "local", "--fresh-history", "--json"])
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.stdout)
    found.pop("generated_at")
    return found


@pytest.mark.parametrize("fixture, week", [("demo_warehouse", WEEK), ("generated", "2026-W40")])
def test_the_kept_affected_sets_give_the_report_of_every_vertex(request, tmp_path, monkeypatch, fixture, week):
    source = request.getfixturevalue(fixture)
    source = getattr(source, "warehouse", source)
    warehouse = tmp_path / "warehouse"
    shutil.copytree(source, warehouse, symlinks=True)
    sizes = []

    def counting(ctx):
        keep = digest.keeper(ctx)

        def counted(impact):
            kept = keep(impact)
            sizes.append((len(impact.affected), len(kept.affected)))
            return kept
        return counted

    monkeypatch.setattr(report_build, "keeper", counting)
    kept = _report(warehouse, tmp_path / "kept", week)
    monkeypatch.setattr(report_build, "keeper", lambda ctx: lambda impact: impact)
    whole = _report(warehouse, tmp_path / "whole", week)
    assert kept == whole
    # some may be let go (flows, quality rules, columns no section reads); runs are no longer affected at all
    assert 0 < sum(k for _, k in sizes) <= sum(n for n, _ in sizes)
    assert any(change["affected_count"] for change in kept["changes"])


def test_what_is_kept_of_one_change():
    """Kept: every table, every run that failed, every asset someone owns, the top assets; the
    other runs and DAGs are let go (the counts and score were computed before, from all)."""
    from datetime import datetime, timezone
    from pathlib import Path

    from lineage.analysis.blast import ChangeImpact
    from lineage.analysis.engine import Affected
    from lineage.report.context import Context

    def vertex(vid, label, **props):
        return {"id": vid, "label": label, "properties": props}

    instances = [f"instance:{n}" for n in range(10)]
    vertices = [vertex("table:t", "Table"), vertex("job:failed", "Job", status="Failed"),
                vertex("job:owned", "Job", status="Success"), vertex("job:plain", "Job", status="Success"),
                vertex("dag:d", "Dag"), vertex("user:u", "User"), *(vertex(i, "Instance") for i in instances)]
    edges = [{"src": "user:u", "dst": "job:owned", "relationship": "OWNS"}]
    ctx = Context(Path("."), vertices, edges)
    affected = [Affected("table:t", "Table", 5, ()), *(Affected(i, "Instance", 1, ()) for i in instances),
                *(Affected(j, "Job", 5, ()) for j in ("job:failed", "job:owned", "job:plain")),
                Affected("dag:d", "Dag", 6, ())]
    impact = ChangeImpact("c", "table:s", "Table", "schema_change", datetime(2026, 1, 1, tzinfo=timezone.utc),
                          None, "e", 1.0, {}, len(affected), tuple(affected))
    kept = digest.keeper(digest.Marks.of_rows(vertices, edges))(impact)
    top = ["table:t", *instances[:7]]  # weight / distance: the table (3/5), then instances (0.25/1) by name
    assert [a.id for a in kept.affected] == ["table:t", *instances[:7], "job:failed", "job:owned"]
    assert [a.id for a in report_build.changes_section.top_assets(ctx, kept)] == top
    assert (kept.count, kept.score, kept.change_id) == (impact.count, impact.score, impact.change_id)


@pytest.mark.parametrize("fixture", ["demo_warehouse", "generated"])
def test_the_marks_read_in_arrow_are_the_marks_of_the_rows(request, fixture):
    """What the keeper reads while the engine walks, computed in Arrow (``Marks.of``), is its
    definition on the graph's rows: every name the report would show, every owned or failed id."""
    from lineage.graph.api import load_rows
    from lineage.report.context import Context

    source = request.getfixturevalue(fixture)
    warehouse = getattr(source, "warehouse", source)
    vertices, edges = load_rows(warehouse)
    marks = digest.Marks.of(warehouse)
    assert marks == digest.Marks.of_rows(vertices, edges)
    assert marks.wanted and len(marks.names) > len(vertices) // 2
    ctx = Context(warehouse, vertices, edges)
    assert all(marks.name(v["id"]) == ctx.name(v["id"]) for v in vertices)
