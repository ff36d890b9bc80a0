"""Name lookup (``lineage.analysis.names``): an exact id wins, a unique name resolves, and two
entities with one name are never picked between silently; search ranks exact > prefix > substring."""

from __future__ import annotations

import itertools

import pytest

from lineage.analysis.names import AmbiguousName, UnknownName, nearest, resolve, resolve_all, search
from lineage.errors import UsageError

TABLE = "table:maxcompute:sales_dw.customers"
OTHER_TABLE = "table:maxcompute:crm.customers"
NODE = "node:dataworks:9001"

VERTICES = [
    {"id": TABLE, "label": "Table", "name": "customers", "properties": {"project": "sales_dw"}},
    {"id": OTHER_TABLE, "label": "Table", "name": "crm.customers", "properties": {}},  # named by its key
    {"id": "table:maxcompute:sales_dw.orders", "label": "Table", "name": "orders", "properties": {}},
    {"id": NODE, "label": "Node", "name": "orders", "properties": {}},  # a node named like a table
    {"id": "job:maxcompute:20240801x", "label": "Job", "name": "orders_20240801", "properties": {}},
    {"id": "user:aliyun:1912", "label": "User", "name": "dw_owner",
     "properties": {"aliases": '["1912", "aliyun$dw_owner@retail.example", "dw_owner"]'}},
    {"id": "tag:datahub:PII", "label": "Tag", "name": "PII", "properties": {}},
    {"id": "tag:datahub:x", "label": "Tag", "name": "x", "properties": {}},
    {"id": "glossaryterm:datahub:x", "label": "GlossaryTerm", "name": "tag:datahub:x", "properties": {}},
]


@pytest.mark.parametrize("text, expected", [
    (TABLE, TABLE),  # the canonical id itself
    ("sales_dw.orders", "table:maxcompute:sales_dw.orders"),  # project.table: the id's key
    ("crm.customers", OTHER_TABLE),
    ("SALES_DW.Orders", "table:maxcompute:sales_dw.orders"),  # MaxCompute names are case-insensitive
    ("TABLE:maxcompute:sales_dw.customers", TABLE),
    ("dw_owner", "user:aliyun:1912"),
    ("aliyun$dw_owner@retail.example", "user:aliyun:1912"),  # a merged person's other login
    ("1912", "user:aliyun:1912"),
    ("pii", "tag:datahub:PII"),
    ("9001", NODE),
    ("tag:datahub:x", "tag:datahub:x"),  # an exact id wins over a vertex *named* like it
])
def test_a_unique_name_or_an_id_resolves(text, expected):
    assert resolve(text, VERTICES) == expected


@pytest.mark.parametrize("text, candidates", [
    ("customers", {TABLE, OTHER_TABLE}),  # two tables of one name in two projects
    ("orders", {"table:maxcompute:sales_dw.orders", NODE}),  # a table and a node of one name
])
def test_the_same_name_twice_is_never_picked_silently(text, candidates):
    """Whatever the order of the vertex table, an ambiguous name raises and lists every one."""
    for order in itertools.permutations([v for v in VERTICES if v["id"] in candidates] +
                                        [v for v in VERTICES if v["id"] not in candidates][:2]):
        with pytest.raises(AmbiguousName) as raised:
            resolve(text, list(order))
        message = str(raised.value)
        assert all(c in message for c in candidates), message
        assert f"is the name of {len(candidates)} vertices" in message
    assert isinstance(raised.value, UsageError) and raised.value.exit_code == 2


def test_an_unknown_name_lists_the_nearest_candidates():
    with pytest.raises(UnknownName) as raised:
        resolve("custmers", VERTICES)
    message = str(raised.value)
    assert raised.value.exit_code == 2 and "'custmers'" in message
    assert TABLE in message and OTHER_TABLE in message and "(Table, customers)" in message
    with pytest.raises(UnknownName, match="nothing close"):
        resolve("zzzzqqq", VERTICES)


def test_an_unknown_qualified_name_suggests_by_its_words():
    close = [h.id for h in nearest("sales_dw.customer", VERTICES)]
    assert close[0] == TABLE


def test_resolve_all_keeps_the_order_and_fails_on_any():
    assert resolve_all(["dw_owner", TABLE], VERTICES) == ("user:aliyun:1912", TABLE)
    with pytest.raises(AmbiguousName):
        resolve_all([TABLE, "orders"], VERTICES)


def test_search_ranks_exact_then_prefix_then_substring():
    hits = search("orders", VERTICES)
    assert [(h.id, h.score) for h in hits] == [
        ("table:maxcompute:sales_dw.orders", 3), (NODE, 3),  # exact, the table before the node
        ("job:maxcompute:20240801x", 2),  # orders_20240801 begins with it
    ]
    assert [h.id for h in search("CUSTOMERS", VERTICES)] == [OTHER_TABLE, TABLE]  # both exact (bare names)
    assert [h.id for h in search("ustom", VERTICES)] == [OTHER_TABLE, TABLE]
    assert search("  ", VERTICES) == [] and search("nope", VERTICES) == []
    assert len(search("a", VERTICES, limit=2)) == 2
    assert hits[0].to_json() == {"id": "table:maxcompute:sales_dw.orders", "label": "Table", "name": "orders", "score": 3}


def test_candidates_named_by_event_text_cannot_forge_lines_or_escapes():
    """The listing's line breaks are the message's own: a candidate's name with a newline or a
    terminal escape is shown escaped, so each candidate is one line."""
    hostile = [{"id": "table:maxcompute:p.customers_x", "label": "Table", "name": "customers\n  table:fake  (Table, \x1b[2J)",
                "properties": {}}]
    with pytest.raises(UnknownName) as raised:
        resolve("customer", hostile)
    lines = str(raised.value).split("\n")
    assert lines[1:] == ["  table:maxcompute:p.customers_x  (Table, customers\\x0a  table:fake  (Table, \\x1b[2J))"]
