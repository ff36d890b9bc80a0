"""The report's time window: an ISO week (``2026-W47``) or an explicit ``[since, until)``.

Weeks are ISO weeks in UTC (Monday 00:00 to the next Monday 00:00). The default is the last
*complete* week before now, so a Monday-morning cron job reports on the week that just ended.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone

from lineage.errors import UsageError
from lineage.graph.api import to_time

WEEK = re.compile(r"^(\d{4})-W(\d{2})$")


@dataclass(frozen=True)
class Window:
    """``[since, until)`` and its name (the week, or ``SINCE_UNTIL`` dates), used as the folder name."""

    name: str
    since: datetime
    until: datetime

    @property
    def days(self) -> list[date]:
        """Every UTC calendar day the window touches."""
        first, last = self.since.date(), (self.until - timedelta(microseconds=1)).date()
        return [first + timedelta(days=i) for i in range((last - first).days + 1)]

    def previous(self, n: int = 1) -> Window:
        """The window of the same length ``n`` lengths earlier (weeks keep their ISO name)."""
        span = self.until - self.since
        return window_between(self.since - n * span, self.until - n * span)


def week(name: str) -> Window:
    """``2026-W47`` -> Monday 00:00 UTC of that ISO week to the next Monday."""
    match = WEEK.match(name.strip())
    if not match:
        raise UsageError(f"not an ISO week: {name!r} (use YYYY-Www, e.g. 2026-W47)")
    try:
        monday = date.fromisocalendar(int(match[1]), int(match[2]), 1)
    except ValueError:
        raise UsageError(f"no such ISO week: {name!r}") from None
    since = datetime.combine(monday, time(), timezone.utc)
    return Window(name.strip(), since, since + timedelta(days=7))


def week_of(moment: datetime) -> Window:
    year, number, _ = moment.astimezone(timezone.utc).isocalendar()
    return week(f"{year}-W{number:02d}")


def last_complete_week(now: datetime | None = None) -> Window:
    """The last ISO week that ended at or before ``now`` (UTC)."""
    now = now or datetime.now(timezone.utc)
    return week_of(now - timedelta(days=7))


def window_between(since: datetime, until: datetime) -> Window:
    """A window; named as its ISO week when it is exactly one."""
    if until <= since:
        raise UsageError(f"--until ({until.isoformat()}) must be after --since ({since.isoformat()})")
    candidate = week_of(since)
    if candidate.since == since and candidate.until == until:
        return candidate
    return Window(f"{since:%Y-%m-%d}_{until:%Y-%m-%d}", since, until)


def choose(week_name: str | None, since: str | None, until: str | None, now: datetime | None = None) -> Window:
    """The CLI's rule: ``--week``, or both ``--since`` and ``--until``, or the last complete week."""
    if week_name and (since or until):
        raise UsageError("give --week or --since/--until, not both")
    if week_name:
        return week(week_name)
    if since or until:
        if not (since and until):
            raise UsageError("--since and --until go together")
        return window_between(to_time(since), to_time(until))  # type: ignore[arg-type]
    return last_complete_week(now)
