"""Blast radius of a change set: what each Change in a window affects, scored and ranked.

Each change is evaluated on the graph as it was one instant before it happened (a dropped
table is still there, with its readers and grants), following the impact rules. All changes
are answered by **one temporal traversal** (:class:`Traversal`: ``lineage.analysis.temporal``
on ``local``, ``lineage.analysis.spark_temporal`` on ``spark``): the graph is loaded once and
each change's walk tests every step's validity interval against its own instant, instead of
building the graph again per instant.

**Impact score** = ``KIND_FACTOR[kind] * sum(LABEL_WEIGHT[label] / distance)`` over the
affected vertices (summed exactly: ``lineage.analysis.exact``): nearer impact counts more, baselines (SLA) and downstream tables weigh most,
people who must be told count once each. The weights are a starting point, kept in these two
tables so a team can tune them; the report prints the formula.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable, Iterable, Iterator, Mapping, Protocol, Sequence

from lineage.analysis.engine import Affected
from lineage.analysis.exact import exact_sum
from lineage.analysis.temporal import Impact, Query

LABEL_WEIGHT: dict[str, float] = {
    "Baseline": 5.0,  # an SLA at risk
    "Table": 3.0,  # downstream data
    "Location": 3.0,  # data in storage (OSS, HDFS) that jobs outside the graph may read
    "Dashboard": 3.0,
    "Node": 2.0,  # production scheduling nodes
    "Chart": 2.0,
    "Flow": 1.0,
    "QualityRule": 1.0,
    "User": 1.0,  # owners and principals with access: people to tell
    "Role": 1.0,
    "Job": 0.5,  # one run of a node: counted, but lightly
    "Column": 0.5,
    "Instance": 0.25,
    "Dag": 0.25,
}
KIND_FACTOR: dict[str, float] = {
    "drop": 2.0,
    "project_deletion": 2.0,
    "field_removal": 1.5,
    "schema_change": 1.0,
    "node_update": 1.0,
    "node_deploy": 1.0,
    "node_delete": 1.5,
    "node_undeploy": 1.5,
    "node_freeze": 1.0,
    "deprecation": 0.5,
    "permission_change": 0.5,
    "owner_change": 0.25,
}
DEFAULT_KIND_FACTOR = 0.25  # creations, tag/term/domain changes: worth listing, rarely urgent
BEFORE = timedelta(microseconds=1)


def weight(label: str | None) -> float:
    """``LABEL_WEIGHT`` of a label (0.5 for the others)."""
    return LABEL_WEIGHT.get(label or "", 0.5)


def score_of(kind: str, weighted: float) -> float:
    """The documented impact score from the exact sum of ``weight / distance`` (:func:`weighted`)."""
    return round(KIND_FACTOR.get(kind, DEFAULT_KIND_FACTOR) * weighted, 3)


def weighted(term_counts: Iterable[tuple[str | None, int, int]]) -> float:
    """``sum(weight(label) / distance)`` over ``(label, distance, count)``, summed exactly."""
    return exact_sum((weight(label) / max(distance, 1), count) for label, distance, count in term_counts)


def score(kind: str, affected: Iterable[Affected]) -> float:
    """The documented impact score of one change."""
    counts = Counter((a.label, a.distance) for a in affected)
    return score_of(kind, weighted((label, distance, count) for (label, distance), count in counts.items()))


@dataclass(frozen=True)
class ChangeImpact:
    """One change, its score and summary over everything it affects, and the affected vertices
    (all of them, or the first ``affected_limit`` in (distance, id) order; ``count`` is always
    the full number)."""

    change_id: str
    entity_id: str
    entity_label: str
    kind: str
    time: datetime | None
    actor: str | None
    event_id: str
    score: float
    summary: dict[str, int]
    count: int = 0
    affected: tuple[Affected, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "change_id": self.change_id, "entity_id": self.entity_id, "entity_label": self.entity_label,
            "kind": self.kind, "time": self.time.isoformat() if self.time else None, "actor": self.actor,
            "event_id": self.event_id, "score": self.score, "summary": self.summary,
            "affected_count": self.count,
            "affected": [{"id": a.id, "label": a.label, "distance": a.distance, "path": list(a.path)} for a in self.affected],
        }


class Traversal(Protocol):
    """One engine's temporal traversal: every query on the graph as of its own instant."""

    def impacts(
        self, queries: Sequence[Query], *, max_depth: int | None, limit: int | None, weigh: Callable[[str | None], float]
    ) -> Iterator[tuple[int, Impact]]:
        """``(query number, Impact)`` for every query, in query order, with the first ``limit``
        affected vertices of each (all when None); ``Impact.weighted`` sums ``weigh(label) /
        distance`` over all of them, exactly."""
        ...


def query_of(change: Mapping[str, Any]) -> Query:
    """A change is asked on the graph one instant before it (the whole history without a time)."""
    return Query((change["entity_id"],), change["time"] - BEFORE if change.get("time") else None)


def _impact(change: Mapping[str, Any], found: Impact) -> ChangeImpact:
    return ChangeImpact(
        change_id=change["change_id"], entity_id=change["entity_id"], entity_label=change["entity_label"],
        kind=change["kind"], time=change.get("time"), actor=change.get("actor"), event_id=change["event_id"],
        score=score_of(change["kind"], found.weighted), summary=found.summary, count=found.count,
        affected=found.affected,
    )


def rank_key(impact: ChangeImpact) -> tuple[Any, ...]:
    """Ranked by score (highest first), then time (none first), then change id."""
    return (-impact.score, *_time_key(impact.time), impact.change_id)


def blast_radius(
    changes: Iterable[Mapping[str, Any]],
    traversal: Traversal,
    *,
    max_depth: int | None = None,
    affected_limit: int | None = None,
) -> list[ChangeImpact]:
    """Score every change on the graph one instant before it, all in one traversal; ranked by
    score (then time, id). Each keeps its first ``affected_limit`` affected vertices (all: None)."""
    changes = list(changes)
    found = traversal.impacts([query_of(c) for c in changes], max_depth=max_depth, limit=affected_limit,
                              weigh=weight)
    return sorted((_impact(changes[i], impact) for i, impact in found), key=rank_key)


def blast_stream(
    changes: Iterable[Mapping[str, Any]], traversal: Traversal, *, max_depth: int | None = None
) -> Iterator[ChangeImpact]:
    """Every change with *all* its affected vertices, ranked, one at a time: a first pass ranks
    (counts only), a second walks the changes again in rank order, so memory holds one chunk of
    answers, not the whole output."""
    changes = list(changes)
    ranked = blast_radius(changes, traversal, max_depth=max_depth, affected_limit=0)
    by_id = {c["change_id"]: c for c in changes}
    ordered = [by_id[r.change_id] for r in ranked]
    for i, impact in traversal.impacts([query_of(c) for c in ordered], max_depth=max_depth, limit=None, weigh=weight):
        yield _impact(ordered[i], impact)


def _time_key(moment: datetime | None) -> tuple[bool, float]:
    return (moment is not None, moment.timestamp() if moment else 0.0)
