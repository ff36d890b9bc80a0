"""``lineage generate``: the events of one realistic data platform, and its ground truth.

The platform (``model``) is built once from the seed; then, day by day, ``plan`` decides what
happens (runs, failures, reruns, grants, changes), the per-source modules render each
happening as its platform delivers it, ``writer`` streams them into gzipped files per source
and day, and ``truth`` records what really happened so that tests can check what ``lineage
build`` recovers. Nothing of a day is kept once written: memory stays flat as events grow.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from lineage.generate import dataphin, datahub, dataworks, maxcompute, model, openlineage, plan, truth
from lineage.generate.ident import Ids
from lineage.generate.writer import Counts, JsonArrays, JsonLines

DEFAULT_START = date(2026, 9, 28)
"""A Monday: the default first day (fixed, so that a seed always gives the same events)."""

RENDERERS: dict[str, tuple[str, Callable[..., dict[str, Any]]]] = {
    **{kind: ("dataworks", fn) for kind, fn in dataworks.RENDER.items()},
    **{kind: ("maxcompute", fn) for kind, fn in maxcompute.RENDER.items()},
    **{kind: ("dataphin", fn) for kind, fn in dataphin.RENDER.items()},
    **{kind: ("datahub", fn) for kind, fn in datahub.RENDER.items()},
}
"""Intent kind -> (source, renderer): which platform reports what."""


@dataclass
class Result:
    out: Path
    events: int
    files: int
    summary: dict[str, Any]


def _writers(out: Path, day: datetime, counts: Counts, seed: int) -> dict[str, Any]:
    rng = random.Random(f"{seed}:write:{day:%Y-%m-%d}")
    events = out / "events"
    stamp = f"{day:%Y-%m-%d}"
    return {
        "dataworks": JsonLines(events / "dataworks" / "eventbridge" / f"{stamp}.jsonl.gz", "dataworks", counts, rng, out),
        "dataworks_fc": JsonLines(events / "dataworks" / "fc" / f"{stamp}.jsonl.gz", "dataworks", counts, rng, out),
        "maxcompute": JsonArrays(events / "maxcompute" / stamp, "maxcompute", counts, rng, out),
        "dataphin": JsonLines(events / "dataphin" / f"{stamp}.jsonl.gz", "dataphin", counts, rng, out),
        "datahub": JsonLines(events / "datahub" / f"{stamp}.jsonl.gz", "datahub", counts, rng, out),
    }


def _kind(doc: dict[str, Any], fallback: str) -> str:
    return doc.get("eventName") or fallback


def generate(out: str | Path, tables: int = 200, days: int = 14, start: date = DEFAULT_START, seed: int = 7,
             progress: Callable[[int, int, int], None] | None = None, foreign_share: float = 0.0,
             openlineage_share: float = 0.0, hub_changes: int = 0, planted_failures: int = 0,
             job_settings: bool = True, partition_events: bool = False) -> Result:
    """Write the platform's events under ``out/events``, ``out/aliases.csv`` and ``out/truth``.

    ``foreign_share``: the share of the ActionTrail files' events that are other cloud services'
    (a real trail records every service; ``ingest`` counts them as foreign). ``openlineage_share``:
    Spark jobs reporting OpenLineage runs, as a share of the nodes (``generate.openlineage``). 0
    leaves the output byte for byte as without the option. ``hub_changes``: columns added every
    day to the most-read tables (``plan.hub_changes``; 0: none, the same bytes). ``planted_failures``:
    columns read by SQL nodes dropped or renamed over the period, each failing its readers from
    their next run to the end (``plan.planted_breaks``; truth in ``truth/failures.csv``; 0: none,
    the same bytes). ``job_settings=False``: MaxCompute jobs carry no SKYNET_ID/SKYNET_TASKID (as
    ActionTrail documents them) and each instance starts running seconds before its job and ends seconds
    after (``dataworks.framing``): the build must match jobs to instances (``lineage.graph.links``).
    ``partition_events``: each successful run's written tables get a ``ChangeTable`` ``ADD_PARTITION``
    (real MaxCompute logs one for every partition written): writes, never changes (False: the same bytes)."""
    if not 0 <= foreign_share < 1:
        raise ValueError("--foreign-share must be at least 0 and below 1")
    if not 0 <= openlineage_share <= 1:
        raise ValueError("--openlineage-share must be between 0 and 1")
    if hub_changes < 0:
        raise ValueError("--hub-changes must be at least 0")
    if planted_failures < 0:
        raise ValueError("--planted-failures must be at least 0")
    if planted_failures and days < 3:
        raise ValueError("--planted-failures needs --days of at least 3 (a run before each change and one after)")
    if tables < 12:
        raise ValueError("--tables must be at least 12 (two per layer)")
    if days < 1:
        raise ValueError("--days must be at least 1")
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    first = datetime(start.year, start.month, start.day, tzinfo=timezone.utc)
    platform = model.build(seed, tables, days, first)
    platform.hub_changes = hub_changes
    platform.planted_failures = planted_failures
    platform.job_settings = job_settings
    platform.partition_events = partition_events
    spark_jobs = openlineage.plant(platform, openlineage_share)
    platform.spark_reads = frozenset(r for job in spark_jobs for r in job.reads)
    counts = Counts()
    recorder = truth.Truth(root, platform)
    setup = plan.setup(platform)
    planted_setup = plan.planted_setup(platform)
    state = plan.initial_state(platform, setup)
    for index in range(days):
        day = plan.plan_day(platform, state, index)
        if index == 0:
            day.intents[:0] = setup
        # the planted pipelines (model.plant) are written last, with their own ids: every file's
        # records before them are what they are without them
        planted = plan.Day(index, day.date, day.planted, (planted_setup if index == 0 else []) + day.planted_intents)
        planted_effects = plan.Day(index, day.date, [], day.effect_intents)  # effects.plant_day: after the others
        recorder.day(day)
        recorder.day(planted)
        recorder.day(planted_effects)
        spark_runs = openlineage.day_runs(platform, spark_jobs, index) if spark_jobs else []
        recorder.spark(spark_runs)
        files = _writers(root, day.date, counts, seed)
        if foreign_share:
            foreign_ids = Ids(f"{seed}:foreign:{index}")
            files["maxcompute"] = maxcompute.SharedTrail(files["maxcompute"], foreign_ids, foreign_share)
        _render(platform, files, f"{seed}", day, recorder.rendered)
        _render(platform, files, f"{seed}:hygiene", planted)
        _render(platform, files, f"{seed}:effects", planted_effects)
        if spark_runs:
            lines = JsonLines(root / "events" / "openlineage" / f"{day.date:%Y-%m-%d}.jsonl", "openlineage", counts,
                              random.Random(0), root, whole=True)
            for doc in openlineage.events(platform, spark_runs):
                lines.write(doc, doc["eventType"])
            lines.close()
        for handle in files.values():
            handle.close()
        if progress:
            progress(index + 1, days, sum(counts.records.values()))
    (root / "aliases.csv").write_text(truth.aliases(platform))
    summary = recorder.close({
        "seed": seed, "tables": tables, "days": days, "start": f"{start:%Y-%m-%d}",
        **({"foreign_share": foreign_share} if foreign_share else {}),
        **({"openlineage_share": openlineage_share, "spark_jobs": len(spark_jobs)} if openlineage_share else {}),
        **({"hub_changes": hub_changes} if hub_changes else {}),
        **({"planted_failures": planted_failures} if planted_failures else {}),
        **({} if job_settings else {"job_settings": False}),
        **({"partition_events": True} if partition_events else {}),
        "counts": counts.as_json(), "interesting": interesting(platform, recorder),
    })
    return Result(root, sum(counts.records.values()), len(counts.files), summary)


def _render(platform: model.Platform, files: dict[str, Any], stream: str, day: plan.Day,
            rendered: Callable[[model.Intent, dict[str, Any]], None] | None = None) -> None:
    """Write one day's runs and intents; ``stream`` seeds the event ids (one per source and day);
    ``rendered`` is told each intent's event (the truth names some events by their id)."""
    ids = {source: Ids(f"{stream}:{source}:{day.index}") for source in ("dataworks", "maxcompute", "dataphin", "datahub")}
    for doc in dataworks.runs(platform, ids["dataworks"], day):
        files["dataworks"].write(doc, doc["data"]["eventCode"])
    for doc in maxcompute.jobs(platform, ids["maxcompute"], day):
        files["maxcompute"].write(doc, doc["eventName"])
    for intent in day.intents:
        source, render = RENDERERS[intent.kind]
        doc = render(platform, ids[source], intent)
        if rendered:
            rendered(intent, doc)
        target = "dataworks_fc" if intent.kind in dataworks.FC_KINDS else source
        kind = intent.kind if source in ("dataworks", "dataphin") else _kind(doc, f"{doc.get('category')}:{doc.get('operation')}")
        files[target].write(doc, kind)


def interesting(platform: model.Platform, recorder: truth.Truth) -> dict[str, str]:
    """Ids worth looking at first: a hub table, a PII table, a dropped table, a busy user, ..."""
    hub = model.hub(platform)
    pii = next((t for t in sorted(platform.tables, key=lambda t: (-t.readers, t.index)) if t.pii), None)
    dropped = min(recorder.dropped, default=None)
    busy = max(recorder.busy, key=lambda p: (recorder.busy[p], -p), default=0)
    node = platform.nodes[hub.node] if hub.node is not None else platform.nodes[0]
    return {
        "hub_table": hub.id,
        "pii_table": pii.id if pii else "",
        "dropped_table": platform.table(dropped).id if dropped is not None else "",
        "busy_user": platform.people[busy].user_id,
        "busy_user_name": platform.people[busy].login,
        "hub_node": node.id,
        "report_table": next(t.id for t in platform.tables if t.layer == "rpt"),
    }
