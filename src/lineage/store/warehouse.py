"""Where each dataset lives under the warehouse directory (one place, so stages agree).

A ``Warehouse`` is also a reader's **snapshot**: the graph's generation (``graph/<generation>/``,
named by the symbolic link ``graph/current`` that a build flips atomically once the generation is
whole) is resolved once, when the object is made, so every analysis given the same object reads
the vertices, edges and changes of one build, whatever builds commit meanwhile. ``graph/vertices``,
``edges`` and ``changes`` are links through ``graph/current`` too, so a path read directly sees the
current generation; a warehouse built before generations (no pointer) has them as directories.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


INDEX = "index"  # graph/<generation>/index: the question index (lineage.graph.index)
AROUND = "around"  # graph/<generation>/around: the edges by vertex (lineage.graph.around)
CURRENT = "current"  # graph/current: a link to the committed graph generation


@dataclass(frozen=True)
class Warehouse:
    root: Path
    generation: str | None = None
    """The graph generation this snapshot reads (None: none yet, or the flat layout of old builds)."""

    @classmethod
    def at(cls, path: "str | Path | Warehouse") -> "Warehouse":
        """The warehouse at ``path``, its current generation resolved now; a ``Warehouse`` is
        returned as it is (the snapshot a command opened stays the one its analyses read)."""
        if isinstance(path, Warehouse):
            return path
        root = Path(path).expanduser().resolve()
        return cls(root, current_generation(root))

    def latest(self) -> "Warehouse":
        """The same warehouse with the generation committed now (writers, under the lock)."""
        return Warehouse(self.root, current_generation(self.root))

    def __fspath__(self) -> str:
        return str(self.root)

    def __str__(self) -> str:
        return str(self.root)

    @property
    def events(self) -> Path:
        """Accepted events, parquet partitioned by source and event_date."""
        return self.root / "events"

    @property
    def quarantine(self) -> Path:
        """Records that could not be understood: file, line, reason, raw text."""
        return self.root / "quarantine"

    @property
    def duplicates(self) -> Path:
        """Records skipped because their event id was already ingested (where and which id)."""
        return self.root / "duplicates"

    @property
    def runs(self) -> Path:
        """One JSON summary per ingest run."""
        return self.root / "runs"

    @property
    def facts(self) -> Path:
        """Facts extracted from events (stage 2), parquet partitioned by source."""
        return self.root / "facts"

    @property
    def pairs_texts(self) -> Path:
        """Each distinct text of the ``pairs`` facts once, by the key the facts hold (``lineage.facts.core.stored``)."""
        return self.root / "pairs_texts"

    @property
    def sql_cache(self) -> Path:
        """Script analyses kept across builds (``lineage.sql.memo``): a directory per code version,
        safe to delete (the next build analyses its scripts again)."""
        return self.root / "cache" / "sql"

    @property
    def extracted(self) -> Path:
        """Which events have been turned into facts, and by which mapping version."""
        return self.root / "facts_extracted"

    @property
    def graph(self) -> Path:
        return self.root / "graph"

    @property
    def generation_dir(self) -> Path:
        """The directory of this snapshot's graph (``graph/<generation>``, or ``graph``)."""
        return self.graph / self.generation if self.generation else self.graph

    @property
    def vertices(self) -> Path:
        return self.generation_dir / "vertices"

    @property
    def edges(self) -> Path:
        return self.generation_dir / "edges"

    @property
    def changes(self) -> Path:
        """Change records (schema change, drop, node deploy, permission change, ...)."""
        return self.generation_dir / "changes"

    @property
    def around(self) -> Path:
        """Every edge under each of its ends, clustered by it (:mod:`lineage.graph.around`)."""
        return self.generation_dir / AROUND

    @property
    def index(self) -> Path:
        """The question index the build writes with each generation (:mod:`lineage.graph.index`)."""
        return self.generation_dir / INDEX

    @property
    def builds(self) -> Path:
        """One JSON summary per build."""
        return self.root / "builds"

    @property
    def exports(self) -> Path:
        """Per-target export state (what each Bolt server was sent), see lineage.export.state."""
        return self.root / "exports"

    @property
    def aliases(self) -> Path:
        """The default identity alias file (optional)."""
        return self.root / "aliases.csv"

    @staticmethod
    def has_data(path: Path) -> bool:
        return path.is_dir() and any(path.rglob("*.parquet"))


def current_generation(root: Path) -> str | None:
    """The generation ``graph/current`` links to (flipped by one rename), None without one."""
    try:
        name = os.readlink(root / "graph" / CURRENT)
    except OSError:
        return None
    return Path(name).name or None
