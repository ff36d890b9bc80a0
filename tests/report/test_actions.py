"""The one thing to do, per person (``lineage.report.actions``), on the report's own model objects:
the first rule that applies wins, people are ordered by how much they have to act on, and a person
whose only news is their own access still gets a digest."""

from __future__ import annotations

from lineage.report.actions import Value, parts_of, with_digests
from lineage.report.model import Access, Change, FailedRun, Grant, Person

NAMES = {"node:dataworks:1": "load_orders", "table:maxcompute:p.t": "p.t", "table:maxcompute:p.u": "p.u"}


def name(vertex: str) -> str:
    return NAMES.get(vertex, vertex.split(":")[-1])


def row(change_id: str, rank: int, kind: str, effect: str, *, actor: str = "user:aliyun:9", columns=(),
        failed=()) -> Change:
    return Change(rank=rank, change_id=change_id, entity_id="table:maxcompute:p.t", entity_label="Table",
                  entity_name="p.t", kind=kind, effect=effect, time="2024-07-10T10:00:00+00:00", actor=actor,
                  actor_name="ops", score=1.0, high_impact=False, affected_count=1, summary={}, top_assets=[],
                  owners=[], readers=[], columns=list(columns), column_change="removed" if columns else None,
                  failed_after=[FailedRun(id=f"job:maxcompute:{n}", label="Job", definition="node:dataworks:1",
                                          definition_name="load_orders", time=f"2024-07-1{n}T00:00:00+00:00",
                                          error="column w cannot be resolved") for n in failed])


def grant(principal: str, target: str) -> Grant:
    return Grant(principal=principal, principal_name=name(principal), target=target, target_name=name(target),
                 privileges=["select"], kind="direct", at="2024-07-09T00:00:00+00:00")


ROWS = [row("drop-w", 1, "field_removal", "breaks", columns=["w"], failed=(3, 1)),
        row("grant", 2, "permission_change", "exposes")]
ACCESS = Access(opened=[grant("user:aliyun:3", "table:maxcompute:p.u")], revoked=[grant("user:aliyun:4", "table:maxcompute:p.t")],
                expired=[], newly_sensitive_readers=[], sensitive_readers_start=0, sensitive_readers_end=0,
                exposures_end=[], open_on_dropped=[])


def person(pid: str, *changes: str) -> Person:
    return Person(id=pid, name=name(pid), reasons=["owner"], changes=list(changes), assets=[])


def test_a_failure_of_theirs_comes_first_then_a_break_of_what_they_own_then_what_they_read():
    reach = {
        "user:aliyun:1": {"drop-w": {"owner": {"node:dataworks:1"}}},  # owns the failing node
        "user:aliyun:2": {"drop-w": {"reader": {"table:maxcompute:p.t"}}, "grant": {"owner": {"table:maxcompute:p.t"}}},
    }
    people = with_digests([person("user:aliyun:1", "drop-w"), person("user:aliyun:2", "drop-w", "grant")], reach,
                          ROWS, ACCESS, name)
    first = people[0]
    assert first.id == "user:aliyun:1"
    assert first.digest.action == ("Fix load_orders: it has failed since 2024-07-11T00:00 after field_removal of p.t "
                                   "(column w removed) by ops: column w cannot be resolved")
    assert [f.id for f in first.digest.failed] == ["job:maxcompute:1"]  # the streak's first run only
    reader = next(p for p in people if p.id == "user:aliyun:2")
    assert reader.digest.action == "Check what you read from p.t after field_removal of p.t (column w removed) by ops"
    assert [c.effect for c in reader.digest.concerns] == ["breaks", "exposes"]  # breaks before exposures


def test_access_alone_is_a_digest_and_people_are_ordered_by_what_they_must_do():
    people = with_digests([], {}, ROWS, ACCESS, name)
    assert [(p.id, p.reasons) for p in people] == [("user:aliyun:4", ["access"]), ("user:aliyun:3", ["access"])]
    lost, gained = (p.digest for p in people)
    assert lost.action == "Confirm you no longer need p.t (select, 2024-07-09)" and lost.weight > gained.weight
    assert gained.action == "Review your new access to p.u (select, 2024-07-09)"


def test_their_own_change_comes_after_others():
    mine = row("mine", 1, "drop", "breaks", actor="user:aliyun:5")
    theirs = row("theirs", 2, "field_removal", "breaks", columns=["w"])
    reach = {"user:aliyun:5": {c: {"owner": {"table:maxcompute:p.t"}} for c in ("mine", "theirs")}}
    digest = with_digests([person("user:aliyun:5", "mine", "theirs")], reach, [mine, theirs], ACCESS, name)[0].digest
    assert [c.change_id for c in digest.concerns] == ["theirs", "mine"] and digest.concerns[1].by_them
    assert digest.action.startswith("Check p.t against field_removal of p.t")


def test_the_action_keeps_its_words_apart_from_event_text():
    said = parts_of(["Fix ", Value("a_`b`"), ": since ", Value("x"), Value("y"), " after"])
    assert said == ["Fix ", "a_`b`", ": since ", "xy", " after"]
    assert parts_of([Value("first")]) == ["", "first"]
