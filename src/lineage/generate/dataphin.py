"""Dataphin audit log records as exported from Log Service (seed 003): permission requests,
approvals with an expiry, direct grants (some failing), revokes and returns."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from lineage.generate.ident import Ids
from lineage.generate.model import Intent, Person, Platform

TENANT = "300001001"
ACTIONS = {"ApplyPrivilege": "applyPrivilege", "ApprovePrivilege": "approvePrivilege",
           "GrantPermission": "grantPermission", "RevokePermission": "revokePermission",
           "ReturnPermission": "returnPermission"}
"""Event names -> the API path of ``event_source``."""


def identity(person: Person) -> str:
    return f"{person.login}:{person.dataphin_id}:{TENANT}:{person.uid}"


def record(platform: Platform, ids: Ids, intent: Intent, actor: Person, request: dict[str, Any],
           ok: bool = True, response: dict[str, Any] | None = None) -> dict[str, Any]:
    table = platform.table(intent.args["table"])
    moment = intent.time
    return {
        "log_time": moment.strftime("%Y-%m-%d %H:%M:%S"), "date": moment.strftime("%Y-%m-%d"),
        "time": moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}",
        "event_id": ids.uuid().upper(), "event_name": intent.kind,
        "event_source": f"http://cn-hangzhou-dataphin.aliyun.com/api/permission/{ACTIONS[intent.kind]}",
        "event_status": "SUCCESS" if ok else "FAIL", "event_version": "N/A", "user_identity": identity(actor),
        "source_ip": "203.0.113.7,100.104.12.8", "user_agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0",
        "trace_id": ids.hex(28), "span_id": "0",
        "response_element": base64.b64encode(json.dumps(response).encode()).decode() if response else "",
        "resource_id": table.qualified, "resource_name": table.name, "resource_type": "Table", "region": "cn-hangzhou",
        "additional_event_data": "", "tenant_id": TENANT, "request_parameter_json": json.dumps(request),
        "user_identity_json": json.dumps({"userName": actor.login, "userId": actor.dataphin_id, "tenantId": TENANT,
                                          "accountId": actor.uid}),
        "__time__": str(int(moment.timestamp())), "__source__": "100.104.12.8", "__topic__": "dataphin_audit",
        "__tag__:__receive_time__": str(int(moment.timestamp()) + 1),
    }


def _apply(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    person, table = platform.people[intent.args["person"]], platform.table(intent.args["table"])
    until = intent.time + timedelta(days=intent.args["days"])
    return record(platform, ids, intent, person, {
        "objectType": "TABLE", "objectName": table.qualified, "privileges": ["SELECT"], "grantee": person.dataphin_id,
        "expireDate": f"{until:%Y-%m-%d}", "ticketId": intent.args["ticket"]}, response={"ticketId": intent.args["ticket"]})


def _approve(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    person, table = platform.people[intent.args["person"]], platform.table(intent.args["table"])
    until = intent.time + timedelta(days=intent.args["days"])
    return record(platform, ids, intent, platform.people[intent.args["approver"]], {
        "ticketId": intent.args["ticket"], "result": "APPROVED", "objectType": "TABLE", "objectName": table.qualified,
        "privileges": ["SELECT"], "grantee": person.dataphin_id, "expireDate": f"{until:%Y-%m-%d}"},
        response={"ticketId": intent.args["ticket"], "status": "APPROVED"})


def _grant(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    person, table = platform.people[intent.args["person"]], platform.table(intent.args["table"])
    privileges = ["SELECT", "DESCRIBE"] if intent.kind == "GrantPermission" else ["SELECT"]
    return record(platform, ids, intent, platform.people[intent.args["actor"]], {
        "objectType": "TABLE", "objectName": table.qualified, "privileges": privileges, "grantee": person.dataphin_id},
        ok=intent.args.get("ok", True))


def _return(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    person, table = platform.people[intent.args["person"]], platform.table(intent.args["table"])
    return record(platform, ids, intent, person, {"objectType": "TABLE", "objectName": table.qualified,
                                                  "privileges": ["SELECT", "DESCRIBE"]})


RENDER: dict[str, Callable[[Platform, Ids, Intent], dict[str, Any]]] = {
    "ApplyPrivilege": _apply, "ApprovePrivilege": _approve, "GrantPermission": _grant,
    "RevokePermission": _grant, "ReturnPermission": _return,
}
"""Intent kinds this source renders -> renderer."""
