"""DataHub Entity Change Event v1 (``EntityChangeEvent_v1``): models, envelope detection, URNs.

One record = one semantic change to one entity: ``entityUrn`` + ``category`` + ``operation``
(the kind is ``"<CATEGORY>:<OPERATION>"``, e.g. ``TAG:ADD``), an optional ``modifier`` (usually
the urn of the tag/term/owner/... applied) and category-specific ``parameters``.

Envelopes:

* ``ece`` -- the bare event object, as the documentation samples show it;
* ``platform-event`` -- DataHub's ``PlatformEvent`` (topic ``PlatformEvent_v1``):
  ``{"header": {"timestampMillis"}, "name": "entityChangeEvent", "payload": {"value": "<ECE as a
  JSON string>", "contentType": "application/json"}}`` (``mxe/PlatformEvent.pdl``,
  ``GenericPayload.pdl``). Platform events of another ``name`` are DataHub records we do not
  model: they come back ``known=False``;
* ``actions-envelope`` -- the JSON form of datahub-actions' ``EventEnvelope``:
  ``{"event_type": "EntityChangeEvent_v1", "event": {...}, "meta": {...}}``.

ECE v1 carries no event id (``event_id`` is None: the pipeline hashes the content);
``event_time`` is ``auditStamp.time`` -- always epoch *milliseconds* per the document, so small
values such as the samples' ``1234567890`` are 1970-01-15, not 2009 seconds; ``actor`` is
``auditStamp.actor`` (a ``urn:li:corpuser:...`` urn).

Proposals (action requests) are ``LIFECYCLE:CREATE`` events whose ``entityType`` is
``actionRequest``: same kind as an entity creation, refined to ``ActionRequestEvent`` (a subclass
of ``LifecycleChangeEvent``) with the proposal's parameters.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any, ClassVar, Literal, cast

from pydantic import AfterValidator, BeforeValidator, Field, PlainSerializer, field_validator

from lineage.events.base import (
    Bool,
    EventModel,
    JsonValue,
    ParsedEvent,
    RecordError,
    parse_time,
    require,
    to_json_value,
)

SOURCE = "datahub"

ENTITY_CHANGE_EVENT_NAME = "entityChangeEvent"
"""``PlatformEvent.name`` of an entity change event."""
ENTITY_CHANGE_EVENT_TYPE = "EntityChangeEvent_v1"
"""``EventEnvelope.event_type`` of an entity change event (datahub-actions)."""
ACTION_REQUEST_ENTITY_TYPE = "actionRequest"


# ---------------------------------------------------------------------------------------------
# URNs
# ---------------------------------------------------------------------------------------------

_URN_PREFIX = "urn:li:"
_ENTITY_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class _Layout:
    """How a tuple key's components map to named slots; ``greedy`` absorbs extra commas."""

    slots: tuple[str, ...]
    greedy: int
    parent_type: str | None = None


# Slot names: platform (a dataPlatform urn or a bare platform name), name, env, parent (a nested
# urn), field_path. Types not listed here have a simple key (``urn:li:tag:PII``).
_LAYOUTS: dict[str, _Layout] = {
    "dataset": _Layout(("platform", "name", "env"), 1),
    "mlModel": _Layout(("platform", "name", "env"), 1),
    "mlModelGroup": _Layout(("platform", "name", "env"), 1),
    "mlFeatureTable": _Layout(("platform", "name"), 1),
    "dataFlow": _Layout(("platform", "name", "env"), 1),
    "dataJob": _Layout(("parent", "name"), 1, parent_type="dataFlow"),
    "schemaField": _Layout(("parent", "field_path"), 1),
    "chart": _Layout(("platform", "name"), 1),
    "dashboard": _Layout(("platform", "name"), 1),
    "dataPlatformInstance": _Layout(("platform", "name"), 1),
}


@dataclass(frozen=True)
class DataHubUrn:
    """A parsed DataHub URN. Nested urns (a field's dataset, a job's flow) are parsed too.

    ``name`` is the entity's own name: the dataset name, chart/dashboard/flow/job id, or the
    whole key of a simple urn (``PII`` for ``urn:li:tag:PII``). ``env`` is a dataset's fabric
    or a dataFlow's cluster. Percent-encoded characters (``%2C``) are kept as written.
    """

    raw: str
    entity_type: str
    key: str
    parts: tuple[str, ...]
    platform: str | None = None
    name: str | None = None
    env: str | None = None
    parent: DataHubUrn | None = None
    field_path: str | None = None

    def __str__(self) -> str:
        return self.raw


def _malformed(raw: str, why: str) -> ValueError:
    return ValueError(f"malformed DataHub URN {raw!r}: {why}")


def _split_tuple(key: str, raw: str) -> list[str]:
    """``(a,(b,c),d)`` -> ``["a", "(b,c)", "d"]``: split at commas outside nested parentheses."""
    parts: list[str] = []
    depth = 0
    start = 1
    for index, char in enumerate(key):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise _malformed(raw, f"unbalanced ')' at key position {index}")
            if depth == 0 and index != len(key) - 1:
                raise _malformed(raw, f"unexpected text after the closing ')': {key[index + 1:]!r}")
        elif char == "," and depth == 1:
            parts.append(key[start:index])
            start = index + 1
    if depth != 0:
        raise _malformed(raw, "unbalanced '(' (missing closing parenthesis)")
    parts.append(key[start:-1])
    for position, part in enumerate(parts):
        if not part.strip():
            raise _malformed(raw, f"empty tuple component #{position + 1}")
    return parts


def _platform_name(component: str, raw: str) -> str:
    """``urn:li:dataPlatform:snowflake`` or a bare ``looker`` -> the platform name."""
    if not component.startswith("urn:"):
        return component
    nested = parse_urn(component)
    if nested.entity_type != "dataPlatform":
        raise _malformed(raw, f"expected a dataPlatform urn, got {component!r}")
    return nested.key


def parse_urn(value: Any) -> DataHubUrn:
    """Parse ``urn:li:<entityType>:<key>``; a tuple key ``(a,b,...)`` may nest urns.

    Dataset/schemaField/dataJob/dataFlow/chart/dashboard keys get named slots; commas inside the
    name (more components than slots) stay in the name. Raises ValueError on anything malformed.
    The documentation's simple ``urn:li:dataset:abc`` is accepted (``name="abc"``, no platform).
    """
    if not isinstance(value, str):
        raise ValueError(f"DataHub URN must be a string, got {type(value).__name__}")
    raw = value.strip()
    if not raw.startswith(_URN_PREFIX):
        raise _malformed(raw, "expected 'urn:li:<entityType>:<key>'")
    entity_type, sep, key = raw[len(_URN_PREFIX):].partition(":")
    if not entity_type:
        raise _malformed(raw, "missing entity type")
    if not sep:
        raise _malformed(raw, "missing ':<key>' after the entity type")
    if not _ENTITY_TYPE.match(entity_type):
        raise _malformed(raw, f"invalid entity type {entity_type!r}")
    if not key.strip():
        raise _malformed(raw, "empty key")
    layout = _LAYOUTS.get(entity_type)
    if not key.startswith("("):
        if key.count("(") != key.count(")"):
            raise _malformed(raw, "unbalanced parentheses in key")
        if layout is not None and "parent" in layout.slots:
            expected = ",".join(f"<{slot}>" for slot in layout.slots)
            raise _malformed(raw, f"a {entity_type} urn needs a tuple key ({expected})")
        return DataHubUrn(raw=raw, entity_type=entity_type, key=key, parts=(key,), name=key)
    parts = _split_tuple(key, raw)
    if layout is None:
        return DataHubUrn(raw=raw, entity_type=entity_type, key=key, parts=tuple(parts), name=key)
    if len(parts) < len(layout.slots):
        expected = ",".join(f"<{slot}>" for slot in layout.slots)
        raise _malformed(
            raw, f"a {entity_type} urn needs {len(layout.slots)} components ({expected}), got {len(parts)}"
        )
    extra = len(parts) - len(layout.slots)
    grouped = (
        parts[: layout.greedy]
        + [",".join(parts[layout.greedy : layout.greedy + extra + 1])]
        + parts[layout.greedy + extra + 1 :]
    )
    slots = dict(zip(layout.slots, grouped))
    parent = None
    if "parent" in slots:
        parent = parse_urn(slots["parent"])
        if layout.parent_type and parent.entity_type != layout.parent_type:
            raise _malformed(raw, f"expected a {layout.parent_type} urn as parent, got {slots['parent']!r}")
    return DataHubUrn(
        raw=raw,
        entity_type=entity_type,
        key=key,
        parts=tuple(parts),
        platform=_platform_name(slots["platform"], raw) if "platform" in slots else None,
        name=slots.get("name"),
        env=slots.get("env"),
        parent=parent,
        field_path=slots.get("field_path"),
    )


def _check_urn(value: str | None) -> str | None:
    if value is not None:
        parse_urn(value)
    return value


def _strip(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


# ---------------------------------------------------------------------------------------------
# lenient field types of this source
# ---------------------------------------------------------------------------------------------

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _epoch_millis(value: Any) -> datetime | None:
    """DataHub times are epoch *milliseconds* whatever their size; ISO text is accepted too."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError(f"not a time: {value!r}")
    if isinstance(value, int) or (isinstance(value, str) and value.strip().lstrip("-").isdigit()):
        return _EPOCH + timedelta(milliseconds=int(value))
    if isinstance(value, float):
        return _EPOCH + timedelta(milliseconds=value)
    return parse_time(value)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _json_list(value: Any) -> list[Any]:
    """A list given inline or as a JSON string (``"[\\"value1\\"]"``); a scalar is a 1-list."""
    value = to_json_value(value)
    if value is None or value == "":
        return []
    return value if isinstance(value, list) else [value]


EpochMillis = Annotated[datetime, BeforeValidator(_epoch_millis), PlainSerializer(_iso)]
"""A required DataHub time (``auditStamp.time``): epoch millis."""
OptEpochMillis = Annotated[datetime | None, BeforeValidator(_epoch_millis), PlainSerializer(_iso)]
Urn = Annotated[str, BeforeValidator(_strip), AfterValidator(_check_urn)]
"""A string that must parse as a DataHub URN (see ``parse_urn``)."""
OptUrn = Annotated[str | None, BeforeValidator(_strip), AfterValidator(_check_urn)]
UrnList = Annotated[list[Urn], BeforeValidator(_json_list)]
JsonList = Annotated[list[Any], BeforeValidator(_json_list)]


# ---------------------------------------------------------------------------------------------
# common fields
# ---------------------------------------------------------------------------------------------


class AuditStamp(EventModel):
    """Who made the change and when (epoch millis)."""

    actor: str | None = None
    time: EpochMillis
    impersonator: str | None = None
    message: str | None = None


class EntityChangeEvent(EventModel):
    """Shared fields of every Entity Change Event: which entity changed, how, by whom, when."""

    # (attribute path, wire path) pairs of which at least one must be set: the thing the change is
    # about (the tag added, the owner removed, ...); checked by ``parse`` with a precise field name.
    subject_fields: ClassVar[tuple[tuple[str, str], ...]] = ()

    entity_urn: Urn = Field(alias="entityUrn")
    entity_type: str | None = Field(default=None, alias="entityType")
    category: str
    operation: str
    modifier: str | None = None
    parameters: Annotated[dict[str, Any] | None, BeforeValidator(to_json_value)] = None
    audit_stamp: AuditStamp = Field(alias="auditStamp")
    version: int | None = None

    @field_validator("category", "operation", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        """Category/operation are enum names; tolerate case and padding."""
        return value.strip().upper() if isinstance(value, str) else value


_Params = BeforeValidator(to_json_value)
"""``parameters`` sometimes arrive as a JSON string: decode before validating."""


# ---------------------------------------------------------------------------------------------
# per-category parameters and events
# ---------------------------------------------------------------------------------------------


class TagParameters(EventModel):
    """Parameters of a TAG change: the tag applied or removed."""

    tag_urn: OptUrn = Field(default=None, alias="tagUrn")


class TagChangeEvent(EntityChangeEvent):
    """A tag was added to (ADD) or removed from (REMOVE) the entity; modifier = the tag urn."""

    subject_fields: ClassVar = (("parameters.tag_urn", "parameters.tagUrn"), ("modifier", "modifier"))

    category: Literal["TAG"]
    operation: Literal["ADD", "REMOVE"]
    parameters: Annotated[TagParameters | None, _Params] = None


class GlossaryTermParameters(EventModel):
    """Parameters of a GLOSSARY_TERM change: the term applied or removed."""

    term_urn: OptUrn = Field(default=None, alias="termUrn")


class GlossaryTermChangeEvent(EntityChangeEvent):
    """A glossary term was added to (ADD) or removed from (REMOVE) the entity; modifier = term urn."""

    subject_fields: ClassVar = (("parameters.term_urn", "parameters.termUrn"), ("modifier", "modifier"))

    category: Literal["GLOSSARY_TERM"]
    operation: Literal["ADD", "REMOVE"]
    parameters: Annotated[GlossaryTermParameters | None, _Params] = None


class DomainParameters(EventModel):
    """Parameters of a DOMAIN change: the domain set or unset."""

    domain_urn: OptUrn = Field(default=None, alias="domainUrn")


class DomainChangeEvent(EntityChangeEvent):
    """The entity was put into (ADD) or taken out of (REMOVE) a domain; modifier = domain urn."""

    subject_fields: ClassVar = (("parameters.domain_urn", "parameters.domainUrn"), ("modifier", "modifier"))

    category: Literal["DOMAIN"]
    operation: Literal["ADD", "REMOVE"]
    parameters: Annotated[DomainParameters | None, _Params] = None


class OwnerParameters(EventModel):
    """Parameters of an OWNER change: the owner (corpuser/corpGroup urn) and ownership type."""

    owner_urn: OptUrn = Field(default=None, alias="ownerUrn")
    owner_type: str | None = Field(default=None, alias="ownerType")


class OwnerChangeEvent(EntityChangeEvent):
    """An owner was assigned to (ADD) or removed from (REMOVE) the entity; modifier = owner urn."""

    subject_fields: ClassVar = (("parameters.owner_urn", "parameters.ownerUrn"), ("modifier", "modifier"))

    category: Literal["OWNER"]
    operation: Literal["ADD", "REMOVE"]
    parameters: Annotated[OwnerParameters | None, _Params] = None


class StructuredPropertyParameters(EventModel):
    """Parameters of a STRUCTURED_PROPERTY change: the property and its values (a JSON string)."""

    property_urn: OptUrn = Field(default=None, alias="propertyUrn")
    property_values: JsonList = Field(default_factory=list, alias="propertyValues")


class StructuredPropertyChangeEvent(EntityChangeEvent):
    """A structured property was set (ADD), removed (REMOVE) or had its values changed (MODIFY)."""

    subject_fields: ClassVar = (
        ("parameters.property_urn", "parameters.propertyUrn"),
        ("modifier", "modifier"),
    )

    category: Literal["STRUCTURED_PROPERTY"]
    operation: Literal["ADD", "REMOVE", "MODIFY"]
    parameters: Annotated[StructuredPropertyParameters | None, _Params] = None


class DeprecationParameters(EventModel):
    """Parameters of a DEPRECATION change: the new status (e.g. ``DEPRECATED``)."""

    status: str | None = None


class DeprecationChangeEvent(EntityChangeEvent):
    """The entity's deprecation status changed (MODIFY); modifier = the new status."""

    subject_fields: ClassVar = (("parameters.status", "parameters.status"), ("modifier", "modifier"))

    category: Literal["DEPRECATION"]
    operation: Literal["MODIFY"]
    parameters: Annotated[DeprecationParameters | None, _Params] = None


class SchemaFieldParameters(EventModel):
    """Parameters of a TECHNICAL_SCHEMA change: the schema field (urn and path) and nullability."""

    field_urn: OptUrn = Field(default=None, alias="fieldUrn")
    field_path: str | None = Field(default=None, alias="fieldPath")
    nullable: Bool = None


class TechnicalSchemaChangeEvent(EntityChangeEvent):
    """A field was added to (ADD) or removed from (REMOVE) a dataset schema; modifier = field urn."""

    subject_fields: ClassVar = (
        ("parameters.field_urn", "parameters.fieldUrn"),
        ("parameters.field_path", "parameters.fieldPath"),
        ("modifier", "modifier"),
    )

    category: Literal["TECHNICAL_SCHEMA"]
    operation: Literal["ADD", "REMOVE"]
    parameters: Annotated[SchemaFieldParameters | None, _Params] = None


class LifecycleChangeEvent(EntityChangeEvent):
    """The entity was created (CREATE), soft-deleted (SOFT_DELETE) or hard-deleted (HARD_DELETE)."""

    category: Literal["LIFECYCLE"]
    operation: Literal["CREATE", "SOFT_DELETE", "HARD_DELETE"]


class ProposedOwner(EventModel):
    """One owner in an OWNER_ASSOCIATION proposal."""

    type: str | None = None
    type_urn: OptUrn = Field(default=None, alias="typeUrn")
    owner_urn: Urn = Field(alias="ownerUrn")


class ProposedStructuredProperty(EventModel):
    """One property assignment in a STRUCTURED_PROPERTY_ASSOCIATION proposal."""

    property_urn: Urn = Field(alias="propertyUrn")
    values: JsonList = Field(default_factory=list)


class ActionRequestParameters(EventModel):
    """Parameters of a proposal: its type, the resource it targets and what is proposed."""

    action_request_type: str | None = Field(default=None, alias="actionRequestType")
    resource_urn: OptUrn = Field(default=None, alias="resourceUrn")
    resource_type: str | None = Field(default=None, alias="resourceType")
    domains: UrnList = Field(default_factory=list)
    owners: Annotated[list[ProposedOwner], BeforeValidator(_json_list)] = Field(default_factory=list)
    tag_urn: OptUrn = Field(default=None, alias="tagUrn")
    glossary_term_urn: OptUrn = Field(default=None, alias="glossaryTermUrn")
    parent_node_urn: OptUrn = Field(default=None, alias="parentNodeUrn")
    glossary_entity_name: str | None = Field(default=None, alias="glossaryEntityName")
    description: str | None = None
    structured_properties: Annotated[list[ProposedStructuredProperty], BeforeValidator(_json_list)] = Field(
        default_factory=list, alias="structuredProperties"
    )


class ActionRequestEvent(LifecycleChangeEvent):
    """A change was proposed (an action request was created) and may await approval."""

    operation: Literal["CREATE"]
    parameters: Annotated[ActionRequestParameters | None, _Params] = None


# What each proposal type must name (wire names under ``parameters``); other types need only
# ``actionRequestType``.
ACTION_REQUEST_REQUIRED: dict[str, tuple[str, ...]] = {
    "DOMAIN_ASSOCIATION": ("resourceUrn", "domains"),
    "OWNER_ASSOCIATION": ("resourceUrn", "owners"),
    "TAG_ASSOCIATION": ("resourceUrn", "tagUrn"),
    "TERM_ASSOCIATION": ("resourceUrn", "glossaryTermUrn"),
    "UPDATE_DESCRIPTION": ("resourceUrn",),
    "STRUCTURED_PROPERTY_ASSOCIATION": ("resourceUrn", "structuredProperties"),
    "CREATE_GLOSSARY_TERM": ("glossaryEntityName",),
}


class UnknownEntityChangeEvent(EventModel):
    """An entity change of a category/operation the document does not define (kept, not modelled)."""

    entity_urn: str | None = Field(default=None, alias="entityUrn")
    entity_type: str | None = Field(default=None, alias="entityType")
    category: str | None = None
    operation: str | None = None
    modifier: str | None = None
    parameters: JsonValue = None
    audit_stamp: JsonValue = Field(default=None, alias="auditStamp")
    version: Any = None


class PlatformEventHeader(EventModel):
    """Header of a DataHub PlatformEvent."""

    timestamp_millis: OptEpochMillis = Field(default=None, alias="timestampMillis")


class GenericPayload(EventModel):
    """A PlatformEvent payload: the serialized event and how it was serialized."""

    value: Any = None
    content_type: str | None = Field(default=None, alias="contentType")


class PlatformEvent(EventModel):
    """A DataHub PlatformEvent whose ``name`` is not an entity change (kept, not modelled)."""

    header: PlatformEventHeader | None = None
    name: str
    payload: GenericPayload | None = None


# ---------------------------------------------------------------------------------------------
# kinds
# ---------------------------------------------------------------------------------------------

_CATEGORY_MODELS: dict[str, type[EntityChangeEvent]] = {
    "TAG": TagChangeEvent,
    "GLOSSARY_TERM": GlossaryTermChangeEvent,
    "DOMAIN": DomainChangeEvent,
    "OWNER": OwnerChangeEvent,
    "STRUCTURED_PROPERTY": StructuredPropertyChangeEvent,
    "DEPRECATION": DeprecationChangeEvent,
    "TECHNICAL_SCHEMA": TechnicalSchemaChangeEvent,
    "LIFECYCLE": LifecycleChangeEvent,
}


def _operations(model: type[EntityChangeEvent]) -> tuple[str, ...]:
    return model.model_fields["operation"].annotation.__args__  # type: ignore[union-attr]


MODELS: dict[str, type[EventModel]] = {
    f"{category}:{operation}": model
    for category, model in _CATEGORY_MODELS.items()
    for operation in _operations(model)
}
"""Kind -> model. ``LIFECYCLE:CREATE`` of an ``actionRequest`` is refined to ``ActionRequestEvent``."""

KINDS: frozenset[str] = frozenset(MODELS)


# ---------------------------------------------------------------------------------------------
# detection
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Signature:
    """An envelope is recognised when every dotted path is present (and equals, if given)."""

    envelope: str
    paths: tuple[str, ...]
    equals: tuple[tuple[str, str], ...] = ()


_SIGNATURES: tuple[_Signature, ...] = (
    _Signature("actions-envelope", ("event_type", "event"), (("event_type", ENTITY_CHANGE_EVENT_TYPE),)),
    _Signature("platform-event", ("header.timestampMillis", "name", "payload.value")),
    _Signature("ece", ("entityUrn", "category", "operation")),
)

_MISSING = object()


def _get(doc: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(doc, dict) or key not in doc:
            return _MISSING
        doc = doc[key]
    return doc


def detect(doc: dict) -> str | None:
    """The envelope name when ``doc`` is a DataHub entity change record, else None."""
    if not isinstance(doc, dict):
        return None
    for signature in _SIGNATURES:
        if all(_get(doc, path) is not _MISSING for path in signature.paths) and all(
            _get(doc, path) == value for path, value in signature.equals
        ):
            return signature.envelope
    return None


# ---------------------------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------------------------


def _unwrap(doc: dict, envelope: str) -> dict | None:
    """The bare ECE inside an envelope; None for a platform event that is not an ECE."""
    if envelope == "ece":
        return doc
    if envelope == "actions-envelope":
        event = require(doc, "event")
        if not isinstance(event, dict):
            raise RecordError("expected an object", field="event")
        return event
    if envelope == "platform-event":
        if doc.get("name") != ENTITY_CHANGE_EVENT_NAME:
            return None
        value = require(doc["payload"], "value", where="payload.")
        if isinstance(value, (bytes, bytearray)):
            value = value.decode("utf-8")
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                reason = f"invalid embedded JSON: {exc.msg} at char {exc.pos}"
                raise RecordError(reason, field="payload.value") from None
        if not isinstance(value, dict):
            raise RecordError("expected a JSON object", field="payload.value")
        return value
    raise ValueError(f"unknown {SOURCE} envelope {envelope!r}")


def _kind(event: dict) -> str:
    category = str(require(event, "category")).strip().upper()
    operation = str(require(event, "operation")).strip().upper()
    return f"{category}:{operation}"


def _attr(model: Any, path: str) -> Any:
    for name in path.split("."):
        model = getattr(model, name, None)
        if model is None:
            return None
    return model


def _is_action_request(event: dict) -> bool:
    entity_type = str(event.get("entityType") or "").strip()
    urn = str(event.get("entityUrn") or "").strip()
    return entity_type.lower() == ACTION_REQUEST_ENTITY_TYPE.lower() or urn.startswith(
        f"{_URN_PREFIX}{ACTION_REQUEST_ENTITY_TYPE}:"
    )


def _check_subject(model: EntityChangeEvent) -> None:
    """A known change must name what it applies (tag, term, owner, field, ...)."""
    if not model.subject_fields:
        return
    if not any(_attr(model, attr) not in (None, "") for attr, _ in model.subject_fields):
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
            source=SOURCE,
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
            event_time = _epoch_millis(stamp.get("time"))
        except ValueError:
            event_time = None
        actor = stamp.get("actor")
        return ParsedEvent(
            source=SOURCE,
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
        source=SOURCE,
        kind=kind,
        envelope=envelope,
        model=model,
        event_id=None,
        event_time=model.audit_stamp.time,
        actor=model.audit_stamp.actor,
        known=True,
    )


__all__ = [
    "ACTION_REQUEST_REQUIRED",
    "KINDS",
    "MODELS",
    "SOURCE",
    "ActionRequestEvent",
    "ActionRequestParameters",
    "AuditStamp",
    "DataHubUrn",
    "DeprecationChangeEvent",
    "DomainChangeEvent",
    "EntityChangeEvent",
    "GlossaryTermChangeEvent",
    "LifecycleChangeEvent",
    "OwnerChangeEvent",
    "PlatformEvent",
    "StructuredPropertyChangeEvent",
    "TagChangeEvent",
    "TechnicalSchemaChangeEvent",
    "UnknownEntityChangeEvent",
    "detect",
    "parse",
    "parse_urn",
]
