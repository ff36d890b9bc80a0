"""All or nothing: a run writes its output beside the warehouse, then commits it by renames.

Why: Spark writes a dataset as many files, and a run writes several datasets (events with
their quarantine and run log; facts with the list of events they came from; vertices, edges
and changes). Killed half-way, a run writing in place leaves a warehouse that is neither
before nor after: events stored but not their run log, facts without the record that says
they were extracted (so the next build extracts them again: doubled), new vertices beside old
edges. So a run stages everything under ``WAREHOUSE/.txn/<run>/stage/`` (invisible to
readers: Spark skips names starting with ``.``), then commits:

1. the journal ``.txn/<run>/journal.json`` lists every rename (pointer links last) (written to a temporary name,
   then renamed: it exists whole or not at all; its existence *is* the commit);
2. the renames run: ``append`` moves each staged file to its place in the dataset,
   ``replace`` swaps the staged directory for the dataset's directory;
3. ``.txn/<run>`` is removed.

The next writer, holding the lock (:mod:`lineage.store.lock`), first calls :func:`recover`: a
transaction with a journal is replayed (each rename is done once: a source already moved is
skipped), one without is discarded. Either way the warehouse is as before the killed run or
as if it had finished.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path
from typing import Iterator

from lineage.store.testhooks import pause_point

TXN_DIR = ".txn"
JOURNAL = "journal.json"


class Transaction:
    """The staged output of one run; ``commit`` makes it part of the warehouse at once.
    As a context manager: committed when the block ends, discarded when it raises."""

    def __init__(self, root: str | Path, name: str) -> None:
        self.root = Path(root)
        self.name = name
        self.dir = self.root / TXN_DIR / f"{name}-{uuid.uuid4().hex[:12]}"
        self._datasets: dict[str, str] = {}  # relative dataset path -> "append" | "replace"
        self._pointers: list[str] = []  # relative paths of files replaced last (see ``point``)

    def _stage(self, where: str | Path, mode: str) -> Path:
        """``where``: a dataset directory of the warehouse (absolute) or its path relative to it."""
        path = Path(where)
        dataset = (path.relative_to(self.root) if path.is_absolute() else path).as_posix()
        if self._datasets.setdefault(dataset, mode) != mode:
            raise ValueError(f"{dataset} is staged both to append and to replace")
        staged = self.dir / "stage" / dataset
        staged.mkdir(parents=True, exist_ok=True)
        return staged

    def append(self, dataset: str | Path) -> Path:
        """Where to write files to add to ``dataset`` (their names must be new there)."""
        return self._stage(dataset, "append")

    def replace(self, dataset: str | Path) -> Path:
        """Where to write the new ``dataset`` directory (an empty one if nothing is written)."""
        return self._stage(dataset, "replace")

    def point(self, where: str | Path, target: str) -> None:
        """Make ``where`` (e.g. ``graph/current``) a symbolic link to ``target``, by one rename
        done after every other of the commit: a reader resolving it finds only what is in place.
        A directory there (an older layout) is moved aside first."""
        path = Path(where)
        rel = (path.relative_to(self.root) if path.is_absolute() else path).as_posix()
        staged = self.dir / "pointers" / str(len(self._pointers))
        staged.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, staged)
        self._pointers.append(rel)

    def __enter__(self) -> "Transaction":
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        if kind is None:
            self.commit()
        else:
            self.abort()

    def commit(self) -> None:
        """Write the journal, then do its renames (see the module docstring)."""
        if not self._datasets and not self._pointers:
            return
        operations: list[list[str]] = []
        for dataset, mode in sorted(self._datasets.items()):
            staged = self.dir / "stage" / dataset
            if mode == "replace":
                operations.append(["replace", _rel(staged, self.root), dataset])
            elif staged.is_dir():
                for path in sorted(p for p in staged.rglob("*") if p.is_file() and not _marker(p.name)):
                    operations.append(["move", _rel(path, self.root), f"{dataset}/{_rel(path, staged)}"])
        for index, target in enumerate(self._pointers):
            operations.append(["point", _rel(self.dir / "pointers" / str(index), self.root), target])
        _write_atomically(self.dir / JOURNAL, json.dumps({"name": self.name, "operations": operations}, indent=1))
        _replay(self.root, self.dir, operations, self.name)
        _remove(self.dir)

    def abort(self) -> None:
        _remove(self.dir)


def _remove(txn: Path) -> None:
    """Remove a transaction's directory, and ``.txn`` once empty (a warehouse at rest has none)."""
    shutil.rmtree(txn, ignore_errors=True)
    try:
        txn.parent.rmdir()
    except OSError:
        pass


def _marker(name: str) -> bool:
    """Spark's ``_SUCCESS`` (and its checksum): says a write finished; nothing to merge."""
    return name in ("_SUCCESS", "._SUCCESS.crc")


def _rel(path: Path, base: Path) -> str:
    return path.relative_to(base).as_posix()


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _replay(root: Path, txn: Path, operations: list[list[str]], name: str) -> None:
    """Do each rename not done yet (idempotent: a killed replay is replayed again)."""
    for index, (kind, source_rel, target_rel) in enumerate(operations):
        source, target = root / source_rel, root / target_rel
        if os.path.lexists(source):  # a staged link's target may not resolve from the stage
            target.parent.mkdir(parents=True, exist_ok=True)
            aside = kind == "replace" and target.exists() or kind == "point" and target.is_dir() and not target.is_symlink()
            if aside:
                trash = txn / "old" / str(index)
                trash.parent.mkdir(parents=True, exist_ok=True)
                os.rename(target, trash)
            os.replace(source, target)  # a link over a link: atomic
        pause_point(f"{name}.commit")


def pending(root: str | Path) -> list[Path]:
    """Transactions left by runs that did not finish (killed, or still running)."""
    base = Path(root) / TXN_DIR
    return sorted(p for p in base.iterdir() if p.is_dir()) if base.is_dir() else []


def recover(root: str | Path) -> Iterator[str]:
    """Finish committed transactions and discard uncommitted ones; yields one message for each.
    Call only while holding the writer lock."""
    root = Path(root)
    for txn in pending(root):
        journal = txn / JOURNAL
        if journal.is_file():
            doc = json.loads(journal.read_text(encoding="utf-8"))
            _replay(root, txn, doc["operations"], f"recover-{doc.get('name', '')}")
            yield f"finished the commit of an interrupted run ({txn.name}: {len(doc['operations'])} rename(s))"
        else:
            yield f"discarded the uncommitted output of an interrupted run ({txn.name})"
        _remove(txn)
