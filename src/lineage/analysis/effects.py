"""What each change does to people, from the effects table (``lineage.analysis.rules.CHANGE_EFFECTS``).

A grant is not a data break: only *breaks* walk downstream along the data flow. The other
effects are answered from a few edge rows around the changed entity, fetched from either
engine (:class:`Neighbourhood`: ``TemporalGraph`` or ``SparkTraversal``), by the pure
functions here, so both engines give one answer:

* **exposes**: the principals with a path to the entity (``ACCESS_RULES``: grants, roles,
  project membership) as of the change and not one instant before (plus the grantees the
  change names); a sensitive tag added: the tables derived from the entity (``FEEDS``).
* **restricts**: the principals with a path one instant before and not as of the change (plus
  the grantees named); then the nodes and jobs those users run (``RUNS``) that read the data
  (the entity, or what a role grants) within ``lookback``: they *may fail*, and blast radius walks
  downstream of them as a break.
* **notifies**: the owners one instant before (old) and as of the change (new); for data removed
  (a dropped partition, a truncate) also the definitions that read it within ``lookback``, for a
  lifecycle change those of them reading it for longer than the new lifecycle (``ChangeEffect.tells``).
* **breaks**: nothing here; blast radius walks ``IMPACT_RULES`` from the entity.

A permission change opened access when the graph shows a path gained, closed it when it shows
one lost; when it shows neither (or both), its ``statement``/``action``/``operation`` words decide
(``RESTRICT_WORDS``), else it exposes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Collection, Iterable, Mapping, Sequence

from lineage.analysis.engine import Affected
from lineage.analysis.neighbourhood import GRANTS, NEVER, READS, TAGGED, Neighbourhood, Step
from lineage.analysis.rules import (
    ACCESS,
    ACCESS_DEPTH,
    ACCESS_RULES,
    BACKWARD,
    BREAKS,
    DEFAULT_EFFECT,
    EFFECT_BY_KIND,
    EXPOSES,
    FORWARD,
    LONG_READERS,
    NOTIFIES,
    OWNER_RULES,
    OWNERS,
    RESTRICT_WORDS,
    RESTRICTS,
    RUNNABLE_LABELS,
    RUNS,
    SENSITIVE_SPREAD,
    TAGGING,
    ImpactRule,
)
from lineage.analysis.sensitivity import Sensitivity
from lineage.graph.asof import instant
from lineage.ids import is_run

LOOKBACK = timedelta(days=7)
"""A node or job read the data recently enough to run again if it read it in this window before
the change (a daily or weekly schedule)."""
PRINCIPAL_LABELS = frozenset({"User", "Role"})


@dataclass(frozen=True)
class Plan:
    """One change's effect: the vertices it reaches without a walk (``seeds``, paths from the
    entity), and the ids a break walk starts from (``walk``: the entity for a break, the failing
    nodes and jobs for a restriction)."""

    effect: str
    seeds: tuple[Affected, ...] = ()
    walk: tuple[str, ...] = ()
    sensitive: bool = False
    gained: tuple[str, ...] = ()
    lost: tuple[str, ...] = ()
    failing: tuple[str, ...] = field(default_factory=tuple)


def base_effect(kind: str) -> str:
    """The table's effect of a kind (ACCESS and TAGGING still to decide per change)."""
    found = EFFECT_BY_KIND.get(kind)
    return found.effect if found else DEFAULT_EFFECT


def effect_of(change: Mapping[str, Any]) -> str:
    """A change's effect: its kind's, except a node update or deploy that changed nothing its
    outputs depend on (``lineage.analysis.categories``: *metadata*), which notifies its owners."""
    from lineage.analysis.categories import METADATA, NODE_KINDS, categorize

    if change["kind"] in NODE_KINDS and categorize(change).category == METADATA:
        return NOTIFIES
    return base_effect(change["kind"])


def tells(kind: str) -> str:
    """Whom a notice of this kind tells besides the owners (``rules.ChangeEffect.tells``)."""
    found = EFFECT_BY_KIND.get(kind)
    return found.tells if found else OWNERS


def lifecycle_days(change: Mapping[str, Any]) -> int | None:
    """The new lifecycle in days, when the change says it (``lifecycle``); ActionTrail's
    ``ALTER_TABLE_CHANGE_LIFECYCLE`` does not, and then every recent reader is told."""
    try:
        return int(props(change).get("lifecycle") or "")
    except ValueError:
        return None


def props(change: Mapping[str, Any]) -> dict[str, str]:
    raw = change.get("properties") or {}
    return dict(raw) if not isinstance(raw, dict) else raw


def grantees(change: Mapping[str, Any]) -> list[str]:
    """The principals a permission change names (``grantees``, a JSON list), if any."""
    raw = props(change).get("grantees")
    if not raw:
        return []
    try:
        value = json.loads(raw)
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []


def says_restrict(change: Mapping[str, Any]) -> bool:
    """The change's own words take access away (``RESTRICT_WORDS``)."""
    p = props(change)
    text = " ".join(str(p.get(k) or "") for k in ("statement", "action", "operation")).lower()
    return any(word in text for word in RESTRICT_WORDS)


def access_effect(change: Mapping[str, Any], gained: Collection[str], lost: Collection[str]) -> str:
    """EXPOSES or RESTRICTS: what the graph shows, else the change's words."""
    if gained and not lost:
        return EXPOSES
    if lost and not gained:
        return RESTRICTS
    return RESTRICTS if says_restrict(change) else EXPOSES


def sensitive_tag_added(change: Mapping[str, Any]) -> bool:
    """A tag change adding a tag whose name is sensitive (``sensitivity.Sensitivity``)."""
    p = props(change)
    tag = (p.get("modifier") or "").rsplit(":", 1)[-1]
    return (p.get("operation") or "").lower() == "add" and bool(tag) and Sensitivity().sensitive_tag(tag)


def _valid(step: Step, moment: int | None) -> bool:
    return moment is None or step.start <= moment < step.end


def walk(graph: Neighbourhood, queries: Sequence[tuple[str, int | None]], rules: Sequence[ImpactRule],
         max_depth: int | None = None) -> list[dict[str, tuple[str, ...]]]:
    """Per query ``(source, instant)``: every vertex reached along ``rules`` -> its smallest
    shortest path (the engines' witness rule), all queries one level at a time (one fetch of edge
    rows per level and direction)."""
    forward = [r.relationship for r in rules if r.flows == FORWARD]
    backward = [r.relationship for r in rules if r.flows == BACKWARD]
    found: list[dict[str, tuple[str, ...]]] = [{source: (source,)} for source, _ in queries]
    frontier: list[list[str]] = [[source] for source, _ in queries]
    depth = 0
    while any(frontier) and (max_depth is None or depth < max_depth):
        depth += 1
        ids = {v for level in frontier for v in level}
        nexts: dict[str, list[Step]] = {}
        if forward:
            for s in graph.edge_rows(ids, forward, by="src"):
                nexts.setdefault(s.src, []).append(Step(s.src, s.dst, s.relationship, s.start, s.end, s.last))
        if backward:
            for s in graph.edge_rows(ids, backward, by="dst"):
                nexts.setdefault(s.dst, []).append(Step(s.dst, s.src, s.relationship, s.start, s.end, s.last))
        for q, (_, moment) in enumerate(queries):
            following: list[str] = []
            for vertex in frontier[q]:  # in path order: the first to reach a vertex is its witness
                fresh = sorted({s.dst for s in nexts.get(vertex, ()) if s.dst not in found[q] and s.src != s.dst
                                and _valid(s, moment)})
                for v in fresh:
                    found[q][v] = found[q][vertex] + (v,)
                following.extend(fresh)
            frontier[q] = following
    for q, (source, _) in enumerate(queries):
        found[q].pop(source, None)
    return found


def _affected(paths: Mapping[str, tuple[str, ...]], labels: Mapping[str, str], *, may_fail: bool = False) -> list[Affected]:
    return sorted((Affected(v, labels.get(v), len(p) - 1, p, may_fail) for v, p in paths.items()),  # type: ignore[arg-type]
                  key=lambda a: (a.distance, a.id))


def plan(changes: Sequence[Mapping[str, Any]], graph: Neighbourhood, *, lookback: timedelta = LOOKBACK) -> list[Plan]:
    """Every change's :class:`Plan`, from the effects table and a few batched edge fetches."""
    effects = [effect_of(c) for c in changes]
    before = [instant(c["time"]) - 1 if c.get("time") else None for c in changes]
    after = [instant(c["time"]) if c.get("time") else None for c in changes]
    access = [i for i, e in enumerate(effects) if e == ACCESS]
    owners = [i for i, e in enumerate(effects) if e not in (BREAKS, ACCESS)]
    spread = [i for i, e in enumerate(effects) if e == TAGGING and sensitive_tag_added(changes[i])]

    def entity(i: int) -> str:
        return changes[i]["entity_id"]

    had = walk(graph, [(entity(i), before[i]) for i in access], ACCESS_RULES, ACCESS_DEPTH)
    has = walk(graph, [(entity(i), after[i]) for i in access], ACCESS_RULES, ACCESS_DEPTH)
    told = walk(graph, [(entity(i), before[i]) for i in owners] + [(entity(i), after[i]) for i in owners], OWNER_RULES, 1)
    derived = walk(graph, [(entity(i), after[i]) for i in spread], SENSITIVE_SPREAD)
    named = {i: grantees(changes[i]) for i in access}
    ids: set[str] = {v for found in (*had, *has, *told, *derived) for v in found}
    ids.update(g for found in named.values() for g in found)
    labels = graph.vertex_labels(ids)
    plans: dict[int, Plan] = {}
    shown: dict[int, tuple[str, dict[str, tuple[str, ...]]]] = {}
    for n, i in enumerate(access):
        people = {v: p for v, p in has[n].items() if labels.get(v) in PRINCIPAL_LABELS}
        previous = {v: p for v, p in had[n].items() if labels.get(v) in PRINCIPAL_LABELS}
        gained = {v: p for v, p in people.items() if v not in previous}
        lost = {v: p for v, p in previous.items() if v not in people}
        effect = access_effect(changes[i], gained, lost)
        shown[i] = (effect, dict(gained if effect == EXPOSES else lost))
    for i, chosen in attribute(changes, shown, named, set(labels)).items():
        effect = shown[i][0]
        plans[i] = Plan(effect, tuple(_affected(chosen, labels)), sensitive=False,
                        **({"gained": tuple(sorted(chosen))} if effect == EXPOSES else {"lost": tuple(sorted(chosen))}))
    for n, i in enumerate(owners):
        if i in spread:
            continue
        paths = {**told[n + len(owners)], **told[n]}
        plans[i] = Plan(NOTIFIES, tuple(_affected(paths, labels)))
    _readers(graph, changes, plans, before, lookback)
    for n, i in enumerate(spread):
        tables = {v: p for v, p in derived[n].items() if labels.get(v) == "Table"}
        plans[i] = Plan(EXPOSES, tuple(_affected(tables, labels)), sensitive=True)
    _sensitive(graph, changes, plans, after)
    _failing(graph, changes, plans, before, lookback)
    return [plans.get(i) or Plan(BREAKS, walk=(entity(i),)) for i in range(len(changes))]


def attribute(changes: Sequence[Mapping[str, Any]], shown: Mapping[int, tuple[str, dict[str, tuple[str, ...]]]],
              named: Mapping[int, list[str]], known: Collection[str]) -> dict[int, dict[str, tuple[str, ...]]]:
    """Who each access change gave (or took) access to. The graph shows what opened or closed on an
    entity at an instant, not which of the changes then did it, so: a change that names grantees
    gets those (and the members reached through them); the rest of what opened (closed) on one
    entity at one instant is counted once, by the first of its other changes (by change id)."""
    out: dict[int, dict[str, tuple[str, ...]]] = {}
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, (effect, _) in shown.items():
        groups.setdefault((changes[i]["entity_id"], changes[i].get("time"), effect), []).append(i)
    for members in groups.values():
        claimed: set[str] = set()
        for i in members:
            entity = changes[i]["entity_id"]
            names = [g for g in named[i] if g in known and g != entity]
            if names:
                paths = {v: p for v, p in shown[i][1].items() if any(g in p for g in names)}
                for g in names:
                    paths.setdefault(g, (entity, g))
                out[i] = paths
                claimed.update(paths)
        rest = [i for i in sorted(members, key=lambda i: changes[i]["change_id"]) if i not in out]
        for n, i in enumerate(rest):
            out[i] = {v: p for v, p in shown[i][1].items() if v not in claimed} if n == 0 else {}
    return out


def _sensitive(graph: Neighbourhood, changes: Sequence[Mapping[str, Any]], plans: dict[int, Plan],
               after: Sequence[int | None]) -> None:
    """Mark exposures of data carrying a sensitive tag (directly) as of the change."""
    from dataclasses import replace

    exposing = [i for i, p in plans.items() if p.effect == EXPOSES and not p.sensitive]
    if not exposing:
        return
    rows = graph.edge_rows({changes[i]["entity_id"] for i in exposing}, [TAGGED], by="src")
    rule = Sensitivity()
    for i in exposing:
        tags = [s.dst for s in rows if s.src == changes[i]["entity_id"] and _valid(s, after[i])]
        if any(rule.sensitive_tag(t.split(":", 2)[-1]) for t in tags):
            plans[i] = replace(plans[i], sensitive=True)


def _failing(graph: Neighbourhood, changes: Sequence[Mapping[str, Any]], plans: dict[int, Plan],
             before: Sequence[int | None], lookback: timedelta) -> None:
    """For each restriction: the nodes and jobs its users run that read the data in ``lookback``
    and that still exist one instant before the change (a deleted node never runs again)."""
    from dataclasses import replace

    restricting = [i for i, p in plans.items() if p.effect == RESTRICTS]
    users = {a.id for i in restricting for a in plans[i].seeds if a.label == "User"}
    if not users:
        return
    entities = {changes[i]["entity_id"] for i in restricting}
    granted = graph.edge_rows(entities, [GRANTS], by="src")  # what a role (or a user) was granted
    ran = graph.edge_rows(users, RUNS, by="src")
    labels = graph.vertex_labels({s.dst for s in ran})
    runnable = {s.dst for s in ran if labels.get(s.dst) in RUNNABLE_LABELS}
    reads = graph.edge_rows(runnable, [READS], by="src")
    spans = graph.vertex_spans(runnable)
    window = int(lookback.total_seconds() * 1_000_000)
    for i in restricting:
        moment = before[i]
        data = {changes[i]["entity_id"]} | {s.dst for s in granted if s.src == changes[i]["entity_id"]
                                            and _valid(s, moment)}
        paths: dict[str, tuple[str, ...]] = {}
        for principal in plans[i].seeds:
            if principal.label != "User":
                continue
            for s in sorted(ran, key=lambda s: s.dst):
                if s.src != principal.id or s.dst not in runnable or not _valid(s, moment):
                    continue
                if moment is not None and not any(a <= moment < b for a, b in spans.get(s.dst, ())):
                    continue  # deleted (or not yet created) before the change: it runs no more
                if any(r.src == s.dst and r.dst in data and _read_recently(r, moment, window) for r in reads):
                    path = principal.path + (s.dst,)
                    if s.dst not in paths or (len(path), path) < (len(paths[s.dst]), paths[s.dst]):
                        paths[s.dst] = path
        if paths:
            jobs = _affected(paths, labels, may_fail=True)
            plans[i] = replace(plans[i], seeds=tuple(sorted((*plans[i].seeds, *jobs), key=lambda a: (a.distance, a.id))),
                               walk=tuple(sorted(paths)), failing=tuple(sorted(paths)))


def _readers(graph: Neighbourhood, changes: Sequence[Mapping[str, Any]], plans: dict[int, Plan],
             before: Sequence[int | None], lookback: timedelta) -> None:
    """Add to each notice that tells readers (data removed, a lifecycle shortened) the definitions
    that read the entity within ``lookback`` before it and still exist then (a run happened once:
    its node reads too). A lifecycle change of ``n`` days tells only those reading it for longer
    than ``n`` days: their reads may reach data the new lifecycle reclaims."""
    from dataclasses import replace

    telling = [i for i, p in plans.items() if p.effect == NOTIFIES and tells(changes[i]["kind"]) != OWNERS]
    if not telling:
        return
    rows = [s for s in graph.edge_rows({changes[i]["entity_id"] for i in telling}, [READS], by="dst")
            if not is_run(s.src)]
    labels = graph.vertex_labels({s.src for s in rows})
    spans = graph.vertex_spans({s.src for s in rows})
    window = int(lookback.total_seconds() * 1_000_000)
    for i in telling:
        moment, entity = before[i], changes[i]["entity_id"]
        days = lifecycle_days(changes[i]) if tells(changes[i]["kind"]) == LONG_READERS else None
        reach = None if moment is None or days is None else moment - days * 86_400_000_000
        readers = {s.src for s in rows if s.dst == entity and s.src != entity and _read_recently(s, moment, window)
                   and (reach is None or s.start <= reach)
                   and (moment is None or any(a <= moment < b for a, b in spans.get(s.src, ())))}
        found = {a.id: a for a in plans[i].seeds}
        for reader in sorted(readers - set(found)):
            found[reader] = Affected(reader, labels.get(reader), 1, (entity, reader), False)  # type: ignore[arg-type]
        plans[i] = replace(plans[i], seeds=tuple(sorted(found.values(), key=lambda a: (a.distance, a.id))))


def _read_recently(step: Step, moment: int | None, window: int) -> bool:
    """A READS row that began before the change and was valid, and seen, within the window before it."""
    if moment is None:
        return True
    return step.start <= moment and step.end > moment - window and (step.last == NEVER or step.last >= moment - window)


def combine(plan_: Plan, walked: Iterable[Affected]) -> list[Affected]:
    """A restriction's seeds and what the break walk from its failing jobs reached (each walked
    vertex behind its job's path, *may fail*); the nearest wins, then the smallest path."""
    best: dict[str, Affected] = {a.id: a for a in plan_.seeds}
    starts = {a.id: a for a in plan_.seeds if a.id in plan_.walk}
    for a in walked:
        job = starts.get(a.path[0])
        if job is None:
            continue
        path = job.path + a.path[1:]
        candidate = Affected(a.id, a.label, len(path) - 1, path, True)
        held = best.get(a.id)
        if a.id != plan_.seeds[0].path[0] and (held is None or (candidate.distance, candidate.path) < (held.distance, held.path)):
            best[a.id] = candidate
    return sorted(best.values(), key=lambda a: (a.distance, a.id))
