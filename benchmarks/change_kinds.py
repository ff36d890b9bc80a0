"""What each change of a week reaches (issue 68): changes and affected pairs per kind, category and
effect, then the week's top 10, from ``blast-radius --json`` on a built warehouse.

    python benchmarks/change_kinds.py WAREHOUSE SINCE UNTIL

Run it with another checkout's code first on the same warehouse (``PYTHONPATH=<other>/src``) for the
before column of ``benchmarks/README.md``: the answers differ, the warehouse does not."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict


def blast(warehouse: str, since: str, until: str) -> dict:
    ran = subprocess.run([sys.executable, "-m", "lineage", "blast-radius", "--warehouse", warehouse, "--since", since,
                          "--until", until, "--json", "--engine", "local"], capture_output=True, text=True, check=True)
    return json.loads(ran.stdout)


def by_kind(doc: dict) -> list[str]:
    rows: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for c in doc["changes"]:
        key = (c["kind"], c.get("category") or "-", c["effect"])
        rows[key][0] += 1
        rows[key][1] += c.get("affected_count", len(c["affected"]))
    lines = ["| kind | category | effect | changes | affected pairs |", "|---|---|---|---:|---:|"]
    for key in sorted(rows, key=lambda k: (-rows[k][1], k)):
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {rows[key][0]} | {rows[key][1]:,} |")
    lines.append(f"| all | | | {sum(r[0] for r in rows.values())} | {sum(r[1] for r in rows.values()):,} |")
    return lines


def top(doc: dict, n: int = 10) -> list[str]:
    lines = ["| # | score | kind | category | effect | entity | what changed | affected |",
             "|---:|---:|---|---|---|---|---|---|"]
    for rank, c in enumerate(doc["changes"][:n], 1):
        what = [f'{x["column"]} {x["change"]}' for x in c.get("columns") or []]
        what += [f'{x["setting"]} {x["before"]} -> {x["after"]}' for x in c.get("settings") or []]
        summary = ", ".join(f"{label} {count}" for label, count in c["summary"].items())
        lines.append(f'| {rank} | {c["score"]:g} | {c["kind"]} | {c.get("category") or "-"} | {c["effect"]} | '
                     f'{c["entity_id"].split(":", 2)[-1]} | {"; ".join(what)} | {summary} |')
    return lines


if __name__ == "__main__":
    found = blast(*sys.argv[1:4])
    print("\n".join(by_kind(found) + [""] + top(found)))
