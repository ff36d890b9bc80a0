"""Operations: failed instances and jobs of the window, and quality-rule failures on impacted tables.

A run's state is its vertex's last reported ``status`` property (absent: not reported, skipped).
A failure is "after a change" when the change's ``failed_after`` lists it (``lineage.analysis.
runs``: the change reaches its node or job, whose last run before the change had succeeded); of
several such changes, the latest before it.
"""

from __future__ import annotations

from datetime import datetime

from lineage.analysis.blast import ChangeImpact
from lineage.analysis.runs import error_text, failed
from lineage.events.times import parse_time
from lineage.report.context import RUN_LABELS, RUN_TIME_PROPERTIES, Context, iso
from lineage.report.model import Failure, Operations, QualityFailure
from lineage.report.window import Window



def _when(ctx: Context, vertex: dict) -> datetime | None:
    props = ctx.properties(vertex["id"])
    for key in RUN_TIME_PROPERTIES:
        try:
            if props.get(key):
                return parse_time(props[key])
        except ValueError:
            continue
    return vertex.get("last_seen")


def _node_of(ctx: Context, run: str) -> str | None:
    # the timeline's index of edges by (dst, relationship): scanning every edge per failed run
    # made the report quadratic (a 10^6-event week: 2,418 failed runs x 1.3M edges)
    nodes = sorted(e.src for e in ctx.timeline.into.get((run, "HAS_INSTANCE"), ()))
    if nodes:
        return nodes[0]
    skynet = ctx.properties(run).get("skynet_id")  # a DataWorks-scheduled MaxCompute job names its node
    return f"node:dataworks:{skynet}" if skynet and f"node:dataworks:{skynet}" in ctx.by_id else None


def operations(ctx: Context, window: Window, ranked: list[ChangeImpact]) -> Operations:
    evidence: dict[str, list[tuple[datetime, str]]] = {}  # run -> (time, change) of every change it is evidence of
    for change in ranked:
        if change.time is not None:
            for run in change.failed_after:
                evidence.setdefault(run["id"], []).append((change.time, change.change_id))
    failures = []
    for vertex in ctx.vertices:
        if vertex.get("label") not in RUN_LABELS or not failed(ctx.properties(vertex["id"]).get("status")):
            continue
        at = _when(ctx, vertex)
        if at is None or not (window.since <= at < window.until):
            continue
        node = _node_of(ctx, vertex["id"])
        before = evidence.get(vertex["id"], [])
        cause = max(before)[1] if before else None  # the latest change it is evidence of (ties: highest id)
        props = ctx.properties(vertex["id"])
        failures.append(Failure(id=vertex["id"], label=vertex["label"], name=ctx.name(vertex["id"]), node=node, at=iso(at),
                                status=props["status"], after_change=cause, error=error_text(props)))
    impacted = {a.id for c in ranked for a in c.affected if a.label == "Table"} | {c.entity_id for c in ranked}
    quality = sorted(
        (QualityFailure(rule=e.src, table=e.dst, status=ctx.properties(e.src).get("status", ""))
         for e in ctx.edges if e.relationship == "CHECKS" and e.dst in impacted and failed(ctx.properties(e.src).get("status"))),
        key=lambda q: (q.table, q.rule))
    return Operations(failures=sorted(failures, key=lambda f: (f.at or "", f.id)), quality_failures=quality)
