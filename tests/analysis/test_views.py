"""The notebook views (lineage.analysis.views) on the generated platform, each checked against an
independent computation over the same parquet rows (networkx, plain counting)."""

from __future__ import annotations

import networkx as nx

from lineage.analysis import api
from lineage.graph.api import load_rows


def _feeds_graph(edges) -> nx.DiGraph:
    return nx.DiGraph([(e["src"], e["dst"]) for e in edges if e["relationship"] == "FEEDS"])


def test_central_tables_rank_by_descendants(generated):
    _, now = api.time_span(generated.warehouse)
    _, edges = load_rows(generated.warehouse, now)
    graph = _feeds_graph(edges)
    central = api.central_tables(generated.warehouse, as_of=now, top=5)
    for row in central:
        assert row["downstream"] == len(nx.descendants(graph, row["id"]))
        assert row["direct"] == graph.out_degree(row["id"])
    assert central[0]["downstream"] == max(len(nx.descendants(graph, n)) for n in graph)
    assert [r["downstream"] for r in central] == sorted((r["downstream"] for r in central), reverse=True)


def test_neighbourhood_levels_are_hop_distances(generated):
    _, now = api.time_span(generated.warehouse)
    _, edges = load_rows(generated.warehouse, now)
    graph = _feeds_graph(edges)
    hub = generated.summary["interesting"]["hub_table"]
    around = api.feeds_neighbourhood(generated.warehouse, hub, as_of=now, depth=2)
    down = nx.single_source_shortest_path_length(graph, hub, cutoff=2)
    up = nx.single_source_shortest_path_length(graph.reverse(), hub, cutoff=2)
    expected = {**{t: -d for t, d in up.items()}, **{t: d for t, d in down.items() if t not in up}}
    assert {n["id"]: n["level"] for n in around["nodes"]} == expected
    assert all(graph.has_edge(a, b) for a, b in around["edges"])


def test_lineage_diff_and_grant_timeline(generated):
    first, now = api.time_span(generated.warehouse)
    hub = generated.summary["interesting"]["hub_table"]
    diff = api.lineage_diff(generated.warehouse, hub, before=first, after=now, depth=1)
    before = {n["id"] for n in diff["before"]["nodes"]}
    after = {n["id"] for n in diff["after"]["nodes"]}
    assert set(diff["tables_added"]) == after - before and set(diff["tables_removed"]) == before - after
    assert diff["tables_added"], "the hub gains its consumers after the first runs"
    _, edges = load_rows(generated.warehouse)
    grants = [e for e in edges if e["relationship"] == "CAN_ACCESS" and e["src_label"] in ("User", "Role")
              and e["dst_label"] == "Table"]
    timeline = api.grant_timeline(generated.warehouse)
    assert sum(r["opened"] for r in timeline) == sum(e["valid_from"] is not None for e in grants)
    assert sum(r["revoked"] + r["expired"] for r in timeline) == sum(e["valid_to"] is not None for e in grants)
    assert sum(r["revoked"] for r in timeline) > 0


def test_impact_subgraph_and_people_to_tell(generated):
    _, now = api.time_span(generated.warehouse)
    hub = generated.summary["interesting"]["hub_table"]
    result = api.impact(generated.warehouse, [hub], as_of=now)
    links = api.impact_subgraph(result)
    assert {b for _, b in links} == {a.id for a in result.affected}
    changes = api.blast(generated.warehouse, since=(now.date().isoformat()), until=None)
    for change in changes[:3]:
        people = api.people_to_tell(generated.warehouse, change)
        users = {a.id for a in change.affected if a.label == "User"}
        assert users <= {p["id"] for p in people}
    pii = api.tagged(generated.warehouse, "PII")
    assert generated.summary["interesting"]["pii_table"] in pii


def test_blast_of_kinds_is_blast_restricted_to_them(generated):
    since, until = "2026-09-30", "2026-10-01"  # the first release day of the generated platform
    every = api.blast(generated.warehouse, since=since, until=until)
    structural = api.blast_of(generated.warehouse, since=since, until=until)
    assert structural and len(structural) < len(every)
    expected = [(c.change_id, c.score, c.summary) for c in every if c.kind in api.STRUCTURAL]
    assert [(c.change_id, c.score, c.summary) for c in structural] == expected
