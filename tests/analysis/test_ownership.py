"""MaxCompute owners and admins, since/until of grants, and metadata owners, on a hand-built graph.

Timeline (July 2024, UTC):

* day 1: ops creates the project sales; carol creates sales.orders.
* day 3: orders is dropped and re-created by dave (dave owns it from then on).
* day 2: erin gets the built-in role admin of sales until day 9 (revoked); fay gets
  super_administrator from day 4, a grant that expires on day 20.
* day 5: bob is granted select on orders directly; gus is a member of role analyst (from day 6),
  which holds select + describe on orders since day 2.
* DataHub: heidi OWNS orders (metadata) since day 2: no privilege from that.
"""

from __future__ import annotations

from datetime import datetime, timezone

from lineage.analysis.access import snapshot, who_can_access
from lineage.analysis.ownership import PRIVILEGES, creators, metadata_owners, owners_and_admins


def day(n: int) -> datetime:
    return datetime(2024, 7, n, tzinfo=timezone.utc)


def V(vid: str, label: str) -> dict:
    return {"id": vid, "label": label, "name": vid.split(":")[-1], "first_seen": day(1), "last_seen": day(1),
            "deleted_at": None, "event_count": 1, "properties": {}}


LABELS = {"user": "User", "role": "Role", "table": "Table", "project": "Project"}


def E(src: str, rel: str, dst: str, start: int, end: int | None = None, closed_by: str | None = None, **props: str) -> dict:
    return {"src": src, "dst": dst, "relationship": rel, "qualifier": props.pop("qualifier", ""),
            "src_label": LABELS[src.split(":")[0]], "dst_label": LABELS[dst.split(":")[0]],
            "valid_from": day(start), "valid_to": day(end) if end else None, "last_seen": day(start), "event_count": 1,
            "closed_by": closed_by, "properties": props}


P, ORDERS = "project:maxcompute:sales", "table:maxcompute:sales.orders"
ADMIN, SUPER, ANALYST = (f"role:maxcompute:sales.{r}" for r in ("admin", "super_administrator", "analyst"))
OPS, CAROL, DAVE, ERIN, FAY, BOB, GUS, HEIDI = (
    f"user:maxcompute:{n}" for n in ("ops", "carol", "dave", "erin", "fay", "bob", "gus", "heidi"))
VERTICES = [V(P, "Project"), V(ORDERS, "Table"), V(ANALYST, "Role"),
            *(V(u, "User") for u in (OPS, CAROL, DAVE, ERIN, FAY, BOB, GUS, HEIDI))]
EDGES = [
    E(ORDERS, "IN_PROJECT", P, 1),
    E(ERIN, "HAS_ROLE", ADMIN, 2, 9, "retract"),
    E(FAY, "HAS_ROLE", SUPER, 4, 20, "expiry"),
    E(BOB, "CAN_ACCESS", ORDERS, 5, qualifier="select", privileges='["select"]'),
    E(ANALYST, "CAN_ACCESS", ORDERS, 2, qualifier="select", privileges='["describe", "select"]'),
    E(GUS, "HAS_ROLE", ANALYST, 6),
    E(HEIDI, "OWNS", ORDERS, 2, ownerType="TECHNICAL_OWNER"),
]
CHANGES = [
    {"entity_id": P, "kind": "create", "time": day(1), "actor": OPS},
    {"entity_id": ORDERS, "kind": "create", "time": day(1), "actor": CAROL},
    {"entity_id": ORDERS, "kind": "drop", "time": day(3), "actor": DAVE},
    {"entity_id": ORDERS, "kind": "create", "time": day(3), "actor": DAVE},
    {"entity_id": ORDERS, "kind": "schema_change", "time": day(4), "actor": BOB},
]


def owners(target: str, n: int) -> dict:
    found = owners_and_admins(snapshot(VERTICES, EDGES, day(n)), target, creators(CHANGES))
    return {pid: (p.kinds, p.paths[0], p.since, p.expires_at) for pid, p in found.items()}


def test_the_creator_owns_the_table_and_the_project_creator_owns_everything_in_it():
    assert owners(ORDERS, 2) == {
        CAROL: (("owner",), (CAROL, ORDERS), day(1), None),
        OPS: (("owner", "project"), (OPS, P, ORDERS), day(1), None),
        ERIN: (("admin",), (ERIN, ADMIN, P, ORDERS), day(2), None),  # revoked: no end known in advance
    }


def test_a_recreated_table_has_its_new_creator_and_admins_come_and_go():
    assert owners(ORDERS, 10) == {
        DAVE: (("owner",), (DAVE, ORDERS), day(3), None),
        OPS: (("owner", "project"), (OPS, P, ORDERS), day(1), None),
        FAY: (("admin",), (FAY, SUPER, P, ORDERS), day(4), day(20)),  # until: the grant's expiry
    }
    assert owners(ORDERS, 21) == {DAVE: (("owner",), (DAVE, ORDERS), day(3), None),
                                  OPS: (("owner", "project"), (OPS, P, ORDERS), day(1), None)}


def test_owners_hold_every_privilege_of_the_object_type():
    table = owners_and_admins(snapshot(VERTICES, EDGES, day(10)), ORDERS, creators(CHANGES))
    assert all(p.privileges == PRIVILEGES["Table"] and p.reads for p in table.values())
    assert "select" in PRIVILEGES["Table"] and "all" not in PRIVILEGES["Table"]
    project = owners_and_admins(snapshot(VERTICES, EDGES, day(10)), P, creators(CHANGES))
    assert {pid: p.paths[0] for pid, p in project.items()} == {OPS: (OPS, P), FAY: (FAY, SUPER, P)}
    assert all(p.privileges == PRIVILEGES["Project"] for p in project.values())


def test_owned_from_the_creation_instant_and_only_on_maxcompute():
    assert owners(ORDERS, 1) == {CAROL: (("owner",), (CAROL, ORDERS), day(1), None),
                                 OPS: (("owner", "project"), (OPS, P, ORDERS), day(1), None)}
    assert owners_and_admins(snapshot(VERTICES, EDGES, day(10)), "table:hologres:x.y", creators(CHANGES)) == {}


def test_grants_say_since_when_through_the_latest_link():
    found = {p.id: p for p in who_can_access(VERTICES, EDGES, ORDERS, day(10))}
    assert set(found) == {BOB, GUS}  # owners are not grants; heidi's OWNS is not access
    assert found[BOB].since == day(5) and found[BOB].expires_at is None
    assert found[GUS].since == day(6)  # the role held select since day 2, gus joined on day 6


def test_metadata_owners_are_apart():
    assert metadata_owners(snapshot(VERTICES, EDGES, day(10)), ORDERS) == [(HEIDI, day(2))]
    assert HEIDI not in owners_and_admins(snapshot(VERTICES, EDGES, day(10)), ORDERS, creators(CHANGES))
