"""OpenLineage events -> facts, against goldens written by hand from the spec (tests/data/openlineage).

Each sample is one event type or mapped facet (tests/data/openlineage/README.md); its golden
``tests/facts/golden/openlineage/<case>.facts.json`` was written from DESIGN.md's OpenLineage rule
and the mapping table before the code ran, and is read, never regenerated from output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lineage.facts import openlineage as mapping
from lineage.events import openlineage as events

SAMPLES = Path(__file__).parents[1] / "data" / "openlineage"
CASES = sorted(p.stem for p in SAMPLES.glob("*.json") if not p.name.endswith(".expect.json"))


def test_every_event_type_and_mapped_facet_has_a_sample():
    kinds = {json.loads((SAMPLES / f"{case}.json").read_text()).get("eventType", "") for case in CASES}
    assert {"START", "COMPLETE", "FAIL", "RUNNING"} <= kinds
    text = " ".join((SAMPLES / f"{case}.json").read_text() for case in CASES)
    for facet in ("columnLineage", "schema", "symlinks", "sql", "parent", "ownership", "errorMessage",
                  "lifecycleStateChange", '"job": {"namespace": "airflow"', '"dataset": {"namespace"'):
        assert facet in text, facet


@pytest.mark.parametrize("case", CASES)
def test_openlineage_sample_facts_match_the_golden(case, golden, facts_of):
    golden(f"openlineage/{case}", facts_of("openlineage", json.loads((SAMPLES / f"{case}.json").read_text())))


def test_a_failed_run_asserts_nothing_and_says_it_failed(facts_of):
    rows = facts_of("openlineage", json.loads((SAMPLES / "fail.json").read_text()))
    assert rows and all(r["failed"] and r["op"] == "observe" for r in rows)
    run = next(r for r in rows if r["src_label"] == "Instance" and r["relationship"] is None)
    assert run["properties"]["error_code"] == "FAIL"
    assert run["properties"]["error_message"] == "Table not found: sales_dw.orders"


def test_abort_is_a_failed_run_too(facts_of):
    doc = {**json.loads((SAMPLES / "fail.json").read_text()), "eventType": "ABORT"}
    rows = facts_of("openlineage", doc)
    assert all(r["failed"] for r in rows)
    assert next(r for r in rows if r["src_label"] == "Instance")["properties"]["error_code"] == "ABORT"


def test_a_column_lineage_mapping_without_a_transformation_type_is_direct(facts_of):
    """The 1-0-1 facet (no transformations) and the old field-level transformationType."""
    doc = json.loads((SAMPLES / "complete-column-lineage.json").read_text())
    lineage = doc["outputs"][0]["facets"]["columnLineage"]
    lineage["fields"] = {"order_id": {"inputFields": [{"namespace": "oss://Lake-Bucket", "name": "/exports/orders",
                                                       "field": "order_id"}], "transformationType": "IDENTITY"},
                         "status": {"inputFields": [{"namespace": "oss://Lake-Bucket", "name": "/exports/orders",
                                                     "field": "status", "transformations": []}]}}
    del lineage["dataset"]
    feeds = [(r["src_id"], r["dst_id"], r["qualifier"], r["properties"]["transformations"])
             for r in facts_of("openlineage", doc) if r["relationship"] == "FEEDS"]
    assert feeds == [
        ("column:oss:lake-bucket/exports/orders.order_id", "column:maxcompute:sales_dw.orders_lake.order_id", "direct", '["IDENTITY"]'),
        ("column:oss:lake-bucket/exports/orders.status", "column:maxcompute:sales_dw.orders_lake.status", "direct", "[]"),
    ]


def test_an_unknown_facet_is_kept_never_dropped(facts_of):
    rows = facts_of("openlineage", json.loads((SAMPLES / "running-parent.json").read_text()))
    assert json.loads(rows[1]["properties"]["facet.acme_queue"]) == {"name": "etl"}


def test_a_huge_facet_is_cut_and_says_so(facts_of):
    doc = json.loads((SAMPLES / "running-parent.json").read_text())
    doc["run"]["facets"]["spark.logicalPlan"] = {"plan": "x" * (mapping.MAX_FACET_CHARS + 10)}
    kept = facts_of("openlineage", doc)[1]["properties"]["facet.spark.logicalPlan"]
    assert kept.endswith(f"... (cut: {mapping.MAX_FACET_CHARS + 22} characters)")


def test_every_event_kind_has_a_mapping():
    assert set(mapping.MAPPING) == set(events.MODELS)
