"""Shared fixtures: one local SparkSession for the whole run (few partitions, UI off)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest



@pytest.fixture(scope="session")
def spark():
    os.environ.setdefault("LINEAGE_SHUFFLE_PARTITIONS", "2")
    from lineage.spark import get_spark

    # adaptive execution re-plans every shuffle: worth it on big data, seconds lost per tiny test query
    session = get_spark("lineage-tests", **{"spark.default.parallelism": "2", "spark.sql.adaptive.enabled": "false"})
    yield session
    session.stop()


@pytest.fixture
def warehouse(tmp_path: Path) -> Path:
    return tmp_path / "warehouse"


SCENARIO = Path(__file__).parent / "scenario"


@pytest.fixture(scope="session")
def scenario_warehouse(spark, tmp_path_factory) -> Path:
    """tests/scenario ingested and built once (with its alias file); read-only for tests."""
    from lineage.graph.build import build
    from lineage.ingest.pipeline import ingest

    warehouse = tmp_path_factory.mktemp("scenario") / "warehouse"
    ingest([SCENARIO], warehouse, spark=spark)
    build(warehouse, spark=spark, aliases=SCENARIO / "aliases.csv")
    return warehouse


@pytest.fixture(scope="session")
def bolt_server(tmp_path_factory):
    """A FalkorDB Bolt server for the export tests (each test wipes it first: see ``bolt``)."""
    import boltserver

    server = boltserver.start(tmp_path_factory.mktemp("falkordb"))
    yield server
    server.stop()


@pytest.fixture
def bolt(bolt_server):
    """The export tests' server, emptied before the test."""
    assert bolt_server.alive(), f"FalkorDB died:\n{bolt_server.log()}"
    bolt_server.wipe()
    return bolt_server


@pytest.fixture(scope="session")
def demo_warehouse(spark, tmp_path_factory) -> Path:
    """`lineage demo`'s events ingested and built once (read-only for tests)."""
    from lineage.graph.build import build
    from lineage.ingest.pipeline import ingest
    from lineage.samples import ALIASES, write_samples

    root = tmp_path_factory.mktemp("demo")
    write_samples(root / "events")
    warehouse = root / "warehouse"
    ingest([root / "events"], warehouse, spark=spark)
    (warehouse / "aliases.csv").write_text(ALIASES)
    build(warehouse, spark=spark)
    return warehouse


@pytest.fixture(scope="session")
def demo_graph(demo_warehouse, tmp_path_factory):
    """A Bolt server holding the exported demo graph, for the cypher/ query tests (read-only)."""
    import boltserver

    from lineage.export.neo4j import Target, export

    server = boltserver.start(tmp_path_factory.mktemp("falkordb-demo"))
    export(demo_warehouse, Target(server.uri), batch_size=500)
    yield server
    server.stop()
