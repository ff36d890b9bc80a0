"""The weekly job on a platform whose changes reach far (issue 31's must-show): `blast-radius` of
a four-week window and `report` of its last week, on each engine choice (`auto`, `spark`,
`local`), each its own `lineage` process as a user runs it, timed with the peak memory of its
whole process tree (the Spark JVM included); then the answers are compared across engines.

    lineage generate --out GEN --tables 6000 --days 28 --hub-changes 16
    lineage ingest --warehouse W GEN/events && lineage build --warehouse W --aliases GEN/aliases.csv
    .venv/bin/python benchmarks/pairs.py --warehouse W --since 2026-09-28 --until 2026-10-26 --week 2026-W43

"Same answers": every engine's blast-radius JSON equal to `local`'s (this run's, or an earlier
run's kept in `--out`: every change's count,
summary, score and listed vertices with their paths), and every `report.json` equal to `local`'s
but for `generated_at` and `engine`. Each report computes its eight-week trend again
(`--fresh-history`), so each walks the whole window, as the first report of a warehouse does;
the last row is the report again with the history kept, as the next week's report runs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _measure import measured  # noqa: E402

ENGINES = ("auto", "spark", "local")
VOLATILE = ("generated_at", "engine")
"""Keys of a report.json or blast-radius JSON that differ between two runs of the same question."""


def run(args: list[str]) -> tuple[float, float, int, str, str]:
    """(seconds, peak MB of the process tree, exit status, stdout, stderr's last lines)."""
    seconds, peak, out, err, status = measured([sys.executable, "-m", "lineage", *args], dict(os.environ), every=0.25)
    return seconds, peak, status, out, "\n".join(err.strip().splitlines()[-5:])


def pairs_of(doc: dict) -> int:
    return sum(change["affected_count"] for change in doc["changes"])


def steady(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k not in VOLATILE}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouse", required=True, type=Path)
    parser.add_argument("--since", required=True)
    parser.add_argument("--until", required=True)
    parser.add_argument("--week", required=True, help="The report's ISO week (the window's last).")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--commands", default="blast-radius,report", help="Which of the two to run.")
    parser.add_argument("--affected", type=int, default=20, help="blast-radius --json --affected")
    parser.add_argument("--out", type=Path, default=None, help="Where the answers are kept (default: a temporary folder).")
    options = parser.parse_args()
    out = options.out or Path(tempfile.mkdtemp(prefix="pairs-"))
    wh = ["--warehouse", str(options.warehouse)]
    rows, blasts, reports = [], {}, {}
    commands = options.commands.split(",")
    for engine in options.engines.split(","):
        if "blast-radius" not in commands:
            break
        seconds, peak, status, text, err = run(["blast-radius", *wh, "--since", options.since, "--until", options.until,
                                                "--engine", engine, "--json", "--affected", str(options.affected)])
        (out / f"blast-{engine}.json").write_text(text)
        blasts[engine] = json.loads(text) if status == 0 else None
        rows.append(("blast-radius, 4 weeks", engine, seconds, peak, status,
                     pairs_of(blasts[engine]) if blasts[engine] else "-", err if status else ""))
        print(rows[-1], flush=True)
    for engine in options.engines.split(","):
        if "report" not in commands:
            break
        folder = out / f"report-{engine}"
        seconds, peak, status, _, err = run(["report", *wh, "--week", options.week, "--engine", engine, "--out",
                                             str(folder), "--fresh-history"])
        found = folder / options.week / "report.json"
        reports[engine] = json.loads(found.read_text()) if status == 0 and found.exists() else None
        rows.append((f"report --week {options.week} (8-week trend walked)", engine, seconds, peak, status, "-",
                     err if status else ""))
        print(rows[-1], flush=True)
    if "report" in commands:
        folder = out / "report-kept"
        seconds, peak, status, _, err = run(["report", *wh, "--week", options.week, "--out", str(folder)])
        found = folder / options.week / "report.json"
        reports["kept"] = json.loads(found.read_text()) if status == 0 and found.exists() else None
        rows.append((f"report --week {options.week} (trend kept)", "auto", seconds, peak, status, "-",
                     err if status else ""))
    reference_blast, reference_report = blasts.get("local"), reports.get("local")
    if reference_blast is None and (out / "blast-local.json").exists():  # an earlier run's, kept in --out
        reference_blast = json.loads((out / "blast-local.json").read_text())
    earlier = out / "report-local" / options.week / "report.json"
    if reference_report is None and earlier.exists():
        reference_report = json.loads(earlier.read_text())
    print("\n| command | engine | seconds | peak MB | exit | affected pairs | same answers as local |")
    print("|---|---|---|---|---|---|---|")
    for command, engine, seconds, peak, status, pairs, err in rows:
        if command.startswith("blast"):
            same = blasts.get(engine) is not None and steady(blasts[engine]) == steady(reference_blast or {})
        else:
            found = reports.get("kept" if "kept" in command else engine)
            same = found is not None and steady(found) == steady(reference_report or {})
        equal = "reference" if engine == "local" and "kept" not in command else ("yes" if same else "no")
        pairs = f"{pairs:,}" if isinstance(pairs, int) else pairs
        print(f"| {command} | {engine} | {seconds:.1f} | {peak:,.0f} | {status} | {pairs} | {equal} |")
        if err:
            print(f"|   | {err.splitlines()[-1][:200]} | | | | | |")
    print(f"\nanswers kept in {out}")


if __name__ == "__main__":
    main()
