"""Every (change, affected vertex) pair of a blast radius as a parquet dataset, written as the
changes stream in (``lineage blast-radius --pairs-out DIR``).

A month of a big platform's breaks reaches millions of pairs: nobody reads them in a terminal or
a JSON document, but a notebook or a warehouse table can. They are written in row batches from
:func:`lineage.analysis.api.blast_all` (one chunk of changes in memory at a time), into a hidden
folder renamed into place once complete, so a reader never sees half a dataset and a failed run
leaves the previous one as it was.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from lineage.analysis.blast import ChangeImpact

BATCH_ROWS = 200_000
"""Pairs per parquet file (one row group): bounded memory, files of a few MB."""
COLUMNS = ("change_id", "rank", "kind", "effect", "entity_id", "score", "id", "label", "distance", "path", "may_fail")


@dataclass
class Written:
    """What :func:`write_pairs` wrote."""

    folder: Path
    changes: int = 0
    pairs: int = 0
    files: int = 0


def _schema():
    import pyarrow as pa

    return pa.schema([
        ("change_id", pa.string()), ("rank", pa.int32()), ("kind", pa.string()), ("effect", pa.string()),
        ("entity_id", pa.string()), ("score", pa.float64()), ("id", pa.string()), ("label", pa.string()),
        ("distance", pa.int32()), ("path", pa.list_(pa.string())), ("may_fail", pa.bool_()),
    ])


def write_pairs(impacts: Iterable[ChangeImpact], folder: Path, *, keep: int = 0) -> tuple[Written, list[ChangeImpact]]:
    """Write every affected vertex of ``impacts`` (ranked, as :func:`blast_all` yields them) to
    ``folder`` (replaced when complete); return what was written and the changes themselves, each
    keeping only its first ``keep`` affected vertices (the summary a terminal or JSON shows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = Path(folder)
    staging = folder.with_name(f".{folder.name}.writing-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    written, summaries, rows = Written(folder), [], {name: [] for name in COLUMNS}

    def flush() -> None:
        if rows["id"] or written.files == 0:
            pq.write_table(pa.table(rows, schema=_schema()), staging / f"part-{written.files:05d}.parquet")
            written.files += 1
            for values in rows.values():
                values.clear()

    try:
        for rank, impact in enumerate(impacts, start=1):
            written.changes += 1
            summaries.append(replace(impact, affected=impact.affected[:keep]))
            for a in impact.affected:
                for name, value in zip(COLUMNS, (impact.change_id, rank, impact.kind, impact.effect, impact.entity_id,
                                                 impact.score, a.id, a.label, a.distance, list(a.path), a.may_fail)):
                    rows[name].append(value)
                written.pairs += 1
                if len(rows["id"]) >= BATCH_ROWS:
                    flush()
        flush()
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return written, summaries


def read_pairs(folder: Path) -> Iterator[dict]:
    """The pairs back, as dicts (tests and notebooks; a big dataset is better read with Spark)."""
    import pyarrow.parquet as pq

    yield from pq.read_table(str(folder)).to_pylist()
