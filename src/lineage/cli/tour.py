"""``lineage demo``: a generated platform end to end, and a tour of what to look at.

Generate (``lineage.generate``) -> ingest -> build -> the last complete week's blast radius and
weekly report -> export (when a Bolt address is given). The size is chosen so that the whole run takes at most about three
minutes on a 2-core machine after set-up (see README, "The demo"); the tour names real ids of
this platform. ``small=True`` runs the hand-checked nine-table platform of ``lineage.generate.samples``.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

DEMO_TABLES = 200
DEMO_DAYS = 35
"""The demo platform: 200 tables over five weeks (measured: README, "The demo")."""


@dataclass
class Tour:
    out: Path
    events: Path
    warehouse: Path
    truth: Path | None
    interesting: dict[str, str]
    blast: list[Any] = field(default_factory=list)
    blast_window: tuple[str, str] | None = None
    report: Any = None  # lineage.report.job.Written
    exported: Any = None
    commands: list[tuple[str, str]] = field(default_factory=list)  # (what it shows, command line)


def _cmd(*parts: str) -> str:
    return " ".join(shlex.quote(p) for p in parts)


def tour_commands(warehouse: Path, interesting: dict[str, str], window: tuple[str, str]) -> list[tuple[str, str]]:
    """Five commands worth running next, with ids of this platform."""
    w = str(warehouse)
    commands = [
        ("what breaks if the hub table changes (two hops)",
         _cmd("lineage", "impact", interesting["hub_table"], "--warehouse", w, "--max-depth", "2")),
        ("who can read a PII table, and through what",
         _cmd("lineage", "access", interesting["pii_table"], "--warehouse", w)),
        ("who reads PII-derived data without clearance at the source",
         _cmd("lineage", "exposure", "--warehouse", w)),
        ("last week's changes ranked by blast radius",
         _cmd("lineage", "blast-radius", "--warehouse", w, "--since", window[0], "--until", window[1], "--top", "5")),
    ]
    if interesting.get("dropped_table") and interesting.get("dropped_at"):
        commands.append(("what the dropped table fed on the morning of its drop",
                         _cmd("lineage", "impact", interesting["dropped_table"], "--warehouse", w,
                              "--as-of", interesting["dropped_at"], "--max-depth", "2")))
    else:
        commands.append(("everything downstream of a reporting table",
                         _cmd("lineage", "impact", interesting["report_table"], "--warehouse", w)))
    return commands


def run(out: Path, *, tables: int = DEMO_TABLES, days: int = DEMO_DAYS, seed: int = 7, neo4j_uri: str | None = None,
        say: Callable[[str], None] = print, ingest_progress: Any = None, spark: Any = None) -> Tour:
    """The whole demo; ``say`` reports each step (the CLI prints it on stderr)."""
    import csv

    from lineage.analysis import api as analysis
    from lineage.generate import generate
    from lineage.graph.build import build
    from lineage.ingest.pipeline import ingest

    clock = time.monotonic()

    def took() -> str:
        nonlocal clock
        seconds, clock = time.monotonic() - clock, time.monotonic()
        return f"{seconds:.0f} s"

    events_root = out / "generated"
    generated = generate(events_root, tables=tables, days=days, seed=seed)
    counts = generated.summary["counts"]["total"]
    say(f"demo: generated {tables} tables over {days} days: {generated.events} events "
        f"(+{counts['duplicates']} redelivered, {counts['malformed']} malformed) in {generated.files} files "
        f"under {events_root / 'events'} ({took()})")
    warehouse = out / "warehouse"
    result = ingest([events_root / "events"], warehouse, spark=spark, progress=ingest_progress)
    say(f"demo: ingested {result.total.accepted} events ({result.total.duplicates} duplicates, "
        f"{result.total.quarantined} quarantined in {result.quarantine_path}) ({took()})")
    (warehouse / "aliases.csv").write_text((events_root / "aliases.csv").read_text())
    built = build(warehouse, spark=spark, progress=lambda step: say(f"build: {step}"))
    say(f"demo: built the graph: {built.vertices} vertices, {built.edges} edges, {built.changes} changes ({took()})")
    interesting = dict(generated.summary["interesting"])
    dropped = interesting.get("dropped_table")
    if dropped:
        with open(events_root / "truth" / "tables.csv", newline="") as handle:
            when = next((r["dropped_at"] for r in csv.DictReader(handle) if r["table_id"] == dropped), "")
        interesting["dropped_at"] = when[:10]
    from datetime import datetime, timezone

    from lineage.report.job import write as write_report
    from lineage.report.window import last_complete_week

    end = datetime.fromisoformat(generated.summary["start"]).replace(tzinfo=timezone.utc) + timedelta(days=days)
    week = last_complete_week(end)
    window = (week.since.date().isoformat(), week.until.date().isoformat())
    tour = Tour(out, events_root / "events", warehouse, events_root / "truth", interesting, blast_window=window)
    tour.blast = analysis.blast(warehouse, since=window[0], until=window[1], spark=spark)
    say(f"demo: blast radius of the {len(tour.blast)} change(s) of {week.name} ({took()})")
    tour.report = write_report(warehouse, out / "reports", week, engine="local")
    say(f"demo: wrote the weekly report of {week.name} to {tour.report.folder} ({took()})")
    if neo4j_uri:
        tour.exported = _export(warehouse, neo4j_uri)
    tour.commands = tour_commands(warehouse, interesting, window)
    return tour


def _export(warehouse: Path, uri: str) -> Any:
    import os

    from lineage.export.neo4j import Target, export

    return export(warehouse, Target(uri, os.environ.get("NEO4J_USER", "neo4j"), os.environ.get("NEO4J_PASSWORD") or None))
