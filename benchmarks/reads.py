"""What the weekly report and the column answers read of a whole graph, this code against an earlier
commit, in the same run: the report's context (``report.context.Context.of(report=True)``: every
vertex, the edges of the report's relationships, indexed by ``analysis.access.Timeline``) and the
column rows (``analysis.columns.timeline_of``).

    .venv/bin/python benchmarks/reads.py --warehouse /tmp/p7/bench/daily [--baseline 371a37c] [--runs 3]

Each read is its own Python process, once with this checkout's code and once with the baseline's
(a ``git worktree`` of it, its ``src`` first on the path), alternating, ``--runs`` times; the table
shows the median seconds of the read itself (imports excluded), the peak memory of the process and
whether both read the same thing (a digest of every vertex row and of every edge's ``repr``, in order).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _measure import measured  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

READ = """
import hashlib, json, sys, time
from lineage.analysis import columns
from lineage.report.context import Context
started = time.perf_counter()
timeline = {read}
seconds = time.perf_counter() - started
digest = hashlib.sha256()
for vertex in sorted(timeline.rows):
    digest.update(repr(sorted(timeline.rows[vertex].items())).encode())
for edge in timeline.edges:
    digest.update(repr(edge).encode())
print(json.dumps({{"seconds": seconds, "edges": len(timeline.edges), "digest": digest.hexdigest()}}))
"""
READS = {
    "report context": "Context.of(sys.argv[1], report=True).timeline",
    "column rows": "columns.timeline_of(sys.argv[1])",
}


def run(src: Path, read: str, warehouse: Path) -> tuple[float, float, dict]:
    env = dict(os.environ, PYTHONPATH=str(src))
    _, peak, out, err, status = measured([sys.executable, "-c", READ.format(read=read), str(warehouse)], env, every=0.05)
    if status != 0:
        raise SystemExit(f"{read} failed ({status}):\n{err[-2000:]}")
    answer = json.loads(out)
    return answer["seconds"], peak, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", type=Path, required=True)
    parser.add_argument("--baseline", default="371a37c", help="The commit to compare with (default: before Edge.stream).")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="lineage-baseline-") as tmp:
        worktree = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(worktree), args.baseline], check=True)
        try:
            for name, read in READS.items():
                timings: dict[str, list[tuple[float, float]]] = {"baseline": [], "now": []}
                answers: dict[str, dict] = {}
                for _ in range(args.runs):
                    for which, src in (("baseline", worktree / "src"), ("now", ROOT / "src")):
                        seconds, peak, answer = run(src, read, args.warehouse)
                        timings[which].append((seconds, peak))
                        answers[which] = answer
                same = answers["baseline"]["digest"] == answers["now"]["digest"]
                rows.append((name, answers["now"]["edges"], timings, same))
                print(f"  {name}: done", file=sys.stderr)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)], check=False)
    print(f"{'read':<16} {'edges':>10} {'baseline s':>10} {'MB':>7} {'now s':>7} {'MB':>7}  same rows")
    for name, edges, timings, same in rows:
        b = [statistics.median(t[i] for t in timings["baseline"]) for i in (0, 1)]
        n = [statistics.median(t[i] for t in timings["now"]) for i in (0, 1)]
        print(f"{name:<16} {edges:>10,} {b[0]:>10.1f} {b[1]:>7.0f} {n[0]:>7.1f} {n[1]:>7.0f}  {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
