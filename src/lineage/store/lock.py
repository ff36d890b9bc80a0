"""One writer at a time per warehouse: ``WAREHOUSE/.lock``, held with ``flock`` while a run writes.

Why ``flock``: the kernel releases it when the holder dies, however it dies, so a killed run
never blocks the next one; the file's content only *names* the holder (pid, host, command,
since when) for the message a waiting run prints. A holder that ended without clearing the
file was killed: the next writer takes the lock over, says so, and first recovers what the
killed run left (:func:`lineage.store.commit.recover`). Readers (impact, report, ...) never lock: a
run changes the warehouse only by renames at its commit, see :mod:`lineage.store.commit`.

The lock is re-entrant within a process, so ``weekly`` holds it once around its ingest and build.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterator

from lineage.store.commit import recover
from lineage.errors import UsageError

LOCK_NAME = ".lock"
DEFAULT_WAIT = 60.0
"""Seconds a writer waits for another to finish (``--wait``) before giving up with exit 2."""

_held: dict[str, int] = {}
"""Warehouses this process holds the lock of, and how deeply (re-entrance)."""


class WarehouseBusy(UsageError):
    """Another run holds the warehouse's lock and did not finish within ``--wait`` seconds."""


def describe(holder: dict[str, object] | None) -> str:
    """``pid 123 on host h (lineage ingest ..., since 2024-07-01T10:00:00Z)``."""
    if not holder:
        return "an unknown process (it is just starting)"
    return (f"pid {holder.get('pid')} on {holder.get('host')} ({holder.get('command')}, "
            f"since {holder.get('since')})")


def _read(fd: int) -> dict[str, object] | None:
    try:
        text = os.pread(fd, 65536, 0).decode("utf-8", "replace").strip()
        return json.loads(text) if text else None
    except (OSError, ValueError):
        return None


def _alive(pid: object) -> bool:
    try:
        os.kill(int(pid), 0)  # type: ignore[arg-type]
    except (OSError, TypeError, ValueError):
        return False
    return True


@contextmanager
def writer(root: str | Path, command: str, wait: float = DEFAULT_WAIT,
           say: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold ``root``'s writer lock for the block (waiting up to ``wait`` seconds for it), having
    first finished or undone what a killed writer left behind."""
    tell = say or (lambda _message: None)
    root = Path(root).expanduser().resolve()
    key = str(root)
    if key in _held:
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _acquire(fd, root, wait, tell)
        previous = _read(fd)
        if previous:
            here = previous.get("host") == socket.gethostname()
            state = "is dead" if here and not _alive(previous.get("pid")) else "ended without releasing it"
            tell(f"taking over the stale lock of {describe(previous)}: that run {state} (killed?); "
                 "finishing or undoing what it left")
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "command": command,
                  "since": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(holder) + "\n").encode(), 0)
        os.fsync(fd)
        _held[key] = 1
        try:
            for message in recover(root):
                tell(message)
            yield
        finally:
            del _held[key]
            os.ftruncate(fd, 0)  # a clean release leaves an empty file: content means "killed"
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _acquire(fd: int, root: Path, wait: float, tell: Callable[[str], None]) -> None:
    deadline = time.monotonic() + max(0.0, wait)
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            holder = _read(fd)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WarehouseBusy(
                    f"the warehouse {root} is being written by {describe(holder)}; gave up after waiting "
                    f"{wait:g} s (--wait): try again when it has finished") from None
            if not told:
                tell(f"waiting up to {wait:g} s for the warehouse lock held by {describe(holder)}")
                told = True
            time.sleep(min(0.5, remaining))
