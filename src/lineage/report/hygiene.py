"""Platform hygiene of the week (issue 33): ``lineage hygiene`` as of the week's start and its end,
compared: the tables that became unused, the cycles (new ones marked), and the tables whose
importance (their share of the tables' PageRank) rose or fell most.

Always on the ``local`` engine (networkx), whatever the report's engine: two whole-graph passes
cost seconds there and a minute on Spark at demo size (``benchmarks/hygiene.py``); the section
says which engine answered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from lineage.analysis.api import hygiene
from lineage.analysis.hygiene import DEFAULT_UNUSED_DAYS, Hygiene
from lineage.report.context import Context, iso
from lineage.report.model import CycleFound, HygieneSection, ImportanceMove, Named, UnusedTable
from lineage.report.window import Window

ENGINE = "local"
MOVES = 5
"""Risers and fallers shown each."""
SHARE_DIGITS = 9
EVERY_TABLE = 10**9
"""``top`` that ranks every table (the comparison needs each table's score at both ends)."""


def _named(ctx: Context, vertices: Iterable[str]) -> list[Named]:
    return [Named(id=v, name=ctx.name(v)) for v in vertices]


def _shares(result: Hygiene) -> dict[str, tuple[int, float]]:
    """Table -> (rank, share of all tables' PageRank): relative to the other tables, so that the
    week's new jobs and instances, which take a share of the whole graph's, move no table."""
    total = sum(i.score for i in result.importance) or 1.0
    return {i.id: (n, round(i.score / total, SHARE_DIGITS)) for n, i in enumerate(result.importance, 1)}


def _moves(ctx: Context, start: Hygiene, end: Hygiene) -> tuple[list[ImportanceMove], list[ImportanceMove]]:
    """The tables whose share of importance rose most and fell most (absent at one end: 0)."""
    before, after = _shares(start), _shares(end)
    moves = []
    for table in sorted(set(before) | set(after)):
        (rank_start, old), (rank_end, new) = before.get(table, (None, 0.0)), after.get(table, (None, 0.0))
        if new != old:
            moves.append(ImportanceMove(id=table, name=ctx.name(table), start=old, end=new, rank_start=rank_start,
                                        rank_end=rank_end))
    risers = sorted((m for m in moves if m.end > m.start), key=lambda m: (m.start - m.end, m.id))[:MOVES]
    fallers = sorted((m for m in moves if m.end < m.start), key=lambda m: (m.end - m.start, m.id))[:MOVES]
    return risers, fallers


def shares_text(start: float, end: float) -> tuple[str, str]:
    """Two shares as percents (the number; the template adds ``%``) with the fewest decimals (two
    at least) that tell them apart: "0.45% -> 0.45%" said nothing (issue 69)."""
    for digits in (*range(2, SHARE_DIGITS - 1), 2):  # the same at every precision: two decimals
        old, new = f"{start * 100:.{digits}f}", f"{end * 100:.{digits}f}"
        if old != new:
            break
    return old, new


def hygiene_section(ctx: Context, warehouse: str | Path, window: Window,
                    unused_days: int = DEFAULT_UNUSED_DAYS) -> HygieneSection:
    """Hygiene at ``window.since`` and ``window.until``, compared."""
    start = hygiene(warehouse, as_of=window.since, unused_days=unused_days, engine=ENGINE, top=EVERY_TABLE)
    end = hygiene(warehouse, as_of=window.until, unused_days=unused_days, engine=ENGINE, top=EVERY_TABLE)
    was_unused = {u.id for u in start.unused}
    was_cycle = {c.tables for c in start.cycles}
    risers, fallers = _moves(ctx, start, end)
    return HygieneSection(
        engine=ENGINE, unused_days=unused_days, unused_end=len(end.unused),
        new_unused=[UnusedTable(id=u.id, name=ctx.name(u.id), owners=_named(ctx, u.owners),
                                writers=_named(ctx, u.writers), runs=u.runs, last_written=iso(u.last_written))
                    for u in end.unused if u.id not in was_unused],
        cycles=[CycleFound(tables=_named(ctx, c.tables), jobs=_named(ctx, c.jobs), new=c.tables not in was_cycle,
                           self_loop=c.self_loop)
                for c in end.cycles],
        risers=risers, fallers=fallers,
    )
