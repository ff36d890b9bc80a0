"""Every accepted seed sample (tests/data/<source>) of the four sources against its golden facts.

The golden files (tests/facts/golden/<source>/...) were read against the seed document, not just
printed: see tests/facts/conftest.py for how they are written and why a new one fails until committed.
A sample whose facts are known to be wrong has no golden: it is listed in ``KNOWN_WRONG`` with the
defect and runs as a strict xfail. Once the mapping is fixed, write and read its golden and take it
off the list (a golden committed while it is still listed passes, and the strict xfail fails).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from seedfixtures import DATA, records_with_expectations

SOURCES = ("datahub", "dataworks", "maxcompute", "dataphin")

# The accepted samples per source (tests/data/<source>/README.md and the .expect.json files).
COUNTS = {"datahub": 24, "dataworks": 52, "maxcompute": 27, "dataphin": 8}

# case -> the defect in its facts (read against the seed): no golden until the mapping is fixed.
# Empty: the one defect the reading found (an InsertJob's Status) is fixed in facts/maxcompute.
KNOWN_WRONG: dict[str, str] = {}


def _case(path: Path, line: int, multi: bool) -> str:
    """The golden's name: the sample's path under tests/data, plus the line in a JSON Lines file."""
    case = str(path.relative_to(DATA).with_suffix(""))
    return f"{case}.line{line}" if multi else case


def _samples() -> list[tuple[str, str, dict]]:
    rows = [(path, raw, want) for path, raw, want in records_with_expectations()
            if want.get("source") in SOURCES and want["expect"] == "accepted"]
    per_file = Counter(path for path, _, _ in rows)
    return [(want["source"], _case(path, raw.line, per_file[path] > 1), raw.doc) for path, raw, want in rows]


SEED_SAMPLES = _samples()


def _param(source: str, case: str, doc: dict):
    marks = [pytest.mark.xfail(reason=KNOWN_WRONG[case], strict=True)] if case in KNOWN_WRONG else []
    return pytest.param(source, case, doc, id=case, marks=marks)


@pytest.mark.parametrize("source, case, doc", [_param(*s) for s in SEED_SAMPLES])
def test_seed_sample_facts_match_the_golden(source, case, doc, golden, facts_of):
    golden(case, facts_of(source, doc))


def test_every_datahub_seed_sample_has_a_golden():
    # the seed's 24 samples (tests/data/datahub/README.md)
    assert len([s for s in SEED_SAMPLES if s[0] == "datahub"]) == 24


def test_every_source_has_its_seed_samples():
    assert Counter(source for source, _, _ in SEED_SAMPLES) == COUNTS
    assert len({case for _, case, _ in SEED_SAMPLES}) == len(SEED_SAMPLES)  # one golden per sample


def test_a_known_wrong_case_is_a_seed_sample():
    assert set(KNOWN_WRONG) <= {case for _, case, _ in SEED_SAMPLES}


def test_a_changed_fact_fails_its_golden(golden, facts_of, request):
    """The check can fail: one field changed in one fact is caught."""
    if request.config.getoption("--update-golden"):
        pytest.skip("would rewrite the golden with the changed fact")
    source, case, doc = SEED_SAMPLES[0]
    rows = facts_of(source, doc)
    rows[0] = {**rows[0], "op": "retract" if rows[0]["op"] != "retract" else "assert"}
    with pytest.raises(AssertionError, match="facts differ"):
        golden(case, rows)
