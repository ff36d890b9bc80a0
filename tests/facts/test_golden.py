"""Every accepted DataHub seed sample (tests/data/datahub, seed 004) against its golden facts.

The golden files (tests/facts/golden/datahub/...) were read against the seed document, not just
printed: see tests/facts/conftest.py for how they are written and why a new one fails until committed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from seedfixtures import DATA, records_with_expectations

SEED_SAMPLES = [
    (path, raw.doc) for path, raw, want in records_with_expectations()
    if want.get("source") == "datahub" and want["expect"] == "accepted"
]


def _case(path: Path) -> str:
    return str(path.relative_to(DATA).with_suffix(""))


@pytest.mark.parametrize("path, doc", SEED_SAMPLES, ids=[_case(p) for p, _ in SEED_SAMPLES])
def test_seed_sample_facts_match_the_golden(path, doc, golden, facts_of):
    golden(_case(path), facts_of("datahub", doc))


def test_every_datahub_seed_sample_has_a_golden():
    assert len(SEED_SAMPLES) == 24  # the seed's 24 samples (tests/data/datahub/README.md)


def test_a_changed_fact_fails_its_golden(golden, facts_of, request):
    """The check can fail: one field changed in one fact is caught."""
    if request.config.getoption("--update-golden"):
        pytest.skip("would rewrite the golden with the changed fact")
    path, doc = SEED_SAMPLES[0]
    rows = facts_of("datahub", doc)
    rows[0] = {**rows[0], "op": "retract" if rows[0]["op"] != "retract" else "assert"}
    with pytest.raises(AssertionError, match="facts differ"):
        golden(_case(path), rows)
