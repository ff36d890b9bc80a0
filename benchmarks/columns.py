"""What column lineage costs the build, and the blast radius of a week with columns (issue 32).

    .venv/bin/python benchmarks/columns.py --events /tmp/p7/gen [--work DIR]

Given a generated platform's folder (``events/`` and ``aliases.csv``), it ingests the events once,
copies the warehouse, and builds both copies from scratch, each its own ``lineage build``
process as a user runs it: one as shipped, one with the MaxCompute mapping's column rows taken
out (every row of ``lineage.facts.maxcompute.columns``, and a finished job's status read without
its column lineage) by a ``sitecustomize`` on the path of the build and of every Spark worker it
starts. DataHub's schema fields stay in both. Then the blast radius of the platform's last week on the warehouse with
columns. It prints one table: wall time, peak memory of the process tree, graph size; each build's
standard error is kept in ``WORK/<warehouse>.build.log``.
"""

from __future__ import annotations

import argparse
import json
import shutil
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
                        help="WORK/wh-columns already holds the platform's ingested events (and nothing built): no ingest")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="lineage-columns-"))
    hook = work / "without-columns"
    hook.mkdir(parents=True, exist_ok=True)
    (hook / "sitecustomize.py").write_text(WITHOUT_COLUMNS)
    with_columns, without = work / "wh-columns", work / "wh-no-columns"
    rows = []
    if args.ingested:
        rows.append(("ingest (done before)", 0.0, 0.0, "WORK/wh-columns as it was"))
    else:
        seconds, peak, doc = run(["ingest", str(args.events / "events"), "--warehouse", str(with_columns)])
        rows.append(("ingest", seconds, peak, f"{doc['total']['accepted']:,} events"))
    shutil.rmtree(without, ignore_errors=True)
    shutil.copytree(with_columns, without, symlinks=True)
    for name, warehouse, path in (("build, no columns", without, str(hook)), ("build, columns", with_columns, None)):
        seconds, peak, doc = run(["build", "--warehouse", str(warehouse), "--aliases", str(args.events / "aliases.csv")], path,
                                 log=work / f"{warehouse.name}.build.log")
        labels, rels = doc["vertices_by_label"], doc["edges_by_relationship"]
        rows.append((name, seconds, peak, f"{doc['vertices']:,} vertices, {doc['edges']:,} edges "
                     f"({labels.get('Column', 0):,} Column, {rels.get('HAS_COLUMN', 0):,} HAS_COLUMN, "
                     f"{doc['facts']:,} facts)"))
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
    print(f"columns cost the build {rows[2][1] / rows[1][1] - 1:+.0%} time ({datetime.now():%Y-%m-%d})")


if __name__ == "__main__":
    main()
