"""One raw record -> rows of the ingest table (accepted, foreign or quarantined), as plain tuples.

This is the only per-record logic of the ingest, and it is pure: the local path runs it in the
driver and the Spark path runs it in executors, so both give the same rows by construction.
A raw record is one row unless a delivery wrapper holds several (an API response listing
events): ``lineage.events.deliveries`` opens it, and each row keeps its wrapper path
(``delivery``) beside its file and line.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any, Iterator

from lineage.events import deliveries, registry
from lineage.events.base import ParsedEvent, RecordError
from lineage.io.reader import DEFAULT_MAX_RECORD_BYTES, RawRecord, read_file

ACCEPTED = "accepted"
QUARANTINED = "quarantined"
FOREIGN = "foreign"  # recognisably another product's record: counted, skipped
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
    ("delivery", "string"),
    ("reason", "string"),
    ("raw", "string"),
    ("raw_bytes", "long"),
    ("raw_truncated", "boolean"),
)
COLUMN_NAMES = tuple(name for name, _ in COLUMNS)
DDL = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)


def _row(**values: Any) -> tuple[Any, ...]:
    return tuple(values.get(name) for name in COLUMN_NAMES)


def quarantine_key(file: str, line: int, text: str, delivery: str | None = None) -> str:
    """Quarantine rows are de-duplicated across runs by where they came from and what they hold."""
    where = f"{file}\0{line}\0{delivery}\0" if delivery else f"{file}\0{line}\0"
    digest = hashlib.sha256(f"{where}{text}".encode("utf-8", errors="replace"))
    return "q:" + digest.hexdigest()[:40]


def _quarantine(record: RawRecord, reason: str, source: str = UNRECOGNIZED, delivery: str | None = None,
                inner: Any = None) -> tuple[Any, ...]:
    """A quarantine row; a record found inside a wrapper keeps its own text, not the wrapper's."""
    text = record.text if not delivery else json.dumps(inner, ensure_ascii=False)
    return _row(
        status=QUARANTINED,
        source=source,
        event_id=quarantine_key(record.file, record.line, text, delivery),
        file=record.file,
        line=record.line,
        delivery=delivery,
        reason=reason,
        raw=text,
        raw_bytes=record.size or len(record.text.encode("utf-8", errors="replace")),
        raw_truncated=record.truncated,
        repairs=list(record.repairs),
    )


def process(record: RawRecord) -> tuple[Any, ...]:
    """The one row of a record that is not a wrapper of several (see :func:`process_all`)."""
    rows = process_all(record)
    if len(rows) != 1:
        raise ValueError(f"{record.file}:{record.line} holds {len(rows)} records: use process_all")
    return rows[0]


def process_all(record: RawRecord) -> list[tuple[Any, ...]]:
    """Open the record's delivery wrappers and validate each record found; every failure becomes
    a quarantine row with a readable reason, another product's record a foreign row."""
    if record.error is not None or record.doc is None:
        return [_quarantine(record, record.error or "no JSON object")]
    try:
        opened = deliveries.open_record(record.doc)
    except Exception as exc:  # a bug must not lose the record: quarantine it and say so
        return [_quarantine(record, f"internal error while opening: {type(exc).__name__}: {exc}")]
    return [_outcome(record, deliveries.described(item)) for item in opened]


def _outcome(record: RawRecord, item: deliveries.Opened) -> tuple[Any, ...]:
    delivery = item.path or None
    if item.error is not None or item.source is None:
        source = item.source.name if item.source is not None else UNRECOGNIZED
        return _quarantine(record, item.error or "no source", source=source, delivery=delivery, inner=item.doc)
    if item.foreign is not None:
        return _row(status=FOREIGN, source=item.source.name, kind=item.foreign, file=record.file, line=record.line,
                    delivery=delivery, raw_bytes=record.size, repairs=list(record.repairs))
    source, envelope = item.source, item.envelope or ""
    try:
        return _accepted(record, item, registry.parse_with(source, envelope, item.doc))
    except RecordError as exc:
        return _quarantine(record, deliveries.described_reason(str(exc), item.path), source=source.name,
                           delivery=delivery, inner=item.doc)
    except Exception as exc:  # a bug must not lose the record (nor stop the run): quarantine it and say so
        reason = f"internal error while parsing: {type(exc).__name__}: {exc}"
        return _quarantine(record, deliveries.described_reason(reason, item.path), source=source.name,
                           delivery=delivery, inner=item.doc)


def _accepted(record: RawRecord, item: deliveries.Opened, event: ParsedEvent) -> tuple[Any, ...]:
    """The row of an understood record (its id, document and payload serialised here, so any
    failure doing so is the record's, caught by the caller)."""
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
        doc=json.dumps(item.doc, ensure_ascii=False, sort_keys=True),
        payload=event.model.model_dump_json(),
        repairs=list(record.repairs),
        file=record.file,
        line=record.line,
        delivery=item.path or None,
        raw_bytes=record.size,
        raw_truncated=False,
    )


def process_file(path: str, max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES) -> Iterator[tuple[Any, ...]]:
    """All rows of one file; an empty file yields one marker row so both paths can report it."""
    empty = True
    for record in read_file(path, max_record_bytes):
        empty = False
        yield from process_all(record)
    if empty:
        yield _row(status=EMPTY_FILE, file=str(path), line=0)
