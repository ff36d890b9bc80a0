"""DataWorks events (seeds 000, English, and 001, the same page in Chinese).

Kinds are the event codes of the document ("Event code in Extensions"), including the Data
Integration, instance and Data Quality pre-events only the Chinese page lists. Records arrive in
three envelopes (see ``envelopes``): EventBridge CloudEvents (kind from ``type`` via
:data:`EVENT_TYPES`, else ``data.eventCode``), Function Compute extension messages (kind from
``eventType`` / ``messageBody.eventCode``) and the document's bare ``{"data": ...}`` bodies (kind
from ``data.eventCode``; with none the record is generic activity of kind ``unknown``).
Event ids: a CloudEvent's ``id`` scoped by its ``type`` (``<type>:<id>``), an FC ``messageId``;
bare bodies have none (the pipeline hashes them). Event time: the CloudEvent ``time``, else the
body's own time field (``modifyTime``, ``operationTime``, ...), else ``aliyunpublishtime``.

Each event family has a body model (``NodeChange``, ``ApprovalChangeFinished``, ...) and an
event model wrapping it (``NodeChangeEvent``: envelope fields + ``data``); :data:`MODELS` maps
each kind to its event model. Modules: ``studio`` (DataStudio, Data Integration), ``operations``
(Operation Center), ``security`` (Security Center), ``quality`` (Data Quality), ``console``
(tenant-level: workspace deletion, download/upload).
"""

from __future__ import annotations

from lineage.events.dataworks.common import DataWorksBody, DataWorksEvent, UnknownBody, UnknownDataWorksEvent
from lineage.events.dataworks.envelopes import ENVELOPES, NAME, SHAPES, SOURCE, UNKNOWN_KIND, parse, parse_body
from lineage.events.dataworks.kinds import BODY_EVENT_TYPES, EVENT_TYPES, KINDS, MODELS

__all__ = [
    "BODY_EVENT_TYPES",
    "DataWorksBody",
    "DataWorksEvent",
    "ENVELOPES",
    "EVENT_TYPES",
    "KINDS",
    "MODELS",
    "NAME",
    "SHAPES",
    "SOURCE",
    "UNKNOWN_KIND",
    "UnknownBody",
    "UnknownDataWorksEvent",
    "parse",
    "parse_body",
]
