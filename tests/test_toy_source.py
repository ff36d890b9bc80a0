"""A fifth source added in this module alone flows through ingest, facts and the mapping docs.

The toy source is everything a new source is -- a model, an envelope signature, a parse
function and a one-row fact table -- and it is registered with one line
(``registry.registered``), with no other file touched. After the block nothing sees it.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from types import SimpleNamespace

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from pydantic import Field

from lineage import ids
from lineage.cli import main
from lineage.events import registry
from lineage.events.base import EventModel, ParsedEvent, Shape, Source, Timestamp
from lineage.facts import docs
from lineage.facts.core import Emit, Out
from lineage.facts.extract import facts_of_event
from seedfixtures import accepted_docs


class ToyEvent(EventModel):
    """A toy catalogue's record: someone took ownership of a MaxCompute table."""

    toy_id: str = Field(alias="toyId")
    toy_kind: str = Field(alias="toyKind")
    project: str
    table: str
    owner: str
    at: Timestamp


def parse_toy(doc: dict, envelope: str) -> ParsedEvent:
    model = ToyEvent.model_validate(doc)
    return ParsedEvent(source="toy", kind=model.toy_kind, envelope=envelope, model=model,
                       event_id=model.toy_id, event_time=model.at, actor=model.owner)


def _owns(event: ParsedEvent):
    yield Out(src=ids.make("User", "toy", event.model.owner), dst=ids.table(event.model.project, event.model.table))


TOY_FACTS = SimpleNamespace(
    MAPPING={"table-owned": (Emit(op="assert", src="User", rel="OWNS", dst="Table", fn=_owns,
                                  note="owner: `user:toy:<owner>`; table: `project`.`table`"),)},
    failed=lambda event: False,
    actor_id=lambda event: ids.make("User", "toy", event.actor),
)

TOY = Source(
    name="toy",
    shapes=(Shape(envelope="toy-json", present=("toyId", "toyKind")),),
    models={"table-owned": ToyEvent},
    parse=parse_toy,
    mapping=TOY_FACTS,
)


def toy_record(n: int) -> dict:
    return {"toyId": f"t-{n}", "toyKind": "table-owned", "project": "sales_dw", "table": f"orders_{n}",
            "owner": "ann", "at": "2024-07-12T10:00:00Z"}


@pytest.mark.spark
def test_a_toy_fifth_source_flows_through_ingest_facts_and_docs(spark, tmp_path: Path):
    dataphin = accepted_docs(known_only=True)["dataphin"][0]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(json.dumps(d) for d in (toy_record(1), dataphin, toy_record(2))) + "\n")
    warehouse = tmp_path / "warehouse"

    with registry.registered(TOY):  # the one line that adds the source
        assert registry.names()[-1] == "toy"
        # ingest: the command accepts its records and counts them under its name
        result = CliRunner().invoke(main, ["ingest", str(path), "--warehouse", str(warehouse), "--json",
                                           "--parse-in", "local"])
        assert result.exit_code == 0, result.stderr
        summary = json.loads(result.stdout)
        assert summary["sources"]["toy"] == {"read": 2, "accepted": 2, "quarantined": 0, "duplicates": 0,
                                             "foreign": 0, "unknown_kind": 0, "implausible_time": 0}
        assert summary["sources"]["dataphin"]["accepted"] == 1
        assert summary["total"]["read"] == 3 and summary["reconciles"] is True

        # facts: the stored event row is mapped by the toy's table
        events = pq.read_table(warehouse / "events").to_pylist()
        toy_rows = sorted((e for e in events if e["source"] == "toy"), key=lambda e: e["event_id"])
        assert [(e["event_id"], e["kind"], e["envelope"]) for e in toy_rows] == [
            ("t-1", "table-owned", "toy-json"), ("t-2", "table-owned", "toy-json")]
        row = toy_rows[0]
        facts = facts_of_event(row["source"], row["kind"], row["event_id"], row["event_time"], row["doc"])
        assert [(f[6], f[7], f[9], f[10]) for f in facts] == [
            ("assert", "user:toy:ann", "OWNS", "table:maxcompute:sales_dw.orders_1")]
        assert facts[0][3] == datetime(2024, 7, 12, 10, tzinfo=timezone.utc) and facts[0][4] == "user:toy:ann"

        # docs: the generated mapping document has the toy's section and its kind
        rendered = docs.render()
        assert "## toy\n\n### `table-owned`" in rendered
        assert "| assert | (User)-[:OWNS]->(Table) | owner: `user:toy:<owner>`; table: `project`.`table` |" in rendered

    # cleanup: nothing outside the block sees the toy
    assert "toy" not in registry.names()
    assert "## toy" not in docs.render()
    with pytest.raises(KeyError, match="no source named 'toy'"):
        registry.source("toy")


def test_a_source_name_cannot_be_registered_twice():
    before = registry.SOURCES
    clash = Source(name="dataphin", shapes=(), models={}, parse=parse_toy, mapping=TOY_FACTS)
    with pytest.raises(ValueError, match="a source named 'dataphin' is already registered"):
        with registry.registered(clash):
            pass
    assert registry.SOURCES is before
