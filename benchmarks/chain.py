"""The size chain towards 10^7 events (issue 70, item 4): at each size, the steps a new user runs,
each its own ``lineage`` process, timed with its process tree's peak memory; resumable.

    .venv/bin/python benchmarks/chain.py run 1e5 1e6 3e6 [--chain DIR]   # in the background: nohup ... &
    .venv/bin/python benchmarks/chain.py table [--chain DIR]              # what is measured so far

Per size (``SIZES``: events -> tables and days, as ``benchmarks/platform``'s): ``generate``; the
events of every day but the last copied apart from the last day's (``build.split_days``);
``ingest`` of the first days; ``build`` (full); ``ingest`` of the last day; ``build`` again (the
day's build: incremental); ``report`` of the last complete week. Each finished step leaves
``DIR/<size>/<step>.json`` (seconds, peak MB, the command's ``--json`` where it has one) and is
not run again, so a killed chain continues where it stopped. Everything lives under ``DIR``
(default ``/work/chain``, never ``/tmp``), and the code is pinned: the first run makes a git
worktree of HEAD at ``DIR/code`` and every step runs that code, so later commits cannot change a
chain midway (delete ``DIR/code`` to measure newer code, and the sizes' folders to measure again).

``table`` prints each step's time and memory per size, the day's build against the full build,
and the projection of each step to 10^7 events on 2, 8 and 32 cores: the largest size that
measured the step, scaled linearly in the events (the ingest and the build scaled linearly from 10^6 to 10^7 before,
benchmarks/README.md "The 10^7 chain"), then split into a serial and a parallel part by the fit of
``scaling.py`` (local[1] against local[2]: :data:`PARALLEL`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _measure import measured  # noqa: E402
from build import split_days  # noqa: E402

SIZES = {"1e4": (100, 14), "1e5": (600, 28), "1e6": (4000, 43), "3e6": (12000, 43), "1e7": (24000, 72)}
"""Events -> (tables, days): about 5.8 events per table and day (``benchmarks/platform``'s sizes; 3e6 between)."""
STEPS = ("generate", "split", "ingest", "build", "ingest_day", "build_day", "report")
PARALLEL = {"ingest": 271 / (159 + 271), "build": 810 / (493 + 810), "build_day": 810 / (493 + 810)}
"""The parallel share of each step's time on one core, from scaling.py's fit at 10^6 events
(benchmarks/README.md: ingest 159 + 271/N s, build 493 + 810/N s); the others taken as serial."""
ROOT = Path(__file__).resolve().parents[1]


def pinned(chain: Path) -> Path:
    """The code every step runs: a worktree of HEAD made on the first run, kept after."""
    code = chain / "code"
    if not (code / "src" / "lineage").is_dir():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f", str(code), "HEAD"], check=True)
    return code


def run_step(folder: Path, name: str, command: list[str], env: dict[str, str]) -> dict:
    """``command`` timed with its tree's peak memory, its result kept as ``name.json`` (skipped when kept)."""
    done = folder / f"{name}.json"
    if done.exists():
        print(f"kept: {done}", flush=True)
        return json.loads(done.read_text())
    print(f"{folder.name} {name}: {' '.join(command)}", flush=True)
    seconds, peak, out, err, status = measured(command, env, every=0.5)
    (folder / f"{name}.log").write_text(err)
    if status not in (0, 3):  # 3: the report was written, its inputs had gaps
        raise SystemExit(f"{folder.name} {name} failed ({status}); see {folder / (name + '.log')}")
    try:
        answer = json.loads(out) if out.strip().startswith("{") else None
    except ValueError:
        answer = None
    found = {"step": name, "seconds": round(seconds, 1), "peak_mb": round(peak), "command": command[2:],
             "answer": answer if name != "report" else None}
    done.write_text(json.dumps(found, indent=1) + "\n")
    return found


def last_complete_week(first: date, days: int) -> str:
    """The ISO week of the platform's last complete week (generate starts on 2026-09-28 by default)."""
    end = first + timedelta(days=days)  # exclusive
    monday = end - timedelta(days=end.weekday())
    year, week, _ = (monday - timedelta(days=7)).isocalendar()
    return f"{year}-W{week:02d}"


def run(sizes: list[str], chain: Path) -> None:
    code = pinned(chain)
    env = {**os.environ, "PYTHONPATH": str(code / "src")}
    lineage = [sys.executable, "-m", "lineage"]
    for size in sizes:
        tables, days = SIZES[size]
        folder = chain / size
        folder.mkdir(parents=True, exist_ok=True)
        platform, wh = folder / "platform", folder / "warehouse"
        run_step(folder, "generate", [*lineage, "generate", "--out", str(platform), "--tables", str(tables),
                                      "--days", str(days)], env)
        if not (folder / "split.json").exists():
            before, after, last = split_days(platform, folder)
            (folder / "split.json").write_text(json.dumps({"step": "split", "last_day": last}) + "\n")
        aliases = wh / "aliases.csv"
        if not (folder / "ingest.json").exists() and wh.exists():
            shutil.rmtree(wh)  # an ingest cut short: measured again from an empty warehouse
        run_step(folder, "ingest", [*lineage, "ingest", str(folder / "days-before"), "--warehouse", str(wh), "--json"], env)
        if not aliases.exists():
            aliases.write_text((platform / "aliases.csv").read_text())
        run_step(folder, "build", [*lineage, "build", "--warehouse", str(wh), "--json"], env)
        run_step(folder, "ingest_day", [*lineage, "ingest", str(folder / "day-last"), "--warehouse", str(wh), "--json"], env)
        run_step(folder, "build_day", [*lineage, "build", "--warehouse", str(wh), "--json"], env)
        week = last_complete_week(date(2026, 9, 28), days)
        run_step(folder, "report", [*lineage, "report", "--warehouse", str(wh), "--out", str(folder / "reports"),
                                    "--week", week, "--json"], env)


def table(chain: Path) -> None:
    """Each size's steps, the day's build against the full build, and the 10^7 projection."""
    measured_sizes = {}
    for size in SIZES:
        steps = {p.stem: json.loads(p.read_text()) for p in (chain / size).glob("*.json")} if (chain / size).is_dir() else {}
        if steps:
            measured_sizes[size] = steps
    if not measured_sizes:
        print(f"nothing measured under {chain} yet")
        return
    print("| size | step | wall time | peak memory |\n|---|---|---:|---:|")
    for size, steps in measured_sizes.items():
        for name in STEPS:
            if name in steps and "seconds" in steps[name]:
                print(f"| {size} | {name} | {steps[name]['seconds']:,.0f} s | {steps[name]['peak_mb']:,} MB |")
        if "build" in steps and "build_day" in steps:
            ratio = steps["build_day"]["seconds"] / steps["build"]["seconds"]
            print(f"| {size} | day's build / full build | {ratio:.0%} | |")
    print("\nprojected to 10^7 events, each step from the largest size that measured it (linear in the "
          "events), by cores:\n")
    print("| step | from | 2 cores | 8 cores | 32 cores |\n|---|---|---:|---:|---:|")
    for name in STEPS:
        have = [size for size, steps in measured_sizes.items() if "seconds" in steps.get(name, {})]
        if not have:
            continue
        size = max(have, key=float)
        two = measured_sizes[size][name]["seconds"] * 1e7 / float(size)
        share = PARALLEL.get(name, 0.0)
        one = two / ((1 - share) + share / 2)  # back to one core, then out to N
        cells = [f"{one * ((1 - share) + share / n):,.0f} s" for n in (2, 8, 32)]
        print(f"| {name} | {size} | {' | '.join(cells)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["run", "table"])
    parser.add_argument("sizes", nargs="*", help=f"any of {', '.join(SIZES)} (default: 1e5 1e6 3e6)")
    parser.add_argument("--chain", type=Path, default=Path(os.environ.get("LINEAGE_CHAIN", "/work/chain")))
    args = parser.parse_args()
    unknown = [s for s in args.sizes if s not in SIZES]
    if unknown:
        parser.error(f"unknown size(s) {', '.join(unknown)}: use {', '.join(SIZES)}")
    if args.what == "run":
        run(args.sizes or ["1e5", "1e6", "3e6"], args.chain)
    table(args.chain)


if __name__ == "__main__":
    main()
