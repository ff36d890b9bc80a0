"""The registered sources, detection and dispatch: one JSON object -> one ``ParsedEvent``.

:data:`SOURCES` is the one list of sources: ingest, facts, the mapping docs, the build and the
tests all read it. Each source declares how to recognise its envelopes (``Source.shapes``); the
registry asks all of them, so a record claimed by two sources or by none is reported, not
guessed. Adding a source is a module defining its ``Source`` and one line here.
"""

from __future__ import annotations

import hashlib
import json
from contextlib import contextmanager
from typing import Any, Iterator

from pydantic import ValidationError

from lineage.events import datahub, dataphin, dataworks, maxcompute, openlineage
from lineage.events.base import EARLIEST, LATEST, ParsedEvent, RecordError, Source

SOURCES: tuple[Source, ...] = (
    dataworks.SOURCE,
    maxcompute.SOURCE,
    dataphin.SOURCE,
    datahub.SOURCE,
    openlineage.SOURCE,
)


def names() -> tuple[str, ...]:
    return tuple(source.name for source in SOURCES)


def source(name: str) -> Source:
    """The registered source called ``name``."""
    for candidate in SOURCES:
        if candidate.name == name:
            return candidate
    raise KeyError(f"no source named {name!r} (registered: {', '.join(names())})")


@contextmanager
def registered(extra: Source) -> Iterator[Source]:
    """``extra`` registered after the others for the duration of a ``with`` block (tests).

    Only this process sees it: Spark executors import the registry afresh, so a source the
    Spark paths must see belongs in :data:`SOURCES`.
    """
    global SOURCES
    if extra.name in names():
        raise ValueError(f"a source named {extra.name!r} is already registered")
    before = SOURCES
    SOURCES = (*before, extra)
    try:
        yield extra
    finally:
        SOURCES = before


def claims(doc: dict[str, Any]) -> list[tuple[Source, str]]:
    """Every (source, envelope) whose shapes match ``doc``: one is a record, two is ambiguous."""
    return [(candidate, envelope) for candidate in SOURCES if (envelope := candidate.detect(doc))]


def foreign(doc: dict[str, Any]) -> tuple[Source, str] | None:
    """(source, foreign kind) when a source declares ``doc`` another product's, else None."""
    return next(((candidate, kind) for candidate in SOURCES if (kind := candidate.foreign_kind(doc))), None)


def detect(doc: dict[str, Any], found: list[tuple[Source, str]] | None = None) -> tuple[Source, str]:
    """The one source (and its envelope) that claims ``doc`` (``found``: its claims, if known)."""
    matched = claims(doc) if found is None else found
    if len(matched) == 1:
        return matched[0]
    if not matched:
        keys = ", ".join(sorted(doc)[:8]) or "none"
        raise RecordError(f"not a record of any known source ({', '.join(names())}); top-level keys: {keys}")
    claimed = ", ".join(f"{s.name}/{e}" for s, e in matched)
    raise RecordError(f"ambiguous record: claimed by {claimed}")


def parse_record(doc: dict[str, Any]) -> ParsedEvent:
    """Detect and validate; raise RecordError with a readable reason when it cannot be done."""
    claimed, envelope = detect(doc)
    return parse_with(claimed, envelope, doc)


def parse_with(claimed: Source, envelope: str, doc: dict[str, Any]) -> ParsedEvent:
    """Validate ``doc`` with the source that claimed it; errors name the source and the fields."""
    try:
        event = claimed.parse(doc, envelope)
    except ValidationError as exc:
        raise RecordError(describe_validation(exc, claimed.name)) from None
    except RecordError as exc:
        raise RecordError(f"{claimed.name}: {exc}") from None
    time = event.event_time
    if time is not None and not EARLIEST <= time < LATEST:  # sources check their fields; a safety net
        raise RecordError(f"{claimed.name}: event time: {time.isoformat()} is out of range")
    return event


def describe_validation(exc: ValidationError, source: str) -> str:
    """``dataworks NodeChange: data.nodeId: Field required; ...`` — names every bad field."""
    problems = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error.get("loc", ())) or "record"
        cause = error.get("ctx", {}).get("error") if error.get("type") == "value_error" else None
        problems.append(f"{where}: {cause if cause is not None else error.get('msg', 'invalid')}")
    return f"{source} {exc.title}: " + "; ".join(problems[:5]) + ("; ..." if len(problems) > 5 else "")


def content_id(event: ParsedEvent) -> str:
    """A stable id for events whose source gives none: hash of the validated event, not of its
    envelope, so the same DataHub change arrives bare or wrapped and is still one event."""
    body = event.model.model_dump(mode="json", by_alias=True)
    canonical = json.dumps([event.source, event.kind, body], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:40]
