"""The question index (issue 31 part 4): the build writes, with each graph generation, the arrays
a traversal walks; a question maps them instead of reading and indexing the parquet, and gets the
same answer; a damaged or missing index is read around, and `lineage build` writes it again."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from lineage.analysis import api
from lineage.analysis.temporal import TemporalGraph
from lineage.graph import index
from lineage.graph.build import build
from lineage.store.warehouse import Warehouse

TABLE = "table:maxcompute:retail_dw.dwd_orders"


def _parquet_arrays(wh: Warehouse) -> index.Arrays:
    return index.arrays_of(index._read(wh.vertices, index.VERTEX_FIELDS), index._read(wh.edges, index.EDGE_FIELDS))


def assert_index_of_its_own_graph(wh: Warehouse) -> None:
    """The generation's index holds the arrays of its own parquet, read whole (not as the build's
    batches)."""
    found = index.opened(wh.index)
    assert found is not None, wh.index
    _assert_same(found, _parquet_arrays(wh))


def _assert_same(found: index.Arrays, expected: index.Arrays) -> None:
    assert found.ids.to_pylist() == expected.ids.to_pylist()
    assert (found.labels, found.relationships) == (expected.labels, expected.relationships)
    for name in index.ARRAYS:
        assert np.array_equal(getattr(found, name), getattr(expected, name)), name
    assert found.edge_bounds.equals(expected.edge_bounds)


def _answers(warehouse: Path) -> tuple[dict, dict]:
    as_of = "2024-07-05T00:00:00Z"
    return (api.impact(warehouse, [TABLE], as_of=as_of, engine="local").to_json(),
            api.upstream(warehouse, [TABLE], as_of=as_of, engine="local").to_json())


def test_the_build_writes_the_index_of_its_generation(demo_warehouse):
    wh = Warehouse.at(demo_warehouse)
    assert wh.index.parent.name == wh.generation  # inside the generation: committed and pruned with it
    found = index.opened(wh.index)
    assert found is not None and len(found.ids) > 100 and len(found.edge_src) > 200
    assert isinstance(found.edge_src, np.memmap)  # mapped, not read
    assert_index_of_its_own_graph(wh)


def test_edges_coded_a_batch_at_a_time_are_the_whole_tables(demo_warehouse):
    """The build codes the edges in batches (bounded memory at 10^7 events): the same arrays as
    one table, relationship codes included (their order is that of first appearance)."""
    wh = Warehouse.at(demo_warehouse)
    vertices, edges = index._read(wh.vertices, index.VERTEX_FIELDS), index._read(wh.edges, index.EDGE_FIELDS)
    batches = edges.to_batches(max_chunksize=7)
    assert len(batches) > 30
    _assert_same(index.arrays_of(vertices, batches), index.arrays_of(vertices, edges))


def test_a_question_maps_the_index_and_never_reads_the_parquet(copied, monkeypatch):
    expected = _answers(copied)
    assert expected[0]["affected"] and expected[1]["upstream"]

    def no_parquet(*_args, **_kwargs):
        raise AssertionError("the graph's parquet was read though the generation has an index")

    monkeypatch.setattr(index, "_read", no_parquet)
    assert _answers(copied) == expected
    graph = TemporalGraph.from_warehouse(copied)
    assert "index" not in graph.__dict__  # one entity's walk never builds the dict of every id
    monkeypatch.undo()
    # without the index (a generation built before it) the parquet answers the same
    shutil.rmtree(Warehouse.at(copied).index)
    assert _answers(copied) == expected


def test_the_index_stores_the_steps_of_the_questions_rule_selections(demo_warehouse):
    """Impact's and upstream's adjacency (each edge walked its rule's way, intervals narrowed to
    its ends' rows) is written by the build and mapped by a question: the CSR it would build."""
    wh = Warehouse.at(demo_warehouse)
    found, expected = index.opened(wh.index), _parquet_arrays(wh)
    assert set(found.steps) == set(index.selections()) and len(found.steps) == 2
    for selection, stored in found.steps.items():
        assert isinstance(stored.b, np.memmap)
        built = index.steps_of(expected, *selection)
        assert len(built.b) > 50
        for part in index.STEP_PARTS:
            assert np.array_equal(getattr(stored, part), getattr(built, part)), (selection, part)


def test_a_question_walks_the_stored_steps_and_an_index_without_them_is_written_again(copied, monkeypatch):
    expected = _answers(copied)

    def no_steps(*_args, **_kwargs):
        raise AssertionError("the steps were built though the index stores them")

    monkeypatch.setattr(index, "steps_of", no_steps)
    assert _answers(copied) == expected
    monkeypatch.undo()
    # an index written before the steps were: read, its steps built by the question, rewritten by a build
    wh = Warehouse.at(copied)
    meta = wh.index / index.META
    meta.write_text(meta.read_text().replace('"steps"', '"steps_unknown"'))
    for stale in wh.index.glob("steps-*"):
        stale.unlink()
    assert index.opened(wh.index).steps == {} and not index.usable(wh.index)
    assert _answers(copied) == expected
    again = build(copied, spark=object())
    assert "question index written" in again.fold_reason and index.usable(wh.index)
    assert set(index.opened(wh.index).steps) == set(index.selections())
    # a stored CSR of another size is damage: said, and read around
    np.save(next(wh.index.glob("steps-*.ptr.npy")), np.zeros(3, np.int64))
    with pytest.raises(index.IndexDamaged):
        index.opened(wh.index)
    assert _answers(copied) == expected


@pytest.mark.parametrize("damage", ["truncated", "missing", "mismatched"])
def test_a_damaged_index_is_read_around_and_the_next_build_writes_it(copied, capsys, damage):
    expected = _answers(copied)
    wh = Warehouse.at(copied)
    if damage == "truncated":
        path = wh.index / "edge_src.npy"
        path.write_bytes(path.read_bytes()[:1000])
    elif damage == "missing":
        shutil.rmtree(wh.index)
    else:  # the arrays of another graph under this meta.json
        np.save(wh.index / "row_ptr.npy", np.zeros(5, np.int64))
    capsys.readouterr()
    assert _answers(copied) == expected
    err = capsys.readouterr().err
    if damage == "missing":
        assert err == ""  # an older generation: nothing is wrong
    else:
        assert "warning" in err and str(wh.index) in err and "`lineage build`" in err
    assert not index.usable(wh.index)
    # nothing new to fold: no Spark (none given that works), the same generation, its index written
    again = build(copied, spark=object())
    assert (again.fold, again.generation) == ("none", wh.generation)
    assert "question index written" in again.fold_reason
    assert index.usable(Warehouse.at(copied).index)
    _assert_same(index.opened(wh.index), _parquet_arrays(wh))
    assert _answers(copied) == expected
    assert "question index" not in build(copied, spark=object()).fold_reason  # written once


def test_an_index_of_another_format_is_not_read(copied):
    wh = Warehouse.at(copied)
    meta = wh.index / index.META
    meta.write_text(meta.read_text().replace(f'"format": {index.FORMAT}', '"format": 999'))
    assert index.opened(wh.index) is None  # a later layout: the parquet is read, without a warning
    assert isinstance(TemporalGraph.from_warehouse(copied).arrays.ids, pa.Array)


def test_kept_properties_are_read_from_the_index_as_from_the_parquet(copied, monkeypatch):
    """``exposure`` asks whether the jobs its FEEDS came through have complete column lineage: the
    index keeps that property apart, and reading it there gives the rows the parquet gives."""
    from lineage.graph import api as graph_api

    wh = Warehouse.at(copied)
    kept = index.properties_in(wh.index, "column_lineage")
    assert kept is not None and kept.num_rows > 0
    read = graph_api._read_table
    monkeypatch.setattr(graph_api, "_read_table", lambda *_a, **_k: pytest.fail("the vertices' parquet was read"))
    from_index = graph_api.property_values(copied, "column_lineage")
    monkeypatch.setattr(graph_api, "_read_table", read)
    lineage = _column_lineage(copied)  # the column answers' rows: every vertex, its value placed by row
    assert from_index == {i: p["column_lineage"] for i, p in lineage.items() if "column_lineage" in p}
    assert len(from_index) == kept.num_rows and TABLE not in from_index
    # an index written before the file: the parquet answers the same, and the next build writes it
    (wh.index / index.PROPERTIES).unlink()
    meta = wh.index / index.META
    meta.write_text(meta.read_text().replace('"properties":', '"properties_before":'))
    assert index.opened(wh.index) is not None and index.properties_in(wh.index, "column_lineage") is None
    assert graph_api.property_values(copied, "column_lineage") == from_index
    assert _column_lineage(copied) == lineage
    assert not index.usable(wh.index)
    again = build(copied, spark=object())
    assert (again.fold, "question index written" in again.fold_reason) == ("none", True)
    assert index.properties_in(Warehouse.at(copied).index, "column_lineage").equals(kept)


def test_a_damaged_properties_file_is_read_around(copied):
    from lineage.graph import api as graph_api

    wh = Warehouse.at(copied)
    expected = graph_api.property_values(copied, "column_lineage")
    assert len(expected) == index.properties_in(wh.index, "column_lineage").num_rows > 0
    path = wh.index / index.PROPERTIES
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(index.IndexDamaged):
        index.properties_in(wh.index, "column_lineage")
    assert not index.usable(wh.index)
    assert graph_api.property_values(copied, "column_lineage") == expected


def _column_lineage(warehouse: Path) -> dict:
    from lineage.analysis.columns import timeline_of

    return {i: dict(row["properties"]) for i, row in timeline_of(warehouse).rows.items()}


def test_kept_values_are_placed_by_the_rows_they_were_read_from(copied):
    """The column rows take each value from the index by its row; rows read in another order than
    the index's get none of them (the property maps are read instead), never a wrong one."""
    import pyarrow.dataset as ds

    from lineage.graph import api as graph_api

    wh = Warehouse.at(copied)
    table = ds.dataset(str(wh.vertices), format="parquet").to_table(columns=["id", "label"])
    values = graph_api.property_column(wh, table, "column_lineage")
    kept = index.properties_in(wh.index, "column_lineage")
    assert values.null_count == table.num_rows - kept.num_rows
    assert values.take(kept.column("row")).equals(kept.column("value"))
    assert graph_api.property_column(wh, table.take(list(range(table.num_rows))[::-1]), "column_lineage") is None
    assert graph_api.property_column(wh, table.slice(0, 3), "column_lineage") is None


def _exposure(warehouse: Path) -> list[dict]:
    return [e.to_json() for e in api.exposure(warehouse, as_of="2024-07-05T00:00:00Z")]


def test_exposure_reads_its_part_of_the_graph_from_the_index(copied, monkeypatch):
    """``exposure`` has no subject, so it reads the same rows every time: the build stores them, and
    the question reads them there, not the parquet, with the same answer. An index written before
    them is read around (the parquet gives the same rows), and the next build writes them."""
    from lineage.analysis.propagation import PART
    from lineage.graph import api as graph_api

    wh = Warehouse.at(copied)
    stored = index.exposure_in(wh.index)
    found = graph_api.load_tables(copied, **PART)
    assert stored[0].equals(found[0].combine_chunks()) and stored[1].equals(found[1].combine_chunks())
    every = index.opened(wh.index)
    assert 0 < stored[1].num_rows < len(every.edge_src) and 0 < stored[0].num_rows < len(every.ids)
    read = graph_api._read_table
    monkeypatch.setattr(graph_api, "_read_table", lambda *_a, **_k: pytest.fail("the graph's parquet was read"))
    expected = _exposure(copied)
    monkeypatch.setattr(graph_api, "_read_table", read)
    assert [(e["principal"], e["table"]) for e in expected] == [  # as the Cypher library's pii_exposure finds
        ("user:aliyun:1320876710332592", "table:maxcompute:retail_dw.ads_sales_report"),
        ("user:maxcompute:ram$contractor@retail.example:sub", TABLE)]
    # chosen by other code (the code that chooses them changed): not read, and the index not usable
    meta = wh.index / index.META
    current = index.exposure_version()
    meta.write_text(meta.read_text().replace(current, "0" * len(current)))
    assert index.exposure_in(wh.index) is None and not index.usable(wh.index)
    assert _exposure(copied) == expected
    # an index written before them: the parquet answers the same, and the next build writes them
    for file in index.EXPOSURE:
        (wh.index / file).unlink()
    meta.write_text(meta.read_text().replace('"exposure":', '"exposure_before":'))
    assert index.exposure_in(wh.index) is None and not index.usable(wh.index)
    assert _exposure(copied) == expected
    again = build(copied, spark=object())
    assert (again.fold, "question index written" in again.fold_reason) == ("none", True)
    rewritten = index.exposure_in(Warehouse.at(copied).index)
    assert rewritten[0].equals(stored[0]) and rewritten[1].equals(stored[1])


def test_a_damaged_exposure_part_is_read_around(copied):
    wh = Warehouse.at(copied)
    expected = _exposure(copied)
    path = wh.index / index.EXPOSURE[1]
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(index.IndexDamaged):
        index.exposure_in(wh.index)
    assert not index.usable(wh.index)
    assert _exposure(copied) == expected


def test_the_exposure_version_is_read_from_a_zipped_package_too(tmp_path):
    """Under ``spark-submit`` the package is a zip (``cluster.sh``'s ``--py-files``): the digest of
    the code that chose exposure's part is read as package resources there, and is the same."""
    import subprocess
    import sys
    import zipfile

    import lineage

    package = Path(lineage.__file__).parent
    archive = tmp_path / "lineage.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in package.rglob("*.py"):
            out.write(path, path.relative_to(package.parent).as_posix())
    probe = "import lineage; from lineage.graph import index; print(lineage.__file__); print(index.exposure_version())"
    shown = subprocess.run([sys.executable, "-c", probe], env={"PYTHONPATH": str(archive)}, capture_output=True,
                           text=True, check=True, cwd=tmp_path).stdout.split()
    assert shown == [str(archive / "lineage" / "__init__.py"), index.exposure_version()]
