"""The edges by vertex (issue 31 part 4): the build stores every edge under each of its ends, and
``show`` and ``history`` read the edges touching their entity there; each edge comes once, as from
the edges dataset, and a store that is missing or damaged is read around, then written again."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq

from lineage.analysis import inspection
from lineage.graph import api as graph_api
from lineage.graph import around
from lineage.graph.build import build
from lineage.store.warehouse import Warehouse

TABLE = "table:maxcompute:retail_dw.dwd_orders"
AS_OF = "2024-07-05T00:00:00Z"


def _rows(table: pa.Table) -> Counter:
    """The rows of an edge table as a multiset (order is not part of the answer)."""
    names = [c for c in table.column_names if c != around.VERTEX]
    return Counter(json.dumps(row, default=str, sort_keys=True) for row in table.select(names).to_pylist())


def _touching_in_edges(edges: Path, ids: list[str]) -> pa.Table:
    return ds.dataset(str(edges), format="parquet").to_table(filter=ds.field("src").isin(ids) | ds.field("dst").isin(ids))


def test_the_build_stores_every_edge_under_each_of_its_ends(demo_warehouse):
    wh = Warehouse.at(demo_warehouse)
    assert wh.around.parent.name == wh.generation and around.usable(wh.around)
    edges = pq.read_table(str(wh.edges))
    stored = pq.read_table(str(wh.around))
    expected = Counter()
    for row in edges.to_pylist():
        for end in {row["src"], row["dst"]}:  # a self-loop once
            expected[json.dumps({**row, around.VERTEX: end}, default=str, sort_keys=True)] += 1
    assert Counter(json.dumps(r, default=str, sort_keys=True) for r in stored.to_pylist()) == expected
    for path in sorted(wh.around.glob("*.parquet")):  # each file sorted by the vertex: its row groups skip by statistics
        column = pq.read_table(path, columns=[around.VERTEX]).column(0).to_pylist()
        assert column == sorted(column), path


def _edge(src: str, dst: str, relationship: str = "FEEDS", qualifier: str = "") -> dict:
    return {"src": src, "dst": dst, "relationship": relationship, "qualifier": qualifier,
            "valid_from": datetime(2024, 7, 1, tzinfo=timezone.utc), "valid_to": None, "properties": [("k", src + dst)]}


def test_each_edge_touching_the_ids_comes_once_whatever_the_files(tmp_path):
    edges = tmp_path / "edges"
    edges.mkdir()
    rows = [_edge("a", "a"), _edge("a", "b"), _edge("b", "a"), _edge("a", "b", qualifier="direct"),
            _edge("b", "c"), _edge("c", "d"), _edge("d", "d"), _edge("e", "a", "READS")]
    pq.write_table(pa.Table.from_pylist(rows), edges / "part-0.parquet", row_group_size=2)  # read two at a time
    store = tmp_path / "around"
    assert around.write(edges, store, chunk_rows=3) == 2 * len(rows) - 2  # the two self-loops once each
    assert len(list(store.glob("*.parquet"))) > 1  # chunks of three edges: several sorted files
    for ids in (["a"], ["b"], ["a", "b"], ["d"], ["c", "d"], ["a", "b", "c", "d", "e"], ["nobody"]):
        found = around.touching(store, ids)
        assert _rows(found) == _rows(_touching_in_edges(edges, ids)), ids
    assert around.touching(store, ["a"], ["src", "dst"]).column_names == ["src", "dst"]


def test_a_store_without_its_marker_or_with_a_damaged_file_is_not_read(tmp_path):
    edges = tmp_path / "edges"
    edges.mkdir()
    pq.write_table(pa.Table.from_pylist([_edge("a", "b")]), edges / "part-0.parquet")
    store = tmp_path / "around"
    around.write(edges, store)
    assert around.usable(store) and around.touching(store, ["a"]).num_rows == 1
    (store / "_SUCCESS").unlink()  # a write that did not finish
    assert not around.usable(store) and around.touching(store, ["a"]) is None
    (store / "_SUCCESS").touch()
    part = next(store.glob("*.parquet"))
    part.write_bytes(part.read_bytes()[:100])
    assert not around.usable(store) and around.touching(store, ["a"]) is None


def _answers(warehouse: Path, ids: list[str]) -> dict:
    return {i: (inspection.show(warehouse, i, as_of=AS_OF).to_json(),
                inspection.history(warehouse, i).to_json()) for i in ids}


def _busiest(warehouse: Path, count: int) -> list[str]:
    edges = pq.read_table(str(Warehouse.at(warehouse).edges), columns=["src", "dst"])
    degree = Counter(edges.column("src").to_pylist()) + Counter(edges.column("dst").to_pylist())
    return [TABLE] + [i for i, _ in degree.most_common(count)]


def test_show_and_history_read_the_store_and_answer_as_from_the_edges(copied, monkeypatch):
    wh = Warehouse.at(copied)
    ids = _busiest(copied, 12)
    read = []
    real = graph_api._read_table
    monkeypatch.setattr(graph_api, "_read_table", lambda path, *a, **k: read.append(Path(path)) or real(path, *a, **k))
    with_store = _answers(copied, ids)
    assert wh.edges not in read  # the edges came from the store
    shutil.rmtree(wh.around)  # a generation built before the store
    read.clear()
    assert _answers(copied, ids) == with_store
    assert wh.edges in read


def test_a_damaged_store_is_read_around_and_the_next_build_writes_it(copied, capsys):
    wh = Warehouse.at(copied)
    ids = _busiest(copied, 3)
    expected = _answers(copied, ids)
    part = sorted(wh.around.glob("*.parquet"))[0]
    part.write_bytes(part.read_bytes()[:200])
    capsys.readouterr()
    assert _answers(copied, ids) == expected
    err = capsys.readouterr().err
    assert "warning" in err and str(wh.around) in err and "`lineage build`" in err
    again = build(copied, spark=object())  # nothing new to fold: no Spark, the same generation, the store written
    assert (again.fold, again.generation) == ("none", wh.generation)
    assert "edges around each vertex written" in again.fold_reason
    assert around.usable(Warehouse.at(copied).around)
    assert _answers(copied, ids) == expected
    assert "around" not in build(copied, spark=object()).fold_reason  # written once
