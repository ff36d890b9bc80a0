"""What the last event decides: run statuses (failures included), merged people's names, and
every vertex property a mapping table declares (the latest value wins, in any input order).

Every case but one is folded in ONE Spark fold (tests/foldbatch.py); the merged person's name
depends on the text of its ids, so that case is folded alone."""

from __future__ import annotations

import itertools
import json
import random
from datetime import datetime, timedelta, timezone

from foldbatch import Cases, fold_all, fold_one, folded_fixture
from lineage import ids
from lineage.events import registry
from lineage.facts.core import Fact
from lineage.facts.extract import fact_table
from lineage.graph import fold
from lineage.graph.api import utc_row

T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)
JOB = "job:maxcompute:20240701000000001"
INSTANCE = "instance:dataworks:4532688772"
TABLE = "table:maxcompute:p.t"


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def iso(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def report(event, when, vertex, props, *, failed=False, op="observe", seq=0, rel=None, dst=None):
    return Fact(
        event_id=event, source="test", kind="Kind", event_time=when, actor=None, seq=seq,
        op="observe" if failed else op, src_id=vertex, src_label=ids.label_of(vertex), relationship=rel,
        dst_id=dst, dst_label=ids.label_of(dst) if dst else None, qualifier="",
        properties={k: v for k, v in props.items() if v is not None}, valid_until=None, failed=failed,
    )


CASES = Cases()
case = CASES.add
folded = folded_fixture(CASES)


def run(folded, name):
    """(vertices by id, edges) the batch gave case ``name``."""
    vertices, edges, _ = folded[name]
    return vertices, edges


# ---------------------------------------------------------------------------------------------
# run statuses
# ---------------------------------------------------------------------------------------------

SUBMIT = report("e1", at(0), JOB, {"status": "submitted", "sql": "insert into t select * from s"}, op="assert")
FAILED = report("e2", at(5), JOB, {"status": "Failed", "error_code": "ODPS-0130161",
                                    "error_message": "Parse exception - invalid token 'bigstring'"}, failed=True)
FAILED_READ = report("e2", at(5), JOB, {}, failed=True, seq=1, rel="READS", dst=TABLE)


FAILED_JOB = case("failed_job", [SUBMIT, FAILED, FAILED_READ])


def test_a_failed_job_says_it_failed_and_still_asserts_no_lineage(folded):
    vertices, edges = run(folded, FAILED_JOB)
    job = vertices[JOB]
    assert job["properties"]["status"] == "failed"
    assert job["properties"]["error_code"] == "ODPS-0130161"
    assert job["properties"]["error_message"] == "Parse exception - invalid token 'bigstring'"
    assert job["properties"]["status_time"] == iso(at(5)) and job["properties"]["status_changes"] == "2"
    assert job["properties"]["sql"] == "insert into t select * from s"  # the failed report changes nothing else
    assert job["last_seen"] == at(5) and job["event_count"] == 2
    assert edges == [] and TABLE not in vertices  # no lineage from the failed run


RERUN = case("rerun", [report("e3", at(9), JOB, {"status": "Terminated"}), FAILED, SUBMIT])


def test_a_rerun_that_succeeds_clears_the_error_of_the_failed_run(folded):
    vertices, _ = run(folded, RERUN)
    props = vertices[JOB]["properties"]
    assert props["status"] == "Terminated" and props["status_time"] == iso(at(9)) and props["status_changes"] == "3"
    assert "error_code" not in props and "error_message" not in props


ONLY_FAILING = case("only_failing", [FAILED])


def test_a_job_seen_only_failing_is_a_failed_job_vertex(folded):
    vertices, _ = run(folded, ONLY_FAILING)
    assert vertices[JOB]["properties"]["status"] == "failed" and vertices[JOB]["first_seen"] == at(5)


INSTANCE_ROWS = [
    report("i3", at(30), INSTANCE, {"status": "success", "status_code": "6", "finished_at": "x"}),
    report("i1", at(0), INSTANCE, {"status": "running", "status_code": "4"}),
    report("i2", at(20), INSTANCE, {"status": "failure", "status_code": "5"}),
]
OUT_OF_ORDER = case("out_of_order", INSTANCE_ROWS)
# a rerun: the same instance fails again later
FAILS_AGAIN = case("fails_again", [*INSTANCE_ROWS, report("i4", at(40), INSTANCE, {"status": "failure",
                                                                                  "status_code": "5"})])


def test_instance_statuses_out_of_order_the_latest_by_event_time_wins(folded):
    props = run(folded, OUT_OF_ORDER)[0][INSTANCE]["properties"]
    assert (props["status"], props["status_code"], props["status_time"], props["status_changes"]) == (
        "success", "6", iso(at(30)), "3")
    props = run(folded, FAILS_AGAIN)[0][INSTANCE]["properties"]
    assert (props["status"], props["status_code"], props["finished_at"]) == ("failure", "5", "x")


SAME_INSTANT_STAGES = case("same_instant_stages", [
    report("z-running", at(10), INSTANCE, {"status": "running", "status_code": "4"}),
    report("a-success", at(10), INSTANCE, {"status": "success", "status_code": "6"})])
SAME_INSTANT_RANK = case("same_instant_rank", [
    report("b", at(10), INSTANCE, {"status": "mystery"}), report("a", at(10), INSTANCE, {"status": "enigma"})])


def test_reports_at_the_same_instant_are_ordered_by_stage_then_event_id(folded):
    # the later stage, whatever the id
    assert run(folded, SAME_INSTANT_STAGES)[0][INSTANCE]["properties"]["status"] == "success"
    # same rank: the larger event id
    assert run(folded, SAME_INSTANT_RANK)[0][INSTANCE]["properties"]["status"] == "mystery"
    assert fold.STATUS_RANK["failed"] > fold.STATUS_RANK["terminated"] > fold.STATUS_RANK["running"]


JOB_EVENTS = [
    SUBMIT,
    report("e2", at(5), JOB, {"status": "Running"}),
    report("e3", at(5), JOB, {"status": "Terminated"}),  # same instant as Running: the later stage wins
    FAILED._replace(event_id="e4", event_time=at(7)),
    report("e5", at(7), JOB, {"status": "Terminated"}),  # same instant as the failure: failed ranks higher
    report("e0", at(3), JOB, {"status": "Running"}),
]


def _every_order() -> list[str]:
    """Every order of JOB_EVENTS (720, each a case of the batch), each with up to 4 events
    delivered again (drawn with a fixed seed)."""
    draw = random.Random(6)
    return [case(f"order_{n}", [JOB_EVENTS[i] for i in order]
                 + [JOB_EVENTS[draw.randrange(len(JOB_EVENTS))] for _ in range(draw.randint(0, 4))])
            for n, order in enumerate(itertools.permutations(range(len(JOB_EVENTS))))]


EVERY_ORDER = _every_order()


def test_property_any_order_of_a_jobs_status_events_gives_the_same_final_status(folded):
    assert len(EVERY_ORDER) == 720
    for name in EVERY_ORDER:
        props = run(folded, name)[0][JOB]["properties"]
        assert (props["status"], props["status_time"], props["status_changes"], props["error_code"]) == (
            "failed", iso(at(7)), "6", "ODPS-0130161"), [(f.event_id, f.event_time) for f in CASES[name][0]]


# ---------------------------------------------------------------------------------------------
# merged people
# ---------------------------------------------------------------------------------------------

OWNER = "user:aliyun:1912232488744735"
ANALYST = "user:aliyun:1320876710332592"
ALIASES = {
    "user:maxcompute:aliyun$dw_owner@retail.example": OWNER,
    "user:datahub:dw_owner": OWNER,
    "user:maxcompute:ram$analyst@retail.example:sub": ANALYST,
}


def test_a_merged_person_is_named_by_the_most_readable_name_and_keeps_them_all(spark):
    rows = [
        report("u1", at(0), "user:datahub:dw_owner", {}, op="assert", rel="OWNS", dst=TABLE),
        report("u2", at(1), "user:maxcompute:ram$analyst@retail.example:sub", {}, op="assert", rel="CAN_ACCESS",
               dst=TABLE),
        report("u3", at(2), OWNER, {}, op="assert"),
        report("u4", at(3), "user:aliyun:42", {}, op="assert"),  # nobody's alias: unchanged
    ]
    vertices, _, _ = fold_one(spark, rows, ALIASES)  # alone: the name comes from the text of the ids
    owner, analyst = vertices[OWNER], vertices[ANALYST]
    assert owner["name"] == "dw_owner"  # a login name over the account name over the uid
    assert json.loads(owner["properties"]["aliases"]) == [
        "1912232488744735", "aliyun$dw_owner@retail.example", "dw_owner"]
    assert analyst["name"] == "ram$analyst@retail.example:sub"  # the account name over the numeric uid
    assert json.loads(analyst["properties"]["aliases"]) == ["1320876710332592", "ram$analyst@retail.example:sub"]
    assert vertices["user:aliyun:42"]["name"] == "42" and "aliases" not in vertices["user:aliyun:42"]["properties"]
    assert "user:datahub:dw_owner" not in vertices


WITHOUT_ALIASES = case("without_aliases", [report("u3", at(2), OWNER, {}, op="assert")])


def test_without_aliases_names_are_unchanged(folded):
    vertices, _ = run(folded, WITHOUT_ALIASES)
    assert vertices[OWNER]["name"] == "1912232488744735" and vertices[OWNER]["properties"] == {}


# ---------------------------------------------------------------------------------------------
# every vertex property a mapping declares: the last event decides it
# ---------------------------------------------------------------------------------------------


def _declared() -> list[tuple[str, str]]:
    """(label, property) of every vertex fact the mapping tables declare (``Emit.extra``)."""
    found = set()
    for source in registry.SOURCES:
        for emits in fact_table(source).MAPPING.values():
            for emit in emits:
                if emit.op in ("assert", "observe") and emit.rel is None:
                    found.update((emit.src, prop) for prop in emit.extra)
    return sorted(found)


DECLARED = _declared()
_ID_OF = {label: f"{prefix}:test:x" for prefix, label in ids.LABEL_OF_PREFIX.items()}


def test_the_declared_properties_cover_the_runs_and_the_owner_and_deployment_of_nodes():
    assert {("Job", "status"), ("Instance", "status"), ("Node", "owner"), ("Node", "deployed")} <= set(DECLARED)
    assert all(label in _ID_OF for label, _ in DECLARED)


def _declared_rows() -> tuple[list[Fact], dict[str, str]]:
    """Per declared (label, property) pair a vertex with an old value, a new value 1 minute later
    (delivered first) and a later event that does not mention the property; and the value each
    vertex must keep: the new one. Run statuses follow their own rule (the tests above)."""
    rows, expected = [], {}
    for n, (label, prop) in enumerate(DECLARED):
        vertex = f"{_ID_OF[label]}{n}"
        if label in fold.STATUS_LABELS and prop in fold.STATUS_KEYS:
            old, new = {"status": "running", prop: "old"}, {"status": "success", prop: "new"}
        else:
            old, new = {prop: "old"}, {prop: "new"}
        rows += [
            report(f"new-{n}", at(1), vertex, new, op="observe"),
            report(f"old-{n}", at(0), vertex, old, op="assert"),
            report(f"later-{n}", at(2), vertex, {"other": "x"}, op="observe"),
        ]
        expected[vertex] = new[prop]
    return rows, expected


DECLARED_ROWS, DECLARED_EXPECTED = _declared_rows()
EVERY_DECLARED = case("every_declared", DECLARED_ROWS)


def test_the_last_event_decides_every_declared_vertex_property(folded):
    """All declared (label, property) pairs in one case: the last event decides each."""
    expected = DECLARED_EXPECTED
    vertices, _ = run(folded, EVERY_DECLARED)
    got = {vertex: vertices[vertex]["properties"].get(prop) for vertex, (_, prop) in zip(expected, DECLARED)}
    wrong = {f"{label}.{prop}": got[v] for v, (label, prop) in zip(expected, DECLARED) if got[v] != expected[v]}
    assert not wrong, f"properties the last event did not decide: {wrong}"
    assert len(got) == len(DECLARED) > 100


# ---------------------------------------------------------------------------------------------
# single-valued relationships: a node's latest owner and baseline
# ---------------------------------------------------------------------------------------------

NODE = "node:dataworks:700100004"
ALICE, BOB = "user:aliyun:1", "user:aliyun:2"


def _intervals(edges, rel):
    return sorted((e["src"], e["dst"], utc_row(e)["valid_from"], utc_row(e)["valid_to"], e["closed_by"])
                  for e in edges if e["relationship"] == rel)


NEW_OWNER = case("new_owner", [
        report("n3", at(20), ALICE, {}, op="assert", rel="OWNS", dst=NODE),  # back to alice
        report("n2", at(10), BOB, {}, op="assert", rel="OWNS", dst=NODE),
        report("n1", at(0), ALICE, {}, op="assert", rel="OWNS", dst=NODE),
        report("n0", at(5), ALICE, {}, op="assert", rel="OWNS", dst=NODE),  # the same owner again: nothing closes
        # tables keep every owner (DataHub adds and removes owners explicitly)
        report("t1", at(0), ALICE, {}, op="assert", rel="OWNS", dst=TABLE),
        report("t2", at(10), BOB, {}, op="assert", rel="OWNS", dst=TABLE),
])


def test_a_nodes_new_owner_closes_the_previous_owners_edge(folded):
    _, edges = run(folded, NEW_OWNER)
    assert [i for i in _intervals(edges, "OWNS") if i[1] == NODE] == [
        (ALICE, NODE, at(0), at(10), "retract"), (ALICE, NODE, at(20), None, None), (BOB, NODE, at(10), at(20), "retract")]
    assert [i for i in _intervals(edges, "OWNS") if i[1] == TABLE] == [
        (ALICE, TABLE, at(0), None, None), (BOB, TABLE, at(10), None, None)]


OLD_BASELINE, NEW_BASELINE = "baseline:dataworks:1", "baseline:dataworks:2"
MOVED = case("moved", [report("b2", at(10), NODE, {}, op="assert", rel="IN_BASELINE", dst=NEW_BASELINE),
                       report("b1", at(0), NODE, {}, op="assert", rel="IN_BASELINE", dst=OLD_BASELINE)])


def test_a_node_moved_to_another_baseline_leaves_the_old_one(folded):
    old, new = OLD_BASELINE, NEW_BASELINE
    _, edges = run(folded, MOVED)
    assert _intervals(edges, "IN_BASELINE") == [(NODE, old, at(0), at(10), "retract"), (NODE, new, at(10), None, None)]


# ---------------------------------------------------------------------------------------------
# a grant's latest expiry: a MaxCompute label grant is one authorization, a re-grant replaces it
# ---------------------------------------------------------------------------------------------


def _grant(event, when, qualifier, until=None, op="assert"):
    return report(event, when, ALICE, {}, op=op, rel="CAN_ACCESS", dst=TABLE)._replace(
        qualifier=qualifier, valid_until=until)


REGRANT = case("regrant", [
        _grant("g2", at(60), "label", until=at(120)),  # GRANT LABEL 2 ... WITH EXP: ends at 120
        _grant("g1", at(0), "label"),  # GRANT LABEL 2 ... (no expiry)
        _grant("g3", at(200), "label", until=at(400)),  # granted again after it ended
        _grant("g4", at(300), "label", until=at(250)),  # a re-grant with an earlier end: 250 (the latest decides)
        # an ACL privilege is not one authorization: a later approval's expiry never shortens it
        _grant("a1", at(0), "select"),
        _grant("a2", at(60), "select", until=at(120)),
])


def test_a_label_regrant_with_expiry_replaces_a_grant_without_one(folded):
    _, edges = run(folded, REGRANT)
    got = sorted((e["qualifier"], utc_row(e)["valid_from"], utc_row(e)["valid_to"] or at(10**6), e["closed_by"],
                  e["event_count"]) for e in edges if e["relationship"] == "CAN_ACCESS")
    assert got == [
        ("label", at(0), at(120), "expiry", 2),
        ("label", at(200), at(250), "expiry", 2),
        ("select", at(0), at(10**6), None, 2),  # open: the standing grant
    ]
    assert fold.LATEST_EXPIRY == {("CAN_ACCESS", "label")}


def test_batched_cases_fold_as_they_would_alone(spark, folded):
    """The batching itself is exact: cases folded alone give what the batch gave them."""
    for name in (REGRANT, FAILED_JOB, EVERY_ORDER[-1]):
        assert fold_all(spark, {name: CASES[name]})[name] == folded[name], name
