"""The operations section on a hand-built graph: which node a failed run belongs to, and which
change it is marked "after": the change whose ``failed_after`` (lineage.analysis.runs) lists it,
the latest when several do (at one instant, the highest change id); a change that merely reaches
its node, without the run as its evidence, is not blamed."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from lineage.analysis.blast import ChangeImpact
from lineage.analysis.engine import Affected
from lineage.report.context import Context
from lineage.report.operations import operations
from lineage.report.window import Window


def t(day: int, hour: int = 0) -> datetime:
    return datetime(2024, 7, day, hour, tzinfo=timezone.utc)


WINDOW = Window("2024-W27", t(1), t(8))


def vertex(id_: str, label: str, **props: str) -> dict:
    return {"id": id_, "label": label, "name": None, "last_seen": t(7), "properties": props}


def edge(src: str, dst: str, relationship: str) -> dict:
    return {"src": src, "dst": dst, "relationship": relationship, "valid_from": t(1), "valid_to": None}


def change(change_id: str, at: datetime, *reached: str, evidence: tuple[str, ...] = ()) -> ChangeImpact:
    return ChangeImpact(change_id=change_id, entity_id="table:maxcompute:p.t", entity_label="Table", kind="schema_change",
                        time=at, actor=None, event_id=change_id, score=1.0, summary={}, count=len(reached),
                        affected=tuple(Affected(v, "Node", 1, ("table:maxcompute:p.t", v)) for v in reached),
                        failed_after=tuple({"id": run, "label": "Instance", "time": None} for run in evidence))


CTX = Context(Path("."), [
    vertex("node:dataworks:1", "Node"), vertex("node:dataworks:2", "Node"), vertex("node:dataworks:3", "Node"),
    vertex("instance:dataworks:10", "Instance", status="FAILURE", finished_at="2024-07-03T12:00:00Z"),
    vertex("instance:dataworks:11", "Instance", status="SUCCESS", finished_at="2024-07-03T12:00:00Z"),
    vertex("job:maxcompute:j1", "Job", status="failed", skynet_id="3", end_time="2024-07-04T00:00:00Z"),
    vertex("job:maxcompute:j2", "Job", status="failed", end_time="2024-06-20T00:00:00Z"),  # before the window
], [
    edge("node:dataworks:2", "instance:dataworks:10", "HAS_INSTANCE"),
    edge("node:dataworks:1", "instance:dataworks:10", "HAS_INSTANCE"),  # two nodes: the first by id
    edge("node:dataworks:1", "instance:dataworks:11", "HAS_INSTANCE"),
])


def test_failed_runs_their_nodes_and_the_change_they_follow():
    ranked = [
        change("c-early", t(2), "node:dataworks:1", evidence=("instance:dataworks:10",)),
        change("c-a", t(3), "node:dataworks:1", evidence=("instance:dataworks:10",)),  # the latest, with c-b
        change("c-b", t(3), "node:dataworks:1", evidence=("instance:dataworks:10",)),  # same instant, higher id: c-b
        change("c-reaches", t(3, 6), "node:dataworks:1", "node:dataworks:3"),  # reaches both nodes, no evidence
        change("c-job", t(3, 23), "node:dataworks:3", evidence=("job:maxcompute:j1",)),
    ]
    result = operations(CTX, WINDOW, ranked)
    assert [(f.id, f.node, f.after_change) for f in result.failures] == [
        ("instance:dataworks:10", "node:dataworks:1", "c-b"),
        ("job:maxcompute:j1", "node:dataworks:3", "c-job"),
    ]


def test_a_failure_before_every_change_follows_none():
    result = operations(CTX, WINDOW, [change("c-late", t(6), "instance:dataworks:10", "node:dataworks:3")])
    assert [(f.id, f.after_change) for f in result.failures] == [
        ("instance:dataworks:10", None), ("job:maxcompute:j1", None)]
