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


@pytest.mark.parametrize("graphframes, spark_version, scala", [
    ("/cache/jars/graphframes-0.8.2-spark3.1-s_2.12.jar", "4.0.0", "2.13.14"),  # Spark 4 is Scala 2.13
    ("graphframes:graphframes:0.8.3-spark3.5-s_2.12", "3.4.1", "2.12.17"),  # built for a newer Spark
    ("/cache/jars/graphframes-0.8.2-spark3.1-s_2.12.jar", "3.5.9", "2.13.8"),  # a Scala 2.13 build of Spark 3.5
])
def test_a_graphframes_build_that_does_not_fit_the_running_spark_names_both(graphframes, spark_version, scala):
    from lineage.spark import SetupError, check_graphframes

    with pytest.raises(SetupError) as error:
        check_graphframes(graphframes, spark_version, scala)
    assert graphframes in str(error.value) and spark_version in str(error.value) and scala in str(error.value)


def test_the_graphframes_builds_we_ship_and_recommend_fit_spark_3_5():
    from lineage.spark import GRAPHFRAMES_JAR, check_graphframes

    check_graphframes(f"/cache/jars/{GRAPHFRAMES_JAR}", "3.5.9", "2.12.18")
    check_graphframes("graphframes:graphframes:0.8.3-spark3.5-s_2.12", "3.5.1", "2.12.18")
    check_graphframes("/opt/jars/graphframes-renamed.jar", "3.5.9", "2.12.18")  # says no build: loaded, not judged


@pytest.mark.spark
def test_the_session_s_graphframes_jar_was_checked_at_start(spark):
    from lineage.spark import verify_graphframes

    assert "graphframes" in spark.sparkContext.getConf().get("spark.jars", "")
    verify_graphframes(spark)  # the running session passes the start-up check it was made with
