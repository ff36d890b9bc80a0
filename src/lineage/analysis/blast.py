"""Blast radius of a change set: what each Change in a window affects, scored and ranked.

Each change is evaluated on the graph as it was one instant before it happened (a dropped
table is still there, with its readers and grants), following the impact rules.

**Impact score** = ``KIND_FACTOR[kind] * sum(LABEL_WEIGHT[label] / distance)`` over the
affected vertices: nearer impact counts more, baselines (SLA) and downstream tables weigh most,
people who must be told count once each. The weights are a starting point, kept in these two
tables so a team can tune them; the report prints the formula.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable, Iterable

from lineage.analysis.engine import Affected, Engine

LABEL_WEIGHT: dict[str, float] = {
    "Baseline": 5.0,  # an SLA at risk
    "Table": 3.0,  # downstream data
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


def score(kind: str, affected: Iterable[Affected]) -> float:
    """The documented impact score of one change."""
    total = sum(LABEL_WEIGHT.get(a.label, 0.5) / max(a.distance, 1) for a in affected)
    return round(KIND_FACTOR.get(kind, DEFAULT_KIND_FACTOR) * total, 3)


@dataclass(frozen=True)
class ChangeImpact:
    """One change, what it affects, and its score."""

    change_id: str
    entity_id: str
    entity_label: str
    kind: str
    time: datetime | None
    actor: str | None
    event_id: str
    score: float
    summary: dict[str, int]
    affected: tuple[Affected, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "change_id": self.change_id, "entity_id": self.entity_id, "entity_label": self.entity_label,
            "kind": self.kind, "time": self.time.isoformat() if self.time else None, "actor": self.actor,
            "event_id": self.event_id, "score": self.score, "summary": self.summary,
            "affected": [{"id": a.id, "label": a.label, "distance": a.distance, "path": list(a.path)} for a in self.affected],
        }


def blast_radius(
    changes: Iterable[dict[str, Any]],
    engine_at: Callable[[datetime | None], Engine],
    *,
    max_depth: int | None = None,
) -> list[ChangeImpact]:
    """Score every change on the graph one instant before it; ranked by score (then time, id).

    ``engine_at(moment)`` opens an engine on the graph as of ``moment``; changes at the same
    instant share one engine.
    """
    by_moment: dict[datetime | None, list[dict[str, Any]]] = {}
    for change in changes:
        moment = change["time"] - BEFORE if change.get("time") else None
        by_moment.setdefault(moment, []).append(change)
    results = []
    for moment, group in sorted(by_moment.items(), key=lambda item: _time_key(item[0])):
        engine = engine_at(moment)
        for change in group:
            affected = tuple(engine.reach([change["entity_id"]], max_depth=max_depth))
            results.append(ChangeImpact(
                change_id=change["change_id"], entity_id=change["entity_id"], entity_label=change["entity_label"],
                kind=change["kind"], time=change.get("time"), actor=change.get("actor"), event_id=change["event_id"],
                score=score(change["kind"], affected), summary=dict(sorted(Counter(a.label for a in affected).items())),
                affected=affected,
            ))
    return sorted(results, key=lambda r: (-r.score, *_time_key(r.time), r.change_id))


def _time_key(moment: datetime | None) -> tuple[bool, float]:
    return (moment is not None, moment.timestamp() if moment else 0.0)
