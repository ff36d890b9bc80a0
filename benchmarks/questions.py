"""The interactive questions at platform size, this code against an earlier commit, in the same run
(issue 31 part 4: each under 2 s and 1 GiB is the target).

    .venv/bin/python benchmarks/questions.py --warehouse /tmp/p6/wh [--baseline 0938894] [--runs 3]
        [--baseline-warehouse /tmp/p6/wh-baseline]

Each question is its own ``lineage`` process, as a user runs it, on one entity chosen from the
graph (the table most read, its owner), once with this checkout's code and once with the
baseline's (a ``git worktree`` of it, run with its ``src`` first on the path), alternating, each
``--runs`` times; the table shows the median wall time and the peak memory of the process tree,
and whether both answers are the same JSON (``as_of`` pinned, so "now" cannot differ).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _measure import measured  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def run(src: Path, args: list[str]) -> tuple[float, float, str]:
    """(seconds, peak MB of the process tree, stdout) of one ``lineage`` command run from ``src``."""
    env = dict(os.environ, PYTHONPATH=str(src))
    seconds, peak, out, err, status = measured([sys.executable, "-m", "lineage", *args], env, every=0.05)
    if status != 0:
        raise SystemExit(f"lineage {' '.join(args)} failed ({status}):\n{err[-2000:]}")
    return seconds, peak, out


def subjects(warehouse: Path) -> tuple[str, str]:
    """The table read by the most jobs and one of its owners (else the most active user)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    edges = pq.read_table(str(warehouse / "graph" / "edges"), columns=["src", "dst", "relationship"])
    reads = edges.filter(pc.equal(edges.column("relationship"), "READS"))
    table = Counter(d for d in reads.column("dst").to_pylist() if d.startswith("table:")).most_common(1)[0][0]
    owns = edges.filter(pc.and_(pc.equal(edges.column("relationship"), "OWNS"), pc.equal(edges.column("dst"), table)))
    users = owns.column("src").to_pylist() or [Counter(edges.column("src").to_pylist()).most_common(1)[0][0]]
    return table, sorted(users)[0]


def questions(warehouse: Path, as_of: str, subject: Path | None = None) -> list[tuple[str, list[str]]]:
    table, user = subjects(subject or warehouse)
    wh = ["--warehouse", str(warehouse), "--json"]
    return [
        ("show", ["show", table, "--as-of", as_of, *wh]),
        ("show (user)", ["show", user, "--as-of", as_of, *wh]),
        ("upstream", ["upstream", table, "--as-of", as_of, *wh]),
        ("impact --max-depth 2", ["impact", table, "--max-depth", "2", "--as-of", as_of, *wh]),
        ("access", ["access", table, "--as-of", as_of, *wh]),
        ("exposure", ["exposure", "--as-of", as_of, *wh]),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warehouse", type=Path, required=True)
    parser.add_argument("--baseline", default="0938894", help="The commit to compare with (default: before issue 31 part 4).")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--as-of", default="2026-10-20T00:00:00Z")
    parser.add_argument("--baseline-warehouse", type=Path,
                        help="The baseline's copy of the warehouse: the same graph with the index and stores the "
                             "baseline's code writes (`lineage build` of the baseline on a copy writes what it lacks). "
                             "Default: --warehouse, whose index a baseline may not read (another exposure_version).")
    args = parser.parse_args()
    baseline_wh = args.baseline_warehouse or args.warehouse
    with tempfile.TemporaryDirectory(prefix="lineage-baseline-") as tmp:
        worktree = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(worktree), args.baseline], check=True)
        try:
            rows = []
            asked = zip(questions(args.warehouse, args.as_of), questions(baseline_wh, args.as_of, args.warehouse))
            for (name, argv), (_, baseline_argv) in asked:
                timings: dict[str, list[tuple[float, float]]] = {"baseline": [], "now": []}
                answers: dict[str, str] = {}
                for _ in range(args.runs):
                    for which, src, given in (("baseline", worktree / "src", baseline_argv), ("now", ROOT / "src", argv)):
                        seconds, peak, out = run(src, given)
                        timings[which].append((seconds, peak))
                        answers[which] = out
                same = json.loads(answers["baseline"]) == json.loads(answers["now"])
                rows.append((name, timings, same))
                print(f"  {name}: done", file=sys.stderr)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)], check=False)
    print(f"{'question':<22} {'baseline s':>10} {'MB':>7} {'now s':>7} {'MB':>7}  same answer")
    for name, timings, same in rows:
        b = [statistics.median(t[i] for t in timings["baseline"]) for i in (0, 1)]
        n = [statistics.median(t[i] for t in timings["now"]) for i in (0, 1)]
        print(f"{name:<22} {b[0]:>10.1f} {b[1]:>7.0f} {n[0]:>7.1f} {n[1]:>7.0f}  {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
