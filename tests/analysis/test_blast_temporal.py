"""The one-traversal blast radius equals the per-instant answer (today's design, the oracle in
``per_instant.py``) on randomized temporal graphs: grants opened, revoked and re-opened,
vertices deleted and re-created (also as several rows of one id), edges to ids that are not
vertices, many changes at the same instant and changes without a time; local on hundreds of
warehouses, Spark on a batch of them (ids namespaced per case, so one traversal answers all).
Also the as-of rule's forms (plain values, numpy, Arrow, Spark) agree on random intervals.
"""

from __future__ import annotations

import random
from fractions import Fraction
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from export.graphgen import write_graph
from analysis.per_instant import per_instant_blast

from lineage.analysis import api
from lineage.analysis.blast import KIND_FACTOR, blast_radius, blast_stream, score
from lineage.analysis.exact import exact_sum, exact_sums
from lineage.analysis.engine import Affected
from lineage.analysis.rules import RULES_BY_RELATIONSHIP
from lineage.analysis.temporal import TemporalGraph
from lineage.graph.api import change_rows

T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)
TYPED = {  # relationship -> (src labels, dst labels)
    "FEEDS": ("Table", "Table"), "READS": ("Job", "Table"), "WRITES": ("Job", "Table"),
    "HAS_INSTANCE": ("Node", "Instance"), "IN_DAG": ("Instance", "Dag"), "IN_BASELINE": ("Node", "Baseline"),
    "OWNS": ("User", None), "CAN_ACCESS": ("User", "Table"), "HAS_ROLE": ("User", "Role"), "TAGGED": (None, None),
}
LABELS = ("Table",) * 4 + ("Job", "Node", "Instance", "Dag", "Baseline", "User", "User", "Role")
KINDS = tuple(KIND_FACTOR)  # breaks: the walk the oracle answers (other effects: test_effects.py)


def at(rng: random.Random, hours: int = 12) -> datetime:
    """Few distinct instants, so changes and interval ends coincide often."""
    return T0 + timedelta(hours=rng.randint(0, hours))


def interval(rng: random.Random, opened: int = 8, closed: float = 0.35) -> tuple[datetime | None, datetime | None]:
    start = None if rng.random() < 0.15 else at(rng, opened)
    end = None if rng.random() > closed else at(rng)
    if start and end and end < start:
        start, end = end, start
    return start, end


def temporal_case(rng: random.Random, prefix: str = "", size: int = 18) -> dict[str, list[dict[str, Any]]]:
    n = rng.randint(1, size)
    labels = {f"{prefix}{rng.choice('abcdef')}{i}": rng.choice(LABELS) for i in range(n)}
    ids = list(labels)
    vertices = []
    for vid, label in labels.items():
        first, deleted = interval(rng, opened=4, closed=0.25)
        vertices.append({"id": vid, "label": label, "first_seen": first, "deleted_at": deleted})
        if deleted and rng.random() < 0.3:  # deleted, then re-created: another row of the same id
            again = deleted + timedelta(hours=rng.randint(0, 3))
            relabel = label if rng.random() < 0.8 else rng.choice(LABELS)
            vertices.append({"id": vid, "label": relabel, "first_seen": again, "deleted_at": None})
    by_label: dict[str, list[str]] = {}
    for vid, label in labels.items():
        by_label.setdefault(label, []).append(vid)

    def pick(label: str | None) -> str:
        return rng.choice(by_label.get(label, ids) if label else ids)

    edges = []
    for _ in range(rng.randint(n, 6 * n)):
        if rng.random() < 0.85:
            relationship = rng.choice(list(TYPED))
            src, dst = pick(TYPED[relationship][0]), pick(TYPED[relationship][1])
        else:
            relationship, src, dst = rng.choice([*RULES_BY_RELATIONSHIP, "IN_PROJECT"]), rng.choice(ids), rng.choice(ids)
        for _ in range(rng.choice([1, 1, 1, 2, 3])):  # a grant opened, revoked, opened again
            start, end = interval(rng)
            edges.append({"src": src, "dst": dst, "relationship": relationship, "qualifier": "",
                          "valid_from": start, "valid_to": end})
    if rng.random() < 0.2:
        edges.append({"src": rng.choice(ids), "dst": f"{prefix}ghost", "relationship": "FEEDS", "qualifier": ""})
    changes = []
    for c in range(rng.randint(1, 12)):
        entity = rng.choice(ids) if rng.random() < 0.9 else f"{prefix}unknown"
        time = None if rng.random() < 0.08 else at(rng, 14)
        changes.append({"change_id": f"{prefix}c{c:02d}", "entity_id": entity, "entity_label": labels.get(entity, "Table"),
                        "kind": rng.choice(KINDS), "time": time, "actor": None, "event_id": f"{prefix}e{c}"})
    return {"vertices": vertices, "edges": edges, "changes": changes}


def answers(ranked) -> list[dict[str, Any]]:
    return [r.to_json() for r in ranked]


def written(tmp_path: Path, case: dict[str, list[dict[str, Any]]], name: str) -> Path:
    return write_graph(tmp_path / name, case["vertices"], case["edges"], case["changes"])


def test_one_local_traversal_equals_the_per_instant_answer_on_hundreds_of_temporal_graphs(tmp_path):
    rng = random.Random(20261123)
    reached = same_instant = 0
    for number in range(250):
        warehouse = written(tmp_path, temporal_case(rng), f"w{number}")
        changes = change_rows(warehouse)
        depth = rng.choice([None, None, None, 1, 2])
        expected = answers(per_instant_blast(warehouse, changes, max_depth=depth))
        assert answers(blast_radius(changes, TemporalGraph.from_warehouse(warehouse), max_depth=depth)) == expected, number
        assert answers(api.blast(warehouse, engine="local", max_depth=depth)) == expected, number
        reached += sum(r["affected_count"] for r in expected)
        same_instant += len(changes) - len({c["time"] for c in changes})
    assert reached > 2500 and same_instant > 300  # the cases are not trivial


def test_the_affected_limit_keeps_counts_summaries_scores_and_the_first_vertices(tmp_path):
    rng = random.Random(7)
    for attempt in range(50):
        warehouse = written(tmp_path, temporal_case(rng, size=40), f"w{attempt}")
        full = api.blast(warehouse, engine="local")
        if sum(r.count > 3 for r in full) > 2:
            break
    assert sum(r.count > 3 for r in full) > 2
    limited = api.blast(warehouse, engine="local", affected=3)
    for whole, cut in zip(full, limited):
        assert (cut.change_id, cut.score, cut.summary, cut.count) == (whole.change_id, whole.score, whole.summary, whole.count)
        assert cut.count == len(whole.affected) and cut.affected == whole.affected[:3]
    streamed = list(api.blast_all(warehouse, engine="local"))
    assert answers(streamed) == answers(full)
    assert answers(blast_stream(change_rows(warehouse), TemporalGraph.from_warehouse(warehouse))) == answers(full)


def test_the_score_is_the_exact_sum_whatever_the_order():
    affected = [Affected(f"v{i}", label, d, ("s",) * d + (f"v{i}",))
                for i, (label, d) in enumerate([("Table", 1), ("Instance", 3), ("Dag", 3), ("User", 7), ("Job", 2)] * 40)]
    forward = score("drop", affected)
    assert forward == score("drop", list(reversed(affected))) == round(2.0 * 40 * (3 + 0.25 / 3 * 2 + 1 / 7 + 0.25), 3)
    assert exact_sum([(0.1, 3), (0.2, 1 << 40)]) == float(Fraction(0.1) * 3 + Fraction(0.2) * (1 << 40))
    rng = random.Random(2)
    groups = [[(rng.choice([5.0, 3.0, 0.5, 0.25]) / rng.randint(1, 9), rng.randint(1, 1 << rng.choice([3, 30, 60])))
               for _ in range(rng.randint(0, 20))] for _ in range(200)]
    bounds = [0]
    for group in groups:
        bounds.append(bounds[-1] + len(group))
    flat = [t for group in groups for t in group]
    sums = exact_sums(np.array([t for t, _ in flat]), np.array([c for _, c in flat], dtype=np.int64), bounds)
    assert sums == [exact_sum(group) for group in groups] == [
        float(sum((Fraction(t) * c for t, c in group), Fraction(0))) for group in groups]


@pytest.mark.spark
def test_one_spark_traversal_equals_the_per_instant_answer(spark, tmp_path):
    from lineage.analysis.spark_temporal import SparkTraversal

    rng = random.Random(11)
    cases = [temporal_case(rng, prefix=f"g{i:02d}/", size=16) for i in range(12)]
    whole = {key: [row for case in cases for row in case[key]] for key in ("vertices", "edges", "changes")}
    warehouse = written(tmp_path, whole, "batch")
    changes = change_rows(warehouse)
    traversal = SparkTraversal.from_warehouse(warehouse, spark)
    for depth, limit in ((None, None), (2, 2)):
        expected = per_instant_blast(warehouse, changes, max_depth=depth)
        assert sum(r.count for r in expected) > 50 and len({c["time"] for c in changes}) < len(changes)
        got = blast_radius(changes, traversal, max_depth=depth, affected_limit=limit)
        if limit is not None:
            expected = [type(r)(**{**r.__dict__, "affected": r.affected[:limit]}) for r in expected]
        assert answers(got) == answers(expected), depth
    # api.blast(engine="spark") and the streamed --full on Spark: tests/test_cli_analysis.py
