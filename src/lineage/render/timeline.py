"""A long history read as a person reads it (issue 69): what happened, counted, first; then the
timeline with what repeats grouped (a hub table's thousand job reads are a row per day), the
latest rows last. Pure functions over :class:`lineage.analysis.inspection.Event`."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from lineage.analysis.inspection import OUT, Event

WHAT = {"first_seen": "appeared", "deleted": "deleted", "opened": "opened", "closed": "closed", "change": "change"}
"""How each event reads (``--kind`` takes these words, or a change's kind)."""


def what(e: Event) -> str:
    """``opened <-READS``, ``change: drop``: the event without its other end or actor."""
    said = WHAT[e.event]
    if e.relationship is not None:
        said += " " + (f"{e.relationship}->" if e.direction == OUT else f"<-{e.relationship}")
    return said + (f": {e.detail}" if e.event == "change" and e.detail else "")


def select(events: Iterable[Event], *, since: datetime | None = None, until: datetime | None = None,
           kinds: Collection[str] = (), relationships: Collection[str] = ()) -> list[Event]:
    """The events in ``[since, until)`` of these kinds (an event word or a change's kind) and
    relationships (an event of the entity itself has none); empty filters keep everything."""
    return [e for e in events
            if (since is None or (e.time is not None and e.time >= since))
            and (until is None or (e.time is not None and e.time < until))
            and (not kinds or WHAT[e.event] in kinds or (e.event == "change" and e.detail in kinds))
            and (not relationships or e.relationship in relationships)]


@dataclass(frozen=True)
class Count:
    """One kind of event of a history: how many, the first and the last time."""

    what: str
    other_label: str | None
    count: int
    first: datetime | None
    last: datetime | None


def summary(events: Sequence[Event]) -> list[Count]:
    """Each kind of event (what, and the label at the other end), most frequent first."""
    found: dict[tuple[str, str | None], list[Event]] = {}
    for e in events:
        found.setdefault((what(e), e.other_label), []).append(e)
    out = [Count(w, label, len(group), min((e.time for e in group if e.time), default=None),
                 max((e.time for e in group if e.time), default=None)) for (w, label), group in found.items()]
    return sorted(out, key=lambda c: (-c.count, c.what, c.other_label or ""))


@dataclass(frozen=True)
class Row:
    """A timeline row: one event, or ``count`` alike of one day (``events[0]`` first of them)."""

    events: tuple[Event, ...]

    @property
    def first(self) -> Event:
        return self.events[0]

    @property
    def count(self) -> int:
        return len(self.events)


def grouped(events: Sequence[Event]) -> list[Row]:
    """Oldest first, the events of one day alike (same kind, relationship, direction and label at
    the other end) in one row; a change is always a row of its own."""
    rows: list[Row] = []
    index: dict[tuple, int] = {}
    for e in events:
        if e.event == "change" or e.relationship is None:
            rows.append(Row((e,)))
            continue
        key = (e.time.date() if e.time else None, e.event, e.relationship, e.direction, e.other_label)
        if key in index:
            at = index[key]
            rows[at] = Row(rows[at].events + (e,))
        else:
            index[key] = len(rows)
            rows.append(Row((e,)))
    return rows
