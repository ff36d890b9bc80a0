"""Importance in the blast radius (issue 33 part 3), on a hand-made graph, on both engines.

Two drops of equal reach (each reaches one table, one step away): ``src_a`` feeds ``out_a``, fed
by nothing else; ``src_b`` feeds ``hub``, which 40 more tables feed too. By hand, with ``b`` the
PageRank of a table nothing flows into: ``out_a`` has ``b + 0.85 * b`` (its one feeder gives all
it has), so importance 1.85; ``hub`` has ``b + 0.85 * 41 * b``, about 36 b, capped at 10. A node
writing ``lonely`` (a table with no FEEDS) reaches it with the weight every table had before.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from export.graphgen import T0, write_graph

from lineage.analysis import api
from lineage.analysis.blast import blast_radius, importance_at
from lineage.graph.api import change_rows

T1 = T0 + timedelta(days=3)
FEEDERS = [f"table:f{i:02d}" for i in range(40)]
TABLES = ["table:src_a", "table:out_a", "table:src_b", "table:hub", "table:lonely", *FEEDERS]


def feeds(src: str, dst: str) -> dict:
    return {"src": src, "dst": dst, "relationship": "FEEDS", "qualifier": "", "valid_from": T0}


def change(change_id: str, entity: str, label: str, kind: str) -> dict:
    return {"change_id": change_id, "entity_id": entity, "entity_label": label, "kind": kind, "time": T1,
            "actor": None, "event_id": f"e-{change_id}"}


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    vertices = [{"id": t, "label": "Table", "name": t, "first_seen": T0} for t in TABLES]
    vertices.append({"id": "node:n1", "label": "Node", "name": "n1", "first_seen": T0})
    edges = [feeds("table:src_a", "table:out_a"), feeds("table:src_b", "table:hub"),
             *(feeds(f, "table:hub") for f in FEEDERS),
             {"src": "node:n1", "dst": "table:lonely", "relationship": "WRITES", "qualifier": "", "valid_from": T0}]
    changes = [change("c1", "table:src_a", "Table", "drop"), change("c2", "table:src_b", "Table", "drop"),
               change("c3", "node:n1", "Node", "node_update")]
    return write_graph(tmp_path_factory.mktemp("importance"), vertices, edges, changes)


@pytest.fixture(params=["local", pytest.param("spark", marks=pytest.mark.spark)])
def engine(request):
    if request.param == "spark":
        request.getfixturevalue("spark")
    return request.param


def walker(warehouse, engine, request):
    if engine == "spark":
        return api.traversal(warehouse, "spark", request.getfixturevalue("spark"))
    return api.traversal(warehouse, "local")


def test_the_break_reaching_the_important_table_ranks_first(warehouse, engine, request):
    traversal = walker(warehouse, engine, request)
    changes = change_rows(warehouse)
    # label weights alone: equal reach, equal scores (drop 2.0 x Table 3.0 / 1), ties by change id
    flat = blast_radius(changes, traversal, importance={})
    assert [(r.change_id, r.score) for r in flat] == [("c1", 6.0), ("c2", 6.0), ("c3", 3.0)]
    # weighed by importance: hub capped at 10, out_a 1.85, lonely (no FEEDS) as every table was
    assert importance_at(traversal, T1) == {"table:out_a": 1.85, "table:hub": 10.0}
    ranked = blast_radius(changes, traversal)
    assert [(r.change_id, r.score) for r in ranked] == [("c2", 60.0), ("c1", 11.1), ("c3", 3.0)]
    # blast-radius's call (the window's end), streamed or not, answers the same
    window = api.blast(warehouse, since=T0, until=T1 + timedelta(hours=1), engine=engine,
                       spark=request.getfixturevalue("spark") if engine == "spark" else None)
    assert [(r.change_id, r.score) for r in window] == [("c2", 60.0), ("c1", 11.1), ("c3", 3.0)]


def test_a_table_with_no_feeds_weighs_as_every_table_did(warehouse, engine, request):
    traversal = walker(warehouse, engine, request)
    found = importance_at(traversal, T1)
    assert "table:lonely" not in found and "table:src_a" not in found  # importance 1: LABEL_WEIGHT["Table"]
    lonely = [r for r in blast_radius(change_rows(warehouse), traversal) if r.change_id == "c3"][0]
    assert [(a.id, a.distance) for a in lonely.affected] == [("table:lonely", 1)] and lonely.score == 3.0
    assert importance_at(traversal, None) == {}  # no instant asked: every table as before
