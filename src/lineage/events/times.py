"""Times as every source gives them (epoch numbers of three units, ISO 8601, wall-clock texts),
read into aware UTC within the range every reader can hold.

Apart from :mod:`lineage.events.base` (which re-exports what the events' modules use) because
the questions read times too, and that module imports pydantic for the event models: 0.35 s of
every question.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Any

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
EARLIEST = datetime(1900, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2200, 1, 1, tzinfo=timezone.utc)
"""A time outside [EARLIEST, LATEST) is out of range: no event has it, and every reader of the
warehouse can hold what is inside (pandas' nanosecond timestamps end in 2262, ``timedelta``
arithmetic near year 9999 overflows). Such a value is a field error (the record is quarantined)."""
PLAUSIBLE_SINCE = datetime(2000, 1, 1, tzinfo=timezone.utc)
PLAUSIBLE_AHEAD = timedelta(days=1)
"""A time in range but before PLAUSIBLE_SINCE or more than PLAUSIBLE_AHEAD after the ingest is
accepted and counted as ``implausible_time`` (a wrong unit, a clock off, a placeholder)."""
_TIME_FORMATS = (
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S.%f",
    "%Y-%m-%dT%H:%M:%S",
    "%Y/%m/%d %H:%M:%S",
    "%Y-%m-%d",
    "%Y%m%d%H%M%S",
)
_UNITS = {"seconds": "s", "milliseconds": "ms", "microseconds": "µs"}


def implausible(time: datetime | None, ingested_at: datetime) -> bool:
    """An accepted time no event should have: before 2000, or more than a day after the ingest."""
    return time is not None and (time < PLAUSIBLE_SINCE or time > ingested_at + PLAUSIBLE_AHEAD)


def _shown(value: Any) -> str:
    """A value as a reason shows it: whole when short, else its start and its length."""
    if isinstance(value, str) and len(value) > 40:
        return f"{value[:32]!r}... ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:32]}... ({len(text)} characters)"


def in_range(time: datetime | None, value: Any, unit: str = "") -> datetime:
    """``time`` when it lies in [EARLIEST, LATEST), else a ValueError naming the value."""
    if time is None or not EARLIEST <= time < LATEST:
        shown = f"{_shown(value)} {unit}" if unit else _shown(value)
        raise ValueError(f"{shown} is out of range (a time from {EARLIEST.year} to {LATEST.year - 1})")
    return time


def from_epoch(value: Any, number: int | float, unit: str) -> datetime:
    """``number`` ``unit`` (``seconds``/``milliseconds``/``microseconds``) after 1970 -> aware UTC.
    Every source's epoch times come here, so a number no time can have (10^20 ms, -1e300,
    infinity) is one field error, never an OverflowError."""
    if number != number:  # NaN
        raise ValueError(f"not a time: {_shown(value)}")
    try:
        time: datetime | None = _EPOCH + timedelta(**{unit: number})
    except (OverflowError, ValueError):  # beyond datetime's years 1-9999
        time = None
    return in_range(time, value, _UNITS[unit])


def epoch_number(text: str, signed: bool = False) -> int | float | None:
    """The integer of a text of ASCII digits (a leading ``-`` when ``signed``), else None; one
    too long for ``int`` (over 4300 digits) is infinite, so out of range, never a ValueError."""
    digits = text[1:] if signed and text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit()):
        return None
    try:
        return int(text)
    except ValueError:
        return float("-inf") if text.startswith("-") else float("inf")


def parse_time(value: Any) -> datetime | None:
    """Epoch seconds/millis/micros (by magnitude), ISO 8601 (``Z``/offsets) or
    ``yyyy-MM-dd HH:mm:ss`` -> aware UTC, in range (see EARLIEST).

    Naive wall-clock times are taken as UTC (documented in the README). Masked or placeholder
    values (``17***864``) cannot be a time: they raise so the field error is precise; so does a
    time out of range.
    """
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return in_range(value if value.tzinfo else value.replace(tzinfo=timezone.utc), value)
    if isinstance(value, bool):
        raise ValueError(f"not a time: {value!r}")
    number = epoch_number(value.strip()) if isinstance(value, str) else value
    if isinstance(number, (int, float)):
        unit = "microseconds" if abs(number) > 1e14 else "milliseconds" if abs(number) > 1e11 else "seconds"
        return from_epoch(value, number, unit)
    if not isinstance(value, str):
        raise ValueError(f"not a time: {_shown(value)}")
    text = value.strip()
    if text.endswith("PRC"):  # EventBridge's aliyunpublishtime: 2020-11-19T21:04:42.179PRC
        text = text[:-3] + "+08:00"
    iso = text[:-1] + "+00:00" if text.endswith("Z") else text
    try:
        parsed = datetime.fromisoformat(iso)
    except ValueError:
        parsed = None
        for fmt in _TIME_FORMATS:
            try:
                parsed = datetime.strptime(text, fmt)
                break
            except ValueError:
                continue
        if parsed is None:
            raise ValueError(f"not a recognised time: {_shown(value)}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    try:
        parsed = parsed.astimezone(timezone.utc)
    except OverflowError:  # 0001-01-01T00:00+01:00 is before year 1 in UTC
        parsed = None
    return in_range(parsed, value)


def date_in_range(value: date | None) -> date | None:
    """A calendar date (Dataphin's ``date``) within the range of times (see EARLIEST)."""
    if value is not None:
        in_range(datetime.combine(value, datetime.min.time(), timezone.utc), value.isoformat())
    return value


def lenient_time(value: Any) -> datetime | None:
    """Like ``parse_time`` but a masked/placeholder value becomes None (for informative fields)."""
    try:
        return parse_time(value)
    except ValueError:
        return None
