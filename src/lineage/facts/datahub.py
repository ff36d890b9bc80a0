"""DataHub Entity Change Events (seed 004) -> facts: tags, terms, domains, owners, schema, lifecycle.

Entities are named by urns; :func:`entity_id` is the one place they become canonical ids.
Datasets on platform ``maxcompute``/``odps`` become MaxCompute table ids (so DataHub's PII tag
lands on the table DataWorks and MaxCompute write); other datasets ``table:<platform>:<name>``;
the seed's placeholder ``urn:li:dataset:abc`` (no platform) ``table:datahub:abc``. Tag, term,
domain, property and proposal keys keep their case (DataHub urns are case-sensitive).

``X`` (the changed entity) may be a Table, Column, Chart, ... and a mapping row has one label,
so each rule is written once and expanded to one row per label it can meet (:func:`_per_label`).
Proposals (action requests) are kept pending: a Proposal vertex and ``PROPOSED`` edge, never the
tag/term/owner edge they propose.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any

from pydantic import BaseModel

from lineage import ids
from lineage.events.base import ParsedEvent, to_json_value
from lineage.events.datahub import DataHubUrn, parse_urn
from lineage.facts.core import Emit, Out

SOURCE = "datahub"

ASSETS = ("Table", "Column", "Chart", "Dashboard", "DataFlow", "DataJob")
"""Labels that carry tags, terms, domains, structured properties and deprecation."""
OWNABLE = (*ASSETS, "Domain", "Tag", "GlossaryTerm")
"""Labels that can have owners, documentation, or be the target of a proposal."""
ENTITIES = (*OWNABLE, "User", "StructuredProperty")
"""Labels whose creation/deletion the LIFECYCLE events report."""

_SIMPLE_KEYED = {"tag": "Tag", "glossaryTerm": "GlossaryTerm", "domain": "Domain",
                 "structuredProperty": "StructuredProperty", "actionRequest": "Proposal"}
_V2_TOKEN = re.compile(r"\[[^\]]*\]")
"""``[version=2.0]``, ``[type=struct]``, ``[key=True]``: annotations of a v2 field path."""
_PLATFORM_KEYED = {"chart": "Chart", "dashboard": "Dashboard", "dataFlow": "DataFlow"}


# --------------------------------------------------------------------------------------------
# the contract
# --------------------------------------------------------------------------------------------


def failed(event: ParsedEvent) -> bool:
    """An entity change event reports a change that happened: never a failed operation."""
    return False


def actor_id(event: ParsedEvent) -> str | None:
    """``auditStamp.actor`` (a corpuser urn) -> ``user:datahub:<name>``."""
    return ids.datahub_user(event.actor) if event.actor else None


# --------------------------------------------------------------------------------------------
# urns -> ids
# --------------------------------------------------------------------------------------------


def _parse(urn: Any) -> DataHubUrn | None:
    if isinstance(urn, DataHubUrn):
        return urn
    try:
        return parse_urn(urn) if urn else None
    except ValueError:
        return None


def field_path(path: str) -> str:
    """A v2 field path (``[version=2.0].[type=struct].address.[type=string].zip``) -> ``address.zip``."""
    if not path.startswith("[version="):
        return path
    return ".".join(part for part in _V2_TOKEN.sub("", path).split(".") if part)


def _table_id(urn: DataHubUrn) -> str:
    return ids.table("", urn.name or urn.key, urn.platform or "datahub")


def entity_id(urn: Any) -> str | None:
    """The canonical id of an entity urn, or None for types the graph does not hold (skipped)."""
    parsed = _parse(urn)
    if parsed is None:
        return None
    kind = parsed.entity_type
    if kind == "dataset":
        return _table_id(parsed)
    if kind == "schemaField" and parsed.parent is not None and parsed.parent.entity_type == "dataset":
        return ids.column(_table_id(parsed.parent), field_path(parsed.field_path or ""))
    if kind in _PLATFORM_KEYED:
        return ids.datahub(_PLATFORM_KEYED[kind], f"{parsed.platform}.{parsed.name}")
    if kind == "dataJob" and parsed.parent is not None:
        flow = parsed.parent
        return ids.datahub("DataJob", f"{flow.platform}.{flow.name}.{parsed.name}")
    if kind in _SIMPLE_KEYED:
        return ids.datahub(_SIMPLE_KEYED[kind], parsed.key)
    if kind.lower() in ("corpuser", "corpgroup"):
        return ids.datahub_user(parsed.raw)
    return None


def _name(urn: Any) -> str | None:
    """What the entity is called: dataset name, field path, chart id, tag name, user name."""
    parsed = _parse(urn)
    if parsed is None:
        return None
    if parsed.entity_type == "schemaField":
        return field_path(parsed.field_path or "")
    return parsed.name or parsed.key


# --------------------------------------------------------------------------------------------
# reading an event (known models and the generic one alike)
# --------------------------------------------------------------------------------------------


def _params(event: ParsedEvent) -> dict[str, Any]:
    """``parameters`` by wire name, whether the model typed them or kept them raw."""
    params = getattr(event.model, "parameters", None)
    if isinstance(params, BaseModel):
        return params.model_dump(by_alias=True, exclude_none=True)
    if isinstance(params, str):  # generic model: kept raw; text that is not JSON names nothing
        try:
            params = to_json_value(params)
        except ValueError:
            return {}
    return params if isinstance(params, dict) else {}


def _subject(event: ParsedEvent, key: str) -> str | None:
    """The urn the change applies (``parameters.<key>``, else ``modifier``)."""
    return _params(event).get(key) or getattr(event.model, "modifier", None)


def _entity(event: ParsedEvent) -> str | None:
    return entity_id(getattr(event.model, "entity_urn", None))


def _operation(event: ParsedEvent) -> str:
    return str(getattr(event.model, "operation", "") or "").upper()


# --------------------------------------------------------------------------------------------
# fact helpers (one per shape of event)
# --------------------------------------------------------------------------------------------


def link(event: ParsedEvent, key: str, extra: Callable[[ParsedEvent], dict[str, Any]] | None = None) -> Iterator[Out]:
    """(X)-[rel]->(the urn in parameters.<key> / modifier): tags, terms, domains, properties."""
    subject = _subject(event, key)
    yield Out(_entity(event), entity_id(subject), props=extra(event) if extra else None)


def _property_values(event: ParsedEvent) -> dict[str, Any]:
    return {"values": _params(event).get("propertyValues"), "property": _subject(event, "propertyUrn")}


def owner(event: ParsedEvent) -> Iterator[Out]:
    """(owner)-[:OWNS]->(X): the owner urn of parameters.ownerUrn / modifier."""
    params = _params(event)
    subject = entity_id(_subject(event, "ownerUrn"))
    if subject is not None and ids.label_of(subject) == "User":
        yield Out(subject, _entity(event), props={"ownerType": params.get("ownerType"),
                                                "ownerTypeUrn": params.get("ownerTypeUrn")})


def _what(event: ParsedEvent) -> dict[str, Any]:
    """The change's operation and the urn it applied (tag, term, domain, owner)."""
    return {"operation": _operation(event).lower(), "modifier": getattr(event.model, "modifier", None)}


def changed(event: ParsedEvent) -> Iterator[Out]:
    """A Change on X: the operation and the urn it applied."""
    yield Out(_entity(event), props=_what(event))


def _deprecated(event: ParsedEvent) -> bool:
    status = _params(event).get("status") or getattr(event.model, "modifier", None) or ""
    return str(status).strip().upper() == "DEPRECATED"


def deprecation_status(event: ParsedEvent) -> Iterator[Out]:
    """X with deprecated=true (status DEPRECATED) or false (any other status)."""
    status = _params(event).get("status") or getattr(event.model, "modifier", None)
    yield Out(_entity(event), props={"deprecated": _deprecated(event), "deprecation_status": status})


def deprecated(event: ParsedEvent) -> Iterator[Out]:
    if _deprecated(event):
        yield Out(_entity(event), props={"status": "DEPRECATED"})


def undeprecated(event: ParsedEvent) -> Iterator[Out]:
    if not _deprecated(event):
        yield Out(_entity(event), props={"status": _params(event).get("status") or getattr(event.model, "modifier", None)})


def documentation(event: ParsedEvent) -> Iterator[Out]:
    """X with its new description (DOCUMENTATION events; not in the seed)."""
    yield Out(_entity(event), props={"description": _params(event).get("description"),
                                   "documentation": _operation(event).lower()})


def _field(event: ParsedEvent) -> tuple[str, str, str] | None:
    """(table id, column id, field path) of a TECHNICAL_SCHEMA event."""
    params = _params(event)
    field_urn = _parse(params.get("fieldUrn") or getattr(event.model, "modifier", None))
    table_id = _entity(event)
    if (table_id is None or ids.label_of(table_id) != "Table") and field_urn is not None and field_urn.parent:
        table_id = entity_id(field_urn.parent)
    path = params.get("fieldPath") or (field_urn.field_path if field_urn is not None else None)
    if not table_id or ids.label_of(table_id) != "Table" or not path:
        return None
    path = field_path(str(path))
    return table_id, ids.column(table_id, path), path


def column_edge(event: ParsedEvent) -> Iterator[Out]:
    """(Table)-[:HAS_COLUMN]->(Column) for the field added / removed / modified."""
    field = _field(event)
    if field:
        yield Out(field[0], field[1], props={"field_path": field[2], "nullable": _params(event).get("nullable")})


def column_vertex(event: ParsedEvent) -> Iterator[Out]:
    """The Column itself, named by its field path."""
    field = _field(event)
    if field:
        yield Out(field[1], props={"name": field[2], "nullable": _params(event).get("nullable")})


def schema_changed(event: ParsedEvent) -> Iterator[Out]:
    """A Change on the table whose schema gained, lost or altered a field."""
    field = _field(event)
    if field:
        yield Out(field[0], props={"operation": _operation(event).lower(), "field_path": field[2]})


def _is_proposal(event: ParsedEvent) -> bool:
    return ids.label_of(_entity(event) or "") == "Proposal"


def entity_vertex(event: ParsedEvent) -> Iterator[Out]:
    """X itself, named (LIFECYCLE of anything but an action request)."""
    if not _is_proposal(event):
        parsed = _parse(getattr(event.model, "entity_urn", None))
        yield Out(_entity(event), props={"name": _name(parsed), "platform": parsed.platform if parsed else None,
                                       "env": parsed.env if parsed else None,
                                       "lifecycle": _operation(event).lower()})


def entity_changed(event: ParsedEvent) -> Iterator[Out]:
    if not _is_proposal(event):
        yield Out(_entity(event), props={"operation": _operation(event).lower()})


_PROPOSED_KEYS = ("tagUrn", "glossaryTermUrn", "domains", "owners", "description", "structuredProperties",
                  "glossaryEntityName", "parentNodeUrn")


def proposal(event: ParsedEvent) -> Iterator[Out]:
    """The pending action request: its type, target and what it proposes (not applied)."""
    if _is_proposal(event):
        params = _params(event)
        yield Out(_entity(event), props={
            "name": _name(getattr(event.model, "entity_urn", None)),
            "type": params.get("actionRequestType"), "status": "pending",
            "resource": params.get("resourceUrn"), "resource_type": params.get("resourceType"),
            **{key: params[key] for key in _PROPOSED_KEYS if params.get(key) not in (None, "", [], {})}})


def proposed(event: ParsedEvent) -> Iterator[Out]:
    """(Proposal)-[:PROPOSED]->(the resourceUrn it would change)."""
    if _is_proposal(event):
        params = _params(event)
        yield Out(_entity(event), entity_id(params.get("resourceUrn")), props={"type": params.get("actionRequestType")})


# --------------------------------------------------------------------------------------------
# one rule, one row per label
# --------------------------------------------------------------------------------------------


def only(event: ParsedEvent, fn: Callable[[ParsedEvent], Iterable[Out]], src: str, dst: str | None) -> Iterator[Out]:
    """The facts of ``fn`` whose ends have the row's labels. An edge needs both ends: a malformed
    event (a term as a tag's modifier, an unknown urn) yields nothing, never a wrongly labelled
    fact nor a wildcard retract."""
    for fact in fn(event):
        if ids.label_of(fact.src or "") == src and (dst is None or ids.label_of(fact.dst or "") == dst):
            yield fact


def _per_label(labels: tuple[str, ...], *, fn: Callable[[ParsedEvent], Iterable[Out]], src: str | None = None,
               dst: str | None = None, **emit: Any) -> tuple[Emit, ...]:
    """One Emit per label of X; X is the src, or the dst when ``src`` is fixed (OWNS, PROPOSED)."""
    if src is None:
        return tuple(Emit(src=label, dst=dst, fn=partial(only, fn=fn, src=label, dst=dst), **emit) for label in labels)
    return tuple(Emit(src=src, dst=label, fn=partial(only, fn=fn, src=src, dst=label), **emit) for label in labels)


_X = "X = entityUrn (maxcompute/odps dataset -> MaxCompute table; schemaField -> column; chart/dashboard/dataFlow/dataJob)"


def _association(rel: str, dst: str, key: str, change: str, what: str) -> dict[str, tuple[Emit, ...]]:
    """ADD asserts / REMOVE retracts (X)-[rel]->(dst) and records a Change on X."""
    rows = {}
    for operation, op in (("ADD", "assert"), ("REMOVE", "retract")):
        rows[f"{what}:{operation}"] = (
            *_per_label(ASSETS, op=op, rel=rel, dst=dst, fn=partial(link, key=key),
                        note=f"{_X}; {dst}: parameters.{key}, else modifier (case kept)"),
            *_per_label(ASSETS, op="change", rel=change, fn=changed, extra=("operation", "modifier"),
                        note=f"{_X}; modifier = the {dst.lower()} urn"),
        )
    return rows


def _lifecycle(op: str, change: str) -> tuple[Emit, ...]:
    return (
        *_per_label(ENTITIES, op=op, fn=entity_vertex, extra=("name", "platform", "env", "lifecycle"),
                    note=f"{_X}; also corpuser, tag, term, domain, structured property"),
        *_per_label(ENTITIES, op="change", rel=change, fn=entity_changed, extra=("operation",), note=_X),
    )


_SCHEMA_NOTE = "table: entityUrn (else fieldUrn's dataset); column: parameters.fieldPath (else fieldUrn/modifier)"

MAPPING: dict[str, tuple[Emit, ...]] = {
    **_association("TAGGED", "Tag", "tagUrn", "tag_change", "TAG"),
    **_association("HAS_TERM", "GlossaryTerm", "termUrn", "term_change", "GLOSSARY_TERM"),
    **_association("IN_DOMAIN", "Domain", "domainUrn", "domain_change", "DOMAIN"),
    **{
        f"OWNER:{operation}": (
            *_per_label(OWNABLE, op=op, src="User", rel="OWNS", fn=owner, extra=("ownerType", "ownerTypeUrn"),
                        note=f"owner: parameters.ownerUrn, else modifier (corpuser/corpGroup); {_X}"),
            *_per_label(OWNABLE, op="change", rel="owner_change", fn=changed, extra=("operation", "modifier"),
                        note=f"{_X}; modifier = the owner urn"),
        )
        for operation, op in (("ADD", "assert"), ("REMOVE", "retract"))
    },
    **{
        f"STRUCTURED_PROPERTY:{operation}": _per_label(
            ASSETS, op=op, rel="HAS_PROPERTY", dst="StructuredProperty", fn=partial(link, key="propertyUrn", extra=_property_values),
            extra=("values", "property"),
            note=f"{_X}; property: parameters.propertyUrn, else modifier; values: parameters.propertyValues")
        for operation, op in (("ADD", "assert"), ("MODIFY", "assert"), ("REMOVE", "retract"))
    },
    "DEPRECATION:MODIFY": (
        *_per_label(ASSETS, op="observe", fn=deprecation_status, extra=("deprecated", "deprecation_status"),
                    note=f"{_X}; deprecated = (parameters.status or modifier) == DEPRECATED"),
        *_per_label(ASSETS, op="change", rel="deprecation", fn=deprecated, extra=("status",),
                    note=f"{_X}; status DEPRECATED"),
        *_per_label(ASSETS, op="change", rel="undeprecation", fn=undeprecated, extra=("status",),
                    note=f"{_X}; any other status"),
    ),
    **{
        f"TECHNICAL_SCHEMA:{operation}": (
            *_per_label(("Table",), op=edge_op, rel="HAS_COLUMN", dst="Column", fn=column_edge,
                        extra=("field_path", "nullable"), note=_SCHEMA_NOTE),
            *_per_label(("Column",), op=vertex_op, fn=column_vertex, extra=("name", "nullable"), note=_SCHEMA_NOTE),
            # one event, one change: a field removed is a field_removal, not also a schema_change
            *_per_label(("Table",), op="change", rel="field_removal" if operation == "REMOVE" else "schema_change",
                        fn=schema_changed, extra=("operation", "field_path"), note="the table of entityUrn"),
        )
        # MODIFY is not in the seed (generic model): a field whose type/nullability changed
        for operation, edge_op, vertex_op in (("ADD", "assert", "assert"), ("REMOVE", "retract", "retract"),
                                              ("MODIFY", "assert", "observe"))
    },
    "LIFECYCLE:CREATE": (
        *_lifecycle("assert", "create"),
        Emit(op="assert", src="Proposal", fn=proposal, extra=("name", "type", "status", "resource", *_PROPOSED_KEYS),
             note="action request (entityType actionRequest): proposal:datahub:<urn key>, kept pending, not applied"),
        *_per_label(OWNABLE, op="assert", src="Proposal", rel="PROPOSED", fn=proposed, extra=("type",),
                    note="proposal -> parameters.resourceUrn (none for CREATE_GLOSSARY_TERM)"),
    ),
    "LIFECYCLE:SOFT_DELETE": _lifecycle("retract", "drop"),
    "LIFECYCLE:HARD_DELETE": _lifecycle("retract", "drop"),
    # DOCUMENTATION is not in the seed (generic model): the description is kept as a property
    **{
        f"DOCUMENTATION:{operation}": _per_label(
            OWNABLE, op="observe", fn=documentation, extra=("description", "documentation"),
            note=f"{_X}; description: parameters.description")
        for operation in ("ADD", "MODIFY", "REMOVE")
    },
}
"""Kind (``CATEGORY:OPERATION``) -> facts. ``LIFECYCLE:CREATE`` covers entities and proposals."""

