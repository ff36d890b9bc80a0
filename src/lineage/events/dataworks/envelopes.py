"""Recognising the three DataWorks envelopes and turning a record into a ``ParsedEvent``.

Both recognition and kind resolution are tables: :data:`SHAPES` (what a record of each
envelope looks like) and :data:`ENVELOPES` (where each envelope keeps its kind and its id).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from lineage.events.base import Foreign, ParsedEvent, RecordError, Shape, Source, lookup, to_json_value
from lineage.events.dataworks.common import DataWorksEvent, UnknownDataWorksEvent
from lineage.events.dataworks.kinds import BODY_EVENT_TYPES, EVENT_TYPES, KINDS, MODELS

NAME = "dataworks"
UNKNOWN_KIND = "unknown"

# ---------------------------------------------------------------------------------------------
# detection
# ---------------------------------------------------------------------------------------------


def _dataworks_type(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("dataworks:")


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


def _is_object_or_json(value: Any) -> bool:
    return isinstance(value, dict) or (isinstance(value, str) and value.lstrip().startswith("{"))


def _is_text(value: Any) -> bool:
    return isinstance(value, str)


_CLOUDEVENT_KEYS = ("id", "type", "source", "specversion", "messageBody")

SHAPES: tuple[Shape, ...] = (
    Shape(envelope="cloudevent", equals=(("source", "acs.dataworks"),)),
    Shape(envelope="cloudevent", present=("type",), tests=(("type", _dataworks_type),)),
    Shape(envelope="fc", present=("eventType", "messageBody"), tests=(("messageBody", _is_object_or_json),)),
    # the document's partial samples: {"datacontenttype", "data"}, or {"data": {"eventCode"...}}
    Shape(envelope="body", present=("datacontenttype", "data"), absent=_CLOUDEVENT_KEYS, tests=(("data", _is_object),)),
    Shape(envelope="body", present=("data",), absent=_CLOUDEVENT_KEYS, tests=(("data.eventCode", _is_text),)),
)
"""What a record of each envelope looks like (first match wins)."""


def _other_product(value: Any) -> bool:
    """An EventBridge ``source`` of another Alibaba Cloud product (``acs.ecs``, ``acs.oss``)."""
    return isinstance(value, str) and value.startswith(("acs.", "acs:")) and value != "acs.dataworks"


FOREIGN: tuple[Foreign, ...] = (
    Foreign(
        Shape(envelope="foreign", present=("specversion", "source", "type"), tests=(("source", _other_product),),
              absent=("data.eventCode",)),
        lambda event: f"source:{event['source']}",
    ),
)
"""The EventBridge bus that carries DataWorks' events carries every product's: a CloudEvent of
another product's ``source`` that holds no record of ours (see ``lineage.events.deliveries``)."""


# ---------------------------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KindField:
    """Where a kind may be read: a key path, an optional table translating the raw value into an
    event code, and whether the raw value names an unknown kind when it is not a known one."""

    path: tuple[str, ...]
    table: Mapping[str, str] = field(default_factory=dict)
    names_unknown: bool = True


def _cloudevent_id(event: DataWorksEvent) -> str | None:
    """The CloudEvent ``id``, scoped by its ``type``.

    Re-deliveries of one event keep both, so they still de-duplicate; but the document shows one
    id on two different events (the download and upload samples), and the pipeline de-duplicates
    on the event id alone, so an unscoped id would drop a real event as a duplicate.
    """
    if not event.id:
        return None
    return f"{event.type}:{event.id}" if event.type else event.id


def _fc_message_id(event: DataWorksEvent) -> str | None:
    return event.message_id or None


@dataclass(frozen=True)
class Envelope:
    """Per envelope: the body key, where the kind is (in order) and how to get the event id."""

    name: str
    body_key: str
    kind_fields: tuple[KindField, ...]
    event_id: Callable[[DataWorksEvent], str | None] | None


ENVELOPES: dict[str, Envelope] = {
    envelope.name: envelope
    for envelope in (
        Envelope(
            "cloudevent",
            "data",
            (KindField(("type",), EVENT_TYPES), KindField(("data", "eventCode"))),
            _cloudevent_id,
        ),
        Envelope(
            "fc",
            "messageBody",
            (
                KindField(("eventType",), BODY_EVENT_TYPES),
                KindField(("messageBody", "eventCode")),
            ),
            _fc_message_id,
        ),
        Envelope(
            "body",
            "data",
            (
                KindField(("data", "eventCode")),
                KindField(("data", "eventType"), BODY_EVENT_TYPES, names_unknown=False),
            ),
            None,
        ),
    )
}


def resolve_kind(doc: Mapping[str, Any], envelope: Envelope) -> tuple[str, bool]:
    """(kind, known): the first field naming a known code wins; else the first raw event code
    (``eventCode``, the document's kind vocabulary), else the first raw name; else ``unknown``."""
    fallback: str | None = None
    raw_code: str | None = None
    for kind_field in envelope.kind_fields:
        raw = lookup(doc, kind_field.path)
        if not isinstance(raw, str) or not raw.strip():
            continue
        raw = raw.strip()
        code = kind_field.table.get(raw, raw)
        if code in KINDS:
            return code, True
        if kind_field.names_unknown:
            fallback = fallback or raw
            if kind_field.path[-1] == "eventCode":
                raw_code = raw_code or raw
    return raw_code or fallback or UNKNOWN_KIND, False


def _normalise(doc: dict[str, Any], envelope: Envelope) -> dict[str, Any]:
    """A body sent as a JSON string (seen in FC messages) is decoded; nothing else changes."""
    body = doc.get(envelope.body_key)
    if isinstance(body, str):
        try:
            decoded = to_json_value(body)
        except ValueError as exc:
            raise RecordError(str(exc), field=envelope.body_key) from None
        return {**doc, envelope.body_key: decoded}
    return doc


def _first(body: Any, paths: tuple[str, ...]) -> Any:
    for path in paths:
        value = lookup(body, path)
        if value not in (None, ""):
            return value
    return None


def parse(doc: dict[str, Any], envelope: str) -> ParsedEvent:
    """Validate ``doc`` with the model of its kind; unknown kinds come back ``known=False``."""
    spec = ENVELOPES.get(envelope)
    if spec is None:
        raise RecordError(f"unknown DataWorks envelope {envelope!r}", field="envelope")
    kind, known = resolve_kind(doc, spec)
    model_cls: type[DataWorksEvent] = MODELS[kind] if known else UnknownDataWorksEvent
    model = model_cls.model_validate(_normalise(doc, spec))
    body = model.data
    time_fields = body.TIME_FIELDS if body is not None else ()
    actor_fields = body.ACTOR_FIELDS if body is not None else ()
    event_time = model.time or _first(body, time_fields) or model.aliyun_publish_time
    actor = _first(body, actor_fields)
    return ParsedEvent(
        source=NAME,
        kind=kind,
        envelope=envelope,
        model=model,
        event_id=spec.event_id(model) if spec.event_id else None,
        event_time=event_time,
        actor=str(actor) if actor is not None else None,
        known=known,
    )


def parse_body(kind: str, body: dict[str, Any]) -> DataWorksEvent:
    """Validate a message body as ``kind``: a ``{"data": {...}}`` sample or the data object itself.

    The document's partial samples often lack ``eventCode``, so ``parse`` cannot tell their
    kind; this says which model they are meant for.
    """
    model_cls = MODELS.get(kind)
    if model_cls is None:
        raise RecordError(f"not a DataWorks event kind: {kind!r}", field="kind")
    doc = body if ("data" in body or "messageBody" in body) else {"data": body}
    return model_cls.model_validate(doc)


SOURCE = Source(
    name=NAME, shapes=SHAPES, models=MODELS, parse=parse, mapping="lineage.facts.dataworks", foreign=FOREIGN,
)
