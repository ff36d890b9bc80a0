"""Out of memory is an answer, not a hang (issue 31): each engine is made to run out in
`blast-radius` and `report`, in a subprocess, and must end with exit 1 and one paragraph naming
what to raise or which engine to try; and `auto` chooses by what the answer will cost."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from lineage.analysis.engines import GIB, Budget, Question, choose

LINEAGE = str(Path(sys.executable).parent / "lineage")
ENDS_WITHIN = 600  # seconds: a run that has not ended by then is the hang this guards against


def _last_week(warehouse: Path) -> str:
    from lineage.graph.api import change_rows
    from lineage.report.window import week_of

    return week_of(max(c["time"] for c in change_rows(warehouse) if c["time"])).name


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, **env}
    return subprocess.run([LINEAGE, *args], capture_output=True, text=True, timeout=ENDS_WITHIN, env=environment)


def _commands(warehouse: Path, out: Path, engine: str) -> dict[str, list[str]]:
    return {
        "blast-radius": ["blast-radius", "--warehouse", str(warehouse), "--engine", engine, "--json"],
        "report": ["report", "--warehouse", str(warehouse), "--out", str(out), "--week", _last_week(warehouse),
                   "--engine", engine],
    }


def _paragraph(stderr: str) -> str:
    """The lines lineage itself wrote (the JVM's own 'Picked up' note aside)."""
    return "\n".join(line for line in stderr.splitlines() if line.startswith("lineage:"))


def test_local_engine_out_of_memory_names_the_cap_and_the_other_engine(generated, tmp_path):
    for name, args in _commands(generated.warehouse, tmp_path / "report", "local").items():
        ran = _run(args, LINEAGE_LOCAL_MEMORY="64m")  # far below what Python with numpy holds
        said = _paragraph(ran.stderr)
        assert ran.returncode == 1, (name, ran.stderr[-2000:])
        assert said.count("\n") == 0 and "ran out of memory" in said, (name, ran.stderr[-2000:])
        assert "LINEAGE_LOCAL_MEMORY" in said and "--engine spark" in said, said
        assert "Traceback" not in ran.stderr, ran.stderr[-2000:]
        assert ran.stdout == "", name  # no half answer


def test_spark_engine_out_of_memory_ends_the_command_and_names_the_driver_memory(generated, tmp_path):
    # Spark refuses a heap under 450 MiB unless its reserved memory is 0 (its own test setting,
    # read from a JVM system property); a 40 MiB heap then runs out reading the graph.
    tiny = {"LINEAGE_DRIVER_MEMORY": "40m", "JDK_JAVA_OPTIONS": "-Dspark.testing.reservedMemory=0 -XX:+UseParallelGC"}
    for name, args in _commands(generated.warehouse, tmp_path / "report", "spark").items():
        ran = _run(args, **tiny)
        said = _paragraph(ran.stderr)
        assert ran.returncode == 1, (name, ran.stderr[-3000:])
        assert said.count("\n") == 0 and "ran out of memory" in said, (name, ran.stderr[-3000:])
        assert "LINEAGE_DRIVER_MEMORY" in said and "40m" in said and "--engine local" in said, said
        # the JVM's own one line ("Terminating due to java.lang.OutOfMemoryError") on stderr, no stack
        assert "\tat " not in ran.stderr and "Traceback" not in ran.stderr and "Py4J" not in ran.stderr, ran.stderr[-3000:]
        assert ran.stdout == "", name


def test_auto_answers_a_question_about_given_ids_locally_at_any_size(generated, monkeypatch):
    from lineage.analysis.api import impact
    from lineage.graph.api import load_rows

    monkeypatch.setenv("LINEAGE_LOCAL_MAX_EDGES", "0")  # every graph is "big"
    table = next(v["id"] for v in load_rows(generated.warehouse)[0] if v.get("label") == "Table")
    assert impact(generated.warehouse, [table], as_of="2100-01-01").engine == "local"


# `choose` on hand-made sizes -------------------------------------------------------------------

MACHINE = Budget(available=18 * GIB, driver=4 * GIB)  # this 24 GiB machine with its default driver
ISSUE = (461_875, 1_375_476)  # the graph of issue 31: vertices, edges


def test_one_entity_is_local_whatever_the_graph_and_the_memory():
    for vertices, edges in (ISSUE, (10**9, 5 * 10**9)):
        assert choose(vertices, edges, Question(entity=True), Budget(available=GIB, driver=64 * GIB)) == "local"


def test_small_graphs_are_local_without_an_estimate():
    assert choose(1000, 400_000, Question(breaks=10**6, kept=None), Budget(available=0, driver=64 * GIB)) == "local"


def test_the_issues_window_is_local_on_this_machine():
    # 28,227 changes of which ~2,000 breaks, 100 affected kept per change: the graph takes ~0.3 GiB
    assert choose(*ISSUE, Question(breaks=2_000, changes=28_227, kept=100), MACHINE) == "local"
    # summaries only (--full streams): the same
    assert choose(*ISSUE, Question(breaks=2_000, changes=28_227, kept=0), MACHINE) == "local"


def test_a_graph_bigger_than_the_memory_goes_to_the_engine_that_holds_it():
    huge = (200_000_000, 600_000_000)  # ~130 GiB of local arrays
    assert choose(*huge, Question(breaks=10, changes=10), Budget(available=18 * GIB, driver=4 * GIB, cluster=True)) == "spark"
    # no cluster: Spark's driver would need as much heap; neither fits, and local's shortfall is smaller
    assert choose(*huge, Question(breaks=10, changes=10), MACHINE) == "local"
    # 30M vertices, 90M edges: ~19 GiB of local arrays, ~15 GiB as Spark rows; a 16 GiB heap holds them
    big = (30_000_000, 90_000_000)
    assert choose(*big, Question(breaks=10, changes=10), Budget(available=22 * GIB, driver=16 * GIB)) == "spark"
    assert choose(*big, Question(breaks=10, changes=10), Budget(available=22 * GIB, driver=4 * GIB)) == "local"


def test_keeping_every_pair_never_sends_the_answer_to_spark():
    # 2,000 breaks over 5,000 vertices, every pair kept (10M pairs, as the report asks): they end
    # as Python objects in this process on either engine, so Spark only adds its heap
    question = Question(breaks=2_000, changes=2_000, kept=None)
    for available, driver in ((20, 16), (4, 4), (3, 2.9), (18, 64)):
        assert choose(5_000, 600_000, question, Budget(available=int(available * GIB), driver=int(driver * GIB))) == "local"


def test_hygiene_is_local_while_the_rows_it_reads_fit():
    # the 10^6-event platform with columns: hygiene reads 847,358 rows (1.5 GiB measured; ~1.8 estimated),
    # where `auto` used to send any graph over 500,000 edge rows to Spark (128 s and 9 GB there)
    question, graph = Question(rows=847_358), (385_608, 1_305_060)
    assert choose(*graph, question, MACHINE) == "local"
    assert choose(*graph, question, Budget(available=GIB, driver=4 * GIB, cluster=True)) == "spark"
    # ten times the rows on a machine with 12 GiB free: the graph's rows still fit a 4 GiB heap
    assert choose(3_856_080, 13_050_600, Question(rows=8_473_580), Budget(available=12 * GIB, driver=4 * GIB)) == "spark"


def test_hygiene_auto_counts_its_rows_and_answers_locally(generated, monkeypatch):
    from lineage.analysis import hygiene
    from lineage.analysis.api import hygiene as hygiene_of
    from lineage.graph.api import load_rows, rows_read

    monkeypatch.setenv("LINEAGE_LOCAL_MAX_EDGES", "0")  # every graph is "big": the estimate decides
    read = load_rows(generated.warehouse, relationships=hygiene.READ, without=hygiene.NEVER_READ,
                     labels=hygiene.DATASET_LABELS, properties=hygiene.READ)
    counted = rows_read(generated.warehouse, relationships=hygiene.READ, without=hygiene.NEVER_READ)
    assert len(read[0]) + len(read[1]) <= counted <= sum(map(len, load_rows(generated.warehouse)))
    assert hygiene_of(generated.warehouse, engine="auto").engine == "local"


def test_a_given_engine_never_pays_for_the_estimate(generated):
    from lineage.analysis.engines import choose_engine

    def counted() -> Question:  # what describing hygiene's question costs: a count of its rows
        raise AssertionError("the rows were counted although the engine was given")

    assert choose_engine(generated.warehouse, "local", counted) == "local"
    assert choose_engine(generated.warehouse, "spark", counted) == "spark"
    assert choose_engine(generated.warehouse, "auto", lambda: Question(rows=10)) == "local"  # auto asks it


def test_unknown_free_memory_is_local():
    assert choose(*ISSUE, Question(breaks=10**6, kept=None), Budget(available=None, driver=GIB)) == "local"


def test_a_walk_gets_the_heap_its_graph_needs_unless_the_variable_sets_it(monkeypatch):
    from lineage.analysis.engines import walk_heap
    from lineage.settings import Settings

    monkeypatch.delenv("LINEAGE_DRIVER_MEMORY", raising=False)
    assert walk_heap(386_472, 1_305_906, Settings.from_env()) == "2048m"  # the 16.6M-pair platform: the floor
    # twice (512 MiB + 1M vertices x 150 B + 4M edges x 120 B) = 2,333,741,824 B = 2225 MiB
    assert walk_heap(1_000_000, 4_000_000, Settings.from_env()) == "2225m"
    assert walk_heap(3_800_000, 13_000_000, Settings.from_env()) == "4096m"  # never more than the default
    monkeypatch.setenv("LINEAGE_DRIVER_MEMORY", "3g")  # set: it is the heap, as the out-of-memory paragraph advises
    assert walk_heap(386_472, 1_305_906, Settings.from_env()) is None
    assert walk_heap(3_800_000, 13_000_000, Settings.from_env()) is None


def test_the_paragraph_names_the_heap_the_walk_had(monkeypatch):
    from lineage import spark

    monkeypatch.delenv("LINEAGE_DRIVER_MEMORY", raising=False)
    monkeypatch.setitem(spark.LAUNCHED, "heap", "2048m")
    said = str(spark.explain(RuntimeError("java.lang.OutOfMemoryError: Java heap space")))
    assert "spark.driver.memory = 2048m, sized to the graph; LINEAGE_DRIVER_MEMORY sets it" in said
    assert "raise LINEAGE_DRIVER_MEMORY" in said
