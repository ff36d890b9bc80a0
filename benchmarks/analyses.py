"""What keeping the scripts' analyses across builds saves a day's extraction (``lineage.sql.memo``).

    .venv/bin/python benchmarks/analyses.py --warehouse WH [--day YYYY-MM-DD]

Extracts the facts of one day's events (default: the warehouse's last day) in one Python process,
as a build's worker does (``facts_of_event`` over the events read from the warehouse), three ways:

* **in memory only**: the analyses cached for this process alone, as every build's workers did
  before: each distinct script analysed once;
* **kept, none yet**: the same with a new directory to keep them in (the first build after an
  upgrade): each analysed once and written;
* **kept from the day before**: the directory filled by the day before's events first (what the
  previous build left), the process's caches emptied, then the day: what the day's build pays.

It checks that the three give the same facts and prints one table. Each pass starts with every
process cache empty, after a warm-up pass outside the table; nothing is written to the warehouse
(the directories are temporary, beside it: on its file system, as the build's are).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.dataset as ds

from lineage.facts.extract import facts_of_event
from lineage.sql import memo
from lineage.store.warehouse import Warehouse

def _events(wh: Warehouse, day: str) -> list[dict]:
    events = ds.dataset(str(wh.events), format="parquet", partitioning="hive")
    return events.to_table(columns=["source", "kind", "event_id", "event_time", "doc"],
                           filter=pc.field("event_date") == day).to_pylist()


def _clear() -> None:
    """Every ``lru_cache`` of the project emptied (a parse, a column walk, a compiled pattern): each
    pass starts as a new worker does."""
    for name, module in list(sys.modules.items()):
        if name.startswith("lineage."):
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def _extract(rows: list[dict], kept: Path | None) -> tuple[float, list]:
    _clear()
    memo.use(kept)
    start = time.perf_counter()
    facts = [facts_of_event(r["source"], r["kind"], r["event_id"], r["event_time"], r["doc"]) for r in rows]
    return time.perf_counter() - start, facts


def _size(path: Path) -> tuple[int, int]:
    files = list(path.rglob("*.json"))
    return len(files), sum(p.stat().st_size for p in files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warehouse", required=True, type=Path)
    parser.add_argument("--day", help="the day to extract (default: the warehouse's last)")
    args = parser.parse_args()
    wh = Warehouse.at(args.warehouse)
    dates = {d.name.split("=", 1)[1] for d in wh.events.glob("source=*/event_date=*")}
    day = args.day or max(d for d in dates if d[:1].isdigit())  # not an event without a time's partition
    before = (date.fromisoformat(day) - timedelta(days=1)).isoformat()
    rows, previous = _events(wh, day), _events(wh, before)
    print(f"{day}: {len(rows):,} events; {before}: {len(previous):,} events")

    with tempfile.TemporaryDirectory(dir=wh.root.parent) as tmp:  # the warehouse's file system, as the cache's
        cold, warm = Path(tmp) / "cold", Path(tmp) / "warm"
        _extract(previous[:3000], None)  # imports and first calls, outside every pass
        memory_s, reference = _extract(rows, None)
        cold_s, cold_facts = _extract(rows, cold)
        again_s, _ = _extract(rows, None)  # the first pass again, after: what the order costs
        fill_s, _ = _extract(previous, warm)
        warm_files = _size(warm)
        warm_s, warm_facts = _extract(rows, warm)
        memo.use(None)
        assert cold_facts == reference and warm_facts == reference, "the facts differ"
        day_files, day_bytes = _size(cold)
        new_files = _size(warm)[0] - warm_files[0]

        facts = sum(len(f) for f in reference)
        print(f"\n{facts:,} facts, the same all three ways\n")
        print("| extraction of the day | s | analyses read | analyses written |")
        print("|---|---:|---:|---:|")
        print(f"| in memory only (as before) | {memory_s:.1f}, after the next: {again_s:.1f} | 0 | 0 |")
        print(f"| kept, none yet (the first build) | {cold_s:.1f} | 0 | {day_files:,} ({day_bytes / 1e6:.1f} MB) |")
        print(f"| kept from the day before ({fill_s:.0f} s to fill, {warm_files[0]:,} entries) | {warm_s:.1f} | "
              f"{day_files - new_files:,} | {new_files:,} |")
        shutil.rmtree(cold, ignore_errors=True)


if __name__ == "__main__":
    main()
