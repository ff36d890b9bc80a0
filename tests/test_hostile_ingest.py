"""Event text is data (issue 27): a line no parser should meet (200,000 levels deep, 30 MB, not
UTF-8, numbers no time can have, wrong types) is quarantined with a reason naming the field or
the cause, the rest of the file is ingested, and every line is accounted for. Times that are
possible but implausible are accepted and counted as ``implausible_time``."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.events.base import implausible, parse_time
from lineage.ingest import records
from lineage.ingest.pipeline import ingest
from lineage.io import jsonscan
from lineage.io.reader import RawRecord
from seedfixtures import accepted_docs

DOCS = accepted_docs(known_only=True)
DEEP = 200_000
JULY_2024_MS = 1_720_000_000_000  # 2024-07-03T09:46:40Z
NOW = datetime.now(timezone.utc)


def changed(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``doc`` with the value at the dotted ``path`` replaced."""
    doc = copy.deepcopy(doc)
    *parents, last = path.split(".")
    inner = doc
    for step in parents:
        inner = inner[step]
    inner[last] = value
    return doc


def with_text(doc: dict[str, Any], path: str, text: str) -> str:
    """``doc`` as one JSON line whose value at ``path`` is ``text`` verbatim (JSON no encoder writes)."""
    marker = "@@HOSTILE@@"
    return json.dumps(changed(doc, path, marker)).replace(json.dumps(marker), text)


DATAHUB = changed(DOCS["datahub"][0], "auditStamp.time", JULY_2024_MS)
MAXCOMPUTE, DATAPHIN, DATAWORKS = DOCS["maxcompute"][0], DOCS["dataphin"][0], DOCS["dataworks"][0]


def hostile_lines(big: bool = True) -> list[tuple[bytes, str | None]]:
    """(line, what its quarantine reason must say; None: accepted). ``big``: with the 30 MB line."""
    deep = "[" * DEEP + "]" * DEEP
    lines: list[tuple[str | bytes, str | None]] = [
        (json.dumps(DATAWORKS), None),
        (json.dumps(MAXCOMPUTE), None),
        (json.dumps(DATAPHIN), None),
        (json.dumps(DATAHUB), None),
        (deep, "nested more than 100 levels deep"),
        ("[" * DEEP, "never closed"),
        (with_text(DATAHUB, "parameters", deep), "nested more than 100 levels deep"),
        (json.dumps({"topic": "t", "partition": 0, "offset": 7, "value": deep}),
         "kafka delivery: value: invalid embedded JSON: nested more than 100 levels deep"),
        (b'{"eventId": "\xff\xfe", "eventName": "InsertJob"}', "not UTF-8 text (invalid byte at offset 13)"),
        (json.dumps(changed(DATAHUB, "auditStamp.time", 10**20)),
         "auditStamp.time: 100000000000000000000 ms is out of range"),
        (json.dumps(changed(DATAHUB, "auditStamp.time", -(10**20))),
         "auditStamp.time: -100000000000000000000 ms is out of range"),
        (with_text(DATAHUB, "auditStamp.time", "1e400"), "auditStamp.time: inf ms is out of range"),
        (json.dumps(changed(MAXCOMPUTE, "eventTime", 10**20)), "eventTime: 100000000000000000000 µs is out of range"),
        (json.dumps(changed(MAXCOMPUTE, "eventTime", "9999-12-31T23:59:59Z")),
         "eventTime: '9999-12-31T23:59:59Z' is out of range"),
        (json.dumps(changed(DATAPHIN, "date", "0001-01-01")), "date: '0001-01-01' is out of range"),
        (with_text(MAXCOMPUTE, "requestId", "7" * 5000), "a number of 5000 digits is out of range"),
        (json.dumps(changed(MAXCOMPUTE, "eventTime", [1])), "eventTime: not a time: [1]"),
        (json.dumps(changed(DATAHUB, "auditStamp", "yesterday")), "auditStamp: Input should be a valid dictionary"),
        (json.dumps(changed(DATAHUB, "auditStamp.time", -5)), None),  # 1969-12-31: implausible, accepted
        (json.dumps(changed(DATAHUB, "auditStamp.time", int((NOW + timedelta(days=2)).timestamp() * 1000))), None),
    ]
    if big:  # 30 MB in one line: a time of 30 million digits
        lines.append((json.dumps(changed(DATAHUB, "auditStamp.time", "9" * 30_000_000)),
                      "auditStamp.time: '99999999999999999999999999999999'... (30000000 characters) ms is out of range"))
    return [(line if isinstance(line, bytes) else line.encode(), want) for line, want in lines]


IMPLAUSIBLE = {"datahub": 2}  # -5 ms and two days from now


def write(path: Path, lines: list[tuple[bytes, str | None]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join(line for line, _ in lines) + b"\n")
    return path


# ---------------------------------------------------------------------------------------------
# the whole run, on the real local SparkSession
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("parse_in", ["local", "spark"])
def test_one_file_of_hostile_lines_is_ingested_and_every_line_accounted_for(spark, tmp_path, parse_in):
    lines = hostile_lines()
    path = write(tmp_path / "hostile.jsonl", lines)
    warehouse = tmp_path / "warehouse"

    result = ingest([path], warehouse, spark=spark, parse_in=parse_in)

    total = result.total
    assert total.read == len(lines) and result.reconciles
    assert (total.accepted, total.quarantined, total.duplicates, total.foreign) == (
        sum(want is None for _, want in lines), sum(want is not None for _, want in lines), 0, 0)
    events = pq.read_table(warehouse / "events").to_pylist()
    assert sorted(e["line"] for e in events) == [n for n, (_, want) in enumerate(lines, 1) if want is None]
    quarantine = {q["line"]: q for q in pq.read_table(warehouse / "quarantine").to_pylist()}
    for number, (_, want) in enumerate(lines, 1):
        if want is not None:
            assert want in quarantine[number]["reason"], (number, quarantine[number]["reason"][:300])
            assert "internal error" not in quarantine[number]["reason"]
    assert quarantine[len(lines)]["raw_bytes"] > 30_000_000  # the 30 MB line, kept with its size
    assert {s: c.implausible_time for s, c in result.sources.items() if c.implausible_time} == IMPLAUSIBLE
    assert total.implausible_time == 2
    stored = {e["line"]: e["event_time"] for e in events}
    assert stored[len(lines) - 2] == datetime(1969, 12, 31, 23, 59, 59, 995000, tzinfo=timezone.utc)


def test_cli_summary_counts_implausible_times_in_json_and_table(spark, tmp_path):
    path = write(tmp_path / "hostile.jsonl", hostile_lines(big=False))

    as_json = CliRunner().invoke(main, ["ingest", str(path), "--warehouse", str(tmp_path / "a"), "--json"])
    assert as_json.exit_code == 0, as_json.stderr
    summary = json.loads(as_json.stdout)
    assert summary["total"]["implausible_time"] == 2 and summary["sources"]["datahub"]["implausible_time"] == 2
    assert summary["sources"]["maxcompute"]["implausible_time"] == 0 and summary["reconciles"] is True

    human = CliRunner(env={"COLUMNS": "200"}).invoke(main, ["ingest", str(path), "--warehouse", str(tmp_path / "b")])
    assert human.exit_code == 0, human.stderr
    rows = {cells[0]: cells for line in human.stdout.splitlines()
            if len(cells := [cell.strip() for cell in line.strip("│┃ ").split("│" if "│" in line else "┃")]) > 1}
    assert rows["source"][-1] == "implausible time"
    assert rows["total"][-1] == rows["datahub"][-1] == "2" and rows["maxcompute"][-1] == "0"
    assert f"{summary['total']['quarantined']} record(s) quarantined" in human.stderr


def test_the_weekly_reports_input_health_counts_implausible_times(spark, tmp_path):
    from lineage.report import render
    from lineage.report.health import input_health
    from lineage.report.window import week_of

    lines = [(json.dumps(DATAHUB).encode(), None), (json.dumps(changed(DATAHUB, "auditStamp.time", -5)).encode(), None),
             (json.dumps(changed(DATAHUB, "auditStamp.time", 946_684_799_000)).encode(), None),  # 1999-12-31T23:59:59Z
             (json.dumps(changed(DATAHUB, "auditStamp.time", 946_684_800_000)).encode(), None)]  # 2000-01-01: plausible
    warehouse = tmp_path / "warehouse"
    result = ingest([write(tmp_path / "times.jsonl", lines)], warehouse, spark=spark, parse_in="local")
    assert result.total.accepted == 4 and result.total.implausible_time == 2

    health = input_health(warehouse, week_of(datetime(2024, 7, 3, tzinfo=timezone.utc)))
    assert health.implausible_time == 2
    assert {s.source: s.implausible_time for s in health.sources} == {"datahub": 2}
    line = "2 stored event(s) with an implausible time: before 2000 or over a day after their ingest (all time)."
    report = empty_report(health)
    assert line in render.html(report) and line in render.markdown(report)
    assert "implausible" not in render.markdown(empty_report(health.model_copy(update={"implausible_time": 0})))


def empty_report(health):
    """A report of a week with nothing in it but ``health`` (the input-health section under test)."""
    from lineage.report.model import Access, ImpactGraph, Operations, Report

    return Report(generated_at=NOW.isoformat(), week="2024-W27", since="2024-07-01T00:00:00+00:00",
                  until="2024-07-08T00:00:00+00:00", engine="local", top=10, high_impact_score=10.0, headline=[],
                  changes=[], people=[], impact_graph=ImpactGraph(changes=[], nodes=[], edges=[]),
                  access=Access(opened=[], revoked=[], expired=[], newly_sensitive_readers=[], sensitive_readers_start=0,
                                sensitive_readers_end=0, exposures_end=[], open_on_dropped=[]),
                  operations=Operations(failures=[], quality_failures=[]), input_health=health)


def test_a_generated_platform_with_hostile_lines_beside_it(spark, tmp_path):
    """The generator's own files plus the hostile file: the platform is ingested as without it."""
    from lineage.generate import generate

    counts = generate(tmp_path / "platform", tables=12, days=2, seed=5).summary["counts"]
    lines = hostile_lines(big=False)
    write(tmp_path / "platform" / "events" / "zz-hostile.jsonl", lines)

    run = CliRunner().invoke(main, ["ingest", str(tmp_path / "platform" / "events"), "--warehouse",
                                    str(tmp_path / "warehouse"), "--json"])
    assert run.exit_code == 0, run.stderr
    summary = json.loads(run.stdout)
    bad = sum(want is not None for _, want in lines)
    assert summary["reconciles"] is True
    assert summary["total"]["read"] == counts["total"]["read"] + len(lines)
    assert summary["total"]["accepted"] == counts["total"]["records"] + len(lines) - bad
    assert summary["total"]["quarantined"] == counts["total"]["malformed"] + bad
    assert summary["total"]["duplicates"] == counts["total"]["duplicates"]
    assert summary["total"]["implausible_time"] == 2  # the generator's times are all plausible


# ---------------------------------------------------------------------------------------------
# the per-record code (pure: what both the local and the Spark path run)
# ---------------------------------------------------------------------------------------------


def reasons(doc: dict[str, Any]) -> list[str | None]:
    return [dict(zip(records.COLUMN_NAMES, row))["reason"] for row in records.process_all(RawRecord("f", 1, "", doc=doc))]


@pytest.mark.parametrize(("source", "doc", "field"), [
    ("datahub", DATAHUB, "auditStamp.time"),
    ("maxcompute", MAXCOMPUTE, "eventTime"),
    ("dataphin", DATAPHIN, "log_time"),
    ("dataworks", DOCS["dataworks"][22], "time"),
])
@pytest.mark.parametrize("value", [10**20, -(10**20), 10**300, 1e308, "99991231235959", "0001-01-01T00:00:00+01:00"],
                         ids=["1e20", "-1e20", "int-1e300", "1e308", "digits-year-5138", "year-0-in-utc"])
def test_a_time_out_of_range_is_a_field_error_in_every_source(source, doc, field, value):
    (reason,) = reasons(changed(doc, field, value))
    assert reason is not None and reason.startswith(source) and f"{field}: " in reason and "is out of range" in reason


def test_an_informative_time_out_of_range_is_left_empty_not_rejected():
    """``aliyunpublishtime`` is when the bus published (LenientTime): a masked or impossible one is dropped."""
    (row,) = records.process_all(RawRecord("f", 1, "", doc=changed(DOCS["dataworks"][22], "aliyunpublishtime", 10**20)))
    assert dict(zip(records.COLUMN_NAMES, row))["status"] == records.ACCEPTED


def test_parse_time_names_the_unit_it_read_and_the_range():
    with pytest.raises(ValueError, match=r"^100000000000000000000 µs is out of range \(a time from 1900 to 2199\)$"):
        parse_time(10**20)
    with pytest.raises(ValueError, match=r"^'9999-12-31' is out of range"):
        parse_time("9999-12-31")
    with pytest.raises(ValueError, match="not a time"):
        parse_time(float("nan"))
    assert parse_time(-5) == datetime(1969, 12, 31, 23, 59, 55, tzinfo=timezone.utc)  # in range: implausible
    assert parse_time("1900-01-01") == datetime(1900, 1, 1, tzinfo=timezone.utc)


def test_implausible_is_before_2000_or_over_a_day_after_the_ingest():
    ingested = datetime(2024, 7, 3, tzinfo=timezone.utc)
    assert implausible(datetime(1999, 12, 31, 23, 59, 59, tzinfo=timezone.utc), ingested)
    assert not implausible(datetime(2000, 1, 1, tzinfo=timezone.utc), ingested)
    assert not implausible(ingested + timedelta(days=1), ingested)
    assert implausible(ingested + timedelta(days=1, seconds=1), ingested)
    assert not implausible(None, ingested)


@pytest.mark.parametrize(("text", "cause"), [
    ("[" * DEEP + "]" * DEEP, "nested more than 100 levels deep"),
    ('{"a": ' + "[" * 101 + "]" * 101 + "}", "nested more than 100 levels deep"),
    ('{"a": ' + "1" * 5000 + "}", "a number of 5000 digits is out of range"),
])
def test_decode_fails_only_with_a_json_error_naming_the_cause(text, cause):
    with pytest.raises(json.JSONDecodeError, match=cause):
        jsonscan.decode(text)


def test_decode_keeps_what_is_deep_only_inside_strings():
    text = json.dumps({"a": "[" * DEEP, "b": [[[[1]]]]})
    assert jsonscan.decode(text) == {"a": "[" * DEEP, "b": [[[[1]]]]}
    assert jsonscan.decode('{"a": ' + "[" * 99 + "]" * 99 + "}")  # 100 levels, the limit: kept


HOSTILE_VALUES = [None, True, -5, 10**20, -(10**20), 10**400, 1e308, float("inf"), float("nan"), "", "x", "²",
                  "9" * 5000, "[" * 150 + "]" * 150, [], {}, [1, "a"], {"a": {}}, "9999-12-31T23:59:59",
                  "0001-01-01T00:00:00+01:00", "\x1b]0;pwned\x07"]


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:2]):
            found += paths(inner, (*prefix, index))
    return found


@pytest.mark.parametrize("source", sorted(DOCS))
def test_any_value_anywhere_in_a_record_gives_a_row_and_never_an_internal_error(source):
    """Every field of real records of each source set to hostile values of every type."""
    failures = []
    for doc in DOCS[source][:3]:
        for path in paths(doc):
            for value in HOSTILE_VALUES:
                hostile = copy.deepcopy(doc)
                inner = hostile
                for step in path[:-1]:
                    inner = inner[step]
                inner[path[-1]] = value
                rows = records.process_all(RawRecord("f", 1, "", doc=hostile))
                for row in rows:
                    reason = dict(zip(records.COLUMN_NAMES, row))["reason"]
                    if reason and "internal error" in reason:
                        failures.append((path, repr(value)[:30], reason[:200]))
                if not rows:
                    failures.append((path, repr(value)[:30], "no row"))
    assert failures == []
