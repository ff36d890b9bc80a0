"""A warehouse that survives faults, shown with real `lineage` processes (issue 16, item 5).

Each kill test runs the CLI in a subprocess that pauses at a named step (the
``LINEAGE_TEST_PAUSE_AT`` hook of :mod:`lineage.store.testhooks`: deterministic, nothing mocked),
kills its whole process group (Python driver, JVM, workers) with SIGKILL there, runs the same
command again and compares the warehouse with an uninterrupted run's: rows of events,
quarantine, facts, extraction records, vertices, edges and changes, and distinct event ids.
Counted with pyarrow, so checking costs no JVM. The killed run is a process of its own (each
costs a JVM); the run after it is the same CLI command in this process, on the test session's
Spark, which finds only what the dead process left on disk: its lock file and staged output.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from smalldata import conf_dir

from lineage.graph.build import mapping_version
from lineage.sql import memo

pytestmark = pytest.mark.spark

SRC = Path(__file__).resolve().parent.parent / "src"
DATASETS = ("events", "quarantine", "facts", "facts_extracted", "graph/vertices", "graph/edges", "graph/changes")


SMALL_DATA: dict[str, str] = {}  # SPARK_CONF_DIR of the test session's settings for tiny data (tests/smalldata.py)


@pytest.fixture(scope="module", autouse=True)
def _small_data_spark(tmp_path_factory):
    """The `lineage` processes this module starts run Spark as the test session does."""
    SMALL_DATA["SPARK_CONF_DIR"] = str(conf_dir(tmp_path_factory.mktemp("spark-conf")))
    yield
    SMALL_DATA.clear()


def cli_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}",
               LINEAGE_SHUFFLE_PARTITIONS="2", LINEAGE_DRIVER_MEMORY=os.environ.get("LINEAGE_DRIVER_MEMORY", "1g"),
               **SMALL_DATA)
    env.update(extra)
    return env


def lineage(*args: str | Path, **env: str) -> subprocess.Popen[str]:
    """`lineage ARGS` in its own process group (so a kill takes its JVM too)."""
    command = [sys.executable, "-c", "from lineage.cli import main; main()", *map(str, args)]
    return subprocess.Popen(command, env=cli_env(**env), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def run(*args: str | Path, timeout: float = 600, **env: str) -> subprocess.CompletedProcess[str]:
    process = lineage(*args, **env)
    out, err = process.communicate(timeout=timeout)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def kill_at(point: str, tmp: Path, *args: str | Path) -> int:
    """Run `lineage ARGS` until it pauses at ``point``, SIGKILL its process group there; its pid."""
    marker = tmp / f"paused-{point.replace(':', '-')}"
    process = lineage(*args, LINEAGE_TEST_PAUSE_AT=point, LINEAGE_TEST_PAUSE_FILE=str(marker))
    deadline = time.monotonic() + 300
    while not marker.exists():
        if process.poll() is not None:
            out, err = process.communicate()
            pytest.fail(f"`lineage {' '.join(map(str, args))}` ended (exit {process.returncode}) before "
                        f"reaching {point}:\n{err[-3000:]}")
        assert time.monotonic() < deadline, f"never reached {point}"
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGKILL)
    process.communicate()
    assert process.returncode == -signal.SIGKILL
    return process.pid


def again(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """`lineage ARGS` run again after a kill, in this process (see the module docstring)."""
    from click.testing import CliRunner

    from lineage.cli import main

    ran = CliRunner().invoke(main, [str(a) for a in args])
    assert ran.exception is None or isinstance(ran.exception, SystemExit), ran.exc_info
    return subprocess.CompletedProcess(args, ran.exit_code, ran.stdout, ran.stderr)


def counts(warehouse: Path) -> dict[str, int]:
    """Rows of each dataset, and distinct (source, event_id) of the events."""
    found: dict[str, int] = {}
    for name in DATASETS:
        path = warehouse / name
        found[name] = ds.dataset(path, format="parquet", partitioning="hive").count_rows() if path.is_dir() else 0
    events = ds.dataset(warehouse / "events", format="parquet", partitioning="hive").to_table(
        columns=["source", "event_id"])
    found["distinct events"] = len(set(zip(events.column("source").to_pylist(), events.column("event_id").to_pylist())))
    return found


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    from lineage.generate.samples import write_samples

    folder = tmp_path_factory.mktemp("inputs") / "events"
    write_samples(folder, days=2)
    return folder


@pytest.fixture(scope="module")
def uninterrupted(spark, inputs, tmp_path_factory) -> dict[str, object]:
    """The samples ingested (kept apart: where the build tests start) and built, without faults."""
    from lineage.graph.build import build
    from lineage.ingest.pipeline import ingest

    root = tmp_path_factory.mktemp("uninterrupted")
    ingested = root / "ingested"
    ingest([inputs], ingested, spark=spark)
    built = root / "built"
    shutil.copytree(ingested, built)
    build(built, spark=spark)
    expected = counts(built)
    assert all(expected[name] > 0 for name in DATASETS), expected  # every dataset is really compared
    return {"ingested": ingested, "built": built, "counts": expected}


def assert_at_rest(warehouse: Path) -> None:
    """Nothing staged is left behind, and the lock is released (its file empty)."""
    assert not (warehouse / ".txn").exists(), list((warehouse / ".txn").rglob("*"))
    assert (warehouse / ".lock").read_text() == ""


RECOVERY = {"committed": "finished the commit of an interrupted run",
            "staged": "discarded the uncommitted output of an interrupted run"}

INGEST_KILLS = {
    # point: (what the killed run had done, what the next run finds of it)
    "ingest.file:2": ("parsed 2 of the 5 input files, nothing written yet", None),
    "ingest.write:1": ("during the parquet write: events staged, quarantine not yet", "staged"),
    "ingest.commit:3": ("during the commit: the journal written, 3 of its renames done", "committed"),
}


@pytest.mark.parametrize("point", INGEST_KILLS)
def test_an_ingest_killed_then_run_again_stores_what_an_uninterrupted_one_does(point, inputs, uninterrupted, tmp_path,
                                                                              spark):
    warehouse = tmp_path / "warehouse"
    left = INGEST_KILLS[point][1]
    pid = kill_at(point, tmp_path, "ingest", inputs, "--warehouse", warehouse)
    assert (warehouse / ".txn").is_dir() == (left is not None)  # what the killed run staged is still there
    assert json.loads((warehouse / ".lock").read_text())["pid"] == pid  # and its name in the lock file

    rerun = again("ingest", inputs, "--warehouse", warehouse, "--json")
    assert rerun.returncode == 0, rerun.stderr
    assert f"taking over the stale lock of pid {pid}" in rerun.stderr
    for state, message in RECOVERY.items():
        assert (message in rerun.stderr) == (state == left), rerun.stderr
    summary = json.loads(rerun.stdout)
    expected = uninterrupted["counts"]
    # killed before its commit, the first run stored nothing; killed during it, recovery finished it
    committed = left == "committed"
    assert summary["total"]["accepted"] == (0 if committed else expected["events"])
    assert summary["total"]["duplicates"] == (expected["events"] if committed else 0)
    found = counts(warehouse)
    for name in ("events", "distinct events", "quarantine"):
        assert found[name] == expected[name], (name, found, expected)
    assert len(list((warehouse / "runs").glob("*.json"))) == (2 if committed else 1)
    assert_at_rest(warehouse)


BUILD_KILLS = {
    "build.write": ("during the facts write: facts staged, the record of their extraction not yet", "staged"),
    "build.graph-write:2": ("during the graph write: facts committed; vertices, edges staged, changes not yet",
                            "staged"),
    "build.graph.commit:2": ("during the graph commit: the build log and changes in place, edges and vertices "
                             "not yet", "committed"),
}


@pytest.mark.parametrize("point", BUILD_KILLS)
def test_a_build_killed_then_run_again_builds_what_an_uninterrupted_one_does(point, uninterrupted, tmp_path, spark):
    warehouse = tmp_path / "warehouse"
    shutil.copytree(uninterrupted["ingested"], warehouse)
    pid = kill_at(point, tmp_path, "build", "--warehouse", warehouse)
    assert (warehouse / ".txn").is_dir()

    rerun = again("build", "--warehouse", warehouse, "--json")
    assert rerun.returncode == 0, rerun.stderr
    assert f"taking over the stale lock of pid {pid}" in rerun.stderr
    assert RECOVERY[BUILD_KILLS[point][1]] in rerun.stderr
    summary = json.loads(rerun.stdout)
    expected = uninterrupted["counts"]
    # the facts were committed before the graph step: then the second build has no event left to extract
    facts_were_committed = point.startswith("build.graph")
    assert summary["new_events"] == (0 if facts_were_committed else expected["events"])
    assert counts(warehouse) == expected
    assert (summary["vertices"], summary["edges"], summary["changes"]) \
        == (expected["graph/vertices"], expected["graph/edges"], expected["graph/changes"])
    assert len(list((warehouse / "builds").glob("*.json"))) == (2 if point == "build.graph.commit:2" else 1)
    assert_at_rest(warehouse)


def test_two_ingests_at_once_one_waits_and_nothing_is_lost(inputs, uninterrupted, tmp_path):
    first_half, second_half = tmp_path / "a", tmp_path / "b"
    for index, path in enumerate(sorted(inputs.iterdir())):
        target = first_half if index % 2 == 0 else second_half
        target.mkdir(exist_ok=True)
        shutil.copy(path, target / path.name)
    warehouse = tmp_path / "warehouse"
    marker, resume = tmp_path / "first-paused", tmp_path / "first-resumes"
    # the first holds the lock, paused after its first file until the second says it waits for it
    first = lineage("ingest", first_half, "--warehouse", warehouse, LINEAGE_TEST_PAUSE_AT="ingest.file:1",
                    LINEAGE_TEST_PAUSE_FILE=str(marker), LINEAGE_TEST_RESUME_FILE=str(resume))
    deadline = time.monotonic() + 300
    while not marker.exists():
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()
        time.sleep(0.2)

    impatient = run("ingest", second_half, "--warehouse", warehouse, "--wait", "0")
    assert impatient.returncode == 2
    assert f"being written by pid {first.pid} on " in impatient.stderr
    assert "(lineage ingest, since " in impatient.stderr and "--wait" in impatient.stderr
    assert "Traceback" not in impatient.stderr

    second = lineage("ingest", second_half, "--warehouse", warehouse, "--wait", "600")
    waiting = f"waiting up to 600 s for the warehouse lock held by pid {first.pid}"
    said = []
    for line in second.stderr:  # up to the line saying it waits (or its end, if it never says so)
        said.append(line)
        if waiting in line:
            break
    resume.touch()
    first_out, first_err = first.communicate(timeout=600)
    second_out, second_err = second.communicate(timeout=600)
    second_err = "".join(said) + second_err
    assert (first.returncode, second.returncode) == (0, 0), (first_err, second_err)
    assert waiting in second_err
    assert "stale" not in second_err
    expected = uninterrupted["counts"]
    found = counts(warehouse)
    for name in ("events", "distinct events", "quarantine"):
        assert found[name] == expected[name], (name, found, expected)
    assert_at_rest(warehouse)


def test_a_damaged_file_is_named_with_its_repair_and_the_repair_works(spark, inputs, uninterrupted, tmp_path):
    from click.testing import CliRunner

    from lineage.cli import main

    warehouse = tmp_path / "warehouse"
    shutil.copytree(uninterrupted["built"], warehouse)
    runner = CliRunner()

    # an event file cut short: reading it fails with one line naming it and the repair
    event_file = sorted((warehouse / "events").rglob("*.parquet"))[0]
    event_file.write_bytes(event_file.read_bytes()[: event_file.stat().st_size // 2])
    build = runner.invoke(main, ["build", "--warehouse", str(warehouse)])
    assert build.exit_code == 2, build.output
    assert f"damaged file in the warehouse (events): {event_file}" in build.output
    assert f"lineage repair --warehouse {warehouse}" in build.output
    assert "Traceback" not in build.output and "Py4J" not in build.output

    # the repair: the file moved aside, the inputs ingested again; the events are whole again
    repaired = runner.invoke(main, ["repair", "--warehouse", str(warehouse)])
    assert repaired.exit_code == 0, repaired.output
    assert f"moved {event_file.relative_to(warehouse)} to damaged/" in repaired.output
    assert (warehouse / "damaged" / event_file.relative_to(warehouse)).is_file()
    assert counts(warehouse)["events"] < uninterrupted["counts"]["events"]
    again = runner.invoke(main, ["ingest", str(inputs), "--warehouse", str(warehouse), "--json"])
    assert again.exit_code == 0, again.output
    expected = uninterrupted["counts"]
    assert counts(warehouse)["events"] == counts(warehouse)["distinct events"] == expected["events"]

    # a facts file cut short: `build` names it and says `build --full`, which repairs it
    facts_file = sorted((warehouse / "facts").rglob("*.parquet"))[0]
    facts_file.write_bytes(facts_file.read_bytes()[:100])
    failed = runner.invoke(main, ["build", "--warehouse", str(warehouse)])
    assert failed.exit_code == 2, failed.output
    assert f"damaged file in the warehouse (facts): {facts_file}" in failed.output
    assert f"lineage build --full --warehouse {warehouse}" in failed.output
    stale = warehouse / "cache" / "sql" / "an-older-version" / "ab" / "x.json"  # script analyses of other code
    stale.parent.mkdir(parents=True)
    stale.write_text("[]")
    full = runner.invoke(main, ["build", "--full", "--warehouse", str(warehouse), "--json"])
    assert full.exit_code == 0, full.output
    assert counts(warehouse) == expected
    # --full analysed every script again: only this code's analyses are kept, for the next build
    kept = list((warehouse / "cache" / "sql").iterdir())
    assert [p.name for p in kept] == [memo.directory(Path(), mapping_version()).name]
    assert any(kept[0].rglob("*.json"))
