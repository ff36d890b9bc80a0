"""The generated demo events: deterministic, valid for every source but the deliberate breakage."""

from __future__ import annotations

import collections
import json

import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.events import registry
from lineage.ingest import records
from lineage.generate.samples import BROKEN_LINES, write_samples


def test_samples_are_deterministic(tmp_path):
    first = write_samples(tmp_path / "a", days=3)
    second = write_samples(tmp_path / "b", days=3)
    assert [p.read_bytes() for p in first] == [p.read_bytes() for p in second]


def test_every_sample_is_understood_except_the_broken_lines(tmp_path):
    outcomes = collections.Counter()
    for path in write_samples(tmp_path, days=2):
        for row in records.process_file(str(path)):
            row = dict(zip(records.COLUMN_NAMES, row))
            outcomes[(row["source"], row["status"], row["known"])] += 1
    assert outcomes[("unrecognized", records.QUARANTINED, None)] == len(BROKEN_LINES)
    accepted = {source for (source, status, known) in outcomes if status == records.ACCEPTED and known}
    # the hand-checked demo platform of July 2024 is the four Alibaba Cloud and DataHub sources;
    # OpenLineage is read from tests/data/openlineage and the published events (tests/events)
    assert accepted == set(registry.names()) - {"openlineage"}
    assert not any(known is False for (_s, _st, known) in outcomes)


@pytest.mark.spark
def test_demo_runs_end_to_end_and_again_idempotently(spark, tmp_path):
    first = CliRunner().invoke(main, ["demo", "--small", "--out", str(tmp_path), "--days", "2"])
    assert first.exit_code == 0, first.stderr
    assert f"{len(BROKEN_LINES)} deliberately broken record(s)" in first.stderr
    again = CliRunner().invoke(main, ["demo", "--small", "--out", str(tmp_path), "--days", "2"])
    assert again.exit_code == 0
    totals = [json.loads(p.read_text())["total"] for p in (tmp_path / "warehouse" / "runs").glob("*.json")]
    first_run, rerun = sorted(totals, key=lambda t: -t["accepted"])
    assert first_run["accepted"] > 50 and first_run["duplicates"] == 0
    assert first_run["quarantined"] == rerun["quarantined"] == len(BROKEN_LINES)
    assert rerun["accepted"] == 0 and rerun["duplicates"] == first_run["accepted"]
