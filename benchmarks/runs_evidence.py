"""Runs are evidence, not impact (issue 67): what past runs made of a week's blast radius.

On a built warehouse (default: the demo's), for every complete ISO week, every *break* is walked
twice in one run on the local engine: listing runs as before (``runs=True``: every instance, DAG
run and MaxCompute job run reached, all of which started before the change) and as now (runs
walked through, never listed). Prints, per week, the share of runs in the top 10 changes'
affected sets (ranked as before) and their summed scores both ways, then the top change of each
week, both ways: a weekly change must score the same each week.

    .venv/bin/python benchmarks/runs_evidence.py [--warehouse demo-out/warehouse]
"""

from __future__ import annotations

import argparse
from datetime import datetime, timedelta, timezone

from lineage import ids
from lineage.analysis.blast import importance_at, score_of, weight
from lineage.analysis.effects import base_effect
from lineage.analysis.engine import query_of
from lineage.analysis.rules import BREAKS
from lineage.analysis.temporal import TemporalGraph
from lineage.graph.api import change_rows


def monday(moment: datetime) -> datetime:
    day = moment.astimezone(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouse", default="demo-out/warehouse")
    args = parser.parse_args()
    graph = TemporalGraph.from_warehouse(args.warehouse)
    every = [c for c in change_rows(args.warehouse) if c.get("time") and base_effect(c["kind"]) == BREAKS]
    first, last = monday(min(c["time"] for c in every)), monday(max(c["time"] for c in every))
    weeks = []
    start = first
    while start <= last:
        weeks.append((start, start + timedelta(days=7)))
        start += timedelta(days=7)
    print("| week | breaks | top-10 affected, before | of them runs | top-10 score, before | top-10 affected, now | "
          "top-10 score, now | top change | its score, before | its score, now |")
    print("|---|---:|---:|---:|---:|---:|---:|---|---:|---:|")
    for since, until in weeks:
        changes = [c for c in every if since <= c["time"] < until]
        importance = importance_at(graph, until)
        queries = [query_of(c) for c in changes]
        answers = {}
        for runs in (True, False):
            found = graph.impacts(queries, limit=None, weigh=weight, importance=importance, runs=runs)
            answers[runs] = {n: (score_of(changes[n]["kind"], impact.weighted), impact) for n, impact in found}
        ranked = sorted(answers[True], key=lambda n: -answers[True][n][0])[:10]
        before = sum(answers[True][n][1].count for n in ranked)
        past = sum(1 for n in ranked for a in answers[True][n][1].affected if ids.is_run(a.id))
        now = sum(answers[False][n][1].count for n in ranked)
        top = ranked[0] if ranked else None
        name = f"{changes[top]['kind']} {ids.key_of(changes[top]['entity_id'])}" if top is not None else "-"
        print(f"| {since:%G-W%V} | {len(changes)} | {before:,} | {past:,} ({past / max(before, 1):.0%}) | "
              f"{sum(answers[True][n][0] for n in ranked):,.1f} | {now:,} | {sum(answers[False][n][0] for n in ranked):,.1f} | "
              f"{name} | {answers[True][top][0] if top is not None else 0:,.1f} | "
              f"{answers[False][top][0] if top is not None else 0:,.1f} |")


if __name__ == "__main__":
    main()
