"""who_can_access / reachable_by on a small hand-built graph; expected answers worked out by hand.

Timeline (July 2024, UTC): everything exists from day 1 unless said otherwise.

* alice: direct GRANT select on orders; user label 4 (orders' highest label is 3, on a column).
* bob: direct select on orders, revoked on day 10.
* carol: DataWorks approval (SELECT) on orders, expires on day 20.
* dave: member of role analyst (select + describe on orders) until day 15.
* erin: select on the project sales (orders and customers are in it).
* frank: only MEMBER_OF the project: no access.
* gina: GRANT LABEL 3 on orders (no privilege), expires day 30.
* henry: Dataphin grant on the project, revoked on day 8, request expiry day 25 in its properties.
* tmp: a table alice can read, dropped on day 12.
* FEEDS: orders -> daily -> report; customers -> daily.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from lineage.analysis.access import reachable_by, who_can_access


def day(n: int) -> datetime:
    return datetime(2024, 7, n, tzinfo=timezone.utc)


DAY1 = day(1)


def V(vid: str, label: str, first_seen: datetime = DAY1, deleted_at: datetime | None = None, **props: str) -> dict:
    return {"id": vid, "label": label, "name": vid.split(":")[-1], "first_seen": first_seen, "last_seen": first_seen,
            "deleted_at": deleted_at, "event_count": 1, "properties": props}


def E(src: str, rel: str, dst: str, qualifier: str = "", valid_from: datetime = DAY1, valid_to: datetime | None = None,
      closed_by: str | None = None, **props: str) -> dict:
    labels = {"user": "User", "role": "Role", "table": "Table", "project": "Project", "label": "Label", "column": "Column"}
    return {"src": src, "dst": dst, "relationship": rel, "qualifier": qualifier,
            "src_label": labels[src.split(":")[0]], "dst_label": labels[dst.split(":")[0]],
            "valid_from": valid_from, "valid_to": valid_to, "last_seen": valid_from, "event_count": 1,
            "closed_by": closed_by, "properties": props}


P = "project:maxcompute:sales"
ORDERS, CUSTOMERS, TMP = "table:maxcompute:sales.orders", "table:maxcompute:sales.customers", "table:maxcompute:sales.tmp"
DAILY, REPORT = "table:maxcompute:sales.daily", "table:maxcompute:bi.report"
CARD = "column:maxcompute:sales.orders.card"
ROLE = "role:maxcompute:sales.analyst"
L3, L4 = "label:maxcompute:3", "label:maxcompute:4"
ALICE, BOB, CAROL, DAVE, ERIN, FRANK, GINA, HENRY = (
    f"user:maxcompute:{n}" for n in ("alice", "bob", "carol", "dave", "erin", "frank", "gina", "henry"))

VERTICES = [
    V(P, "Project"), V(ORDERS, "Table"), V(CUSTOMERS, "Table"), V(TMP, "Table", deleted_at=day(12)),
    V(DAILY, "Table"), V(REPORT, "Table"), V(CARD, "Column"), V(ROLE, "Role"),
    V(L3, "Label", level="3"), V(L4, "Label", level="4"),
    *(V(u, "User") for u in (ALICE, BOB, CAROL, DAVE, ERIN, FRANK, GINA, HENRY)),
]
EDGES = [
    E(ORDERS, "IN_PROJECT", P), E(CUSTOMERS, "IN_PROJECT", P),
    E(ORDERS, "HAS_COLUMN", CARD), E(CARD, "HAS_LABEL", L3, label="3"),
    E(ALICE, "CAN_ACCESS", ORDERS, "select", privileges='["select"]'),
    E(ALICE, "HAS_LABEL", L4, label="4"),
    E(ALICE, "CAN_ACCESS", TMP, "select", privileges='["select"]'),
    E(BOB, "CAN_ACCESS", ORDERS, "select", valid_to=day(10), closed_by="retract", privileges='["select"]'),
    E(CAROL, "CAN_ACCESS", ORDERS, "select", valid_from=day(2), valid_to=day(20), closed_by="expiry",
      privileges='["SELECT"]', approval="9001"),
    E(DAVE, "HAS_ROLE", ROLE, valid_to=day(15), closed_by="retract"),
    E(ROLE, "CAN_ACCESS", ORDERS, "select", privileges='["select"]'),
    E(ROLE, "CAN_ACCESS", ORDERS, "odps:describe", privileges='["odps:Describe"]'),  # a role policy's RAM action
    E(ERIN, "CAN_ACCESS", P, "select", privileges='["select"]'),
    E(FRANK, "MEMBER_OF", P),
    E(GINA, "CAN_ACCESS", ORDERS, "label", valid_to=day(30), closed_by="expiry", label="3", exp_days="29"),
    E(HENRY, "CAN_ACCESS", P, "select", valid_to=day(8), closed_by="retract", privileges='["select"]',
      via="GrantPermission", expires="2024-07-25T00:00:00+00:00"),
    E(ORDERS, "FEEDS", DAILY), E(CUSTOMERS, "FEEDS", DAILY), E(DAILY, "FEEDS", REPORT),
]


def by_id(principals) -> dict:
    return {p.id: p for p in principals}


def test_day_5_every_kind() -> None:
    found = who_can_access(VERTICES, EDGES, ORDERS, as_of=day(5))
    assert [p.id for p in found] == sorted([ALICE, BOB, CAROL, DAVE, ERIN, GINA, HENRY])  # not frank
    p = by_id(found)

    assert p[ALICE].kinds == ("direct", "label")  # grant + user label 4 >= orders' column label 3
    assert p[ALICE].paths == ((ALICE, ORDERS), (ALICE, L4, ORDERS))
    assert p[ALICE].privileges == ("select",)
    assert p[ALICE].clearance == 4 and p[ALICE].expires_at is None

    assert (p[BOB].kinds, p[BOB].paths, p[BOB].privileges) == (("direct",), ((BOB, ORDERS),), ("select",))

    assert p[CAROL].kinds == ("approval",)
    assert p[CAROL].privileges == ("select",)  # "SELECT" from DataWorks, lower-cased
    assert p[CAROL].expires_at == day(20)

    assert p[DAVE].kinds == ("role",)
    assert p[DAVE].paths == ((DAVE, ROLE, ORDERS),)
    assert p[DAVE].privileges == ("describe", "select")  # union of the role's two grants

    assert p[ERIN].kinds == ("direct", "project")
    assert p[ERIN].paths == ((ERIN, P, ORDERS),)

    assert p[GINA].kinds == ("label",) and p[GINA].privileges == () and not p[GINA].reads
    assert p[GINA].paths == ((GINA, ORDERS),)
    assert p[GINA].access[0].level == 3 and p[GINA].clearance == 3 and p[GINA].expires_at == day(30)

    # a Dataphin grant is an approval; revoked early, its own expiry still comes from the properties
    assert p[HENRY].kinds == ("approval", "project")
    assert p[HENRY].expires_at == day(25)


def test_revoked_grant_before_and_after() -> None:
    assert BOB in by_id(who_can_access(VERTICES, EDGES, ORDERS, as_of=day(9)))
    assert BOB not in by_id(who_can_access(VERTICES, EDGES, ORDERS, as_of=day(10)))  # [from, to): gone at the revoke


def test_expired_approval_before_and_after() -> None:
    assert CAROL not in by_id(who_can_access(VERTICES, EDGES, ORDERS, as_of=day(1)))  # not yet approved
    assert by_id(who_can_access(VERTICES, EDGES, ORDERS, as_of=day(19)))[CAROL].expires_at == day(20)
    assert CAROL not in by_id(who_can_access(VERTICES, EDGES, ORDERS, as_of=day(20)))


def test_role_membership_revoked_later() -> None:
    assert DAVE in by_id(who_can_access(VERTICES, EDGES, ORDERS, as_of=day(14)))
    assert DAVE not in by_id(who_can_access(VERTICES, EDGES, ORDERS, as_of=day(15)))
    roles = by_id(who_can_access(VERTICES, EDGES, ORDERS, as_of=day(15), include_roles=True))
    assert roles[ROLE].paths == ((ROLE, ORDERS),) and roles[ROLE].kinds == ("role",)  # the role still holds it


def test_project_grant_reaches_every_table_in_the_project() -> None:
    customers = by_id(who_can_access(VERTICES, EDGES, CUSTOMERS, as_of=day(5)))
    assert sorted(customers) == [ERIN, HENRY]
    assert customers[ERIN].paths == ((ERIN, P, CUSTOMERS),)
    assert sorted(by_id(who_can_access(VERTICES, EDGES, CUSTOMERS, as_of=day(8)))) == [ERIN]  # henry revoked day 8
    # the project itself: granted directly; membership alone is not listed
    assert sorted(by_id(who_can_access(VERTICES, EDGES, P, as_of=day(9)))) == [ERIN]


def test_label_clearance_needs_a_read_path() -> None:
    # alice's label path disappears with her grant; a label never grants access alone
    edges = [e for e in EDGES if not (e["src"] == ALICE and e["dst"] == ORDERS)]
    assert ALICE not in by_id(who_can_access(VERTICES, edges, ORDERS, as_of=day(5)))
    # and with no label on the table (column label gone) there is no label path either
    edges = [e for e in EDGES if e["relationship"] != "HAS_COLUMN"]
    assert by_id(who_can_access(VERTICES, edges, ORDERS, as_of=day(5)))[ALICE].kinds == ("direct",)
    # gina's label grant expires on day 30
    assert GINA not in by_id(who_can_access(VERTICES, EDGES, ORDERS, as_of=day(30)))


def test_deleted_table() -> None:
    assert [p.id for p in who_can_access(VERTICES, EDGES, TMP, as_of=day(11))] == [ALICE]
    assert who_can_access(VERTICES, EDGES, TMP, as_of=day(12)) == []
    assert who_can_access(VERTICES, EDGES, "table:maxcompute:nowhere.none", as_of=day(5)) == []


def test_contract_json() -> None:
    bob = by_id(who_can_access(VERTICES, EDGES, ORDERS, as_of=day(5)))[BOB].to_json()
    assert {k: bob[k] for k in ("id", "label", "privileges", "path")} == {
        "id": BOB, "label": "User", "privileges": ["select"], "path": [BOB, ORDERS]}


def test_parquet_shaped_rows() -> None:
    """pyarrow reads map<string,string> as (key, value) pairs and timestamps as naive UTC."""
    naive = [{**e, "properties": list(e["properties"].items()),
              "valid_from": e["valid_from"].replace(tzinfo=None),
              "valid_to": e["valid_to"].replace(tzinfo=None) if e["valid_to"] else None} for e in EDGES]
    assert by_id(who_can_access(VERTICES, naive, ORDERS, as_of="2024-07-05T00:00:00Z"))[CAROL].expires_at == day(20)


def test_reachable_by_alice_with_derived_tables() -> None:
    found = [(r.id, r.kinds, r.distance, r.path) for r in reachable_by(VERTICES, EDGES, ALICE, as_of=day(5))]
    assert found == [
        (ORDERS, ("direct", "label"), 0, (ALICE, ORDERS)),
        (TMP, ("direct",), 0, (ALICE, TMP)),
        (DAILY, ("derived",), 1, (ALICE, ORDERS, DAILY)),
        (REPORT, ("derived",), 2, (ALICE, ORDERS, DAILY, REPORT)),
    ]
    # tmp dropped on day 12; without derived tables only what she reads herself
    assert [r.id for r in reachable_by(VERTICES, EDGES, ALICE, as_of=day(12), include_derived=False)] == [ORDERS]


def test_reachable_by_project_grant_and_role() -> None:
    erin = {r.id: (r.kinds, r.distance, r.path) for r in reachable_by(VERTICES, EDGES, ERIN, as_of=day(5))}
    assert erin == {
        P: (("direct",), 0, (ERIN, P)),
        CUSTOMERS: (("direct", "project"), 0, (ERIN, P, CUSTOMERS)),
        ORDERS: (("direct", "project"), 0, (ERIN, P, ORDERS)),
        DAILY: (("derived",), 1, (ERIN, P, CUSTOMERS, DAILY)),  # customers sorts before orders: first witness
        REPORT: (("derived",), 2, (ERIN, P, CUSTOMERS, DAILY, REPORT)),
    }
    dave = reachable_by(VERTICES, EDGES, DAVE, as_of=day(5), include_derived=False)
    assert [(r.id, r.privileges, r.path) for r in dave] == [(ORDERS, ("describe", "select"), (DAVE, ROLE, ORDERS))]
    assert reachable_by(VERTICES, EDGES, DAVE, as_of=day(15)) == []
    assert reachable_by(VERTICES, EDGES, FRANK, as_of=day(5)) == []  # membership alone reads nothing
    assert reachable_by(VERTICES, EDGES, GINA, as_of=day(5)) == []  # a label grant alone reads nothing


@pytest.mark.parametrize("moment", [day(5), "2024-07-05", "2024-07-05 00:00:00"])
def test_as_of_spellings(moment) -> None:
    assert BOB in by_id(who_can_access(VERTICES, EDGES, ORDERS, as_of=moment))


def test_column_level_approval_is_a_partial_read_of_the_table() -> None:
    ivan = "user:maxcompute:ivan"
    edges = EDGES + [E(ivan, "CAN_ACCESS", CARD, "select", valid_to=day(9), closed_by="expiry",
                       privileges='["SELECT"]', approval="9002")]
    found = by_id(who_can_access(VERTICES, edges, ORDERS, as_of=day(5)))[ivan]
    assert (found.kinds, found.paths, found.expires_at) == (("approval", "column"), ((ivan, CARD, ORDERS),), day(9))
    reach = [(r.id, r.kinds, r.path) for r in reachable_by(VERTICES, edges, ivan, as_of=day(5), include_derived=False)]
    assert reach == [(CARD, ("approval",), (ivan, CARD)), (ORDERS, ("approval", "column"), (ivan, CARD, ORDERS))]
