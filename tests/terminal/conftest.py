"""Golden terminal output: ``golden_text(name, text)`` compares with ``golden/<name>.txt``.

As in ``tests/facts/conftest.py``: a missing or different golden fails; ``pytest --update-golden``
writes it and the test still FAILS until the file is committed (a golden is right once someone
has read it, never because the code printed it).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Callable

import pytest

GOLDEN = Path(__file__).parent / "golden"


def _uncommitted(root: Path) -> set[Path] | None:
    try:
        out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all", "--", "."],
                             cwd=root, capture_output=True, text=True, check=True)
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True,
                             text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return {Path(top) / line[3:].strip() for line in out.stdout.splitlines()}


@pytest.fixture
def golden_text(request) -> Callable[[str, str], None]:
    update = request.config.getoption("--update-golden")

    def check(name: str, text: str) -> None:
        path = GOLDEN / f"{name}.txt"
        if update and (not path.exists() or path.read_text() != text):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            pytest.fail(f"wrote {path}: read it, check it by hand, commit it, then run again")
        assert path.exists(), f"no golden {path}: run pytest --update-golden, read the file, commit it"
        assert text == path.read_text(), f"output differs from {path}"
        uncommitted = _uncommitted(GOLDEN)
        assert uncommitted is None or path.resolve() not in uncommitted, f"{path} is not committed: read it, commit it"

    return check
