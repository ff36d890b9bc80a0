"""Shared fact helpers for the per-source facts tests, and golden ``<case>.facts.json`` files.

``facts(source, doc)`` maps one event document the way ingest does and returns the facts as dicts.
``golden(case, rows)`` compares them with ``tests/facts/golden/<case>.facts.json``: a missing or
different golden fails. ``pytest --update-golden`` writes it, and the test still FAILS that run and
every run until the file is committed (git shows it untracked or modified): a golden is right only
once someone has read it, never because the code printed it (compare DataHub's
``check_sql_parser_result.py``).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import golden as golden_file
import pytest

from lineage.facts.core import FACT_NAMES
from lineage.facts.extract import facts_of_event

GOLDEN = Path(__file__).parent / "golden"


def facts(source: str, doc: dict[str, Any], event_id: str = "x") -> list[dict[str, Any]]:
    """The facts of one event document of ``source``, as dicts keyed by the fact fields."""
    rows = facts_of_event(source, "", event_id, None, json.dumps(doc))
    return [dict(zip(FACT_NAMES, row)) for row in rows]


@pytest.fixture
def facts_of() -> Callable[..., list[dict[str, Any]]]:
    """``facts`` for test modules (a conftest is not importable by name under importlib mode)."""
    return facts


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _plain(value[k]) for k in sorted(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def as_text(rows: list[dict[str, Any]]) -> str:
    """The golden file's text: one fact per entry, fields in schema order, stable formatting."""
    return json.dumps([{k: _plain(r[k]) for k in FACT_NAMES} for r in rows], indent=1, ensure_ascii=False) + "\n"


@pytest.fixture
def golden(request) -> Callable[[str, list[dict[str, Any]]], None]:
    """``golden(case, rows)``: the facts must equal the committed ``golden/<case>.facts.json``."""
    update = request.config.getoption("--update-golden")

    def check(case: str, rows: list[dict[str, Any]]) -> None:
        golden_file.check(GOLDEN / f"{case}.facts.json", as_text(rows), update=update, folder=GOLDEN,
                          what="facts", read="read it against the seed",
                          same=lambda text, stored: json.loads(text) == json.loads(stored))

    return check
