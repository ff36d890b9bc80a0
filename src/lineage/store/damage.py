"""A damaged parquet file in the warehouse: named, with its repair, instead of a Spark stack trace.

Spark reports a truncated or corrupted file deep inside a job failure. :func:`explain` reads
such an error, finds the warehouse file it names and returns a :class:`DamagedFile` (exit 2)
saying which dataset it belongs to and the command that repairs it. :func:`repair` is that
command for the datasets only the original inputs can restore (``lineage repair``): it moves
unreadable files aside to ``WAREHOUSE/damaged/`` so the warehouse reads again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from lineage.errors import UsageError
from lineage.store.warehouse import Warehouse

SIGNATURES = (
    "is not a Parquet file", "Could not read footer", "ChecksumException", "Checksum error",
    "expected magic number", "Can not read value at", "ParquetDecodingException", "EOFException",
    "Encountered error while reading file", "CORRUPT", "Reached the end of stream",
    "can not read class org.apache.parquet", "Failed to read", "FAILED_READ_FILE",
    # pyarrow (the local engine's reader)
    "Parquet magic bytes not found", "Could not open Parquet input source", "Couldn't deserialize thrift",
    "Unexpected end of stream", "corrupted",
)
"""Words of the errors Spark/parquet-mr/Hadoop/pyarrow raise for a damaged file (not for a missing one)."""

PATH = re.compile(r"(?:file:)?(/[^\s,'\"}\]\)]+?\.parquet)")

REBUILD = "`lineage build --warehouse {root}`"
FULL = "`lineage build --full --warehouse {root}`"
MOVE = "`lineage repair --warehouse {root}` (moves the file aside), then "
REINGEST = "ingest the original inputs again to restore its records (those still stored count as duplicates)"
REPAIRS: dict[str, tuple[str, str]] = {
    # dataset (its directory under the warehouse): (how to repair it, what is left after `lineage repair`)
    "graph": (REBUILD + " (the graph is made again from the facts; the old one is never read)", REBUILD),
    "facts_extracted": (FULL + " (facts are extracted again from the events)", FULL),
    "facts": (FULL + " (facts are extracted again from the events)", FULL),
    "pairs_texts": (FULL + " (facts are extracted again from the events)", FULL),
    "events": (MOVE + REINGEST + ", then " + REBUILD, REINGEST + ", then " + REBUILD),
    "quarantine": (MOVE + REINGEST, REINGEST),
    "duplicates": (MOVE + "nothing more (it only lists skipped duplicates)", "nothing more"),
}
"""How each dataset is repaired: the graph and facts are derived (made again), the rest is the
record of the inputs (restored from them)."""


class DamagedFile(UsageError):
    """A parquet file of the warehouse cannot be read (truncated, corrupted)."""


@dataclass(frozen=True)
class Located:
    root: Path
    dataset: str
    file: Path


def locate(file: Path) -> Located | None:
    """The warehouse and dataset a parquet file belongs to (None: not a warehouse dataset)."""
    parts = file.parts
    for index in range(len(parts) - 1, 0, -1):
        if parts[index] in REPAIRS:
            root = Path(*parts[:index])
            return Located(root, parts[index], file)
    return None


def message(found: Located, why: str) -> str:
    how = REPAIRS[found.dataset][0].format(root=found.root)
    return f"damaged file in the warehouse ({found.dataset}): {found.file}: {why}; to repair it, run {how}"


def explain(error: BaseException) -> DamagedFile | None:
    """A :class:`DamagedFile` for a Spark error about a damaged warehouse file, else None."""
    text = str(error)
    if not any(signature in text for signature in SIGNATURES):
        return None
    for match in PATH.finditer(text):
        found = locate(Path(match.group(1)))
        if found is not None:
            return DamagedFile(message(found, _reason(text)))
    return None


def _reason(text: str) -> str:
    for signature in SIGNATURES:
        if signature in text:
            return "truncated or corrupted (" + signature + ")"
    return "unreadable"


def unreadable(root: Path) -> Iterator[tuple[Path, str]]:
    """Every parquet file under ``root`` that cannot be read whole (with pyarrow: no JVM)."""
    import pyarrow.parquet as pq

    for path in sorted(root.rglob("*.parquet")):
        if any(part.startswith((".", "_")) for part in path.relative_to(root).parts[:-1]) or path.name.startswith("."):
            continue  # staging and Spark's temporary files are not part of the warehouse
        if path.relative_to(root).parts[0] == "damaged":
            continue
        try:
            pq.ParquetFile(path, page_checksum_verification=True).read()
        except Exception as exc:  # noqa: BLE001 - any failure to read is what we look for
            yield path, f"{type(exc).__name__}: {exc}"


def repair(warehouse: str | Path) -> list[tuple[str, str, str]]:
    """Move unreadable parquet files to ``WAREHOUSE/damaged/`` (same relative path, with their
    checksum file); returns ``(file, reason, what to do next)`` for each. Hold the writer lock."""
    wh = Warehouse.at(warehouse)
    moved = []
    for path, reason in list(unreadable(wh.root)):
        relative = path.relative_to(wh.root)
        target = wh.root / "damaged" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        path.rename(target)
        checksum = path.with_name(f".{path.name}.crc")
        if checksum.exists():
            checksum.rename(target.with_name(checksum.name))
        found = locate(path)
        how = REPAIRS[found.dataset][1].format(root=wh.root) if found else "nothing more"
        moved.append((str(relative), reason, how))
    return moved
