"""The SparkSession factory: GraphFrames really loads, settings for clusters, Java check."""

from __future__ import annotations

import pytest

from lineage import spark as factory


@pytest.mark.spark
def test_graphframes_jar_and_python_package_work(spark):
    from graphframes import GraphFrame

    vertices = spark.createDataFrame([("a",), ("b",), ("c",), ("d",)], ["id"])
    edges = spark.createDataFrame([("a", "b"), ("b", "c"), ("c", "a")], ["src", "dst"])
    graph = GraphFrame(vertices, edges)
    reached = {row["to"]["id"] for row in graph.bfs("id = 'a'", "id = 'c'").collect()}
    assert reached == {"c"}
    distances = {row["id"]: row["distances"].get("a") for row in graph.shortestPaths(landmarks=["a"]).collect()}
    assert distances == {"a": 0, "b": 2, "c": 1, "d": None}


def test_cached_jar_matches_its_checksum():
    jar = factory.graphframes_jar(download=False)
    assert jar.name == factory.GRAPHFRAMES_JAR and factory._sha256(jar) == factory.GRAPHFRAMES_SHA256


def test_cluster_settings_coordinate_and_jar_path(tmp_path):
    coordinate = "graphframes:graphframes:0.8.3-spark3.5-s_2.12"
    assert factory.graphframes_conf(coordinate) == {"spark.jars.packages": coordinate}
    jar = factory.graphframes_jar(download=False)
    assert factory.graphframes_conf(str(jar))["spark.jars"] == str(jar)
    with pytest.raises(factory.SetupError, match="missing jar"):
        factory.graphframes_conf(str(tmp_path / "nope.jar"))


def test_missing_java_is_a_clear_setup_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(factory.SetupError, match="Java is required.*openjdk-17"):
        factory.check_java()
