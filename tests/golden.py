"""Golden files, one rule for every kind (facts JSON, terminal text).

A missing or different golden fails. ``pytest --update-golden`` writes it, and the test still
FAILS that run and every run until the file is committed (git shows it untracked or modified):
a golden is right only once someone has read it, never because the code printed it (compare
DataHub's ``check_sql_parser_result.py``).
"""

from __future__ import annotations

import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Callable

import pytest


@lru_cache(maxsize=None)
def uncommitted(folder: Path) -> frozenset[Path] | None:
    """Files under ``folder`` git sees as untracked or modified (once per run); None outside git."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", "."],
                             cwd=folder, capture_output=True, text=True, check=True)
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder, capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return frozenset(Path(top) / line[3:].strip() for line in out.stdout.splitlines())


def check(path: Path, text: str, *, update: bool, folder: Path, what: str = "output", read: str = "read it",
          same: Callable[[str, str], bool] = str.__eq__) -> None:
    """``text`` must equal the committed golden ``path`` (under ``folder``), by ``same``."""
    if update and (not path.exists() or path.read_text() != text):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        pytest.fail(f"wrote {path}: {read}, commit it, then run again")
    assert path.exists(), f"no golden {path}: run pytest --update-golden, read the file, commit it"
    assert same(text, path.read_text()), f"{what} differs from {path}"
    dirty = uncommitted(folder)
    assert dirty is None or path.resolve() not in dirty, f"{path} is not committed: {read}, then commit it"


def text_fixture(folder: Path) -> Callable[..., Callable[[str, str], None]]:
    """A ``golden_text(name, text)`` fixture: ``text`` must equal the committed ``folder/<name>.txt``."""

    @pytest.fixture
    def golden_text(request) -> Callable[[str, str], None]:
        update = request.config.getoption("--update-golden")

        def compare(name: str, text: str) -> None:
            check(folder / f"{name}.txt", text, update=update, folder=folder)

        return compare

    return golden_text
