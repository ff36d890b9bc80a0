"""The contract every source module implements, and the lenient field types they share.

A source module (``dataworks``, ``maxcompute``, ``dataphin``, ``datahub``) exports:

* ``SOURCE``: its name;
* ``KINDS``: every event kind the seed document defines (event code / eventName / ...);
* ``detect(doc) -> str | None``: the envelope name when ``doc`` is one of its records, else None;
* ``parse(doc, envelope) -> ParsedEvent``: validate; raise ``RecordError`` (or let pydantic's
  ``ValidationError`` through) when a record of a *known* kind cannot be understood. Records of
  a kind not in ``KINDS`` are returned with ``known=False`` (generic activity), never rejected.

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
from datetime import datetime, timedelta, timezone
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer


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

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_TIME_FORMATS = (
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S.%f",
    "%Y-%m-%dT%H:%M:%S",
    "%Y/%m/%d %H:%M:%S",
    "%Y-%m-%d",
    "%Y%m%d%H%M%S",
)


def parse_time(value: Any) -> datetime | None:
    """Epoch seconds/millis, ISO 8601 (``Z``/offsets) or ``yyyy-MM-dd HH:mm:ss`` -> aware UTC.

    Naive wall-clock times are taken as UTC (documented in the README). Masked or placeholder
    values (``17***864``) cannot be a time: they raise so the field error is precise.
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if isinstance(value, bool):
        raise ValueError(f"not a time: {value!r}")
    if isinstance(value, (int, float)) or (isinstance(value, str) and value.strip().isdigit()):
        number = float(value)
        if number > 1e14:  # microseconds
            number /= 1e6
        elif number > 1e11:  # milliseconds
            number /= 1e3
        return _EPOCH + timedelta(seconds=number)
    if not isinstance(value, str):
        raise ValueError(f"not a time: {value!r}")
    text = value.strip()
    if text.endswith("PRC"):  # EventBridge's aliyunpublishtime: 2020-11-19T21:04:42.179PRC
        text = text[:-3] + "+08:00"
    iso = text[:-1] + "+00:00" if text.endswith("Z") else text
    try:
        parsed = datetime.fromisoformat(iso)
    except ValueError:
        parsed = None
        for fmt in _TIME_FORMATS:
            try:
                parsed = datetime.strptime(text, fmt)
                break
            except ValueError:
                continue
        if parsed is None:
            raise ValueError(f"not a recognised time: {value!r}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.astimezone(timezone.utc)


def lenient_time(value: Any) -> datetime | None:
    """Like ``parse_time`` but a masked/placeholder value becomes None (for informative fields)."""
    try:
        return parse_time(value)
    except ValueError:
        return None


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
                loaded = json.loads(text)
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
                return json.loads(text)
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
