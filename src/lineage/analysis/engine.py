"""The engines' interface: what every engine answers, with no knowledge of which engines exist.

Two questions, each answered alike by the ``local`` (numpy) and ``spark`` engines:

* **reach** at one instant (:class:`Engine`, ``lineage.analysis.local`` and ``spark``): multi-source
  reachability with hop distance and one witness path;
* **impacts** at many instants (:class:`Traversal`, ``lineage.analysis.temporal`` and
  ``spark_temporal``): one traversal over the whole history, each :class:`Query` on the graph as
  of its own instant (blast radius asks every change of a window at once).

Which engine answers, and opening it, is ``lineage.analysis.engines``: above the engines, so
this interface and the engines below it never import the code that chooses between them.

The answer is defined independently of either algorithm, so the two can be held to it:

* a *step* is an edge row whose relationship has a rule, walked the rule's way (FORWARD
  src->dst, BACKWARD dst->src), between two ids that are vertices of the graph (an edge to a
  vertex filtered out as of a moment is not walked; several intervals are one step);
* ``distance`` is the fewest steps from any source that is a vertex;
* a *run* (an Instance, a DAG run, a MaxCompute job run: ``lineage.ids.RUN_PREFIXES``) happened
  once and cannot be affected by what comes after it: it is walked through (to what it wrote, its
  workflow, an ad-hoc run's author) but listed and counted only when asked (``runs=True``);
* ``path`` is, among all shortest paths from any source, the lexicographically smallest
  sequence of ids (compared element by element from the source end; ids compare by code
  point, which is also Spark's UTF-8 byte order). It starts at the smallest nearest source.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable, Collection, Iterator, Mapping, Protocol, Sequence

from lineage.analysis.rules import BACKWARD, FORWARD, IMPACT_RULES, ImpactRule
from lineage.errors import UsageError


class UnknownIds(UsageError):
    """Ids that are not vertices of the graph at that time (a usage error)."""


@dataclass(frozen=True, slots=True)
class Affected:
    """A vertex reached from the sources: minimum hop distance and one shortest witness path
    (``path[0]`` is a source, ``path[-1]`` is ``id``, ``len(path) == distance + 1``);
    ``may_fail``: reached through a job that loses its access (a *restricts* change);
    ``table_level``: a column change reached it as a whole, not by a column it reads (its column
    use is unknown, or it is past such a reader: ``lineage.analysis.columns``)."""

    id: str
    label: str
    distance: int
    path: tuple[str, ...]
    may_fail: bool = False
    table_level: bool = False


class Engine(Protocol):
    name: str

    def reach(
        self,
        sources: Sequence[str],
        *,
        rules: Sequence[ImpactRule] = IMPACT_RULES,
        max_depth: int | None = None,
        relationships: Collection[str] | None = None,
        runs: bool = False,
    ) -> list[Affected]:
        """Every vertex reachable from ``sources`` along ``rules`` (optionally only the listed
        relationships), within ``max_depth`` hops; sources themselves are not listed, nor runs
        (``lineage.ids.RUN_PREFIXES``: walked through, listed only with ``runs``). Sorted by
        (distance, id)."""
        ...

    def labels(self, ids: Collection[str]) -> dict[str, str]:
        """The label of each id that is a vertex of the graph (unknown ids are absent)."""
        ...


def directions(rules: Sequence[ImpactRule], relationships: Collection[str] | None = None) -> tuple[frozenset[str], frozenset[str]]:
    """(relationships walked src->dst, relationships walked dst->src) for ``rules``, optionally only
    those named in ``relationships``: the one reading of the rule table both engines share."""
    wanted = None if relationships is None else set(relationships)
    chosen = [rule for rule in rules if wanted is None or rule.relationship in wanted]
    for rule in chosen:
        if rule.flows not in (FORWARD, BACKWARD):
            raise ValueError(f"impact rule {rule.relationship}: flows must be {FORWARD!r} or {BACKWARD!r}, not {rule.flows!r}")
    forward = frozenset(rule.relationship for rule in chosen if rule.flows == FORWARD)
    backward = frozenset(rule.relationship for rule in chosen if rule.flows == BACKWARD)
    return forward, backward


def check_depth(max_depth: int | None) -> None:
    """A negative depth is a usage error, not an empty answer."""
    if max_depth is not None and max_depth < 0:
        raise ValueError(f"max_depth must be >= 0, not {max_depth}")


# --------------------------------------------------------------------------------------------
# the temporal traversal: many queries, each at its own instant
# --------------------------------------------------------------------------------------------

IMPORTANT_LABEL = "Table"
"""The label whose weight an ``importance`` factor multiplies (``lineage.analysis.blast``)."""
BEFORE = timedelta(microseconds=1)
"""A change is asked on the graph this long before it (a dropped table is still there)."""


@dataclass(frozen=True)
class Query:
    """Reach from ``sources`` on the graph as of ``moment`` (None: the whole history)."""

    sources: tuple[str, ...]
    moment: datetime | None


@dataclass(frozen=True)
class Impact:
    """What a traversal reports for one change: the full count and summary, the exact sum of
    ``weigh(label) / distance`` over every affected vertex, and the first ones asked for."""

    count: int
    summary: dict[str, int]
    weighted: float
    affected: tuple[Affected, ...]


def query_of(change: Mapping[str, Any]) -> Query:
    """A change is asked on the graph one instant before it (the whole history without a time)."""
    return Query((change["entity_id"],), change["time"] - BEFORE if change.get("time") else None)


class Traversal(Protocol):
    """One engine's temporal traversal: every query on the graph as of its own instant."""

    def impacts(
        self, queries: Sequence[Query], *, max_depth: int | None, limit: int | None, weigh: Callable[[str | None], float],
        importance: Mapping[str, float] | None = None, runs: bool = False,
    ) -> Iterator[tuple[int, Impact]]:
        """``(query number, Impact)`` for every query, in query order, with the first ``limit``
        affected vertices of each (all when None); ``Impact.weighted`` sums ``weigh(label) *
        importance / distance`` over all of them, exactly (importance: of a Table by id, else 1)."""
        ...

    def graph_at(self, moment: datetime, relationships: Sequence[str], labels: Sequence[str]) -> tuple[list[Any], list[Any]]:
        """``(id, label)`` and ``(src, dst, relationship)`` rows of the graph as of ``moment``, for
        ``lineage.analysis.blast.importance_at``."""
        ...

    def edge_rows(self, ids: Any, relationships: Any, *, by: str) -> list[Any]:
        """Edge rows around ids, for the effects (``lineage.analysis.neighbourhood.Neighbourhood``)."""
        ...

    def vertex_labels(self, ids: Any) -> dict[str, str]:
        """Labels of ids, for the effects (``lineage.analysis.neighbourhood.Neighbourhood``)."""
        ...

    def vertex_spans(self, ids: Any) -> dict[str, list[tuple[int, int]]]:
        """Validity intervals of ids, for the effects (``lineage.analysis.neighbourhood.Neighbourhood``)."""
        ...
