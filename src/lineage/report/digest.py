"""What the report keeps of each change's affected set: what its sections read, let go of the rest
as each answer comes (``lineage.analysis.blast.evaluate``'s ``keep``).

A break on a hub table reaches every job run and instance downstream: on a platform whose hubs
change daily, four weeks are millions of (change, vertex) pairs, far more than fit in memory as
objects, and most of them runs that no section names. Counts, summaries and scores are computed
by the engine over every pair before this runs, so they stay complete. Of the vertices the
report keeps, per change:

* every vertex of :data:`KEPT_LABELS`: tables (affected tables, readers, quality failures, a
  sensitive tag's spread), the people (a notice's owners), what the impact picture draws;
* every vertex anything ever ``OWNS`` (the people to tell are the owners of affected assets);
* every run whose status is a failure (``report.operations``: a failure after a change);
* the change's :func:`lineage.report.changes.top_assets`, whatever their label.

So each section's answer is the same as from the whole affected set
(``tests/report/test_digest.py`` compares the two reports).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from lineage.analysis.blast import ChangeImpact
from lineage.analysis.people import OWNS
from lineage.report.changes import PICTURE_LABELS, top_assets
from lineage.report.context import RUN_LABELS, Context
from lineage.report.operations import failed

KEPT_LABELS = frozenset({"Table", "User", "Role", *PICTURE_LABELS})


def keeper(ctx: Context) -> Callable[[ChangeImpact], ChangeImpact]:
    """The ``keep`` of a report on ``ctx``'s graph (the module's docstring)."""
    owned = {vertex for vertex, relationship in ctx.timeline.into if relationship == OWNS}
    failing = {v["id"] for v in ctx.vertices
               if v.get("label") in RUN_LABELS and failed(ctx.properties(v["id"]).get("status"))}
    wanted = owned | failing

    def keep(impact: ChangeImpact) -> ChangeImpact:
        top = {a.id for a in top_assets(ctx, impact)}
        kept = tuple(a for a in impact.affected if a.label in KEPT_LABELS or a.id in wanted or a.id in top)
        return impact if len(kept) == len(impact.affected) else replace(impact, affected=kept)

    return keep
