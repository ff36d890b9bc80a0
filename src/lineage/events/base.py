"""The contract every event source implements, and the lenient field types they share.

A source is one :class:`Source` value, defined in its module (``lineage.events.<source>``) and
listed once in ``lineage.events.registry.SOURCES``; nothing else names the sources. It holds:

* ``name``: the source's name (``dataworks``, the ``source`` column of every dataset);
* ``shapes``: its envelope signatures as a table of :class:`Shape` rows (what a record of each
  envelope looks like); ``detect`` is the same for every source: the first row that matches;
* ``models``: every event kind the seed document defines (event code / eventName / ...) -> model;
* ``parse(doc, envelope) -> ParsedEvent``: validate; raise ``RecordError`` (or let pydantic's
  ``ValidationError`` through) when a record of a *known* kind cannot be understood. Records of
  a kind not in ``models`` are returned with ``known=False`` (generic activity), never rejected;
* ``mapping``: its event -> fact table (a :class:`FactTable`), named by module so that events
  never import facts (data flows one way);
* ``foreign``: :class:`Foreign` rows, the records that reach this source's deliveries but are
  recognisably another product's (an ActionTrail event of another cloud service): counted as
  *foreign* and skipped, never quarantined.

Delivery wrappers (Log Service exports, API responses, Kafka/MNS/EventBridge messages) are not
a source's concern: ``lineage.events.deliveries`` peels them before the sources see a record.

Real event data is messy: masked ids (``"19***735"``) where the document says Long, epoch
millis beside ``yyyy-MM-dd HH:mm:ss``, lists that are sometimes comma strings. The annotated
types below accept all of those so the models can say what a field *means* without failing on
how it happened to be written.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated, Any, Callable, Mapping, Protocol

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, PlainSerializer

from lineage.events.times import (  # noqa: F401 (also read from here by the events' modules)
    EARLIEST, LATEST, PLAUSIBLE_AHEAD, PLAUSIBLE_SINCE, date_in_range, epoch_number, from_epoch, implausible,
    lenient_time, parse_time,
)
from lineage.io import jsonscan


class RecordError(ValueError):
    """A record that cannot be understood; ``field`` names the offending field for the quarantine."""

    def __init__(self, reason: str, field: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.field = field

    def __str__(self) -> str:
        return f"{self.field}: {self.reason}" if self.field else self.reason


class EventModel(BaseModel):
    """Base of every event model: wire names as aliases, unknown extra fields kept, not rejected."""

    model_config = ConfigDict(populate_by_name=True, extra="allow", coerce_numbers_to_str=True)


@dataclass(frozen=True)
class ParsedEvent:
    """One understood record. ``event_id`` None means the source has none; the pipeline hashes."""

    source: str
    kind: str
    envelope: str
    model: BaseModel
    event_id: str | None = None
    event_time: datetime | None = None
    actor: str | None = None
    known: bool = True


# ---------------------------------------------------------------------------------------------
# lenient scalar coercions
# ---------------------------------------------------------------------------------------------

def to_id(value: Any) -> str | None:
    """Ids the document calls Long arrive as numbers, strings, or masked strings: keep as text."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"not an id: {value!r}")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, (dict, list)):
        raise ValueError(f"expected an id, got {type(value).__name__}")
    return str(value)


def to_list(value: Any) -> list[Any]:
    """Lists are sometimes JSON arrays, sometimes ``"a,b,c"``, sometimes a JSON array in a string."""
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                loaded = jsonscan.decode(text)
            except json.JSONDecodeError:
                loaded = None
            if isinstance(loaded, list):
                return loaded
        return [part.strip() for part in text.split(",") if part.strip()]
    return [value]


def to_id_list(value: Any) -> list[str]:
    return [item for item in (to_id(v) for v in to_list(value)) if item is not None]


def to_json_value(value: Any) -> Any:
    """A field that carries JSON either inline or as a JSON string (``"[{...}]"``)."""
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("{", "["):
            try:
                return jsonscan.decode(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"invalid embedded JSON: {exc.msg} at char {exc.pos}") from None
    return value


def decode_base64(value: Any) -> str | None:
    """Base64 text fields (Dataphin): decoded to UTF-8; text that is not base64 is kept as is."""
    if value is None or value == "":
        return None if value is None else ""
    if not isinstance(value, str):
        return str(value)
    text = value.strip()
    try:
        raw = base64.b64decode(text, validate=True)
        return raw.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return value


def to_bool(value: Any) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return bool(value)
    text = str(value).strip().lower()
    if text in {"true", "1", "yes", "y"}:
        return True
    if text in {"false", "0", "no", "n", ""}:
        return False
    raise ValueError(f"not a boolean: {value!r}")


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


Timestamp = Annotated[datetime | None, BeforeValidator(parse_time), PlainSerializer(_iso)]
"""A time the graph relies on: an unparseable value is a field error."""
LenientTime = Annotated[datetime | None, BeforeValidator(lenient_time), PlainSerializer(_iso)]
"""An informative time: a masked value becomes None instead of rejecting the record."""
Date = Annotated[date | None, AfterValidator(date_in_range)]
"""A calendar date; out of range is a field error, as for a Timestamp."""
Id = Annotated[str | None, BeforeValidator(to_id)]
IdList = Annotated[list[str], BeforeValidator(to_id_list)]
StrList = Annotated[list[Any], BeforeValidator(to_list)]
JsonValue = Annotated[Any, BeforeValidator(to_json_value)]
Base64Text = Annotated[str | None, BeforeValidator(decode_base64)]
Bool = Annotated[bool | None, BeforeValidator(to_bool)]


def require(doc: dict[str, Any], key: str, where: str = "") -> Any:
    """Fetch a required envelope field with an error naming it."""
    if key not in doc or doc[key] in (None, ""):
        raise RecordError("required field is missing", field=f"{where}{key}")
    return doc[key]


# ---------------------------------------------------------------------------------------------
# the source contract
# ---------------------------------------------------------------------------------------------

MISSING: Any = object()
"""What :func:`lookup` returns for an absent path when asked to tell absent from null."""


def lookup(obj: Any, path: str | tuple[str, ...], default: Any = None) -> Any:
    """The value at a dotted ``path`` (or a tuple of steps), ``default`` as soon as a step is missing.

    Steps go through JSON objects (dicts) by key (raw records) and through pydantic models by
    attribute (validated events: ``lookup(body, "process.applicant")``); anything else ends the
    path. Pass ``default=MISSING`` to tell an absent key from a present ``null``.
    """
    for step in path.split(".") if isinstance(path, str) else path:
        if isinstance(obj, dict):
            if step not in obj:
                return default
            obj = obj[step]
        elif isinstance(obj, BaseModel):
            obj = getattr(obj, step, default)
        else:
            return default
    return obj


def embedded_object(value: Any) -> dict[str, Any] | None:
    """An object, or an object sent as a JSON string (SLS flattening); else None."""
    if isinstance(value, str) and value.lstrip().startswith("{"):
        try:
            value = jsonscan.decode(value)
        except json.JSONDecodeError:
            return None
    return value if isinstance(value, dict) else None


def _steps(path: str) -> tuple[str, ...]:
    return tuple(path.split("."))


@dataclass(frozen=True, kw_only=True)
class Shape:
    """One row of a source's envelope table: what a record of ``envelope`` looks like.

    Every check is on the object at ``inside`` (the record itself when None; an object sent as a
    JSON string there is decoded) and paths are dotted (``header.timestampMillis``). All must
    hold: every ``present`` path is there (even if null), at least one ``any_of`` path is, no
    ``absent`` path is, each ``equals`` path holds that value, each ``tests`` predicate holds on
    its path's value (None when absent), and ``where`` (for a rule relating several fields, a
    named function) holds on the whole object.
    """

    envelope: str
    present: tuple[str, ...] = ()
    any_of: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    equals: tuple[tuple[str, Any], ...] = ()
    tests: tuple[tuple[str, Callable[[Any], bool]], ...] = ()
    where: Callable[[dict[str, Any]], bool] | None = None
    inside: str | None = None

    def __post_init__(self) -> None:
        # paths split once: detection runs for every record against every source's shapes
        split = object.__setattr__
        split(self, "_present", tuple(_steps(path) for path in self.present))
        split(self, "_any_of", tuple(_steps(path) for path in self.any_of))
        split(self, "_absent", tuple(_steps(path) for path in self.absent))
        split(self, "_equals", tuple((_steps(path), value) for path, value in self.equals))
        split(self, "_tests", tuple((_steps(path), test) for path, test in self.tests))
        split(self, "_inside", _steps(self.inside) if self.inside else None)

    def matches(self, doc: Any) -> bool:
        if not isinstance(doc, dict):
            return False
        if self._inside is not None:
            doc = embedded_object(lookup(doc, self._inside))
            if doc is None:
                return False
        for path in self._present:
            if lookup(doc, path, MISSING) is MISSING:
                return False
        if self._any_of and all(lookup(doc, path, MISSING) is MISSING for path in self._any_of):
            return False
        for path in self._absent:
            if lookup(doc, path, MISSING) is not MISSING:
                return False
        for path, value in self._equals:
            if lookup(doc, path, MISSING) != value:
                return False
        for path, test in self._tests:
            if not test(lookup(doc, path)):
                return False
        return self.where is None or self.where(doc)


@dataclass(frozen=True)
class Foreign:
    """A record recognisably another product's: ``shape`` recognises it, ``kind`` names what it
    is (``service:Ecs``) from the object at ``shape.inside`` (the record itself when None)."""

    shape: Shape
    kind: Callable[[dict[str, Any]], str]

    def kind_of(self, doc: Any) -> str | None:
        """The foreign kind of ``doc``, or None when this row does not recognise it."""
        if not self.shape.matches(doc):
            return None
        inner = doc if self.shape.inside is None else embedded_object(lookup(doc, self.shape.inside))
        return self.kind(inner or {})


class FactTable(Protocol):
    """A source's event -> fact table (``lineage.facts.<source>``): read by ``lineage.facts``.

    ``MAPPING``: kind -> rows (``lineage.facts.core.Emit``); ``IGNORED`` (optional): kind -> why
    it yields no facts; ``failed(event)``: the operation failed (its facts change nothing);
    ``actor_id(event)``: the canonical id of who acted.
    """

    MAPPING: Mapping[str, tuple[Any, ...]]

    def failed(self, event: ParsedEvent) -> bool: ...

    def actor_id(self, event: ParsedEvent) -> str | None: ...


@dataclass(frozen=True, eq=False)
class Source:
    """One event source: how to recognise its records, their models, how to parse them, and
    which fact table maps them. Adding a source is one module defining one of these and one
    line in ``lineage.events.registry.SOURCES``."""

    name: str
    shapes: tuple[Shape, ...]
    models: Mapping[str, type[BaseModel]]
    parse: Callable[[dict[str, Any], str], ParsedEvent]
    mapping: str | FactTable
    """The module holding the fact table (``"lineage.facts.dataworks"``), imported by facts on
    first use; or the table itself (a source defined at run time, e.g. in a test)."""
    foreign: tuple[Foreign, ...] = ()
    """What is recognisably another product's (see :class:`Foreign`); checked before ``shapes``."""
    script: str | None = None
    """JSON path (Spark's ``get_json_object``) of the SQL text in a stored record, if its events carry
    scripts: the build extracts events of one text together, so each text is parsed once per build."""

    @property
    def kinds(self) -> frozenset[str]:
        """Every event kind the source's document defines (the keys of ``models``)."""
        return frozenset(self.models)

    @property
    def envelopes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(shape.envelope for shape in self.shapes))

    def foreign_kind(self, doc: Any) -> str | None:
        """The foreign kind of ``doc`` when a ``foreign`` row recognises it, else None."""
        return next((kind for row in self.foreign if (kind := row.kind_of(doc)) is not None), None)

    def detect(self, doc: Any) -> str | None:
        """The envelope of the first shape ``doc`` matches, else None (not this source's record)."""
        return next((shape.envelope for shape in self.shapes if shape.matches(doc)), None)
