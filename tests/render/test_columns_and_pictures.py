"""Columns that fit the terminal, and pictures of a small hand-built answer (no JVM)."""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import datetime, timezone

import pytest

from lineage.analysis.access import snapshot
from lineage.analysis.rules import IMPACT_RULES, UPSTREAM_RULES
from lineage.render.columns import Col, shorten, table, wrap
from lineage.render.escape import mermaid
from lineage.render.formats import to_dot, to_graphml, to_mermaid
from lineage.render.picture import picture

LONG = "table:maxcompute:retail_dw.dwd_orders_daily_incremental"


def test_shorten_keeps_both_ends_and_marks_the_cut():
    assert shorten("abcdef", 6) == "abcdef"
    assert shorten("abcdefghij", 5) == "ab…ij" and len(shorten(LONG, 21)) == 21
    short = shorten(LONG, 21)
    assert LONG.startswith(short.split("…")[0]) and LONG.endswith(short.split("…")[1])


@pytest.mark.parametrize("width", [64, 80, 120, 200])  # 64: every column at its least
def test_tables_fit_by_shortening_names_never_ids(width):
    cols = (Col("hops", right=True), Col("name", shrink=1, least=16), Col("id", is_id=True),
            Col("details", least=20, wrap=True))
    rows = [["1", "retail_dw.dwd_orders_daily_partitioned", LONG, "31 instances, 2 failed; via node dwd_orders_daily"]]
    lines = table(cols, rows, width)
    text = "\n".join(lines)
    assert LONG in text.splitlines()[1]  # the id whole, on its row's first line
    assert "31 instances, 2 failed" in " ".join(text.split())  # details wrap, never cut
    fits = width >= 2 + 4 + 2 + len(rows[0][1]) + 2 + len(LONG) + 2 + 20
    assert ("retail_dw.dwd_orders_daily_partitioned" in text) == fits  # the name is what shrinks
    assert all(len(line) <= max(width, 2 + 4 + 2 + 16 + 2 + len(LONG) + 2 + 20) for line in lines), lines


def test_wrap_breaks_at_spaces_under_the_text():
    assert wrap("affected: 3 — ", ["Table 1", "Node 1", "User 1"], 40) == ["affected: 3 — Table 1, Node 1, User 1"]
    assert wrap("affected: 3 — ", ["Table 1", "Node 1", "User 1"], 36) == ["affected: 3 — Table 1, Node 1,",
                                                                           "            User 1"]
    # the continuation indent is at most a third of the width
    assert wrap("affected: 3 — ", ["Table 1", "Node 1", "User 1"], 24) == ["affected: 3 — Table 1,",
                                                                           "        Node 1, User 1"]


def day(n: int) -> datetime:
    return datetime(2024, 7, n, tzinfo=timezone.utc)


def V(vid: str, label: str, **props: str) -> dict:
    return {"id": vid, "label": label, "name": props.pop("name", vid.split(":")[-1]), "first_seen": day(1),
            "last_seen": day(1), "deleted_at": None, "event_count": 1, "properties": props}


def E(src: str, rel: str, dst: str) -> dict:
    return {"src": src, "dst": dst, "relationship": rel, "qualifier": "", "src_label": None, "dst_label": None,
            "valid_from": day(1), "valid_to": None, "last_seen": day(1), "event_count": 1, "closed_by": None,
            "properties": {}}


A, B, C = (f"table:maxcompute:p.{t}" for t in ("a", "b", "c"))
NODE, I1, I2, DAG = "node:dataworks:1", "instance:dataworks:11", "instance:dataworks:12", "dag:dataworks:5"
J1, J2, J3 = "job:maxcompute:j1", "job:maxcompute:j2", "job:maxcompute:j3"
VERTICES = [V(A, "Table"), V(B, "Table", name='b "quoted" <b>'), V(C, "Table"), V(NODE, "Node", name="build_b"),
            V(I1, "Instance", status="success"), V(I2, "Instance", status="failed"), V(DAG, "Dag"),
            V(J1, "Job", skynet_id="1"), V(J2, "Job"), V(J3, "Job")]
EDGES = [E(NODE, "READS", A), E(NODE, "WRITES", B), E(NODE, "HAS_INSTANCE", I1), E(NODE, "HAS_INSTANCE", I2),
         E(I1, "IN_DAG", DAG), E(J1, "READS", A), E(J1, "WRITES", B), E(J2, "READS", B), E(J2, "WRITES", C),
         E(J3, "READS", B), E(J3, "WRITES", C), E(A, "FEEDS", B), E(B, "FEEDS", C)]


def answer(sources, rules):
    from lineage.analysis.local import LocalEngine

    engine = LocalEngine(VERTICES, EDGES, moment=day(2))
    # as lineage impact and upstream ask: upstream lists the runs that wrote the data, impact no run
    return engine.reach(sources, rules=rules, runs=rules is UPSTREAM_RULES), snapshot(VERTICES, EDGES, day(2))


def test_impact_draws_no_past_run():
    affected, snap = answer([A], IMPACT_RULES)
    p = picture(snap, [A], affected, IMPACT_RULES)
    items = {i.id: i for i in p.items}
    assert set(items) == {B, C, NODE}  # the node's instances, DAG run and the job runs ran before: not affected
    assert items[NODE].members == ()
    assert set(p.edges) == {(A, NODE), (A, B), (NODE, B), (B, C)}
    every = picture(snap, [A], affected, IMPACT_RULES, collapse=False)
    assert {i.id for i in every.items} == {a.id for a in affected}


def test_upstream_runs_collapse_into_their_node_and_writers():
    affected, snap = answer([C], UPSTREAM_RULES)
    p = picture(snap, [C], affected, UPSTREAM_RULES, downstream=False)
    items = {i.id: i for i in p.items}
    group = items[f"jobs:writing:{C}"]  # the job runs that wrote c (upstream lists them: provenance)
    assert group.members == (J2, J3) and group.name == "jobs writing p.c" and group.label == "Job"


def test_upstream_is_drawn_the_way_data_flows():
    affected, snap = answer([C], UPSTREAM_RULES)
    p = picture(snap, [C], affected, UPSTREAM_RULES, downstream=False)
    assert (B, C) in p.edges and (A, B) in p.edges and (f"jobs:writing:{C}", C) in p.edges
    assert all(b != A for _, b in p.edges)  # nothing flows into the first table


def test_mermaid_escapes_labels():
    assert mermaid('b "quoted" <b>', "Table x") == "b #quot;quoted#quot; #lt;b#gt;<br/>Table x"
    assert mermaid("a#b [x] 'y' & z") == "a#35;b #91;x#93; 'y' #amp; z"
    affected, snap = answer([A], IMPACT_RULES)
    text = to_mermaid(picture(snap, [A], affected, IMPACT_RULES))
    labels = re.findall(r'\["(.*)"\]', text)
    assert labels and all('"' not in label and "<b>" not in label for label in labels)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is installed by .ci/run (Debian graphviz)")
def test_dot_with_awkward_names_renders():
    affected, snap = answer([A], IMPACT_RULES)
    text = to_dot(picture(snap, [A], affected, IMPACT_RULES))
    svg = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True, check=True).stdout
    assert "&quot;quoted&quot;" in svg or "\"quoted\"" in svg


def test_graphml_round_trips(tmp_path):
    import networkx as nx

    affected, snap = answer([A], IMPACT_RULES)
    p = picture(snap, [A], affected, IMPACT_RULES)
    (tmp_path / "g.graphml").write_text(to_graphml(p))
    g = nx.read_graphml(tmp_path / "g.graphml")
    assert set(g.nodes) == {A, *(i.id for i in p.items)} and set(g.edges) == set(p.edges)
    assert g.nodes[B]["name"] == 'b "quoted" <b>' and g.nodes[NODE]["distance"] == 1
