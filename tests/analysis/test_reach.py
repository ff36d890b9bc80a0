"""``reach`` on both engines: hand-checked lineage cases, then generated graphs with cycles.

* Hand-checked (local engine): a changed table reaches the jobs and nodes reading it, what they
  write, instances, DAGs, baselines, owners, principals with access and role members; cycles,
  ``max_depth``, the relationship filter, several sources, unknown sources, the witness tie-break.
* Generated: thousands of small typed graphs (cycles, duplicate intervals, dangling edges,
  relationships that carry no impact) on ``local`` against an oracle written here from the
  definition in ``lineage.analysis.engine`` (networkx all-shortest-paths from a super-source);
  24 of them batched into one Spark graph (ids namespaced per case) on both Spark methods,
  which must give exactly the same affected ids, labels, distances and witness paths.
* Warehouse: ``from_warehouse`` as of a moment (pyarrow, no JVM) agrees with ``api.load`` on
  Spark; ``open_engine`` picks local or spark by the edge count.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import deque
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from lineage.analysis.engine import Affected
from lineage.analysis.engines import open_engine
from lineage.analysis.local import LocalEngine, valid_at
from lineage.analysis.rules import (
    FORWARD,
    IMPACT_RULES,
    RULES_BY_RELATIONSHIP,
    UPSTREAM_RULES,
)

# ---------------------------------------------------------------------------------------------
# hand-checked lineage

SRC, OUT, N_OUT, OTHER = "table:mc:p.src", "table:mc:p.out", "table:mc:p.n_out", "table:mc:p.other"
JOB, NODE, INST, DAG, BASE = "job:mc:j1", "node:dw:n1", "instance:dw:i1", "dag:dw:d1", "baseline:dw:b1"
OWNER, READER, ROLE, MEMBER = "user:aliyun:owner", "user:aliyun:reader", "role:mc:p.analysts", "user:aliyun:member"
TAG, PROJECT = "tag:datahub:pii", "project:mc:p"

LABELS = {
    SRC: "Table", OUT: "Table", N_OUT: "Table", OTHER: "Table", JOB: "Job", NODE: "Node", INST: "Instance",
    DAG: "Dag", BASE: "Baseline", OWNER: "User", READER: "User", ROLE: "Role", MEMBER: "User", TAG: "Tag",
    PROJECT: "Project",
}
LINEAGE = [
    (JOB, "READS", SRC), (JOB, "WRITES", OUT), (SRC, "FEEDS", OUT),  # FEEDS derived from the job
    (NODE, "READS", SRC), (NODE, "WRITES", N_OUT),  # no FEEDS here: n_out is two hops away
    (NODE, "HAS_INSTANCE", INST), (INST, "IN_DAG", DAG), (NODE, "IN_BASELINE", BASE),
    (OWNER, "OWNS", N_OUT), (OWNER, "OWNS", OTHER),  # nothing flows on from a person
    (READER, "CAN_ACCESS", OUT), (ROLE, "CAN_ACCESS", N_OUT), (MEMBER, "HAS_ROLE", ROLE),
    (SRC, "TAGGED", TAG), (SRC, "IN_PROJECT", PROJECT),  # carry no impact
    (JOB, "READS", SRC),  # a second interval of the same edge
    (JOB, "WRITES", "table:mc:p.dropped"),  # its dst is not a vertex (e.g. filtered as of a moment)
]


def lineage(make, edges=LINEAGE, labels=LABELS):
    """The hand-checked graph on the engine ``make`` builds (the ``engine`` fixture, or ``LocalEngine``)."""
    return make(
        [{"id": vid, "label": label} for vid, label in labels.items()],
        [{"src": s, "relationship": r, "dst": d} for s, r, d in edges],
    )


def answer(affected: list[Affected]) -> list[tuple[str, int, tuple[str, ...]]]:
    return [(a.id, a.distance, a.path) for a in affected]


def test_a_changed_table_reaches_readers_their_outputs_owners_and_access_not_past_runs(engine):
    assert answer(lineage(engine).reach([SRC])) == [
        (JOB, 1, (SRC, JOB)),
        (NODE, 1, (SRC, NODE)),
        (OUT, 1, (SRC, OUT)),  # FEEDS: one hop, not through the job
        (BASE, 2, (SRC, NODE, BASE)),
        (N_OUT, 2, (SRC, NODE, N_OUT)),
        (READER, 2, (SRC, OUT, READER)),
        (ROLE, 3, (SRC, NODE, N_OUT, ROLE)),
        (OWNER, 3, (SRC, NODE, N_OUT, OWNER)),
        (MEMBER, 4, (SRC, NODE, N_OUT, ROLE, MEMBER)),
    ]  # not the tag, the project, the owner's other table, nor the source itself; not the node's
    # instance and DAG run: runs that happened before cannot be affected (DESIGN.md)


def test_runs_are_walked_through_and_listed_only_when_asked(engine):
    flow = "flow:dw:f1"
    e = lineage(engine, LINEAGE + [(DAG, "IN_FLOW", flow)], {**LABELS, flow: "Flow"})
    # the workflow is a definition: reached through the node's past run and its DAG run
    assert (flow, 4, (SRC, NODE, INST, DAG, flow)) in answer(e.reach([SRC]))
    assert not {INST, DAG} & {a.id for a in e.reach([SRC])}
    listed = answer(e.reach([SRC], runs=True))
    assert (INST, 2, (SRC, NODE, INST)) in listed and (DAG, 3, (SRC, NODE, INST, DAG)) in listed


def test_labels_come_with_the_answer_and_for_known_ids_only(engine):
    e = lineage(engine)
    assert {a.id: a.label for a in e.reach([SRC])}[MEMBER] == "User"
    assert e.labels([SRC, ROLE, "table:mc:p.nope"]) == {SRC: "Table", ROLE: "Role"}


def test_max_depth_cuts_the_search(engine):
    e = lineage(engine)
    assert [a.id for a in e.reach([SRC], max_depth=1)] == [JOB, NODE, OUT]
    assert {a.id for a in e.reach([SRC], max_depth=3)} == {a.id for a in e.reach([SRC])} - {MEMBER}
    assert e.reach([SRC], max_depth=0) == []
    with pytest.raises(ValueError, match="max_depth"):
        e.reach([SRC], max_depth=-1)


def test_the_relationship_filter_keeps_only_those_rules(engine):
    e = lineage(engine)
    assert answer(e.reach([SRC], relationships={"READS"})) == [(JOB, 1, (SRC, JOB)), (NODE, 1, (SRC, NODE))]
    assert answer(e.reach([SRC], relationships=["READS", "WRITES"])) == [
        (JOB, 1, (SRC, JOB)), (NODE, 1, (SRC, NODE)), (N_OUT, 2, (SRC, NODE, N_OUT)), (OUT, 2, (SRC, JOB, OUT))]
    assert e.reach([SRC], relationships={"TAGGED", "NO_SUCH"}) == []


def test_custom_rules_walk_upstream(engine):
    assert answer(lineage(engine).reach([N_OUT], rules=UPSTREAM_RULES)) == [(NODE, 1, (N_OUT, NODE)), (SRC, 2, (N_OUT, NODE, SRC))]


def test_several_sources_take_the_nearest_and_are_not_listed(engine):
    e = lineage(engine)
    both = e.reach([SRC, N_OUT])
    assert N_OUT not in {a.id for a in both} and SRC not in {a.id for a in both}
    distances = {a.id: a.distance for a in both}
    assert distances[OWNER] == 1 and distances[ROLE] == 1 and distances[MEMBER] == 2 and distances[NODE] == 1
    assert {a.id: a.path for a in both}[MEMBER] == (N_OUT, ROLE, MEMBER)


def test_unknown_sources_are_ignored(engine):
    e = lineage(engine)
    assert e.reach(["table:mc:p.nope", SRC, SRC]) == e.reach([SRC])
    assert e.reach(["table:mc:p.nope"]) == [] and e.reach([]) == []


def test_cycles_end_and_keep_the_shortest_distance(engine):
    t1, t2, t3 = "table:mc:p.t1", "table:mc:p.t2", "table:mc:p.t3"
    e = lineage(engine, [(t1, "FEEDS", t2), (t2, "FEEDS", t1), (t2, "FEEDS", t3), (t3, "FEEDS", t1)],
               {t1: "Table", t2: "Table", t3: "Table"})
    assert answer(e.reach([t1])) == [(t2, 1, (t1, t2)), (t3, 2, (t1, t2, t3))]
    assert answer(e.reach([t1, t2])) == [(t3, 1, (t2, t3))]
    assert answer(e.reach([t3])) == [(t1, 1, (t3, t1)), (t2, 2, (t3, t1, t2))]
    ring = lineage(engine, [("t0", "FEEDS", "t1"), ("t1", "FEEDS", "t2"), ("t2", "FEEDS", "t0")],
                   {f"t{i}": "Table" for i in range(3)})
    assert answer(ring.reach(["t0"])) == [("t1", 1, ("t0", "t1")), ("t2", 2, ("t0", "t1", "t2"))]


def test_the_witness_is_the_smallest_shortest_path(engine):
    # s1 and s2 both reach x in 2 hops, through a or b; the smallest sequence wins from the source end
    labels = {v: "Table" for v in ("s1", "s2", "a", "b", "x", "y")}
    e = lineage(engine, [("s2", "FEEDS", "a"), ("s1", "FEEDS", "b"), ("a", "FEEDS", "x"), ("b", "FEEDS", "x"),
                ("s2", "FEEDS", "y"), ("s1", "FEEDS", "y")], labels)
    paths = {a.id: a.path for a in e.reach(["s2", "s1"])}
    assert paths["x"] == ("s1", "b", "x") and paths["y"] == ("s1", "y") and paths["a"] == ("s2", "a")
    # one source, two middles: the smaller middle
    e = lineage(engine, [("s", "FEEDS", "m2"), ("s", "FEEDS", "m1"), ("m2", "FEEDS", "x"), ("m1", "FEEDS", "x")],
               {v: "Table" for v in ("s", "m1", "m2", "x")})
    assert {a.id: a.path for a in e.reach(["s"])}["x"] == ("s", "m1", "x")


def test_the_networkx_graph_is_exposed_in_the_stored_direction():
    g = lineage(LocalEngine).graph
    assert isinstance(g, nx.MultiDiGraph) and g.nodes[JOB]["label"] == "Job"
    assert len(g.edges[JOB, SRC, "READS"]["intervals"]) == 2  # two rows, one edge
    assert "table:mc:p.dropped" not in g  # edges to ids that are not vertices are left out


# ---------------------------------------------------------------------------------------------
# generated graphs against an oracle

TYPED = {  # relationship -> (src labels, dst labels); None = any
    "FEEDS": (("Table",), ("Table",)), "READS": (("Job", "Node"), ("Table",)), "WRITES": (("Job", "Node"), ("Table",)),
    "HAS_INSTANCE": (("Node",), ("Instance",)), "IN_DAG": (("Instance",), ("Dag",)),
    "IN_BASELINE": (("Node",), ("Baseline",)), "OWNS": (("User",), None), "CAN_ACCESS": (("User", "Role"), ("Table",)),
    "HAS_ROLE": (("User",), ("Role",)), "IN_PROJECT": (None, None), "TAGGED": (None, None),
}
GEN_LABELS = ("Table",) * 4 + ("Job", "Node") * 2 + ("Instance", "Dag", "Baseline", "User", "Role")  # mostly tables
ALL_RELATIONSHIPS = (*RULES_BY_RELATIONSHIP, "IN_PROJECT", "TAGGED", "MEMBER_OF")


def random_case(rng: random.Random, prefix: str = "", size: int = 18) -> dict[str, Any]:
    """A small typed graph with cycles, repeated intervals, dangling edges and self-loops, plus
    the question to ask it (sources, depth, relationship filter, rules)."""
    n = rng.randint(1, size)
    labels = {f"{prefix}{rng.choice('abcdefgh')}{i}": rng.choice(GEN_LABELS) for i in range(n)}
    ids = list(labels)
    by_label: dict[str, list[str]] = {}
    for vid, label in labels.items():
        by_label.setdefault(label, []).append(vid)

    def pick(allowed: tuple[str, ...] | None) -> str:
        pool = [v for label in allowed for v in by_label.get(label, [])] if allowed else ids
        return rng.choice(pool or ids)

    edges = []
    for _ in range(rng.randint(0, 5 * n)):
        if rng.random() < 0.85:
            relationship = rng.choice(list(TYPED))
            src_labels, dst_labels = TYPED[relationship]
            src, dst = pick(src_labels), pick(dst_labels)
        else:  # anything goes: the engines must not depend on labels
            relationship, src, dst = rng.choice(ALL_RELATIONSHIPS), rng.choice(ids), rng.choice(ids)
        edges.append({"src": src, "dst": dst, "relationship": relationship})
        if rng.random() < 0.1:
            edges.append(dict(edges[-1]))  # another validity interval of the same edge
    if rng.random() < 0.2:
        edges.append({"src": rng.choice(ids), "dst": f"{prefix}ghost", "relationship": "FEEDS"})
    sources = rng.sample(ids, rng.randint(1, min(3, n)))
    if rng.random() < 0.2:
        sources.append(f"{prefix}unknown")
    relationships = None if rng.random() < 0.7 else set(rng.sample(ALL_RELATIONSHIPS, rng.randint(1, 6)))
    rules = UPSTREAM_RULES if rng.random() < 0.1 else IMPACT_RULES
    return {"labels": labels, "edges": edges, "sources": sources, "max_depth": rng.choice([None, None, None, 1, 2, 3]),
            "relationships": relationships, "rules": rules}


def oracle(case: dict[str, Any]) -> list[tuple[str, str, int, tuple[str, ...]]]:
    """The definition, brute force: steps as a DiGraph, a super-source joined to every source that
    is a vertex, every shortest path enumerated, the smallest kept."""
    labels, wanted = case["labels"], case["relationships"]
    rules: dict[str, set[str]] = {}
    for rule in case["rules"]:
        if wanted is None or rule.relationship in wanted:
            rules.setdefault(rule.relationship, set()).add(rule.flows)
    g = nx.DiGraph()
    for e in case["edges"]:
        if e["src"] in labels and e["dst"] in labels and e["src"] != e["dst"]:
            for flows in rules.get(e["relationship"], ()):
                g.add_edge(*((e["src"], e["dst"]) if flows == FORWARD else (e["dst"], e["src"])))
    root = ("root",)
    g.add_node(root)
    for source in case["sources"]:
        if source in labels:
            g.add_edge(root, source)
    hops = nx.single_source_shortest_path_length(g, root)
    found = []
    for vid, d in hops.items():
        distance = d - 1
        if distance < 1 or (case["max_depth"] is not None and distance > case["max_depth"]):
            continue
        path = min(tuple(p[1:]) for p in nx.all_shortest_paths(g, root, vid))
        found.append((vid, labels[vid], distance, path))
    return sorted(found, key=lambda row: (row[2], row[0]))


def ask(engine: Any, case: dict[str, Any], **extra: Any) -> list[tuple[str, str, int, tuple[str, ...]]]:
    affected = engine.reach(case["sources"], rules=case["rules"], max_depth=case["max_depth"],
                            relationships=case["relationships"], **extra)
    return [(a.id, a.label, a.distance, a.path) for a in affected]


def local_engine(case: dict[str, Any]) -> LocalEngine:
    return LocalEngine([{"id": v, "label": label} for v, label in case["labels"].items()], case["edges"])


def bfs(case: dict[str, Any]) -> dict[str, int]:
    """A second, independent oracle: plain BFS along the rules, {id: distance} (no paths)."""
    wanted, labels = case["relationships"], case["labels"]
    steps: dict[str, set[str]] = {}
    for e in case["edges"]:
        for rule in case["rules"]:
            if rule.relationship != e["relationship"] or (wanted is not None and rule.relationship not in wanted):
                continue
            if e["src"] == e["dst"] or e["src"] not in labels or e["dst"] not in labels:
                continue
            a, b = (e["src"], e["dst"]) if rule.flows == FORWARD else (e["dst"], e["src"])
            steps.setdefault(a, set()).add(b)
    sources = [s for s in case["sources"] if s in labels]
    distance = {s: 0 for s in sources}
    queue = deque(sources)
    while queue:
        current = queue.popleft()
        if case["max_depth"] is not None and distance[current] >= case["max_depth"]:
            continue
        for nxt in sorted(steps.get(current, ())):
            if nxt not in distance:
                distance[nxt] = distance[current] + 1
                queue.append(nxt)
    return {v: d for v, d in distance.items() if v not in sources}


def check_paths(affected: list[Affected], case: dict[str, Any]) -> None:
    """Every witness path starts at a source, ends at its vertex, has distance + 1 ids, and each
    hop follows an edge in its rule's direction."""
    steps = set()
    for e in case["edges"]:
        for rule in case["rules"]:
            if rule.relationship == e["relationship"]:
                steps.add((e["src"], e["dst"]) if rule.flows == FORWARD else (e["dst"], e["src"]))
    for a in affected:
        assert a.path[0] in case["sources"] and a.path[-1] == a.id and len(a.path) == a.distance + 1
        assert all((x, y) in steps for x, y in zip(a.path, a.path[1:]))


def test_local_engine_matches_the_oracle_on_thousands_of_generated_graphs():
    rng = random.Random(20241122)
    for number in range(3000):
        case = random_case(rng)
        assert ask(local_engine(case), case) == oracle(case), f"case {number}: {case}"
        # (was analysis/test_engines.py) an independent BFS agrees on distances; paths are real walks
        affected = local_engine(case).reach(case["sources"], rules=case["rules"], max_depth=case["max_depth"],
                                            relationships=case["relationships"])
        assert {a.id: a.distance for a in affected} == bfs(case), f"case {number}: {case}"
        check_paths(affected, case)
        assert [(a.distance, a.id) for a in affected] == sorted((a.distance, a.id) for a in affected)


def batch(cases: list[dict[str, Any]], **question: Any) -> dict[str, Any]:
    """Many cases as one graph (their ids are prefixed and disjoint) asking one question."""
    return {
        "labels": {v: label for case in cases for v, label in case["labels"].items()},
        "edges": [e for case in cases for e in case["edges"]],
        "sources": [s for case in cases for s in case["sources"]],
        **question,
    }


@pytest.mark.spark
def test_both_spark_methods_give_exactly_the_local_answers(spark):
    from lineage.analysis.spark import METHODS, SparkEngine

    rng = random.Random(5)
    cases = [random_case(rng, prefix=f"g{i:02d}/", size=40) for i in range(24)]
    questions = [  # each question answers all 24 cases at once
        {"rules": IMPACT_RULES, "max_depth": None, "relationships": None},
        {"rules": IMPACT_RULES, "max_depth": 2, "relationships": {"FEEDS", "READS", "WRITES", "OWNS", "HAS_ROLE"}},
        {"rules": IMPACT_RULES, "max_depth": None, "relationships": {"FEEDS", "WRITES", "HAS_INSTANCE", "IN_DAG"}},
        {"rules": UPSTREAM_RULES, "max_depth": None, "relationships": None},
    ]
    whole = batch(cases, **questions[0])
    vertices = spark.createDataFrame(list(whole["labels"].items()), "id string, label string")
    edges = spark.createDataFrame([(e["src"], e["dst"], e["relationship"]) for e in whole["edges"]],
                                  "src string, dst string, relationship string")
    engine = SparkEngine(vertices, edges)
    for question in questions:
        case = batch(cases, **question)
        expected = ask(local_engine(case), case)
        assert expected == oracle(case) and len(expected) > 20
        for method in METHODS:
            assert ask(engine, case, method=method) == expected, method
    # (was analysis/test_engines.py) depth 2 over every rule, the method chosen when the engine is made
    case = batch(cases, rules=IMPACT_RULES, max_depth=2, relationships=None)
    expected = ask(local_engine(case), case)
    assert expected == oracle(case) and len(expected) > 20
    for method in METHODS:
        assert ask(SparkEngine(vertices, edges, method=method), case) == expected, method
    assert engine.labels(["g00/nope", cases[0]["sources"][0]]) == {
        cases[0]["sources"][0]: cases[0]["labels"][cases[0]["sources"][0]]}


# ---------------------------------------------------------------------------------------------
# from a warehouse, as of a moment

def day(n: int) -> datetime:
    return datetime(2024, 7, n, tzinfo=timezone.utc)


def write_graph(warehouse: Path, zone: str | None = "UTC") -> None:
    """A built graph's parquet (the columns ``lineage build`` writes), timestamps UTC-adjusted as
    Spark writes them (or naive, as other writers may)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    ts = pa.timestamp("us", tz=zone)
    props = pa.map_(pa.string(), pa.string())
    vertices = [  # id, label, first_seen, deleted_at
        (SRC, "Table", day(1), None), (JOB, "Job", day(1), None), (OUT, "Table", day(1), None),
        (N_OUT, "Table", day(1), day(10)),  # dropped on day 10
        (NODE, "Node", day(5), None),  # first seen on day 5
        (OWNER, "User", day(1), None),
    ]
    edges = [  # src, relationship, dst, valid_from, valid_to
        (JOB, "READS", SRC, day(1), day(8)), (JOB, "READS", SRC, day(12), None),  # gap: days 8..12
        (JOB, "WRITES", OUT, day(1), None), (NODE, "READS", SRC, day(5), None),
        (NODE, "WRITES", N_OUT, day(5), None), (OWNER, "OWNS", N_OUT, day(1), None),
        (OWNER, "OWNS", OUT, day(15), None),
    ]

    def stamp(value: datetime | None) -> datetime | None:
        return value if value is None or zone else value.replace(tzinfo=None)

    v = pa.table({
        "id": [r[0] for r in vertices], "label": [r[1] for r in vertices], "name": [r[0].split(":")[-1] for r in vertices],
        "first_seen": pa.array([stamp(r[2]) for r in vertices], ts), "last_seen": pa.array([stamp(r[2]) for r in vertices], ts),
        "deleted_at": pa.array([stamp(r[3]) for r in vertices], ts), "event_count": pa.array([1] * len(vertices), pa.int64()),
        "properties": pa.array([[] for _ in vertices], props),
    })
    e = pa.table({
        "src": [r[0] for r in edges], "dst": [r[2] for r in edges], "relationship": [r[1] for r in edges],
        "qualifier": [""] * len(edges), "src_label": pa.array([None] * len(edges), pa.string()),
        "dst_label": pa.array([None] * len(edges), pa.string()),
        "valid_from": pa.array([stamp(r[3]) for r in edges], ts), "valid_to": pa.array([stamp(r[4]) for r in edges], ts),
        "last_seen": pa.array([stamp(r[3]) for r in edges], ts), "event_count": pa.array([1] * len(edges), pa.int64()),
        "closed_by": pa.array([None] * len(edges), pa.string()), "properties": pa.array([[] for _ in edges], props),
    })
    for name, table in (("vertices", v), ("edges", e)):
        (warehouse / "graph" / name).mkdir(parents=True)
        pq.write_table(table, warehouse / "graph" / name / "part-00000.parquet")
        (warehouse / "graph" / name / "_SUCCESS").write_text("")


AS_OF = {  # moment -> what SRC reaches then
    None: {JOB: 1, NODE: 1, OUT: 2, N_OUT: 2, OWNER: 3},  # all history: every interval counts
    "2024-07-03": {JOB: 1, OUT: 2},  # the node does not exist yet
    "2024-07-06T00:00:00Z": {JOB: 1, NODE: 1, OUT: 2, N_OUT: 2, OWNER: 3},
    "2024-07-09": {NODE: 1, N_OUT: 2, OWNER: 3},  # the job stopped reading on day 8
    "2024-07-11": {NODE: 1},  # n_out dropped: neither reached nor walked through
    "2024-07-16": {JOB: 1, NODE: 1, OUT: 2, OWNER: 3},  # reads again; owner reached through out
}


@pytest.mark.parametrize("zone", ["UTC", None])
def test_local_from_warehouse_applies_the_as_of_filter(tmp_path, zone):
    write_graph(tmp_path, zone)
    for moment, expected in AS_OF.items():
        reached = LocalEngine.from_warehouse(tmp_path, as_of=moment).reach([SRC])
        assert {a.id: a.distance for a in reached} == expected, moment


def test_the_local_engine_needs_no_jvm(tmp_path):
    write_graph(tmp_path)
    script = (
        "import sys\n"
        "from lineage.analysis.engines import open_engine\n"
        f"e = open_engine({str(tmp_path)!r}, engine='auto', as_of='2024-07-06')\n"
        f"print(e.name, len(e.reach([{SRC!r}])), 'pyspark' in sys.modules, 'py4j' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["local", "5", "False", "False"]


def test_valid_at_is_the_api_rule_on_arrow_tables():
    import pyarrow as pa

    t = pa.table({"a": pa.array([None, day(1), day(5), day(1)], pa.timestamp("us", tz="UTC")),
                  "b": pa.array([None, day(5), None, day(3)], pa.timestamp("us", tz="UTC")), "k": [0, 1, 2, 3]})
    assert valid_at(t, "a", "b", day(3)).column("k").to_pylist() == [0, 1]  # [from, to): to is excluded
    assert valid_at(t, "a", "b", day(5)).column("k").to_pylist() == [0, 2]  # from is included
    assert valid_at(t, "missing", "b", day(4)).column("k").to_pylist() == [0, 1, 2]


def test_open_engine_auto_is_local_for_small_graphs_and_rejects_unknown_names(tmp_path, monkeypatch):
    write_graph(tmp_path)
    monkeypatch.delenv("LINEAGE_LOCAL_MAX_EDGES", raising=False)
    assert open_engine(tmp_path).name == "local"
    with pytest.raises(ValueError, match="unknown engine 'neo4j'.*auto, local, spark"):
        open_engine(tmp_path, engine="neo4j")
    monkeypatch.setenv("LINEAGE_LOCAL_MAX_EDGES", "many")
    with pytest.raises(ValueError, match="LINEAGE_LOCAL_MAX_EDGES"):
        open_engine(tmp_path)


@pytest.mark.spark
def test_spark_from_warehouse_agrees_as_of_and_auto_stays_local_for_given_ids(spark, tmp_path, monkeypatch):
    from lineage.analysis.spark import SparkEngine

    write_graph(tmp_path)
    monkeypatch.setenv("LINEAGE_LOCAL_MAX_EDGES", "6")  # the graph has 7 edge rows: no longer decides alone
    assert open_engine(tmp_path, as_of="2024-07-11", spark=spark).name == "local"  # a question about one id
    chosen = open_engine(tmp_path, engine="spark", as_of="2024-07-11", spark=spark)
    assert isinstance(chosen, SparkEngine) and chosen.name == "spark"
    assert {a.id: a.distance for a in chosen.reach([SRC])} == AS_OF["2024-07-11"]
    for moment in ("2024-07-09", "2024-07-16"):
        on_spark = SparkEngine.from_warehouse(tmp_path, spark, as_of=moment).reach([SRC])
        assert on_spark == LocalEngine.from_warehouse(tmp_path, as_of=moment).reach([SRC])


@pytest.mark.spark
def test_the_spark_engine_starts_in_a_fresh_process(tmp_path):
    """``impact --engine spark`` as a user runs it, in a process with no Spark yet: GraphFrames'
    Python package comes with the session (it once was imported before the session started and
    every such command failed with ``No module named 'graphframes'``; in-process tests hid it)."""
    write_graph(tmp_path)
    command = [sys.executable, "-m", "lineage", "impact", SRC, "--warehouse", str(tmp_path), "--as-of", "2024-07-06",
               "--json"]
    spark_run = subprocess.run([*command, "--engine", "spark"], capture_output=True, text=True, timeout=600)
    assert spark_run.returncode == 0, spark_run.stderr[-2000:]
    local_run = subprocess.run([*command, "--engine", "local"], capture_output=True, text=True, check=True, timeout=600)
    assert json.loads(spark_run.stdout) == json.loads(local_run.stdout) and json.loads(local_run.stdout)["affected"]
