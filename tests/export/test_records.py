"""The export's pure parts: vocabulary-only statements, row identity, batching, the FalkorDB encoding."""

from __future__ import annotations

import pytest

from export.graphgen import T0, write_graph
from lineage.export import records
from lineage.export.dialect import FALKORDB, NEO4J, DialectError, rendered_size
from lineage.export.neo4j import (
    batches,
    delete_nodes_query,
    delete_rels_query,
    plan,
    upsert_nodes_query,
    upsert_rels_query,
)
from lineage.export.records import VocabularyError
from lineage.export.state import ExportState, target_name


@pytest.mark.parametrize("label", ["Table`) DETACH DELETE n //", "table", "Person", ""])
def test_statements_are_only_built_from_the_vocabulary(label):
    for build in (upsert_nodes_query, delete_nodes_query):
        with pytest.raises(VocabularyError):
            build(label)
    with pytest.raises(VocabularyError):
        upsert_rels_query("FEEDS", label, "Table")
    with pytest.raises(VocabularyError):
        delete_rels_query(label, "Table", "Table")


def test_storage_locations_are_in_the_vocabulary_both_ways_of_feeds():
    assert "Location" in records.NODE_LABELS
    assert "MATCH (a:`Location` {id: r.src}) MATCH (b:`Table` {id: r.dst})" in upsert_rels_query("FEEDS", "Location", "Table")
    assert "MATCH (a:`Table` {id: r.src}) MATCH (b:`Location` {id: r.dst})" in upsert_rels_query("FEEDS", "Table", "Location")


def test_statements_take_every_value_as_a_parameter():
    query = upsert_rels_query("FEEDS", "Table", "Table")
    assert query.startswith("UNWIND $rows AS r ") and "r.props" in query and "'" not in query and '"' not in query


def test_a_graph_label_outside_the_vocabulary_stops_the_export_before_any_statement(tmp_path):
    warehouse = write_graph(tmp_path / "w", [{"id": "x:y:z", "label": "Robert'); DROP"}], [])
    with pytest.raises(VocabularyError, match="not in the export vocabulary"):
        plan(warehouse, ExportState(tmp_path / "state"))


def test_edge_identity_is_stable_and_separates_intervals():
    one = records.edge_key("a", "FEEDS", "b", "", "2024-07-01T00:00:00.000000Z")
    assert one == records.edge_key("a", "FEEDS", "b", "", "2024-07-01T00:00:00.000000Z")
    assert one != records.edge_key("a", "FEEDS", "b", "", "2024-07-02T00:00:00.000000Z")  # re-granted later
    assert one != records.edge_key("a", "FEEDS", "b", "select", "2024-07-01T00:00:00.000000Z")
    assert one != records.edge_key("a\x1fFEEDS", "b", "", "", "2024-07-01T00:00:00.000000Z")


def test_property_keys_are_flattened_safely():
    flat = records.flat({"id": "x", "name": "core", "deleted_at": None}, {"name": "mapping", "odd key!": "v", "ok": None},
                        ("id", "name", "deleted_at"))
    assert flat == {"id": "x", "name": "core", "p_name": "mapping", "p_odd_key_": "v"}
    same = records.flat({"id": "x", "name": "core"}, {"name": "core", "id": "other"}, ("id", "name"))
    assert same == {"id": "x", "name": "core", "p_id": "other"}  # an equal duplicate is not stored twice


def test_times_are_fixed_width_utc_strings_so_string_order_is_time_order(tmp_path):
    from datetime import timedelta

    moments = [T0, T0 + timedelta(microseconds=5), T0 + timedelta(seconds=1), T0 + timedelta(days=400)]
    warehouse = write_graph(tmp_path / "w", [{"id": f"table:maxcompute:p.t{i}", "label": "Table", "first_seen": m}
                                             for i, m in enumerate(moments)], [])
    seen = [n.props["first_seen"] for n in records.graph(warehouse)[0]]
    assert seen == ["2024-07-01T00:00:00.000000Z", "2024-07-01T00:00:00.000005Z", "2024-07-01T00:00:01.000000Z",
                    "2025-08-05T00:00:00.000000Z"]
    assert sorted(seen) == seen and len(set(map(len, seen))) == 1


def test_batches_respect_rows_and_bytes():
    assert [len(b) for b in batches(list(range(10)), 4, None, lambda r: 1)] == [4, 4, 2]
    assert [len(b) for b in batches(list(range(10)), 100, 10, lambda r: 3)] == [3, 3, 3, 1]
    assert [len(b) for b in batches([], 4, None, lambda r: 1)] == []


def test_falkordb_encoding_and_rendered_size():
    row = {"id": "it's a \\ test", "n": 12, "props": {"list": ["a'b"], "none": None, "yes": True}}
    encoded = FALKORDB.encode(row)
    assert encoded["id"] == "it\\'s a \\\\ test" and encoded["props"]["list"] == ["a\\'b"] and encoded["n"] == 12
    assert NEO4J.encode(row) is row  # Neo4j binds parameters itself
    # exactly as the server prints it: {id: 'it\'s a \\ test', n: 12, props: {list: ['a\'b'], none: NULL, yes: true}}
    printed = "{id: 'it\\'s a \\\\ test', n: 12, props: {list: ['a\\'b'], none: NULL, yes: true}}"
    assert rendered_size(encoded) == len(printed.encode())
    with pytest.raises(DialectError):
        FALKORDB.encode({"id": "nul\x00byte"})


def test_one_state_directory_per_server_and_database():
    assert target_name("bolt://localhost:7687", None) == "bolt_localhost_7687_default"
    assert target_name("neo4j+s://db.example.com:7687", "lineage") == "neo4j_s_db.example.com_7687_lineage"
    assert target_name("bolt://a:1", "x/../y") != target_name("bolt://a:1", "x")


def test_json_lists_and_counts_become_typed_properties_other_shapes_stay_strings():
    flat = records.flat({}, {"via": '["job:a","node:b"]', "via_count": "2", "privileges": '["select"]',
                             "status_code": "5", "comment": '["not","typed"]', "status": "5"}, ())
    assert flat == {"via": ["job:a", "node:b"], "via_count": 2, "privileges": ["select"], "status_code": 5,
                    "comment": '["not","typed"]', "status": "5"}
    # a person's names (best first, issue 28): `'RAM$corp:carol' IN u.names` works in Cypher
    assert records.flat({}, {"names": '["carol", "286098539641742801"]'}, ()) == {"names": ["carol", "286098539641742801"]}
    assert records.flat({}, {"via": "ApprovePrivilege", "via_count": "many", "grantees": "[broken"}, ()) == {
        "via": "ApprovePrivilege", "via_count": "many", "grantees": "[broken"}


def test_a_count_beyond_64_bits_stays_a_string_instead_of_breaking_the_driver():
    flat = records.flat({}, {"via_count": "99999999999999999999", "status_code": "-9223372036854775808",
                             "status_changes": "--5"}, ())
    assert flat == {"via_count": "99999999999999999999", "status_code": -2**63, "status_changes": "--5"}


def test_each_change_node_carries_its_effect(tmp_path):
    """Issue 29's rule on the exported Change nodes, for changes written out by hand: a drop and
    a schema change break; a GRANT exposes and a REVOKE restricts (their statements say which); an
    owner change notifies; adding a PII tag exposes, removing it notifies. The saved queries read
    ``effect`` so that only a break walks downstream."""
    table = "table:maxcompute:p.a"
    made = [("c-drop", "drop", {}), ("c-schema", "schema_change", {}),
            ("c-grant", "permission_change", {"statement": "GRANT Select ON TABLE a TO USER bob"}),
            ("c-revoke", "permission_change", {"statement": "REVOKE Select ON TABLE a FROM USER bob"}),
            ("c-owner", "owner_change", {}),
            ("c-tag", "tag_change", {"operation": "ADD", "modifier": "urn:li:tag:pii_email"}),
            ("c-untag", "tag_change", {"operation": "REMOVE", "modifier": "urn:li:tag:pii_email"})]
    changes = [{"change_id": cid, "entity_id": table, "entity_label": "Table", "kind": kind, "time": T0,
                "actor": "user:aliyun:1", "event_id": cid, "source": "maxcompute", "properties": props}
               for cid, kind, props in made]
    vertices = [{"id": table, "label": "Table", "name": "a", "first_seen": T0, "last_seen": T0, "properties": {}}]
    nodes, _ = records.graph(write_graph(tmp_path / "w", vertices, [], changes))
    effects = {n.id: n.props["effect"] for n in nodes if n.label == "Change"}
    assert effects == {"c-drop": "breaks", "c-schema": "breaks", "c-grant": "exposes", "c-revoke": "restricts",
                       "c-owner": "notifies", "c-tag": "exposes", "c-untag": "notifies"}


def test_columns_and_column_feeds_pass_the_vocabulary_and_keep_both_qualifiers(tmp_path):
    """Issue 32: Column vertices, HAS_COLUMN and a direct and an indirect FEEDS between the same
    two columns become two relationships (a pair may hold both, DESIGN.md)."""
    src, dst = "column:maxcompute:p.a.x", "column:maxcompute:p.b.y"
    vertices = [{"id": i, "label": label, "name": i.rsplit(".", 1)[-1], "first_seen": T0, "last_seen": T0}
                for i, label in (("table:maxcompute:p.a", "Table"), (src, "Column"), (dst, "Column"))]
    edge = {"valid_from": T0, "last_seen": T0, "properties": {"via": '["job:maxcompute:j1"]'}}
    edges = [{**edge, "src": "table:maxcompute:p.a", "dst": src, "relationship": "HAS_COLUMN", "qualifier": "",
              "src_label": "Table", "dst_label": "Column"}] + [
        {**edge, "src": src, "dst": dst, "relationship": "FEEDS", "qualifier": q, "src_label": "Column",
         "dst_label": "Column", "properties": {**edge["properties"], "transformations": f'["{t}"]'}}
        for q, t in (("direct", "IDENTITY"), ("indirect", "FILTER"))]
    nodes, rels = records.graph(write_graph(tmp_path / "w", vertices, edges))
    assert sorted(n.label for n in nodes) == ["Column", "Column", "Table"]
    feeds = [r for r in rels if r.type == "FEEDS"]
    assert sorted((r.src_label, r.dst_label, r.props["qualifier"], r.props["transformations"]) for r in feeds) == [
        ("Column", "Column", "direct", ["IDENTITY"]), ("Column", "Column", "indirect", ["FILTER"])]
    assert "MATCH (a:`Column` {id: r.src}) MATCH (b:`Column` {id: r.dst})" in upsert_rels_query("FEEDS", "Column", "Column")
