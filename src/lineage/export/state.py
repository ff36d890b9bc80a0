"""What a Bolt target holds, as far as this warehouse knows: the basis of incremental export.

``WAREHOUSE/exports/<target>/state.parquet`` has one row per exported node or relationship
(its key, where it hangs and the digest of its properties) and the ``run_id`` of the export
that wrote it; the same run id is stored on the target in a ``(:LineageExport)`` marker, so a
target that was wiped or written by someone else is noticed and exported in full.

While an export runs, every committed batch is appended to ``journal.jsonl`` (flushed before
the next batch is sent). After a crash the journal is replayed over the state, so the next run
skips what was already written instead of starting over; a finished run folds the journal into
a new state file (written beside, then renamed) and removes it.

The rows are held as one Arrow table (a row per exported record at 10^7 events is millions of
rows: as Python dicts they would outgrow the machine), and a run's journal is folded into it
with Arrow as well, the last word on a record winning.

A record the server cannot take is journaled as ``rejected`` with its digest and the reason, and
kept in the state beside what the target holds (a ``reason`` column), so the next run reports it
again without resending it while the record is unchanged (see :data:`CAUSES`).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator
from urllib.parse import urlsplit

STATE_COLUMNS = ("kind", "key", "label", "src_label", "src", "dst_label", "dst", "digest")
REJECTED_COLUMNS = (*STATE_COLUMNS, "reason", "cause")
NODE, REL = "node", "rel"
REFUSED, SERVER, ENDPOINT = "refused", "server", "endpoint"
CAUSES = (REFUSED, SERVER, ENDPOINT)
"""Why a record was rejected: refused before sending (over the request limit, a value the server
cannot store), an error from the server on that one row, or an endpoint node that was rejected.
The first two are certain to fail again for the same record; an endpoint rejection is decided
afresh on every run (the node may have been fixed)."""


def target_name(uri: str, database: str | None) -> str:
    """A directory name for one (server, database): ``bolt_localhost_7687_neo4j``."""
    parts = urlsplit(uri)
    text = f"{parts.scheme}_{parts.hostname or ''}_{parts.port or ''}_{database or 'default'}"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", text)


def _empty(columns: tuple[str, ...]) -> Any:
    import pyarrow as pa

    return pa.table({c: pa.array([], pa.string()) for c in columns})


def _table(rows: list[dict[str, Any]], columns: tuple[str, ...]) -> Any:
    import pyarrow as pa

    return pa.table({c: pa.array([row.get(c) for row in rows], pa.string()) for c in columns})


def last_word(tables: list[Any]) -> Any:
    """The rows of ``tables`` (:data:`STATE_COLUMNS`, later tables and later rows first in
    authority), one per ``(kind, key)``: the last one, dropped when its digest is null (a delete)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    table = pa.concat_tables([t.select(list(STATE_COLUMNS)) for t in tables])
    if not table.num_rows:
        return table
    table = table.append_column("_seq", pa.array(np.arange(table.num_rows)))
    table = table.sort_by([("kind", "ascending"), ("key", "ascending"), ("_seq", "ascending")])
    kind, key = table.column("kind").combine_chunks(), table.column("key").combine_chunks()
    last = np.ones(table.num_rows, dtype=bool)  # a row is the last of its (kind, key) when the next differs
    if table.num_rows > 1:
        differs = pc.or_(pc.not_equal(kind[1:], kind[:-1]), pc.not_equal(key[1:], key[:-1]))
        last[:-1] = differs.to_numpy(zero_copy_only=False)
    table = table.filter(pa.array(last)).drop_columns(["_seq"])
    return table.filter(pc.is_valid(table.column("digest")))


@dataclass
class ExportState:
    """What the target holds (:attr:`table`, one row of :data:`STATE_COLUMNS` per record) and the
    records it could not take (:attr:`rejected`, by ``(kind, key)``)."""

    directory: Path
    run_id: str | None = None
    table: Any = None
    """The rows the target holds, as of the state file and the replayed journal (not this run's batches)."""
    rejected: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    """Records the target could not take, by ``(kind, key)``: :data:`REJECTED_COLUMNS`."""
    journaled: int = 0
    """Batches found in the journal of an interrupted run (replayed into ``table``)."""
    _journal: Any = None
    _seen: int = 0
    """Bytes of the journal already in :attr:`table` (replayed, or forgotten with it)."""
    _rows: dict[tuple[str, str], dict[str, Any]] | None = None
    _nodes: set[str] | None = None

    def __post_init__(self) -> None:
        if self.table is None:
            self.table = _empty(STATE_COLUMNS)

    @property
    def state_path(self) -> Path:
        return self.directory / "state.parquet"

    @property
    def journal_path(self) -> Path:
        return self.directory / "journal.jsonl"

    @classmethod
    def load(cls, directory: Path) -> "ExportState":
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        state = cls(Path(directory))
        if state.state_path.exists():
            table = pq.read_table(str(state.state_path))
            state.run_id = (table.schema.metadata or {}).get(b"run_id", b"").decode() or None
            refused = pc.is_valid(table.column("reason")) if "reason" in table.column_names else None
            if refused is not None:
                for row in table.filter(refused).to_pylist():
                    state.rejected[(row["kind"], row["key"])] = row
                table = table.filter(pc.invert(refused))
            state.table = table.select(list(STATE_COLUMNS)).replace_schema_metadata(None)
        if state.journal_path.exists():
            state.journaled = state._replay()
        return state

    def _journal_rows(self, start: int = 0) -> Iterator[tuple[int, list[dict[str, Any]], list[dict[str, Any]]]]:
        """``(end offset, rows, rejected)`` of each whole line of the journal from byte ``start``;
        a torn last line (a crash mid-write) ends it."""
        if not self.journal_path.exists():
            return
        with self.journal_path.open("rb") as handle:
            handle.seek(start)
            for line in handle:
                if not line.endswith(b"\n"):
                    break  # cut mid-write, even where what was written parses: the next line would join it
                try:
                    batch = json.loads(line)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    break
                start += len(line)
                yield start, batch.get("rows", ()), batch.get("rejected", ())

    def _replay(self) -> int:
        """Apply the journal of an interrupted run; a torn last line is cut off, so this run's
        batches follow whole lines."""
        batches, end = 0, 0
        for end, rows, rejected in self._journal_rows():
            for row in rows:
                self.rejected.pop((row["kind"], row["key"]), None)
            self._reject(rejected)
            batches += bool(rows)
        self.table = self._folded()
        with self.journal_path.open("r+b") as handle:
            handle.truncate(end)
        self._seen = end
        return batches

    def _folded(self) -> Any:
        """:attr:`table` with the journal's batches after the part already in it, read a line at a time."""
        parts, pending = [self.table], []
        for _, rows, _ in self._journal_rows(self._seen):
            pending.extend(rows)
            if len(pending) >= 50_000:
                parts.append(_table(pending, STATE_COLUMNS))
                pending = []
        if pending:
            parts.append(_table(pending, STATE_COLUMNS))
        return last_word(parts) if len(parts) > 1 else self.table

    @property
    def rows(self) -> dict[tuple[str, str], dict[str, Any]]:
        """The rows by ``(kind, key)`` as dicts, this run's batches included: for small states (an
        OpenLineage target's events, tests); the Neo4j export reads :attr:`table`."""
        if self._rows is None:
            self._rows = {(r["kind"], r["key"]): r for r in self._folded().to_pylist()}
        return self._rows

    def holds_node(self, key: str) -> bool:
        """Whether the target held node ``key`` before this run (a set of its node keys, made once)."""
        if self._nodes is None:
            import pyarrow.compute as pc

            self._nodes = set(self.table.filter(pc.equal(self.table.column("kind"), NODE)).column("key").to_pylist())
        return key in self._nodes

    @property
    def size(self) -> int:
        return self.table.num_rows

    def _reject(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            self.rejected[(row["kind"], row["key"])] = {c: row.get(c) for c in REJECTED_COLUMNS}

    def _append(self, entry: dict[str, Any]) -> None:
        if self._journal is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._journal = self.journal_path.open("a", encoding="utf-8")
        self._journal.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self._journal.flush()

    def record(self, rows: list[dict[str, Any]]) -> None:
        """A batch the server committed: remember it (the journal first; folded in by :meth:`save`)."""
        self._append({"rows": rows})
        for row in rows:
            key = (row["kind"], row["key"])
            self.rejected.pop(key, None)
            if self._rows is not None:
                if row.get("digest") is None:
                    self._rows.pop(key, None)
                else:
                    self._rows[key] = {c: row.get(c) for c in STATE_COLUMNS}

    def reject(self, rows: list[dict[str, Any]]) -> None:
        """Records the server could not take (rows with ``reason`` and ``cause``): journal, then memory."""
        self._append({"rejected": rows})
        self._reject(rows)

    def keep_rejected(self, rows: list[dict[str, Any]]) -> None:
        """Keep only these earlier rejections (the others' records changed, are gone, or are retried)."""
        self.rejected = {}
        self._reject(rows)

    def hold(self, table: Any) -> None:
        """What a bulk load wrote (:data:`STATE_COLUMNS`; no journal: a bulk load is redone whole, never resumed)."""
        self.table = last_word([self.table, table])
        self._rows = self._nodes = None

    def save(self, run_id: str) -> None:
        """Fold the journal into a new state file for ``run_id`` (atomic rename), drop the journal."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.directory.mkdir(parents=True, exist_ok=True)
        self.close()
        held = self._folded().select(list(STATE_COLUMNS))
        held = held.append_column("reason", pa.nulls(held.num_rows, pa.string())).append_column(
            "cause", pa.nulls(held.num_rows, pa.string()))
        table = pa.concat_tables([held.cast(_empty(REJECTED_COLUMNS).schema),
                                  _table(list(self.rejected.values()), REJECTED_COLUMNS)])
        table = table.replace_schema_metadata({"run_id": run_id})
        partial = self.state_path.with_suffix(".parquet.partial")
        pq.write_table(table, str(partial))
        os.replace(partial, self.state_path)
        self.journal_path.unlink(missing_ok=True)
        self._seen = 0
        self.table = held.select(list(STATE_COLUMNS))
        self.run_id = run_id
        self.journaled = 0
        self._rows = self._nodes = None

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def forget(self) -> None:
        """The target does not hold what this state says (wiped, or another writer): start empty.
        Rejections stay: they are about the records, not about what the target holds."""
        self.table = _empty(STATE_COLUMNS)
        self._rows = self._nodes = None
        if self._journal is not None:
            self._journal.flush()
        self._seen = self.journal_path.stat().st_size if self.journal_path.exists() else 0
