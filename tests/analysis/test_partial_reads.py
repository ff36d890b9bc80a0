"""A question reads only its part of the graph (``load_rows(around=..., relationships=...)``,
``change_rows(entities=...)``: filtered in Arrow before any row is a Python object). The part must
give the answer the whole graph gives: ``show``/``history`` of vertices of every label of the
demo warehouse, read both ways, are equal."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from lineage.analysis import inspection
from lineage.graph.api import change_rows, load_rows

pytestmark = pytest.mark.spark  # the demo warehouse is built once with the session's Spark


@pytest.fixture(scope="module")
def whole(demo_warehouse):
    vertices, edges = load_rows(demo_warehouse)
    return vertices, edges, change_rows(demo_warehouse)


def _sample(vertices, per_label=4):
    """A few vertices of each label (by id: deterministic)."""
    by_label = defaultdict(list)
    for v in vertices:
        by_label[v["label"]].append(v["id"])
    return sorted(i for ids in by_label.values() for i in sorted(ids)[:per_label])


def test_the_part_around_an_id_is_its_edges_and_their_ends(demo_warehouse, whole):
    vertices, edges, _ = whole
    hub = max({e["dst"] for e in edges}, key=lambda i: sum(e["dst"] == i or e["src"] == i for e in edges))
    part_v, part_e = load_rows(demo_warehouse, around=[hub])
    expected = [e for e in edges if hub in (e["src"], e["dst"])]
    key = lambda e: (e["src"], e["dst"], e["relationship"], str(e["valid_from"]))  # noqa: E731
    assert sorted(part_e, key=key) == sorted(expected, key=key) and len(part_e) > 3
    ends = {e["src"] for e in expected} | {e["dst"] for e in expected} | {hub}
    assert sorted(v["id"] for v in part_v) == sorted(v["id"] for v in vertices if v["id"] in ends)


def test_the_part_of_some_relationships_is_those_edges(demo_warehouse, whole):
    vertices, edges, _ = whole
    part_v, part_e = load_rows(demo_warehouse, relationships={"CAN_ACCESS", "HAS_ROLE"})
    assert len(part_e) == sum(e["relationship"] in ("CAN_ACCESS", "HAS_ROLE") for e in edges) > 0
    assert {e["relationship"] for e in part_e} == {"CAN_ACCESS", "HAS_ROLE"}
    ends = {e["src"] for e in part_e} | {e["dst"] for e in part_e}
    assert {v["id"] for v in part_v} == {v["id"] for v in vertices if v["id"] in ends}


def test_show_and_history_from_the_part_equal_the_whole(demo_warehouse, whole):
    """``show`` reads the edges by vertex and makes its links from Arrow columns; ``show_rows`` walks
    every row: the same answer for a few vertices of each label, the busiest and the deleted."""
    vertices, edges, changes = whole
    degree = Counter(e["src"] for e in edges) + Counter(e["dst"] for e in edges)
    deleted = sorted(v["id"] for v in vertices if v.get("deleted_at") is not None)[:6]
    sample = sorted({*_sample(vertices), *(i for i, _ in degree.most_common(6)), *deleted})
    assert len(sample) > 20 and deleted
    for vertex_id in sample:
        for as_of in (None, "2024-07-03T00:00:00Z"):
            fast = inspection.show(demo_warehouse, vertex_id, as_of=as_of).to_json()
            slow = inspection.show_rows(vertex_id, vertices, edges, changes, as_of=as_of).to_json()
            if as_of is None:  # "now" is read twice: the moments differ by the test's run time
                fast.pop("as_of"), slow.pop("as_of")
            assert fast == slow, vertex_id
        assert (inspection.history(demo_warehouse, vertex_id).to_json()
                == inspection.history_rows(vertex_id, vertices, edges, changes).to_json()), vertex_id


def test_access_and_exposure_from_their_part_equal_the_whole(demo_warehouse, whole):
    """``access`` reads the access relationships without Jobs and Instances, ``exposure`` those and
    the marks: each answer equals the one over every row, for every table, project, role, user and
    job of the demo, at three instants."""
    from lineage.analysis import api, propagation

    vertices, edges, changes = whole
    targets = sorted(v["id"] for v in vertices if v["label"] in ("Table", "Project", "Column", "Role", "User", "Job"))
    assert {t.split(":")[0] for t in targets} >= {"table", "project", "role", "user", "job"}
    for as_of in ("2024-07-02T12:00:00Z", "2024-07-05T00:00:00Z", "2024-07-08T00:00:00Z"):
        for target in targets:
            fast = api.access(demo_warehouse, target, as_of=as_of).to_json()
            assert fast == api.access_rows(vertices, edges, changes, target, as_of=as_of).to_json(), (target, as_of)
        fast = [e.to_json() for e in api.exposure(demo_warehouse, as_of=as_of)]
        assert fast == [e.to_json() for e in propagation.exposure(vertices, edges, as_of=as_of)], as_of
        assert fast or as_of != "2024-07-08T00:00:00Z"  # the demo's PII reaches someone by its end


def test_a_walk_over_a_relationship_not_read_is_an_error():
    from lineage.analysis.access import snapshot

    snap = snapshot([], [], "2024-07-01T00:00:00Z", relationships={"CAN_ACCESS"})
    assert snap.out("user:aliyun:1", "CAN_ACCESS") == []
    with pytest.raises(ValueError, match="READS was not read"):
        snap.out("job:maxcompute:1", "READS")


def test_labels_and_properties_choose_the_vertices_and_properties_read(demo_warehouse, whole):
    vertices, edges, _ = whole
    part_v, part_e = load_rows(demo_warehouse, relationships={"WRITES"}, labels={"Table"},
                               properties={"WRITES": ["instance_id"]})
    writes = [e for e in edges if e["relationship"] == "WRITES"]
    ends = {e["src"] for e in writes} | {e["dst"] for e in writes}
    unwritten = {v["id"] for v in vertices if v["label"] == "Table"} - ends
    assert unwritten  # tables no edge read names are read too
    assert sorted(v["id"] for v in part_v) == sorted(v["id"] for v in vertices if v["id"] in ends | unwritten)
    assert all(v["properties"] == {} for v in part_v) and any(v["properties"] for v in vertices if v["id"] in ends)
    key = lambda e: (e["src"], e["dst"], str(e["valid_from"]))  # noqa: E731
    kept = {key(e): {k: v for k, v in e["properties"].items() if k == "instance_id"} for e in writes}
    assert {key(e): e["properties"] for e in part_e} == kept and len(part_e) == len(writes)
    assert any(kept.values()) and any(set(e["properties"]) - {"instance_id"} for e in writes)


def test_hygiene_from_its_part_equals_the_whole(demo_warehouse, whole):
    """``hygiene`` reads its relationships with only the properties it uses, no Column, and every
    Table and Location: the answer equals the one over every row, at three instants."""
    from lineage.analysis import api, hygiene
    from lineage.graph.api import rows_at, to_time

    vertices, edges, _ = whole
    for as_of in ("2024-07-02T12:00:00Z", "2024-07-05T00:00:00Z", "2024-07-08T00:00:00Z"):
        moment = to_time(as_of)
        fast = api.hygiene(demo_warehouse, as_of=as_of, engine="local", top=10**9).to_json()
        slow = hygiene.local_hygiene(*rows_at(vertices, edges, moment), moment, top=10**9).to_json()
        assert fast == slow, as_of
        assert fast["unused"] and fast["islands"] and fast["importance"] and any(n for n in fast["importance"] if n["owners"])


def test_names_read_from_the_naming_columns_are_those_of_the_whole_rows(demo_warehouse, whole):
    from lineage.analysis.names import names_of, vertex_rows

    vertices, _, _ = whole
    slim = {v["id"]: v for v in vertex_rows(demo_warehouse)}
    assert {i: names_of(v) for i, v in slim.items()} == {v["id"]: names_of(v) for v in vertices}
    merged = [v for v in vertices if v["properties"].get("aliases")]  # a merged person answers to its logins
    assert merged and all(slim[v["id"]]["properties"] == {"aliases": v["properties"]["aliases"]} for v in merged)
