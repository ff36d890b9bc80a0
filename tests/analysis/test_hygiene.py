"""`lineage hygiene` (issue 33): unused tables, cycles, islands and importance, the same on both
engines: networkx (local) and GraphFrames' connectedComponents, stronglyConnectedComponents and
pageRank (spark), on a hand-made warehouse with known answers and on a generated platform."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from lineage.analysis.api import hygiene
from lineage.analysis.hygiene import SCORE_TOLERANCE

T = datetime(2024, 7, 31, tzinfo=timezone.utc)
DAY = timedelta(days=1)
tab = "table:maxcompute:p.{}".format
JOB, NODE, USER = "Job", "Node", "User"


def _vertex(id_: str, label: str) -> dict:
    return {"id": id_, "label": label, "name": id_.rsplit(".", 1)[-1].rsplit(":", 1)[-1], "first_seen": T - 90 * DAY,
            "last_seen": T - DAY, "deleted_at": None, "event_count": 1, "properties": []}


def _edge(src: str, rel: str, dst: str, src_label: str, when: datetime | None = T - DAY, **props: str) -> dict:
    return {"src": src, "dst": dst, "relationship": rel, "qualifier": "", "src_label": src_label,
            "dst_label": "Table", "valid_from": when, "valid_to": None, "last_seen": when, "event_count": 1,
            "closed_by": None, "properties": list(props.items())}


def _feeds(a: str, b: str, *via: str) -> dict:
    return _edge(tab(a), "FEEDS", tab(b), "Table", via=json.dumps(list(via)))


def hand_made() -> tuple[list[dict], list[dict]]:
    """A cycle a->b->c->a closed by node n1 (and jobs j1, j2 of no node), a self-loop s->s made by
    job snap, a star h->l1..l4, an island x->y, and tables written and read or not in the window."""
    tables = ["a", "b", "c", "s", "h", "l1", "l2", "l3", "l4", "x", "y", "u", "r", "d", "old", "nw"]
    vertices = [_vertex(tab(t), "Table") for t in tables]
    vertices += [_vertex(i, lab) for i, lab in (("job:j1", JOB), ("job:j2", JOB), ("job:snap", JOB), ("job:w", JOB),
                                                ("job:rd", JOB), ("node:n1", NODE), ("node:n9", NODE),
                                                ("user:alice", USER), ("user:bob", USER))]
    edges = [
        _feeds("a", "b", "job:j1", "node:n1"), _feeds("b", "c", "job:j2"), _feeds("c", "a", "job:j1"),
        _feeds("s", "s", "job:snap"),
        *(_feeds("h", leaf, "job:j2") for leaf in ("l1", "l2", "l3", "l4")),
        _feeds("x", "y", "job:j1"),
        # u: written twice in the window (1 KB, 10 records each), read by nothing, owned by alice
        _edge("job:w", "WRITES", tab("u"), JOB, T - 2 * DAY, bytes="1000", records="10"),
        _edge("job:j1", "WRITES", tab("u"), JOB, T - 3 * DAY, bytes="1000", records="10"),
        _edge("user:alice", "OWNS", tab("u"), USER, T - 60 * DAY),
        # r: written and read by a job in the window
        _edge("job:w", "WRITES", tab("r"), JOB), _edge("job:rd", "READS", tab("r"), JOB, T - 2 * DAY),
        # d: written, downloaded at an unknown time: a read (never unused for want of a date)
        _edge("job:w", "WRITES", tab("d"), JOB), _edge("user:bob", "DOWNLOADED", tab("d"), USER, None),
        # old: written 40 days ago, outside the 30-day window
        _edge("job:w", "WRITES", tab("old"), JOB, T - 40 * DAY),
        # nw: written by a deployed node (a standing declaration), read by nothing
        _edge("node:n9", "WRITES", tab("nw"), NODE, T - 80 * DAY),
        # y is read by a job but long ago: y is not written in the window, so not unused either
        _edge("job:rd", "READS", tab("y"), JOB, T - 50 * DAY),
    ]
    return vertices, edges


def write_warehouse(root: Path, vertices: list[dict], edges: list[dict]) -> Path:
    """A built graph's two datasets, written as the build's parquet schema."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lineage.store.schema import EDGES, VERTICES

    for name, dataset, rows in (("vertices", VERTICES, vertices), ("edges", EDGES, edges)):
        (root / "graph" / name).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=dataset.arrow()), root / "graph" / name / "part-0.parquet")
    return root


LONE = tab("lone")
"""A table no edge names: the hand-made warehouse has it beside :func:`hand_made`'s graph."""


@pytest.fixture(scope="module")
def hand_warehouse(tmp_path_factory) -> Path:
    vertices, edges = hand_made()
    return write_warehouse(tmp_path_factory.mktemp("hygiene") / "warehouse", [*vertices, _vertex(LONE, "Table")], edges)


def _run(request, warehouse: Path, engine: str, **options):
    spark = request.getfixturevalue("spark") if engine == "spark" else None
    return hygiene(warehouse, engine=engine, spark=spark, **options)


ENGINES = ["local", pytest.param("spark", marks=pytest.mark.spark)]


@pytest.fixture(scope="module")
def hand_answers(request, hand_warehouse):
    """Each engine's answer on the hand-made warehouse (``as_of=T, top=20``), asked once: the tests
    of one engine and the comparison of both read the same answers."""
    answers: dict[str, object] = {}

    def of(engine: str):
        if engine not in answers:
            answers[engine] = _run(request, hand_warehouse, engine, as_of=T, top=20)
        return answers[engine]
    return of


@pytest.fixture(scope="module", params=ENGINES)
def hand(request, hand_answers):
    return hand_answers(request.param)


def test_unused_tables_are_written_in_the_window_and_read_by_nothing(hand):
    unused = {u.id: u for u in hand.unused}
    assert sorted(unused) == [tab("nw"), tab("u")]
    u = unused[tab("u")]
    assert (u.owners, u.writers, u.runs, u.bytes, u.records) == (("user:alice",), ("job:j1", "job:w"), 2, 2000, 20)
    assert u.last_written == T - 2 * DAY
    assert (unused[tab("nw")].writers, unused[tab("nw")].runs) == (("node:n9",), 0)


def test_a_shorter_window_drops_tables_last_written_before_it(request, hand_warehouse):
    found = _run(request, hand_warehouse, "local", as_of=T, unused_days=3)  # (T - 3 days, T]
    assert [u.id for u in found.unused] == [tab("nw"), tab("u")]
    assert next(u for u in found.unused if u.id == tab("u")).runs == 1  # the write 3 days before T is out
    found = _run(request, hand_warehouse, "local", as_of=T, unused_days=1)
    assert [u.id for u in found.unused] == [tab("nw")]
    found = _run(request, hand_warehouse, "local", as_of=T - 10 * DAY, unused_days=3)
    assert [u.id for u in found.unused] == [tab("nw")]  # u's writes are after that T


def test_cycles_are_components_holding_their_own_edges_with_the_jobs_that_close_them(hand):
    assert [(c.tables, c.jobs) for c in hand.cycles] == [
        ((tab("a"), tab("b"), tab("c")), ("job:j1", "job:j2", "node:n1")),  # a->b names its node: n1, not j1
        ((tab("s"),), ("job:snap",)),
    ]
    assert [c.self_loop for c in hand.cycles] == [False, True]  # s: its own job reads and rewrites it
    assert [c["self_loop"] for c in hand.to_json()["cycles"]] == [False, True]


def test_the_text_answer_says_self_loops_apart_and_what_no_run_means(hand_answers):
    """Issue 69: a table its own job rewrites is not a cycle between tables; an unused table no run
    wrote in the window is one its node is deployed to write (not "0 run(s)")."""
    from lineage.cli.hygiene import hygiene_lines

    lines = hygiene_lines(hand_answers("local"))
    text = "\n".join(lines)
    assert "cycles between tables: 1" in lines
    assert lines[lines.index("cycles between tables: 1") + 1].startswith("  a, b, c  closed by: ")
    loops = next(i for i, line in enumerate(lines) if line.startswith("self-loops: "))
    assert lines[loops].startswith("self-loops: 1 table(s) each read and rewritten by its own job")
    assert lines[loops + 1] == "  s"
    nw = next(line for line in lines if line.startswith("  nw  "))
    assert nw.endswith("no run seen in 30 days (its node is deployed to write it)")
    assert "2 run(s) in 30 days, 2,000 bytes, 20 records" in text and "0 run(s)" not in text


def test_islands_are_weak_components_largest_first(hand):
    sizes = [(i.size, i.tables[0]) for i in hand.islands]
    assert sizes[:3] == [(5, tab("h")), (3, tab("a")), (2, tab("x"))]
    assert [s for s, _ in sizes[3:]] == [1] * 7  # s, u, r, d, old, nw, lone: alone; y joins x
    assert sum(s for s, _ in sizes) == 17


def test_a_table_no_edge_names_is_an_island_and_ranked(hand):
    # the local engine reads only the edges it walks, and every Table and Location besides;
    # ranked: the answers' top 20 holds every one of the warehouse's 17 tables
    assert (LONE,) in [i.tables for i in hand.islands]
    assert LONE in [i.id for i in hand.importance]


def test_importance_ranks_downstream_tables_first_and_names_owners(hand):
    scores = {i.id: i.score for i in hand.importance}
    leaves = [scores[tab(f"l{k}")] for k in range(1, 5)]
    assert len(set(leaves)) == 1 and leaves[0] > scores[tab("h")]  # the star: leaves equal, above the hub
    assert scores[tab("a")] == scores[tab("b")] == scores[tab("c")]  # a cycle alone spreads evenly
    assert scores[tab("y")] > scores[tab("x")]
    assert [i.id for i in hand.importance] == sorted(scores, key=lambda t: (-scores[t], t))
    assert next(i.owners for i in hand.importance if i.id == tab("u")) == ("user:alice",)


@pytest.mark.spark
def test_both_engines_agree_on_the_hand_made_warehouse(hand_answers):
    _same(hand_answers("local"), hand_answers("spark"))


def _same(local, spark, top: int = 20) -> None:
    assert spark.unused == local.unused
    assert spark.cycles == local.cycles
    assert spark.islands == local.islands
    assert [i.id for i in spark.importance[:top]] == [i.id for i in local.importance[:top]]
    for a, b in zip(spark.importance, local.importance):
        assert abs(a.score - b.score) <= SCORE_TOLERANCE, (a, b)
        assert a.owners == b.owners


@pytest.mark.spark
def test_both_engines_agree_on_a_generated_platform(generated):
    """The generated platform's last day: components and cycles exactly, PageRank's top 20 in the
    same order (scores within SCORE_TOLERANCE), the same unused tables."""
    from lineage.graph.api import load_rows

    vertices, _ = load_rows(generated.warehouse)
    as_of = max(v["last_seen"] for v in vertices if v["last_seen"]) + DAY
    local = hygiene(generated.warehouse, as_of=as_of, engine="local")
    spark = hygiene(generated.warehouse, as_of=as_of, engine="spark")
    assert len(local.importance) == 20 and local.islands and local.unused
    _same(local, spark)


def test_traversals_end_on_a_self_loop_and_never_list_the_source():
    """A job reading and writing one table is FEEDS t->t (DESIGN.md); impact still ends."""
    from lineage.analysis.local import LocalEngine

    vertices, edges = hand_made()
    edges += [_edge("job:snap", "READS", tab("s"), JOB), _edge("job:snap", "WRITES", tab("s"), JOB)]
    engine = LocalEngine(vertices, edges, moment=T)
    assert [(a.id, a.distance) for a in engine.reach([tab("s")])] == [("job:snap", 1)]


@pytest.mark.spark
def test_derive_feeds_keeps_the_self_loop(spark):
    from lineage.graph.fold import derive_feeds
    from lineage.store.schema import EDGES

    rows = [_edge("job:snap", "READS", tab("s"), JOB), _edge("job:snap", "WRITES", tab("s"), JOB),
            _edge("job:snap", "WRITES", tab("t"), JOB)]
    frame = spark.createDataFrame([{**r, "properties": dict(r["properties"])} for r in rows], EDGES.struct())
    feeds = {(r["src"], r["dst"]) for r in derive_feeds(frame).collect()}
    assert feeds == {(tab("s"), tab("s")), (tab("s"), tab("t"))}


def test_the_generators_planted_pipelines_are_found(generated):
    """`lineage hygiene --json` on the generated platform, against the generator's truth
    (truth/hygiene.json, from what it generated): every planted unused table, cycle and island
    found; the unused tables and cycles are exactly the truth's (tables nothing reads, the planted
    loop, the tables one job reads and writes)."""
    from click.testing import CliRunner

    from lineage.cli import main

    truth = json.loads((generated.truth / "hygiene.json").read_text())
    ran = CliRunner().invoke(main, ["hygiene", "--warehouse", str(generated.warehouse), "--as-of", truth["as_of"],
                                    "--unused-days", str(truth["window_days"]), "--engine", "local", "--json"])
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.stdout)
    unused = sorted(u["id"] for u in found["unused"])
    cycles = sorted(c["tables"] for c in found["cycles"])
    islands = [i["tables"] for i in found["islands"]]
    planted = truth["planted"]
    assert planted["unused"] and planted["cycles"] and planted["islands"]
    assert set(planted["unused"]) <= set(unused)
    assert all(c in cycles for c in planted["cycles"])
    assert all(i in islands for i in planted["islands"])
    assert unused == truth["unused"]
    assert cycles == truth["cycles"]
