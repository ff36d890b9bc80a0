"""A row's properties as a mapping, one way everywhere: pyarrow reads a parquet map as a list of
(key, value) pairs, a row built in Python holds a dict, most edge rows hold none."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

NO_PROPERTIES: Mapping[str, Any] = MappingProxyType({})
"""The properties of a row without any: one shared, read-only (most edge rows have none)."""


def properties_of(value: Any) -> Mapping[str, Any]:
    """Properties as a mapping; a row's own dict is shared, not copied (a report holds a million
    of them): never mutated, a new dict is made to change one."""
    if not value:
        return NO_PROPERTIES
    if isinstance(value, dict):
        return value
    return dict(value.items() if isinstance(value, Mapping) else value)


def of_row(row: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """``properties_of`` a row's ``properties`` (none for no row)."""
    return properties_of((row or {}).get("properties"))
