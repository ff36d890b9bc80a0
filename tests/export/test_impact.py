"""`lineage export neo4j --with-impact`: the window's blast radius and per-table summaries in the
exported graph, checked against `lineage blast-radius --json` and the cypher/ queries' oracles
on the generated platform (FalkorDB over Bolt), and replaced, not added to, on every run."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from click.testing import CliRunner

from lineage.cli import main

COUNT_ONE = "MATCH (c:Change {change_id: $id})-[:AFFECTS]->(x) RETURN count(x) AS n"  # the issue's own query


def cli(*args: str) -> str:
    ran = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert ran.exit_code == 0, ran.output
    return ran.stdout


def blast_json(warehouse, *window: str) -> list[dict[str, Any]]:
    return json.loads(cli("blast-radius", "--warehouse", str(warehouse), "--json", "--affected", "1000000",
                          "--engine", "local", *window))["changes"]


def export_with_impact(server, warehouse, *window: str) -> dict[str, Any]:
    return json.loads(cli("export", "neo4j", "--warehouse", str(warehouse), "--uri", server.uri, "--with-impact",
                          "--engine", "local", "--json", *window))["impact"]


def counts_one_by_one(server, ids: list[str]) -> dict[str, int]:
    """The issue's query, once per change, on one Bolt session."""
    from lineage.export.neo4j import read

    driver = server.driver()
    try:
        with driver.session() as session:
            return {i: read(session, COUNT_ONE, id=i)[0]["n"] for i in ids}
    finally:
        driver.close()


def on_server(server) -> tuple[Counter, dict[str, dict[str, Any]]]:
    affects = Counter()
    for r in server.query("MATCH (c:Change)-[a:AFFECTS]->(x) RETURN c.id AS c, x.id AS x, a.distance AS d, a.label AS l"):
        affects[(r["c"], r["x"], r["d"], r["l"])] += 1
    changes = {r["id"]: r for r in server.query(
        "MATCH (c:Change) RETURN c.id AS id, c.impact_score AS score, c.affected_count AS count, c.impact_rank AS rank")}
    return affects, changes


@pytest.mark.slow
def test_with_impact_equals_blast_radius_for_every_change(platform, platform_graph):
    """The Must-show of issue 18, then a window, then the whole history again (idempotent)."""
    from lineage.graph.api import change_rows

    week = blast_json(platform.warehouse)
    reports = {r["change_id"]: (c, rank) for rank, c in enumerate(week, 1) for r in c["reported_by"]}
    assert len(reports) == len(change_rows(platform.warehouse, merge=False)) and sum(c["affected_count"] for c in week) > 1000
    assert len(reports) > len(week)  # the platform has changes that two sources reported: each report is ranked
    first = export_with_impact(platform_graph, platform.warehouse)
    assert (first["changes"], first["affects"]) == (len(reports), sum(c["affected_count"] for c in week))
    counts = counts_one_by_one(platform_graph, [c["change_id"] for c in week])
    assert counts == {c["change_id"]: c["affected_count"] for c in week}
    affects, changes = on_server(platform_graph)
    assert affects == Counter((c["change_id"], a["id"], a["distance"], a["label"]) for c in week for a in c["affected"])
    for report, (c, rank) in reports.items():
        assert (changes[report]["score"], changes[report]["count"], changes[report]["rank"]) \
            == (c["score"], c["affected_count"], rank)

    # a window: only its changes keep AFFECTS and a rank; the others are cleared
    changes_all = change_rows(platform.warehouse)
    since, until = changes_all[-1]["time"].strftime("%Y-%m-%d"), "2100-01-01"  # the last day's
    window = blast_json(platform.warehouse, "--since", since, "--until", until)
    assert 0 < len(window) < len(week)
    got = export_with_impact(platform_graph, platform.warehouse, "--since", since, "--until", until)
    in_window = {r["change_id"] for c in window for r in c["reported_by"]}
    assert (got["changes"], got["affects"]) == (len(in_window), sum(c["affected_count"] for c in window))
    affects, changes = on_server(platform_graph)
    assert affects == Counter((c["change_id"], a["id"], a["distance"], a["label"]) for c in window for a in c["affected"])
    assert {i for i, c in changes.items() if c["rank"] is not None} == in_window
    marker = platform_graph.query("MATCH (m:LineageExport) RETURN m.impact_since AS since, m.impact_changes AS n")
    assert marker == [{"since": f"{since}T00:00:00.000000Z", "n": len(window)}]

    # the whole history again, over the window's export and the first one's AFFECTS: replaced, not
    # added to (an added AFFECTS would be counted twice, a window's rank left over would not match)
    export_with_impact(platform_graph, platform.warehouse)
    affects, changes = on_server(platform_graph)
    assert affects == Counter((c["change_id"], a["id"], a["distance"], a["label"]) for c in week for a in c["affected"])
    assert sorted(c["rank"] for c in changes.values()) == sorted(rank for _, rank in reports.values())


@pytest.mark.slow
def test_with_impact_table_summaries(platform, platform_graph):
    """downstream_tables and readers as most_central_tables.cypher's oracle counts them;
    sensitive_reached as pii_exposure.cypher answers on the same server (distance > 0)."""
    from test_cypher_queries import central_expected, run

    rows = {r["id"]: r for r in platform_graph.query(
        "MATCH (t:Table) WHERE t.downstream_tables IS NOT NULL "
        "RETURN t.id AS id, t.downstream_tables AS downstream, t.readers AS readers, t.sensitive_reached AS marks")}
    want = central_expected(platform.warehouse)
    assert {i: (r["downstream"], r["readers"]) for i, r in rows.items()} == {t: (d, n) for t, _, d, n in want}
    reached: dict[str, set[str]] = {}
    for r in run(platform_graph, "pii_exposure", as_of="2100-01-01"):
        # the summaries are on Table nodes; pii_exposure also follows FEEDS into storage Locations
        if r["distance"] and r["table"].startswith("table:"):
            reached.setdefault(r["table"], set()).add(r["mark"])
    assert reached, "the platform propagates no sensitive mark: the check shows nothing"
    assert {i: set(r["marks"] or []) for i, r in rows.items() if r["marks"]} == reached


def test_window_options_need_with_impact(tmp_path):
    ran = CliRunner().invoke(main, ["export", "neo4j", "--warehouse", str(tmp_path), "--uri", "bolt://127.0.0.1:1",
                                    "--since", "2024-07-01"])
    assert ran.exit_code == 2 and "--since/--until choose the window of --with-impact" in ran.output


def test_impact_statements_use_the_vocabulary_only():
    from lineage.export.impact import write_affects_query
    from lineage.export.records import REL_TYPES, VocabularyError

    assert "AFFECTS" in REL_TYPES
    assert "(x:`Table` {id: r.id})" in write_affects_query("Table") and "$rows" in write_affects_query("Table")
    with pytest.raises(VocabularyError):
        write_affects_query("Table` {id: 1}) DETACH DELETE x //")
