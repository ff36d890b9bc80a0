"""What one run did, as data: the base of the ingest, build and export reports.

A report is a dataclass of counters, lists and ids, serialised generically (compare DataHub's
ingestion ``Report``): ``as_obj`` is the ``--json`` document and the run's log file in the
warehouse, so the two can never disagree and no report writes its own ``to_json``.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, ClassVar


def new_run_id() -> str:
    """``20240703T120000Z-1a2b3c4d``: sorts by start time, unique across machines."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + "-" + uuid.uuid4().hex[:8]


@dataclass
class RunReport:
    """Base of a run's report. Subclasses are dataclasses; their fields (in order) are the JSON
    document, followed by the properties named in ``derived``."""

    id_field: ClassVar[str] = "run_id"
    """The field holding the run id (the log file's name)."""
    derived: ClassVar[tuple[str, ...]] = ()
    """Properties appended to the document (values computed from the fields)."""

    @property
    def id(self) -> str:
        return str(getattr(self, self.id_field))

    def as_obj(self) -> dict[str, Any]:
        """The document: every field (nested dataclasses as dicts), then the derived values."""
        doc = asdict(self)
        for name in self.derived:
            doc[name] = getattr(self, name)
        return doc

    to_json = as_obj  # the name the analysis results use for the same thing

    def as_json(self, indent: int | None = None) -> str:
        return json.dumps(self.as_obj(), indent=indent, default=str)

    def log(self, directory: Path) -> Path:
        """Keep this report as ``directory/<run id>.json`` (the warehouse's record of the run)."""
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{self.id}.json"
        path.write_text(self.as_json(indent=2) + "\n")
        return path
