"""DataHub Entity Change Event v1 (``EntityChangeEvent_v1``): models, envelope detection, URNs.

Modules: ``urns`` (URN parsing), ``models`` (one model per category), ``envelopes`` (the
envelope table, parsing, and :data:`SOURCE`).

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

from lineage.events.datahub.envelopes import (
    ENTITY_CHANGE_EVENT_NAME,
    ENTITY_CHANGE_EVENT_TYPE,
    NAME,
    SHAPES,
    SOURCE,
    parse,
)
from lineage.events.datahub.models import (
    ACTION_REQUEST_REQUIRED,
    KINDS,
    MODELS,
    ActionRequestEvent,
    ActionRequestParameters,
    AuditStamp,
    DeprecationChangeEvent,
    DomainChangeEvent,
    EntityChangeEvent,
    GlossaryTermChangeEvent,
    LifecycleChangeEvent,
    OwnerChangeEvent,
    PlatformEvent,
    StructuredPropertyChangeEvent,
    TagChangeEvent,
    TechnicalSchemaChangeEvent,
    UnknownEntityChangeEvent,
)
from lineage.events.datahub.urns import DataHubUrn, parse_urn

__all__ = [
    "ACTION_REQUEST_REQUIRED",
    "ENTITY_CHANGE_EVENT_NAME",
    "ENTITY_CHANGE_EVENT_TYPE",
    "KINDS",
    "MODELS",
    "NAME",
    "SHAPES",
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
    "parse",
    "parse_urn",
]
