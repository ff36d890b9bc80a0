"""Blast radius of a change set: what each Change in a window affects, scored and ranked.

Each change is evaluated on the graph as it was one instant before it happened (a dropped
table is still there, with its readers and grants), following the impact rules. All changes
are answered by **one temporal traversal** (``lineage.analysis.engine.Traversal``:
``lineage.analysis.temporal`` on ``local``, ``lineage.analysis.spark_temporal`` on ``spark``;
the caller opens it, ``lineage.analysis.engines.traversal``): the graph is loaded once and each
change's walk tests every step's validity interval against its own instant, instead of building
the graph again per instant.

Each change reaches people its own way (``lineage.analysis.rules.CHANGE_EFFECTS``, answered by
``lineage.analysis.effects``): only a *break* walks downstream; an *exposure* reaches the
principals who gain access (or the tables a sensitive tag spreads to), a *restriction* the
principals who lose it and the jobs they run that read the data (*may fail*, and downstream of
them), a *notice* the old and new owners (and, for data removed, its recent readers). A data
write (a partition added, an insert) is no Change at all (``rules.OPERATIONS``).

**Impact score** = ``factor * sum(LABEL_WEIGHT[label] * importance / distance)`` over the
affected vertices (summed exactly: ``lineage.analysis.exact``), where ``factor`` is
``KIND_FACTOR[kind]`` for a break and ``EFFECT_FACTOR[effect]`` otherwise (an exposure of
sensitive data times ``SENSITIVE_FACTOR``). Every break factor is at least 1 and every other
factor below 1, so a break outranks an exposure of the same reach. Nearer impact counts more,
baselines (SLA) and downstream tables weigh most, people count once each. The weights are a
starting point, kept in these tables so a team can tune them; the report prints the formula.

**Importance** (1 for every vertex but a Table) is the table's PageRank over the lineage graph
as ``lineage hygiene`` defines it (FEEDS between datasets and READS turned table -> reader,
:mod:`lineage.analysis.hygiene`), as of the window's end (``at``; by default the last change's
time), divided by the smallest PageRank of that graph, the rank of a table nothing flows into:
a table nothing feeds (or not in the graph then) weighs ``LABEL_WEIGHT["Table"]`` as before,
one fed by much more, capped at :data:`IMPORTANCE_CAP` so one hub cannot decide a ranking, and
rounded to :data:`IMPORTANCE_DIGITS` decimals. It is computed **once per run, on the driver with
networkx** (:func:`importance_at`), from the FEEDS/READS rows the traversal already holds
(``Traversal.graph_at``: numpy arrays on ``local``, a collect of those rows on ``spark``), sorted
so both engines build the same graph, and handed to both traversals as a per-vertex factor.
Not GraphFrames' ``pageRank`` on Spark: its result differs from networkx's within the tolerance
of ``lineage.analysis.hygiene.SCORE_TOLERANCE``, which would make the exact-summed scores
differ between the engines; the rows are small (datasets and their readers, not events).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from lineage.analysis import effects as effects_of
from lineage.analysis.engine import IMPORTANT_LABEL, Affected, Impact, Query, Traversal, query_of
from lineage.analysis.exact import exact_sum
from lineage.analysis.rules import BREAKS, EXPOSES, NOTIFIES, RESTRICTS

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
    "column_type_change": 1.0,
}
"""The score factor of each *break* (``rules.CHANGE_EFFECTS``); every one is at least 1."""
DEFAULT_KIND_FACTOR = 1.0  # a break of a kind not listed
EFFECT_FACTOR: dict[str, float] = {
    EXPOSES: 0.5,  # principals who gain access (x SENSITIVE_FACTOR on sensitive data)
    RESTRICTS: 0.75,  # principals who lose access, and the jobs that may fail with them
    NOTIFIES: 0.25,  # people to tell
}
SENSITIVE_FACTOR = 1.5  # an exposure of data carrying a sensitive tag (still below any break)
IMPORTANCE_CAP = 10.0
"""The largest importance of a table: ten times a table nothing feeds."""
IMPORTANCE_DIGITS = 6
FLOW_RELATIONSHIPS = ("FEEDS", "READS")
"""The relationships PageRank reads (``lineage.analysis.hygiene.flow_graph``)."""
CHUNK = 512  # changes evaluated at once by blast_stream


def weight(label: str | None) -> float:
    """``LABEL_WEIGHT`` of a label (0.5 for the others)."""
    return LABEL_WEIGHT.get(label or "", 0.5)


def factor_of(kind: str, effect: str = BREAKS, sensitive: bool = False) -> float:
    """The score factor of a change: its kind's for a break, its effect's otherwise."""
    if effect == BREAKS:
        return KIND_FACTOR.get(kind, DEFAULT_KIND_FACTOR)
    return EFFECT_FACTOR[effect] * (SENSITIVE_FACTOR if sensitive and effect == EXPOSES else 1.0)


def score_of(kind: str, weighted: float, effect: str = BREAKS, sensitive: bool = False) -> float:
    """The documented impact score from the exact sum of ``weight / distance`` (:func:`weighted`)."""
    return round(factor_of(kind, effect, sensitive) * weighted, 3)


def weighted(term_counts: Iterable[tuple[str | None, int, int, float]]) -> float:
    """``sum(weight(label) * importance / distance)`` over ``(label, distance, count,
    importance)``, summed exactly (the engines compute each term in this order too)."""
    return exact_sum((weight(label) * importance / max(distance, 1), count)
                     for label, distance, count, importance in term_counts)


def score(kind: str, affected: Iterable[Affected], effect: str = BREAKS, sensitive: bool = False,
          importance: Mapping[str, float] | None = None) -> float:
    """The documented impact score of one change."""
    importance = importance or {}
    counts = Counter((a.label, a.distance, importance.get(a.id, 1.0) if a.label == IMPORTANT_LABEL else 1.0)
                     for a in affected)
    return score_of(kind, weighted((label, distance, count, factor)
                                   for (label, distance, factor), count in counts.items()), effect, sensitive)


def importance_at(traversal: Traversal, moment: datetime | None) -> dict[str, float]:
    """Each Table's importance as of ``moment`` (the module's docstring), the tables of
    importance 1 left out; empty without a moment."""
    from lineage.analysis import hygiene

    if moment is None:
        return {}
    vertices, edges = traversal.graph_at(moment, FLOW_RELATIONSHIPS, hygiene.DATASET_LABELS)
    vertices = sorted(vertices, key=lambda v: v["id"])
    edges = sorted(edges, key=lambda e: (e["src"], e["dst"], e["relationship"]))
    ranks = hygiene.pagerank(hygiene.flow_graph(hygiene.dataset_graph(vertices, edges), edges,
                                                {v["id"] for v in vertices}))
    if not ranks:
        return {}
    least = min(ranks.values())
    found = {v["id"]: round(min(IMPORTANCE_CAP, ranks[v["id"]] / least), IMPORTANCE_DIGITS)
             for v in vertices if v["label"] == IMPORTANT_LABEL and v["id"] in ranks}
    return {vid: value for vid, value in found.items() if value != 1.0}


def window_end(changes: Sequence[Mapping[str, Any]]) -> datetime | None:
    """The instant importance is asked at when no window end is given: the last change's time."""
    return max((c["time"] for c in changes if c.get("time") is not None), default=None)


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
    effect: str = BREAKS
    gained: tuple[str, ...] = ()  # exposes: principals who gain access
    lost: tuple[str, ...] = ()  # restricts: principals who lose access
    may_fail: tuple[str, ...] = ()  # restricts: their nodes and jobs that read the data
    reported_by: tuple[Mapping[str, Any], ...] = ()  # every source's report of it (lineage.graph.reports)
    failed_after: tuple[Mapping[str, Any], ...] = ()  # runs that failed after it (lineage.analysis.runs)
    properties: Mapping[str, Any] = field(default_factory=dict)  # the change record's (its columns)

    def category(self) -> str | None:
        """``category`` of ``blast-radius --json``: a schema change's additive / breaking / table
        (``lineage.analysis.categories``); None for any other kind."""
        from lineage.analysis.categories import categorize, is_categorized

        return categorize(self._record()).category if is_categorized(self.kind) else None

    def settings(self) -> list[dict[str, Any]]:
        """``settings`` of ``blast-radius --json``: what a node update changed, ``[{"setting",
        "before", "after"}]`` (empty for any other kind, or when not known)."""
        from lineage.analysis.categories import NODE_KINDS, categorize

        if self.kind not in NODE_KINDS:
            return []
        return [{"setting": k, "before": b, "after": a} for k, b, a in categorize(self._record()).settings]

    def columns(self) -> list[dict[str, str]]:
        """``columns`` of ``blast-radius --json``: ``[{"column", "change"}]`` of a change that names
        columns (removed, type_changed, added, modified: ``lineage.analysis.categories``), else empty."""
        from lineage.analysis.categories import categorize

        return categorize(self._record()).to_json()

    def script(self) -> dict[str, Any] | None:
        """``script`` of ``blast-radius --json``: what a node update or deploy did to its script
        (``lineage.graph.script_changes``: the category and, per table it writes, the columns
        added, removed or redefined, and why), None when not known or another kind."""
        import json

        said = self.properties.get("script")
        try:
            return json.loads(said) if said else None
        except ValueError:
            return None

    def rows_changed(self) -> list[str]:
        """What of its script decides every row a node change writes and changed (``"a join"``,
        ``"the filter"``), over the tables its script writes, sorted; empty when the script change
        was narrower (its columns say it) or is not known. The text answer and the report say it."""
        tables = (self.script() or {}).get("tables", [])
        return sorted({p for t in tables if t.get("category") == "table" for p in t.get("parts") or ["its query"]})

    def _record(self) -> dict[str, Any]:
        return {"kind": self.kind, "entity_id": self.entity_id, "properties": self.properties}

    def to_json(self) -> dict[str, Any]:
        return {
            "change_id": self.change_id, "entity_id": self.entity_id, "entity_label": self.entity_label,
            "kind": self.kind, "effect": self.effect, "time": self.time.isoformat() if self.time else None,
            "actor": self.actor, "event_id": self.event_id, "score": self.score, "summary": self.summary,
            "affected_count": self.count, "gained": list(self.gained), "lost": list(self.lost),
            "may_fail": list(self.may_fail), "reported_by": [dict(r) for r in self.reported_by],
            "columns": self.columns(), "category": self.category(), "settings": self.settings(),
            "script": self.script(),
            "failed_after": [dict(r) for r in self.failed_after],
            "affected": [{"id": a.id, "label": a.label, "distance": a.distance, "path": list(a.path),
                          "may_fail": a.may_fail, "table_level": a.table_level} for a in self.affected],
        }


def _of(change: Mapping[str, Any]) -> dict[str, Any]:
    """What a ChangeImpact repeats of its change record."""
    return {"change_id": change["change_id"], "entity_id": change["entity_id"], "entity_label": change["entity_label"],
            "kind": change["kind"], "time": change.get("time"), "actor": change.get("actor"),
            "event_id": change["event_id"], "reported_by": tuple(change.get("reported_by") or ()),
            "properties": dict(change.get("properties") or {})}


def _impact(change: Mapping[str, Any], found: Impact) -> ChangeImpact:
    """A break: its walk from the entity, as the traversal answered it."""
    return ChangeImpact(
        **_of(change),
        score=score_of(change["kind"], found.weighted), summary=found.summary, count=found.count,
        affected=found.affected,
    )


def _column(change: Mapping[str, Any], affected: Sequence[Affected], limit: int | None,
            importance: Mapping[str, float]) -> ChangeImpact:
    """A break scored by its column-precise affected set (``lineage.analysis.columns``)."""
    summary = dict(sorted(Counter(a.label for a in affected).items(), key=lambda kv: (kv[0] is None, kv[0] or "")))
    return ChangeImpact(
        **_of(change),
        score=score(change["kind"], affected, importance=importance), summary=summary, count=len(affected),
        affected=tuple(affected if limit is None else affected[:limit]),
    )


def _reached(change: Mapping[str, Any], plan: "effects_of.Plan", affected: Sequence[Affected],
             limit: int | None, importance: Mapping[str, float]) -> ChangeImpact:
    """An exposure, restriction or notice: what its plan (and a restriction's walk) reached."""
    summary = dict(sorted(Counter(a.label for a in affected).items(), key=lambda kv: (kv[0] is None, kv[0] or "")))
    return ChangeImpact(
        **_of(change),
        score=score(change["kind"], affected, plan.effect, plan.sensitive, importance), summary=summary,
        count=len(affected),
        affected=tuple(affected if limit is None else affected[:limit]), effect=plan.effect, gained=plan.gained,
        lost=plan.lost, may_fail=plan.failing,
    )


def rank_key(impact: ChangeImpact) -> tuple[Any, ...]:
    """Ranked by score (highest first), then time (none first), then change id."""
    return (-impact.score, *_time_key(impact.time), impact.change_id)


def evaluate(
    changes: Sequence[Mapping[str, Any]], traversal: Traversal, *, max_depth: int | None = None,
    limit: int | None = None, plans: Sequence["effects_of.Plan"] | None = None, columns: Any = None,
    importance: Mapping[str, float] | None = None, keep: Callable[[ChangeImpact], ChangeImpact] | None = None,
) -> list[ChangeImpact]:
    """Every change's impact, in the order given: its plan (``lineage.analysis.effects``; planned
    here unless given, as changes at one instant are attributed together), then one traversal for
    all break walks (the breaks' first ``limit`` affected kept; a restriction's walk whole, as its
    score needs it behind its jobs). ``importance``: :func:`importance_at` (none: every table 1).
    ``keep``: applied to each answer as it comes, so only what it keeps is held (the report keeps
    of every affected set what its sections read: millions of pairs would not fit as objects).
    ``columns``: the column rows (``lineage.analysis.columns.timeline_of``), or a function that
    reads them: then they are read here and let go before the table-level walk (0.8 GB on the
    platform of ``benchmarks/pairs.py``, which a Spark run held beside its JVM's peak)."""
    importance = importance or {}
    keep = keep or (lambda impact: impact)
    if plans is None:
        plans = effects_of.plan(changes, traversal)  # type: ignore[arg-type]
    if callable(columns):
        columns = columns()
    if columns is not None:  # a sensitive tag on a column: where its values flow (lineage.analysis.columns)
        from lineage.analysis.columns import tag_plans

        plans = tag_plans(changes, plans, columns)
    out: list[ChangeImpact | None] = [None] * len(changes)
    breaks = [i for i, p in enumerate(plans) if p.effect == BREAKS]
    if columns is not None:  # field removals and type changes: column-precise (lineage.analysis.columns)
        from lineage.analysis.columns import breaks as column_breaks

        for i, affected in column_breaks(changes, breaks, traversal, columns, max_depth=max_depth).items():
            out[i] = keep(_column(changes[i], affected, limit, importance))
        breaks = [i for i in breaks if out[i] is None]
    del columns  # read by a loader: let go before the table-level walk, which holds the most
    for n, found in traversal.impacts([query_of(changes[i]) for i in breaks], max_depth=max_depth, limit=limit,
                                      weigh=weight, importance=importance):
        out[breaks[n]] = keep(_impact(changes[breaks[n]], found))
    walked = [i for i, p in enumerate(plans) if p.effect == RESTRICTS and p.walk]
    walks = traversal.impacts([Query(plans[i].walk, query_of(changes[i]).moment) for i in walked],
                              max_depth=max_depth, limit=None, weigh=weight)
    reached = {walked[n]: found.affected for n, found in walks}
    for i, p in enumerate(plans):
        if p.effect != BREAKS:
            affected = effects_of.combine(p, reached[i]) if i in reached else list(p.seeds)
            out[i] = keep(_reached(changes[i], p, affected, limit, importance))
    return [o for o in out if o is not None]


def blast_radius(
    changes: Iterable[Mapping[str, Any]],
    traversal: Traversal,
    *,
    max_depth: int | None = None,
    affected_limit: int | None = None,
    columns: Any = None,
    at: datetime | None = None,
    importance: Mapping[str, float] | None = None,
    keep: Callable[[ChangeImpact], ChangeImpact] | None = None,
) -> list[ChangeImpact]:
    """Score every change on the graph around it (breaks: one instant before it, all in one
    traversal); ranked by score (then time, id). Each keeps its first ``affected_limit`` affected
    vertices (all: None), then what ``keep`` keeps of it (:func:`evaluate`). Tables weigh by their
    importance as of ``at`` (the window's end; by default the last change's time), computed once
    here unless given."""
    changes = list(changes)
    if importance is None:
        importance = importance_at(traversal, at or window_end(changes))
    return sorted(evaluate(changes, traversal, max_depth=max_depth, limit=affected_limit, columns=columns,
                           importance=importance, keep=keep), key=rank_key)


def blast_stream(
    changes: Iterable[Mapping[str, Any]], traversal: Traversal, *, max_depth: int | None = None, columns: Any = None,
    at: datetime | None = None, importance: Mapping[str, float] | None = None,
) -> Iterator[ChangeImpact]:
    """Every change with *all* its affected vertices, ranked, one at a time: a first pass ranks
    (counts only), a second evaluates the changes again in rank order, ``CHUNK`` at a time, so
    memory holds one chunk of answers, not the whole output. Importance as :func:`blast_radius`."""
    changes = list(changes)
    if importance is None:
        importance = importance_at(traversal, at or window_end(changes))
    plans = effects_of.plan(changes, traversal)  # type: ignore[arg-type]
    ranked = sorted(evaluate(changes, traversal, max_depth=max_depth, limit=0, plans=plans, columns=columns,
                             importance=importance), key=rank_key)
    by_id = {c["change_id"]: (c, p) for c, p in zip(changes, plans)}
    ordered = [by_id[r.change_id] for r in ranked]
    for first in range(0, len(ordered), CHUNK):
        chunk = ordered[first:first + CHUNK]
        yield from evaluate([c for c, _ in chunk], traversal, max_depth=max_depth, limit=None,
                            plans=[p for _, p in chunk], columns=columns, importance=importance)


def _time_key(moment: datetime | None) -> tuple[bool, float]:
    return (moment is not None, moment.timestamp() if moment else 0.0)
