"""DataHub URNs (``urn:li:<entityType>:<key>``), parsed into their named parts.

Tuple keys may nest urns (a field's dataset, a job's flow); every model field that holds an urn
is checked with :func:`parse_urn`, and the fact mapping builds canonical ids from the parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# ---------------------------------------------------------------------------------------------
# URNs
# ---------------------------------------------------------------------------------------------

URN_PREFIX = "urn:li:"
_ENTITY_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class _Layout:
    """How a tuple key's components map to named slots; ``greedy`` absorbs extra commas."""

    slots: tuple[str, ...]
    greedy: int
    parent_type: str | None = None


# Slot names: platform (a dataPlatform urn or a bare platform name), name, env, parent (a nested
# urn), field_path. Types not listed here have a simple key (``urn:li:tag:PII``).
_LAYOUTS: dict[str, _Layout] = {
    "dataset": _Layout(("platform", "name", "env"), 1),
    "mlModel": _Layout(("platform", "name", "env"), 1),
    "mlModelGroup": _Layout(("platform", "name", "env"), 1),
    "mlFeatureTable": _Layout(("platform", "name"), 1),
    "dataFlow": _Layout(("platform", "name", "env"), 1),
    "dataJob": _Layout(("parent", "name"), 1, parent_type="dataFlow"),
    "schemaField": _Layout(("parent", "field_path"), 1),
    "chart": _Layout(("platform", "name"), 1),
    "dashboard": _Layout(("platform", "name"), 1),
    "dataPlatformInstance": _Layout(("platform", "name"), 1),
}


@dataclass(frozen=True)
class DataHubUrn:
    """A parsed DataHub URN. Nested urns (a field's dataset, a job's flow) are parsed too.

    ``name`` is the entity's own name: the dataset name, chart/dashboard/flow/job id, or the
    whole key of a simple urn (``PII`` for ``urn:li:tag:PII``). ``env`` is a dataset's fabric
    or a dataFlow's cluster. Percent-encoded characters (``%2C``) are kept as written.
    """

    raw: str
    entity_type: str
    key: str
    parts: tuple[str, ...]
    platform: str | None = None
    name: str | None = None
    env: str | None = None
    parent: DataHubUrn | None = None
    field_path: str | None = None

    def __str__(self) -> str:
        return self.raw


def _malformed(raw: str, why: str) -> ValueError:
    return ValueError(f"malformed DataHub URN {raw!r}: {why}")


def _split_tuple(key: str, raw: str) -> list[str]:
    """``(a,(b,c),d)`` -> ``["a", "(b,c)", "d"]``: split at commas outside nested parentheses."""
    parts: list[str] = []
    depth = 0
    start = 1
    for index, char in enumerate(key):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise _malformed(raw, f"unbalanced ')' at key position {index}")
            if depth == 0 and index != len(key) - 1:
                raise _malformed(raw, f"unexpected text after the closing ')': {key[index + 1:]!r}")
        elif char == "," and depth == 1:
            parts.append(key[start:index])
            start = index + 1
    if depth != 0:
        raise _malformed(raw, "unbalanced '(' (missing closing parenthesis)")
    parts.append(key[start:-1])
    for position, part in enumerate(parts):
        if not part.strip():
            raise _malformed(raw, f"empty tuple component #{position + 1}")
    return parts


def _platform_name(component: str, raw: str) -> str:
    """``urn:li:dataPlatform:snowflake`` or a bare ``looker`` -> the platform name."""
    if not component.startswith("urn:"):
        return component
    nested = parse_urn(component)
    if nested.entity_type != "dataPlatform":
        raise _malformed(raw, f"expected a dataPlatform urn, got {component!r}")
    return nested.key


def parse_urn(value: Any) -> DataHubUrn:
    """Parse ``urn:li:<entityType>:<key>``; a tuple key ``(a,b,...)`` may nest urns.

    Dataset/schemaField/dataJob/dataFlow/chart/dashboard keys get named slots; commas inside the
    name (more components than slots) stay in the name. Raises ValueError on anything malformed.
    The documentation's simple ``urn:li:dataset:abc`` is accepted (``name="abc"``, no platform).
    """
    if not isinstance(value, str):
        raise ValueError(f"DataHub URN must be a string, got {type(value).__name__}")
    raw = value.strip()
    if not raw.startswith(URN_PREFIX):
        raise _malformed(raw, "expected 'urn:li:<entityType>:<key>'")
    entity_type, sep, key = raw[len(URN_PREFIX):].partition(":")
    if not entity_type:
        raise _malformed(raw, "missing entity type")
    if not sep:
        raise _malformed(raw, "missing ':<key>' after the entity type")
    if not _ENTITY_TYPE.match(entity_type):
        raise _malformed(raw, f"invalid entity type {entity_type!r}")
    if not key.strip():
        raise _malformed(raw, "empty key")
    layout = _LAYOUTS.get(entity_type)
    if not key.startswith("("):
        if key.count("(") != key.count(")"):
            raise _malformed(raw, "unbalanced parentheses in key")
        if layout is not None and "parent" in layout.slots:
            expected = ",".join(f"<{slot}>" for slot in layout.slots)
            raise _malformed(raw, f"a {entity_type} urn needs a tuple key ({expected})")
        return DataHubUrn(raw=raw, entity_type=entity_type, key=key, parts=(key,), name=key)
    parts = _split_tuple(key, raw)
    if layout is None:
        return DataHubUrn(raw=raw, entity_type=entity_type, key=key, parts=tuple(parts), name=key)
    if len(parts) < len(layout.slots):
        expected = ",".join(f"<{slot}>" for slot in layout.slots)
        raise _malformed(
            raw, f"a {entity_type} urn needs {len(layout.slots)} components ({expected}), got {len(parts)}"
        )
    extra = len(parts) - len(layout.slots)
    grouped = (
        parts[: layout.greedy]
        + [",".join(parts[layout.greedy : layout.greedy + extra + 1])]
        + parts[layout.greedy + extra + 1 :]
    )
    slots = dict(zip(layout.slots, grouped))
    parent = None
    if "parent" in slots:
        parent = parse_urn(slots["parent"])
        if layout.parent_type and parent.entity_type != layout.parent_type:
            raise _malformed(raw, f"expected a {layout.parent_type} urn as parent, got {slots['parent']!r}")
    return DataHubUrn(
        raw=raw,
        entity_type=entity_type,
        key=key,
        parts=tuple(parts),
        platform=_platform_name(slots["platform"], raw) if "platform" in slots else None,
        name=slots.get("name"),
        env=slots.get("env"),
        parent=parent,
        field_path=slots.get("field_path"),
    )


def check_urn(value: str | None) -> str | None:
    if value is not None:
        parse_urn(value)
    return value


def strip(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value
