"""The whole pipeline at platform size: generate, ingest, build, a week's blast radius, impact, report, export.

One command, one table. For each size it generates a platform with ``lineage generate`` (about 5.8
events per table per day), then times every step as its own ``python -m lineage ...`` process
(so its peak memory is its own: the resident memory of the whole process tree, the Spark JVM
included, sampled every 0.2 s):

* ``ingest`` (events/s) and ``build`` (events/s, vertices, edges);
* the blast radius of the platform's last complete ISO week: ``local`` and ``spark`` (the one
  temporal traversal) and, as the comparison, **networkx per instant** (the former design, kept as
  the oracle in ``tests/analysis/per_instant.py``), capped at ``--cap`` seconds and extrapolated;
  run through ``benchmarks/blast.py``'s runner, answers checked equal change by change;
* ``impact`` of the 10 busiest tables (most FEEDS out), each a CLI call, against the comparison
  a user would reach for: a variable-length Cypher query on the Bolt server
  (``MATCH (s:Table {id:$id})-[:FEEDS*1..]->(t:Table)`` over current edges), downstream tables
  checked equal to ``lineage impact --relationship FEEDS``;
* ``report`` of the week, both engines;
* ``export`` to a FalkorDB Bolt server started here (the test suite's ``tests/boltserver.py``).

    .venv/bin/python benchmarks/platform                    # 10^4 and 10^5 events
    .venv/bin/python benchmarks/platform --sizes 1e4 1e5 1e6
    .venv/bin/python benchmarks/platform --large            # adds 10^7 (hours)

A folder with ``__main__.py``, not ``benchmarks/platform.py``: a module named ``platform`` beside
the other benchmark scripts would shadow the standard library's ``platform`` (which pydantic
imports) for every script run from ``benchmarks/``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.append(str(ROOT / "tests"))  # tests/boltserver.py (appended: tests/ must not shadow packages)
sys.path.append(str(ROOT / "benchmarks"))  # benchmarks/_measure.py (appended, like tests/)

from _measure import tree_rss_mb  # noqa: E402

SIZES = {  # events -> (tables, days): ~5.8 events per table per day, at least two weeks
    "1e3": (16, 10),
    "1e4": (120, 14),
    "1e5": (600, 28),
    "1e6": (4000, 43),
    "1e7": (24000, 72),
    "1e6/week": (24600, 7),  # one ISO week (the default start is a Monday) of 10^6 events: the weekly report's size
}
STEPS = ("per-instant", "impact", "export")  # the steps --skip can leave out
BUSIEST = 10


def timed(args: list[str], env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """Run one command: (seconds, peak MB of its process tree, stdout). Fails loudly with its stderr."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak, done = [0.0], threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            peak[0] = max(peak[0], tree_rss_mb(proc.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    seconds = time.perf_counter() - started
    if proc.returncode not in (0, 3):  # 3: report written, inputs incomplete
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(args)}\n{err[-3000:]}")
    return seconds, peak[0], out


def lineage(*args: str) -> list[str]:
    return [sys.executable, "-m", "lineage", *args]


def last_week(start: date, days: int) -> tuple[str, str, str]:
    """The platform's last complete ISO week: (since, until, name)."""
    from lineage.report.window import last_complete_week

    end = datetime.combine(start + timedelta(days=days), datetime.min.time(), timezone.utc)
    week = last_complete_week(end)
    return week.since.date().isoformat(), week.until.date().isoformat(), week.name


def busiest_tables(warehouse: Path, n: int) -> list[str]:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    edges = pq.read_table(warehouse / "graph" / "edges", columns=["src", "relationship", "valid_to"])
    feeds = edges.filter(pc.and_(pc.equal(edges["relationship"], "FEEDS"), pc.is_null(edges["valid_to"])))
    counts = feeds.group_by("src").aggregate([("src", "count")]).sort_by([("src_count", "descending"), ("src", "ascending")])
    return [t for t in counts["src"].to_pylist()[:n] if t.startswith("table:")]


CYPHER_DOWNSTREAM = (
    "MATCH p = (s:Table {id: $id})-[:FEEDS*1..]->(t:Table) "
    "WHERE all(r IN relationships(p) WHERE r.valid_to IS NULL) AND all(n IN nodes(p) WHERE n.deleted_at IS NULL) "
    "RETURN DISTINCT t.id AS id"
)


def cypher_downstream(uri: str, tables: list[str], timeout: float) -> tuple[float, dict[str, set[str]] | str]:
    """The comparison: each table's downstream tables by a variable-length Cypher query."""
    from neo4j import GraphDatabase

    found: dict[str, set[str]] = {}
    started = time.perf_counter()
    try:
        with GraphDatabase.driver(uri, auth=None) as driver, driver.session() as session:
            for table in tables:
                query = session.run(CYPHER_DOWNSTREAM, id=table, timeout=timeout)
                found[table] = {record["id"] for record in query}
    except Exception as error:  # a crashed or timed-out server is a result here, not a failure
        return time.perf_counter() - started, f"{type(error).__name__}: {str(error)[:80]}"
    return time.perf_counter() - started, found


def pipeline(label: str, events: Path, warehouse: Path, tables: int, days: int, row: Any) -> dict[str, Any]:
    """generate, ingest, build: one timed row each; the generator's summary."""
    seconds, peak, out = timed(lineage("generate", "--out", str(events), "--tables", str(tables),
                                       "--days", str(days), "--json"))
    summary = json.loads(out)
    (events.parent / "generate.json").write_text(out)
    n_events = summary["counts"]["total"]["read"]
    row("generate", seconds, peak, events=n_events, rate=n_events / seconds)
    seconds, peak, out = timed(lineage("ingest", str(events / "events"), "--warehouse", str(warehouse), "--json"))
    accepted = json.loads(out)["total"]["accepted"]
    row("ingest", seconds, peak, events=n_events, rate=n_events / seconds)
    (warehouse / "aliases.csv").write_text((events / "aliases.csv").read_text())
    seconds, peak, out = timed(lineage("build", "--warehouse", str(warehouse), "--json"))
    built = json.loads(out)
    row("build", seconds, peak, events=accepted, rate=accepted / seconds, vertices=built["vertices"],
        edges=built["edges"], changes=built["changes"])
    return summary


def one_size(label: str, tables: int, days: int, tmp: Path, cap: float, engines: list[str],
             reuse: bool = False, skip: frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    import boltserver

    rows: list[dict[str, Any]] = []
    base = tmp / label.replace("/", "-")
    events, warehouse = base / "platform", base / "warehouse"

    def row(step: str, seconds: float, peak: float, **extra: Any) -> None:
        rows.append({"size": label, "tables": tables, "days": days, "step": step, "seconds": seconds,
                     "peak_mb": peak, **extra})
        print(f"#   {label} {step}: {seconds:.1f} s, peak {peak:,.0f} MB {extra or ''}", flush=True)

    if reuse and (warehouse / "graph" / "changes").is_dir():  # --reuse: time only the steps after build
        summary = json.loads((events.parent / "generate.json").read_text())
        print(f"#   {label}: reusing {warehouse}", flush=True)
    else:
        summary = pipeline(label, events, warehouse, tables, days, row)
    since, until, week = last_week(date.fromisoformat(summary["start"]), days)
    found: dict[str, dict[str, Any]] = {}
    env = {**os.environ, "BLAST_SINCE": since, "BLAST_UNTIL": until}
    for method in ["local", *(["spark"] if "spark" in engines else []), *([] if "per-instant" in skip else ["per-instant"])]:
        out_file = base / f"blast-{method}.json"
        seconds, peak, _ = timed([sys.executable, str(ROOT / "benchmarks" / "blast.py"), "--cap", str(cap),
                                  method, str(warehouse), str(out_file)], env=env)
        found[method] = json.loads(out_file.read_text())
    reference = found["local"]["digest"]
    for method, result in found.items():
        digest = result.pop("digest")
        equal = "reference" if method == "local" else (
            "yes" if all(reference.get(k) == v for k, v in digest.items())
            and (method == "per-instant" or len(digest) == len(reference)) else "NO")
        name = {"local": "blast radius, local (one traversal)", "spark": "blast radius, spark (one BFS)",
                "per-instant": "blast radius, networkx per instant (former design)"}[method]
        extra = {"changes": result["changes"], "pairs": result["pairs"], "equal": equal}
        if "extrapolated" in result:
            extra["note"] = f"{result['done_instants']} instants in {result['seconds']:.0f} s; all: ~{result['extrapolated']:.0f} s"
        row(name, result["seconds"], result["peak_mb"] + result.get("jvm_peak_mb", 0.0), **extra)

    for engine in engines:
        seconds, peak, _ = timed(lineage("report", "--warehouse", str(warehouse), "--week", week,
                                         "--out", str(base / f"reports-{engine}"), "--engine", engine))
        row(f"report {week} ({engine})", seconds, peak)
    busiest = busiest_tables(warehouse, BUSIEST)
    downstream: dict[str, set[str]] = {}
    if "impact" not in skip:
        impact_seconds, impact_peak = 0.0, 0.0
        for table in busiest:
            seconds, peak, out = timed(lineage("impact", table, "--warehouse", str(warehouse), "--engine", "local",
                                               "--relationship", "FEEDS", "--json"))
            impact_seconds, impact_peak = impact_seconds + seconds, max(impact_peak, peak)
            downstream[table] = {a["id"] for a in json.loads(out)["affected"] if a["label"] == "Table"}
        row(f"impact of the {len(busiest)} busiest tables (CLI, local)", impact_seconds, impact_peak)
    if "export" in skip:
        return rows

    server = boltserver.start(base / "falkordb")
    try:
        # the Redis port as a user's default (6379) would be: `--bulk auto` bulk-loads the empty database
        seconds, peak, out = timed(lineage("export", "neo4j", "--warehouse", str(warehouse), "--uri", server.uri,
                                           "--redis-url", f"redis://127.0.0.1:{server.redis_port}", "--json"))
        exported = json.loads(out)
        sent = sum(exported["upserted_nodes"].values()) + sum(exported["upserted_relationships"].values())
        row(f"export (full, to an empty FalkorDB: {exported.get('method', 'bolt')})", seconds, peak, rows=sent or None,
            rate=(sent / seconds) if sent else None)
        seconds, answer = cypher_downstream(server.uri, busiest, timeout=60)
        if isinstance(answer, str):
            row("downstream of the busiest tables, variable-length Cypher", seconds, 0.0, note=answer)
        else:
            equal = ("yes" if answer == downstream else "NO") if downstream else "-"
            row("downstream of the busiest tables, variable-length Cypher", seconds, 0.0, equal=equal)
    finally:
        server.stop()
    return rows


def print_table(rows: list[dict[str, Any]]) -> None:
    print(f"\nbenchmarks/platform ({os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f})\n")
    header = ("size", "step", "seconds", "events/s or rows/s", "peak MB", "vertices", "edges", "changes", "affected pairs",
              "answers equal", "note")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for r in rows:
        size = f"{r['tables']:,} tables × {r['days']} d" + (f" ({r['events']:,} events)" if r.get("events") else "")
        print("| " + " | ".join([
            size, r["step"], f"{r['seconds']:.1f}", f"{r['rate']:,.0f}" if r.get("rate") else "-",
            f"{r['peak_mb']:,.0f}" if r["peak_mb"] else "-", f"{r['vertices']:,}" if r.get("vertices") else "-",
            f"{r['edges']:,}" if r.get("edges") else "-", f"{r['changes']:,}" if r.get("changes") else "-",
            f"{r['pairs']:,}" if r.get("pairs") else "-", r.get("equal", "-"), r.get("note", ""),
        ]) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=["1e4", "1e5"], choices=sorted(SIZES))
    parser.add_argument("--large", action="store_true", help="Add 10^7 events.")
    parser.add_argument("--engines", default="local,spark", help="Engines for blast radius and the report.")
    parser.add_argument("--cap", type=float, default=60.0, help="Seconds before networkx-per-instant stops.")
    parser.add_argument("--skip", nargs="+", default=[], choices=STEPS,
                        help="Leave out these steps (e.g. the export, which takes long at 10^6 rows and more).")
    parser.add_argument("--json", type=Path, help="Also write the rows here.")
    parser.add_argument("--keep", type=Path, help="Work here and keep it (default: a temporary directory).")
    parser.add_argument("--reuse", action="store_true", help="With --keep: reuse a built warehouse found there.")
    args = parser.parse_args()
    sizes = [*args.sizes, *(["1e7"] if args.large else [])]
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="platform-bench-") as scratch:
        tmp = args.keep or Path(scratch)
        for label in sizes:
            tables, days = SIZES[label]
            print(f"# {label} events: {tables} tables x {days} days", flush=True)
            rows += one_size(label, tables, days, tmp, args.cap, engines, reuse=args.reuse, skip=frozenset(args.skip))
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2, default=str))


if __name__ == "__main__":
    main()
