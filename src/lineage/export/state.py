"""What a Bolt target holds, as far as this warehouse knows: the basis of incremental export.

``WAREHOUSE/exports/<target>/state.parquet`` has one row per exported node or relationship
(its key, where it hangs and the digest of its properties) and the ``run_id`` of the export
that wrote it; the same run id is stored on the target in a ``(:LineageExport)`` marker, so a
target that was wiped or written by someone else is noticed and exported in full.

While an export runs, every committed batch is appended to ``journal.jsonl`` (flushed before
the next batch is sent). After a crash the journal is replayed over the state, so the next run
skips what was already written instead of starting over; a finished run folds the journal into
a new state file (written beside, then renamed) and removes it.

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
from typing import Any, Iterable
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


@dataclass
class ExportState:
    """Rows by ``(kind, key)``; each row is a dict of :data:`STATE_COLUMNS`."""

    directory: Path
    run_id: str | None = None
    rows: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    rejected: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    """Records the target could not take, by ``(kind, key)``: :data:`REJECTED_COLUMNS`."""
    journaled: int = 0
    """Batches found in the journal of an interrupted run (replayed into ``rows``)."""
    _journal: Any = None

    @property
    def state_path(self) -> Path:
        return self.directory / "state.parquet"

    @property
    def journal_path(self) -> Path:
        return self.directory / "journal.jsonl"

    @classmethod
    def load(cls, directory: Path) -> "ExportState":
        import pyarrow.parquet as pq

        state = cls(Path(directory))
        if state.state_path.exists():
            table = pq.read_table(str(state.state_path))
            state.run_id = (table.schema.metadata or {}).get(b"run_id", b"").decode() or None
            for row in table.to_pylist():
                if row.get("reason") is None:
                    state.rows[(row["kind"], row["key"])] = {c: row.get(c) for c in STATE_COLUMNS}
                else:
                    state.rejected[(row["kind"], row["key"])] = row
        if state.journal_path.exists():
            state.journaled = state._replay()
        return state

    def _replay(self) -> int:
        """Apply the journal of an interrupted run; a torn last line (crash mid-write) is ignored."""
        batches = 0
        with self.journal_path.open(encoding="utf-8") as handle:
            for line in handle:
                try:
                    batch = json.loads(line)
                except json.JSONDecodeError:
                    break
                self._apply(batch.get("rows", ()))
                self._reject(batch.get("rejected", ()))
                batches += bool(batch.get("rows"))
        return batches

    def _apply(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            key = (row["kind"], row["key"])
            self.rejected.pop(key, None)
            if row.get("digest") is None:
                self.rows.pop(key, None)
            else:
                self.rows[key] = {c: row.get(c) for c in STATE_COLUMNS}

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
        """A batch the server committed: remember it (journal first, then memory)."""
        self._append({"rows": rows})
        self._apply(rows)

    def reject(self, rows: list[dict[str, Any]]) -> None:
        """Records the server could not take (rows with ``reason`` and ``cause``): journal, then memory."""
        self._append({"rejected": rows})
        self._reject(rows)

    def keep_rejected(self, rows: list[dict[str, Any]]) -> None:
        """Keep only these earlier rejections (the others' records changed, are gone, or are retried)."""
        self.rejected = {}
        self._reject(rows)

    def hold(self, rows: list[dict[str, Any]]) -> None:
        """Rows a bulk load wrote (no journal: a bulk load is redone whole, never resumed)."""
        self._apply(rows)

    def save(self, run_id: str) -> None:
        """Fold the journal into a new state file for ``run_id`` (atomic rename), drop the journal."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.directory.mkdir(parents=True, exist_ok=True)
        rows = [*self.rows.values(), *self.rejected.values()]
        columns = {c: [row.get(c) for row in rows] for c in REJECTED_COLUMNS}
        table = pa.table({c: pa.array(v, pa.string()) for c, v in columns.items()})
        table = table.replace_schema_metadata({"run_id": run_id})
        partial = self.state_path.with_suffix(".parquet.partial")
        pq.write_table(table, str(partial))
        os.replace(partial, self.state_path)
        self.close()
        self.journal_path.unlink(missing_ok=True)
        self.run_id = run_id
        self.journaled = 0

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def forget(self) -> None:
        """The target does not hold what this state says (wiped, or another writer): start empty.
        Rejections stay: they are about the records, not about what the target holds."""
        self.rows.clear()
