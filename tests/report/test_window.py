"""The report window: ISO weeks in UTC, the last complete week by default."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from lineage.errors import UsageError
from lineage.report.window import choose, last_complete_week, week


def test_iso_week_is_monday_to_monday_utc():
    w = week("2026-W47")
    assert w.since == datetime(2026, 11, 16, tzinfo=timezone.utc) and w.until == datetime(2026, 11, 23, tzinfo=timezone.utc)
    assert [d.isoformat() for d in w.days][::6] == ["2026-11-16", "2026-11-22"]
    assert w.previous().name == "2026-W46" and week("2026-W01").previous().name == "2025-W52"


@pytest.mark.parametrize("now, expected", [
    (datetime(2026, 11, 23, 0, 0, tzinfo=timezone.utc), "2026-W47"),  # Monday midnight: last week just ended
    (datetime(2026, 11, 22, 23, 59, tzinfo=timezone.utc), "2026-W46"),  # Sunday night: this week is not complete
    (datetime(2027, 1, 4, 6, 0, tzinfo=timezone.utc), "2026-W53"),
])
def test_default_is_the_last_complete_week(now, expected):
    assert last_complete_week(now).name == expected == choose(None, None, None, now).name


def test_since_until_names_a_week_when_it_is_one():
    assert choose(None, "2026-11-16", "2026-11-23").name == "2026-W47"
    assert choose(None, "2026-11-16", "2026-11-20").name == "2026-11-16_2026-11-20"
    for bad in (("2026-W47", "2026-11-16", None), (None, "2026-11-16", None), (None, "2026-11-20", "2026-11-16")):
        with pytest.raises(UsageError):
            choose(*bad)
