"""DataHub Entity Change Events v1 (seed 004) as consumed from Kafka: owners, tags, glossary
terms, domains, schema fields added and removed, deprecations and soft deletes of the
MaxCompute datasets. They carry no id: redelivery repeats the same bytes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lineage.generate.ident import Ids
from lineage.generate.model import Intent, Platform

STEWARD = "urn:li:corpuser:datahub"


def urn(platform: Platform, table: int) -> str:
    return f"urn:li:dataset:(urn:li:dataPlatform:maxcompute,{platform.table(table).qualified},PROD)"


def corpuser(platform: Platform, person: int) -> str:
    return f"urn:li:corpuser:{platform.people[person].login}"


def change(platform: Platform, intent: Intent, category: str, operation: str, modifier: str | None,
           parameters: dict[str, Any] | None, actor: str = STEWARD) -> dict[str, Any]:
    doc: dict[str, Any] = {"entityUrn": urn(platform, intent.args["table"]), "entityType": "dataset",
                           "category": category, "operation": operation}
    if modifier is not None:
        doc["modifier"] = modifier
    if parameters is not None:
        doc["parameters"] = parameters
    doc["auditStamp"] = {"actor": actor, "time": int(intent.time.timestamp() * 1000)}
    doc["version"] = 0
    return doc


def _owner(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    owner = corpuser(platform, intent.args["person"])
    return change(platform, intent, "OWNER", intent.args["op"], owner,
                  {"ownerUrn": owner, "ownerType": "TECHNICAL_OWNER"})


def _tag(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    tag = f"urn:li:tag:{intent.args['tag']}"
    return change(platform, intent, "TAG", intent.args["op"], tag, {"tagUrn": tag})


def _term(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    term = f"urn:li:glossaryTerm:{intent.args['term']}"
    return change(platform, intent, "GLOSSARY_TERM", "ADD", term, {"termUrn": term})


def _domain(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    domain = f"urn:li:domain:{platform.table(intent.args['table']).domain}"
    return change(platform, intent, "DOMAIN", "ADD", domain, {"domainUrn": domain})


def _schema(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    dataset = urn(platform, intent.args["table"])
    field = f"urn:li:schemaField:({dataset},{intent.args['field']})"
    return change(platform, intent, "TECHNICAL_SCHEMA", intent.args["op"], field,
                  {"fieldUrn": field, "fieldPath": intent.args["field"], "nullable": True},
                  corpuser(platform, intent.args["person"]))


def _deprecation(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    return change(platform, intent, "DEPRECATION", "MODIFY", "DEPRECATED", {"status": "DEPRECATED"},
                  corpuser(platform, intent.args["person"]))


def _soft_delete(platform: Platform, ids: Ids, intent: Intent) -> dict[str, Any]:
    return change(platform, intent, "LIFECYCLE", "SOFT_DELETE", None, None, corpuser(platform, intent.args["person"]))


RENDER: dict[str, Callable[[Platform, Ids, Intent], dict[str, Any]]] = {
    "dh_owner": _owner, "dh_tag": _tag, "dh_term": _term, "dh_domain": _domain, "dh_schema": _schema,
    "dh_deprecation": _deprecation, "dh_lifecycle": _soft_delete,
}
"""Intent kinds this source renders -> renderer."""
