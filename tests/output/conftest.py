"""Terminal output checked against golden text files (``tests/output/golden/<case>.txt``).

``golden_text(case, text)``: a missing or different golden fails. ``pytest --update-golden``
writes it and the test still FAILS, that run and every run until the file is committed (git
shows it untracked or modified): a golden is right once someone has read it, never because
the code printed it (the same rule as tests/facts/conftest.py).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any, Callable

import pytest

GOLDEN = Path(__file__).parent / "golden"


def _uncommitted(root: Path) -> set[Path] | None:
    """Golden files git sees as untracked or modified; None outside a git checkout."""
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", "."],
                             cwd=root, capture_output=True, text=True, check=True)
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return {Path(top) / line[3:].strip() for line in out.stdout.splitlines()}


@pytest.fixture(scope="session")
def _golden_text_state(request) -> dict[str, Any]:
    GOLDEN.mkdir(exist_ok=True)
    return {"update": request.config.getoption("--update-golden"), "uncommitted": _uncommitted(GOLDEN)}


@pytest.fixture
def golden_text(_golden_text_state) -> Callable[[str, str], None]:
    """``golden_text(case, text)``: ``text`` must equal the committed ``golden/<case>.txt``."""

    def check(case: str, text: str) -> None:
        path = GOLDEN / f"{case}.txt"
        if _golden_text_state["update"] and (not path.exists() or path.read_text() != text):
            path.write_text(text)
            pytest.fail(f"wrote {path}: read it, commit it, then run again")
        assert path.exists(), f"no golden {path}: run pytest --update-golden, read the file, commit it"
        assert text == path.read_text(), f"output differs from {path}"
        uncommitted = _golden_text_state["uncommitted"]
        assert uncommitted is None or path.resolve() not in uncommitted, f"{path} is not committed: read it, then commit it"

    return check
