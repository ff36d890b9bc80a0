"""Every sample of the four seed documents, copied as-is, read through the real reader.

Each ``tests/data/<source>/<topic>/<case>.<ext>`` has a ``<case>.expect.json`` beside it saying
whether the sample is accepted (source, kind, model, envelope, event id, key fields) or
quarantined (a substring of the reason). The expectations were written by reading the seeds.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from lineage.events import registry
from lineage.ingest import records
from lineage.io.reader import read_file
from seedfixtures import DATA, EXPECTS, expectations, fixture_of


def attr(value: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(value, (list, tuple)):
            value = value[int(part)]
        elif isinstance(value, dict):
            value = value[part]
        else:
            value = getattr(value, part)
    return value.isoformat() if isinstance(value, datetime) else value


def test_fixtures_exist_for_every_source():
    sources = {p.relative_to(DATA).parts[0] for p in EXPECTS}
    assert sources == set(registry.names())


@pytest.mark.parametrize("expect_path", EXPECTS, ids=lambda p: str(p.relative_to(DATA)))
def test_seed_sample(expect_path: Path):
    wants = expectations(expect_path)
    raws = list(read_file(fixture_of(expect_path)))
    assert len(raws) == len(wants), [r.error for r in raws]
    for raw, want in zip(raws, wants):
        row = dict(zip(records.COLUMN_NAMES, records.process(raw)))
        if want["expect"] == "quarantined":
            assert row["status"] == records.QUARANTINED, f"line {raw.line} was accepted, expected quarantine"
            assert want["reason"].lower() in row["reason"].lower(), row["reason"]
            assert row["file"] and row["raw"] is not None
            continue
        assert row["status"] == records.ACCEPTED, f"line {raw.line}: {row['reason']}"
        event = registry.parse_record(raw.doc)
        assert (event.source, event.kind, event.known) == (want["source"], want["kind"], want["known"])
        assert type(event.model).__name__ == want["model"]
        assert event.envelope == want["envelope"]
        assert event.event_id == want["event_id"]
        assert row["event_id"] == (want["event_id"] or registry.content_id(event))
        for path, value in want.get("fields", {}).items():
            assert attr(event.model, path) == value, path
