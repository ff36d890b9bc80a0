"""Delivery wrappers, foreign records and unknown kinds through the real ingest (both parse paths).

The corpus under tests/data/deliveries holds every wrapper of ``lineage.events.deliveries`` for
every source it applies to; ``manifest.toml`` says, per file, what ingest must make of it
(counted by hand from the files, not from the code's output).
"""

from __future__ import annotations

import base64
import gzip
import json
import tomllib
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from lineage.events import deliveries
from lineage.events.base import RecordError
from lineage.events.datahub.envelopes import MODELLED_ENTITY_TYPES
from lineage.ingest.pipeline import ingest

CORPUS = Path(__file__).parent / "data" / "deliveries"
MANIFEST: dict[str, dict] = tomllib.loads((CORPUS / "manifest.toml").read_text())


def rows(path: Path) -> list[dict]:
    return pq.read_table(path).to_pylist() if path.exists() else []


@pytest.mark.spark
@pytest.mark.parametrize("parse_in", ["local", "spark"])
@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_delivery_corpus(spark, tmp_path, name, parse_in):
    want = MANIFEST[name]
    path = CORPUS / name
    result = ingest([path], tmp_path / "wh", spark=spark, parse_in=parse_in)
    total = result.total
    assert (result.parse_in, total.accepted, total.foreign, total.quarantined, total.duplicates) == (
        parse_in, want["accepted"], want["foreign"], want["quarantined"], 0)
    assert result.reconciles and total.read == total.accepted + total.quarantined + total.duplicates + total.foreign
    source = name.split("/")[0]
    assert sum(c.foreign for c in result.sources.values()) == total.foreign
    assert sorted(f"{f['source']}:{f['kind']}" for f in result.foreign_kinds) == sorted(want.get("foreign_kinds", []))
    assert sum(f["count"] for f in result.foreign_kinds) == total.foreign
    assert sorted(u["kind"] for u in result.unknown_kinds) == sorted(want.get("unknown_kinds", []))
    assert all(u["example_id"] for u in result.unknown_kinds)
    events = sorted(rows(tmp_path / "wh" / "events"), key=lambda e: (e["line"], e["delivery"] or ""))
    assert len(events) == want["accepted"]
    assert {e["source"] for e in events} <= {source}
    assert all(e["file"] == str(path) and e["line"] >= 1 for e in events)
    if events:
        assert events[0]["delivery"] == want.get("delivery")
    quarantine = rows(tmp_path / "wh" / "quarantine")
    assert len(quarantine) == want["quarantined"]
    for row in quarantine:  # a record found inside a wrapper names where it was found
        assert row["file"] == str(path) and row["reason"]
        assert row["delivery"] is None or row["delivery"] in row["reason"]


@pytest.mark.spark
def test_corpus_parsed_locally_and_in_spark_gives_the_same_datasets(spark, tmp_path):
    files = [CORPUS / name for name in sorted(MANIFEST)]
    local = ingest(files, tmp_path / "local", spark=spark, parse_in="local")
    distributed = ingest(files, tmp_path / "spark", spark=spark, parse_in="spark")
    assert local.sources == distributed.sources and local.total == distributed.total
    assert local.foreign_kinds == distributed.foreign_kinds and local.unknown_kinds == distributed.unknown_kinds
    assert local.total.foreign == sum(w["foreign"] for w in MANIFEST.values())

    def table(root: Path, dataset: str) -> list[str]:
        drop = ("run_id", "ingested_at")
        return sorted(json.dumps({k: v for k, v in r.items() if k not in drop}, sort_keys=True, default=str)
                      for r in rows(root / dataset))

    for dataset in ("events", "quarantine"):
        assert table(tmp_path / "local", dataset) == table(tmp_path / "spark", dataset), dataset


def test_every_wrapper_is_in_the_corpus():
    opened_through = set()
    for name in MANIFEST:
        for line in (CORPUS / name).read_text().splitlines():
            for item in deliveries.open_record(json.loads(line)):
                opened_through |= {step.split(":")[0] for step in item.path.split("/") if step}
    assert opened_through == {wrapper.name for wrapper in deliveries.WRAPPERS}


@pytest.mark.parametrize(("value", "encoding"), [
    ({"a": 1}, ""),
    ('{"a": 1}', ""),
    ("eyJhIjogMX0=", "base64"),
    (base64.b64encode(gzip.compress(b'{"a": 1}', mtime=0)).decode(), "base64+gzip"),
])
def test_payloads_are_objects_json_text_or_base64(value, encoding):
    assert deliveries.decode_payload(value, "value") == (encoding, {"a": 1})


@pytest.mark.parametrize(("value", "reason"), [
    ("<html>", "neither JSON nor base64"),
    ("bm90IGpzb24=", "base64 payload is not JSON"),
    ('{"a": ', "invalid embedded JSON"),
    (12, "expected a JSON payload"),
])
def test_bad_payloads_name_the_field(value, reason):
    with pytest.raises(RecordError) as raised:
        deliveries.decode_payload(value, "Message")
    assert reason in str(raised.value) and raised.value.field == "Message"


def test_avro_unions_are_unwrapped_everywhere():
    doc = {"name": {"string": "x"}, "n": {"long": 5}, "stamp": {"com.linkedin.pegasus2avro.common.AuditStamp": {
        "time": {"long": 1}}}, "list": [{"int": 2}], "plain": {"a": 1, "b": 2}}
    assert deliveries.strip_avro_unions(doc) == {"name": "x", "n": 5, "stamp": {"time": 1}, "list": [2],
                                                 "plain": {"a": 1, "b": 2}}


def test_a_source_record_is_never_opened_as_a_wrapper():
    """A DataWorks CloudEvent is also an EventBridge message: the source's own envelope wins."""
    cloudevent = json.loads((CORPUS / "dataworks" / "eventbridge_other_products.delivery").read_text().splitlines()[1])
    (opened,) = deliveries.open_record(cloudevent)
    assert (opened.source.name, opened.envelope, opened.path) == ("dataworks", "cloudevent", "")


def test_modelled_datahub_entity_types_are_the_ones_facts_give_an_id():
    from lineage.facts.datahub import entity_id

    samples = {
        "dataset": "urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)",
        "schemaField": "urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD),c)",
        "chart": "urn:li:chart:(looker,c1)", "dashboard": "urn:li:dashboard:(looker,d1)",
        "dataFlow": "urn:li:dataFlow:(airflow,f,prod)", "dataJob": "urn:li:dataJob:(urn:li:dataFlow:(airflow,f,prod),j)",
        "tag": "urn:li:tag:PII", "glossaryTerm": "urn:li:glossaryTerm:t", "domain": "urn:li:domain:d",
        "structuredProperty": "urn:li:structuredProperty:p", "actionRequest": "urn:li:actionRequest:a",
        "corpuser": "urn:li:corpuser:u", "corpGroup": "urn:li:corpGroup:g",
    }
    assert set(samples) == MODELLED_ENTITY_TYPES
    assert all(entity_id(urn) for urn in samples.values())
    for foreign in ("urn:li:container:abc", "urn:li:mlModel:(urn:li:dataPlatform:sagemaker,m,PROD)",
                    "urn:li:dataProduct:p"):
        assert entity_id(foreign) is None


def _generated_files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted((root / "events").rglob("*.gz"))}


def test_foreign_share_is_deterministic_and_zero_changes_nothing(tmp_path):
    from lineage.generate import generate

    first = generate(tmp_path / "a", tables=12, days=1, seed=5, foreign_share=0.7)
    second = generate(tmp_path / "b", tables=12, days=1, seed=5, foreign_share=0.7)
    assert _generated_files(tmp_path / "a") == _generated_files(tmp_path / "b") and first.summary == second.summary
    plain = generate(tmp_path / "c", tables=12, days=1, seed=5)
    zero = generate(tmp_path / "d", tables=12, days=1, seed=5, foreign_share=0.0)
    assert _generated_files(tmp_path / "c") == _generated_files(tmp_path / "d")
    mc = first.summary["counts"]["sources"]["maxcompute"]
    assert mc["records"] == plain.summary["counts"]["sources"]["maxcompute"]["records"]  # ours unchanged
    assert abs(mc["foreign"] / (mc["foreign"] + mc["records"]) - 0.7) < 0.01


@pytest.mark.spark
def test_strict_ingest_passes_on_a_trail_where_most_events_are_other_services(spark, tmp_path):
    from click.testing import CliRunner

    from lineage.cli import main
    from lineage.generate import generate
    from lineage.generate.maxcompute import FOREIGN_CALLS

    generated = generate(tmp_path / "gen", tables=12, days=2, seed=5, foreign_share=0.7)
    want = generated.summary["counts"]["sources"]["maxcompute"]
    assert want["foreign"] > 2 * want["records"]
    trail = tmp_path / "gen" / "events" / "maxcompute"
    human = CliRunner().invoke(main, ["ingest", str(trail), "--warehouse", str(tmp_path / "h"), "--strict"])
    assert human.exit_code == 0, human.output
    assert "skipped as another product's records (foreign): maxcompute:service:" in human.stdout
    result = CliRunner().invoke(main, ["ingest", str(trail), "--warehouse", str(tmp_path / "w"), "--strict", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    got = doc["sources"]["maxcompute"]
    assert (got["accepted"], got["duplicates"], got["foreign"], got["quarantined"]) == (
        want["records"], want["duplicates"], want["foreign"], 0)
    for counts in (got, doc["total"]):
        assert counts["read"] == counts["accepted"] + counts["quarantined"] + counts["duplicates"] + counts["foreign"]
    assert {f["kind"] for f in doc["foreign_kinds"]} <= {f"service:{service}" for service, _, _ in FOREIGN_CALLS}
    assert sum(f["count"] for f in doc["foreign_kinds"]) == want["foreign"]


@pytest.mark.spark
def test_unknown_kinds_are_listed_by_the_reports_input_health(spark, tmp_path):
    from datetime import datetime, timezone

    from lineage.report.health import input_health
    from lineage.report.window import week_of

    warehouse = tmp_path / "wh"
    result = ingest([CORPUS / "dataworks" / "list_response_data.delivery"], warehouse, spark=spark, parse_in="local")
    (listed,) = result.unknown_kinds
    assert (listed["source"], listed["kind"], listed["count"]) == ("dataworks", "something-new", 1)
    assert listed["example_id"].endswith("dw-unknown-0001")
    health = input_health(warehouse, week_of(datetime(2023, 12, 11, tzinfo=timezone.utc)))
    (unknown,) = health.unknown_kinds
    assert (unknown.source, unknown.kind, unknown.count, unknown.first_day) == ("dataworks", "something-new", 1, "2023-12-11")
    assert unknown.example_id == listed["example_id"]
    assert {s.source: s.unknown_kind for s in health.sources} == {"dataworks": 1}
    assert input_health(warehouse, week_of(datetime(2023, 12, 18, tzinfo=timezone.utc))).unknown_kinds == []


def test_readme_lists_every_wrapper():
    root = Path(__file__).parents[1]  # the README and the guides under docs/
    readme = "\n".join(p.read_text() for p in [root / "README.md", *sorted((root / "docs").glob("*.md"))])
    assert [w.name for w in deliveries.WRAPPERS if f"| `{w.name}` |" not in readme] == []
