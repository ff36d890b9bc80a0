"""Where each dataset lives under the warehouse directory (one place, so stages agree)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Warehouse:
    root: Path

    @classmethod
    def at(cls, path: str | Path) -> "Warehouse":
        return cls(Path(path).expanduser().resolve())

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
    def extracted(self) -> Path:
        """Which events have been turned into facts, and by which mapping version."""
        return self.root / "facts_extracted"

    @property
    def graph(self) -> Path:
        return self.root / "graph"

    @property
    def vertices(self) -> Path:
        return self.graph / "vertices"

    @property
    def edges(self) -> Path:
        return self.graph / "edges"

    @property
    def changes(self) -> Path:
        """Change records (schema change, drop, node deploy, permission change, ...)."""
        return self.graph / "changes"

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
