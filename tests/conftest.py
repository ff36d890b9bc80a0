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
