"""Progress of long work on stderr: the stage, a count, and the time elapsed.

On a terminal a rich bar (stage, count, elapsed); elsewhere (a scheduler's log, CI) a plain line
when the stage changes and every few seconds while it runs, so a log shows the job is alive; with
``--json`` nothing at all (stdout carries only the document, and stderr stays quiet).

The CLI opens one :class:`Reporter` around a command; code deep inside (the Spark BFS rounds) calls
:func:`update` without a reporter being passed down: it does nothing when none is open.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from rich.console import Console

EVERY_SECONDS = 5.0
"""A plain line at most this often within one stage (not on a terminal)."""

_current: ContextVar[Reporter | None] = ContextVar("lineage_progress", default=None)


def _elapsed(seconds: float) -> str:
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes}m{seconds:02d}s" if minutes else f"{seconds}s"


class Reporter:
    """One command's progress; use as a context manager (nothing is shown when not ``enabled``)."""

    def __init__(self, console: Console, enabled: bool = True, name: str = "", every: float = EVERY_SECONDS):
        self.console, self.enabled, self.name, self.every = console, enabled, name, every
        self.bar = None
        self.task = None
        self.stage: str | None = None
        self.begun = self.last = time.monotonic()
        self.lines: list[str] = []  # the plain lines written (what a log shows)
        self._token = None

    def __enter__(self) -> Reporter:
        self.begun = time.monotonic()
        if self.enabled and self.console.is_terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self.bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=self.console, transient=True)
            self.bar.start()
        self._token = _current.set(self)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _current.reset(self._token)
        if self.bar is not None:
            self.bar.stop()

    def update(self, stage: str, done: int | None = None, total: int | None = None, detail: str = "") -> None:
        """``stage`` (e.g. "reading files"), ``done`` of ``total`` so far, ``detail`` (the current file)."""
        if not self.enabled:
            return
        now = time.monotonic()
        label = f"{self.name}: {stage}" if self.name else stage
        if self.bar is not None:
            description = f"{label} {detail}".strip()
            if self.task is None or stage != self.stage:
                if self.task is not None:
                    self.bar.update(self.task, visible=False)
                self.bar.console.print(f"{label} [{_elapsed(now - self.begun)}]", markup=False, highlight=False)
                self.task = self.bar.add_task(description, total=total)
            self.bar.update(self.task, completed=done or 0, total=total, description=description)
            self.stage = stage
            return
        finished = total is not None and done == total
        if stage != self.stage or finished or now - self.last >= self.every:
            count = "" if done is None else (f" {done}/{total}" if total is not None else f" {done}")
            line = f"{label}{count}{f' ({detail})' if detail else ''} [{_elapsed(now - self.begun)}]"
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)
            self.lines.append(line)
            self.stage, self.last = stage, now


class Callback:
    """A :class:`Reporter` handed to library code as the plain callback it takes (None when
    progress is off, so the library skips the work of reporting): ``adapt`` turns the reporter's
    :meth:`Reporter.update` into the callback's signature."""

    def __init__(self, console: Console, enabled: bool, name: str, adapt: Callable[[Callable[..., None]], Callable[..., None]]):
        self.reporter, self.adapt = Reporter(console, enabled, name), adapt

    def __enter__(self) -> Callable[..., None] | None:
        if not self.reporter.enabled:
            return None
        self.reporter.__enter__()
        return self.adapt(self.reporter.update)

    def __exit__(self, *exc: object) -> None:
        self.reporter.__exit__(*exc)


def update(stage: str, done: int | None = None, total: int | None = None, detail: str = "") -> None:
    """Report progress to the command's open reporter, if any (a no-op in library use and tests)."""
    reporter = _current.get()
    if reporter is not None:
        reporter.update(stage, done, total, detail)


class _Forward:
    """The stage of each :func:`update` handed to a plain ``callback(stage)``."""

    def __init__(self, callback: Callable[[str], None]) -> None:
        self.callback = callback

    def update(self, stage: str, done: int | None = None, total: int | None = None, detail: str = "") -> None:
        self.callback(stage)


@contextmanager
def forwarded(callback: Callable[[str], None]) -> Iterator[None]:
    """Within the block, :func:`update` calls ``callback(stage)``: library code that was handed its
    own callback (the demo's build, whose lines read ``build: ...``) reports there, not to whichever
    reporter the command opened around it (the demo's ``ingest`` bar)."""
    token = _current.set(_Forward(callback))
    try:
        yield
    finally:
        _current.reset(token)
