"""The temporal fold on hand-written facts: intervals, expiry, wildcards, FEEDS, aliases (one fold, all cases)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from foldbatch import Cases, fold_all, folded_fixture
from lineage import ids
from lineage.facts.core import Fact

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


# Every case of this module is folded in ONE Spark fold (see tests/foldbatch.py).
CASES = Cases()
case = CASES.add
folded = folded_fixture(CASES)


def intervals(edges, rel):
    return [(e["src"], e["dst"], e["qualifier"], e["valid_from"], e["valid_to"], e["closed_by"]) for e in edges if e["relationship"] == rel]


GRANT_THEN_REVOKE_CLOSES_AT_THE_REVOKE_TIME = case("grant_then_revoke_closes_at_the_revoke_time", [
    fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, qualifier="select"),
    fact("e2", day(3), "retract", ALICE, "CAN_ACCESS", T_A, qualifier="select"),
])


def test_grant_then_revoke_closes_at_the_revoke_time(folded):
    _, edges, _ = folded[GRANT_THEN_REVOKE_CLOSES_AT_THE_REVOKE_TIME]
    assert intervals(edges, "CAN_ACCESS") == [(ALICE, T_A, "select", day(0), day(3), "retract")]


REVOKING_ONE_PRIVILEGE_KEEPS_THE_OTHER = case("revoking_one_privilege_keeps_the_other", [
    fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, qualifier="select"),
    fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, qualifier="update", seq=1),
    fact("e2", day(2), "retract", ALICE, "CAN_ACCESS", T_A, qualifier="update"),
])


def test_revoking_one_privilege_keeps_the_other(folded):
    _, edges, _ = folded[REVOKING_ONE_PRIVILEGE_KEEPS_THE_OTHER]
    assert intervals(edges, "CAN_ACCESS") == [
        (ALICE, T_A, "select", day(0), None, None),
        (ALICE, T_A, "update", day(0), day(2), "retract"),
    ]


EXPIRY_CLOSES_AND_A_LATER_GRANT_OPENS_A_NEW_INTERVAL = case("expiry_closes_and_a_later_grant_opens_a_new_interval", [
    fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, until=day(5)),
    fact("e2", day(9), "assert", ALICE, "CAN_ACCESS", T_A, until=day(20)),
    fact("e3", day(12), "retract", ALICE, "CAN_ACCESS", T_A),
])


def test_expiry_closes_and_a_later_grant_opens_a_new_interval(folded):
    _, edges, _ = folded[EXPIRY_CLOSES_AND_A_LATER_GRANT_OPENS_A_NEW_INTERVAL]
    assert intervals(edges, "CAN_ACCESS") == [
        (ALICE, T_A, "", day(0), day(5), "expiry"),
        (ALICE, T_A, "", day(9), day(12), "retract"),
    ]


A_RENEWAL_BEFORE_EXPIRY_EXTENDS_THE_INTERVAL = case("a_renewal_before_expiry_extends_the_interval", [
    fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, until=day(5)),
    fact("e2", day(4), "assert", ALICE, "CAN_ACCESS", T_A, until=day(10)),
])


def test_a_renewal_before_expiry_extends_the_interval(folded):
    _, edges, _ = folded[A_RENEWAL_BEFORE_EXPIRY_EXTENDS_THE_INTERVAL]
    [edge] = [e for e in edges if e["relationship"] == "CAN_ACCESS"]
    assert (edge["valid_from"], edge["valid_to"], edge["closed_by"], edge["event_count"]) == (day(0), day(10), "expiry", 2)


REPEATED_ASSERTS_KEEP_ONE_INTERVAL_AND_COUNT_EVENTS = case("repeated_asserts_keep_one_interval_and_count_events", [
    fact("e1", day(0), "assert", ALICE, "MEMBER_OF", "project:maxcompute:p"),
    fact("e2", day(1), "assert", ALICE, "MEMBER_OF", "project:maxcompute:p"),
    fact("e3", day(2), "retract", ALICE, "MEMBER_OF", "project:maxcompute:p"),
    fact("e4", day(3), "retract", ALICE, "MEMBER_OF", "project:maxcompute:p"),  # closes nothing
    fact("e5", day(4), "assert", ALICE, "MEMBER_OF", "project:maxcompute:p"),
])


def test_repeated_asserts_keep_one_interval_and_count_events(folded):
    _, edges, _ = folded[REPEATED_ASSERTS_KEEP_ONE_INTERVAL_AND_COUNT_EVENTS]
    rows = [e for e in edges if e["relationship"] == "MEMBER_OF"]
    assert [(e["valid_from"], e["valid_to"], e["event_count"], e["last_seen"]) for e in rows] == [
        (day(0), day(2), 3, day(2)),
        (day(4), None, 1, day(4)),
    ]


A_RETRACT_BEFORE_ANY_ASSERT_CREATES_NOTHING = case("a_retract_before_any_assert_creates_nothing", [fact("e1", day(0), "retract", ALICE, "HAS_ROLE", "role:maxcompute:p.r")])


def test_a_retract_before_any_assert_creates_nothing(folded):
    _, edges, _ = folded[A_RETRACT_BEFORE_ANY_ASSERT_CREATES_NOTHING]
    assert edges == []


FAILED_FACTS_CHANGE_NO_STATE = case("failed_facts_change_no_state", [
    fact("e1", day(0), "observe", JOB, "READS", T_A, failed=True),
    fact("e1", day(0), "observe", JOB, "WRITES", T_B, failed=True, seq=1),
    fact("e1", day(0), "observe", T_B, None, None, failed=True, seq=2),
])


def test_failed_facts_change_no_state(folded):
    vertices, edges, changes = folded[FAILED_FACTS_CHANGE_NO_STATE]
    assert edges == [] and vertices == {} and changes == []


WILDCARD_RETRACT_CLOSES_EVERY_EDGE_OF_THAT_RELATIONSHIP = case("wildcard_retract_closes_every_edge_of_that_relationship", [
    fact("e1", day(0), "assert", T_A, "HAS_LABEL", "label:maxcompute:2"),
    fact("e1", day(0), "assert", ALICE, "HAS_LABEL", "label:maxcompute:1", seq=1),
    wildcard("e2", day(1), T_A, "HAS_LABEL", "Label", seq=0),
    fact("e2", day(1), "assert", T_A, "HAS_LABEL", "label:maxcompute:3", seq=1),
])


def test_wildcard_retract_closes_every_edge_of_that_relationship(folded):
    _, edges, _ = folded[WILDCARD_RETRACT_CLOSES_EVERY_EDGE_OF_THAT_RELATIONSHIP]
    assert intervals(edges, "HAS_LABEL") == [
        (T_A, "label:maxcompute:2", "", day(0), day(1), "retract"),
        (T_A, "label:maxcompute:3", "", day(1), None, None),
        (ALICE, "label:maxcompute:1", "", day(0), None, None),  # another src: untouched
    ]


VERTICES_LIFETIME_PROPERTIES_AND_DELETION = case("vertices_lifetime_properties_and_deletion", [
    fact("e1", day(0), "assert", T_A, props={"name": "a", "owner": "x"}),
    fact("e2", day(1), "observe", T_A, props={"owner": "y"}),
    fact("e3", day(2), "change", T_A, "schema_change"),
    fact("e4", day(3), "retract", T_A),
    fact("e5", day(1), "assert", JOB, "READS", T_A),
])


def test_vertices_lifetime_properties_and_deletion(folded):
    vertices, _, changes = folded[VERTICES_LIFETIME_PROPERTIES_AND_DELETION]
    a = vertices[T_A]
    assert (a["label"], a["name"], a["first_seen"], a["last_seen"], a["deleted_at"], a["event_count"]) == (
        "Table", "a", day(0), day(3), day(3), 5)
    assert a["properties"] == {"name": "a", "owner": "y"}
    assert vertices[JOB]["name"] == "j1" and vertices[JOB]["deleted_at"] is None
    assert [(c["entity_id"], c["kind"], c["time"]) for c in changes] == [(T_A, "schema_change", day(2))]


RECREATED_VERTEX_IS_NOT_DELETED = case("recreated_vertex_is_not_deleted", [
    fact("e1", day(0), "assert", T_A), fact("e2", day(1), "retract", T_A), fact("e3", day(2), "assert", T_A),
])


def test_recreated_vertex_is_not_deleted(folded):
    vertices, _, _ = folded[RECREATED_VERTEX_IS_NOT_DELETED]
    assert vertices[T_A]["deleted_at"] is None


FEEDS_DERIVED_FROM_READS_AND_WRITES_OF_ONE_JOB = case("feeds_derived_from_reads_and_writes_of_one_job", [
    fact("e1", day(0), "assert", JOB, "READS", T_A),
    fact("e1", day(0), "assert", JOB, "READS", T_B, seq=1),
    fact("e1", day(0), "assert", JOB, "WRITES", T_C, seq=2),
    fact("e2", day(1), "assert", "job:maxcompute:j2", "READS", T_A),
    fact("e2", day(1), "assert", "job:maxcompute:j2", "WRITES", T_C, seq=1),
    fact("e3", day(2), "assert", "user:aliyun:9", "DOWNLOADED", T_C),  # not a Job/Node: no FEEDS
])


def test_feeds_derived_from_reads_and_writes_of_one_job(folded):
    _, edges, _ = folded[FEEDS_DERIVED_FROM_READS_AND_WRITES_OF_ONE_JOB]
    feeds = [e for e in edges if e["relationship"] == "FEEDS"]
    assert [(e["src"], e["dst"], e["valid_from"], e["valid_to"], e["event_count"]) for e in feeds] == [
        (T_A, T_C, day(0), None, 2),
        (T_B, T_C, day(0), None, 1),
    ]
    # two job runs no node submitted: each named by its own id, and counted as runs
    assert feeds[0]["properties"] == {"via": '["job:maxcompute:j2","job:maxcompute:j1"]', "via_count": "2",
                                      "run_count": "2", "first_run": "job:maxcompute:j1", "last_run": "job:maxcompute:j2"}
    assert (feeds[0]["src_label"], feeds[0]["dst_label"]) == ("Table", "Table")


C_A, C_B = "column:maxcompute:p.a.x", "column:maxcompute:p.b.y"
COLUMN_FEEDS_LIST_EVERY_JOB = case("column_feeds_list_every_job", [
    # two jobs write b.y from a.x on different days; j1 again later: via lists both, most recent first
    fact("e1", day(0), "assert", C_A, "FEEDS", C_B, qualifier="direct",
         props={"via": '["job:maxcompute:j1"]', "transformations": '["IDENTITY"]'}),
    fact("e2", day(1), "assert", C_A, "FEEDS", C_B, qualifier="direct",
         props={"via": '["job:maxcompute:j2"]', "transformations": '["TRANSFORMATION"]'}),
    fact("e3", day(2), "assert", C_A, "FEEDS", C_B, qualifier="direct",
         props={"via": '["job:maxcompute:j1"]', "transformations": '["IDENTITY"]'}),
    fact("e4", day(1), "assert", C_A, "FEEDS", C_B, qualifier="indirect",  # the other qualifier: its own edge
         props={"via": '["job:maxcompute:j2"]', "transformations": '["FILTER"]'}),
])


def test_column_feeds_list_every_job_that_made_them(folded):
    """DESIGN.md: a column FEEDS's ``via`` lists the jobs, as a table FEEDS's does (not the latest
    alone); its ``transformations`` are every subtype seen."""
    _, edges, _ = folded[COLUMN_FEEDS_LIST_EVERY_JOB]
    by_qualifier = {e["qualifier"]: e for e in edges if e["relationship"] == "FEEDS"}
    assert by_qualifier["direct"]["properties"] == {"via": '["job:maxcompute:j1","job:maxcompute:j2"]',
                                                     "transformations": '["IDENTITY","TRANSFORMATION"]'}
    assert by_qualifier["indirect"]["properties"] == {"via": '["job:maxcompute:j2"]', "transformations": '["FILTER"]'}
    assert (by_qualifier["direct"]["valid_from"], by_qualifier["direct"]["event_count"]) == (day(0), 3)


NODE_7 = "node:dataworks:7"
FEEDS_INTERVALS_FOLLOW_THE_READS_AND_WRITES = case("feeds_intervals_follow_the_reads_and_writes", [
    fact("e1", day(0), "assert", NODE_7, "READS", T_A),
    fact("e1", day(0), "assert", NODE_7, "WRITES", T_B, seq=1),
    wildcard("e2", day(4), NODE_7, "READS", "Table"),
])


def test_feeds_intervals_follow_the_reads_and_writes(folded):
    _, edges, _ = folded[FEEDS_INTERVALS_FOLLOW_THE_READS_AND_WRITES]
    feeds = [e for e in edges if e["relationship"] == "FEEDS"]
    assert [(e["src"], e["dst"], e["valid_from"], e["valid_to"]) for e in feeds] == [(T_A, T_B, day(0), day(4))]


ALIASES_MERGE_IDENTITIES = case("aliases_merge_identities", [
    fact("e1", day(0), "assert", "user:maxcompute:aliyun$bob@x.com", "CAN_ACCESS", T_A, qualifier="select"),
    fact("e2", day(1), "assert", "user:datahub:bob", "OWNS", T_A),
    fact("e3", day(2), "retract", BOB, "CAN_ACCESS", T_A, qualifier="select"),
    ],
    aliases={"user:maxcompute:aliyun$bob@x.com": BOB, "user:datahub:bob": BOB},
)


def test_aliases_merge_identities(folded):
    vertices, edges, _ = folded[ALIASES_MERGE_IDENTITIES]
    assert {v for v in vertices if v.startswith("user:")} == {BOB}
    assert intervals(edges, "CAN_ACCESS") == [(BOB, T_A, "select", day(0), day(2), "retract")]
    assert intervals(edges, "OWNS") == [(BOB, T_A, "", day(1), None, None)]


ORDER_ROWS = [
    fact("e1", day(0), "assert", ALICE, "CAN_ACCESS", T_A, until=day(5)),
    fact("e2", day(4), "assert", ALICE, "CAN_ACCESS", T_A, until=day(10)),
    fact("e3", day(6), "retract", ALICE, "CAN_ACCESS", T_A),
    fact("e4", day(6), "assert", T_A, props={"k": "1"}),
    fact("e5", day(6), "observe", T_A, props={"k": "2"}),
    fact("e6", day(1), "assert", JOB, "READS", T_A),
    fact("e6", day(1), "assert", JOB, "WRITES", T_B, seq=1),
]
ORDER = case("order", ORDER_ROWS)


def _shuffled(seed: int) -> list[Fact]:
    import random

    shuffled = ORDER_ROWS + ORDER_ROWS[:3]
    random.Random(seed).shuffle(shuffled)
    return shuffled


SHUFFLED = {seed: case(f"order_shuffled_{seed}", _shuffled(seed)) for seed in (1, 2, 3)}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_order_and_duplicates_do_not_matter(folded, seed):
    expected = folded[ORDER]
    assert folded[SHUFFLED[seed]] == expected


def test_batched_cases_fold_as_they_would_alone(spark, folded):
    """The batching itself is exact: two cases folded alone give what the batch gave them."""
    for name in (WILDCARD_RETRACT_CLOSES_EVERY_EDGE_OF_THAT_RELATIONSHIP, ALIASES_MERGE_IDENTITIES):
        assert fold_all(spark, {name: CASES[name]})[name] == folded[name], name


def test_the_fold_skips_its_shuffle_only_when_no_fact_comes_twice(spark):
    """A fact twice (one event id from two sources, say) is caught by the narrow check and folded
    once; without one, the de-duplication is skipped and the answer is the same (ORDER's rows alone:
    the check's way; with their first fact again from another source: the shuffle's)."""
    import json

    from foldbatch import fold_rows

    from lineage.facts.core import stored
    from lineage.graph import fold
    from lineage.store.schema import FACTS

    def frame(rows):
        return spark.createDataFrame(list(stored(rows, {})), FACTS.ddl)

    twice = ORDER_ROWS + [ORDER_ROWS[0]._replace(source="other")]
    assert fold.unique_facts(frame(ORDER_ROWS)) and not fold.unique_facts(frame(twice))

    def rows(outputs):  # vertices and edges, in any order; a change's source is the kept copy's
        return [sorted(json.dumps(r, sort_keys=True, default=str) for r in out) for out in outputs[:2]], len(outputs[2])

    alone, doubled = rows(fold_rows(spark, ORDER_ROWS, {})), rows(fold_rows(spark, twice, {}))
    assert doubled == alone and alone[0][1]  # edges folded, equal
