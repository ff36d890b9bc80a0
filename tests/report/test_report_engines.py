"""The report walks first and reads its context after (issue 31): the Spark engine gives the local
engine's report, and a Spark JVM the walk started is ended before the context is read, so the two
are never held at once (together they passed 7 GB on a 16.6M-pair platform)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from lineage import spark as sparks
from lineage.cli import main

from .conftest import WEEK

pytestmark = pytest.mark.spark


def _report(warehouse, out, engine):
    ran = CliRunner().invoke(main, ["report", "--warehouse", str(warehouse), "--out", str(out), "--week", WEEK,
                                    "--engine", engine, "--fresh-history", "--json"])
    assert ran.exit_code == 0, ran.output
    found = json.loads(ran.stdout)
    assert found.pop("engine") == engine
    found.pop("generated_at")
    return found


def test_the_report_on_spark_is_the_local_report_and_a_running_session_is_left_running(
        spark, demo_warehouse, tmp_path):
    answers = {}
    for engine in ("local", "spark"):
        warehouse = tmp_path / engine / "warehouse"
        shutil.copytree(demo_warehouse, warehouse, symlinks=True)
        answers[engine] = _report(warehouse, tmp_path / engine / "out", engine)
    assert answers["spark"] == answers["local"]
    assert any(change["affected_count"] for change in answers["local"]["changes"])
    # the tests' session was running before the walk: the report did not end it
    assert sparks.running() and spark.range(3).count() == 3


WALK = textwrap.dedent("""
    import json, sys
    from pyspark import SparkContext
    from lineage import spark
    from lineage.analysis.engines import walking
    from lineage.analysis.spark_temporal import SparkTraversal

    with walking(sys.argv[1], "spark") as walker:
        assert isinstance(walker, SparkTraversal) and spark.running()
        jvm = SparkContext._gateway.proc
        alive = jvm.poll() is None
        heap = walker.spark.sparkContext.getConf().get("spark.driver.memory")
    ended = {"alive_while_walking": alive, "running_after": spark.running(), "jvm_exit": jvm.poll(), "heap": heap}
    try:
        with walking(sys.argv[1], "spark") as walker:  # a new JVM, then a failure inside the walk
            failing = SparkContext._gateway.proc
            raise RuntimeError("the walk failed")
    except RuntimeError:
        pass
    ended["kept_on_error"] = spark.running() and failing.poll() is None
    print(json.dumps(ended))
""")


def test_a_walk_that_started_spark_ends_its_jvm_but_not_on_an_error(demo_warehouse):
    environment = {k: v for k, v in os.environ.items() if k != "LINEAGE_DRIVER_MEMORY"}
    ran = subprocess.run([sys.executable, "-c", WALK, str(demo_warehouse)], capture_output=True, text=True,
                         timeout=600, env=environment)
    assert ran.returncode == 0, ran.stderr[-3000:]
    found = json.loads(ran.stdout.strip().splitlines()[-1])
    # the demo's graph is small: its walk gets the least heap (engines.WALK_FLOOR), not the default 4 GiB
    assert found == {"alive_while_walking": True, "running_after": False, "jvm_exit": 0, "heap": "2048m",
                     "kept_on_error": True}
