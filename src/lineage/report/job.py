"""Write a report to ``OUT/<week>/`` and the ``weekly`` job (ingest new + build + report).

Exit status of ``report``/``weekly`` (DESIGN.md): 0 done, 2 usage or no graph, 1 internal,
3 written but the input-health check found gaps (:attr:`Written.complete` is False).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from lineage.report.build import report_and_history
from lineage.report.model import Report
from lineage.report.render import html, markdown
from lineage.report.window import Window

INCOMPLETE = 3


@dataclass(frozen=True)
class Written:
    report: Report
    folder: Path
    history: dict[str, str] | None = None
    """Each trend window, oldest first: ``computed`` by this report or ``kept`` from an earlier one."""

    @property
    def kept(self) -> int:
        return sum(how == "kept" for how in (self.history or {}).values())

    @property
    def files(self) -> dict[str, Path]:
        return {name: self.folder / name for name in ("report.html", "report.json", "report.md")}

    @property
    def complete(self) -> bool:
        return self.report.input_health.gaps == 0


def _write(path: Path, text: str) -> None:
    """Write through a temporary file so a reader never sees half a report."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def write(warehouse: str | Path, out: str | Path, window: Window, *, engine: str = "auto", top: int = 10,
          now: datetime | None = None, fresh: bool = False) -> Written:
    """Compute the report of ``window`` and write report.json, report.html and report.md
    (``fresh``: every trend window computed again, none kept from earlier reports)."""
    doc, history = report_and_history(warehouse, window, engine=engine, top=top, now=now, fresh=fresh)
    folder = Path(out) / window.name
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder / "report.json", doc.to_json())
    _write(folder / "report.html", html(doc))
    _write(folder / "report.md", markdown(doc))
    return Written(doc, folder, history)
