"""The edges around each vertex, stored clustered by the vertex: what ``show`` and ``history`` read.

Why: the edges dataset is clustered by ``(relationship, src_label, src)`` (``build.CLUSTERED_BY``),
so the edges *into* a hub table (one READS per run of every job that reads it: 31,409 at 10^6
events) lie in 12 of its 18 row groups, and reading them decoded 1.1M rows to keep 31,000 (0.8 s
of ``show``'s 2.3 s). The build also writes every edge under each of its ends (column
:data:`VERTEX`, sorted, in small row groups), so the edges touching one id are one or two row
groups, skipped to by their statistics: 0.08 s for the same rows.

Each edge is stored under its ``src`` and, unless it is a self-loop, under its ``dst``: a reader
of the rows touching a set of ids keeps a row stored under its ``dst`` only when its ``src`` is not
one of them (:func:`touching`), so each edge comes once, as from the edges dataset. A generation
built before this store has none (``graph/<generation>/around`` absent): it is read around, from
the edges dataset, as before.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Collection, Sequence

if TYPE_CHECKING:
    import pyarrow as pa

VERTEX = "vertex"  # the end an edge row is stored under
CHUNK_ROWS = 131_072
"""Edge rows sorted and written per file: the memory of the write is one chunk's, whatever the graph's size."""
ROW_GROUP_ROWS = 16_384
"""Small row groups: a vertex's edges are a group or two per file, the rest skipped by statistics."""


def write(edges: Path, folder: Path, chunk_rows: int = CHUNK_ROWS) -> int:
    """Write the edges of the parquet dataset ``edges`` into ``folder``, each under its src and
    (not a self-loop) its dst, a chunk of ``chunk_rows`` edges per file sorted by that end
    (:data:`VERTEX`): each file's row groups hold disjoint ranges of ids, so a reader of one id
    decodes about one row group per file. In Arrow, without Spark (at 10^6 events 6-8 s; 47 s as a
    Spark job), so a build with nothing new writes it too when it is missing; ``_SUCCESS`` last.
    How many rows were written."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    pending: list[pa.RecordBatch] = []
    held = written = files = 0

    def flush() -> None:
        nonlocal pending, held, written, files
        if not held:
            return
        table = pa.Table.from_batches(pending)
        loop = pc.fill_null(pc.equal(table.column("src"), table.column("dst")), False)
        under_dst = table.filter(pc.invert(loop))
        both = pa.concat_tables([table.append_column(VERTEX, table.column("src")),
                                 under_dst.append_column(VERTEX, under_dst.column("dst"))]).combine_chunks()
        del table, under_dst, pending[:]  # combined once: ``take`` of a chunked column joins its chunks on every call
        order = pc.sort_indices(both.column(VERTEX))
        with pq.ParquetWriter(folder / f"part-{files:05d}.parquet", both.schema) as out:
            for start in range(0, len(order), ROW_GROUP_ROWS):  # taken a row group at a time: no sorted copy of the chunk
                out.write_table(both.take(order[start:start + ROW_GROUP_ROWS]), row_group_size=ROW_GROUP_ROWS)
        written, files, pending, held = written + both.num_rows, files + 1, [], 0

    for batch in ds.dataset(str(edges), format="parquet").to_batches(batch_readahead=1, fragment_readahead=1):
        pending.append(batch)
        held += batch.num_rows
        if held >= chunk_rows:
            flush()
    flush()
    (folder / "_SUCCESS").touch()
    return written


def usable(folder: Path) -> bool:
    """Whether ``folder`` holds a store a reader opens (complete, every file's footer readable)."""
    import pyarrow.dataset as ds

    if not (folder / "_SUCCESS").is_file():
        return False
    try:
        ds.dataset(str(folder), format="parquet").count_rows()
    except (OSError, ValueError):  # pyarrow's ArrowInvalid is a ValueError
        return False
    return True


def touching(folder: Path, ids: Collection[str], columns: Sequence[str] | None = None) -> "pa.Table | None":
    """The edge rows touching any of ``ids`` (each once, without :data:`VERTEX`; ``columns``: only
    those), read from the store in ``folder``; None when there is none or it cannot be read (the
    caller reads the edges dataset then: a damaged store costs time, never an answer)."""
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    if not (folder / "_SUCCESS").is_file():
        return None
    wanted = sorted(set(ids))
    kept = ds.field(VERTEX).isin(wanted) & ((ds.field(VERTEX) == ds.field("src")) | ~ds.field("src").isin(wanted))
    try:
        table = pq.read_table(str(folder), filters=kept, columns=None if columns is None else [*columns, VERTEX])
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        print(f"lineage: warning: the edges by vertex in {folder} cannot be read ({str(error).splitlines()[0][:200]}); "
              "reading the graph's edges instead (`lineage build` writes them again)", file=sys.stderr)
        return None
    return table.drop_columns([VERTEX])
