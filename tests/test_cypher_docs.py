"""docs/cypher.md is generated from cypher/*.cypher's headers and docs/cypher-notes/ (tools/cypher_docs.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location("cypher_docs", ROOT / "tools" / "cypher_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_cypher_md_is_up_to_date():
    assert (ROOT / "docs" / "cypher.md").read_text() == _generator().render(), \
        "regenerate: .venv/bin/python tools/cypher_docs.py"


def test_every_file_has_its_notes_and_a_section_its_header_points_to():
    page = (ROOT / "docs" / "cypher.md").read_text()
    for path in sorted((ROOT / "cypher").glob("*.cypher")):
        stem = path.name.removesuffix(".cypher")
        assert (ROOT / "docs" / "cypher-notes" / f"{stem}.md").is_file(), stem
        anchor = stem.removesuffix(".neo4j").replace("_", "-")
        assert f"docs/cypher.md#{anchor}" in path.read_text(), f"{path.name}: its header links its notes"
        assert f"{{ #{anchor} }}" in page, anchor
