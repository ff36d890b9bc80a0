"""What every DataWorks event shares: the message body base and the envelope wrapper.

A DataWorks event is one *body* (the ``data`` object of the document's "Message formats" tabs)
delivered in one of three envelopes. :class:`DataWorksEvent` models all three with one set of
optional fields, so each event family needs one body model and a one-line event subclass:

* ``cloudevent``: the EventBridge CloudEvent (``id``, ``source``, ``type``, ``time``, ``data``,
  ``aliyun*`` attributes);
* ``fc``: the Function Compute extension message (``messageId``, ``eventType``,
  ``eventCategoryType``, ``extensionBizId``, ``blockBusiness``, ``messageBody``);
* ``body``: the document's partial samples, ``{"datacontenttype", "data"}`` without id or type.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Generic, TypeVar

from annotated_types import MinLen
from pydantic import AliasChoices, BeforeValidator, Field, StringConstraints

from lineage.events.base import Bool, EventModel, Id, LenientTime, Timestamp, to_id, to_id_list

RequiredId = Annotated[str, BeforeValidator(to_id), StringConstraints(min_length=1)]
"""An id the graph needs: absent, null or empty is a field error (masked ``70***003`` is fine)."""
RequiredIdList = Annotated[list[str], BeforeValidator(to_id_list), MinLen(1)]
"""Ids the event is about: a JSON array or ``"1,2,3"``, at least one."""
RequiredText = Annotated[str, StringConstraints(min_length=1)]


class DataWorksBody(EventModel):
    """The message body; the document fixes ``tenantId`` and ``eventCode`` in every one.

    ``TIME_FIELDS`` / ``ACTOR_FIELDS`` name the attributes (dotted for nested ones) that give
    the event time when the envelope has none, and the actor, first non-empty wins.
    """

    TIME_FIELDS: ClassVar[tuple[str, ...]] = ()
    ACTOR_FIELDS: ClassVar[tuple[str, ...]] = ("operator",)

    tenant_id: Id = Field(None, alias="tenantId")
    event_code: str | None = Field(None, alias="eventCode")
    # extension-point bodies carry the check process of the extension that may block them
    extension_biz_id: str | None = Field(None, alias="extensionBizId")
    extension_biz_name: str | None = Field(None, alias="extensionBizName")
    block_business: Bool = Field(None, alias="blockBusiness")


BodyT = TypeVar("BodyT", bound=DataWorksBody)

_BODY = AliasChoices("data", "messageBody")


class DataWorksEvent(EventModel, Generic[BodyT]):
    """One DataWorks event in any envelope; ``data`` is the body (FC calls it ``messageBody``)."""

    data: BodyT = Field(validation_alias=_BODY)
    # EventBridge CloudEvent
    id: str | None = None
    source: str | None = None
    specversion: str | None = None
    type: str | None = None
    subject: str | None = None
    time: Timestamp = None
    datacontenttype: str | None = None
    aliyun_account_id: Id = Field(None, alias="aliyunaccountid")
    aliyun_original_account_id: Id = Field(None, alias="aliyunoriginalaccountid")
    aliyun_publish_time: LenientTime = Field(None, alias="aliyunpublishtime")
    aliyun_event_bus_name: str | None = Field(None, alias="aliyuneventbusname")
    aliyun_region_id: str | None = Field(None, alias="aliyunregionid")
    aliyun_publish_addr: str | None = Field(None, alias="aliyunpublishaddr")
    # Function Compute extension message
    message_id: str | None = Field(None, alias="messageId")
    event_type: str | None = Field(None, alias="eventType")
    event_category_type: str | None = Field(None, alias="eventCategoryType")
    extension_biz_id: str | None = Field(None, alias="extensionBizId")
    block_business: Bool = Field(None, alias="blockBusiness")


class UnknownBody(DataWorksBody):
    """The body of an event whose kind is not in the document; every field is kept as an extra."""

    TIME_FIELDS = ("operation_time", "timestamp")
    ACTOR_FIELDS = ("operator", "operator_uid")

    operator: Id = None
    operator_uid: Id = Field(None, alias="operatorUid")
    project_id: Id = Field(None, alias="projectId")
    operation_time: LenientTime = Field(None, alias="operationTime")
    timestamp: LenientTime = None


class UnknownDataWorksEvent(DataWorksEvent[UnknownBody]):
    """Generic DataWorks activity of a kind the document does not define (or no kind at all)."""

    data: UnknownBody | None = Field(None, validation_alias=_BODY)
