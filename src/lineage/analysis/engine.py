"""The engine interface: multi-source reachability with hop distance and one witness path.

``LocalEngine`` (networkx, in memory) and ``SparkEngine`` (DataFrames / GraphFrames) both
implement ``reach`` with the same answer; ``open_engine`` picks one for a warehouse.

The answer is defined independently of either algorithm, so the two can be held to it:

* a *step* is an edge row whose relationship has a rule, walked the rule's way (FORWARD
  src->dst, BACKWARD dst->src), between two ids that are vertices of the graph (an edge to a
  vertex filtered out as of a moment is not walked; several intervals are one step);
* ``distance`` is the fewest steps from any source that is a vertex;
* ``path`` is, among all shortest paths from any source, the lexicographically smallest
  sequence of ids (compared element by element from the source end; ids compare by code
  point, which is also Spark's UTF-8 byte order). It starts at the smallest nearest source.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Collection, Protocol, Sequence

from lineage.analysis.rules import BACKWARD, FORWARD, IMPACT_RULES, ImpactRule
from lineage.settings import Settings, current

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


@dataclass(frozen=True)
class Affected:
    """A vertex reached from the sources: minimum hop distance and one shortest witness path
    (``path[0]`` is a source, ``path[-1]`` is ``id``, ``len(path) == distance + 1``);
    ``may_fail``: reached through a job that loses its access (a *restricts* change)."""

    id: str
    label: str
    distance: int
    path: tuple[str, ...]
    may_fail: bool = False


class Engine(Protocol):
    name: str

    def reach(
        self,
        sources: Sequence[str],
        *,
        rules: Sequence[ImpactRule] = IMPACT_RULES,
        max_depth: int | None = None,
        relationships: Collection[str] | None = None,
    ) -> list[Affected]:
        """Every vertex reachable from ``sources`` along ``rules`` (optionally only the listed
        relationships), within ``max_depth`` hops; sources themselves are not listed. Sorted
        by (distance, id)."""
        ...

    def labels(self, ids: Collection[str]) -> dict[str, str]:
        """The label of each id that is a vertex of the graph (unknown ids are absent)."""
        ...


ENGINE_NAMES = ("auto", "local", "spark")


def directions(rules: Sequence[ImpactRule], relationships: Collection[str] | None = None) -> tuple[frozenset[str], frozenset[str]]:
    """(relationships walked src->dst, relationships walked dst->src) for ``rules``, optionally only
    those named in ``relationships``: the one reading of the rule table both engines share."""
    wanted = None if relationships is None else set(relationships)
    chosen = [rule for rule in rules if wanted is None or rule.relationship in wanted]
    for rule in chosen:
        if rule.flows not in (FORWARD, BACKWARD):
            raise ValueError(f"impact rule {rule.relationship}: flows must be {FORWARD!r} or {BACKWARD!r}, not {rule.flows!r}")
    forward = frozenset(rule.relationship for rule in chosen if rule.flows == FORWARD)
    backward = frozenset(rule.relationship for rule in chosen if rule.flows == BACKWARD)
    return forward, backward


def check_depth(max_depth: int | None) -> None:
    """A negative depth is a usage error, not an empty answer."""
    if max_depth is not None and max_depth < 0:
        raise ValueError(f"max_depth must be >= 0, not {max_depth}")


def local_max_edges(settings: Settings | None = None) -> int:
    """The ``auto`` threshold (``LINEAGE_LOCAL_MAX_EDGES``, default 500,000 edge rows): networkx
    answers in seconds up to there, while Spark's per-iteration overhead would dominate."""
    return (settings or current()).local_max_edges


def edge_rows(warehouse: str | Path) -> int:
    """Edge rows of the built graph, from parquet footers only (no data read, no JVM)."""
    import pyarrow.dataset as ds

    from lineage.graph.api import built

    wh = built(warehouse, "edges")
    return ds.dataset(str(wh.edges), format="parquet").count_rows()


def choose_engine(warehouse: str | Path, engine: str = "auto") -> str:
    """``local`` or ``spark``: ``auto`` = local when the graph has at most
    ``LINEAGE_LOCAL_MAX_EDGES`` edge rows."""
    choice = (engine or "auto").strip().lower()
    if choice not in ENGINE_NAMES:
        raise ValueError(f"unknown engine {engine!r}: use one of {', '.join(ENGINE_NAMES)}")
    if choice == "auto":
        choice = "local" if edge_rows(warehouse) <= local_max_edges() else "spark"
    return choice


def open_engine(
    warehouse: str | Path,
    engine: str = "auto",
    as_of: Any = None,
    spark: "SparkSession | None" = None,
) -> Engine:
    """The engine for ``warehouse`` as of a moment: ``local`` (networkx, no JVM), ``spark``, or
    ``auto`` = local when the graph has at most ``LINEAGE_LOCAL_MAX_EDGES`` edge rows."""
    if choose_engine(warehouse, engine) == "local":
        from lineage.analysis.local import LocalEngine

        return LocalEngine.from_warehouse(warehouse, as_of=as_of)
    from lineage.analysis.spark import SparkEngine

    return SparkEngine.from_warehouse(warehouse, spark, as_of=as_of)
