"""One raw record -> one row of the ingest table (accepted or quarantined), as a plain tuple.

This is the only per-record logic of the ingest, and it is pure: the local path runs it in the
driver and the Spark path runs it in executors, so both give the same rows by construction.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Iterator

from lineage.events import registry
from lineage.events.base import RecordError
from lineage.io.reader import DEFAULT_MAX_RECORD_BYTES, RawRecord, read_file

ACCEPTED = "accepted"
QUARANTINED = "quarantined"
EMPTY_FILE = "empty-file"  # a marker row: the file held no records (not counted as read)
UNRECOGNIZED = "unrecognized"

# column name -> Spark SQL type; the order is the tuple order produced below
COLUMNS: tuple[tuple[str, str], ...] = (
    ("status", "string"),
    ("source", "string"),
    ("kind", "string"),
    ("known", "boolean"),
    ("envelope", "string"),
    ("event_id", "string"),
    ("event_time", "timestamp"),
    ("event_date", "string"),
    ("actor", "string"),
    ("doc", "string"),
    ("payload", "string"),
    ("repairs", "array<string>"),
    ("file", "string"),
    ("line", "int"),
    ("reason", "string"),
    ("raw", "string"),
    ("raw_bytes", "long"),
    ("raw_truncated", "boolean"),
)
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)
DDL = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)


def _row(**values: Any) -> tuple[Any, ...]:
    return tuple(values.get(name) for name in COLUMN_NAMES)


def quarantine_key(file: str, line: int, text: str) -> str:
    """Quarantine rows are de-duplicated across runs by where they came from and what they hold."""
    digest = hashlib.sha256(f"{file}\0{line}\0{text}".encode("utf-8", errors="replace"))
    return "q:" + digest.hexdigest()[:40]


def _quarantine(record: RawRecord, reason: str, source: str = UNRECOGNIZED) -> tuple[Any, ...]:
    return _row(
        status=QUARANTINED,
        source=source,
        event_id=quarantine_key(record.file, record.line, record.text),
        file=record.file,
        line=record.line,
        reason=reason,
        raw=record.text,
        raw_bytes=record.size or len(record.text.encode("utf-8", errors="replace")),
        raw_truncated=record.truncated,
        repairs=list(record.repairs),
    )


def process(record: RawRecord) -> tuple[Any, ...]:
    """Validate one record; every failure becomes a quarantine row with a readable reason."""
    if record.error is not None or record.doc is None:
        return _quarantine(record, record.error or "no JSON object")
    try:
        source, envelope = registry.detect(record.doc)
    except RecordError as exc:
        return _quarantine(record, str(exc))
    try:
        event = registry.parse_with(source, envelope, record.doc)
    except RecordError as exc:
        return _quarantine(record, str(exc), source=source.name)
    except Exception as exc:  # a bug must not lose the record: quarantine it and say so
        return _quarantine(record, f"internal error while parsing: {type(exc).__name__}: {exc}", source=source.name)
    time: datetime | None = event.event_time
    return _row(
        status=ACCEPTED,
        source=event.source,
        kind=event.kind,
        known=event.known,
        envelope=event.envelope,
        event_id=event.event_id or registry.content_id(event),
        event_time=time,
        event_date=time.date().isoformat() if time else None,
        actor=event.actor,
        doc=json.dumps(record.doc, ensure_ascii=False, sort_keys=True),
        payload=event.model.model_dump_json(),
        repairs=list(record.repairs),
        file=record.file,
        line=record.line,
        raw_bytes=record.size,
        raw_truncated=False,
    )


def process_file(path: str, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES) -> Iterator[tuple[Any, ...]]:
    """All rows of one file; an empty file yields one marker row so both paths can report it."""
    empty = True
    for record in read_file(path, max_record_bytes):
        empty = False
        yield process(record)
    if empty:
        yield _row(status=EMPTY_FILE, file=str(path), line=0)
