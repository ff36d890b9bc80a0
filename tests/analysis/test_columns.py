"""Column-precise impact (issue 32 part 4) on a hand-made graph, on both engines.

Source table ``s`` (columns a, b, k). Read by four jobs, all finished the day before:
``ja`` (complete) copies s.a into a.x, and ``jd`` (complete) a.x into d.u; ``jb`` (complete)
copies s.b into b.y (the sibling: it never reads s.a); ``jc`` (complete) copies s.b into c.z
filtered on s.a (indirect); ``jp`` (partial column lineage) writes ``p``, which ``jq`` copies
into ``q`` (table-level only); ``je`` copies b.y into e.t. ``alice`` owns ``a``. The field removal drops s.a.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from export.graphgen import write_graph

from lineage.analysis import columns
from lineage.analysis.blast import blast_radius

T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)
WHEN = T0 + timedelta(days=1)


def tid(name: str) -> str:
    return f"table:maxcompute:p.{name}"


def cid(table: str, column: str) -> str:
    return f"column:maxcompute:p.{table}.{column}"


def job(name: str) -> str:
    return f"job:maxcompute:{name}"


ALICE = "user:aliyun:alice"
CHANGE_ID = "0123456789abcdef0123456789abcdef"
SCHEMA = {"s": "abk", "a": "x", "b": "y", "c": "z", "d": "u", "p": "w", "q": "v", "e": "t"}
JOBS = {  # job -> (reads, writes, column lineage)
    "ja": ("s", "a", "complete"), "jb": ("s", "b", "complete"), "jc": ("s", "c", "complete"),
    "jd": ("a", "d", "complete"), "jp": ("s", "p", "partial"), "jq": ("p", "q", "complete"),
    "je": ("b", "e", "complete"),
}
COLUMN_FEEDS = [  # (source, target, qualifier)
    (("s", "a"), ("a", "x"), "direct"), (("a", "x"), ("d", "u"), "direct"), (("s", "b"), ("b", "y"), "direct"),
    (("s", "b"), ("c", "z"), "direct"), (("s", "a"), ("c", "z"), "indirect"), (("p", "w"), ("q", "v"), "direct"),
    (("b", "y"), ("e", "t"), "direct"),
]


def graph() -> tuple[list[dict], list[dict], list[dict]]:
    v = [{"id": tid(t), "label": "Table", "first_seen": T0} for t in SCHEMA]
    v += [{"id": cid(t, c), "label": "Column", "first_seen": T0} for t, cs in SCHEMA.items() for c in cs]
    v += [{"id": job(j), "label": "Job", "first_seen": T0, "properties": {"column_lineage": cl}}
          for j, (_, _, cl) in JOBS.items()]
    v += [{"id": ALICE, "label": "User", "first_seen": T0}]

    def edge(src: str, dst: str, rel: str, qualifier: str = "") -> dict:
        return {"src": src, "dst": dst, "relationship": rel, "qualifier": qualifier, "valid_from": T0, "last_seen": T0}

    e = [edge(tid(t), cid(t, c), "HAS_COLUMN") for t, cs in SCHEMA.items() for c in cs]
    for j, (r, w, _) in JOBS.items():
        e += [edge(job(j), tid(r), "READS"), edge(job(j), tid(w), "WRITES"), edge(tid(r), tid(w), "FEEDS")]
    e += [edge(cid(*s), cid(*t), "FEEDS", q) for s, t, q in COLUMN_FEEDS]
    e += [edge(ALICE, tid("a"), "OWNS")]
    change = {"change_id": CHANGE_ID, "entity_id": tid("s"), "entity_label": "Table", "kind": "field_removal",
              "time": WHEN, "actor": None, "event_id": "e1", "properties": {"columns": '["a"]'}}
    return v, e, [change]


def test_direct_reach_excludes_the_sibling_and_marks_the_partial_fallback():
    v, e, _ = graph()
    snap = columns.timeline(v, e).at(WHEN)
    reached, fallback = columns.reach(snap, [cid("s", "a")])
    got = {r.id: (r.distance, r.indirect, r.fallback) for r in reached}
    assert got == {
        cid("a", "x"): (1, False, False), tid("s"): (1, False, False), cid("d", "u"): (2, False, False),
        tid("a"): (2, False, False), tid("d"): (3, False, False),
        # the job runs reading s or a are walked through, never listed: they ran before the change
        tid("p"): (3, False, True),  # jp's column lineage is partial: its whole output
        ALICE: (3, False, False),
    }
    assert [f.id for f in fallback] == [tid("p")]
    assert not {tid("b"), tid("c"), cid("b", "y"), cid("c", "z")} & set(got)


def test_indirect_adds_the_filter_reader_marked():
    v, e, _ = graph()
    reached, _ = columns.reach(columns.timeline(v, e).at(WHEN), [cid("s", "a")], indirect=True)
    got = {r.id: (r.distance, r.indirect) for r in reached}
    assert got[cid("c", "z")] == (1, True) and got[tid("c")] == (2, True)
    assert tid("b") not in got and cid("b", "y") not in got
    assert got[tid("a")] == (2, False)


def test_upstream_follows_column_feeds_backward():
    v, e, _ = graph()
    reached, _ = columns.reach(columns.timeline(v, e).at(WHEN), [cid("d", "u")], downstream=False)
    got = {r.id: r.distance for r in reached}
    assert got[cid("a", "x")] == 1 and got[cid("s", "a")] == 2 and got[tid("s")] == 3
    assert job("jd") in got and job("ja") in got and tid("b") not in got


@pytest.mark.spark
def test_field_removal_blast_is_column_precise_and_equal_on_both_engines(spark, tmp_path):
    from lineage.analysis.spark_temporal import SparkTraversal
    from lineage.analysis.temporal import TemporalGraph

    v, e, changes = graph()
    wh = write_graph(tmp_path / "wh", v, e, changes)
    local, remote = TemporalGraph.from_warehouse(wh), SparkTraversal.from_warehouse(wh, spark)
    answers = {}
    for name, traversal, timeline in (("local", local, columns.timeline_of(wh)),
                                      ("spark", remote, columns.timeline_of(wh))):
        precise = blast_radius(changes, traversal, columns=timeline)[0]
        whole = blast_radius(changes, traversal)[0]
        answers[name] = ({a.id: a.distance for a in precise.affected}, precise.score,
                         {a.id for a in whole.affected})
    assert answers["local"] == answers["spark"]
    precise, _, whole = answers["local"]
    tables = {i for i in precise if i.startswith("table:")}
    # what reads s.a directly (a, then d), and p (partial) with q after it; s is the change itself
    assert tables == {tid("a"), tid("d"), tid("p"), tid("q")}
    assert precise[tid("q")] == 4 and job("jq") not in precise  # p at 3, then FEEDS (its reader's run not listed)
    assert {cid("a", "x"), cid("d", "u")} <= set(precise)
    assert tables < {i for i in whole if i.startswith("table:")} and len(precise) < len(whole)
    assert answers["local"][1] < blast_radius(changes, local)[0].score
    assert {tid("b"), tid("c"), tid("e")} <= whole - set(precise)
    assert not any(i.startswith("job:maxcompute:") for i in whole | set(precise))  # runs are never affected


def test_column_rows_read_by_a_loader_give_the_same_answer_and_are_read_once(tmp_path):
    """``api.blast`` hands ``evaluate`` a loader, so the column rows are let go before the
    table-level walk: the answer must be the one from the rows themselves, read once."""
    from lineage.analysis.temporal import TemporalGraph
    from lineage.graph.api import as_rows, stream_rows

    import pyarrow as pa

    v, e, changes = graph()
    wh = write_graph(tmp_path / "wh", v, e, changes)
    local = TemporalGraph.from_warehouse(wh)
    reads = []

    def loader():
        reads.append(1)
        return columns.timeline_of(wh)

    given = blast_radius(changes, local, columns=columns.timeline(v, e))[0]
    loaded = blast_radius(changes, local, columns=loader)[0]
    assert reads == [1]
    assert loaded == given and tid("a") in {a.id for a in loaded.affected}
    # the rows streamed in batches are the rows at once, each repeated id one string
    table = pa.Table.from_pylist([{"src": s, "dst": f"t{n}", "properties": [("k", "v")]}
                                  for n, s in enumerate(["a" * 40, "a" * 40, "b"] * 30_000)])
    streamed = list(stream_rows(table))
    assert streamed == as_rows(table) and streamed[0]["properties"] == {"k": "v"}
    assert streamed[0]["src"] is streamed[-2]["src"]


def run_cli(*args: str) -> dict:
    from click.testing import CliRunner

    from lineage.cli import main

    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_cli_impact_and_upstream_of_a_column(tmp_path):
    import json

    v, e, changes = graph()
    wh = str(write_graph(tmp_path / "wh", v, e, changes))
    at = (WHEN + timedelta(hours=1)).isoformat()
    doc = json.loads(run_cli("impact", cid("s", "a"), "--warehouse", wh, "--as-of", at, "--engine", "local", "--json"))
    got = {a["id"]: a for a in doc["affected"]}
    assert doc["sources"] == [cid("s", "a")] and doc["fallback"] == [tid("p"), tid("q")]
    assert {i for i in got if i.startswith("table:")} == {tid("s"), tid("a"), tid("d"), tid("p"), tid("q")}
    assert got[tid("p")]["fallback"] and got[tid("q")]["fallback"] and not got[tid("a")]["fallback"]
    assert got[tid("a")]["path"] == [cid("s", "a"), cid("a", "x"), tid("a")]
    assert doc["summary"]["Table"] == 5
    wider = json.loads(run_cli("impact", cid("s", "a"), "--warehouse", wh, "--as-of", at, "--engine", "local",
                               "--indirect", "--json"))
    marked = {a["id"]: a["indirect"] for a in wider["affected"]}
    assert marked[tid("c")] and marked[cid("c", "z")] and not marked[tid("a")] and tid("b") not in marked
    up = json.loads(run_cli("upstream", cid("d", "u"), "--warehouse", wh, "--as-of", at, "--engine", "local", "--json"))
    assert {a["id"] for a in up["upstream"] if a["label"] == "Column"} == {cid("a", "x"), cid("s", "a")}
    by_change = json.loads(run_cli("impact", CHANGE_ID, "--warehouse", wh, "--engine", "local", "--json"))
    assert {a["id"] for a in by_change["affected"] if a["label"] == "Table"} == {tid("a"), tid("d"), tid("p"), tid("q")}
    human = run_cli("impact", cid("s", "a"), "--warehouse", wh, "--as-of", at, "--engine", "local")
    assert f"{tid('p')}  [fallback]" in human and tid("b") not in human


# --- column-precise PII (issue 32 part 5) ------------------------------------------------------
# crm.t has email (tagged PII) and id. j1 (complete) copies t.email into u.email, t.id into v.id,
# and fills w.k from t.id filtered on t.email (indirect); j2 (complete) copies u.email into x.e;
# jp (partial) writes p from t, and jq (complete) copies p.w into q.v. bob can read u and v.

PII = "tag:datahub:PII"
BOB = "user:aliyun:bob"
PII_SCHEMA = {"t": ("email", "id"), "u": ("email",), "v": ("id",), "w": ("k",), "x": ("e",), "p": ("w",), "q": ("v",)}
PII_JOBS = {"j1": ("t", ("u", "v", "w"), "complete"), "j2": ("u", ("x",), "complete"),
            "jp": ("t", ("p",), "partial"), "jq": ("p", ("q",), "complete")}
PII_FEEDS = [(("t", "email"), ("u", "email"), "direct"), (("t", "id"), ("v", "id"), "direct"),
             (("t", "id"), ("w", "k"), "direct"), (("t", "email"), ("w", "k"), "indirect"),
             (("u", "email"), ("x", "e"), "direct"), (("p", "w"), ("q", "v"), "direct")]


def pii_graph() -> tuple[list[dict], list[dict]]:
    import json

    v = [{"id": tid(n), "label": "Table", "first_seen": T0} for n in PII_SCHEMA]
    v += [{"id": cid(n, c), "label": "Column", "first_seen": T0} for n, cs in PII_SCHEMA.items() for c in cs]
    v += [{"id": job(j), "label": "Job", "first_seen": T0, "properties": {"column_lineage": cl}}
          for j, (_, _, cl) in PII_JOBS.items()]
    v += [{"id": PII, "label": "Tag", "first_seen": T0}, {"id": BOB, "label": "User", "first_seen": T0}]

    def edge(src: str, dst: str, rel: str, qualifier: str = "", **props: str) -> dict:
        return {"src": src, "dst": dst, "relationship": rel, "qualifier": qualifier, "valid_from": T0,
                "last_seen": T0, "properties": props}

    e = [edge(tid(n), cid(n, c), "HAS_COLUMN") for n, cs in PII_SCHEMA.items() for c in cs]
    for j, (read, written, _) in PII_JOBS.items():
        e += [edge(job(j), tid(read), "READS")]
        e += [x for w in written for x in (edge(job(j), tid(w), "WRITES"),
                                           edge(tid(read), tid(w), "FEEDS", via=json.dumps([job(j)])))]
    e += [edge(cid(*s), cid(*t), "FEEDS", q) for s, t, q in PII_FEEDS]
    e += [edge(cid("t", "email"), PII, "TAGGED")]
    e += [edge(BOB, tid(n), "CAN_ACCESS", "select", privileges='["select"]') for n in ("u", "v")]
    return v, e


def test_a_pii_column_tag_reaches_its_direct_column_descendants_only():
    from lineage.analysis.propagation import exposure, propagate

    v, e = pii_graph()
    found = {p.table: (p.distance, p.path, p.columns) for p in propagate(v, e, as_of=WHEN)}
    assert found == {
        tid("u"): (1, (tid("t"), tid("u")), (cid("u", "email"),)),
        tid("x"): (2, (tid("t"), tid("u"), tid("x")), (cid("x", "e"),)),
        # jp's column lineage is partial: its output is taken whole, and what it feeds
        tid("p"): (1, (tid("t"), tid("p")), ()),
        tid("q"): (2, (tid("t"), tid("p"), tid("q")), ()),
    }  # not v (another column) nor w (email only filters it: an indirect read carries no values)
    exposed = exposure(v, e, as_of=WHEN)
    assert [(x.principal, x.table, x.columns) for x in exposed] == [(BOB, tid("u"), (cid("u", "email"),))]
    assert exposed[0].to_json()["columns"] == [cid("u", "email")]


def test_a_whole_table_tag_flows_as_before():
    from lineage.analysis.propagation import propagate

    v, e = pii_graph()
    e = [x for x in e if x["relationship"] != "TAGGED"] + [
        {"src": tid("t"), "dst": PII, "relationship": "TAGGED", "qualifier": "", "valid_from": T0}]
    assert {p.table: p.columns for p in propagate(v, e, as_of=WHEN)} == {
        tid(n): () for n in ("u", "v", "w", "x", "p", "q")}


def test_exposure_cli_names_the_columns(tmp_path):
    import json

    v, e = pii_graph()
    wh = str(write_graph(tmp_path / "wh", v, e))
    at = (WHEN + timedelta(hours=1)).isoformat()
    doc = json.loads(run_cli("exposure", "--warehouse", wh, "--as-of", at, "--json"))
    assert [(x["table"], x["columns"]) for x in doc["exposures"]] == [(tid("u"), [cid("u", "email")])]
    human = run_cli("exposure", "--warehouse", wh, "--as-of", at)
    assert "u (email)" in human and "exposure: 1 (principal, table) pair(s): 1 principal(s)" in human


def test_exposure_reads_the_columns_a_mark_or_grant_names_and_answers_as_over_every_row(tmp_path):
    # ann's only grant is on p.w, a column of p, which the PII of t reaches whole (jp's lineage is
    # partial): a column-level read path to a table no marked column reaches
    from lineage.analysis import api
    from lineage.analysis.access import NEVER_ON_A_PATH
    from lineage.analysis.propagation import RELATIONSHIPS, columns_read, exposure
    from lineage.graph.api import edge_ends

    ann = "user:aliyun:ann"
    v, e = pii_graph()
    v += [{"id": ann, "label": "User", "first_seen": T0}]
    e += [{"src": ann, "dst": cid("p", "w"), "relationship": "CAN_ACCESS", "qualifier": "select", "valid_from": T0,
           "last_seen": T0, "properties": {"privileges": '["select"]'}}]
    wh = write_graph(tmp_path / "wh", v, e)
    near = columns_read(edge_ends(wh, relationships=RELATIONSHIPS, without=NEVER_ON_A_PATH))  # what exposure reads
    assert near["HAS_COLUMN"] == {cid("t", "email"), cid("u", "email"), cid("w", "k"), cid("x", "e"), cid("p", "w")}
    assert cid("t", "id") not in near["FEEDS"] and cid("p", "w") not in near["FEEDS"]  # no marked column's values reach them
    at = WHEN + timedelta(hours=1)
    fast = [x.to_json() for x in api.exposure(wh, as_of=at)]
    assert fast == [x.to_json() for x in exposure(v, e, as_of=at)]
    assert {(x["principal"], x["table"]) for x in fast} == {(BOB, tid("u")), (ann, tid("p"))}


def test_a_removed_field_the_graph_does_not_know_is_scored_table_level():
    from lineage.analysis.temporal import TemporalGraph

    v, e, changes = graph()
    unknown = [{**changes[0], "properties": {"field_path": "zz"}}]
    traversal = TemporalGraph.from_rows(v, e)
    column_level = blast_radius(unknown, traversal, columns=columns.timeline(v, e))[0]
    table_level = blast_radius(unknown, traversal)[0]
    assert (column_level.count, column_level.score) == (table_level.count, table_level.score)
    assert tid("b") in {a.id for a in column_level.affected}


@pytest.mark.spark
def test_on_the_generated_platform_field_removals_reach_fewer_tables(generated, spark):
    """Field removals planted at the platform's last instant, on the ten columns that feed the
    most columns directly: the column-precise affected tables hold the tables of every column the
    removed one feeds directly, are a subset of the table-level ones, strictly fewer for some, and
    the same on both engines."""
    from collections import Counter

    from lineage.analysis.spark_temporal import SparkTraversal
    from lineage.analysis.temporal import TemporalGraph
    from lineage.graph.api import exists_at, load_rows

    wh = generated.warehouse
    vertices, edges = load_rows(wh)
    last = max(x["last_seen"] for x in edges if x.get("last_seen"))
    tables = {x["id"] for x in vertices if x["label"] == "Table" and exists_at(x, last)}  # not dropped by then
    alive = {x["id"] for x in vertices if x["label"] == "Column" and exists_at(x, last)}  # nor removed
    direct = [x for x in edges if x["relationship"] == "FEEDS" and x.get("qualifier") == "direct" and not x.get("valid_to")]

    def table_of(column: str) -> str:  # column:maxcompute:<project>.<table>.<field>
        project, name = column.split(":", 2)[2].split(".")[:2]
        return f"table:maxcompute:{project}.{name}"

    chosen = [c for c, _ in Counter(x["src"] for x in direct).most_common() if table_of(c) in tables][:10]
    assert len(chosen) == 10
    changes = [{"change_id": f"{n:032x}", "entity_id": table_of(c), "entity_label": "Table", "kind": "field_removal",
                "time": last, "actor": None, "event_id": f"planted-{n}", "properties": {"field_path": c.rsplit(".", 1)[1]}}
               for n, c in enumerate(chosen)]
    local = TemporalGraph.from_warehouse(wh)
    precise = {r.change_id: r for r in blast_radius(changes, local, columns=columns.timeline_of(wh))}
    whole = {r.change_id: r for r in blast_radius(changes, local)}
    remote = {r.change_id: r for r in blast_radius(changes, SparkTraversal.from_warehouse(wh, spark),
                                                   columns=columns.timeline_of(wh))}
    fewer = 0
    for change, column in zip(changes, chosen):
        got = {a.id for a in precise[change["change_id"]].affected if a.label == "Table"}
        table_level = {a.id for a in whole[change["change_id"]].affected if a.label == "Table"}
        readers = {table_of(x["dst"]) for x in direct if x["src"] == column and x["dst"] in alive} & tables
        readers -= {change["entity_id"]}
        assert readers <= got <= table_level, column
        fewer += len(got) < len(table_level)
        assert [(a.id, a.distance) for a in remote[change["change_id"]].affected] == [
            (a.id, a.distance) for a in precise[change["change_id"]].affected]
    assert fewer >= 1


def test_a_pii_tag_added_to_a_column_exposes_the_tables_its_values_reach():
    from lineage.analysis.temporal import TemporalGraph

    v, e = pii_graph()
    e = [x for x in e if x["relationship"] != "TAGGED"]
    change = {"change_id": "f" * 32, "entity_id": cid("t", "email"), "entity_label": "Column", "kind": "tag_change",
              "time": WHEN, "actor": None, "event_id": "e2", "properties": {"operation": "ADD", "modifier": "urn:li:tag:PII"}}
    found = blast_radius([change], TemporalGraph.from_rows(v, e), columns=columns.timeline(v, e))[0]
    assert (found.effect, found.summary) == ("exposes", {"Table": 4})
    assert {a.id: (a.distance, a.path) for a in found.affected} == {
        tid("u"): (1, (cid("t", "email"), tid("u"))), tid("p"): (1, (cid("t", "email"), tid("p"))),
        tid("x"): (2, (cid("t", "email"), tid("u"), tid("x"))), tid("q"): (2, (cid("t", "email"), tid("p"), tid("q")))}
