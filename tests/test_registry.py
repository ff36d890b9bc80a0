"""Source detection across all four sources: each record is claimed by exactly its own source."""

from __future__ import annotations

import json

import pytest

from lineage.events import registry
from lineage.events.base import RecordError
from seedfixtures import DATA, records_with_expectations


def test_the_registry_lists_the_five_sources_in_order():
    """The one hard-coded list of the sources: every other test reads ``registry.SOURCES``."""
    assert registry.names() == ("dataworks", "maxcompute", "dataphin", "datahub", "openlineage")


@pytest.mark.parametrize("source", registry.SOURCES, ids=lambda s: s.name)
def test_every_kind_has_a_model(source):
    assert source.kinds, source.name
    assert set(source.kinds) <= set(source.models), sorted(set(source.kinds) - set(source.models))


def test_every_fixture_is_claimed_by_its_own_source_only():
    claimed = [(path, raw.doc) for path, raw, want in records_with_expectations() if want["expect"] == "accepted"]
    assert len(claimed) > 60
    for path, doc in claimed:
        claims = [s.name for s in registry.SOURCES if s.detect(doc)]
        assert claims == [path.relative_to(DATA).parts[0]], f"{path}: claimed by {claims}"


def test_unrecognised_record_names_its_keys():
    with pytest.raises(RecordError, match=r"not a record of any known source .*top-level keys: hello, x"):
        registry.parse_record({"hello": 1, "x": 2})


def test_content_id_ignores_the_envelope():
    ece = json.loads((DATA / "datahub" / "tag" / "add.json").read_text())
    wrapped = {"header": {"timestampMillis": 1649953100653}, "name": "entityChangeEvent",
               "payload": {"value": json.dumps(ece), "contentType": "application/json"}}
    bare, platform = registry.parse_record(ece), registry.parse_record(wrapped)
    assert (bare.envelope, platform.envelope) == ("ece", "platform-event")
    assert registry.content_id(bare) == registry.content_id(platform)


def test_lookup_follows_json_objects_and_models_and_tells_absent_from_null():
    from lineage.events.base import MISSING, lookup
    from lineage.events.dataworks.security import ApprovalChangeCreated

    doc = {"a": {"b": None, "c": [1]}, "d": "text"}
    assert lookup(doc, "a.c") == [1] and lookup(doc, ("a", "c")) == [1]
    assert lookup(doc, "a.b", MISSING) is None and lookup(doc, "a.x", MISSING) is MISSING
    assert lookup(doc, "d.upper") is None  # a string ends the path: no attribute of str is reached
    body = ApprovalChangeCreated.model_validate({"process": {"applicant": "123"}})
    assert lookup(body, "process.applicant") == "123" and lookup(body, "process.nothing") is None


def test_a_shape_checks_every_condition_on_the_decoded_inner_object():
    from lineage.events.base import Shape

    shape = Shape(envelope="wrapped", inside="event", present=("k",), any_of=("x", "y"), absent=("z",),
                  equals=(("kind", "a"),), tests=(("n", lambda v: isinstance(v, int)),),
                  where=lambda e: e["n"] > 0)
    good = {"k": None, "y": None, "kind": "a", "n": 2}  # present nulls count as present
    assert shape.matches({"event": good}) and shape.matches({"event": json.dumps(good)})
    without = lambda key: {k: v for k, v in good.items() if k != key}  # noqa: E731
    for bad in (without("k"), without("y"), {**good, "z": 0}, {**good, "kind": "b"}, {**good, "n": "2"},
                {**good, "n": -1}):
        assert not shape.matches({"event": bad}), bad
    assert not shape.matches(good) and not shape.matches({"event": "{not json"}) and not shape.matches(["event"])
