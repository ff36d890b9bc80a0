"""Every request to the graph server is answered within a time limit, or the export ends.

The Bolt driver has no read timeout of its own (only one the server hints at when it greets), so a
server that stops answering leaves it blocked in a socket read forever: FalkorDB has done that
mid-export, deadlocked after forking. The limit is a ``SIGALRM`` armed around each request
(:func:`answered`): its handler raises :class:`ServerSilent` in the main thread, which interrupts
the blocked read. Signals reach only the main thread, so elsewhere the limit does not apply.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

ANSWER_SECONDS = 300.0
"""Default limit for one request: far beyond one batch of rows on a working server."""

AGAIN = 1.0
"""After the first alarm, it rings again this often until :func:`watched` ends, so that the
driver's cleanup (which may read from the same silent socket) cannot block either."""

_limit: ContextVar[float | None] = ContextVar("answer_seconds", default=None)
_ringing = False


class ServerSilent(BaseException):
    """A request waited longer than its limit. A BaseException, so that the driver's retry and
    cleanup code, which catches Exception, lets it through to :func:`watched`'s caller."""


def _ring(signum: int, frame: Any) -> None:
    if _ringing:
        signal.setitimer(signal.ITIMER_REAL, AGAIN)
        raise ServerSilent()


@contextmanager
def watched(seconds: float | None) -> Iterator[None]:
    """Requests made inside (through :func:`answered`) wait at most ``seconds``; on the way out the
    alarm is off and the previous ``SIGALRM`` handler is back. No limit off the main thread."""
    global _ringing
    if not seconds or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _ring)
    token = _limit.set(seconds)
    _ringing = True
    try:
        yield
    finally:
        _ringing = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        _limit.reset(token)


def quiet() -> None:
    """Stop the alarm (called first when handling :class:`ServerSilent`, so it cannot ring again
    inside the handler)."""
    global _ringing
    _ringing = False
    if threading.current_thread() is threading.main_thread():
        signal.setitimer(signal.ITIMER_REAL, 0)


@contextmanager
def answered() -> Iterator[None]:
    """One request: the alarm is set for the limit :func:`watched` gave, and off once it answers.
    When the alarm rang it stays on, ringing every :data:`AGAIN` seconds, until :func:`watched` ends."""
    seconds = _limit.get()
    if seconds is None or not _ringing:
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    rang = False
    try:
        yield
    except ServerSilent:
        rang = True
        raise
    finally:
        if not rang:
            signal.setitimer(signal.ITIMER_REAL, 0)
