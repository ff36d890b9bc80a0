"""`lineage generate --hub-changes N` (issue 31): every day after the first, N columns are added,
the k-th to the (k mod 8)-th most-read live table, as ActionTrail's ChangeTable (with the DDL job
that states the column) and DataHub's field ADD: the platform whose breaking changes reach far
every day, for the 15-million-pair benchmark (benchmarks/pairs.py). 0 writes what no option writes."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

from click.testing import CliRunner

from lineage.cli import main
from lineage.generate import generate


def _rows(root: Path, name: str) -> list[dict[str, str]]:
    with open(root / "truth" / f"{name}.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_each_day_adds_columns_in_turn_to_the_most_read_tables(tmp_path):
    ran = CliRunner().invoke(main, ["generate", "--out", str(tmp_path), "--tables", "40", "--days", "3",
                                    "--hub-changes", "10", "--json"])
    assert ran.exit_code == 0, ran.output
    assert json.loads(ran.output)["hub_changes"] == 10
    tables = _rows(tmp_path, "tables")
    most_read = sorted((t for t in tables if not t["planted"]), key=lambda t: (-int(t["readers"]), tables.index(t)))
    expected = sorted(most_read[k % 8]["table_id"] for k in range(10))  # the two most read get two a day
    added = defaultdict(list)  # day -> the table of each hub_ column added that day
    for row in _rows(tmp_path, "columns"):
        if row["column_id"].rsplit(".", 1)[1].startswith("hub_"):
            added[row["valid_from"][:10]].append(row["table_id"])
    assert {day: sorted(found) for day, found in added.items()} == {"2026-09-29": expected, "2026-09-30": expected}
    changes = defaultdict(list)
    for row in _rows(tmp_path, "changes"):
        if row["time"][11:13] == "13" and row["kind"] in ("ChangeTable", "dh_schema"):
            changes[row["time"][:10]].append((row["entity_id"], row["kind"]))
    assert {day: sorted(found) for day, found in changes.items()} == {
        day: sorted((table, kind) for table in expected for kind in ("ChangeTable", "dh_schema"))
        for day in ("2026-09-29", "2026-09-30")}


def test_zero_writes_what_no_option_writes(tmp_path):
    generate(tmp_path / "a", tables=24, days=3, seed=5)
    generate(tmp_path / "b", tables=24, days=3, seed=5, hub_changes=0)
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    bad = CliRunner().invoke(main, ["generate", "--out", str(tmp_path / "c"), "--hub-changes", "-1"])
    assert bad.exit_code == 2 and "--hub-changes" in bad.output
