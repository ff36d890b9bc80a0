"""Reachability at many instants on one interval-aware adjacency, built once (numpy, no JVM).

The graph is read once into arrays: vertex ids sorted by code point (so comparing two vertex
numbers is comparing their ids, the witness tie-break of ``lineage.analysis.engine``), and per
rule selection a CSR of *steps* ``a -> b`` sorted by ``(a, b)``, each with the interval in
which it may be walked: the edge's ``[valid_from, valid_to)`` intersected with the intervals of
the vertex rows of both ends (an edge is walked only between two ids that are vertices then).
A query is ``(sources, instant)``; its BFS tests each step's interval *while walking*
(:func:`lineage.graph.asof.valid_mask`), so one graph answers every instant.

Queries run in chunks, level-synchronously, with numpy frontiers: a level of a chunk is a few
array operations over the steps leaving it, whatever the number of queries in it. Each level is
kept in path order (the order of the witness paths), so the first predecessor to reach a vertex
is its witness and no path is built while searching; a query's result keeps one parent per
reached vertex, and paths are rebuilt only for the vertices asked for (``Reached.affected``).
Memory: a chunk's reached pairs, plus a visited bitmap of ``chunk x vertices`` bits bounded by
:data:`VISITED_BUDGET`.
"""

from __future__ import annotations

from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterable, Iterator, Mapping, Sequence

import numpy as np

from lineage.analysis.engine import IMPORTANT_LABEL, Affected, Impact, Query, check_depth, directions
from lineage.analysis.neighbourhood import Step
from lineage.analysis.rules import IMPACT_RULES, ImpactRule
from lineage.graph import index as question_index
from lineage.graph.asof import EDGE_INTERVAL, VERTEX_INTERVAL, instant
from lineage.graph.index import EDGE_FIELDS, VERTEX_FIELDS, Arrays, Steps, arrays_of, offsets
from lineage.ids import RUN_PREFIXES
from lineage.spark import check_local

if TYPE_CHECKING:
    import pyarrow as pa

VISITED_BUDGET = 1 << 26
"""Entries of the visited bitmap of one chunk (``chunk size x vertices``): 64 MiB of bool."""
MAX_CHUNK = 4096


def _table(rows: Iterable[Mapping[str, Any]], fields: Sequence[str]) -> "pa.Table":
    """Plain rows as an Arrow table of the wanted fields (times parsed, naive = UTC)."""
    import pyarrow as pa

    from lineage.events.times import parse_time

    rows = list(rows)
    columns: dict[str, Any] = {}
    for name in fields:
        values = [row.get(name) for row in rows]
        if name in (*VERTEX_INTERVAL, *EDGE_INTERVAL, "last_seen"):
            columns[name] = pa.array([parse_time(v) if v not in (None, "") else None for v in values],
                                     pa.timestamp("us", tz="UTC"))
        else:
            columns[name] = pa.array(values, pa.string())
    return pa.table(columns)


class TemporalGraph:
    """The whole history of the graph as arrays; ``reach_many`` answers queries at any instants.

    The arrays (:class:`lineage.graph.index.Arrays`) come from the build's question index when
    the generation has one (mapped, not read), else from the rows given; ids become Python
    strings only where an answer names them (``ids``, ``index`` and ``names`` are built on first
    use: a walk from one entity never needs them whole)."""

    def __init__(self, arrays: Arrays) -> None:
        self.arrays = arrays
        self._ids_arrow = arrays.ids
        self.n = len(arrays.ids)
        self.labels, self.relationships = arrays.labels, arrays.relationships
        self.row_vertex, self.row_label, self.row_ptr = arrays.row_vertex, arrays.row_label, arrays.row_ptr
        self.row_start, self.row_end = arrays.row_start, arrays.row_end
        counts = np.diff(self.row_ptr)
        self.single = counts == 1
        self.label0 = self.row_label[self.row_ptr[:-1]] if self.n else np.zeros(0, np.int64)
        self.edge_src, self.edge_dst, self.edge_rel = arrays.edge_src, arrays.edge_dst, arrays.edge_rel
        self.edge_start, self.edge_end, self.edge_last = arrays.edge_start, arrays.edge_end, arrays.edge_last
        self._steps: dict[tuple[frozenset[str], frozenset[str]], Steps] = {}
        check_local()

    @classmethod
    def from_tables(cls, vertices: "pa.Table", edges: "pa.Table") -> "TemporalGraph":
        return cls(arrays_of(vertices, edges))

    @classmethod
    def from_rows(cls, vertices: Iterable[Mapping[str, Any]], edges: Iterable[Mapping[str, Any]]) -> "TemporalGraph":
        return cls.from_tables(_table(vertices, VERTEX_FIELDS), _table(edges, EDGE_FIELDS))

    @classmethod
    def from_warehouse(cls, warehouse: Any) -> "TemporalGraph":
        """The built graph's whole history: the generation's question index, else its parquet
        read once with pyarrow (no Spark, no JVM)."""
        from lineage.graph.api import built

        return cls(question_index.read(built(warehouse, "vertices", "edges")))

    @cached_property
    def ids(self) -> list[str]:
        return self._ids_arrow.to_pylist()

    @cached_property
    def index(self) -> dict[str, int]:
        return {vid: i for i, vid in enumerate(self.ids)}

    @cached_property
    def run_mask(self) -> np.ndarray:
        """Per vertex: its id names a run (``lineage.ids.RUN_PREFIXES``): walked through, never listed."""
        import pyarrow.compute as pc

        mask = np.zeros(self.n, dtype=bool)
        for prefix in RUN_PREFIXES:
            mask |= pc.starts_with(self._ids_arrow, prefix).to_numpy(zero_copy_only=False)
        return mask

    @cached_property
    def names(self) -> np.ndarray:
        return np.array(self.ids, dtype=object)

    def positions(self, ids: Iterable[str]) -> dict[str, int]:
        """Each of ``ids`` that is a vertex -> its position: by binary search over the sorted
        ids for a few, by the whole index once it exists or for many."""
        wanted = set(ids)
        if "index" in self.__dict__ or len(wanted) > 64:
            return {vid: self.index[vid] for vid in wanted if vid in self.index}
        return question_index.positions(self._ids_arrow, wanted)

    def id_lists(self, matrix: np.ndarray) -> list[list[str]]:
        """The ids at the positions of a 2-D array, as rows of strings (a walk's paths)."""
        if "names" in self.__dict__ or matrix.size > self.n // 8:
            return self.names[matrix].tolist()
        import pyarrow as pa

        flat = self._ids_arrow.take(pa.array(matrix.ravel())).to_pylist()
        width = matrix.shape[1] if matrix.ndim == 2 else 0
        return [flat[i:i + width] for i in range(0, len(flat), width)] if width else [[] for _ in range(len(matrix))]

    # ----------------------------------------------------------------------------------------
    # vertices at an instant

    def exists(self, vertex: int, moment: int | None) -> bool:
        lo, hi = self.row_ptr[vertex], self.row_ptr[vertex + 1]
        if moment is None:
            return bool(hi > lo)
        return bool(np.any((self.row_start[lo:hi] <= moment) & (moment < self.row_end[lo:hi])))

    def label_codes(self, vertices: np.ndarray, moment: int | None) -> np.ndarray:
        """Label code per vertex (index into ``labels``, -1 none): the smallest label among the
        vertex's rows valid at ``moment`` (all rows when None), as both engines take it."""
        moments = np.full(len(vertices), 0 if moment is None else moment, dtype=np.int64)
        return self._labels_at(vertices, moments, np.full(len(vertices), moment is None))

    def label_of(self, code: int) -> str | None:
        return self.labels[code] if code >= 0 else None

    def labels_at(self, ids: Collection[str], moment: datetime | None) -> dict[str, str]:
        t = None if moment is None else instant(moment)
        found = {}
        where = self.positions(ids)
        for vid in ids:
            v = where.get(vid)
            if v is not None and self.exists(v, t):
                found[vid] = self.label_of(int(self.label_codes(np.array([v]), t)[0]))
        return found

    def vertex_labels(self, ids: Collection[str]) -> dict[str, str]:
        """Labels over the whole history (``lineage.analysis.neighbourhood.Neighbourhood``)."""
        return self.labels_at(ids, None)

    def vertex_spans(self, ids: Collection[str]) -> dict[str, list[tuple[int, int]]]:
        """Each id's ``(start, end)`` validity intervals in microseconds (``neighbourhood.Neighbourhood``)."""
        spans: dict[str, list[tuple[int, int]]] = {}
        where = self.positions(ids)
        for vid in ids:
            if vid in where:
                lo, hi = self.row_ptr[where[vid]], self.row_ptr[where[vid] + 1]
                spans[vid] = list(zip(self.row_start[lo:hi].tolist(), self.row_end[lo:hi].tolist()))
        return spans

    def graph_at(self, moment: datetime, relationships: Collection[str], labels: Collection[str]
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The graph as of ``moment`` restricted to ``relationships``: ``(id, label)`` rows of the
        vertices then labelled one of ``labels`` or ending an edge, and ``(src, dst, relationship)``
        rows of the edges valid then between two vertices then (the importance of
        ``lineage.analysis.blast``, read from the arrays already loaded)."""
        t = instant(moment)
        alive = np.zeros(self.n, dtype=bool)
        alive[self.row_vertex[(self.row_start <= t) & (t < self.row_end)]] = True
        codes = [i for i, rel in enumerate(self.relationships) if rel in set(relationships)]
        keep = (np.isin(self.edge_rel, codes) & (self.edge_start <= t) & (t < self.edge_end)
                & alive[self.edge_src] & alive[self.edge_dst])
        src, dst, rel = self.edge_src[keep], self.edge_dst[keep], self.edge_rel[keep]
        wanted = np.flatnonzero(alive)
        label = self.label_codes(wanted, t)
        named = np.isin(label, [i for i, name in enumerate(self.labels) if name in set(labels)])
        ends = np.zeros(self.n, dtype=bool)
        ends[src], ends[dst] = True, True
        chosen = named | ends[wanted]
        vertices = [{"id": self.ids[v], "label": self.label_of(c)}
                    for v, c in zip(wanted[chosen].tolist(), label[chosen].tolist())]
        edges = [{"src": self.ids[a], "dst": self.ids[b], "relationship": self.relationships[r]}
                 for a, b, r in zip(src.tolist(), dst.tolist(), rel.tolist())]
        return vertices, edges

    def edge_rows(self, ids: Collection[str], relationships: Collection[str], *, by: str) -> list[Step]:
        """Edge rows of ``relationships`` whose ``by`` end is one of ``ids`` (``neighbourhood.Neighbourhood``)."""
        codes = [i for i, rel in enumerate(self.relationships) if rel in set(relationships)]
        wanted = np.array(sorted(self.positions(ids).values()), dtype=np.int64)
        if not codes or not len(wanted):
            return []
        ends = self.edge_src if by == "src" else self.edge_dst
        rows = np.flatnonzero(np.isin(self.edge_rel, codes) & np.isin(ends, wanted))
        return [Step(self.ids[s], self.ids[d], self.relationships[r], a, b, last) for s, d, r, a, b, last in zip(
            self.edge_src[rows].tolist(), self.edge_dst[rows].tolist(), self.edge_rel[rows].tolist(),
            self.edge_start[rows].tolist(), self.edge_end[rows].tolist(), self.edge_last[rows].tolist())]

    # ----------------------------------------------------------------------------------------
    # steps

    def steps(self, forward: frozenset[str], backward: frozenset[str]) -> Steps:
        """The CSR of one rule selection (:func:`lineage.graph.index.steps_of`): the build's, mapped
        from the question index for the selections it stores, else built on first use."""
        key = (forward, backward)
        if key not in self._steps:
            self._steps[key] = self.arrays.steps.get(key) or question_index.steps_of(self.arrays, forward, backward)
            check_local()
        return self._steps[key]

    # ----------------------------------------------------------------------------------------
    # the traversal

    def reach_many(
        self,
        queries: Sequence[Query],
        *,
        rules: Sequence[ImpactRule] = IMPACT_RULES,
        max_depth: int | None = None,
        relationships: Collection[str] | None = None,
        runs: bool = False,
    ) -> Iterator["Chunk"]:
        """The answers chunk by chunk (queries in order); one chunk's answers are held at a time.
        Runs are walked through but listed (and counted) only with ``runs``."""
        check_depth(max_depth)
        steps = self.steps(*directions(rules, relationships))
        size = max(1, min(MAX_CHUNK, VISITED_BUDGET // max(self.n, 1)))
        visited = np.zeros(min(size, max(len(queries), 1)) * max(self.n, 1), dtype=bool)
        for first in range(0, len(queries), size):
            yield self._walk(queries[first:first + size], first, steps, max_depth, visited, runs)

    def impacts(
        self, queries: Sequence[Query], *, max_depth: int | None = None, limit: int | None = None,
        weigh: Callable[[str | None], float] = lambda label: 1.0, importance: Mapping[str, float] | None = None,
        runs: bool = False,
    ) -> Iterator[tuple[int, Impact]]:
        """The blast-radius traversal (``lineage.analysis.engine.Traversal``) on this graph;
        ``importance`` becomes a factor per vertex index (1 where absent)."""
        factor = None
        if importance:
            factor = np.ones(max(self.n, 1), dtype=np.float64)
            at_ = self.positions(importance)
            known = [(at_[vid], value) for vid, value in importance.items() if vid in at_]
            if known:
                at, values = zip(*known)
                factor[list(at)] = values
        for chunk in self.reach_many(queries, max_depth=max_depth, runs=runs):
            summaries, sums = chunk.summaries(), chunk.weighted(weigh, factor)
            check_local()
            for i in range(chunk.size):
                yield chunk.offset + i, Impact(chunk.count(i), summaries[i], sums[i], tuple(chunk.affected(i, limit)))

    def _walk(self, queries: Sequence[Query], offset: int, steps: Steps, max_depth: int | None,
              visited: np.ndarray, runs: bool = False) -> "Chunk":
        """Level-synchronous BFS of a chunk; ``levels`` hold (query, vertex, index of the parent
        in the concatenated levels), the sources being level 0."""
        n = self.n
        moments = np.zeros(len(queries), dtype=np.int64)
        anytime = np.zeros(len(queries), dtype=bool)
        start_q: list[int] = []
        start_v: list[int] = []
        where = self.positions({s for query in queries for s in query.sources})
        for q, query in enumerate(queries):
            t = None if query.moment is None else instant(query.moment)
            anytime[q] = t is None
            moments[q] = 0 if t is None else t
            for v in sorted({where[s] for s in query.sources if s in where}):
                if self.exists(v, t):
                    start_q.append(q)
                    start_v.append(v)
        fq, fv = np.array(start_q, dtype=np.int64), np.array(start_v, dtype=np.int64)
        touched = [fq * n + fv]
        visited[touched[0]] = True
        levels = [(fq, fv, np.full(len(fv), -1, dtype=np.int64))]
        base, total, depth = 0, len(fv), 0
        ptr, sb, ss, se = steps.ptr, steps.b, steps.start, steps.end
        while len(fv) and (max_depth is None or depth < max_depth):
            depth += 1
            check_local()
            lo = ptr[fv]
            counts = ptr[fv + 1] - lo
            parent = np.repeat(np.arange(len(fv)), counts)
            if not len(parent):
                break
            pos = np.repeat(lo, counts) + offsets(counts)
            b = sb[pos]
            q = fq[parent]
            m = moments[q]
            keys = q * n + b
            ok = ((ss[pos] <= m) & (m < se[pos]) | anytime[q]) & ~visited[keys]
            idx = np.flatnonzero(ok)
            _, first = np.unique(keys[idx], return_index=True)
            first.sort()  # back to (parent rank, id) order: the next level in path order
            chosen = idx[first]
            fq, fv = q[chosen], b[chosen]
            new = keys[chosen]
            visited[new] = True
            touched.append(new)
            levels.append((fq, fv, base + parent[chosen]))
            base, total = total, total + len(fv)
        for keys in touched:
            visited[keys] = False
        q, v, p = (np.concatenate(parts) for parts in zip(*levels))
        d = np.concatenate([np.full(len(level[0]), i, dtype=np.int64) for i, level in enumerate(levels)])
        return Chunk(self, offset, len(queries), q, v, p, d, moments, anytime, runs)

    def _labels_at(self, vertices: np.ndarray, moments: np.ndarray, anytime: np.ndarray) -> np.ndarray:
        """Label codes of ``vertices[i]`` as of ``moments[i]``: the smallest label among its rows
        valid then (vectorised over the ids with several rows; one row is its own label)."""
        labels = self.label0[vertices] if len(vertices) else np.zeros(0, np.int64)
        multi = np.flatnonzero(~self.single[vertices]) if len(vertices) else np.zeros(0, np.int64)
        if not len(multi):
            return labels
        lo = self.row_ptr[vertices[multi]]
        counts = self.row_ptr[vertices[multi] + 1] - lo
        owner = np.repeat(np.arange(len(multi)), counts)
        rows = np.repeat(lo, counts) + offsets(counts)
        m = moments[multi][owner]
        valid = (anytime[multi][owner] | ((self.row_start[rows] <= m) & (m < self.row_end[rows]))) & (self.row_label[rows] >= 0)
        codes = np.where(valid, self.row_label[rows], np.iinfo(np.int64).max)
        best = np.minimum.reduceat(codes, np.cumsum(counts) - counts)
        labels[multi] = np.where(best == np.iinfo(np.int64).max, -1, best)
        return labels


class Chunk:
    """The answers of a chunk of queries, in (query, distance, id) order: sources (distance 0)
    first in each query, then what it reached; ``parent`` indexes the witness predecessor.
    ``reached`` marks what is listed and counted: not the sources, and not the runs (walked
    through, their paths kept) unless ``runs``."""

    def __init__(self, graph: TemporalGraph, offset: int, size: int, q: np.ndarray, v: np.ndarray, p: np.ndarray,
                 d: np.ndarray, moments: np.ndarray, anytime: np.ndarray, runs: bool = False) -> None:
        deepest, n = (int(d.max()) + 1 if len(d) else 1), max(graph.n, 1)
        if size * deepest * n < 2**62:  # one int64 key sorts faster than three
            order = np.argsort((q * deepest + d) * n + v, kind="stable")
        else:
            order = np.lexsort((v, d, q))
        where = np.empty(len(order), dtype=np.int64)
        where[order] = np.arange(len(order))
        self.graph, self.offset, self.size = graph, offset, size
        self.q, self.v, self.d = q[order], v[order], d[order]
        parent = p[order]
        self.parent = np.where(parent >= 0, where[np.maximum(parent, 0)], -1)
        self.bounds = np.searchsorted(self.q, np.arange(size + 1))
        self.first = self.bounds[:-1] + np.bincount(self.q[self.d == 0], minlength=size)
        self.labels = graph._labels_at(self.v, moments[self.q], anytime[self.q])
        self.reached = self.d > 0
        if not runs and graph.n:
            self.reached &= ~graph.run_mask[self.v]
        self.listed = np.concatenate(([0], np.cumsum(self.reached)))

    def count(self, i: int) -> int:
        return int(self.listed[self.bounds[i + 1]] - self.listed[self.bounds[i]])

    def summaries(self) -> list[dict[str, int]]:
        """Affected vertices per label for each query, sorted by label (none last)."""
        width = len(self.graph.labels) + 1
        keys, counts = np.unique(self.q[self.reached] * width + self.labels[self.reached] + 1, return_counts=True)
        found: list[dict[str, int]] = [{} for _ in range(self.size)]
        loose: dict[int, int] = {}
        for key, count in zip(keys.tolist(), counts.tolist()):
            q, code = divmod(key, width)
            if code:
                found[q][self.graph.labels[code - 1]] = count
            else:
                loose[q] = count
        for q, count in loose.items():
            found[q][None] = count  # type: ignore[index]
        return found

    def weighted(self, weigh: Callable[[str | None], float], factor: np.ndarray | None = None) -> list[float]:
        """Per query, the exact sum of ``weigh(label) * importance / distance`` over what it
        reached (``factor``: importance per vertex index, for vertices labelled
        :data:`IMPORTANT_LABEL`; 1 without it): equal terms are counted, then summed exactly."""
        from lineage.analysis.exact import exact_sums

        weights = np.array([weigh(None)] + [weigh(label) for label in self.graph.labels], dtype=np.float64)
        reached = self.reached
        label = self.labels[reached]
        weight = weights[label + 1]
        if factor is not None and IMPORTANT_LABEL in self.graph.labels:
            important = label == self.graph.labels.index(IMPORTANT_LABEL)
            weight = weight * np.where(important, factor[self.v[reached]], 1.0)
        terms = weight / np.maximum(self.d[reached], 1)
        q = self.q[reached]
        order = np.lexsort((terms, q))
        terms, q = terms[order], q[order]
        new = np.ones(len(q), dtype=bool)
        new[1:] = (q[1:] != q[:-1]) | (terms[1:] != terms[:-1])
        starts = np.flatnonzero(new)
        counts = np.diff(np.append(starts, len(q)))
        bounds = np.searchsorted(q[starts], np.arange(self.size + 1))
        return exact_sums(terms[starts], counts, bounds.tolist())

    def affected(self, i: int, limit: int | None = None) -> list[Affected]:
        """The first ``limit`` vertices query ``i`` reached (all when None), (distance, id) order,
        with witness paths rebuilt by following the parents back to a source."""
        lo, hi = int(self.first[i]), int(self.bounds[i + 1])
        chosen = lo + np.flatnonzero(self.reached[lo:hi])
        if limit is not None:
            chosen = chosen[:limit]
        if not len(chosen):
            return []
        depth = self.d[chosen]
        longest = int(depth.max())
        matrix = np.zeros((len(chosen), longest + 1), dtype=np.int64)
        rows = np.arange(len(chosen))
        current = chosen.copy()
        for step in range(longest + 1):
            at = depth - step
            alive = at >= 0
            matrix[rows[alive], at[alive]] = self.v[current[alive]]
            current[alive] = np.maximum(self.parent[current[alive]], 0)
        names = self.graph.id_lists(matrix)
        labels = self.graph.labels
        return [
            Affected(path[dist], labels[code] if code >= 0 else None, dist, tuple(path[:dist + 1]))  # type: ignore[arg-type]
            for path, dist, code in zip(names, depth.tolist(), self.labels[chosen].tolist())
        ]
