"""Source detection and dispatch: one JSON object -> one ``ParsedEvent``, or a readable error.

Each source module declares how to recognise its envelopes (``detect``); the registry asks all
of them, so a record claimed by two sources or by none is reported, not guessed.
"""

from __future__ import annotations

import hashlib
import json
from types import ModuleType
from typing import Any

from pydantic import ValidationError

from lineage.events import datahub, dataphin, dataworks, maxcompute
from lineage.events.base import ParsedEvent, RecordError

SOURCES: tuple[ModuleType, ...] = (dataworks, maxcompute, dataphin, datahub)
SOURCE_NAMES: tuple[str, ...] = tuple(module.SOURCE for module in SOURCES)


def detect(doc: dict[str, Any]) -> tuple[ModuleType, str]:
    """The one source module (and its envelope) that claims ``doc``."""
    claims = [(module, envelope) for module in SOURCES if (envelope := module.detect(doc))]
    if len(claims) == 1:
        return claims[0]
    if not claims:
        keys = ", ".join(sorted(doc)[:8]) or "none"
        raise RecordError(f"not a record of any known source ({', '.join(SOURCE_NAMES)}); top-level keys: {keys}")
    names = ", ".join(f"{m.SOURCE}/{e}" for m, e in claims)
    raise RecordError(f"ambiguous record: claimed by {names}")


def parse_record(doc: dict[str, Any]) -> ParsedEvent:
    """Detect and validate; raise RecordError with a readable reason when it cannot be done."""
    module, envelope = detect(doc)
    return parse_with(module, envelope, doc)


def parse_with(module: ModuleType, envelope: str, doc: dict[str, Any]) -> ParsedEvent:
    """Validate ``doc`` with the source that claimed it; errors name the source and the fields."""
    try:
        return module.parse(doc, envelope)
    except ValidationError as exc:
        raise RecordError(describe_validation(exc, module.SOURCE)) from None
    except RecordError as exc:
        raise RecordError(f"{module.SOURCE}: {exc}") from None


def describe_validation(exc: ValidationError, source: str) -> str:
    """``dataworks NodeChange: data.nodeId: Field required; ...`` — names every bad field."""
    problems = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error.get("loc", ())) or "record"
        problems.append(f"{where}: {error.get('msg', 'invalid')}")
    return f"{source} {exc.title}: " + "; ".join(problems[:5]) + ("; ..." if len(problems) > 5 else "")


def content_id(event: ParsedEvent) -> str:
    """A stable id for events whose source gives none: hash of the validated event, not of its
    envelope, so the same DataHub change arrives bare or wrapped and is still one event."""
    body = event.model.model_dump(mode="json", by_alias=True)
    canonical = json.dumps([event.source, event.kind, body], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:40]
