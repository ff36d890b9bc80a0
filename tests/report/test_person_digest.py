"""A digest per person (issue 69, item 1), on a hand-made week through ingest + build + ``report``.

``p.src (k, v, w)`` is read by node ``202`` (``b_etl``, owner uid 111), whose daily job takes ``w``
into ``p.b``; it runs well every day until the ETL account drops ``w`` (2024-07-10), then fails
each day with the error MaxCompute gives. The person who owns ``b_etl`` must hear: the column,
the failed run, and that ``b_etl`` is theirs to fix. The week of the first events is the
warehouse's first: it has nothing to compare with.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from click.testing import CliRunner
from handmade import actiontrail, built, datahub, job, node_event

from lineage.cli import main

pytestmark = pytest.mark.spark
T = datetime(2024, 7, 10, 10, 0, tzinfo=timezone.utc)  # 2024-W28
DAY = timedelta(days=1)
OWNER = "user:aliyun:111"
SETTINGS = {"nodeName": "b_etl", "programType": "ODPS_SQL", "cronExpress": "00 30 05 * * ?",
            "schedulerType": "NORMAL", "ownerId": "111"}
READ_W = "INSERT OVERWRITE TABLE p.b SELECT w FROM p.src WHERE ds = '1';"
ERROR = "ODPS-0130071 Semantic analysis exception - column w cannot be resolved"  # code and message, as a run's error


def failed_job(instance: str, when: datetime, sql: str, node: int) -> list[dict]:
    """A SQL job of ``node`` submitted (InsertJob, which names its script and node) and failed
    with MaxCompute's error for a missing column (JobChange), as ActionTrail logs a failed job."""
    submitted, ended = job(instance, when - timedelta(minutes=2), sql, node), job(instance, when, sql, node)
    data = {k: v for k, v in submitted["additionalEventData"].items() if k != "Status"}
    ended["additionalEventData"]["Status"] = "Failed"
    return [{**submitted, "eventId": f"e-{instance}-submit", "eventName": "InsertJob", "additionalEventData": data},
            {**ended, "errorCode": "ODPS-0130071", "errorMessage": ERROR.split(" ", 1)[1]}]


EVENTS = [
    job("ddl", T - 9 * DAY, "CREATE TABLE IF NOT EXISTS p.src (k STRING, v BIGINT, w STRING) PARTITIONED BY (ds STRING);\n"
                            "CREATE TABLE IF NOT EXISTS p.b (w STRING);"),
    datahub("OWNER", "ADD", T - 9 * DAY, modifier="urn:li:corpuser:alice",
            parameters={"ownerUrn": "urn:li:corpuser:alice", "ownerType": "DATAOWNER"}),
    node_event(202, "node-change-created", T - 9 * DAY, SETTINGS, T - 9 * DAY),
    *(job(f"r202-{n}", T - 8 * DAY + n * DAY, READ_W, 202) for n in range(8)),  # well until the drop
    job("drop-w", T, "ALTER TABLE p.src DROP COLUMNS w;"),
    *(e for n in range(3) for e in failed_job(f"f202-{n}", T + (n + 1) * DAY - timedelta(hours=4), READ_W, 202)),
    actiontrail("touch", "ChangeTable", "TableEvent", T + 5 * DAY, {"TableName": "src", "Source": "INSTANCE"},
                {"Table": ["src"]}),  # events every day of the week, so no source day reads as a gap
]


@pytest.fixture(scope="module")
def warehouse(spark, tmp_path_factory) -> Path:
    return built(spark, tmp_path_factory.mktemp("person-digest"), EVENTS)


@pytest.fixture(scope="module")
def reports(warehouse, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reports")
    for week in ("2024-W27", "2024-W28"):
        ran = CliRunner().invoke(main, ["report", "--warehouse", str(warehouse), "--out", str(out), "--week", week,
                                        "--engine", "local"])
        assert ran.exit_code in (0, 3), ran.output  # 3: DataWorks speaks on one day only, it says so
    return out


def test_the_owner_of_the_failing_node_hears_the_column_the_failed_run_and_what_to_do(reports):
    doc = json.loads((reports / "2024-W28" / "report.json").read_text())
    person = next(p for p in doc["people"] if p["id"] == OWNER)
    digest = person["digest"]
    removal = next(c for c in digest["concerns"] if c["kind"] == "field_removal")
    assert (removal["columns"], removal["column_change"], removal["why"]) == (["w"], "removed", "owner")
    assert removal["failing"] == ["b_etl"] and "b_etl" in removal["theirs"]
    assert [(f["definition_name"], f["error"]) for f in digest["failed"]] == [("b_etl", ERROR)]
    assert digest["failed"][0]["time"].startswith("2024-07-11")  # the first failure of the streak
    assert digest["action"].startswith("Fix b_etl: it has failed since 2024-07-11")
    assert "after field_removal of src (column w removed) by RAM$p:etl" in digest["action"] and ERROR in digest["action"]
    assert doc["people"][0]["id"] == OWNER  # a failure of theirs: first to act
    assert "".join(digest["action_parts"]) == digest["action"]


def test_report_person_prints_the_digest_ready_to_paste(warehouse, reports):
    ran = CliRunner().invoke(main, ["report", "--warehouse", str(warehouse), "--out", str(reports), "--week",
                                    "2024-W28", "--engine", "local", "--person", OWNER])
    assert ran.exit_code in (0, 3), ran.output
    text = re.sub(r"(`+) (.*?) \1", r"\2", ran.stdout)  # event text stands in code spans (Markdown-escaped)
    assert text.startswith("**") and OWNER in text.splitlines()[0]
    assert "Do first: Fix b_etl: it has failed since 2024-07-11" in text
    assert "field_removal of src (column w removed)" in text and "failing since: b_etl" in text
    assert "cannot be resolved" in text
    unknown = CliRunner().invoke(main, ["report", "--warehouse", str(warehouse), "--out", str(reports), "--week",
                                        "2024-W28", "--engine", "local", "--person", "nobody-here"])
    assert unknown.exit_code == 2 and "nobody called 'nobody-here'" in unknown.output


def test_markdown_and_html_have_the_same_sections(reports):
    for week in ("2024-W27", "2024-W28"):
        md = (reports / week / "report.md").read_text()
        page = (reports / week / "report.html").read_text()
        titles_md = re.findall(r"^## (.+)$", md, re.M)
        titles_html = [re.sub("<[^>]+>", "", t).strip() for t in re.findall(r"<h2>(.*?)</h2>", page)]
        assert titles_md == titles_html and "People to act" in titles_md, (titles_md, titles_html)


def test_the_first_week_says_so_instead_of_deltas(reports):
    first, second = (json.loads((reports / w / "report.json").read_text()) for w in ("2024-W27", "2024-W28"))
    assert (first["data_weeks"], second["data_weeks"]) == (1, 2)
    md = (reports / "2024-W27" / "report.md").read_text()
    headline = md.split("## Headline", 1)[1].split("\n## ", 1)[0]
    assert "first week" in headline and not re.search(r"\([+-]\d+\)", headline)
    page = (reports / "2024-W27" / "report.html").read_text()
    assert 'id="first-week"' in page and not re.search(r'<span class="(up|down|)">[+-]\d+</span>', page)
    later = (reports / "2024-W28" / "report.md").read_text().split("## Headline", 1)[1].split("\n## ", 1)[0]
    assert "first week" not in later and re.search(r"\([+-]\d+\)", later)
