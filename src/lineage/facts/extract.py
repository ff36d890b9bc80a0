"""Accepted event rows -> fact rows (pure; the build runs it in Spark executors).

The ingest kept each accepted record's JSON (``doc``); it is validated again here with the
same models, so a fact always comes from a fully understood event. An event whose mapping
raises yields one ``error`` fact with the reason: the build counts and lists those, it never
drops them silently.
"""

from __future__ import annotations

import json
from datetime import datetime
from types import ModuleType

from lineage.events import registry
from lineage.facts import core, datahub, dataphin, dataworks, maxcompute

MAPPINGS: dict[str, ModuleType] = {m.SOURCE: m for m in (dataworks, maxcompute, dataphin, datahub)}


def facts_of_event(source: str, kind: str, event_id: str, event_time: datetime | None, doc: str) -> list[core.Fact]:
    """All facts of one accepted event, or a single ``error`` fact saying why there are none."""
    try:
        event = registry.parse_record(json.loads(doc))
        return core.facts_of(event, event_id, MAPPINGS[event.source])
    except Exception as exc:  # a mapping bug must not lose the event: report it per event
        reason = f"{type(exc).__name__}: {exc}"
        return [core.error_row(event_id, source, kind, event_time, reason)]
