"""Answers about a hub table stay readable (issue 69, item 3), on the generated platform's most
read table: ``history`` prints what happened, counted, then a timeline whose day of job reads is
one row, in under 60 lines by default; its filters narrow the text and the JSON alike; an id
printed into a pipe is whole, whatever its length; ``exposure`` is one row per principal."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.graph.api import edge_ends

pytestmark = pytest.mark.spark
PIPED = {"COLUMNS": None, "LINES": None}  # stdout is not a terminal and nothing says its width


def run(*args: object) -> str:
    ran = CliRunner(env=PIPED).invoke(main, [str(a) for a in args])
    assert ran.exit_code == 0, ran.output
    return ran.stdout


@pytest.fixture(scope="module")
def hub(generated) -> tuple[str, str]:
    reads = Counter(edge_ends(generated.warehouse, relationships=["READS"]).column("dst").to_pylist())
    table, _ = reads.most_common(1)[0]
    return str(generated.warehouse), table


def events(warehouse: str, table: str, *args: object) -> list[dict]:
    return json.loads(run("history", table, "--warehouse", warehouse, "--json", *args))["events"]


def test_a_hubs_history_is_a_summary_and_a_grouped_timeline_under_60_lines(hub):
    warehouse, table = hub
    every = events(warehouse, table)
    reads = [e for e in every if e["relationship"] == "READS" and e["other_label"] == "Job"]
    assert len(every) > 100 and len(reads) > 60  # a hub: one row per event would not be read
    text = run("history", table, "--warehouse", warehouse)
    lines = text.splitlines()
    assert len(lines) < 60, text
    assert f": {len(every):,} event(s)" in lines[0]
    # the summary counts every job read, the timeline has a day's reads in one row
    assert re.search(rf"opened <-READS\s+│ Job\s+│\s+{len(reads):,} │", text), text  # what, with, events
    day = Counter(e["time"][:10] for e in reads).most_common(1)[0]
    if day[0] >= sorted(e["time"][:10] for e in every)[-1][:8]:  # a day among the latest rows
        assert f"opened <-READS: {day[1]} Job" in text
    assert re.search(r"opened <-READS: \d+ Job", text)
    assert "earlier row(s) not shown" in text and "--limit N shows more" in text


def test_every_event_is_a_row_with_every(hub):
    warehouse, table = hub
    every = events(warehouse, table)
    text = run("history", table, "--warehouse", warehouse, "--every", "--limit", 100_000)
    rows = [line for line in text.split("timeline", 1)[1].splitlines() if line.startswith("│ ")]
    assert len(rows) == len(every)


def test_filters_narrow_the_text_and_the_json_alike(hub):
    warehouse, table = hub
    every = events(warehouse, table)
    changes = events(warehouse, table, "--kind", "change")
    assert changes == [e for e in every if e["event"] == "change"] and changes
    middle = sorted(e["time"] for e in every if e["time"])[len(every) // 2]
    late_reads = events(warehouse, table, "--relationship", "READS", "--since", middle)
    assert late_reads == [e for e in every if e["relationship"] == "READS" and e["time"] and e["time"] >= middle]
    text = run("history", table, "--warehouse", warehouse, "--relationship", "READS", "--since", middle)
    assert f": {len(late_reads):,} event(s) of {len(every):,}" in text.splitlines()[0]
    assert "change:" not in text and "WRITES" not in text


def test_an_id_is_printed_whole_into_a_pipe(hub):
    warehouse, table = hub
    listed = json.loads(run("show", table, "--warehouse", warehouse, "--json"))["relationships"]
    ends = {link["id"] for side in listed.values() for links in side.values() for link in links}
    shown = run("show", table, "--warehouse", warehouse, "--limit", 100_000)
    assert len(ends) > 10 and "…" not in shown
    assert all(vid in shown for vid in ends)  # each on one line, whole
    answer = run("impact", table, "--warehouse", warehouse, "--engine", "local")
    affected = json.loads(run("impact", table, "--warehouse", warehouse, "--engine", "local", "--json"))
    ids = [a["id"] for a in affected["affected"]]
    assert ids and all(vid in answer for vid in ids if not vid.startswith("jobs:")) and "…" not in answer


def test_exposure_is_one_row_per_principal_by_name(hub):
    warehouse = hub[0]
    pairs = json.loads(run("exposure", "--warehouse", warehouse, "--json"))["exposures"]
    per = Counter(p["principal"] for p in pairs)
    assert len(pairs) > len(per) > 1  # someone reads several exposed tables
    text = run("exposure", "--warehouse", warehouse, "--limit", 3)
    assert text.splitlines()[0].startswith(f"exposure: {len(pairs):,} (principal, table) pair(s): {len(per):,} principal(s)")
    rows = [line for line in text.splitlines()[3:] if line.strip() and not line.startswith(" " * 10)]
    most = sorted(per.items(), key=lambda kv: -kv[1])
    shown = [pid for pid, _ in per.items() if any(pid in row for row in rows)]
    assert len(rows) == 4 and len(shown) == 3  # three principals, most tables first, then how many more
    assert all(per[pid] >= most[2][1] for pid in shown)
    assert f"{len(per) - 3} more principal(s)" in rows[-1]
    every = run("exposure", "--warehouse", warehouse, "--every", "--limit", 100_000)
    assert all(every.count(pid) == 1 for pid in per)  # each principal once, by name and id
    assert every.count("; access ") == len(pairs)  # and under it each table it reads, with both paths


def test_impact_lists_the_nearest_per_label_and_counts_the_rest(hub):
    warehouse, table = hub
    text = run("impact", table, "--warehouse", warehouse, "--engine", "local", "--limit", 2)
    blocks = re.findall(r"^(\w+) \((\d+)[^)]*\)\n(.*?)(?:\n\n|\Z)", text, re.M | re.S)
    cut = [(label, int(n), body) for label, n, body in blocks if int(n) > 2]
    assert cut, text
    for label, n, body in cut:
        assert f"… {n - 2} more, farther" in body, (label, body)


def test_show_narrows_to_the_relationships_asked(hub):
    warehouse, table = hub
    doc = json.loads(run("show", table, "--warehouse", warehouse, "--relationship", "reads", "--json"))
    assert {rel for side in doc["relationships"].values() for rel in side} == {"READS"}
    text = run("show", table, "--warehouse", warehouse, "--relationship", "READS")
    assert "<-READS" in text and "FEEDS" not in text
