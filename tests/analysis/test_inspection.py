"""``show``, ``history`` and ``diff`` over plain rows (``lineage.analysis.inspection``): hand-built
graphs, and ``diff`` held to the as-of snapshots on random intervals."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest

from lineage.analysis.inspection import diff_rows, history_rows, show_rows
from lineage.errors import UsageError
from lineage.graph.api import exists_at, valid_at

T = datetime(2024, 7, 1, tzinfo=timezone.utc)
H = timedelta(hours=1)
TABLE, DROPPED, USER, JOB = "table:maxcompute:p.t", "table:maxcompute:p.old", "user:aliyun:1", "job:maxcompute:j1"


def vertex(vid, label, first, deleted=None, name=None):
    return {"id": vid, "label": label, "name": name or vid.rsplit(".", 1)[-1], "first_seen": first, "last_seen": first,
            "deleted_at": deleted, "event_count": 1, "properties": {"k": "v"}}


def edge(src, rel, dst, start, end=None, closed_by=None):
    labels = {TABLE: "Table", DROPPED: "Table", USER: "User", JOB: "Job"}
    return {"src": src, "dst": dst, "relationship": rel, "qualifier": "", "src_label": labels[src],
            "dst_label": labels[dst], "valid_from": start, "valid_to": end, "last_seen": start, "event_count": 1,
            "closed_by": closed_by, "properties": {}}


VERTICES = [vertex(TABLE, "Table", T), vertex(DROPPED, "Table", T, deleted=T + 5 * H), vertex(USER, "User", T, name="bob"),
            vertex(JOB, "Job", T + 2 * H)]
EDGES = [
    edge(USER, "CAN_ACCESS", TABLE, T + H, T + 3 * H, "revoke"),  # granted, revoked
    edge(USER, "CAN_ACCESS", TABLE, T + 4 * H),  # granted again
    edge(JOB, "READS", DROPPED, T + 2 * H, T + 5 * H),
    edge(JOB, "WRITES", TABLE, T + 2 * H),
    edge(USER, "OWNS", DROPPED, T, T + 5 * H),
]
CHANGES = [
    {"change_id": "c1", "entity_id": DROPPED, "kind": "create", "time": T, "actor": USER, "source": "maxcompute",
     "event_id": "e1", "properties": {}},
    {"change_id": "c2", "entity_id": DROPPED, "kind": "drop", "time": T + 5 * H, "actor": USER, "source": "maxcompute",
     "event_id": "e2", "properties": {}},
    {"change_id": "c3", "entity_id": TABLE, "kind": "schema_change", "time": T + 6 * H, "actor": None,
     "source": "maxcompute", "event_id": "e3", "properties": {}},
]


def test_show_groups_relationships_valid_then_and_changes_up_to_then():
    entity = show_rows(TABLE, VERTICES, EDGES, CHANGES, as_of=T + 2 * H)
    doc = entity.to_json()
    assert doc["exists"] and doc["as_of"] == (T + 2 * H).isoformat() and doc["properties"] == {"k": "v"}
    assert doc["relationships"]["out"] == {}
    assert {rel: [k["id"] for k in links] for rel, links in doc["relationships"]["in"].items()} == {
        "CAN_ACCESS": [USER], "WRITES": [JOB]}
    bob = doc["relationships"]["in"]["CAN_ACCESS"][0]
    assert bob == {"id": USER, "label": "User", "name": "bob", "valid_from": (T + H).isoformat(),
                   "valid_to": (T + 3 * H).isoformat(), "closed_by": "revoke", "properties": {}}
    assert doc["changes"] == []  # the schema change comes later
    later = show_rows(TABLE, VERTICES, EDGES, CHANGES, as_of=T + 7 * H).to_json()
    assert [c["kind"] for c in later["changes"]] == ["schema_change"]
    assert later["relationships"]["in"]["CAN_ACCESS"][0]["valid_from"] == (T + 4 * H).isoformat()


def test_show_of_a_deleted_entity_is_as_it_last_was_unless_asked():
    entity = show_rows(DROPPED, VERTICES, EDGES, CHANGES)
    assert entity.why_as_of == "before deletion" and entity.as_of == T + 5 * H - timedelta(microseconds=1)
    assert entity.exists and {(k.direction, k.relationship) for k in entity.links} == {("in", "READS"), ("in", "OWNS")}
    assert [c["kind"] for c in entity.changes] == ["drop", "create"]  # newest first
    after = show_rows(DROPPED, VERTICES, EDGES, CHANGES, as_of=T + 6 * H)
    assert not after.exists and after.links == () and after.why_as_of == "given"
    now = show_rows(TABLE, VERTICES, EDGES, CHANGES)
    assert now.why_as_of == "now" and now.as_of > T


def test_history_is_every_interval_and_change_oldest_first():
    events = [(e.time, e.event, e.relationship, e.other, e.detail) for e in history_rows(DROPPED, VERTICES, EDGES, CHANGES).events]
    assert events == [
        (T, "first_seen", None, None, None),
        (T, "opened", "OWNS", USER, None),
        (T, "change", None, None, "create"),
        (T + 2 * H, "opened", "READS", JOB, None),
        (T + 5 * H, "change", None, None, "drop"),
        (T + 5 * H, "closed", "OWNS", USER, None),
        (T + 5 * H, "closed", "READS", JOB, None),
        (T + 5 * H, "deleted", None, None, None),
    ]
    table = history_rows(TABLE, VERTICES, EDGES, CHANGES).to_json()
    grants = [(e["event"], e["time"]) for e in table["events"] if e["relationship"] == "CAN_ACCESS"]
    assert grants == [("opened", (T + H).isoformat()), ("closed", (T + 3 * H).isoformat()), ("opened", (T + 4 * H).isoformat())]
    assert table["events"][-1] == {"time": (T + 6 * H).isoformat(), "event": "change", "relationship": None,
                                   "direction": None, "other": None, "other_label": None, "other_name": None,
                                   "detail": "schema_change", "actor": None, "change_id": "c3"}


def test_diff_lists_what_opened_closed_appeared_and_went():
    found = diff_rows(VERTICES, EDGES, T + H, T + 5 * H)
    assert [(c.relationship, c.src, c.at) for c in found.opened] == [
        ("CAN_ACCESS", USER, T + 4 * H), ("READS", JOB, T + 2 * H), ("WRITES", JOB, T + 2 * H)]
    assert [(c.relationship, c.at, c.closed_by) for c in found.closed] == [
        ("CAN_ACCESS", T + 3 * H, "revoke"), ("OWNS", T + 5 * H, None), ("READS", T + 5 * H, None)]
    assert [c.id for c in found.created] == [JOB] and [c.id for c in found.deleted] == [DROPPED]
    doc = found.to_json()
    assert doc["summary"] == {"edges": {"CAN_ACCESS": {"opened": 1, "closed": 1}, "OWNS": {"opened": 0, "closed": 1},
                                        "READS": {"opened": 1, "closed": 1}, "WRITES": {"opened": 1, "closed": 0}},
                              "vertices": {"Job": {"created": 1, "deleted": 0}, "Table": {"created": 0, "deleted": 1}}}
    only = diff_rows(VERTICES, EDGES, T + H, T + 5 * H, relationships=["can_access"]).to_json()
    assert only["relationships"] == ["CAN_ACCESS"] and only["vertices"] is None
    assert set(only["summary"]["edges"]) == {"CAN_ACCESS"} and only["summary"]["vertices"] is None
    # the window is (from, to]: what happens exactly at `from` is before it, at `to` inside it
    assert [c.at for c in diff_rows(VERTICES, EDGES, T + H, T + 3 * H).closed] == [T + 3 * H]
    assert diff_rows(VERTICES, EDGES, T + 3 * H, T + 4 * H - timedelta(microseconds=1)).to_json()["summary"]["edges"] == {}


@pytest.mark.parametrize("since, until, relationships", [
    (T + H, T, ()), (T, T, ()), ("not a time", T, ()), (T, T + H, ("NOT_A_RELATIONSHIP",)),
])
def test_diff_refuses_a_backwards_window_or_unknown_relationship(since, until, relationships):
    with pytest.raises(UsageError):
        diff_rows(VERTICES, EDGES, since, until, relationships)


def test_diff_agrees_with_the_as_of_snapshots():
    """On random intervals: an edge row valid at `from` and not at `to` is listed closed, the
    converse opened; a row listed opened is valid at some instant of the window (same for vertices)."""
    rng = random.Random(11)

    def moment():
        return None if rng.random() < 0.2 else T + timedelta(minutes=rng.randint(0, 30))

    vertices = [vertex(f"table:maxcompute:p.t{i}", "Table", moment(), moment()) for i in range(300)]
    edges = []
    for i in range(300):
        start, end = moment(), moment()
        edges.append({**edge(USER, "CAN_ACCESS", TABLE, start, end), "dst": f"table:maxcompute:p.t{i}"})
    for _ in range(40):
        since = T + timedelta(minutes=rng.randint(-1, 30))
        until = since + timedelta(minutes=rng.randint(1, 10))
        found = diff_rows(vertices, edges, since, until)
        opened = {c.dst for c in found.opened}
        closed = {c.dst for c in found.closed}
        for e in edges:
            before, after = valid_at(e, since), valid_at(e, until)
            if after and not before:
                assert e["dst"] in opened
            if before and not after:
                assert e["dst"] in closed
            if e["dst"] in opened:
                assert e["valid_from"] > since and e["valid_from"] <= until and valid_at(e, e["valid_from"]) == (
                    e["valid_to"] is None or e["valid_to"] > e["valid_from"])
        created = {c.id for c in found.created}
        deleted = {c.id for c in found.deleted}
        for v in vertices:
            before, after = exists_at(v, since), exists_at(v, until)
            if after and not before:
                assert v["id"] in created
            if before and not after:
                assert v["id"] in deleted


def test_show_leaves_out_edges_to_an_entity_that_is_gone():
    """The stored graph keeps a dropped table's open grant; show walks it as the engines do:
    only between two ids that are vertices at that instant."""
    edges = EDGES + [edge(USER, "CAN_ACCESS", DROPPED, T + H)]  # never revoked
    before = show_rows(DROPPED, VERTICES, edges, CHANGES, as_of=T + 4 * H)
    assert ("in", "CAN_ACCESS", USER) in {(k.direction, k.relationship, k.other) for k in before.links}
    after = show_rows(DROPPED, VERTICES, edges, CHANGES, as_of=T + 6 * H)
    assert after.links == () and not after.exists
    bob = show_rows(USER, VERTICES, edges, CHANGES, as_of=T + 6 * H)
    assert DROPPED not in {k.other for k in bob.links} and TABLE in {k.other for k in bob.links}
