"""Shared fixtures: one local SparkSession for the whole run (few partitions, UI off).

Every test that uses the ``spark`` fixture, directly or through another fixture (``scenario_warehouse``,
``demo_warehouse``, ...), is marked ``spark`` at collection, so ``pytest -m "not spark"`` is the fast
suite. That run also checks it kept its promise: a test of it that starts a JVM anyway fails by name.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden", action="store_true", default=False,
        help="write missing or changed golden files (tests/facts/golden); those tests fail until committed",
    )


def pytest_collection_modifyitems(config, items):
    """Mark every test whose fixture closure reaches the session ``spark`` fixture."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.spark)


def _jvm_started() -> bool:
    """True once this process has launched Spark's JVM (py4j gateway), by any route."""
    context = sys.modules.get("pyspark.context")
    return context is not None and context.SparkContext._gateway is not None


@pytest.fixture(autouse=True)
def _no_jvm_in_fast_suite(request):
    """Under ``-m "not spark"`` a test must not start Spark: mark it (or use the fixture) instead."""
    if "not spark" not in (request.config.getoption("markexpr") or "") or request.node.get_closest_marker("spark"):
        yield
        return
    started = _jvm_started()
    yield
    assert started or not _jvm_started(), (
        f"{request.node.nodeid} started a JVM in the fast suite (-m 'not spark'): "
        "use the `spark` fixture or mark it `spark`"
    )


@pytest.fixture(scope="session")
def spark(request):
    assert "not spark" not in (request.config.getoption("markexpr") or ""), (
        "the spark fixture was requested in a -m 'not spark' run: the marking hook missed a test"
    )
    os.environ.setdefault("LINEAGE_SHUFFLE_PARTITIONS", "2")
    from lineage.spark import get_spark
    from smalldata import SPARK_CONF

    session = get_spark("lineage-tests", **SPARK_CONF)  # tuned for tiny data: see tests/smalldata.py
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
    from lineage.generate.samples import ALIASES, write_samples

    root = tmp_path_factory.mktemp("demo")
    write_samples(root / "events")
    warehouse = root / "warehouse"
    ingest([root / "events"], warehouse, spark=spark)
    (warehouse / "aliases.csv").write_text(ALIASES)
    build(warehouse, spark=spark)
    return warehouse


@pytest.fixture(scope="session")
def demo_graph(demo_warehouse, tmp_path_factory):
    """A Bolt server holding the exported demo graph with its impact (`--with-impact`), for the
    cypher/ query tests (read-only)."""
    import boltserver

    from lineage.export.impact import export_impact
    from lineage.export.neo4j import Target, export

    def load(server) -> None:
        export(demo_warehouse, Target(server.uri), batch_size=500)
        export_impact(demo_warehouse, Target(server.uri), engine="local")

    server = boltserver.loaded(lambda: tmp_path_factory.mktemp("falkordb-demo"), load)
    yield server
    server.stop()


def generated_platform(spark, root: Path, tables: int, days: int, ingest_json: bool = False, planted_failures: int = 0):
    """`lineage generate --tables N --days D` into ``root/platform``, ingested through the CLI into
    ``root/warehouse`` (its aliases beside it) and built: the one shape of the generated-platform
    fixtures. ``ingest`` is the parsed `ingest --json` summary when ``ingest_json``, else None."""
    import json
    from types import SimpleNamespace

    from click.testing import CliRunner

    from lineage.cli import main
    from lineage.generate import generate
    from lineage.graph.build import build

    result = generate(root / "platform", tables=tables, days=days, planted_failures=planted_failures)
    warehouse = root / "warehouse"
    ran = CliRunner().invoke(main, ["ingest", str(root / "platform" / "events"), "--warehouse", str(warehouse),
                                    *(["--json"] if ingest_json else [])])
    assert ran.exit_code == 0, ran.output
    (warehouse / "aliases.csv").write_text((root / "platform" / "aliases.csv").read_text())
    build(warehouse, spark=spark)
    return SimpleNamespace(root=root / "platform", warehouse=warehouse, summary=result.summary,
                           ingest=json.loads(ran.stdout) if ingest_json else None, truth=root / "platform" / "truth")


GENERATED_TABLES, GENERATED_DAYS = 60, 8
"""The generated platform of the generator, ground-truth and notebook tests: small, built once."""


@pytest.fixture(scope="session")
def generated(spark, tmp_path_factory):
    """`lineage generate --tables 60 --days 8` ingested (with `ingest --json`) and built once (read-only)."""
    return generated_platform(spark, tmp_path_factory.mktemp("generated"), GENERATED_TABLES, GENERATED_DAYS,
                              ingest_json=True)


PLATFORM_TABLES, PLATFORM_DAYS = 1000, 7
"""The realistic-size platform the cypher/ queries must hold on (issue 18): built once, slow."""


@pytest.fixture(scope="session")
def platform(spark, tmp_path_factory):
    """`lineage generate --tables 1000 --days 7` ingested and built once (read-only)."""
    return generated_platform(spark, tmp_path_factory.mktemp("platform"), PLATFORM_TABLES, PLATFORM_DAYS)


@pytest.fixture(scope="session")
def platform_graph(platform, tmp_path_factory):
    """A Bolt server holding the exported platform with its impact (`export neo4j --with-impact`
    over the whole history), for the cypher/ query tests (read-only; the impact test rewrites
    the impact and leaves it as it found it). Loaded as `export neo4j` loads an empty FalkorDB by
    default when it reaches the Redis port: its 114,000 rows take the bulk path (`--bulk auto`),
    the impact goes over Bolt (over Bolt alone the load took 88 s of the suite; tests/export
    covers the Bolt path, and that both paths load the same graph)."""
    import boltserver

    from lineage.export.bulk import BULK_MIN_ROWS
    from lineage.export.impact import export_impact
    from lineage.export.neo4j import Target, export

    def load(server) -> None:
        done = export(platform.warehouse, Target(server.uri), batch_size=1000,
                      redis_url=server.redis_url)
        assert done.method == "falkordb-bulk-loader" and done.nodes + done.relationships >= BULK_MIN_ROWS, done
        export_impact(platform.warehouse, Target(server.uri), engine="local")

    server = boltserver.loaded(lambda: tmp_path_factory.mktemp("falkordb-platform"), load)
    yield server
    server.stop()
