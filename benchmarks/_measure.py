"""Memory of a process tree, from Linux /proc: the one sampler the benchmarks share; and
:func:`step`, the resumable step of the benchmarks that generate, ingest and build a platform.

A Python process's ``ru_maxrss`` leaves out its children, and the Spark JVM is a child, so a
benchmark that starts Spark (or runs each step as its own process) reads the tree from /proc.
Imported as ``_measure`` with ``benchmarks/`` on the path (never name a module here ``platform``:
see ``benchmarks/platform/__main__.py``).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path


def own_peak_mb() -> float:
    """Peak resident memory of this process alone (children excluded)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def descendants(root: int) -> set[int]:
    """The live processes below ``root`` (children, their children, ...), from each one's parent id."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    family, grown = {root}, True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in family} - family
        family |= more
        grown = bool(more)
    return family - {root}


def status_mb(pids: set[int], key: str) -> float:
    """The sum of one /proc/<pid>/status memory line (``VmRSS`` now, ``VmHWM`` peak) in MB;
    a process gone meanwhile counts 0."""
    total = 0.0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith(f"{key}:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def tree_rss_mb(root: int) -> float:
    """Resident memory of ``root`` and all its descendants now (sample it to find the peak)."""
    return status_mb({root} | descendants(root), "VmRSS")


def children_peak_mb() -> float:
    """Summed peak resident memory of this process's live descendants (e.g. the Spark JVM)."""
    return status_mb(descendants(os.getpid()), "VmHWM")


def measured(command: list[str], env: dict[str, str] | None = None, every: float = 0.2) -> tuple[float, float, str, str, int]:
    """Run ``command`` to its end, sampling its process tree's memory every ``every`` seconds:
    (seconds, peak MB, stdout, stderr, exit status). The one timed-run loop the benchmarks share."""
    import subprocess
    import threading
    import time

    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak, done = [0.0], threading.Event()

    def sample() -> None:
        while not done.wait(every):
            peak[0] = max(peak[0], tree_rss_mb(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    started = time.perf_counter()
    sampler.start()
    out, err = process.communicate()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    return seconds, peak[0], out, err, process.returncode


def lineage_json(*args: str, env: dict[str, str] | None = None) -> tuple[float, float, dict]:
    """One ``lineage ARGS --json`` command run to its end: (seconds, peak MB of its process tree,
    its JSON document); a failure ends the benchmark with the command's error."""
    import json
    import sys

    seconds, peak, out, err, status = measured([sys.executable, "-m", "lineage", *args, "--json"], env, every=0.5)
    if status != 0:
        raise SystemExit(f"lineage {' '.join(args)} failed ({status}):\n{err[-3000:]}")
    return seconds, peak, json.loads(out)


LINEAGE = [sys.executable, "-m", "lineage"]


def step(done: Path, command: list[str]) -> None:
    """Run ``command`` unless ``done`` exists (its output from an earlier run: re-run to resume)."""
    if done.exists():
        print(f"kept: {done}")
        return
    print("running:", " ".join(command), flush=True)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
