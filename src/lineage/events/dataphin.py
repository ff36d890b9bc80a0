"""Dataphin audit log records (seed 003): the log-field record Dataphin writes to Log Service.

One envelope, ``log``: the flat record as Log Service (SLS) exports it, keys exactly as the
document's log-field table gives them (``log_time``, ``event_id``, ``event_name``,
``user_identity``, ...). SLS adds its own ``__time__`` / ``__source__`` / ``__topic__`` keys (and
``__tag__:...`` keys) to every exported log; they are modelled as optional fields or kept as
extras. Every SLS value is text, so numbers, base64 and JSON all arrive as strings.

All event kinds share one model, :class:`DataphinEvent`; the kind is ``event_name``. The
document's catalogue of log events per module is transcribed in :data:`~lineage.events.dataphin_catalogue.LISTINGS` (every row,
in document order, repeats included); :data:`CATALOGUE` keeps each name's first listing and
:data:`ALSO_LISTED` its other listings. An ``event_name`` outside the catalogue is generic
activity (``known=False``), never an error.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from lineage.events.dataphin_catalogue import ALSO_LISTED, CATALOGUE, LISTINGS  # noqa: F401
from lineage.events.base import (
    Base64Text,
    Date,
    EventModel,
    Id,
    JsonValue,
    LenientTime,
    ParsedEvent,
    RecordError,
    Shape,
    Source,
    StrList,
    Timestamp,
    require,
)
from lineage.io import jsonscan

NAME = "dataphin"

KINDS: frozenset[str] = frozenset(CATALOGUE)
"""Every event name of the document's catalogue."""


# ---------------------------------------------------------------------------------------------
# field coercions specific to Dataphin
# ---------------------------------------------------------------------------------------------


def _split_user_identity(value: Any) -> Any:
    """``username:internal user id:tenant id:original account id`` -> its four parts.

    The username comes from the member list and may itself contain ``:``, so the last three parts
    are split from the right. Fewer than four parts is a malformed value (a field error).
    """
    if value is None or value == "" or isinstance(value, dict):
        return value or None
    if not isinstance(value, str):
        raise ValueError(f"expected 'username:user id:tenant id:account id', got {value!r}")
    parts = value.rsplit(":", 3)
    if len(parts) != 4:
        raise ValueError(
            f"expected 'username:user id:tenant id:account id' (4 parts), got {value!r}"
        )
    user_name, user_id, tenant_id, account_id = (part.strip() or None for part in parts)
    return {
        "user_name": user_name,
        "user_id": user_id,
        "tenant_id": tenant_id,
        "account_id": account_id,
        "raw": value,
    }


def _lenient_json(value: Any) -> Any:
    """``request_parameter``: JSON text becomes an object; anything else is kept as given."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return jsonscan.decode(value)
        except json.JSONDecodeError:
            return value
    return value


def _status(value: Any) -> Any:
    return value.strip().upper() if isinstance(value, str) else value


_FAILED = frozenset({"FAIL", "FAILED", "FAILURE"})
_SUCCEEDED = frozenset({"SUCCESS", "SUCCEEDED"})


# ---------------------------------------------------------------------------------------------
# models
# ---------------------------------------------------------------------------------------------


class UserIdentity(EventModel):
    """Who acted: a Dataphin member, as ``username:internal user id:tenant id:account id``."""

    user_name: str | None = None
    """Username from the member list in the Dataphin management center."""
    user_id: Id = None
    """Dataphin internal user ID (the actor)."""
    tenant_id: Id = None
    """Dataphin tenant ID."""
    account_id: Id = None
    """Account in the source account system integrated with Dataphin."""
    raw: str | None = None
    """The ``user_identity`` text as logged."""


class DataphinEvent(EventModel):
    """One Dataphin audit log record: a user's operation in a Dataphin module (see CATALOGUE)."""

    log_time: Timestamp = Field(None, alias="log_time")
    """When the log was recorded (``2021-09-06 16:23:16``)."""
    date: Date = Field(None, alias="date")
    """Date the log was generated (``2021-09-06``)."""
    time: dt.time | None = Field(None, alias="time")
    """Time of day the log was generated (``16:23:16.062``)."""
    event_id: Id = Field(alias="event_id")
    """The event ID."""
    event_name: str = Field(alias="event_name")
    """The event name: the kind, one of CATALOGUE's names for known events."""
    event_source: str | None = Field(None, alias="event_source")
    """The event source: the Dataphin API URL that was called."""
    event_status: Annotated[str | None, BeforeValidator(_status)] = Field(
        None, alias="event_status"
    )
    """``SUCCESS`` or ``FAIL``."""
    event_version: str | None = Field(None, alias="event_version")
    """Reserved, unused (``N/A``)."""
    user_identity: Annotated[UserIdentity | None, BeforeValidator(_split_user_identity)] = Field(
        None, alias="user_identity"
    )
    """Who acted, split into its four parts."""
    source_ip: StrList = Field(default_factory=list, alias="source_ip")
    """Browser or client IP addresses (a comma-separated list on the wire)."""
    user_agent: str | None = Field(None, alias="user_agent")
    """User agent of the access source; often omitted for non-browser clients."""
    trace_id: str | None = Field(None, alias="trace_id")
    """Unique trace ID of the request."""
    span_id: str | None = Field(None, alias="span_id")
    """Reserved, unused (``0``)."""
    response_element: Base64Text = Field(None, alias="response_element")
    """Elements of the response (base64 on the wire, decoded here)."""
    resource_id: Id = Field(None, alias="resource_id")
    """ID of the resource acted on, such as a code task ID or a logical table ID."""
    resource_name: str | None = Field(None, alias="resource_name")
    """Name of the resource; omitted when the event involves no resource."""
    resource_type: str | None = Field(None, alias="resource_type")
    """Type of the resource (``File``, ...)."""
    region: str | None = Field(None, alias="region")
    """Region of the Dataphin instance."""
    additional_event_data: Base64Text = Field(None, alias="additional_event_data")
    """Additional custom information (base64 on the wire, decoded here); empty by default."""
    tenant_id: Id = Field(None, alias="tenant_id")
    """The Dataphin tenant ID."""
    request_parameter: Annotated[Any, BeforeValidator(_lenient_json)] = Field(
        None, alias="request_parameter"
    )
    """The request parameters as logged (the doc names it only as request_parameter_json's
    source); JSON text is parsed, anything else kept."""
    request_parameter_json: JsonValue = Field(None, alias="request_parameter_json")
    """request_parameter as JSON (for ActionTrail compatibility), parsed."""
    user_identity_json: JsonValue = Field(None, alias="user_identity_json")
    """user_identity as JSON (for ActionTrail compatibility), parsed."""
    sls_time: LenientTime = Field(None, alias="__time__")
    """Log Service receive time (epoch seconds) added to exported logs."""
    sls_source: str | None = Field(None, alias="__source__")
    """Log Service source (the collecting host or IP) added to exported logs."""
    sls_topic: str | None = Field(None, alias="__topic__")
    """Log Service topic added to exported logs."""

    @property
    def failed(self) -> bool | None:
        """True for ``FAIL``, False for ``SUCCESS``, None when the status is absent or other."""
        if self.event_status in _FAILED:
            return True
        if self.event_status in _SUCCEEDED:
            return False
        return None

    @property
    def event_time(self) -> dt.datetime | None:
        """When it happened: ``date`` + ``time`` (generated), else ``log_time``, else SLS time.

        Dataphin's times carry no zone: like every naive time here they are taken as UTC.
        """
        if self.date is not None and self.time is not None:
            return dt.datetime.combine(self.date, self.time.replace(tzinfo=None), dt.timezone.utc)
        if self.log_time is not None:
            return self.log_time
        if self.sls_time is not None:
            return self.sls_time
        if self.date is not None:
            return dt.datetime.combine(self.date, dt.time(), dt.timezone.utc)
        return None

    @property
    def actor(self) -> str | None:
        """The Dataphin internal user ID of whoever acted, when the record names one."""
        return self.user_identity.user_id if self.user_identity else None


class UnknownDataphinEvent(DataphinEvent):
    """A record whose event_name is not in the catalogue: generic activity, all fields optional."""

    event_id: Id = Field(None, alias="event_id")


MODELS: dict[str, type[DataphinEvent]] = {kind: DataphinEvent for kind in sorted(KINDS)}


# ---------------------------------------------------------------------------------------------
# envelopes
# ---------------------------------------------------------------------------------------------

SHAPES: tuple[Shape, ...] = (
    Shape(
        envelope="log",
        present=("event_name",),
        any_of=("event_id", "user_identity", "user_identity_json", "log_time", "trace_id"),
    ),
)
"""Envelope signatures. Dataphin's snake_case field names do not occur in the other sources'
records (DataWorks CloudEvent/FC messages, MaxCompute ActionTrail ``eventName``, DataHub ECE)."""
_ENVELOPES = frozenset(shape.envelope for shape in SHAPES)


def parse(doc: dict[str, Any], envelope: str) -> ParsedEvent:
    """Validate one record; an event_name outside the catalogue comes back with known=False."""
    if envelope not in _ENVELOPES:
        raise RecordError(f"unknown Dataphin envelope {envelope!r}", field="envelope")
    kind = str(require(doc, "event_name")).strip()
    known = kind in KINDS
    model = MODELS.get(kind, UnknownDataphinEvent).model_validate(doc)
    return ParsedEvent(
        source=NAME,
        kind=kind,
        envelope=envelope,
        model=model,
        event_id=model.event_id,
        event_time=model.event_time,
        actor=model.actor,
        known=known,
    )


SOURCE = Source(name=NAME, shapes=SHAPES, models=MODELS, parse=parse, mapping="lineage.facts.dataphin")
