"""The in-memory engine: no JVM, for graphs that fit (and for notebooks and tests).

``LocalEngine`` is the temporal graph of ``lineage.analysis.temporal`` (the whole history as
numpy arrays, read once with pyarrow) asked at one instant: ``reach`` tests each step's validity
interval against the engine's moment while walking, the same traversal blast radius runs for
thousands of instants at once. Edges whose endpoints are not vertices then are not walked
(GraphFrames drops them too), so a vertex deleted as of a moment is neither reached nor walked
through. ``graph`` is a ``networkx.MultiDiGraph`` view of the graph at that moment, built on
first use for notebooks.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Collection, Iterable, Mapping, Sequence

from lineage.analysis.engine import Affected, Query, check_depth
from lineage.analysis.rules import IMPACT_RULES, ImpactRule
from lineage.analysis.temporal import TemporalGraph
from lineage.graph.asof import EDGE_INTERVAL, arrow_filter

if TYPE_CHECKING:
    import networkx as nx
    import pyarrow as pa


def valid_at(table: "pa.Table", start: str, end: str, moment: datetime) -> "pa.Table":
    """Rows whose ``[start, end)`` contains ``moment``, a null bound being open: the as-of rule
    (``lineage.graph.asof``) on an Arrow table."""
    return arrow_filter(table, (start, end), moment)


class LocalEngine:
    """Reachability in memory, as of one moment (see ``lineage.analysis.engine``)."""

    name = "local"

    def __init__(
        self,
        vertices: Iterable[Mapping[str, Any]] | TemporalGraph,
        edges: Iterable[Mapping[str, Any]] = (),
        *,
        moment: datetime | None = None,
    ) -> None:
        self.temporal = vertices if isinstance(vertices, TemporalGraph) else TemporalGraph.from_rows(vertices, edges)
        self.moment = moment
        self._graph: nx.MultiDiGraph | None = None

    @classmethod
    def from_warehouse(cls, warehouse: str | Path, as_of: Any = None) -> "LocalEngine":
        """The built graph (as of a moment), read with pyarrow: no Spark, no JVM."""
        from lineage.graph.api import to_time

        return cls(TemporalGraph.from_warehouse(warehouse), moment=to_time(as_of))

    def reach(
        self,
        sources: Sequence[str],
        *,
        rules: Sequence[ImpactRule] = IMPACT_RULES,
        max_depth: int | None = None,
        relationships: Collection[str] | None = None,
        runs: bool = False,
    ) -> list[Affected]:
        check_depth(max_depth)
        query = Query(tuple(sources), self.moment)
        chunks = self.temporal.reach_many([query], rules=rules, max_depth=max_depth, relationships=relationships,
                                          runs=runs)
        return [a for chunk in chunks for a in chunk.affected(0)]

    def labels(self, ids: Collection[str]) -> dict[str, str]:
        return self.temporal.labels_at(ids, self.moment)

    @property
    def graph(self) -> "nx.MultiDiGraph":
        """The graph at the engine's moment in the stored direction: one edge per ``(src, dst,
        relationship)`` keyed by the relationship, its validity intervals in ``intervals``;
        nodes carry ``label``."""
        if self._graph is None:
            self._graph = self._networkx()
        return self._graph

    def _networkx(self) -> "nx.MultiDiGraph":
        import networkx as nx
        import numpy as np

        from lineage.graph.asof import instant, valid_mask

        g, t = self.temporal, None if self.moment is None else instant(self.moment)
        graph = nx.MultiDiGraph()
        exists = np.array([g.exists(v, t) for v in range(g.n)], dtype=bool)
        codes = g.label_codes(np.arange(g.n), t)
        for v in np.flatnonzero(exists).tolist():
            graph.add_node(g.ids[v], label=g.label_of(int(codes[v])))
        keep = valid_mask(g.edge_start, g.edge_end, t) & exists[g.edge_src] & exists[g.edge_dst]
        bounds = [g.arrays.edge_bounds.column(n).to_pylist() for n in EDGE_INTERVAL]
        for i in np.flatnonzero(keep).tolist():
            src, dst, rel = g.ids[g.edge_src[i]], g.ids[g.edge_dst[i]], g.relationships[g.edge_rel[i]]
            interval = (bounds[0][i], bounds[1][i])
            if graph.has_edge(src, dst, key=rel):
                graph.edges[src, dst, rel]["intervals"].append(interval)
            else:
                graph.add_edge(src, dst, key=rel, relationship=rel, intervals=[interval])
        return graph
