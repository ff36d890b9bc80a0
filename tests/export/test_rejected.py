"""Records a server cannot take: rejected, named, journaled; everything else is written.

Against the real FalkorDB Bolt server: its request limit (a bigger request crashes it) and an
error it gives on one row (a property key that is not ASCII) are what a user meets.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from export.graphgen import T0, write_graph
from lineage.cli import main
from lineage.export.neo4j import PARTIAL, Target, export
from lineage.export.state import ExportState, target_name

pytestmark = pytest.mark.spark  # the Bolt server fixture

PREFIX = "table:maxcompute:p."
LONG = PREFIX + "x" * (20_000 - len(PREFIX))
HOSTILE = [
    "it's", 'say "hi"', "back\\slash", "trailing\\", "\\'", "new\nline\r\ttab", "'}) RETURN 1 //", "$rows",
    "<script>alert(1)</script>", "acme.<img src=x onerror=alert(1)>", "[bold]x[/]", "orders_[bold red]x[/bold red]",
    "\x1b]0;pwned\x07", "\x1b[2J", "del\x7f c1\x85\x9b nbsp\xa0 zw\u200b rtl\u202e", "ünïcødé 中文 😀 \U0010ffff", "",
]
ACTOR = "urn:li:corpuser:[bold red]boss[/]<script>alert(2)</script>"


def run_cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def hostile_graph(warehouse: Path) -> list[dict]:
    """A chain of tables named and described by hostile strings, a change by a hostile actor on
    one of them, and a table whose id is 20,000 characters, fed by and feeding the chain."""
    vertices = [{"id": f"{PREFIX}{text.strip() or 'blank'}{i}", "label": "Table", "name": text, "first_seen": T0,
                 "properties": {"comment": text, "odd key!": text}} for i, text in enumerate(HOSTILE)]
    edges = [{"src": vertices[i]["id"], "dst": vertices[i + 1]["id"], "relationship": "FEEDS", "qualifier": HOSTILE[i],
              "src_label": "Table", "dst_label": "Table", "valid_from": T0, "properties": {"via": HOSTILE[i + 1]}}
             for i in range(len(vertices) - 1)]
    vertices.append({"id": LONG, "label": "Table", "name": "long", "first_seen": T0})
    edges += [{"src": vertices[0]["id"], "dst": LONG, "relationship": "FEEDS", "qualifier": "", "src_label": "Table",
               "dst_label": "Table", "valid_from": T0},
              {"src": LONG, "dst": vertices[1]["id"], "relationship": "FEEDS", "qualifier": "", "src_label": "Table",
               "dst_label": "Table", "valid_from": T0}]
    changes = [{"change_id": "c-hostile", "entity_id": vertices[8]["id"], "entity_label": "Table", "kind": "created",
                "time": T0, "actor": ACTOR, "event_id": "e1", "source": "datahub", "properties": {"note": HOSTILE[10]}},
               {"change_id": "c-long", "entity_id": LONG, "entity_label": "Table", "kind": "created", "time": T0,
                "actor": ACTOR, "event_id": "e2", "source": "datahub"}]
    write_graph(warehouse, vertices, edges, changes)
    return vertices[:-1]


def contents(server) -> tuple[list, list]:
    nodes = server.query("MATCH (n) WHERE NOT n:LineageExport RETURN labels(n)[0] AS label, properties(n) AS p")
    rels = server.query("MATCH (a)-[e]->(b) RETURN a.id AS a, type(e) AS t, b.id AS b, properties(e) AS p")
    return (sorted(json.dumps(r, sort_keys=True) for r in nodes), sorted(json.dumps(r, sort_keys=True) for r in rels))


def test_a_20000_char_id_is_rejected_and_named_while_hostile_strings_arrive_exactly(bolt, tmp_path):
    warehouse = tmp_path / "warehouse"
    tables = hostile_graph(warehouse)

    first = run_cli("export", "neo4j", "--warehouse", str(warehouse), "--uri", bolt.uri, "--json")
    assert first.exit_code == PARTIAL == 3, first.output
    summary = json.loads(first.stdout)
    named = {(r["kind"], r["id"] if r["kind"] == "node" else (r["src"], r["dst"])): r["reason"]
             for r in summary["rejections"]}
    limit = "over the falkordb request limit"
    assert summary["rejected"] == 5 == len(named)
    assert limit in named[("node", LONG)]
    assert limit in named[("node", "c-long")]  # the change's entity_id is that id
    assert named[("rel", (tables[0]["id"], LONG))].startswith("its dst node was rejected (needs ")
    assert named[("rel", (LONG, tables[1]["id"]))].startswith("its src node was rejected (needs ")
    assert named[("rel", ("c-long", LONG))].startswith("its src node was rejected (needs ")

    # every other vertex, change and edge arrived, the hostile strings exactly
    for i, table in enumerate(tables):
        got = bolt.query("MATCH (t:Table {id: $id}) RETURN t.name AS name, t.comment AS c, t.p_odd_key_ AS odd",
                         id=table["id"])
        assert got == [{"name": HOSTILE[i], "c": HOSTILE[i], "odd": HOSTILE[i]}], repr(HOSTILE[i])
    chain = bolt.query("MATCH (a:Table)-[e:FEEDS]->(b:Table) RETURN a.name AS a, e.qualifier AS q, e.via AS via, b.name AS b")
    assert sorted((r["a"], r["q"], r["via"], r["b"]) for r in chain) == sorted(
        (HOSTILE[i], HOSTILE[i], HOSTILE[i + 1], HOSTILE[i + 1]) for i in range(len(HOSTILE) - 1))
    change = bolt.query("MATCH (c:Change)-[:CHANGES]->(t:Table) RETURN c.id AS id, c.actor AS actor, c.note AS note, "
                        "t.id AS table")
    assert change == [{"id": "c-hostile", "actor": ACTOR, "note": HOSTILE[10], "table": tables[8]["id"]}]
    assert bolt.query("MATCH (n) WHERE size(n.id) > 4000 RETURN count(n) AS n") == [{"n": 0}]
    assert bolt.alive()
    before = contents(bolt)
    marker = bolt.query("MATCH (m:LineageExport) RETURN m.run_id AS r")

    # a re-run sends nothing and still names what was rejected, shortened on the terminal
    again = run_cli("export", "neo4j", "--warehouse", str(warehouse), "--uri", bolt.uri)
    assert again.exit_code == PARTIAL, again.output
    assert "5 record(s) the server cannot take were not written" in again.stderr
    assert "over the falkordb request limit" in again.stderr
    assert "table:maxcompute:p.xxx" in again.stderr and LONG not in again.stderr
    assert max(len(line) for line in again.stderr.splitlines()) < 600
    assert contents(bolt) == before
    assert bolt.query("MATCH (m:LineageExport) RETURN m.run_id AS r") == marker  # not even the marker was written
    quiet = json.loads(run_cli("export", "neo4j", "--warehouse", str(warehouse), "--uri", bolt.uri, "--json").stdout)
    assert (quiet["batches"], quiet["upserted_nodes"], quiet["upserted_relationships"]) == (0, {}, {})
    assert quiet["rejected"] == 5 and {r.get("id") for r in quiet["rejections"]} >= {LONG, "c-long"}


def test_a_row_the_server_fails_is_split_out_of_its_batch_and_not_resent_until_it_changes(bolt, tmp_path):
    """FalkorDB (1.4.1) fails a statement whose property map has a non-ASCII key (a DataHub
    custom property `负责人` is stored as `p_负责人`): the batch is split down to that one row."""
    warehouse = tmp_path / "warehouse"
    vertices = [{"id": f"{PREFIX}t{i}", "label": "Table", "name": f"t{i}", "first_seen": T0} for i in range(30)]
    vertices[17]["properties"] = {"负责人": "alice"}
    edges = [{"src": f"{PREFIX}t{i}", "dst": f"{PREFIX}t{i + 1}", "relationship": "FEEDS", "qualifier": "",
              "src_label": "Table", "dst_label": "Table", "valid_from": T0} for i in range(29)]
    write_graph(warehouse, vertices, edges)

    result = export(warehouse, Target(bolt.uri))
    assert result.partial and result.rejected == 3
    assert [(r["kind"], r.get("id") or r["dst"]) for r in result.rejections] == [
        ("node", f"{PREFIX}t17"), ("rel", f"{PREFIX}t17"), ("rel", f"{PREFIX}t18")]
    assert result.rejections[0]["reason"].startswith("the server refused it: Neo.DatabaseError")
    assert result.rejections[1]["reason"].startswith("its dst node was rejected (the server refused it")
    assert result.upserted_nodes == {"Table": 29} and result.upserted_relationships == {"FEEDS": 27}
    ids = {r["id"] for r in bolt.query("MATCH (t:Table) RETURN t.id AS id")}
    assert ids == {v["id"] for v in vertices} - {f"{PREFIX}t17"}
    assert bolt.query("MATCH ()-[e:FEEDS]->() RETURN count(e) AS n") == [{"n": 27}]

    again = export(warehouse, Target(bolt.uri))  # certain to fail again: not resent, named again
    assert (again.batches, again.upserted_nodes, again.rejected) == (0, {}, 3)
    retried = export(warehouse, Target(bolt.uri), retry_rejected=True)  # unless asked
    assert retried.upserted_nodes == {} and retried.rejected == 3
    assert retried.rejections[0]["reason"].startswith("the server refused it")

    vertices[17]["properties"] = {"owner": "alice"}  # the record changed: sent again, and its edges with it
    write_graph(warehouse, vertices, edges)
    fixed = export(warehouse, Target(bolt.uri))
    assert not fixed.partial and fixed.rejections == []
    assert fixed.upserted_nodes == {"Table": 1} and fixed.upserted_relationships == {"FEEDS": 2}
    assert bolt.query("MATCH ()-[e:FEEDS]->() RETURN count(e) AS n") == [{"n": 29}]


def test_the_terminal_names_at_most_ten_rejections_and_json_names_all(bolt, tmp_path):
    warehouse = tmp_path / "warehouse"
    vertices = [{"id": f"{PREFIX}{i}" + "y" * 5000, "label": "Table"} for i in range(13)]
    vertices.append({"id": f"{PREFIX}ok", "label": "Table", "name": "[bold]ok[/]"})
    write_graph(warehouse, vertices, [])
    human = run_cli("export", "neo4j", "--warehouse", str(warehouse), "--uri", bolt.uri)
    assert human.exit_code == PARTIAL
    assert human.stderr.count("lineage: export: rejected Table table:maxcompute:p.") == 10
    assert "... 3 more" in human.stderr
    assert bolt.query("MATCH (t:Table) RETURN t.id AS id, t.name AS name") == [{"id": f"{PREFIX}ok", "name": "[bold]ok[/]"}]
    whole = json.loads(run_cli("export", "neo4j", "--warehouse", str(warehouse), "--uri", bolt.uri, "--json").stdout)
    assert sorted(r["id"] for r in whole["rejections"]) == sorted(v["id"] for v in vertices[:-1])


def test_a_rejection_is_journaled_and_survives_an_interrupted_run(tmp_path):
    state = ExportState.load(tmp_path / "target")
    row = {"kind": "node", "key": LONG, "label": "Table", "digest": "d1", "reason": "needs 20445 bytes", "cause": "refused"}
    state.record([{"kind": "node", "key": f"{PREFIX}ok", "label": "Table", "digest": "d0"}])
    state.reject([row])
    state.close()  # killed here: no state file, only the journal
    journal = [json.loads(line) for line in state.journal_path.read_text().splitlines()]
    assert journal[-1] == {"rejected": [row]}
    resumed = ExportState.load(tmp_path / "target")
    assert resumed.rejected[("node", LONG)]["reason"] == "needs 20445 bytes"
    assert resumed.journaled == 1  # batches written, not rejections
    resumed.save("run-1")
    saved = ExportState.load(tmp_path / "target")
    assert saved.rejected[("node", LONG)]["digest"] == "d1" and ("node", LONG) not in saved.rows
    assert set(saved.rows) == {("node", f"{PREFIX}ok")}


TEXT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=40)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=TEXT, value=TEXT, qualifier=TEXT)
def test_any_unicode_text_round_trips_through_the_bolt_server(bolt, name, value, qualifier):
    """Arbitrary text (control characters, quotes, backslashes, markup; NUL is rejected, above)."""
    bolt.wipe()
    with tempfile.TemporaryDirectory() as directory:
        vertices = [{"id": f"{PREFIX}a", "label": "Table", "name": name, "properties": {"comment": value}},
                    {"id": f"{PREFIX}b", "label": "Table", "name": value, "properties": {"comment": name}}]
        edges = [{"src": f"{PREFIX}a", "dst": f"{PREFIX}b", "relationship": "FEEDS", "qualifier": qualifier,
                  "src_label": "Table", "dst_label": "Table", "valid_from": T0, "properties": {"note": value}}]
        result = export(write_graph(Path(directory), vertices, edges), Target(bolt.uri))
    assert not result.partial, result.rejections
    got = bolt.query("MATCH (a:Table {id: $a})-[e:FEEDS]->(b:Table) RETURN a.name AS an, a.comment AS ac, "
                     "e.qualifier AS q, e.note AS note, b.name AS bn, b.comment AS bc", a=f"{PREFIX}a")
    assert got == [{"an": name, "ac": value, "q": qualifier, "note": value, "bn": value, "bc": name}]


def test_the_state_keeps_the_last_word_on_each_record(tmp_path):
    """The state is folded with Arrow: of several rows for one record the last wins, a delete (no
    digest) removes it, and a journal cut mid-line is cut back so later batches are read."""
    state = ExportState.load(tmp_path / "target")
    state.record([{"kind": "node", "key": "a", "label": "Table", "digest": "1"},
                  {"kind": "node", "key": "b", "label": "Table", "digest": "1"}])
    state.record([{"kind": "node", "key": "a", "label": "Table", "digest": "2"},
                  {"kind": "rel", "key": "a", "label": "FEEDS", "src": "a", "dst": "b", "digest": "9"}])
    state.record([{"kind": "node", "key": "b", "label": "Table", "digest": None}])
    state.close()
    with state.journal_path.open("a", encoding="utf-8") as torn:
        torn.write('{"rows": [{"kind": "node", "key": "c"')  # killed mid-write
    resumed = ExportState.load(tmp_path / "target")
    assert resumed.journaled == 3 and resumed.holds_node("a") and not resumed.holds_node("b")
    resumed.record([{"kind": "node", "key": "d", "label": "Table", "digest": "4"}])
    resumed.save("run-1")
    saved = ExportState.load(tmp_path / "target")
    assert {k: r["digest"] for k, r in saved.rows.items()} == {("node", "a"): "2", ("rel", "a"): "9", ("node", "d"): "4"}
    assert saved.rows[("rel", "a")]["src"] == "a" and saved.run_id == "run-1"


def test_a_journal_line_cut_before_its_newline_is_dropped_not_joined_to_the_next(tmp_path):
    """A batch whose JSON was written but not its newline is cut off on load (the server has it;
    the next run's MERGE sends it again harmlessly), so the resumed run's batches stay readable."""
    state = ExportState.load(tmp_path / "target")
    state.record([{"kind": "node", "key": "a", "label": "Table", "digest": "1"}])
    state.close()
    with state.journal_path.open("a", encoding="utf-8") as cut:
        cut.write(json.dumps({"rows": [{"kind": "node", "key": "b", "label": "Table", "digest": "2"}]}))
    resumed = ExportState.load(tmp_path / "target")
    assert resumed.journaled == 1 and not resumed.holds_node("b")
    resumed.record([{"kind": "node", "key": "c", "label": "Table", "digest": "3"}])
    resumed.close()
    again = ExportState.load(tmp_path / "target")
    assert again.journaled == 2 and again.holds_node("a") and again.holds_node("c")
