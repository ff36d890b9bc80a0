"""`lineage demo` on a tiny generated platform: it runs end to end, and every command of its tour
runs on the warehouse it built (the ids it names are real)."""

from __future__ import annotations

import json
import shlex

import pytest
from click.testing import CliRunner

from lineage.cli import main


@pytest.mark.spark
def test_demo_tour_commands_run_on_the_demo_warehouse(spark, tmp_path):
    ran = CliRunner().invoke(main, ["demo", "--out", str(tmp_path), "--tables", "16", "--days", "9"])
    assert ran.exit_code == 0, ran.output
    assert (tmp_path / "warehouse" / "graph" / "edges").is_dir()
    assert (tmp_path / "generated" / "truth" / "feeds.csv").is_file()
    commands = [line.strip() for line in ran.stdout.splitlines() if line.strip().startswith("lineage ")]
    assert len(commands) == 5, ran.stdout
    assert "blast radius" in ran.stderr and "Try next" in ran.stdout
    # the fold's step lines are the build's, not the ingest bar's the demo opened around the tour
    assert "build: folding, step 01" in ran.stderr and "ingest: folding" not in ran.stderr, ran.stderr
    reports = sorted((tmp_path / "reports").glob("*/report.json"))
    assert len(reports) == 1, "the demo writes the weekly report of its last complete week"
    assert {p.name for p in reports[0].parent.iterdir()} == {"report.html", "report.json", "report.md"}
    assert str(reports[0].parent) in ran.stdout
    week = json.loads(reports[0].read_text())
    blast = json.loads(CliRunner().invoke(main, [
        "blast-radius", "--warehouse", str(tmp_path / "warehouse"), "--since", week["since"],
        "--until", week["until"], "--json", "--engine", "local"]).stdout)
    assert [c["change_id"] for c in week["changes"]] == [c["change_id"] for c in blast["changes"]][:len(week["changes"])]
    for command in commands:
        args = shlex.split(command)[1:]
        result = CliRunner().invoke(main, [*args, "--json"])
        assert result.exit_code == 0, f"{command}\n{result.output}"
