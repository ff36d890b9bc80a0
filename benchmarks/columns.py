"""What column lineage costs the build, and the blast radius of a week with columns (issue 32).

    .venv/bin/python benchmarks/columns.py --events /tmp/p7/gen [--work DIR] [--ingested] [--rounds N]

Given a generated platform's folder (``events/`` and ``aliases.csv``), it ingests the events once
into ``WORK/ingested`` (kept: ``--ingested`` starts from it), then builds copies of that warehouse
from scratch, each its own ``lineage build`` process as a user runs it: one as shipped, one with
the MaxCompute mapping's column rows taken out (every row of ``lineage.facts.maxcompute.columns``,
and a finished job's status read without its column lineage) by a ``sitecustomize`` on the path of
the build and of every Spark worker it starts. DataHub's schema fields stay in both. A build on
this 2-core machine varies by about 10% from one run to the next, as much as the difference being
measured, so ``--rounds N`` builds each N times, alternating which goes first, and compares the
medians. Then the blast radius of the platform's last week on the warehouse with columns. It
prints one table: wall time, peak memory of the process tree, graph size; each build's standard
error is kept in ``WORK/<warehouse>.build.log``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _measure import measured  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
WITHOUT_COLUMNS = '''
# the MaxCompute mapping without its column rows (the package builds MAPPING when imported, so the
# rows are rewritten, not the functions); a finished job's status read without its column lineage
import dataclasses

import lineage.facts.maxcompute as mapping
from lineage.facts.maxcompute import columns, helpers

for _kind, _rows in list(mapping.MAPPING.items()):
    _kept = []
    for _row in _rows:
        _fn = getattr(_row.fn, "func", _row.fn)
        if _fn is columns.job_status:
            _kept.append(dataclasses.replace(_row, fn=helpers.job_status))
        elif getattr(_fn, "__module__", "") != columns.__name__:
            _kept.append(_row)
    mapping.MAPPING[_kind] = tuple(_kept)
'''


def run(args: list[str], env_path: str | None = None, log: Path | None = None) -> tuple[float, float, dict]:
    """One ``lineage`` command: (seconds, peak MB of its process tree, its --json document); its
    standard error kept in ``log`` (``--json`` prints no progress lines: Spark's warnings, a failure)."""
    import os

    env = dict(os.environ)
    if env_path:
        env["PYTHONPATH"] = env_path + os.pathsep + env.get("PYTHONPATH", "")
    seconds, peak, out, err, status = measured([sys.executable, "-m", "lineage", "--debug", *args, "--json"], env)
    if log is not None:
        log.write_text(err)
    if status != 0:
        raise SystemExit(f"lineage {' '.join(args)} failed ({status}):\n{err[-20000:]}")
    return seconds, peak, json.loads(out)


def last_week(build: dict) -> tuple[str, str]:
    """The last complete ISO week before the platform's last change (from the graph's changes)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    changes = pq.read_table(str(Path(build["warehouse"]) / "graph" / "changes"), columns=["time"])
    last = pc.max(changes.column("time")).as_py()
    monday = (last - timedelta(days=last.weekday() + 7)).replace(hour=0, minute=0, second=0, microsecond=0)
    return monday.date().isoformat(), (monday + timedelta(days=7)).date().isoformat()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=Path, required=True, help="a `lineage generate --out` folder")
    parser.add_argument("--work", type=Path, help="where the warehouses go (default: a temporary folder)")
    parser.add_argument("--ingested", action="store_true",
                        help="WORK/ingested already holds the platform's ingested events (an earlier run's): no ingest")
    parser.add_argument("--rounds", type=int, default=1, help="builds of each kind, alternating which goes first")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="lineage-columns-"))
    hook = work / "without-columns"
    hook.mkdir(parents=True, exist_ok=True)
    (hook / "sitecustomize.py").write_text(WITHOUT_COLUMNS)
    ingested, with_columns, without = work / "ingested", work / "wh-columns", work / "wh-no-columns"
    rows = []
    if args.ingested:
        if not (ingested / "events").is_dir():
            raise SystemExit(f"--ingested: {ingested} holds no ingested events (run once without --ingested)")
        rows.append(("ingest (done before)", 0.0, 0.0, "WORK/ingested as it was"))
    else:
        shutil.rmtree(ingested, ignore_errors=True)
        seconds, peak, doc = run(["ingest", str(args.events / "events"), "--warehouse", str(ingested)])
        rows.append(("ingest", seconds, peak, f"{doc['total']['accepted']:,} events"))
    kinds = (("build, no columns", without, str(hook)), ("build, columns", with_columns, None))
    seconds_of: dict[str, list[float]] = {name: [] for name, _, _ in kinds}
    for round_ in range(args.rounds):
        for name, warehouse, path in (kinds if round_ % 2 == 0 else kinds[::-1]):
            shutil.rmtree(warehouse, ignore_errors=True)
            shutil.copytree(ingested, warehouse, symlinks=True)
            seconds, peak, doc = run(["build", "--warehouse", str(warehouse), "--aliases", str(args.events / "aliases.csv")],
                                     path, log=work / f"{warehouse.name}.build.log")
            seconds_of[name].append(seconds)
            labels, rels = doc["vertices_by_label"], doc["edges_by_relationship"]
            rows.append((f"{name} ({round_ + 1})", seconds, peak, f"{doc['vertices']:,} vertices, {doc['edges']:,} edges "
                         f"({labels.get('Column', 0):,} Column, {rels.get('HAS_COLUMN', 0):,} HAS_COLUMN, "
                         f"{doc['facts']:,} facts)"))
            if warehouse == with_columns:
                built = doc
    since, until = last_week(built)
    seconds, peak, doc = run(["blast-radius", "--warehouse", str(with_columns), "--since", since, "--until", until,
                              "--engine", "local"])
    column_kinds = [c for c in doc["changes"] if c.get("kind") in ("field_removal", "column_type_change")]
    rows.append((f"blast-radius {since}..{until}", seconds, peak,
                 f"{len(doc['changes']):,} changes, {len(column_kinds)} column changes"))
    print(f"{'step':<36} {'seconds':>8} {'peak MB':>8}  what")
    for name, seconds, peak, what in rows:
        print(f"{name:<36} {seconds:>8.0f} {peak:>8.0f}  {what}")
    base, cols = (statistics.median(seconds_of[name]) for name, _, _ in kinds)
    print(f"median of {args.rounds} build(s) each: no columns {base:.0f} s, columns {cols:.0f} s: "
          f"columns cost the build {cols / base - 1:+.0%} time ({datetime.now():%Y-%m-%d})")


if __name__ == "__main__":
    main()
