"""Gzipped event files, one per source and day, written as each platform delivers them, with
the messiness of real delivery: a few malformed lines and some redelivered duplicates.

Records are written as they are produced (never collected first), so memory does not depend
on the number of events. Every record, duplicate and malformed line is counted per source:
``lineage ingest --json`` must reconcile with these counts.
"""

from __future__ import annotations

import gzip
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DUPLICATE_RATE = 0.002
"""Share of records delivered twice (at-least-once delivery)."""
MALFORMED_RATE = 0.3
"""Chance that one source-day file of JSON Lines carries one malformed (truncated) line."""
ARRAY_CHUNK = 20_000
"""Records per ActionTrail file: ActionTrail delivers many bounded files, each one JSON array."""


@dataclass
class Counts:
    records: Counter = field(default_factory=Counter)  # unique valid records per source
    duplicates: Counter = field(default_factory=Counter)
    malformed: Counter = field(default_factory=Counter)
    foreign: Counter = field(default_factory=Counter)  # other services' records in the source's files
    kinds: Counter = field(default_factory=Counter)  # (source, kind)
    files: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        sources = sorted(set(self.records) | set(self.duplicates) | set(self.malformed) | set(self.foreign))
        every = (self.records, self.duplicates, self.malformed, self.foreign)
        return {
            "sources": {s: {"records": self.records[s], "duplicates": self.duplicates[s],
                            "malformed": self.malformed[s], "foreign": self.foreign[s]} for s in sources},
            "total": {"records": sum(self.records.values()), "duplicates": sum(self.duplicates.values()),
                      "malformed": sum(self.malformed.values()), "foreign": sum(self.foreign.values()),
                      "read": sum(sum(counter.values()) for counter in every)},
            "kinds": {f"{s}:{k}": n for (s, k), n in sorted(self.kinds.items())},
            "files": len(self.files),
        }


def _line(doc: dict[str, Any]) -> bytes:
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


class JsonLines:
    """One gzipped JSON Lines file (EventBridge/SLS/Kafka exports); ``whole``: a plain file
    written once and whole (OpenLineage's file transport: no redelivery, no truncated line, and
    nothing drawn from ``rng``)."""

    def __init__(self, path: Path, source: str, counts: Counts, rng: random.Random, root: Path, whole: bool = False):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self.source, self.counts, self.rng, self.whole = path, source, counts, rng, whole
        self.handle: Any = open(path, "wb") if whole else gzip.GzipFile(path, "wb", mtime=0)
        self.redeliver: list[bytes] = []
        self.malformed_at = None if whole or rng.random() >= MALFORMED_RATE else rng.randrange(1, 50)
        self.n = 0
        counts.files.append(str(path.relative_to(root)))

    def write(self, doc: dict[str, Any], kind: str) -> None:
        line = _line(doc)
        self.handle.write(line)
        self.n += 1
        self.counts.records[self.source] += 1
        self.counts.kinds[(self.source, kind)] += 1
        if not self.whole and self.rng.random() < DUPLICATE_RATE:
            self.redeliver.append(line)
        if self.n == self.malformed_at:
            self.handle.write(line[: len(line) // 2].rstrip(b"\n") + b"\n")  # a truncated delivery
            self.counts.malformed[self.source] += 1

    def close(self) -> None:
        for line in self.redeliver:
            self.handle.write(line)
            self.counts.duplicates[self.source] += 1
        self.handle.close()


class JsonArrays:
    """ActionTrail files delivered to OSS: gzipped JSON arrays of at most ``ARRAY_CHUNK`` records."""

    def __init__(self, folder: Path, source: str, counts: Counts, rng: random.Random, root: Path):
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.source, self.counts, self.rng, self.root = folder, source, counts, rng, root
        self.handle: gzip.GzipFile | None = None
        self.in_file = 0
        self.part = 0
        self.redeliver: list[bytes] = []

    def _open(self) -> None:
        path = self.folder / f"actiontrail-{self.part:04d}.json.gz"
        self.part += 1
        self.handle = gzip.GzipFile(path, "wb", mtime=0)
        self.handle.write(b"[\n")
        self.in_file = 0
        self.counts.files.append(str(path.relative_to(self.root)))

    def _element(self, text: bytes) -> None:
        assert self.handle is not None
        self.handle.write((b",\n" if self.in_file else b"") + text)
        self.in_file += 1

    def write(self, doc: dict[str, Any], kind: str, foreign: bool = False) -> None:
        """Append one record; ``foreign``: another service's event (counted apart, never redelivered)."""
        if self.handle is None or self.in_file >= ARRAY_CHUNK:
            self._finish()
            self._open()
        text = _line(doc).rstrip(b"\n")
        self._element(text)
        if foreign:
            self.counts.foreign[self.source] += 1
            return
        self.counts.records[self.source] += 1
        self.counts.kinds[(self.source, kind)] += 1
        if self.rng.random() < DUPLICATE_RATE:
            self.redeliver.append(text)

    def _finish(self) -> None:
        if self.handle is not None:
            for text in self.redeliver:
                self._element(text)
                self.counts.duplicates[self.source] += 1
            self.redeliver = []
            self.handle.write(b"\n]\n")
            self.handle.close()
            self.handle = None

    def close(self) -> None:
        self._finish()
