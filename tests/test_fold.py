"""The temporal fold on hand-written facts: intervals, expiry, wildcards, FEEDS, aliases."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from lineage import ids
from lineage.facts.core import Fact
from lineage.graph import fold
from lineage.graph.api import utc_row
from lineage.schema import FACTS

T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)
ALICE = "user:aliyun:1"
BOB = "user:aliyun:2"
T_A = "table:maxcompute:p.a"
T_B = "table:maxcompute:p.b"
T_C = "table:maxcompute:p.c"
JOB = "job:maxcompute:j1"


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def fact(event, when, op, src, rel=None, dst=None, *, qualifier="", props=None, until=None, failed=False, seq=0):
    return Fact(
        event_id=event, source="test", kind="Kind", event_time=when, actor=None, seq=seq, op=op,
        src_id=src, src_label=ids.label_of(src), relationship=rel, dst_id=dst,
        dst_label=ids.label_of(dst) if dst else None,
        qualifier=qualifier, properties=props or {}, valid_until=until, failed=failed,
    )


def wildcard(event, when, src, rel, dst_label, seq=0):
    return fact(event, when, "retract", src, rel)._replace(dst_label=dst_label, seq=seq)


def run(spark, rows, aliases=None):
    frame = spark.createDataFrame(rows, FACTS.ddl)
    alias_df = spark.createDataFrame(sorted(aliases.items()), "alias string, canonical string") if aliases else None
    vertices, edges, changes = fold.fold(frame, alias_df)
    return (
        {r["id"]: utc_row(r.asDict()) for r in vertices.collect()},
        sorted((utc_row(r.asDict()) for r in edges.collect()), key=lambda e: (e["relationship"], e["src"], e["dst"], e["qualifier"], str(e["valid_from"]))),
        [utc_row(r.asDict()) for r in changes.collect()],
    )


def intervals(edges, rel):
    return [(e["src"], e["dst"], e["qualifier"], e["valid_from"], e["valid_to"], e["closed_by"]) for e in edges if e["relationship"] == rel]


def test_grant_then_revoke_closes_at_the_revoke_time(spark):
    _, edges, _ = run(spark, [
        fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, qualifier="select"),
        fact("e2", day(3), "retract", ALICE, "CAN_ACCESS", T_A, qualifier="select"),
    ])
    assert intervals(edges, "CAN_ACCESS") == [(ALICE, T_A, "select", day(0), day(3), "retract")]


def test_revoking_one_privilege_keeps_the_other(spark):
    _, edges, _ = run(spark, [
        fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, qualifier="select"),
        fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, qualifier="update", seq=1),
        fact("e2", day(2), "retract", ALICE, "CAN_ACCESS", T_A, qualifier="update"),
    ])
    assert intervals(edges, "CAN_ACCESS") == [
        (ALICE, T_A, "select", day(0), None, None),
        (ALICE, T_A, "update", day(0), day(2), "retract"),
    ]


def test_expiry_closes_and_a_later_grant_opens_a_new_interval(spark):
    _, edges, _ = run(spark, [
        fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, until=day(5)),
        fact("e2", day(9), "assert", ALICE, "CAN_ACCESS", T_A, until=day(20)),
        fact("e3", day(12), "retract", ALICE, "CAN_ACCESS", T_A),
    ])
    assert intervals(edges, "CAN_ACCESS") == [
        (ALICE, T_A, "", day(0), day(5), "expiry"),
        (ALICE, T_A, "", day(9), day(12), "retract"),
    ]


def test_a_renewal_before_expiry_extends_the_interval(spark):
    _, edges, _ = run(spark, [
        fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, until=day(5)),
        fact("e2", day(4), "assert", ALICE, "CAN_ACCESS", T_A, until=day(10)),
    ])
    [edge] = [e for e in edges if e["relationship"] == "CAN_ACCESS"]
    assert (edge["valid_from"], edge["valid_to"], edge["closed_by"], edge["event_count"]) == (day(0), day(10), "expiry", 2)


def test_repeated_asserts_keep_one_interval_and_count_events(spark):
    _, edges, _ = run(spark, [
        fact("e1", day(0), "assert", ALICE, "MEMBER_OF", "project:maxcompute:p"),
        fact("e2", day(1), "assert", ALICE, "MEMBER_OF", "project:maxcompute:p"),
        fact("e3", day(2), "retract", ALICE, "MEMBER_OF", "project:maxcompute:p"),
        fact("e4", day(3), "retract", ALICE, "MEMBER_OF", "project:maxcompute:p"),  # closes nothing
        fact("e5", day(4), "assert", ALICE, "MEMBER_OF", "project:maxcompute:p"),
    ])
    rows = [e for e in edges if e["relationship"] == "MEMBER_OF"]
    assert [(e["valid_from"], e["valid_to"], e["event_count"], e["last_seen"]) for e in rows] == [
        (day(0), day(2), 3, day(2)),
        (day(4), None, 1, day(4)),
    ]


def test_a_retract_before_any_assert_creates_nothing(spark):
    _, edges, _ = run(spark, [fact("e1", day(0), "retract", ALICE, "HAS_ROLE", "role:maxcompute:p.r")])
    assert edges == []


def test_failed_facts_change_no_state(spark):
    vertices, edges, changes = run(spark, [
        fact("e1", day(0), "observe", JOB, "READS", T_A, failed=True),
        fact("e1", day(0), "observe", JOB, "WRITES", T_B, failed=True, seq=1),
        fact("e1", day(0), "observe", T_B, None, None, failed=True, seq=2),
    ])
    assert edges == [] and vertices == {} and changes == []


def test_wildcard_retract_closes_every_edge_of_that_relationship(spark):
    _, edges, _ = run(spark, [
        fact("e1", day(0), "assert", T_A, "HAS_LABEL", "label:maxcompute:2"),
        fact("e1", day(0), "assert", ALICE, "HAS_LABEL", "label:maxcompute:1", seq=1),
        wildcard("e2", day(1), T_A, "HAS_LABEL", "Label", seq=0),
        fact("e2", day(1), "assert", T_A, "HAS_LABEL", "label:maxcompute:3", seq=1),
    ])
    assert intervals(edges, "HAS_LABEL") == [
        (T_A, "label:maxcompute:2", "", day(0), day(1), "retract"),
        (T_A, "label:maxcompute:3", "", day(1), None, None),
        (ALICE, "label:maxcompute:1", "", day(0), None, None),  # another src: untouched
    ]


def test_vertices_lifetime_properties_and_deletion(spark):
    vertices, _, changes = run(spark, [
        fact("e1", day(0), "assert", T_A, props={"name": "a", "owner": "x"}),
        fact("e2", day(1), "observe", T_A, props={"owner": "y"}),
        fact("e3", day(2), "change", T_A, "schema_change"),
        fact("e4", day(3), "retract", T_A),
        fact("e5", day(1), "assert", JOB, "READS", T_A),
    ])
    a = vertices[T_A]
    assert (a["label"], a["name"], a["first_seen"], a["last_seen"], a["deleted_at"], a["event_count"]) == (
        "Table", "a", day(0), day(3), day(3), 5)
    assert a["properties"] == {"name": "a", "owner": "y"}
    assert vertices[JOB]["name"] == "j1" and vertices[JOB]["deleted_at"] is None
    assert [(c["entity_id"], c["kind"], c["time"]) for c in changes] == [(T_A, "schema_change", day(2))]


def test_recreated_vertex_is_not_deleted(spark):
    vertices, _, _ = run(spark, [
        fact("e1", day(0), "assert", T_A), fact("e2", day(1), "retract", T_A), fact("e3", day(2), "assert", T_A),
    ])
    assert vertices[T_A]["deleted_at"] is None


def test_feeds_derived_from_reads_and_writes_of_one_job(spark):
    _, edges, _ = run(spark, [
        fact("e1", day(0), "assert", JOB, "READS", T_A),
        fact("e1", day(0), "assert", JOB, "READS", T_B, seq=1),
        fact("e1", day(0), "assert", JOB, "WRITES", T_C, seq=2),
        fact("e2", day(1), "assert", "job:maxcompute:j2", "READS", T_A),
        fact("e2", day(1), "assert", "job:maxcompute:j2", "WRITES", T_C, seq=1),
        fact("e3", day(2), "assert", "user:aliyun:9", "DOWNLOADED", T_C),  # not a Job/Node: no FEEDS
    ])
    feeds = [e for e in edges if e["relationship"] == "FEEDS"]
    assert [(e["src"], e["dst"], e["valid_from"], e["valid_to"], e["event_count"]) for e in feeds] == [
        (T_A, T_C, day(0), None, 2),
        (T_B, T_C, day(0), None, 1),
    ]
    assert feeds[0]["properties"] == {"via": '["job:maxcompute:j2","job:maxcompute:j1"]', "via_count": "2"}
    assert (feeds[0]["src_label"], feeds[0]["dst_label"]) == ("Table", "Table")


def test_feeds_intervals_follow_the_reads_and_writes(spark):
    node = "node:dataworks:7"
    _, edges, _ = run(spark, [
        fact("e1", day(0), "assert", node, "READS", T_A),
        fact("e1", day(0), "assert", node, "WRITES", T_B, seq=1),
        wildcard("e2", day(4), node, "READS", "Table"),
    ])
    feeds = [e for e in edges if e["relationship"] == "FEEDS"]
    assert [(e["src"], e["dst"], e["valid_from"], e["valid_to"]) for e in feeds] == [(T_A, T_B, day(0), day(4))]


def test_aliases_merge_identities(spark):
    vertices, edges, _ = run(
        spark,
        [
            fact("e1", day(0), "assert", "user:maxcompute:aliyun$bob@x.com", "CAN_ACCESS", T_A, qualifier="select"),
            fact("e2", day(1), "assert", "user:datahub:bob", "OWNS", T_A),
            fact("e3", day(2), "retract", BOB, "CAN_ACCESS", T_A, qualifier="select"),
        ],
        aliases={"user:maxcompute:aliyun$bob@x.com": BOB, "user:datahub:bob": BOB},
    )
    assert {v for v in vertices if v.startswith("user:")} == {BOB}
    assert intervals(edges, "CAN_ACCESS") == [(BOB, T_A, "select", day(0), day(2), "retract")]
    assert intervals(edges, "OWNS") == [(BOB, T_A, "", day(1), None, None)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_order_and_duplicates_do_not_matter(spark, seed):
    import random

    rows = [
        fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, until=day(5)),
        fact("e2", day(4), "assert", ALICE, "CAN_ACCESS", T_A, until=day(10)),
        fact("e3", day(6), "retract", ALICE, "CAN_ACCESS", T_A),
        fact("e4", day(6), "assert", T_A, props={"k": "1"}),
        fact("e5", day(6), "observe", T_A, props={"k": "2"}),
        fact("e6", day(1), "assert", JOB, "READS", T_A),
        fact("e6", day(1), "assert", JOB, "WRITES", T_B, seq=1),
    ]
    expected = run(spark, rows)
    shuffled = rows + rows[:3]
    random.Random(seed).shuffle(shuffled)
    assert run(spark, shuffled) == expected
