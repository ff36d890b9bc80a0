"""Delivery wrappers: what carries the sources' records, peeled in one place before detection.

A record seldom arrives bare. Log Service exports put it in ``contents`` (its fields often JSON
strings); an API response lists events under ``Events``/``Items``/``data``; Kafka, EventBridge,
MNS and Function Compute carry it as a payload that is an object, a JSON string or base64; a
DataHub event read from Kafka is Avro JSON (``{"string": "x"}`` for a union value).
:data:`WRAPPERS` is the one table of those shapes and :func:`open_record` the one place they are
peeled: a record is offered to the sources first (their own envelopes win), then to the
wrappers, recursively, so every source sees only what it defines. Each result keeps its wrapper
path (``log-service:contents/api:Events[2]``) beside its file and line.

Classification of one object, in order: a record a source claims but also declares another
product's (a DataHub change about an entity type we do not model) is *foreign*; a claimed
record is a record; a wrapper is opened; a record only a ``foreign`` row recognises is foreign
(also a wrapper whose contents nobody recognises, e.g. another product's EventBridge event);
anything else is unrecognised (quarantined).
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
from dataclasses import dataclass, replace
from typing import Any, Callable

from lineage.events import registry
from lineage.events.base import RecordError, Shape, Source, embedded_object
from lineage.io import jsonscan

MAX_DEPTH = 8
"""Wrappers nest (Log Service export of a Kafka message of an EventBridge event): a bound."""

LOG_SERVICE_KEYS = ("__topic__", "__source__", "__time__")
"""Log Service keys kept beside the decoded ``contents`` (sources read ``__time__``)."""
LIST_KEYS = ("Events", "Items", "data")
"""Keys under which an API response lists its events."""
PAGING_KEYS = frozenset({
    "RequestId", "requestId", "NextToken", "nextToken", "MaxResults", "maxResults", "TotalCount", "totalCount",
    "PageNumber", "pageNumber", "PageSize", "pageSize", "StartTime", "EndTime", "Success", "success", "Code",
    "code", "Message", "message", "HttpStatusCode", "Total", "total",
})
"""The other keys an API response may hold beside its list (ignored)."""
AVRO_TYPES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string", "array", "map"})
"""Avro primitive/complex type names: a one-key object named so is an Avro-JSON union value."""


@dataclass(frozen=True)
class Opened:
    """One object out of a delivery and what it is: a source's record (``source``, ``envelope``),
    another product's (``foreign``: its kind, ``source``: who declared it), or ``error``."""

    doc: Any
    path: str = ""
    source: Source | None = None
    envelope: str | None = None
    foreign: str | None = None
    error: str | None = None
    unrecognised: bool = False


# ---------------------------------------------------------------------------------------------
# payload decoding and openers: each returns (step, inner value) pairs
# ---------------------------------------------------------------------------------------------


def decode_payload(value: Any, field: str) -> tuple[str, Any]:
    """(how it was encoded, the value): an object or array as is, a JSON string, or base64 of
    JSON (optionally gzip-compressed). Anything else is an error naming ``field``."""
    if isinstance(value, (dict, list)):
        return "", value
    if not isinstance(value, str):
        raise RecordError(f"expected a JSON payload, got {type(value).__name__}", field=field)
    text = value.strip()
    if text[:1] in ("{", "["):
        try:
            return "", jsonscan.decode(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"invalid embedded JSON: {exc.msg} at char {exc.pos}", field=field) from None
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise RecordError("payload is neither JSON nor base64", field=field) from None
    encoding = "base64"
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as exc:
            raise RecordError(f"base64 payload is corrupt gzip ({exc})", field=field) from None
        encoding = "base64+gzip"
    try:
        return encoding, jsonscan.decode(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise RecordError(f"{encoding} payload is not JSON", field=field) from None


def _payload(*keys: str) -> Callable[[dict[str, Any]], list[tuple[str, Any]]]:
    """Open the first of ``keys`` present; a payload that is a JSON array gives one per element."""

    def open_payload(doc: dict[str, Any]) -> list[tuple[str, Any]]:
        key = next(k for k in keys if k in doc)
        encoding, value = decode_payload(doc[key], key)
        step = f"{key}({encoding})" if encoding else key
        if isinstance(value, list):
            return [(f"{step}[{index}]", item) for index, item in enumerate(value)]
        return [(step, value)]

    return open_payload


def _decoded_field(value: Any) -> Any:
    """A Log Service field: JSON text of an object or array decoded; other text kept as is."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return jsonscan.decode(value)
        except json.JSONDecodeError:
            return value
    return value


def _log_service(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    contents = embedded_object(doc["contents"])
    if contents is None:
        raise RecordError("expected an object (or an object as a JSON string)", field="contents")
    record = {key: doc[key] for key in LOG_SERVICE_KEYS if key in doc}
    record.update({key: _decoded_field(value) for key, value in contents.items()})
    return [("contents", record)]


def _api_list_key(doc: dict[str, Any]) -> str | None:
    listed = [key for key in LIST_KEYS if isinstance(doc.get(key), list)]
    if len(listed) != 1 or any(key not in PAGING_KEYS for key in doc if key != listed[0]):
        return None
    return listed[0]


def _api_response(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    key = _api_list_key(doc)
    return [(f"{key}[{index}]", item) for index, item in enumerate(doc[key])]


def _avro_name(key: str) -> bool:
    return key in AVRO_TYPES or key.startswith("com.linkedin.")


def _has_avro_union(value: Any) -> bool:
    """Whether any object inside ``value`` is an Avro union; a loop, not recursion: it walks every
    record whole, and nested generators made it a tenth of an ActionTrail file's parse time."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if len(item) == 1 and _avro_name(next(iter(item))):
                return True
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def strip_avro_unions(value: Any) -> Any:
    """``{"string": "x"}`` -> ``"x"``, ``{"com.linkedin...AuditStamp": {...}}`` -> ``{...}``, everywhere."""
    if isinstance(value, dict):
        if len(value) == 1 and _avro_name(key := next(iter(value))):
            return strip_avro_unions(value[key])
        return {key: strip_avro_unions(item) for key, item in value.items()}
    if isinstance(value, list):
        return [strip_avro_unions(item) for item in value]
    return value


def _avro_json(doc: dict[str, Any]) -> list[tuple[str, Any]]:
    return [("unions", strip_avro_unions(doc))]


# ---------------------------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------------------------


def _is_object_or_json(value: Any) -> bool:
    return embedded_object(value) is not None


@dataclass(frozen=True)
class Wrapper:
    """One delivery wrapper: what it looks like and how to take out what it carries."""

    name: str
    shape: Shape
    open: Callable[[dict[str, Any]], list[tuple[str, Any]]]
    note: str = ""
    first: bool = False
    """Opened before the sources look: an encoding of the record itself, not a carrier."""


WRAPPERS: tuple[Wrapper, ...] = (
    Wrapper("log-service", Shape(envelope="log-service", present=("contents",), any_of=LOG_SERVICE_KEYS,
                                 tests=(("contents", _is_object_or_json),)),
            _log_service, "Log Service export: `contents` (JSON-string fields decoded) beside `__time__`"),
    Wrapper("api", Shape(envelope="api", any_of=LIST_KEYS, where=lambda doc: _api_list_key(doc) is not None),
            _api_response, "API response listing events (`Events`, `Items`, `data`); paging fields ignored"),
    Wrapper("kafka", Shape(envelope="kafka", present=("topic", "partition", "offset", "value")),
            _payload("value"), "Kafka record (FC trigger, EventBridge source): `value`"),
    Wrapper("mns-topic", Shape(envelope="mns-topic", present=("TopicName", "MessageId", "Message")),
            _payload("Message"), "MNS topic notification (JSON format): `Message`"),
    Wrapper("mns-queue", Shape(envelope="mns-queue", present=("messageId", "messageBody"), absent=("eventType",)),
            _payload("messageBody"), "MNS queue message (EventBridge source): `messageBody`"),
    Wrapper("eventbridge", Shape(envelope="eventbridge", present=("specversion", "source", "type"),
                                 any_of=("data", "data_base64")),
            _payload("data", "data_base64"), "EventBridge CloudEvent of another source: `data` / `data_base64`"),
    Wrapper("fc-http", Shape(envelope="fc-http", present=("body", "isBase64Encoded")),
            _payload("body"), "Function Compute HTTP trigger event: `body`"),
    Wrapper("fc-destination", Shape(envelope="fc-destination", present=("requestContext", "requestPayload")),
            _payload("requestPayload"), "Function Compute async-invocation destination: `requestPayload`"),
    Wrapper("fc-timer", Shape(envelope="fc-timer", present=("triggerName", "payload")),
            _payload("payload"), "Function Compute timer trigger: `payload`"),
    Wrapper("avro-json", Shape(envelope="avro-json", where=_has_avro_union),
            _avro_json, "Avro JSON encoding (DataHub from Kafka): union values `{\"string\": \"x\"}` unwrapped",
            first=True),
)
"""Every delivery wrapper, in order (first match wins); ``first`` rows before the sources look,
the others after no source claimed the object."""
_FIRST = tuple(w for w in WRAPPERS if w.first)
_AFTER = tuple(w for w in WRAPPERS if not w.first)


# ---------------------------------------------------------------------------------------------
# opening
# ---------------------------------------------------------------------------------------------


def _join(path: str, step: str) -> str:
    return f"{path}/{step}" if path else step


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(value), "a number")


def open_record(doc: Any, path: str = "", depth: int = 0) -> list[Opened]:
    """Everything ``doc`` holds, each classified (see the module doc). Never raises."""
    if not isinstance(doc, dict):
        return [Opened(doc, path, error=f"expected a JSON object, got {_kind(doc)}")]
    for wrapper in _FIRST:
        if wrapper.shape.matches(doc):
            ((step, doc),) = wrapper.open(doc)
            path = _join(path, f"{wrapper.name}:{step}")
    found = registry.claims(doc)
    other = registry.foreign(doc)
    if other and found:
        return [Opened(doc, path, source=other[0], foreign=other[1])]
    if found:
        try:
            source, envelope = registry.detect(doc, found)
        except RecordError as exc:
            return [Opened(doc, path, error=str(exc))]
        return [Opened(doc, path, source=source, envelope=envelope)]
    wrapper = next((w for w in _AFTER if w.shape.matches(doc)), None) if depth < MAX_DEPTH else None
    if wrapper is not None:
        try:
            inner = wrapper.open(doc)
        except RecordError as exc:
            return [Opened(doc, path, error=f"{wrapper.name} delivery: {exc}")]
        results = [
            result
            for step, value in inner
            for result in open_record(value, _join(path, f"{wrapper.name}:{step}"), depth + 1)
        ]
        if other and results and all(result.unrecognised for result in results):
            return [Opened(doc, path, source=other[0], foreign=other[1])]
        return results
    if other:
        return [Opened(doc, path, source=other[0], foreign=other[1])]
    try:
        registry.detect(doc, found)
    except RecordError as exc:
        return [Opened(doc, path, error=str(exc), unrecognised=True)]
    raise AssertionError("unreachable: detect succeeded on a record with no claims")  # pragma: no cover


def described_reason(reason: str, path: str) -> str:
    """A quarantine reason naming the wrapper path the record was found at."""
    return f"{reason} (delivered in {path})" if path else reason


def described(opened: Opened) -> Opened:
    """``opened`` with its error naming the wrapper path it was found at."""
    if opened.error and opened.path:
        return replace(opened, error=described_reason(opened.error, opened.path))
    return opened
