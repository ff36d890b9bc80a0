"""The edge rows the effects read around a change, as every engine hands them over.

A grant, an owner change or a sensitive tag is answered from a few edge rows around the changed
entity (``lineage.analysis.effects``), fetched from either engine's traversal (``TemporalGraph``,
``SparkTraversal``). The row (:class:`Step`), what an engine answers (:class:`Neighbourhood`) and
the relationships it keeps at hand (:data:`EFFECT_RELATIONSHIPS`) live here, below both the
engines and the effects, so neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Protocol

from lineage.analysis.rules import ACCESS_RULES, OWNER_RULES, RUNS, SENSITIVE_SPREAD

NEVER = 2**63 - 1  # an open end (or no last_seen) in microseconds
READS, GRANTS, TAGGED = "READS", "CAN_ACCESS", "TAGGED"
EFFECT_RELATIONSHIPS: tuple[str, ...] = tuple(sorted(
    {r.relationship for r in (*ACCESS_RULES, *OWNER_RULES, *SENSITIVE_SPREAD)} | set(RUNS) | {READS, GRANTS, TAGGED}))
"""Every relationship the effects read: what an engine keeps at hand for :meth:`Neighbourhood.edge_rows`."""


@dataclass(frozen=True)
class Step:
    """One edge row: ``src -[relationship]-> dst`` valid ``start <= t < end`` (microseconds),
    last seen at ``last`` (NEVER: not known)."""

    src: str
    dst: str
    relationship: str
    start: int
    end: int
    last: int = NEVER


class Neighbourhood(Protocol):
    """What an engine answers for the effects: edge rows around ids, and labels."""

    def edge_rows(self, ids: Collection[str], relationships: Collection[str], *, by: str) -> list[Step]:
        """Rows of these relationships whose ``by`` end (``src`` or ``dst``) is one of ``ids``,
        between two vertices of the graph."""
        ...

    def vertex_labels(self, ids: Collection[str]) -> dict[str, str]:
        """The label of each id that is a vertex (the smallest label over its rows)."""
        ...

    def vertex_spans(self, ids: Collection[str]) -> dict[str, list[tuple[int, int]]]:
        """Each id's validity intervals ``(start, end)`` in microseconds (a deleted node's ends)."""
        ...
