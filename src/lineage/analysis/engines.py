"""Which engine answers a question, and opening it: the one module that knows every engine.

``lineage.analysis.engine`` is the interface; ``local`` and ``spark`` (reach at one instant),
``temporal`` and ``spark_temporal`` (the traversal over the whole history) implement it. This
module sits above all of them: ``auto`` is decided here by the graph's size and what the answer
will hold (:func:`choose`, a pure function of sizes), and :func:`open_engine` and
:func:`traversal` open the chosen implementation, so no engine imports the code that picks it.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from lineage.analysis.engine import Engine, Traversal
from lineage.settings import Settings, current

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ENGINE_NAMES = ("auto", "local", "spark")


def local_max_edges(settings: Settings | None = None) -> int:
    """``LINEAGE_LOCAL_MAX_EDGES`` (default 500,000 edge rows): up to there ``auto`` answers
    locally without estimating anything; above it, :func:`choose` decides by cost."""
    return (settings or current()).local_max_edges


def edge_rows(warehouse: str | Path) -> int:
    """Edge rows of the built graph, from parquet footers only (no data read, no JVM)."""
    return graph_rows(warehouse)[1]


def graph_rows(warehouse: str | Path) -> tuple[int, int]:
    """(vertex rows, edge rows) of the built graph, from parquet footers only (no JVM)."""
    import pyarrow.dataset as ds

    from lineage.graph.api import built

    wh = built(warehouse, "vertices", "edges")
    return (ds.dataset(str(wh.vertices), format="parquet").count_rows(),
            ds.dataset(str(wh.edges), format="parquet").count_rows())


@dataclass(frozen=True)
class Question:
    """What an answer will hold, for :func:`choose`: ``entity`` = about given ids (show, upstream,
    impact, access, exposure of one id); otherwise a window of changes: ``breaks`` walk downstream
    (the rest reach a few principals), ``changes`` in all, ``kept`` affected vertices kept per
    change (None: all of them, as the report still asks). ``rows``: a whole-graph question answered
    over Python rows (hygiene's networkx), the graph rows it reads; it holds those, not a walk."""

    entity: bool = False
    breaks: int = 0
    changes: int = 0
    kept: int | None = 0
    rows: int | None = None


@dataclass(frozen=True)
class Budget:
    """The memory each engine has: ``available`` (``MemAvailable`` of /proc/meminfo, at most
    ``LINEAGE_LOCAL_MEMORY``; None when unknown), ``driver`` (the Spark driver's heap, ``LINEAGE_DRIVER_MEMORY``), ``cluster``
    (a non-local Spark master: Spark's memory is elsewhere)."""

    available: int | None
    driver: int
    cluster: bool = False


GIB = 1 << 30
LOCAL_BASE, SPARK_BASE = GIB // 4, GIB // 2  # the process / the JVM with nothing loaded
LOCAL_ROW = (200, 150)  # bytes per vertex row, per edge row: arrays, ids, the step CSR
SPARK_ROW = (150, 120)  # the same rows as cached DataFrames in the driver's heap (local mode)
WALK_BYTES = 48  # one (query, vertex, parent, distance, label) of the local walk's chunk
KEPT_BYTES = (400, 300)  # one affected vertex with its path: a Python object / a collected row
ROW_BYTES = 2000  # one graph row as a Python dict, with its share of the question's networkx graph
SHARE = 0.8  # of the memory available, what an engine may take


def estimate(vertices: int, edges: int, question: Question) -> tuple[int, int, int]:
    """Bytes (local, Spark driver heap, Spark's Python driver) an answer will take: the graph's
    rows, the walk's working set and the affected vertices kept. A break reaches at most every
    vertex; the local walk holds one chunk of queries, at most ``temporal.VISITED_BUDGET`` (query,
    vertex) pairs, while Spark's shuffles spill to disk. The vertices kept are Python objects in
    this process on either engine (Spark's pass through its heap as rows first)."""
    from lineage.analysis.temporal import VISITED_BUDGET

    heap = SPARK_BASE + vertices * SPARK_ROW[0] + edges * SPARK_ROW[1]
    if question.rows is not None:  # hygiene: 1.5 GiB for 0.84M rows at 10^6 events (benchmarks/README.md)
        return LOCAL_BASE + question.rows * ROW_BYTES, heap, LOCAL_BASE
    reach = min(vertices, edges + 1)
    kept = question.changes * question.kept if question.kept is not None else question.breaks * reach
    kept = min(kept, question.breaks * reach + question.changes * 64)  # non-breaks reach a few principals
    walk = 0 if question.entity else min(question.breaks * reach, VISITED_BUDGET) * WALK_BYTES + VISITED_BUDGET
    local = LOCAL_BASE + vertices * LOCAL_ROW[0] + edges * LOCAL_ROW[1] + walk + kept * KEPT_BYTES[0]
    return local, heap + kept * KEPT_BYTES[1], LOCAL_BASE + kept * KEPT_BYTES[0]


def choose(vertices: int, edges: int, question: Question, budget: Budget, local_max: int = 500_000) -> str:
    """How ``auto`` picks an engine (a pure function of sizes; README "Two engines").

    * A question about given ids is answered by ``local`` at any size this machine holds: its
      answer is a few thousand vertices, and a JVM's start costs more than the whole walk.
    * A graph of at most ``local_max`` edge rows (``LINEAGE_LOCAL_MAX_EDGES``) is ``local``.
    * Otherwise :func:`estimate` the bytes each engine needs: ``local`` when its estimate fits in
      ``SHARE`` of the memory available (or that is unknown); else ``spark`` when a cluster holds
      the graph, or its heap estimate fits the driver's heap and that heap plus Spark's Python
      driver fit in what is available; else the engine whose estimate exceeds its memory by
      less (``local`` on a tie). Affected vertices kept cost the same on both engines (they end
      as Python objects here), so only a graph too big for this process sends an answer to Spark.
    """
    if question.entity or edges <= local_max:
        return "local"
    local, heap, python = estimate(vertices, edges, question)
    if budget.available is None or local <= budget.available * SHARE:
        return "local"
    room = budget.available * SHARE
    if budget.cluster and python <= room:
        return "spark"
    if heap <= budget.driver and budget.driver + python <= room:
        return "spark"
    spark_short = max(heap / max(budget.driver, 1), (budget.driver + python) / max(room, 1))
    return "spark" if spark_short < local / max(room, 1) else "local"


WALK_FLOOR = 2 * GIB
"""The least heap :func:`walk_heap` gives a traversal: the four weeks of the 16.6M-pair platform
(386,472 vertices, 1,305,906 edges) finish in 2 GiB as fast as in 4 GiB (``benchmarks/README.md``)."""


def walk_heap(vertices: int, edges: int, settings: Settings | None = None) -> str | None:
    """The driver heap of a Spark traversal that starts its own JVM, as Spark reads it (``2048m``),
    or None for ``LINEAGE_DRIVER_MEMORY`` as set: when the variable is set, it is the heap, as the
    out-of-memory paragraph advises; otherwise twice the graph's share of :func:`estimate`, at least
    :data:`WALK_FLOOR`, at most the default. A walk's shuffles spill to disk and its affected rows
    are collected in batches, so its heap follows the graph, not the answer; the heap left unused
    is memory the process tree still holds beside the driver's Python (4.6 GB resident for 4 GiB)."""
    from lineage.spark import driver_bytes

    settings = settings or current()
    if "driver_memory" in settings.given:
        return None
    need = 2 * (SPARK_BASE + vertices * SPARK_ROW[0] + edges * SPARK_ROW[1])
    return f"{min(max(need, WALK_FLOOR), driver_bytes(settings)) >> 20}m"


def budget(settings: Settings | None = None) -> Budget:
    """This machine's :class:`Budget`, read now (no JVM)."""
    from lineage.spark import available_bytes, driver_bytes, local_cap

    settings = settings or current()
    master = settings.spark_master
    available, cap = available_bytes(), local_cap(settings)
    if cap is not None:
        available = cap if available is None else min(available, cap)
    return Budget(available, driver_bytes(settings), not (master == "local" or master.startswith("local[")))


def choose_engine(warehouse: str | Path, engine: str = "auto",
                  question: Question | Callable[[], Question] | None = None) -> str:
    """``local`` or ``spark``: ``auto`` by :func:`choose` on the graph's rows (parquet footers) and
    ``question``; without one (a whole-graph question this module does not estimate) by
    ``LINEAGE_LOCAL_MAX_EDGES`` alone. A ``question`` that costs something to describe (counting
    the rows an answer reads) can be given as a function: it is asked only when the engine is ``auto``."""
    choice = (engine or "auto").strip().lower()
    if choice not in ENGINE_NAMES:
        raise ValueError(f"unknown engine {engine!r}: use one of {', '.join(ENGINE_NAMES)}")
    if choice == "auto":
        if callable(question):
            question = question()
        if question is None:
            return "local" if edge_rows(warehouse) <= local_max_edges() else "spark"
        if question.entity:
            return "local"
        vertices, edges = graph_rows(warehouse)
        choice = choose(vertices, edges, question, budget(), local_max_edges())
    return choice


def open_engine(
    warehouse: str | Path,
    engine: str = "auto",
    as_of: Any = None,
    spark: "SparkSession | None" = None,
) -> Engine:
    """The engine of a question about given ids as of a moment: ``local`` (numpy, no JVM) or
    ``spark``; ``auto`` is ``local`` (:func:`choose`)."""
    if choose_engine(warehouse, engine, Question(entity=True)) == "local":
        from lineage.analysis.local import LocalEngine

        return LocalEngine.from_warehouse(warehouse, as_of=as_of)
    from lineage.analysis.spark import SparkEngine

    return SparkEngine.from_warehouse(warehouse, spark, as_of=as_of)


def traversal(warehouse: str | Path, engine: str = "auto", spark: "SparkSession | None" = None,
              question: Question | None = None) -> Traversal:
    """The one temporal traversal of ``engine`` over the warehouse's whole history, loaded once;
    ``auto`` chooses by what ``question`` will cost (:func:`choose`)."""
    if choose_engine(warehouse, engine, question) == "local":
        from lineage.analysis.temporal import TemporalGraph

        return TemporalGraph.from_warehouse(warehouse)
    from lineage.analysis.spark_temporal import SparkTraversal
    from lineage.spark import get_spark, running

    if spark is None and not running():  # this starts the JVM: its heap sized to the graph
        heap = walk_heap(*graph_rows(warehouse))
        spark = get_spark(**({"spark.driver.memory": heap} if heap else {}))
    return SparkTraversal.from_warehouse(warehouse, spark)


@contextmanager
def walking(warehouse: str | Path, engine: str = "auto", question: Question | None = None) -> Iterator[Traversal]:
    """:func:`traversal`, for a command that walks first and reads the rest of the graph after: once
    its walks are done, a Spark session it started is stopped and its JVM ended (a session already
    running, a notebook's or the tests', is left as it was), so what it reads next is never held
    beside a Spark heap (:func:`lineage.spark.ended_after`)."""
    from lineage.spark import ended_after

    with ended_after():
        yield traversal(warehouse, engine, question=question)
