"""The jobs on a real Spark cluster, not only local[2].

``benchmarks/cluster.sh`` starts Spark's standalone master and one worker on 127.0.0.1; ``lineage
build`` and ``lineage blast-radius --engine spark`` run on it with ``--spark-master`` and through
``spark-submit`` (package zip on ``--py-files``, GraphFrames with ``--jars``), and must give the
same graph and the same blast radius as local[2]. Two things a single machine would hide are made
visible: the cluster's Python has every dependency but not ``lineage`` (so the executors run only
what the job ships them), and the worker runs in another time zone (so the executors' zone must
not leak into the times of the facts). The jobs run with the test session's settings for tiny data
(``tests/smalldata.py``, as a ``spark-defaults.conf`` in their ``SPARK_CONF_DIR``), as local[2] does.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import lineage
from smalldata import conf_dir

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "cluster.sh"
SRC = Path(lineage.__file__).resolve().parents[1]
WORKER_TZ = "Asia/Shanghai"  # UTC+8: any leak of the executors' zone shifts times by hours
TIMEOUT = 900  # seconds per command; ~20 s each on an idle 2-core machine


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Cluster:
    url: str
    env: dict[str, str]  # for the jobs: cluster.sh settings and the cluster's Python


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> Path:
    """A Python with every installed dependency but not ``lineage``: site-packages comes in
    through PYTHONPATH, so the editable install's .pth file is never read (``-S``)."""
    site = sysconfig.get_paths()["purelib"]
    wrapper = tmp_path_factory.mktemp("python") / "python"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="${{PYTHONPATH:+$PYTHONPATH:}}{site}" exec {sys.executable} -S "$@"\n')
    wrapper.chmod(0o755)
    without_path = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    probe = subprocess.run([str(wrapper), "-c", "import pyspark, pydantic, click; import lineage"],
                           capture_output=True, text=True, cwd="/", env=without_path)
    assert "No module named 'lineage'" in probe.stderr, f"the bare Python must lack lineage: {probe.stderr}"
    return wrapper


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, bare_python) -> Iterator[Cluster]:
    """A standalone master and one worker (free ports, state in a temp dir), always stopped."""
    from lineage.spark import check_java

    check_java()  # a clear SetupError, not a skip, when Java is missing
    port, ui, worker_ui = _free_port(), _free_port(), _free_port()
    env = {
        **os.environ,
        "LINEAGE_PYTHON": sys.executable,
        "LINEAGE_CLUSTER_DIR": str(tmp_path_factory.mktemp("cluster")),
        "LINEAGE_CLUSTER_PORT": str(port),
        "LINEAGE_CLUSTER_UI_PORT": str(ui),
        "LINEAGE_CLUSTER_WORKER_UI_PORT": str(worker_ui),
        "LINEAGE_CLUSTER_TIMEOUT": "300",
    }
    try:
        up = subprocess.run([str(SCRIPT), "up"], env={**env, "TZ": WORKER_TZ}, capture_output=True, text=True,
                            timeout=TIMEOUT)
        assert up.returncode == 0, f"benchmarks/cluster.sh up failed (Java? ports?):\n{up.stderr}"
        status = subprocess.run([str(SCRIPT), "status"], env=env, capture_output=True, text=True, timeout=60)
        assert status.returncode == 0 and "ALIVE 1" in status.stderr, status.stderr
        yield Cluster(f"spark://127.0.0.1:{port}", {**env, "PYSPARK_PYTHON": str(bare_python),
                                                     "SPARK_CONF_DIR": str(conf_dir(tmp_path_factory.mktemp("spark-conf")))})
    finally:
        down = subprocess.run([str(SCRIPT), "down"], env=env, capture_output=True, text=True, timeout=120)
        assert down.returncode == 0, down.stderr
    after = subprocess.run([str(SCRIPT), "status"], env=env, capture_output=True, text=True, timeout=60)
    assert after.returncode == 3 and "master: not running" in after.stderr, after.stderr


@pytest.fixture(scope="module")
def local_run(spark, tmp_path_factory) -> dict[str, object]:
    """The demo's events (2 days) ingested and built on local[2], and its blast radius there."""
    from click.testing import CliRunner

    from lineage.cli import main
    from lineage.graph.build import build
    from lineage.ingest.pipeline import ingest
    from lineage.generate.samples import ALIASES, write_samples

    root = tmp_path_factory.mktemp("local")
    write_samples(root / "events", days=2)
    warehouse = root / "warehouse"
    ingest([root / "events"], warehouse, spark=spark)
    (warehouse / "aliases.csv").write_text(ALIASES)
    built = build(warehouse, spark=spark).to_json()
    blast = CliRunner().invoke(main, ["blast-radius", "--engine", "spark", "--warehouse", str(warehouse), "--json"])
    assert blast.exit_code == 0, blast.output
    return {"warehouse": warehouse, "build": built, "blast": json.loads(blast.stdout)}


def _master(cluster: Cluster, *args: str) -> list[str]:
    """The CLI as a driver on this machine, its executors on the cluster."""
    return [sys.executable, "-m", "lineage", "--spark-master", cluster.url, *args]


def _submit(cluster: Cluster, *args: str) -> list[str]:
    """The CLI submitted whole to the cluster by spark-submit."""
    return [str(SCRIPT), "submit", *args]


WAYS = {"spark-master": _master, "spark-submit": _submit}
EXECUTOR_MB = {"spark-master": 768, "spark-submit": 640}


def _executor_memory(cluster: Cluster) -> set[int]:
    """The executor memory (MB) of every application the master has run, from its status JSON."""
    from urllib.request import urlopen

    with urlopen(f"http://127.0.0.1:{cluster.env['LINEAGE_CLUSTER_UI_PORT']}/json/", timeout=30) as answer:
        status = json.load(answer)
    return {app["memoryperexecutor"] for app in status.get("completedapps", []) + status.get("activeapps", [])}


def _run(command: list[str], env: dict[str, str], cwd: Path) -> dict[str, object]:
    done = subprocess.run(command, env={**env, "PYTHONPATH": str(SRC)}, cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def _rows(rows: list[dict[str, object]]) -> list[str]:
    return sorted(json.dumps(row, sort_keys=True, default=str) for row in rows)


@pytest.mark.slow
@pytest.mark.spark
@pytest.mark.parametrize("way", WAYS)
def test_cluster_gives_the_local_answers(way, cluster, local_run, tmp_path):
    from lineage.graph.api import change_rows, load_rows

    warehouse = tmp_path / "warehouse"
    warehouse.mkdir()
    shutil.copytree(local_run["warehouse"] / "events", warehouse / "events")
    shutil.copy(local_run["warehouse"] / "aliases.csv", warehouse / "aliases.csv")
    command = WAYS[way]

    memory = EXECUTOR_MB[way]  # LINEAGE_EXECUTOR_MEMORY sizes the executors both ways (Spark's default: 1g)
    built = _run(command(cluster, "build", "--warehouse", str(warehouse), "--json"),
                 {**cluster.env, "LINEAGE_EXECUTOR_MEMORY": f"{memory}m"}, tmp_path)
    assert memory in _executor_memory(cluster)
    run_keys = ("build_id", "warehouse", "generation")  # this run's own names (the generation is g-<build id>)
    expected = {k: v for k, v in local_run["build"].items() if k not in run_keys}
    assert {k: v for k, v in built.items() if k not in run_keys} == expected
    assert built["vertices"] > 0 and built["edges"] > 0 and built["new_facts"] > 0

    # the same rows, not only the same counts (times included: the worker runs in UTC+8)
    local_v, local_e = load_rows(local_run["warehouse"])
    v, e = load_rows(warehouse)
    assert _rows(v) == _rows(local_v)
    assert _rows(e) == _rows(local_e)
    assert _rows(change_rows(warehouse)) == _rows(change_rows(local_run["warehouse"]))

    blast = _run(command(cluster, "blast-radius", "--engine", "spark", "--warehouse", str(warehouse), "--json"),
                 cluster.env, tmp_path)
    assert blast == local_run["blast"]
    assert blast["changes"] and any(change["summary"] for change in blast["changes"])


def test_package_zip_holds_the_package_and_only_it(tmp_path, monkeypatch):
    import zipfile

    from lineage.spark import package_zip

    monkeypatch.setenv("LINEAGE_CACHE", str(tmp_path))
    first = package_zip()
    assert package_zip() == first and first.parent == tmp_path / "pyfiles"
    names = zipfile.ZipFile(first).namelist()
    expected = {f"lineage/{p.relative_to(SRC / 'lineage').as_posix()}" for p in (SRC / "lineage").rglob("*")
                if p.is_file() and "__pycache__" not in p.parts}
    assert set(names) == expected
    assert {"lineage/__init__.py", "lineage/cli/__init__.py", "lineage/conf/log4j2.properties"} <= set(names)
    probe = subprocess.run([sys.executable, "-c", "import lineage.graph.build, lineage; print(lineage.__file__)"],
                           env={**os.environ, "PYTHONPATH": str(first)}, cwd="/", capture_output=True, text=True)
    assert probe.returncode == 0 and probe.stdout.strip() == f"{first}/lineage/__init__.py", probe.stderr


def test_the_entry_file_runs_the_cli_as_a_script():
    """spark-submit runs ``src/lineage/__main__.py`` as a file: its own directory must not
    shadow top-level modules (lineage has ``io``, ``spark``, ...)."""
    done = subprocess.run([sys.executable, str(SRC / "lineage" / "__main__.py"), "--help"],
                          env={**os.environ, "PYTHONPATH": str(SRC)}, cwd="/", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Usage: lineage ") and "blast-radius" in done.stdout


def test_a_taken_port_is_a_clear_error(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "LINEAGE_PYTHON": sys.executable, "LINEAGE_CLUSTER_DIR": str(tmp_path),
               "LINEAGE_CLUSTER_PORT": str(port), "LINEAGE_CLUSTER_UI_PORT": str(_free_port())}
        up = subprocess.run([str(SCRIPT), "up"], env=env, capture_output=True, text=True, timeout=120)
    assert up.returncode == 1
    assert f"port {port} (master) is already in use" in up.stderr
    assert not list(tmp_path.glob("*.pid"))  # nothing was started
