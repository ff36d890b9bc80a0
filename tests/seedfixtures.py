"""The seed-sample fixtures under tests/data: each case file and its ``.expect.json``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from lineage.io.reader import RawRecord, read_file

DATA = Path(__file__).parent / "data"
EXPECTS = sorted(DATA.glob("*/**/*.expect.json"))


def fixture_of(expect: Path) -> Path:
    """The one fixture file a ``<case>.expect.json`` describes."""
    case = expect.name[: -len(".expect.json")]
    matches = [p for p in expect.parent.iterdir()
               if p.name.startswith(case + ".") and not p.name.endswith(".expect.json")]
    assert len(matches) == 1, f"{expect}: expected one fixture file for case {case!r}, found {matches}"
    return matches[0]


def expectations(expect: Path) -> list[dict[str, Any]]:
    """One expectation per record (a JSON Lines fixture lists them under ``records``)."""
    spec = json.loads(expect.read_text())
    return spec["records"] if "records" in spec else [spec]


def records_with_expectations() -> Iterator[tuple[Path, RawRecord, dict[str, Any]]]:
    for expect in EXPECTS:
        path = fixture_of(expect)
        yield from ((path, raw, want) for raw, want in zip(read_file(path), expectations(expect)))


def accepted_docs(known_only: bool = False) -> dict[str, list[dict[str, Any]]]:
    """Per source, the JSON objects of the fixture records expected to be accepted."""
    docs: dict[str, list[dict[str, Any]]] = {}
    for _path, raw, want in records_with_expectations():
        if want["expect"] == "accepted" and (want["known"] or not known_only):
            docs.setdefault(want["source"], []).append(raw.doc)
    return docs
