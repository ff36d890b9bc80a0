"""Graph rows read without Spark: the last read of a small dataset is kept, never shared or stale."""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.parquet as pq

from lineage.graph import api


def _write(folder, names):
    folder.mkdir(exist_ok=True)
    table = pa.table({"id": names, "properties": pa.array([[("k", n)] for n in names],
                                                          type=pa.map_(pa.string(), pa.string()))})
    pq.write_table(table, folder / "part-0.parquet")


def test_kept_rows_are_copies_and_a_rewrite_is_read_again(tmp_path, monkeypatch):
    dataset = tmp_path / "vertices"
    _write(dataset, ["a", "b"])
    first = api._read_rows(dataset)
    assert first == [{"id": "a", "properties": {"k": "a"}}, {"id": "b", "properties": {"k": "b"}}]
    first[0]["id"] = "edited"
    first[1]["properties"]["k"] = "edited"
    assert api._read_rows(dataset) == [{"id": "a", "properties": {"k": "a"}}, {"id": "b", "properties": {"k": "b"}}]

    before = (dataset / "part-0.parquet").stat().st_mtime_ns
    _write(dataset, ["c"])  # the dataset rewritten (a new build): read again, not the kept rows
    os.utime(dataset / "part-0.parquet", ns=(before + 10**9, before + 10**9))
    assert api._read_rows(dataset) == [{"id": "c", "properties": {"k": "c"}}]
    (dataset / "part-1.parquet").write_bytes((dataset / "part-0.parquet").read_bytes())  # a file added
    assert [r["id"] for r in api._read_rows(dataset)] == ["c", "c"]

    monkeypatch.setattr(api, "KEPT_ROWS", 1)  # too big to keep: read each time, nothing held
    big = tmp_path / "edges"
    _write(big, ["x", "y"])
    assert [r["id"] for r in api._read_rows(big)] == ["x", "y"]
    assert str(big.resolve()) not in api._kept


def test_every_vertex_with_the_named_properties_and_relationships(demo_warehouse):
    """``every_vertex`` (what the report reads, issue 31): every vertex, of Jobs and Instances only
    the named properties, and the edges of the named relationships, each exactly as read whole."""
    from lineage.report.context import REPORT_RELATIONSHIPS, RUN_LABELS, RUN_PROPERTIES

    whole_vertices, whole_edges = api.load_rows(demo_warehouse)
    vertices, edges = api.every_vertex(demo_warehouse, relationships=REPORT_RELATIONSHIPS,
                                       properties=dict.fromkeys(RUN_LABELS, RUN_PROPERTIES))
    edges = api.as_rows(edges)  # an Arrow table: the report makes its edges of it batch by batch
    assert edges == [e for e in whole_edges if e["relationship"] in REPORT_RELATIONSHIPS]
    assert 0 < len(edges) < len(whole_edges)
    assert len(vertices) == len(whole_vertices)
    slimmed = 0
    for row, whole in zip(vertices, whole_vertices):
        assert {k: v for k, v in row.items() if k != "properties"} == {k: v for k, v in whole.items() if k != "properties"}
        if row["label"] in RUN_LABELS:
            assert row["properties"] == {k: v for k, v in whole["properties"].items() if k in RUN_PROPERTIES}
            slimmed += len(whole["properties"]) > len(row["properties"])
        else:
            assert row["properties"] == whole["properties"]
    assert slimmed > 10  # the demo's runs have SQL, task names, step times: dropped
    assert any(r["properties"].get("status") for r in vertices if r["label"] == "Job")


def test_rows_carry_the_instants_arrow_reads_utc_ones_made_once(tmp_path):
    """Rows are made column by column, each distinct UTC microsecond timestamp once: the same
    instants (and text) as Arrow's own rows, nulls, times before 1970 and other time zones included."""
    from datetime import datetime, timezone
    from zoneinfo import ZoneInfo

    utc = [datetime(2026, 10, 19, 23, 59, 59, 999_999, tzinfo=timezone.utc), None,
           datetime(1969, 12, 31, 23, 0, tzinfo=timezone.utc), datetime(2026, 10, 19, 23, 59, 59, 999_999, tzinfo=timezone.utc)]
    table = pa.table({
        "id": ["a", "b", "c", "d"],
        "valid_from": pa.array(utc, pa.timestamp("us", tz="UTC")),
        "seen_ms": pa.array(utc, pa.timestamp("ms", tz="UTC")),
        "local": pa.array(utc, pa.timestamp("us", tz="Asia/Shanghai")),
        "properties": pa.array([[("k", "v")], [], None, [("k", "w")]], type=pa.map_(pa.string(), pa.string())),
    })
    rows = api.as_rows(table)
    arrow = table.to_pylist()
    assert [list(r) for r in rows] == [list(r) for r in arrow]  # the columns' order kept
    for mine, theirs in zip(rows, arrow):
        for name in ("valid_from", "seen_ms", "local"):
            assert mine[name] == theirs[name]
            assert (mine[name] and mine[name].isoformat()) == (theirs[name] and theirs[name].isoformat())
    assert rows[0]["valid_from"] is rows[3]["valid_from"]  # one object per distinct instant
    assert rows[1]["valid_from"] is None and rows[2]["valid_from"].year == 1969
    assert rows[0]["local"].tzinfo == ZoneInfo("Asia/Shanghai")  # not UTC: Arrow's own conversion
    assert [r["properties"] for r in rows] == [{"k": "v"}, {}, None, {"k": "w"}]
    assert api.as_rows(table.slice(0, 0)) == []


def test_edges_made_from_columns_are_the_edges_made_from_rows(demo_warehouse):
    """``Edge.stream`` (the report's million edges, made column by column with no dict per row) makes
    the same edges as ``Edge.of`` over the rows, each repeated id one string; and, from a table
    lacking the optional columns, with times as text, the same normalisation (labels from the ids,
    an empty qualifier, no properties)."""
    from datetime import datetime, timezone

    import pyarrow.parquet as pq

    from lineage.analysis.access import Edge

    table = pq.read_table(str(api.built(demo_warehouse, "edges").edges))
    table = pa.concat_tables([table] * (api.BATCH_ROWS // table.num_rows + 1))  # more than one batch
    streamed = list(Edge.stream(table))
    assert streamed == [Edge.of(row) for row in api.as_rows(table)]
    assert len(streamed) == table.num_rows > api.BATCH_ROWS and len({e.relationship for e in streamed}) > 5
    by_src: dict[str, str] = {}
    assert all(by_src.setdefault(e.src, e.src) is e.src for e in streamed)  # one string per id
    assert any(e.properties for e in streamed) and any(e.valid_to for e in streamed)

    bare = pa.table({"src": ["table:maxcompute:p.a", "user:aliyun:1"], "dst": ["table:maxcompute:p.b", "role:maxcompute:p/r"],
                     "relationship": ["FEEDS", "HAS_ROLE"], "valid_from": ["2026-10-19T08:00:00Z", None],
                     "valid_to": [None, "2026-10-20T00:00:00+08:00"], "closed_by": [None, "ev-1"]})
    made = list(Edge.stream(bare))
    assert made == [Edge.of(row) for row in bare.to_pylist()]
    assert (made[0].src_label, made[0].dst_label, made[0].qualifier, made[0].properties) == ("Table", "Table", "", {})
    assert made[0].valid_from == datetime(2026, 10, 19, 8, tzinfo=timezone.utc)
    assert made[1].valid_to == datetime(2026, 10, 19, 16, tzinfo=timezone.utc) and made[1].dst_label == "Role"
    assert list(Edge.stream(table.slice(0, 0))) == []


def test_described_vertices_are_read_whole_and_the_others_without_properties(tmp_path):
    """``load_rows(described=[id])`` (``show`` names a hub's 31,000 neighbours, describes one): that
    vertex with its properties, the others with none, the edges as read whole; a vertex dataset with
    no properties column at all reads the same way."""
    from export.graphgen import write_graph

    vertices = [{"id": f"table:maxcompute:p.t{n}", "label": "Table", "name": f"t{n}", "properties": {"owner": f"o{n}"}}
                for n in range(3)]
    edges = [{"src": "table:maxcompute:p.t0", "dst": f"table:maxcompute:p.t{n}", "relationship": "FEEDS"} for n in (1, 2)]
    warehouse = write_graph(tmp_path / "wh", vertices, edges)
    part_v, part_e = api.load_rows(warehouse, around=["table:maxcompute:p.t0"], described=["table:maxcompute:p.t1"])
    assert {v["id"]: v["properties"] for v in part_v} == {
        "table:maxcompute:p.t0": {}, "table:maxcompute:p.t1": {"owner": "o1"}, "table:maxcompute:p.t2": {}}
    assert sorted(e["dst"] for e in part_e) == ["table:maxcompute:p.t1", "table:maxcompute:p.t2"]

    folder = warehouse / "graph" / "vertices"
    pq.write_table(pq.read_table(str(folder)).drop_columns(["properties"]), folder / "part-0.parquet")
    part_v, _ = api.load_rows(warehouse, around=["table:maxcompute:p.t0"], described=["table:maxcompute:p.t1"])
    assert sorted(v["id"] for v in part_v) == [v["id"] for v in vertices] and all("properties" not in v for v in part_v)
    assert {v["name"] for v in part_v} == {"t0", "t1", "t2"}


def test_the_collector_is_paused_while_rows_are_made_and_restored_after():
    """A question pauses Python's cyclic collector while it makes its rows (each collection walked
    every row alive), and leaves it as it found it: on, off, or after an error."""
    import gc

    import pytest

    @api.collector_paused()
    def read(fail: bool = False) -> bool:
        if fail:
            raise ValueError("bad")
        return gc.isenabled()

    assert gc.isenabled()
    assert read() is False and gc.isenabled()
    with pytest.raises(ValueError):
        read(fail=True)
    assert gc.isenabled()
    gc.disable()
    try:
        with api.collector_paused():
            assert read() is False
        assert not gc.isenabled()  # off before: still off
    finally:
        gc.enable()
