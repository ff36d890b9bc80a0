"""The report's history: each week's headline figures, computed once and kept in the warehouse
(``report_history/<window>.json``), so next week's report walks its own week, not eight.

A kept window stays true while no build since has folded a fact dated before the window's end:
state before an instant is folded from facts dated before it, so later facts cannot change it.
An incremental build records the earliest time among the facts it folded
(``BuildResult.earliest_new_fact``); a full fold (new mapping code, new aliases, ``--full``) may
change any time and voids every kept window, as does a new :data:`VERSION` of the figures.
Figures that read a vertex's latest properties (a label's level, ``propagate=false``) are as
they were known when the window was first reported.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from lineage.graph.api import to_time
from lineage.report.window import Window
from lineage.store.warehouse import Warehouse

VERSION = 2
"""Bump when a figure's definition changes: every kept window is then computed again (2: grants
opened, revoked and expired count (principal, object) pairs, issue 68)."""
FOLDER = "report_history"


def _path(wh: Warehouse, window: Window) -> Path:
    return wh.root / FOLDER / f"{window.name}.json"


def builds(wh: Warehouse) -> list[dict[str, Any]]:
    """Every build's log, oldest first (build ids sort by start time)."""
    if not wh.builds.is_dir():
        return []
    found = []
    for path in sorted(wh.builds.glob("*.json")):
        try:
            found.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            found.append({"build_id": path.stem, "fold": "unreadable"})  # unknown: voids what it may touch
    return found


def voided(window: Window, since_build: str, logs: Iterable[Mapping[str, Any]]) -> str | None:
    """Why a window kept after build ``since_build`` no longer holds, or None if it does."""
    for log in logs:
        if str(log.get("build_id", "")) <= since_build or log.get("fold") == "none":
            continue
        if log.get("fold") != "incremental":
            return f"build {log.get('build_id')} folded every fact ({log.get('fold_reason') or log.get('fold')})"
        earliest = to_time(log.get("earliest_new_fact"))
        if earliest is None or earliest < window.until:
            return f"build {log.get('build_id')} folded facts dated before its end"
    return None


def kept(wh: Warehouse, window: Window, keys: Iterable[str], logs: list[dict[str, Any]]) -> dict[str, int] | None:
    """The figures kept for ``window`` if they still hold (every one of ``keys``), else None."""
    try:
        doc = json.loads(_path(wh, window).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    figures = doc.get("figures") or {}
    if doc.get("version") != VERSION or not set(keys) <= set(figures) or doc.get("until") != window.until.isoformat():
        return None
    if voided(window, str(doc.get("build_id", "")), logs) is not None:
        return None
    return {key: int(figures[key]) for key in keys}


def keep(wh: Warehouse, window: Window, figures: Mapping[str, int], logs: list[dict[str, Any]],
         now: datetime) -> bool:
    """Keep a complete window's figures (one atomic write); False when not kept: the window has
    not ended, no build is logged, or the warehouse cannot be written (the report goes on)."""
    if window.until > now or not logs:
        return False
    doc = {"version": VERSION, "window": window.name, "since": window.since.isoformat(),
           "until": window.until.isoformat(), "build_id": logs[-1].get("build_id"), "computed_at": now.isoformat(),
           "figures": dict(figures)}
    path = _path(wh, window)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        return False
    return True
