"""Fixtures of the graph tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def copied(demo_warehouse, tmp_path) -> Path:
    """A copy of the demo warehouse to damage (its links kept as links)."""
    target = tmp_path / "warehouse"
    shutil.copytree(demo_warehouse, target, symlinks=True)
    return target
