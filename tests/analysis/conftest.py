"""The analysis tests' ``engine`` fixture: one hand-checked test, run on each graph engine."""

from __future__ import annotations

from typing import Any, Callable

import pytest


@pytest.fixture(params=["local", pytest.param("spark", marks=pytest.mark.spark)])
def engine(request) -> Callable[[list[dict[str, Any]], list[dict[str, Any]]], Any]:
    """A factory ``(vertices, edges) -> engine`` for the parametrized engine (``local`` needs no JVM;
    ``spark`` builds the same rows as DataFrames on the session SparkSession)."""
    from lineage.analysis.local import LocalEngine

    if request.param == "local":
        return LocalEngine
    spark = request.getfixturevalue("spark")
    from lineage.analysis.spark import SparkEngine

    def make(vertices: list[dict[str, Any]], edges: list[dict[str, Any]]) -> SparkEngine:
        v = spark.createDataFrame([(r["id"], r["label"]) for r in vertices], "id string, label string")
        e = spark.createDataFrame([(r["src"], r["dst"], r["relationship"]) for r in edges],
                                  "src string, dst string, relationship string")
        return SparkEngine(v, e)

    return make
