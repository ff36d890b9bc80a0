"""Script analyses kept across builds: a file per analysis under the warehouse's ``cache/sql``.

Why: a scheduled node submits the same script every day. A build's Python workers analyse each
distinct text once (``lru_cache``), but the next day's build starts with empty caches and analysed
them all again: of a 10^6-event platform's day, 3,576 of its 3,650 distinct scripts ran the day
before, and their analyses were most of the day's 55 s extraction.

An entry is the JSON of one pure function's result (:func:`on_disk`), keyed by the function's name
and its arguments, in a directory of one code version (:func:`directory`: the facts' mapping
version and sqlglot's, so changed code never reads an older analysis). It is written to a temporary
file and renamed, so a crash leaves none or a whole one; one that does not decode is computed and
written again; one not read for :data:`KEEP_DAYS` is removed. JSON, never pickle: the warehouse
is data, and reading it must not run code.
Without a directory set (:func:`use`) the functions compute, as before: a process other than a
build's workers (``lineage sql``, tests) keeps nothing on disk.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import sqlglot

log = logging.getLogger(__name__)

T = TypeVar("T")

_root: Path | None = None
_unwritable = False  # a write has failed in this process: said once


def directory(cache: Path, version: str) -> Path:
    """The directory of the analyses of one code version (``version``: the facts' mapping version)
    under ``cache`` (``Warehouse.sql_cache``)."""
    return cache / f"{version}-sqlglot-{sqlglot.__version__}"


KEEP_DAYS = 8
"""An analysis no build has read for this long is removed (:func:`keep_only`): a script no longer
run, a schema since changed, a text with the day's date substituted. A read marks it (its time of
change), so the cache holds what the platform ran this week (a weekly node's script too) rather
than every script it ever ran."""


def keep_only(cache: Path, current: Path | None, now: float | None = None) -> None:
    """Remove every version's directory under ``cache`` but ``current`` (None: all): another
    version's analyses are never read again; and of ``current``, the analyses not read for
    :data:`KEEP_DAYS` (``now``: the time to count from, seconds since the epoch)."""
    if not cache.is_dir():
        return
    for entry in cache.iterdir():
        if entry != current:
            shutil.rmtree(entry, ignore_errors=True)
    if current is None or not current.is_dir():
        return
    oldest = (time.time() if now is None else now) - KEEP_DAYS * 86_400
    for path in current.glob("*/*"):
        try:
            if path.stat().st_mtime < oldest:
                path.unlink()
        except OSError:  # another process removed it, or it cannot be: it only costs space
            pass


def use(root: str | Path | None) -> None:
    """Keep this process's analyses under ``root`` (None: in memory only)."""
    global _root, _unwritable
    new = None if root is None else Path(root)
    if new != _root:  # each task of a build sets the same: its failure is still said once
        _root, _unwritable = new, False


def using(root: Path | None, task: Callable[[Iterable[Any]], Iterator[T]]) -> Callable[[Iterable[Any]], Iterator[T]]:
    """``task`` (a Spark task's function, ``rdd.mapPartitions``) keeping its worker's analyses under
    ``root``: a worker is a process of its own, and is set again by each task it runs."""
    path = None if root is None else str(root)

    def run(rows: Iterable[Any]) -> Iterator[T]:
        use(path)
        return task(rows)

    return run


def on_disk(name: str, encode: Callable[[T], Any], decode: Callable[[Any], T],
            maxsize: int = 8192) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """A pure function of JSON-able arguments, its results kept under the directory :func:`use`
    set (``encode``: the result as JSON-able data; ``decode``: back), and in this process's memory
    (``maxsize`` results: a day's distinct scripts; the file is read once per process and text).
    The memory is keyed by the directory too: a worker that analysed a script for one warehouse
    still writes it under the next one's (a notebook or a test session building two)."""

    def wrap(fn: Callable[..., T]) -> Callable[..., T]:
        @functools.lru_cache(maxsize=maxsize)
        def kept(root: Path | None, *args: Any) -> T:
            if root is None:
                return fn(*args)
            key = hashlib.sha256(json.dumps([name, *args]).encode()).hexdigest()
            path = root / key[:2] / f"{key}.json"
            try:
                value = decode(json.loads(path.read_bytes()))
                _mark(path)
                return value
            except OSError:  # not kept yet (or the directory cannot be read: then computed each time)
                pass
            except (ValueError, TypeError, KeyError, AttributeError) as exc:  # damaged: computed again
                log.warning("script analysis %s unreadable (%s): computed again", path, exc)
            value = fn(*args)
            _write(path, json.dumps(encode(value)).encode())
            return value

        @functools.wraps(fn)
        def cached(*args: Any) -> T:
            return kept(_root, *args)

        cached.cache_clear = kept.cache_clear  # type: ignore[attr-defined]
        cached.cache_info = kept.cache_info  # type: ignore[attr-defined]
        return cached

    return wrap


def _mark(path: Path) -> None:
    """``path`` read now: its time of change moved to now, so :func:`keep_only` keeps it."""
    try:
        os.utime(path)
    except OSError:
        pass


def _write(path: Path, data: bytes) -> None:
    """``data`` at ``path`` whole or not at all (a file renamed in place; another worker writing the
    same analysis writes the same bytes). A cache that cannot be written only costs time."""
    global _unwritable
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        if not _unwritable:  # once per process: a directory that cannot be written fails every write
            log.warning("script analyses not kept under %s (%s): each is analysed as before", path.parent.parent, exc)
        _unwritable = True
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
