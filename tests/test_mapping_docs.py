"""docs/mapping.md is generated from the mapping tables, and every known kind is mapped or explained."""

from __future__ import annotations

from pathlib import Path

import pytest

from lineage.events import registry
from lineage.facts import docs
from lineage.facts.extract import fact_table

DOC = Path(__file__).resolve().parents[1] / "docs" / "mapping.md"


def test_docs_mapping_md_is_up_to_date():
    assert DOC.read_text() == docs.render(), "regenerate: .venv/bin/python -m lineage.facts.docs > docs/mapping.md"


@pytest.mark.parametrize("source", registry.SOURCES, ids=lambda s: s.name)
def test_every_known_kind_is_mapped_or_explained(source):
    mapping = fact_table(source)
    ignored = getattr(mapping, "IGNORED", {})
    assert not (set(mapping.MAPPING) & set(ignored)), "a kind is both mapped and ignored"
    assert set(source.kinds) <= set(mapping.MAPPING) | set(ignored)
    assert all(emit.note for emits in mapping.MAPPING.values() for emit in emits), "every row says where its ids come from"


def test_the_document_names_the_facts_users_rely_on():
    text = DOC.read_text()
    for row in (
        "| assert | (User)-[:HAS_ROLE]->(Role)",
        "| retract | (User)-[:CAN_ACCESS]->(Table)",
        "| assert | (Job)-[:READS]->(Table)",
        "| assert | (Node)-[:HAS_INSTANCE]->(Instance)",
        "| assert | (Table\\|Column\\|Chart\\|Dashboard\\|DataFlow\\|DataJob)-[:TAGGED]->(Tag)",
        "| change | Change `drop` on (Table)",
    ):
        assert row in text, row


def test_readme_lists_every_impact_rule():
    from lineage.analysis.rules import FORWARD, IMPACT_RULES

    root = DOC.parents[1]  # the README and the guides under docs/ (issue 35 moved the reference there)
    readme = "\n".join(p.read_text() for p in [root / "README.md", *sorted((root / "docs").glob("*.md"))])
    for rule in IMPACT_RULES:
        way = "src → dst" if rule.flows == FORWARD else "dst → src"
        assert f"| `{rule.relationship}` | {way} | {rule.why} |" in readme, rule.relationship
