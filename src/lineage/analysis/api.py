"""The small Python API the CLI, the notebooks and the weekly report use.

Every function takes a warehouse directory and answers one question; results have
``to_json()`` in the CLI contract's shape (DESIGN.md). ``as_of`` defaults to now.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from lineage import ids
from lineage.analysis import access as access_analysis
from lineage.analysis import columns
from lineage.analysis import hygiene as hygiene_analysis
from lineage.analysis import ownership, propagation
from lineage.analysis.blast import ChangeImpact, blast_radius, blast_stream
from lineage.analysis.engine import Affected, Traversal, UnknownIds
from lineage.analysis.engines import Question, choose_engine, open_engine, traversal
from lineage.analysis.hygiene import DEFAULT_TOP, DEFAULT_UNUSED_DAYS, Hygiene
from lineage.analysis.rules import IMPACT_RULES, UPSTREAM_RULES, ImpactRule
from lineage.graph.api import (as_rows, built, change_rows, collector_paused, edge_ends, load_rows, load_tables,
                               property_values, rows_read, to_time)

# views the notebooks draw (lineage.analysis.views): re-exported so notebooks import one API
from lineage.analysis.views import (  # noqa: F401
    STRUCTURAL,
    central_tables,
    feeds_neighbourhood,
    grant_timeline,
    impact_subgraph,
    lineage_diff,
    people_to_tell,
    tagged,
    time_span,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class ImpactResult:
    sources: tuple[str, ...]
    affected: tuple[Affected, ...]
    as_of: datetime
    engine: str

    @property
    def summary(self) -> dict[str, int]:
        return dict(sorted(Counter(a.label for a in self.affected).items()))

    def to_json(self) -> dict[str, Any]:
        """Exactly the contract: sources, affected (id, label, distance, path), summary."""
        return {
            "sources": list(self.sources),
            "affected": [{"id": a.id, "label": a.label, "distance": a.distance, "path": list(a.path)} for a in self.affected],
            "summary": self.summary,
        }


def impact(
    warehouse: str | Path,
    ids: Sequence[str],
    *,
    as_of: Any = None,
    max_depth: int | None = None,
    engine: str = "auto",
    relationships: Sequence[str] | None = None,
    spark: "SparkSession | None" = None,
) -> ImpactResult:
    """What breaks and who must be told if ``ids`` change (downstream along the impact rules)."""
    return _reach(ImpactResult, warehouse, ids, IMPACT_RULES, as_of=as_of, max_depth=max_depth, engine=engine,
                  relationships=relationships, spark=spark)


@dataclass(frozen=True)
class UpstreamResult(ImpactResult):
    """Where the sources' data comes from: ``affected`` are the upstream vertices (tables, and the
    jobs and nodes writing them), ``path`` runs from a source back to each."""

    def to_json(self) -> dict[str, Any]:
        """The contract: sources, upstream (id, label, distance, path), summary."""
        doc = super().to_json()
        return {"sources": doc["sources"], "upstream": doc["affected"], "summary": doc["summary"]}


def upstream(
    warehouse: str | Path,
    ids: Sequence[str],
    *,
    as_of: Any = None,
    max_depth: int | None = None,
    engine: str = "auto",
    spark: "SparkSession | None" = None,
) -> UpstreamResult:
    """Where ``ids``' data comes from, hop by hop (the upstream rules: the reverse of the data flow);
    the job runs that wrote the data are listed too (provenance, where impact lists definitions)."""
    return _reach(UpstreamResult, warehouse, ids, UPSTREAM_RULES, as_of=as_of, max_depth=max_depth, engine=engine,
                  spark=spark, runs=True)


@collector_paused()
def _reach(kind: type[ImpactResult], warehouse: str | Path, ids: Sequence[str], rules: Sequence[ImpactRule], *,
           as_of: Any, max_depth: int | None, engine: str, relationships: Sequence[str] | None = None,
           spark: "SparkSession | None" = None, runs: bool = False) -> Any:
    moment = access_analysis.moment_of(as_of)
    runner = open_engine(warehouse, engine=engine, as_of=moment, spark=spark)
    known = runner.labels(ids)
    missing = [i for i in ids if i not in known]
    if missing:
        raise UnknownIds(f"not in the graph as of {moment.isoformat()}: {', '.join(missing)}")
    affected = runner.reach(list(dict.fromkeys(ids)), rules=rules, max_depth=max_depth, relationships=relationships,
                            runs=runs)
    return kind(tuple(dict.fromkeys(ids)), tuple(affected), moment, runner.name)


def _principal_json(p: Any) -> dict[str, Any]:
    """One principal of ``access --json``: DESIGN.md's keys (id, label, name, privileges, path)
    and more (kinds, since, until): ``name`` is the person's display name (``lineage.graph.fold.
    person_names``), a role's or a group's name."""
    return {"id": p.id, "label": p.label, "name": p.name, "privileges": list(p.privileges),
            "path": list(p.paths[0]), "kinds": list(p.kinds), "since": _iso(p.since), "until": _iso(p.expires_at)}


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


@dataclass(frozen=True)
class AccessResult:
    target: str
    principals: tuple[Any, ...]  # access_analysis.Principal: who can read through grants
    as_of: datetime
    owners: tuple[Any, ...] = ()  # MaxCompute owners and project admins (lineage.analysis.ownership)
    metadata_owners: tuple[tuple[str, Any], ...] = ()  # (id, since): OWNS edges, which grant nothing
    named: tuple[tuple[str, str, str], ...] = ()  # (id, label, name) of the metadata owners

    def to_json(self) -> dict[str, Any]:
        """The contract's keys (target; principals with id, label, name, privileges, path -- the
        grants) and what the human table also shows: ``as_of``, ``owners`` (MaxCompute owner and
        admins, every privilege) and ``metadata_owners`` (OWNS edges, no access by themselves)."""
        who = {i: (label, name) for i, label, name in self.named}
        return {
            "target": self.target,
            "as_of": _iso(self.as_of),
            "principals": [_principal_json(p) for p in self.principals],
            "owners": [_principal_json(p) for p in self.owners],
            "metadata_owners": [{"id": i, "label": who.get(i, ("", ""))[0], "name": who.get(i, ("", i))[1],
                                 "since": _iso(since)} for i, since in self.metadata_owners],
        }


@collector_paused()
def access(warehouse: str | Path, target: str, *, as_of: Any = None) -> AccessResult:
    """Every principal who can read ``target`` as of a time, and how (one path each in JSON); also
    its MaxCompute owners and admins, and its catalogue (metadata) owners."""
    only = access_analysis.TARGET_RELATIONSHIPS  # the access paths' part of the graph, not its jobs and runs
    skip = () if ids.label_of(target) in access_analysis.NEVER_ON_A_PATH else access_analysis.NEVER_ON_A_PATH
    warehouse = built(warehouse, "vertices", "edges", "changes")  # one generation for every read
    # of those, the edges a walk from the target can take (found on three columns), as whole rows
    near = access_analysis.near_target(target, edge_ends(warehouse, relationships=only, without=skip),
                                       ownership.admin_roles)
    # every create record as stored: ownership reads each report of a create (merging is for ranking changes)
    creates = change_rows(warehouse, merge=False, kinds=["create"])
    scopes = near[access_analysis.CAN_ACCESS]  # their creators own them: named though no edge names them
    makers = {c["actor"] for c in creates if c["entity_id"] in scopes and c.get("actor")}
    vertices, edges = load_rows(warehouse, relationships=only, named=[target, *makers], without=skip, near=near)
    return access_rows(vertices, edges, creates, target, as_of=as_of, relationships=only)


def access_rows(vertices: Sequence[Any], edges: Sequence[Any], changes: Sequence[Any], target: str, *,
                as_of: Any = None, relationships: Any = None) -> AccessResult:
    """:func:`access` over rows (the whole graph's, or the part of ``relationships``)."""
    moment = access_analysis.moment_of(as_of)
    if not any(v["id"] == target for v in vertices):
        raise UnknownIds(f"not in the graph: {target}")
    snap = access_analysis.snapshot(vertices, edges, moment, relationships)
    principals = access_analysis.principals_at(snap, target).values()
    owners = ownership.owners_and_admins(snap, target, ownership.creators(changes))
    catalogue = tuple(ownership.metadata_owners(snap, target))
    # a label grant alone is a clearance, not a way to read: not listed as access
    return AccessResult(target, tuple(p for p in principals if p.reads), moment, tuple(owners.values()), catalogue,
                        tuple((i, snap.label(i), snap.name(i)) for i, _since in catalogue))


@collector_paused()
def exposure(warehouse: str | Path, *, as_of: Any = None, tags: Sequence[str] | None = None) -> list[Any]:
    """Principals who can read data carrying a propagated sensitive tag they were never cleared for."""
    moment = access_analysis.moment_of(as_of)
    warehouse = built(warehouse, "vertices", "edges")  # one generation for both reads
    # its part of the graph (propagation.PART), as the build stored it, else found in the parquet
    vertices, table = _stored_exposure(warehouse) or load_tables(warehouse, **propagation.PART)
    edges = list(access_analysis.Edge.stream(table))  # 57,000 at 10^6 events: made from columns, no dict each
    # and of the jobs FEEDS came through, whether their column lineage is complete (it decides the
    # fallback), looked up when a walk meets them
    lineage = access_analysis.OneProperty(columns.LINEAGE_PROPERTY, property_values(warehouse, columns.LINEAGE_PROPERTY))
    kwargs = {"tags": tuple(tags)} if tags else {}
    return propagation.exposure(as_rows(vertices), edges, as_of=moment, relationships=propagation.RELATIONSHIPS,
                                properties=lineage, **kwargs)


def _stored_exposure(wh: Any) -> Any:
    """:func:`exposure`'s part of the graph from the generation's question index, or None (none, or
    damaged: read around, as by every question)."""
    from lineage.graph import index

    try:
        return index.exposure_in(wh.index)
    except index.IndexDamaged:
        return None


def blast(
    warehouse: str | Path,
    *,
    since: Any = None,
    until: Any = None,
    engine: str = "auto",
    max_depth: int | None = None,
    spark: "SparkSession | None" = None,
    affected: int | None = None,
    walker: Traversal | None = None,
    kinds: Any = None,
    keep: Callable[[ChangeImpact], ChangeImpact] | None = None,
) -> list[ChangeImpact]:
    """Every Change with ``since <= time < until`` (of ``kinds`` only, when given), its score,
    summary and affected set, ranked; each keeps its first ``affected`` affected vertices (all
    when None; counts stay complete), then what ``keep`` keeps of them (``blast.evaluate``).
    ``walker``: a traversal already loaded (:func:`traversal`), for a caller that asks it more."""
    changes = [c for c in change_rows(warehouse, since, until) if kinds is None or c["kind"] in kinds]
    walker = walker or traversal(warehouse, engine, spark, window_question(changes, affected))
    if affected == 0 and keep is None:  # counts and scores only (the human table): no affected set, no evidence
        return blast_radius(changes, walker, max_depth=max_depth, affected_limit=0,
                            columns=partial(columns.for_changes, changes, warehouse), at=to_time(until))
    return blast_radius(changes, walker, max_depth=max_depth, affected_limit=None,
                        columns=partial(columns.for_changes, changes, warehouse), at=to_time(until),
                        keep=evidence(warehouse, affected, keep))


def evidence(warehouse: str | Path, affected: int | None,
             keep: Callable[[ChangeImpact], ChangeImpact] | None = None) -> Callable[[ChangeImpact], ChangeImpact]:
    """What blast radius keeps of each change: its ``failed_after`` (``lineage.analysis.runs``),
    read from its whole affected set, then its first ``affected`` vertices, then ``keep``'s."""
    from dataclasses import replace

    from lineage.analysis import runs

    history: list[runs.History] = []  # read on the first change

    def kept(impact: ChangeImpact) -> ChangeImpact:
        if not history:
            history.append(runs.History.of(warehouse))
        failures = runs.failed_after(history[0], impact.time,
                                     runs.reached_definitions(impact.entity_id, impact.affected))
        impact = replace(impact, failed_after=tuple(r.brief() for r in failures),
                         affected=impact.affected if affected is None else impact.affected[:affected])
        return keep(impact) if keep else impact

    return kept


def why(warehouse: str | Path, target: str, *, as_of: Any = None, engine: str = "auto",
        spark: "SparkSession | None" = None) -> Any:
    """Why a node, job or run fails (``lineage.analysis.runs.why``): its streak from the run
    history, then the upstream of the definition (and of its last good runs, whose reads the
    graph holds) walked as of one instant before the first failure."""
    from lineage.analysis import runs
    from lineage.analysis.engine import BEFORE

    history = runs.History.of(warehouse)
    moment = access_analysis.moment_of(as_of) if as_of is not None else None
    found = definition, last, streak = runs.streak_of(history, target, moment)
    if not streak or streak[0].start is None:
        return runs.why(history, target, [], {}, as_of=moment, streak=found)
    first = streak[0].start
    runner = open_engine(warehouse, engine=engine, as_of=first - BEFORE, spark=spark)
    good = [r.id for r in history.before(definition, first) if r.succeeded][-5:]
    asked = list(dict.fromkeys([definition, *good]))
    known = runner.labels(asked)
    sources = [s for s in asked if s in known]
    reached = runner.reach(sources, rules=UPSTREAM_RULES, runs=True) if sources else []
    upstream = {s: (0, (s,)) for s in sources}
    for a in reached:
        upstream.setdefault(a.id, (a.distance, a.path))
    start = last.start if last and last.start else first - runs.LOOKBACK
    changes = change_rows(warehouse, start, first + BEFORE)
    return runs.why(history, target, changes, upstream, as_of=moment, streak=found)


def blast_all(
    warehouse: str | Path,
    *,
    since: Any = None,
    until: Any = None,
    engine: str = "auto",
    max_depth: int | None = None,
    spark: "SparkSession | None" = None,
) -> Iterator[ChangeImpact]:
    """The same changes, ranked, each with *every* affected vertex, one at a time (streamed)."""
    changes = change_rows(warehouse, since, until)
    walker = traversal(warehouse, engine, spark, window_question(changes, 0))
    return blast_stream(changes, walker, max_depth=max_depth, columns=columns.for_changes(changes, warehouse),
                        at=to_time(until))


def window_question(changes: Sequence[Any], kept: int | None) -> Question:
    """The cost of a window's blast radius, for ``auto``: its breaks walk downstream."""
    from lineage.analysis.rules import BREAKS, EFFECT_BY_KIND

    breaks = sum(1 for c in changes if getattr(EFFECT_BY_KIND.get(c["kind"]), "effect", None) == BREAKS)
    return Question(breaks=breaks, changes=len(changes), kept=kept)


def blast_of(warehouse: str | Path, *, since: Any = None, until: Any = None,
             kinds: Any = STRUCTURAL, engine: str = "auto") -> list[Any]:
    """:func:`blast` for the changes of some kinds only (default: structural ones), so that a
    notebook about change impact is not drowned in a week's permission and owner changes."""
    return blast(warehouse, since=since, until=until, engine=engine, kinds=kinds)


def hygiene(warehouse: str | Path, *, as_of: Any = None, unused_days: int = DEFAULT_UNUSED_DAYS, engine: str = "auto",
            top: int = DEFAULT_TOP, spark: "SparkSession | None" = None) -> Hygiene:
    """Platform hygiene of a warehouse as of ``as_of`` (default now) on the chosen engine
    (``lineage.analysis.hygiene`` defines it; ``spark_hygiene`` is its GraphFrames twin)."""
    if unused_days < 1:
        raise ValueError(f"unused_days must be >= 1, not {unused_days}")
    moment = hygiene_analysis.moment_of(as_of)
    # auto: local while the rows it reads fit in memory (at 10^6 events, 16 s and 1.5 GiB where Spark took minutes)
    def question() -> Question:
        return Question(rows=rows_read(warehouse, relationships=hygiene_analysis.READ, without=hygiene_analysis.NEVER_READ))

    if choose_engine(warehouse, engine, question) == "spark":
        from lineage.analysis.spark_hygiene import spark_hygiene

        return spark_hygiene(warehouse, moment, unused_days=unused_days, top=top, spark=spark)
    vertices, edges = load_rows(warehouse, moment, relationships=hygiene_analysis.READ, without=hygiene_analysis.NEVER_READ,
                                labels=hygiene_analysis.DATASET_LABELS, properties=hygiene_analysis.READ)
    return hygiene_analysis.local_hygiene(vertices, edges, moment, unused_days=unused_days, top=top)
