"""The DataHub Entity Change Event v1 models: one per category, kind = ``CATEGORY:OPERATION``."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BeforeValidator, Field, PlainSerializer, field_validator

from lineage.events.base import Bool, EventModel, JsonValue, epoch_number, from_epoch, parse_time, to_json_value
from lineage.events.datahub.urns import check_urn, strip

# ---------------------------------------------------------------------------------------------
# lenient field types of this source
# ---------------------------------------------------------------------------------------------


def epoch_millis(value: Any) -> datetime | None:
    """DataHub times are epoch *milliseconds* whatever their size; ISO text is accepted too.
    Out of range (``10^20``) is a field error (see ``lineage.events.base.from_epoch``)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        raise ValueError(f"not a time: {value!r}")
    number = epoch_number(value.strip(), signed=True) if isinstance(value, str) else value
    if isinstance(number, (int, float)):
        return from_epoch(value, number, "milliseconds")
    return parse_time(value)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _json_list(value: Any) -> list[Any]:
    """A list given inline or as a JSON string (``"[\\"value1\\"]"``); a scalar is a 1-list."""
    value = to_json_value(value)
    if value is None or value == "":
        return []
    return value if isinstance(value, list) else [value]


EpochMillis = Annotated[datetime, BeforeValidator(epoch_millis), PlainSerializer(_iso)]
"""A required DataHub time (``auditStamp.time``): epoch millis."""
OptEpochMillis = Annotated[datetime | None, BeforeValidator(epoch_millis), PlainSerializer(_iso)]
Urn = Annotated[str, BeforeValidator(strip), AfterValidator(check_urn)]
"""A string that must parse as a DataHub URN (see ``parse_urn``)."""
OptUrn = Annotated[str | None, BeforeValidator(strip), AfterValidator(check_urn)]
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
