"""Dataphin audit log (seed 003) -> facts: who was granted, who lost access to which table.

Dataphin runs on MaxCompute in our users' setup: a Dataphin ``Table`` resource names the
compute-engine table ``<project>.<table>``, so it becomes the MaxCompute table id
(``table:maxcompute:<project>.<table>``) and meets the lineage DataWorks and MaxCompute draw; a
``Project`` resource becomes ``project:maxcompute:<name>`` for the same reason.

The permission events (GrantPermission, ApprovePrivilege, RevokePermission, ReturnPermission,
AuthorizeExpire, grantMetaDataTable) open and close ``(User)-[:CAN_ACCESS]->(Table|Project)``
intervals, one per privilege (the qualifier), so revoking ``update`` leaves ``select`` open.
Seed 003 documents no request parameters: the keys read from ``request_parameter_json`` are
the shape of our fixtures and demo (:data:`REQUEST_KEYS`), kept in one table so that real logs
with other names need one edit. Every other catalogue event is generic activity: the acting
user and, when the resource names a table, that table are observed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

from lineage import ids
from lineage.events.base import ParsedEvent, lenient_time, to_list
from lineage.events.dataphin import KINDS
from lineage.facts.core import Emit, Out

SOURCE = "dataphin"

REQUEST_KEYS: dict[str, tuple[str, ...]] = {
    "object_type": ("objectType",),
    "object_name": ("objectName",),
    "privileges": ("privileges", "privilege"),
    "grantee": ("grantee", "granteeId", "granteeUserId"),
    "expiry": ("expireDate", "expireTime", "expiration"),
    "ticket": ("ticketId",),
    "result": ("result", "approveResult"),
}
"""Request fields we read (wire names in ``request_parameter_json``), first present wins."""

_TABLE_TYPES = frozenset({"table", "physicaltable"})
_PROJECT_TYPES = frozenset({"project"})
_REJECTED = ("REJECT", "DENY", "DENIED", "REFUSE")
OBJECT_LABELS = ("Table", "Project")


# --------------------------------------------------------------------------------------------
# the contract
# --------------------------------------------------------------------------------------------


def failed(event: ParsedEvent) -> bool:
    """``event_status`` FAIL: the operation changed nothing."""
    return getattr(event.model, "failed", None) is True


def actor_id(event: ParsedEvent) -> str | None:
    """The Dataphin internal user id of ``user_identity`` (``user:dataphin:<id>``)."""
    return ids.dataphin_user(event.actor) if event.actor else None


# --------------------------------------------------------------------------------------------
# reading a record
# --------------------------------------------------------------------------------------------


def _request(event: ParsedEvent) -> dict[str, Any]:
    """``request_parameter_json`` (else ``request_parameter``) when it is a JSON object."""
    for value in (getattr(event.model, "request_parameter_json", None), getattr(event.model, "request_parameter", None)):
        if isinstance(value, dict):
            return value
    return {}


def _req(event: ParsedEvent, what: str) -> Any:
    request = _request(event)
    for key in REQUEST_KEYS[what]:
        if request.get(key) not in (None, "", []):
            return request[key]
    return None


def _text(value: Any) -> str:
    return str(value).strip() if value is not None else ""


def _object(event: ParsedEvent) -> tuple[str, str] | None:
    """(id, name) of the table or project the record is about, or None.

    The type comes from the request's objectType, else ``resource_type``. A table needs a
    qualified ``<project>.<table>`` (request objectName, ``resource_id`` or ``resource_name``):
    a bare logical-table id (``t_3200016408...``) names no compute-engine table.
    """
    model = event.model
    object_type = _text(_req(event, "object_type") or getattr(model, "resource_type", None)).lower().replace("_", "")
    names = [_text(_req(event, "object_name")), _text(getattr(model, "resource_id", None)),
             _text(getattr(model, "resource_name", None))]
    if object_type in _TABLE_TYPES:
        qualified = next((n for n in names if "." in n), None)
        table_id = ids.table_from_qualified(qualified) if qualified else None
        if table_id is None:
            return None
        return table_id, _text(getattr(model, "resource_name", None)) or qualified.rsplit(".", 1)[-1]
    if object_type in _PROJECT_TYPES:
        name = names[0] or names[2]
        return (ids.maxcompute_project(name), name) if name else None
    return None


def _privileges(event: ParsedEvent) -> list[str]:
    """Privileges named by the request, lower-cased, de-duplicated, in order."""
    seen: dict[str, None] = {}
    for item in to_list(_req(event, "privileges")):
        text = _text(item).lower()
        if text:
            seen.setdefault(text, None)
    return list(seen)


def _grantees(event: ParsedEvent, holder_is_actor: bool = False) -> list[str]:
    """Who holds the permission: the request's grantee(s); for the holder's own events
    (ReturnPermission, AuthorizeExpire under "My Permissions") the actor when none is named."""
    named = [_text(g) for g in to_list(_req(event, "grantee")) if not isinstance(g, (dict, list))]
    users = [ids.dataphin_user(g) for g in named if g]
    if not users and holder_is_actor and event.actor:
        users = [ids.dataphin_user(event.actor)]
    return users


def _expiry(event: ParsedEvent) -> datetime | None:
    """The grant's expiry as the request gives it (a date alone is midnight UTC of that day)."""
    return lenient_time(_req(event, "expiry"))


def _rejected(event: ParsedEvent) -> bool:
    """ApprovePrivilege also logs rejections ("Approves or rejects an approval ticket")."""
    return _text(_req(event, "result")).upper().startswith(_REJECTED)


# --------------------------------------------------------------------------------------------
# fact helpers (one per shape of event)
# --------------------------------------------------------------------------------------------


def _access(event: ParsedEvent, grantees: list[str], expiry: bool) -> Iterator[Out]:
    """One CAN_ACCESS fact per grantee and privilege; qualifier "" when no privilege is named."""
    obj = _object(event)
    if obj is None:
        return
    until = _expiry(event) if expiry else None
    props_common = {"via": event.kind, "by": actor_id(event), "ticket_id": _req(event, "ticket")}
    for grantee in grantees:
        for privilege in _privileges(event) or [""]:
            props = {**props_common, "privileges": [privilege] if privilege else None,
                     "expires": until}
            yield Out(grantee, obj[0], props=props, qualifier=privilege, until=until)


def granted(event: ParsedEvent) -> Iterator[Out]:
    """GrantPermission / grantMetaDataTable: the request's grantee gets each privilege."""
    yield from _access(event, _grantees(event), expiry=True)


def approved(event: ParsedEvent) -> Iterator[Out]:
    """ApprovePrivilege: an approval grants the request's grantee; a rejection grants nothing."""
    if not _rejected(event):
        yield from _access(event, _grantees(event), expiry=True)


def revoked(event: ParsedEvent) -> Iterator[Out]:
    """RevokePermission: closes the request grantee's intervals of each privilege named."""
    yield from _access(event, _grantees(event), expiry=False)


def relinquished(event: ParsedEvent) -> Iterator[Out]:
    """ReturnPermission / AuthorizeExpire: the holder (grantee, else the actor) loses access."""
    yield from _access(event, _grantees(event, holder_is_actor=True), expiry=False)


def _permission_change(event: ParsedEvent, holders: list[str]) -> Iterator[Out]:
    obj = _object(event)
    if obj is not None and not _rejected(event):
        yield Out(obj[0], props={"action": event.kind, "privileges": _privileges(event) or None,
                               "grantees": holders or None, "expires": _expiry(event)})


def permission_changed(event: ParsedEvent) -> Iterator[Out]:
    """A permission on the object changed, even when the record does not say whose."""
    yield from _permission_change(event, _grantees(event))


def holder_permission_changed(event: ParsedEvent) -> Iterator[Out]:
    """As ``permission_changed``; the holder defaults to the actor (ReturnPermission, AuthorizeExpire)."""
    yield from _permission_change(event, _grantees(event, holder_is_actor=True))


def resource_seen(event: ParsedEvent) -> Iterator[Out]:
    """The table/project the record names, with its name (and the ticket of a permission event)."""
    obj = _object(event)
    if obj is not None:
        yield Out(obj[0], props={"name": obj[1], "ticket_id": _req(event, "ticket"),
                               "approval_result": _req(event, "result")})


def actor_seen(event: ParsedEvent) -> Iterator[Out]:
    """The acting user with the username and account of ``user_identity``."""
    identity = getattr(event.model, "user_identity", None)
    if identity is not None and identity.user_id:
        yield Out(ids.dataphin_user(identity.user_id), props={
            "name": identity.user_name, "tenant_id": identity.tenant_id, "account_id": identity.account_id})


def _only(label: str, fn: Callable[[ParsedEvent], Iterable[Out]]) -> Callable[[ParsedEvent], Iterator[Out]]:
    """``fn`` restricted to facts whose src (vertex) or dst (edge) is a ``label``: one table row
    per object label, since a row's labels are fixed."""

    @functools.wraps(fn)
    def only(event: ParsedEvent) -> Iterator[Out]:
        for fact in fn(event):
            if ids.label_of(fact.dst if fact.dst is not None else fact.src) == label:
                yield fact

    return only


# --------------------------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------------------------

_ACCESS_EXTRA = ("privileges", "via", "by", "ticket_id", "expires")
_OBJECT_NOTE = ("object: request objectType/objectName, else resource_type + resource_id/resource_name "
                "(Table needs <project>.<table> -> MaxCompute table; Project -> MaxCompute project)")

GENERIC: tuple[Emit, ...] = (
    Emit(op="observe", src="User", fn=actor_seen, extra=("name", "tenant_id", "account_id"),
         note="actor: user_identity's internal user id (name = its username)"),
    Emit(op="observe", src="Table", fn=_only("Table", resource_seen), extra=("name", "ticket_id", "approval_result"),
         note="resource_type Table with a qualified resource_id/resource_name <project>.<table>"),
)
"""Every catalogue event: who acted, and the table its resource names (if any)."""


def _permission_rows(op: str, fn: Callable[[ParsedEvent], Iterable[Out]], note: str,
                     change: Callable[[ParsedEvent], Iterable[Out]] = permission_changed) -> tuple[Emit, ...]:
    """An access edge per object label, its permission_change, and the objects/actor seen."""
    return (
        *(Emit(op=op, src="User", rel="CAN_ACCESS", dst=label, fn=_only(label, fn), note=note, extra=_ACCESS_EXTRA)
          for label in OBJECT_LABELS),
        *(Emit(op="change", src=label, rel="permission_change", fn=_only(label, change),
               note=f"the {label.lower()} whose permissions changed; " + _OBJECT_NOTE,
               extra=("action", "privileges", "grantees", "expires"))
          for label in OBJECT_LABELS),
        *(Emit(op="observe", src=label, fn=_only(label, resource_seen), extra=("name", "ticket_id", "approval_result"),
               note=_OBJECT_NOTE) for label in OBJECT_LABELS),
        GENERIC[0],
    )


MAPPING: dict[str, tuple[Emit, ...]] = {
    **{kind: GENERIC for kind in sorted(KINDS)},
    "GrantPermission": _permission_rows(
        "assert", granted,
        "grantee: request grantee; one fact per request privilege (qualifier), until = request expiry"),
    "grantMetaDataTable": _permission_rows(
        "assert", granted,
        "as GrantPermission (grants on a table created with its metadata); no grantee named -> no access"),
    "ApprovePrivilege": _permission_rows(
        "assert", approved,
        "approver = actor; grantee: request grantee (none named -> no access asserted); "
        "result REJECT* -> nothing; one fact per privilege, until = request expiry"),
    "RevokePermission": _permission_rows(
        "retract", revoked,
        "grantee: request grantee; closes each privilege named (none named -> the unnamed-privilege grant)"),
    "ReturnPermission": _permission_rows(
        "retract", relinquished,
        "holder: request grantee, else the actor (My Permissions); closes each privilege named",
        holder_permission_changed),
    "AuthorizeExpire": _permission_rows(
        "retract", relinquished,
        "holder: request grantee, else user_identity; closes each privilege named",
        holder_permission_changed),
    "ApplyPrivilege": (
        *(Emit(op="observe", src=label, fn=_only(label, resource_seen), extra=("name", "ticket_id"),
               note="a request only: the object applied for is seen, no access asserted; " + _OBJECT_NOTE)
          for label in OBJECT_LABELS),
        GENERIC[0],
    ),
}
"""Event name -> facts. Names outside the catalogue (known=False) map to nothing."""
