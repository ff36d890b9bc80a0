"""Assemble the weekly report: one blast-radius pass over the last 8 windows, then each section
(the four parts of the week's changes: ``parts``; platform hygiene: ``report.hygiene``)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from lineage.analysis.api import blast, window_question
from lineage.analysis.blast import ChangeImpact
from lineage.analysis.engines import choose_engine, walking
from lineage.analysis.rules import EFFECTS
from lineage.graph.api import change_rows
from lineage.report import changes as changes_section
from lineage.report import actions, drift, health, history, identities, operations
from lineage.report.context import Context, iso
from lineage.report.digest import Marks, keeper
from lineage.report.hygiene import hygiene_section
from lineage.report.model import Figure, Report
from lineage.report.parts import parts
from lineage.report.window import Window
from lineage.store.warehouse import Warehouse

TREND_WINDOWS = 8
HEADLINE: tuple[tuple[str, str], ...] = (
    ("changes", "changes"),
    ("high_impact", "high-impact changes"),
    ("breaks", "changes that may break data"),
    ("exposes", "changes that gave access"),
    ("restricts", "changes that took access away"),
    ("may_fail", "nodes and jobs that may fail"),
    ("notifies", "changes to tell people about"),
    ("affected_tables", "affected tables"),
    ("people", "people to tell"),
    ("grants_opened", "grants added"),
    ("grants_revoked", "grants revoked"),
    ("grants_expired", "grants expired"),
    ("newly_exposed", "principals newly reading sensitive data"),
    ("failed_runs", "failed instances and jobs"),
)
"""The headline's figures, in order (key, title)."""


def _within(ranked: list[ChangeImpact], window: Window) -> list[ChangeImpact]:
    return [c for c in ranked if c.time is not None and window.since <= c.time < window.until]


def figures(ctx: Context, window: Window, ranked: list[ChangeImpact]) -> dict[str, int]:
    """The headline's numbers for one window (``ranked``: that window's changes)."""
    _, read = changes_section.change_rows(ctx, ranked)
    grants = drift.counts(ctx, window)
    return {
        "changes": len(ranked),
        "high_impact": sum(c.score >= changes_section.HIGH_IMPACT_SCORE for c in ranked),
        **{effect: sum(c.effect == effect for c in ranked) for effect in EFFECTS},
        "may_fail": len({job for c in ranked for job in c.may_fail}),
        "affected_tables": len({a.id for c in ranked for a in c.affected if a.label == "Table"}),
        "people": len(changes_section.people(ctx, ranked, read)),
        "grants_opened": grants["opened"],
        "grants_revoked": grants["revoked"],
        "grants_expired": grants["expired"],
        "newly_exposed": len(drift.sensitive_readers(ctx, window.until) - drift.sensitive_readers(ctx, window.since)),
        "failed_runs": len(operations.operations(ctx, window, ranked).failures),
    }


def _walk(warehouse: Warehouse, engine: str, start: datetime, window: Window,
          records: dict[str, dict]) -> tuple[list[ChangeImpact], dict[str, int]]:
    """The report's one blast-radius pass (every change from ``start``, each affected set
    digested as it comes) and the table-level reach of ``window``'s column changes; then the
    engine is let go (a Spark JVM this started ends), so the sections' context, read after, is
    never held beside the walk's memory (issue 31: the two together passed 7 GB on Spark)."""
    with walking(warehouse, engine) as walker:
        everything = blast(warehouse, since=start, until=window.until, engine=engine, affected=None, walker=walker,
                           keep=keeper(Marks.of(warehouse)))  # what the sections read (report.digest)
        downstream = changes_section.table_reach(_within(everything, window), records, walker)
    return everything, downstream


def _data_weeks(windows: list[Window], first_day: str | None) -> int:
    """How many of the trend's windows end after the first day with events (the last ones)."""
    return sum(first_day is not None and w.until.date().isoformat() > first_day for w in windows)


def report(warehouse: str | Path, window: Window, *, engine: str = "auto", top: int = 10,
           now: datetime | None = None, fresh: bool = False) -> Report:
    """The report of ``window``: every figure from the analysis API over the built graph. The
    earlier windows' figures are those kept by earlier reports while they hold (``history``);
    ``fresh`` computes all eight again."""
    return report_and_history(warehouse, window, engine=engine, top=top, now=now, fresh=fresh)[0]


def report_and_history(warehouse: str | Path, window: Window, *, engine: str = "auto", top: int = 10,
                       now: datetime | None = None, fresh: bool = False) -> tuple[Report, dict[str, str]]:
    """:func:`report`, and how each trend window's figures were had (``computed`` or ``kept``,
    oldest first). Kept out of ``report.json``: the same inputs give the same document."""
    warehouse = Warehouse.at(warehouse)  # one snapshot of the graph for every section
    moment = now or datetime.now(timezone.utc)
    windows = [window.previous(n) for n in range(TREND_WINDOWS - 1, -1, -1)]  # oldest first, this one last
    keys = [key for key, _ in HEADLINE]
    logs = history.builds(warehouse)
    stored = {w.name: None if fresh else history.kept(warehouse, w, keys, logs) for w in windows[:-1]}
    start = min(w.since for w in windows if stored.get(w.name) is None)  # this window is always walked
    # auto: by what the walked windows' blast radius will cost, every affected vertex kept
    engine_name = choose_engine(warehouse, engine, window_question(change_rows(warehouse, start, window.until), None))
    records = {c["change_id"]: c for c in change_rows(warehouse, window.since, window.until)}
    everything, downstream = _walk(warehouse, engine_name, start, window, records)
    ctx = Context.of(warehouse, report=True)  # what the sections read of the graph, once the engine let go
    per_window = [stored.get(w.name) or figures(ctx, w, _within(everything, w)) for w in windows]
    for w, found in zip(windows, per_window):
        if stored.get(w.name) is None:
            history.keep(warehouse, w, found, logs, moment)
    headline = [Figure(key=key, title=title, value=per_window[-1][key], previous=per_window[-2][key],
                       delta=per_window[-1][key] - per_window[-2][key], trend=[f[key] for f in per_window])
                for key, title in HEADLINE]
    ranked = _within(everything, window)
    rows, read = changes_section.change_rows(ctx, ranked, changes_section.column_reach(ctx, ranked, records, downstream))
    people, reach = changes_section.people_and_reach(ctx, ranked, read)
    access, inputs = drift.access_drift(ctx, window), health.input_health(warehouse, window)
    return Report(
        generated_at=iso(moment), week=window.name, since=iso(window.since),
        until=iso(window.until), engine=engine_name, top=top, high_impact_score=changes_section.HIGH_IMPACT_SCORE,
        headline=headline, changes=rows, people=actions.with_digests(people, reach, rows, access, ctx.name),
        impact_graph=changes_section.impact_graph(ctx, ranked[:min(top, 3)]),
        access=access, operations=operations.operations(ctx, window, ranked), input_health=inputs,
        parts=parts(ctx, ranked, people, records), hygiene=hygiene_section(ctx, warehouse, window),
        unmerged=identities.unmerged(ctx, people), data_weeks=_data_weeks(windows, inputs.first_day),
    ), {w.name: "kept" if stored.get(w.name) else "computed" for w in windows}
