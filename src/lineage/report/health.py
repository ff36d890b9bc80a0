"""Input health: accepted events per source per day, unknown kinds (each with an example), quarantine,
implausible times, gaps.

An unattended report must say when its own inputs are incomplete. A source is **expected
daily** when it delivered events on at least half the days of the window and the window
before it (a source that only speaks now and then, e.g. permission approvals, is not); a day
of the window without events from an expected source is a **gap** (``weekly`` exits 3).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date

from lineage.events.base import PLAUSIBLE_AHEAD, PLAUSIBLE_SINCE
from lineage.report.model import InputHealth, SourceHealth, UnknownKind
from lineage.report.window import Window
from lineage.warehouse import Warehouse

UNRECOGNISED = "unrecognized"


def _day_counts(wh: Warehouse, days: list[date]) -> tuple[dict[str, Counter], Counter]:
    """(source -> event_date -> count, source -> unknown-kind count) for the given days."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    per_day: dict[str, Counter] = defaultdict(Counter)
    unknown: Counter = Counter()
    if not Warehouse.has_data(wh.events):
        return per_day, unknown
    names = [d.isoformat() for d in days]
    table = ds.dataset(str(wh.events), format="parquet", partitioning="hive").to_table(
        columns=["source", "event_date", "known"], filter=pc.field("event_date").isin(names))
    for row in table.group_by(["source", "event_date", "known"]).aggregate([([], "count_all")]).to_pylist():
        per_day[row["source"]][row["event_date"]] += row["count_all"]
        if row["known"] is False:
            unknown[(row["source"], row["event_date"])] += row["count_all"]
    return per_day, unknown


def _unknown_kinds(wh: Warehouse, days: list[str]) -> list[UnknownKind]:
    """Kinds the mapping does not know, accepted on ``days``: count, an example id, first day."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    if not Warehouse.has_data(wh.events):
        return []
    dataset = ds.dataset(str(wh.events), format="parquet", partitioning="hive")
    wanted = pc.field("event_date").isin(days) & (pc.field("known") == False)  # noqa: E712 (an expression)
    table = dataset.to_table(columns=["source", "kind", "event_id", "event_date"], filter=wanted)
    grouped = table.group_by(["source", "kind"]).aggregate(
        [([], "count_all"), ("event_id", "min"), ("event_date", "min")]).to_pylist()
    kinds = [UnknownKind(source=str(r["source"]), kind=str(r["kind"]), count=r["count_all"],
                         example_id=str(r["event_id_min"]), first_day=str(r["event_date_min"])) for r in grouped]
    return sorted(kinds, key=lambda k: (-k.count, k.source, k.kind))


def _quarantined(wh: Warehouse) -> Counter:
    import pyarrow.dataset as ds

    if not Warehouse.has_data(wh.quarantine):
        return Counter()
    table = ds.dataset(str(wh.quarantine), format="parquet", partitioning="hive").to_table(columns=["source"])
    return Counter(str(s) for s in table.column("source").to_pylist())


def _implausible(wh: Warehouse) -> Counter:
    """Stored events per source whose time is implausible (``lineage.events.base.implausible``:
    before 2000, or over a day after their ingest). All time: such a time files the event under
    a day no report window covers, so a window's count would never show it."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    if not Warehouse.has_data(wh.events):
        return Counter()
    time = pc.field("event_time")
    since = pa.scalar(PLAUSIBLE_SINCE, pa.timestamp("us", "UTC"))
    late = pc.add(pc.field("ingested_at"), pa.scalar(PLAUSIBLE_AHEAD, pa.duration("us")))
    table = ds.dataset(str(wh.events), format="parquet", partitioning="hive").to_table(
        columns=["source"], filter=(time < since) | (time > late))
    return Counter(str(s) for s in table.column("source").to_pylist())


def input_health(warehouse, window: Window) -> InputHealth:
    wh = Warehouse.at(warehouse)
    before = window.previous()
    days = window.days
    per_day, unknown = _day_counts(wh, before.days + days)
    quarantined = _quarantined(wh)
    implausible = _implausible(wh)
    names = [d.isoformat() for d in days]
    both = [d.isoformat() for d in before.days + days]
    sources = []
    for source in sorted(set(per_day) | {s for s in quarantined if s != UNRECOGNISED}):
        counts = per_day.get(source, Counter())
        active = sum(1 for d in both if counts.get(d))
        expected = active * 2 >= len(both)
        sources.append(SourceHealth(
            source=source, per_day={d: counts.get(d, 0) for d in names}, total=sum(counts.get(d, 0) for d in names),
            unknown_kind=sum(n for (s, d), n in unknown.items() if s == source and d in names),
            quarantined=quarantined.get(source, 0), implausible_time=implausible.get(source, 0), expected_daily=expected,
            gaps=[d for d in names if expected and not counts.get(d)]))
    return InputHealth(days=names, sources=sources, quarantined_unrecognised=quarantined.get(UNRECOGNISED, 0),
                       gaps=sum(len(s.gaps) for s in sources), unknown_kinds=_unknown_kinds(wh, names),
                       implausible_time=sum(implausible.values()))
