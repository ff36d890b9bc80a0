"""Both engines answer reach identically: generated lineage-shaped graphs with cycles.

Thousands of cases on ``local`` against an independent BFS written here; a few dozen cases
(batched into one Spark job by namespacing their ids) on ``spark``, both methods, against
``local`` — same affected sets, distances and witness paths.
"""

from __future__ import annotations

import random
from collections import deque

import pytest

from lineage.analysis.local import LocalEngine
from lineage.analysis.rules import FORWARD, RULES_BY_RELATIONSHIP

LABELS = ("Table", "Job", "Node", "Instance", "Dag", "Baseline", "User", "Role")
RELATIONSHIPS = (*RULES_BY_RELATIONSHIP, "IN_PROJECT", "TAGGED")  # two that carry no impact


def random_graph(rng: random.Random, prefix: str = ""):
    n = rng.randint(2, 14)
    vertices = [{"id": f"{prefix}v{i}", "label": rng.choice(LABELS)} for i in range(n)]
    edges = []
    for _ in range(rng.randint(1, 3 * n)):
        a, b = rng.sample(range(n), 2) if n > 1 else (0, 0)
        edges.append({"src": f"{prefix}v{a}", "dst": f"{prefix}v{b}", "relationship": rng.choice(RELATIONSHIPS)})
    sources = [f"{prefix}v{i}" for i in rng.sample(range(n), rng.randint(1, min(3, n)))]
    depth = rng.choice([None, None, 1, 2, 3])
    return vertices, edges, sources, depth


def oracle(edges, sources, depth):
    """Plain BFS along the rules: {id: distance}."""
    steps: dict[str, set[str]] = {}
    for e in edges:
        rule = RULES_BY_RELATIONSHIP.get(e["relationship"])
        if rule is None or e["src"] == e["dst"]:
            continue
        a, b = (e["src"], e["dst"]) if rule.flows == FORWARD else (e["dst"], e["src"])
        steps.setdefault(a, set()).add(b)
    distance = {s: 0 for s in sources}
    queue = deque(sources)
    while queue:
        current = queue.popleft()
        if depth is not None and distance[current] >= depth:
            continue
        for nxt in sorted(steps.get(current, ())):
            if nxt not in distance:
                distance[nxt] = distance[current] + 1
                queue.append(nxt)
    return {v: d for v, d in distance.items() if v not in sources}


def check_paths(affected, edges, sources):
    steps = set()
    for e in edges:
        rule = RULES_BY_RELATIONSHIP.get(e["relationship"])
        if rule:
            steps.add((e["src"], e["dst"]) if rule.flows == FORWARD else (e["dst"], e["src"]))
    for a in affected:
        assert a.path[0] in sources and a.path[-1] == a.id and len(a.path) == a.distance + 1
        assert all((x, y) in steps for x, y in zip(a.path, a.path[1:]))


def test_local_engine_agrees_with_an_independent_bfs_on_thousands_of_graphs():
    rng = random.Random(20241122)
    for _ in range(3000):
        vertices, edges, sources, depth = random_graph(rng)
        affected = LocalEngine(vertices, edges).reach(sources, max_depth=depth)
        assert {a.id: a.distance for a in affected} == oracle(edges, sources, depth)
        check_paths(affected, edges, sources)
        assert [(a.distance, a.id) for a in affected] == sorted((a.distance, a.id) for a in affected)


def test_cycles_terminate_and_keep_the_shortest_distance():
    vertices = [{"id": f"t{i}", "label": "Table"} for i in range(3)]
    edges = [{"src": "t0", "dst": "t1", "relationship": "FEEDS"}, {"src": "t1", "dst": "t2", "relationship": "FEEDS"},
             {"src": "t2", "dst": "t0", "relationship": "FEEDS"}]
    assert [(a.id, a.distance, a.path) for a in LocalEngine(vertices, edges).reach(["t0"])] == [
        ("t1", 1, ("t0", "t1")), ("t2", 2, ("t0", "t1", "t2"))]


@pytest.mark.spark
@pytest.mark.parametrize("method", ["frontier", "messages"])
def test_spark_engine_gives_the_local_answers(spark, method):
    from lineage.analysis.spark import SparkEngine

    rng = random.Random(7)
    cases = [random_graph(rng, prefix=f"g{i}_") for i in range(24)]
    vertices = [v for case in cases for v in case[0]]
    edges = [e for case in cases for e in case[1]]
    v_df = spark.createDataFrame([(v["id"], v["label"]) for v in vertices], "id string, label string")
    e_df = spark.createDataFrame([(e["src"], e["dst"], e["relationship"]) for e in edges],
                                 "src string, dst string, relationship string")
    engine = SparkEngine(v_df, e_df, method=method)
    for depth in (None, 2):  # ids are namespaced per case, so one reach answers all 24 cases
        sources = [s for case in cases for s in case[2]]
        spark_answer = engine.reach(sources, max_depth=depth)
        local_answer = LocalEngine(vertices, edges).reach(sources, max_depth=depth)
        assert [(a.id, a.label, a.distance, a.path) for a in spark_answer] == [
            (a.id, a.label, a.distance, a.path) for a in local_answer]
