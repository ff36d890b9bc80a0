"""DataHub envelopes: recognising a record and parsing it into a ``ParsedEvent`` (see the package)."""

from __future__ import annotations

import json
from typing import Callable, cast

from lineage.events.base import Foreign, ParsedEvent, RecordError, Shape, Source, lookup, require
from lineage.events.datahub.models import (
    ACTION_REQUEST_REQUIRED,
    MODELS,
    ActionRequestEvent,
    ActionRequestParameters,
    EntityChangeEvent,
    PlatformEvent,
    UnknownEntityChangeEvent,
    epoch_millis,
)
from lineage.events.datahub.urns import URN_PREFIX
from lineage.io import jsonscan

NAME = "datahub"

ENTITY_CHANGE_EVENT_NAME = "entityChangeEvent"
"""``PlatformEvent.name`` of an entity change event."""
ENTITY_CHANGE_EVENT_TYPE = "EntityChangeEvent_v1"
"""``EventEnvelope.event_type`` of an entity change event (datahub-actions)."""
ACTION_REQUEST_ENTITY_TYPE = "actionRequest"


# ---------------------------------------------------------------------------------------------
# detection
# ---------------------------------------------------------------------------------------------


SHAPES: tuple[Shape, ...] = (
    Shape(envelope="actions-envelope", present=("event_type", "event"), equals=(("event_type", ENTITY_CHANGE_EVENT_TYPE),)),
    # the header (timestampMillis) is optional: Kafka consumers often deliver the event without it
    Shape(envelope="platform-event", present=("name", "payload.value"), tests=(("name", lambda v: isinstance(v, str)),)),
    Shape(envelope="ece", present=("entityUrn", "category", "operation")),
)
"""What a record of each envelope looks like (first match wins)."""

MODELLED_ENTITY_TYPES: frozenset[str] = frozenset({
    "dataset", "schemaField", "chart", "dashboard", "dataFlow", "dataJob", "tag", "glossaryTerm",
    "domain", "structuredProperty", "actionRequest", "corpuser", "corpGroup",
})
"""Entity types the graph holds (``lineage.facts.datahub`` gives each an id; a test keeps the two
in step). A change event about any other type (container, mlModel, dataProduct, ...) is foreign."""


def _entity_type(event: dict) -> str:
    """``entityType``, else the type in ``entityUrn`` (``urn:li:<type>:...``)."""
    declared = event.get("entityType")
    if isinstance(declared, str) and declared.strip():
        return declared.strip()
    urn = str(event.get("entityUrn") or "")
    return urn[len(URN_PREFIX):].partition(":")[0] if urn.startswith(URN_PREFIX) else ""


def _unmodelled(event: dict) -> bool:
    kind = _entity_type(event)
    return bool(kind) and kind not in MODELLED_ENTITY_TYPES and kind.lower() not in {"corpuser", "corpgroup"}


def _entity_kind(event: dict) -> str:
    return f"entityType:{_entity_type(event)}"


def _foreign_ece(inside: str | None) -> Foreign:
    """A change event (bare, in an actions envelope or a platform event) about an entity type we
    do not model: DataHub is one catalogue of many products' metadata."""
    return Foreign(
        Shape(envelope="foreign", inside=inside, present=("entityUrn", "category", "operation"), where=_unmodelled),
        _entity_kind,
    )


FOREIGN: tuple[Foreign, ...] = (_foreign_ece(None), _foreign_ece("event"), _foreign_ece("payload.value"))


# ---------------------------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------------------------


def _bare(doc: dict) -> dict:
    return doc


def _actions_event(doc: dict) -> dict:
    """datahub-actions' EventEnvelope: the ECE is its ``event`` object."""
    event = require(doc, "event")
    if not isinstance(event, dict):
        raise RecordError("expected an object", field="event")
    return event


def _platform_event_payload(doc: dict) -> dict | None:
    """A PlatformEvent: the ECE is its payload value (a JSON string); None for another name."""
    if doc.get("name") != ENTITY_CHANGE_EVENT_NAME:
        return None
    value = require(doc["payload"], "value", where="payload.")
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8")
    if isinstance(value, str):
        try:
            value = jsonscan.decode(value)
        except json.JSONDecodeError as exc:
            reason = f"invalid embedded JSON: {exc.msg} at char {exc.pos}"
            raise RecordError(reason, field="payload.value") from None
    if not isinstance(value, dict):
        raise RecordError("expected a JSON object", field="payload.value")
    return value


UNWRAP: dict[str, Callable[[dict], dict | None]] = {
    "ece": _bare,
    "actions-envelope": _actions_event,
    "platform-event": _platform_event_payload,
}
"""Envelope -> the bare ECE inside it (None: a platform event that is not an ECE)."""


def _unwrap(doc: dict, envelope: str) -> dict | None:
    if envelope not in UNWRAP:
        raise ValueError(f"unknown {NAME} envelope {envelope!r}")
    return UNWRAP[envelope](doc)


def _kind(event: dict) -> str:
    category = str(require(event, "category")).strip().upper()
    operation = str(require(event, "operation")).strip().upper()
    return f"{category}:{operation}"


def _is_action_request(event: dict) -> bool:
    entity_type = str(event.get("entityType") or "").strip()
    urn = str(event.get("entityUrn") or "").strip()
    return entity_type.lower() == ACTION_REQUEST_ENTITY_TYPE.lower() or urn.startswith(
        f"{URN_PREFIX}{ACTION_REQUEST_ENTITY_TYPE}:"
    )


def _check_subject(model: EntityChangeEvent) -> None:
    """A known change must name what it applies (tag, term, owner, field, ...)."""
    if not model.subject_fields:
        return
    if not any(lookup(model, attr) not in (None, "") for attr, _ in model.subject_fields):
        wire = " or ".join(wire for _, wire in model.subject_fields)
        raise RecordError(f"required field is missing ({wire})", field=model.subject_fields[0][1])


def _check_action_request(model: ActionRequestEvent) -> None:
    """A proposal must say what kind it is and name what it proposes."""
    params = model.parameters
    if params is None or not params.action_request_type:
        raise RecordError("required field is missing", field="parameters.actionRequestType")
    for wire in ACTION_REQUEST_REQUIRED.get(params.action_request_type.strip().upper(), ()):
        if getattr(params, _ATTR_BY_ALIAS[wire]) in (None, "", []):
            raise RecordError(
                f"required for a {params.action_request_type} proposal", field=f"parameters.{wire}"
            )


_ATTR_BY_ALIAS: dict[str, str] = {
    (info.alias or name): name for name, info in ActionRequestParameters.model_fields.items()
}


def parse(doc: dict, envelope: str) -> ParsedEvent:
    """Validate one DataHub record; unknown category/operation pairs come back ``known=False``."""
    event = _unwrap(doc, envelope)
    if event is None:  # a platform event of another name
        platform_event = PlatformEvent.model_validate(doc)
        header = platform_event.header
        return ParsedEvent(
            source=NAME,
            kind=f"PlatformEvent:{platform_event.name}",
            envelope=envelope,
            model=platform_event,
            event_time=header.timestamp_millis if header else None,
            known=False,
        )
    kind = _kind(event)
    model_cls = MODELS.get(kind)
    if model_cls is None:
        unknown = UnknownEntityChangeEvent.model_validate(event)
        stamp = unknown.audit_stamp if isinstance(unknown.audit_stamp, dict) else {}
        try:
            event_time = epoch_millis(stamp.get("time"))
        except ValueError:
            event_time = None
        actor = stamp.get("actor")
        return ParsedEvent(
            source=NAME,
            kind=kind,
            envelope=envelope,
            model=unknown,
            event_time=event_time,
            actor=str(actor) if actor is not None else None,
            known=False,
        )
    if kind == "LIFECYCLE:CREATE" and _is_action_request(event):
        model_cls = ActionRequestEvent
    model = cast(EntityChangeEvent, model_cls.model_validate(event))
    if isinstance(model, ActionRequestEvent):
        _check_action_request(model)
    else:
        _check_subject(model)
    return ParsedEvent(
        source=NAME,
        kind=kind,
        envelope=envelope,
        model=model,
        event_id=None,
        event_time=model.audit_stamp.time,
        actor=model.audit_stamp.actor,
        known=True,
    )


SOURCE = Source(name=NAME, shapes=SHAPES, models=MODELS, parse=parse, mapping="lineage.facts.datahub", foreign=FOREIGN)
