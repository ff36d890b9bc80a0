"""Input health: accepted events per source per day, unknown kinds (each with an example), quarantine,
implausible times, gaps.

An unattended report must say when its own inputs are incomplete, and the worst case is a
source that stops altogether: its absence must not read as a quiet week. So each source is
judged against its own **history**, the :data:`BASELINE_DAYS` days before the window or, when it
fell silent before the window, before its last delivery (a source last heard from more than
:data:`FORGOTTEN_DAYS` days before the window counts as retired and is not listed):

* it is **expected daily** when it delivered on at least half the days of its history and the
  window, counted from its first delivery (a source that only speaks now and then, e.g.
  permission approvals, is not; a source new this week is judged on the days it has existed);
* a day of the window without events from an expected source is a **gap**, and so is a day
  whose volume is under a tenth (:data:`DROP`) of the source's usual day (the median of its
  history's active days, when that is at least :data:`MIN_USUAL` events: below, a tenfold drop
  is noise);
* the report's headline says it first: ``no dataworks events since 2026-11-02`` or
  ``maxcompute delivered 41 events a day, a tenth of its usual 600, on 2026-11-18, ...``.

Any gap makes ``report`` and ``weekly`` exit 3 (report written, inputs incomplete).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import date, timedelta
from statistics import median

from lineage.events.base import PLAUSIBLE_AHEAD, PLAUSIBLE_SINCE
from lineage.report.model import InputHealth, SourceHealth, UnknownKind
from lineage.report.window import Window
from lineage.store.warehouse import Warehouse

UNRECOGNISED = "unrecognized"
BASELINE_DAYS = 28
"""Days of a source's history it is judged against."""
FORGOTTEN_DAYS = 90
"""A source silent for longer than this before the window is taken as retired, not as a gap."""
DROP = 10
"""A day under a tenth of the source's usual daily volume is a gap (an order of magnitude)."""
MIN_USUAL = 20
"""The usual daily volume below which a drop is not judged (a few events more or less is noise)."""


def _day_counts(wh: Warehouse, until: date) -> tuple[dict[str, Counter], Counter]:
    """(source -> event_date -> count, (source, event_date) -> unknown-kind count) for every day
    before ``until`` (a per-day aggregate: one row per source and day, whatever the volume)."""
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    per_day: dict[str, Counter] = defaultdict(Counter)
    unknown: Counter = Counter()
    if not Warehouse.has_data(wh.events):
        return per_day, unknown
    table = ds.dataset(str(wh.events), format="parquet", partitioning="hive").to_table(
        columns=["source", "event_date", "known"], filter=pc.field("event_date") < until.isoformat())
    for row in table.group_by(["source", "event_date", "known"]).aggregate([([], "count_all")]).to_pylist():
        per_day[row["source"]][row["event_date"]] += row["count_all"]
        if row["known"] is False:
            unknown[(row["source"], row["event_date"])] += row["count_all"]
    return per_day, unknown


def _history(counts: Counter, first: date) -> tuple[list[str], str | None]:
    """The days a source is judged against (the :data:`BASELINE_DAYS` before the window, or before
    its last delivery when that came earlier) and its last delivery day before the window."""
    before = [d for d in counts if d < first.isoformat() and counts[d]]
    last = max(before, default=None)
    end = min(first, date.fromisoformat(last) + timedelta(days=1)) if last else first
    return [(end - timedelta(days=i)).isoformat() for i in range(BASELINE_DAYS, 0, -1)], last


def judge(counts: Counter, days: list[str], first: date) -> dict:
    """One source's health over the window ``days`` against its history: whether it is expected
    daily (active on at least half the days of its history and the window, counted from its
    first delivery: a new source is judged on the days it has existed), its usual day (the median
    of its history's active days), its last delivery, and the silent and the low days of the
    window (both gaps; never a day before its first delivery). Pure."""
    history, last = _history(counts, first)
    delivered = [d for d in counts if counts[d]]
    began = min(delivered, default=days[-1])
    period = [d for d in history + days if d >= began]
    expected = bool(period) and sum(1 for d in period if counts.get(d)) * 2 >= len(period)
    active = [counts[d] for d in history if counts.get(d)]
    usual = int(median(active)) if active else 0
    silent = [d for d in days if expected and d >= began and not counts.get(d)]
    low = [d for d in days if expected and usual >= MIN_USUAL and 0 < counts.get(d, 0) * DROP < usual]
    seen = [d for d in days if counts.get(d)]
    return {"expected_daily": expected, "usual_daily": usual, "silent": silent, "low": low,
            "last_day": max(seen, default=last)}


def _alert(source: str, verdict: dict, per_day: dict[str, int]) -> str | None:
    """The headline's sentence for a source with gaps, or None. ``per_day``: the window's days in order."""
    silent, low, last = verdict["silent"], verdict["low"], verdict["last_day"]
    parts = []
    if silent and last and silent == [d for d in per_day if d > last]:
        parts.append(f"no {source} events since {last}")  # it stopped: every day after its last delivery is silent
    elif silent:
        parts.append(f"no {source} events on {', '.join(silent)}")
    if low:
        shown = ", ".join(f"{d} ({per_day[d]})" for d in low)
        parts.append(f"{source} delivered under a tenth of its usual {verdict['usual_daily']} events a day on {shown}")
    return "; ".join(parts) or None


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
    days = window.days
    first = days[0]
    per_day, unknown = _day_counts(wh, days[-1] + timedelta(days=1))
    quarantined = _quarantined(wh)
    implausible = _implausible(wh)
    names = [d.isoformat() for d in days]
    forgotten = (first - timedelta(days=FORGOTTEN_DAYS)).isoformat()
    sources, alerts = [], []
    for source in sorted(set(per_day) | {s for s in quarantined if s != UNRECOGNISED}):
        counts = per_day.get(source, Counter())
        if counts and max(counts) < forgotten:
            continue  # retired long before this window
        verdict = judge(counts, names, first)
        window_counts = {d: counts.get(d, 0) for d in names}
        alert = _alert(source, verdict, window_counts)
        alerts += [alert] if alert else []
        sources.append(SourceHealth(
            source=source, per_day=window_counts, total=sum(window_counts.values()),
            unknown_kind=sum(n for (s, d), n in unknown.items() if s == source and d in names),
            quarantined=quarantined.get(source, 0), implausible_time=implausible.get(source, 0),
            expected_daily=verdict["expected_daily"], gaps=sorted(verdict["silent"] + verdict["low"]),
            low_days=verdict["low"], usual_daily=verdict["usual_daily"], last_day=verdict["last_day"]))
    return InputHealth(days=names, sources=sources, quarantined_unrecognised=quarantined.get(UNRECOGNISED, 0),
                       gaps=sum(len(s.gaps) for s in sources), unknown_kinds=_unknown_kinds(wh, names),
                       implausible_time=sum(implausible.values()), alerts=alerts,
                       first_day=min((d for counts in per_day.values() for d, n in counts.items() if n), default=None))
