"""Each kind of change reaches people its own way (issue 29), on both engines.

One hand-made platform: two scheduled nodes chained over three tables, grants opened and closed,
a role, an owner handed over. A grant reaches its principals and nothing downstream; a revoke
reaches the principal and, when that principal runs a node reading the table, the node and
everything downstream of it, marked *may fail*; a revoke of a principal who runs nothing reaches
only the principal; an owner change tells the two owners; a drop walks downstream as before.
The local (numpy) and Spark traversals must give the same answer.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from export.graphgen import write_graph

from lineage.analysis.blast import EFFECT_FACTOR, KIND_FACTOR, SENSITIVE_FACTOR, blast_radius, factor_of
from lineage.analysis.rules import (
    ACCESS,
    BREAKS,
    CHANGE_EFFECTS,
    EFFECTS,
    EXPOSES,
    NOTIFIES,
    RESTRICTS,
    TAGGING,
)
from lineage.analysis.temporal import TemporalGraph
from lineage.graph.api import change_rows
from lineage.ids import CHANGE_KINDS

T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)
T1, T2, T3, T4 = (T0 + timedelta(days=d) for d in (1, 2, 3, 4))
SRC, OUT, DOWN = "table:mc:p.src", "table:mc:p.out", "table:mc:p.down"
N1, N2, N3, ROLE = "node:dw:1", "node:dw:2", "node:dw:3", "role:mc:p.readers"
ALICE, BOB, CAROL, DAVE, ERIN, GINA = (f"user:mc:{n}" for n in ("alice", "bob", "carol", "dave", "erin", "gina"))
LABELS = {SRC: "Table", OUT: "Table", DOWN: "Table", N1: "Node", N2: "Node", N3: "Node", ROLE: "Role",
          **{u: "User" for u in (ALICE, BOB, CAROL, DAVE, ERIN, GINA)}}


DELETED = {N3: T1 + timedelta(hours=1)}
"""Deleted before alice's revoke: its READS and OWNS stay open (a node-change-deleted closes
only the vertex), but it will never run again, so it does not *may fail*."""


def edge(src, rel, dst, start=T0, end=None, last=None):
    return {"src": src, "dst": dst, "relationship": rel, "valid_from": start, "valid_to": end, "last_seen": last or start}


EDGES = [
    edge(N1, "READS", SRC, last=T1), edge(N1, "WRITES", OUT), edge(SRC, "FEEDS", OUT),
    edge(N2, "READS", OUT, last=T1), edge(N2, "WRITES", DOWN), edge(OUT, "FEEDS", DOWN),
    edge(ALICE, "OWNS", N1), edge(DAVE, "OWNS", N2),
    edge(N3, "READS", SRC, last=T1), edge(ALICE, "OWNS", N3),  # alice's node N3, deleted at T1 (DELETED)
    edge(ALICE, "CAN_ACCESS", SRC, end=T2),  # revoked at T2: alice runs N1, which reads SRC
    edge(BOB, "CAN_ACCESS", OUT, end=T2),  # revoked at T2: bob runs nothing
    edge(ERIN, "CAN_ACCESS", SRC, start=T1),  # granted at T1
    edge(GINA, "HAS_ROLE", ROLE), edge(ROLE, "CAN_ACCESS", OUT, start=T1),  # a role granted at T1
    edge(CAROL, "OWNS", DOWN, end=T3), edge(DAVE, "OWNS", DOWN, start=T3),  # handed over at T3
]


def change(cid, entity, kind, time, **properties):
    return {"change_id": cid, "entity_id": entity, "entity_label": LABELS[entity], "kind": kind, "time": time,
            "actor": None, "event_id": f"e-{cid}", "source": "test", "properties": properties}


CHANGES = [
    change("grant", SRC, "permission_change", T1, grantees=f'["{ERIN}"]', privileges='["select"]',
           statement="grant select on table src to user erin"),
    change("role-grant", OUT, "permission_change", T1, role="readers"),
    change("revoke-runs", SRC, "permission_change", T2, statement="revoke select on table src from user alice"),
    change("revoke-idle", OUT, "permission_change", T2, statement="revoke select on table out from user bob"),
    change("owner", DOWN, "owner_change", T3, operation="add", modifier="urn:li:corpuser:dave"),
    change("drop", SRC, "drop", T4, operation="DROP_TABLE"),
]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    root = tmp_path_factory.mktemp("effects")
    vertices = [{"id": i, "label": label, "name": i, "first_seen": T0, "deleted_at": DELETED.get(i)}
                for i, label in LABELS.items()]
    return write_graph(root, vertices, EDGES, CHANGES)


def answer(warehouse, traversal):
    ranked = blast_radius(change_rows(warehouse), traversal)
    return {r.change_id: r for r in ranked}, [r.change_id for r in ranked]


def reached(impact):
    return {a.id: (a.distance, a.may_fail) for a in impact.affected}


def check(found):
    assert found["grant"].effect == EXPOSES and reached(found["grant"]) == {ERIN: (1, False)}
    assert found["grant"].gained == (ERIN,)
    # through the role: the role and its member gain a path, nothing downstream of OUT
    assert found["role-grant"].effect == EXPOSES
    assert reached(found["role-grant"]) == {ROLE: (1, False), GINA: (2, False)}
    # alice loses access; the node she runs reads SRC: it and everything downstream may fail
    revoke = found["revoke-runs"]
    assert revoke.effect == RESTRICTS and revoke.lost == (ALICE,) and revoke.may_fail == (N1,)
    assert reached(revoke)[ALICE] == (1, False) and reached(revoke)[N1] == (2, True)
    assert {OUT, N2, DOWN} <= set(reached(revoke)) and all(reached(revoke)[v][1] for v in (OUT, N2, DOWN))
    assert SRC not in reached(revoke)
    # bob loses access and runs nothing: only bob
    assert found["revoke-idle"].effect == RESTRICTS and reached(found["revoke-idle"]) == {BOB: (1, False)}
    # the owner handed over: the old and the new owner, nothing else
    assert found["owner"].effect == NOTIFIES and reached(found["owner"]) == {CAROL: (1, False), DAVE: (1, False)}
    # the drop walks downstream as before: readers, their outputs, owners, who can read
    drop = found["drop"]
    assert drop.effect == BREAKS
    assert reached(drop) == {N1: (1, False), OUT: (1, False), ERIN: (1, False), N2: (2, False), ROLE: (2, False),
                             DOWN: (2, False), ALICE: (2, False), DAVE: (3, False), GINA: (3, False)}


def test_each_effect_reaches_its_own_people_on_the_local_engine(warehouse):
    found, order = answer(warehouse, TemporalGraph.from_warehouse(warehouse))
    check(found)
    assert order[0] == "drop"  # the break first; then the revoke whose job may fail
    assert order[1] == "revoke-runs"


def test_spark_gives_the_same_answer(spark, warehouse):
    from lineage.analysis.spark_temporal import SparkTraversal

    local, local_order = answer(warehouse, TemporalGraph.from_warehouse(warehouse))
    found, order = answer(warehouse, SparkTraversal.from_warehouse(warehouse, spark))
    check(found)
    assert order == local_order
    for cid, impact in local.items():
        assert found[cid].to_json() == impact.to_json(), cid


def test_the_json_keeps_the_contract_keys_and_adds_the_effect(warehouse):
    found, _ = answer(warehouse, TemporalGraph.from_warehouse(warehouse))
    doc = found["revoke-runs"].to_json()
    assert {"change_id", "entity_id", "kind", "effect", "time", "score", "summary", "affected"} <= set(doc)
    assert doc["effect"] == "restricts" and doc["may_fail"] == [N1]
    assert {a["id"] for a in doc["affected"] if a["may_fail"]} >= {N1, OUT, N2, DOWN}


def test_a_revoke_told_only_by_its_words_restricts_and_a_grant_without_edges_exposes_its_grantees(tmp_path):
    vertices = [{"id": i, "label": LABELS[i], "first_seen": T0} for i in (SRC, ERIN)]
    changes = [change("words", SRC, "permission_change", T1, statement="REVOKE select ON src FROM erin",
                      grantees=f'["{ERIN}"]'),
               change("named", SRC, "permission_change", T1, grantees=f'["{ERIN}"]')]
    warehouse = write_graph(tmp_path, vertices, [], changes)
    found, _ = answer(warehouse, TemporalGraph.from_warehouse(warehouse))
    assert (found["words"].effect, found["words"].lost) == (RESTRICTS, (ERIN,))
    assert (found["named"].effect, found["named"].gained) == (EXPOSES, (ERIN,))


def test_a_sensitive_tag_added_reaches_the_derived_tables(tmp_path):
    vertices = [{"id": i, "label": LABELS[i], "first_seen": T0} for i in (SRC, OUT, DOWN, N1)]
    edges = [edge(SRC, "FEEDS", OUT), edge(OUT, "FEEDS", DOWN), edge(N1, "READS", SRC)]
    changes = [change("pii", SRC, "tag_change", T1, operation="add", modifier="urn:li:tag:PII"),
               change("plain", SRC, "tag_change", T1, operation="add", modifier="urn:li:tag:Finance")]
    warehouse = write_graph(tmp_path, vertices, edges, changes)
    found, _ = answer(warehouse, TemporalGraph.from_warehouse(warehouse))
    assert found["pii"].effect == EXPOSES and reached(found["pii"]) == {OUT: (1, False), DOWN: (2, False)}
    assert found["plain"].effect == NOTIFIES and reached(found["plain"]) == {}


def test_the_effects_table_covers_every_change_kind_and_a_break_outranks_any_other_effect():
    kinds = {e.kind for e in CHANGE_EFFECTS}
    assert CHANGE_KINDS <= kinds
    assert {e.effect for e in CHANGE_EFFECTS} <= {*EFFECTS, ACCESS, TAGGING}
    breaks = [factor_of(e.kind) for e in CHANGE_EFFECTS if e.effect == BREAKS]
    others = [factor_of("x", effect, sensitive) for effect in EFFECT_FACTOR for sensitive in (False, True)]
    assert min(breaks) >= 1.0 > max(others)
    assert set(KIND_FACTOR) == {e.kind for e in CHANGE_EFFECTS if e.effect == BREAKS}
    assert EFFECT_FACTOR[EXPOSES] * SENSITIVE_FACTOR < min(breaks)


def test_grants_at_one_instant_are_counted_once_each_by_whom_they_name(tmp_path):
    """The graph shows what opened at an instant, not which change opened it: a change naming its
    grantee gets that grantee; what the unnamed ones opened is counted once, not once per change."""
    vertices = [{"id": i, "label": LABELS[i], "first_seen": T0} for i in (SRC, ALICE, BOB, ERIN, GINA)]
    edges = [edge(u, "CAN_ACCESS", SRC, start=T1) for u in (ALICE, BOB, ERIN, GINA)]
    changes = [change("to-alice", SRC, "permission_change", T1, grantees=f'["{ALICE}"]'),
               change("to-bob", SRC, "permission_change", T1, grantees=f'["{BOB}"]'),
               change("unnamed-1", SRC, "permission_change", T1), change("unnamed-2", SRC, "permission_change", T1)]
    warehouse = write_graph(tmp_path, vertices, edges, changes)
    found, _ = answer(warehouse, TemporalGraph.from_warehouse(warehouse))
    assert found["to-alice"].gained == (ALICE,) and found["to-bob"].gained == (BOB,)
    assert found["unnamed-1"].gained == (ERIN, GINA) and found["unnamed-2"].gained == ()


def test_the_demo_report_ranks_what_breaks_first_and_a_grant_is_not_a_break(demo_warehouse, tmp_path):
    """The demo's week (lineage demo --small): the report's top ten are ranked as blast-radius
    ranks them, the breaks (the schema change, the drop) above every grant, revoke and notice; a
    grant reaches its principals only."""
    import json

    from click.testing import CliRunner

    from lineage.cli import main

    result = CliRunner().invoke(main, ["report", "--warehouse", str(demo_warehouse), "--out", str(tmp_path),
                                       "--week", "2024-W27", "--engine", "local"])
    assert result.exit_code == 0, result.output
    doc = json.loads((tmp_path / "2024-W27" / "report.json").read_text())
    top = doc["changes"][:10]
    effects = [c["effect"] for c in top]
    assert effects[:2] == [BREAKS, BREAKS] and BREAKS not in effects[2:]
    assert [c["kind"] for c in top[:2]] == ["schema_change", "drop"]
    grants = [c for c in top if c["kind"] == "permission_change" and c["effect"] == EXPOSES]
    assert grants and all(set(c["summary"]) <= {"User", "Role"} for c in grants)
    # a grant's people are its principals and the data's owners, not everyone who reads the table
    assert all(c["readers"] == [] for c in grants)
    figures = {f["key"]: f["value"] for f in doc["headline"]}
    for effect in (BREAKS, EXPOSES, RESTRICTS, NOTIFIES):
        assert figures[effect] == sum(c["effect"] == effect for c in doc["changes"]), effect
    assert figures[BREAKS] == 2 and figures[RESTRICTS] == 2
    ranked = blast_radius(change_rows(demo_warehouse, "2024-07-01", "2024-07-08"),
                          TemporalGraph.from_warehouse(demo_warehouse))
    assert [c["change_id"] for c in top] == [r.change_id for r in ranked[:10]]


def test_the_full_stream_answers_as_the_ranking_even_across_chunks(tmp_path, monkeypatch):
    """``blast-radius --full`` evaluates in chunks: changes of one instant attributed together."""
    from lineage.analysis import blast

    vertices = [{"id": i, "label": LABELS[i], "first_seen": T0} for i in (SRC, ALICE, BOB, ERIN, GINA)]
    edges = [edge(u, "CAN_ACCESS", SRC, start=T1) for u in (ALICE, BOB, ERIN, GINA)]
    changes = [change(f"unnamed-{n}", SRC, "permission_change", T1) for n in range(4)]
    warehouse = write_graph(tmp_path, vertices, edges, changes)
    graph = TemporalGraph.from_warehouse(warehouse)
    monkeypatch.setattr(blast, "CHUNK", 1)
    streamed = [r.to_json() for r in blast.blast_stream(change_rows(warehouse), graph)]
    assert streamed == [r.to_json() for r in blast_radius(change_rows(warehouse), graph)]
    assert sum(r["affected_count"] for r in streamed) == 4
