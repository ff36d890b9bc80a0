"""Platform hygiene as of one instant T: unused tables, cycles, islands and importance (issue 33).

Questions only a whole-graph algorithm answers, asked the same way on both engines (``local``:
networkx here; ``spark``: GraphFrames' own algorithms in :mod:`lineage.analysis.spark_hygiene`,
which takes its definitions from here; ``lineage.analysis.api.hygiene`` picks one), and held
equal by ``tests/analysis/test_hygiene.py``:

* the **dataset graph**: vertices labelled Table or Location valid at T, and the FEEDS edges
  between two of them valid at T (a job reading and writing one table is a self-loop t->t);
* **unused**: a Table written in the window ``(T - N days, T]`` and read in it by nothing
  (:data:`READ_RELATIONSHIPS`: a job or node reads, a download or tunnel). A Node's edge valid at
  T is a standing declaration (a deployed node reads and writes on every run), so it always
  counts; any other edge counts when its time (``last_seen`` if not after T, else
  ``valid_from``) lies in the window. A read of unknown time counts (a table is never called
  unused for want of a date), a write of unknown time does not;
* **cycles**: strongly connected components of the dataset graph that hold one of their own
  edges (more than one table, or a self-loop: ``Cycle.self_loop``, a table its own job reads and
  rewrites, printed apart); the jobs that close one are the ``via`` of those edges: the nodes
  named, or the jobs where an edge names no node;
* **islands**: weakly connected components of the dataset graph, largest first;
* **importance**: PageRank (damping :data:`DAMPING`) over FEEDS between datasets and READS turned
  the way data flows (table -> reader), each (src, dst) pair once; scores sum to 1 over that
  graph and are rounded to :data:`SCORE_DIGITS` decimals; tables ranked by (score desc, id).
  networkx (uniform teleport, dangling mass spread uniformly) and GraphX (mass renormalized)
  reach the same fixed point, so the engines agree within :data:`SCORE_TOLERANCE`.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Hashable, Iterable, Mapping, Sequence
from lineage.graph.props import of_row

if TYPE_CHECKING:
    import networkx as nx

DATASET_LABELS = ("Table", "Location")
READ_RELATIONSHIPS = ("READS", "DOWNLOADED")
STANDING_LABELS = ("Node",)
"""Edges from these sources are declarations that hold while valid, not one run's observation."""
BYTES_KEYS = ("bytes", "output_bytes", "size_bytes")
RECORDS_KEYS = ("records", "output_rows", "row_count", "rows")
"""Write-edge properties that say what a write cost, where the events say so (first present wins)."""
READ: dict[str, tuple[str, ...]] = {"FEEDS": ("via",), "WRITES": BYTES_KEYS + RECORDS_KEYS, "READS": (),
                                    "DOWNLOADED": (), "OWNS": ()}
"""What the local engine reads of a graph: these relationships, each with only these properties,
no vertex's properties, no Column (column FEEDS are 92% of a platform's FEEDS) and every Table
and Location (``graph.api.load_rows``): the whole graph as rows was 3.3 GiB at 10^6 events."""
NEVER_READ = ("Column",)
DAMPING = 0.85
SCORE_DIGITS = 9
SCORE_TOLERANCE = 1e-6
"""Largest difference between the engines' normalized PageRank scores the tests accept."""
TINY_ISLAND = 2
"""Islands of at most this many datasets are listed by name in the human output."""
DEFAULT_UNUSED_DAYS = 30
DEFAULT_TOP = 20


@dataclass(frozen=True)
class Unused:
    id: str
    owners: tuple[str, ...]
    writers: tuple[str, ...]
    runs: int
    last_written: datetime | None
    bytes: float | None = None
    records: float | None = None


@dataclass(frozen=True)
class Cycle:
    tables: tuple[str, ...]
    jobs: tuple[str, ...]

    @property
    def self_loop(self) -> bool:
        """One table its own job reads and rewrites (a staging table, an incremental dimension):
        a normal pattern, said apart from tables feeding each other (issue 69)."""
        return len(self.tables) == 1


@dataclass(frozen=True)
class Island:
    tables: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.tables)


@dataclass(frozen=True)
class Important:
    id: str
    score: float
    owners: tuple[str, ...] = ()


@dataclass
class Hygiene:
    as_of: datetime
    unused_days: int
    engine: str
    unused: list[Unused]
    cycles: list[Cycle]
    islands: list[Island]
    importance: list[Important]
    names: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        def unused(u: Unused) -> dict[str, Any]:
            row = asdict(u)
            row["owners"], row["writers"] = list(u.owners), list(u.writers)
            row["last_written"] = _iso(u.last_written)
            row["name"] = self.names.get(u.id)
            return row

        return {
            "as_of": _iso(self.as_of), "unused_days": self.unused_days, "engine": self.engine,
            "unused": [unused(u) for u in self.unused],
            "cycles": [{"tables": list(c.tables), "jobs": list(c.jobs), "self_loop": c.self_loop} for c in self.cycles],
            "islands": [{"size": i.size, "tables": list(i.tables)} for i in self.islands],
            "importance": [{"id": i.id, "name": self.names.get(i.id), "score": i.score, "owners": list(i.owners)}
                           for i in self.importance],
        }


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def moment_of(as_of: Any) -> datetime:
    """T: the ``--as-of`` time, or now (UTC)."""
    from lineage.graph.api import to_time

    return to_time(as_of) or datetime.now(timezone.utc)


# --------------------------------------------------------------------------------------------
# assembling answers from component labels (shared by both engines)
# --------------------------------------------------------------------------------------------


def via_jobs(via: Iterable[str]) -> list[str]:
    """The jobs that make one FEEDS edge: its nodes, or its jobs when it names no node."""
    via = list(via)
    nodes = [v for v in via if v.startswith("node:")]
    return nodes or via


def cycles_from(component: Mapping[str, Hashable], feeds: Iterable[tuple[str, str, Sequence[str]]]) -> list[Cycle]:
    """Cycles out of strongly-connected-component labels and the FEEDS edges ``(src, dst, via)``:
    a component is a cycle when one of its own edges lies in it. Sorted by first table."""
    inner: dict[Hashable, set[str]] = defaultdict(set)
    closing: dict[Hashable, set[str]] = defaultdict(set)
    for src, dst, via in feeds:
        label = component.get(src)
        if label is not None and label == component.get(dst):
            inner[label].add(src)
            closing[label].update(via_jobs(via))
    members: dict[Hashable, list[str]] = defaultdict(list)
    for vertex, label in component.items():
        if label in inner:
            members[label].append(vertex)
    return sorted((Cycle(tuple(sorted(members[label])), tuple(sorted(closing[label]))) for label in members),
                  key=lambda c: c.tables)


def islands_from(component: Mapping[str, Hashable]) -> list[Island]:
    """Weakly-connected-component labels as islands: largest first, then by first table."""
    groups: dict[Hashable, list[str]] = defaultdict(list)
    for vertex, label in component.items():
        groups[label].append(vertex)
    return sorted((Island(tuple(sorted(g))) for g in groups.values()), key=lambda i: (-i.size, i.tables))


def ranked(scores: Mapping[str, float], tables: Iterable[str], top: int) -> list[tuple[str, float]]:
    """The ``top`` tables by normalized score (rounded to SCORE_DIGITS) desc, then id."""
    total = sum(scores.values()) or 1.0
    rows = [(t, round(scores[t] / total, SCORE_DIGITS)) for t in tables if t in scores]
    return sorted(rows, key=lambda r: (-r[1], r[0]))[:top]


# --------------------------------------------------------------------------------------------
# the local engine: networkx over the rows valid at T
# --------------------------------------------------------------------------------------------


def _as_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return value
    try:
        parsed = json.loads(value) if value else []
    except ValueError:
        return []
    return [str(v) for v in parsed] if isinstance(parsed, list) else []


def edge_time(edge: Mapping[str, Any], moment: datetime) -> datetime | None:
    """When an edge was seen doing what it says, as far as T can tell: ``last_seen`` unless after T."""
    seen = edge.get("last_seen")
    return seen if seen is not None and seen <= moment else edge.get("valid_from")


def in_window(edge: Mapping[str, Any], start: datetime, moment: datetime, *, unknown: bool) -> bool:
    """The edge (valid at T) acted in ``(start, T]``; a Node's standing edge always does;
    ``unknown``: what an edge of no known time counts as."""
    if edge.get("src_label") in STANDING_LABELS:
        return True
    when = edge_time(edge, moment)
    return unknown if when is None else start < when <= moment


def _number(props: Mapping[str, Any], keys: Sequence[str]) -> float | None:
    for key in keys:
        try:
            if props.get(key) not in (None, ""):
                return float(props[key])
        except (TypeError, ValueError):
            continue
    return None


def unused_tables(vertices: Sequence[Mapping[str, Any]], edges: Sequence[Mapping[str, Any]], moment: datetime,
                  days: int) -> list[Unused]:
    """Tables written in ``(T - days, T]`` and read by nothing then; rows are the graph as of T."""
    start = moment - timedelta(days=days)
    tables = {v["id"] for v in vertices if v.get("label") == "Table"}
    read = {e["dst"] for e in edges if e["relationship"] in READ_RELATIONSHIPS and e["dst"] in tables
            and in_window(e, start, moment, unknown=True)}
    writes: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    owners: dict[str, set[str]] = defaultdict(set)
    nodes: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if e["dst"] not in tables:
            continue
        if e["relationship"] == "OWNS":
            owners[e["dst"]].add(e["src"])
        elif e["relationship"] == "WRITES":
            if e.get("src_label") in STANDING_LABELS:
                nodes[e["dst"]].add(e["src"])
            if in_window(e, start, moment, unknown=False):
                writes[e["dst"]].append(e)
    found = []
    for table in sorted(set(writes) - read):
        runs = [e for e in writes[table] if e.get("src_label") not in STANDING_LABELS]
        byte_counts = [b for e in runs if (b := _number(of_row(e), BYTES_KEYS)) is not None]
        record_counts = [r for e in runs if (r := _number(of_row(e), RECORDS_KEYS)) is not None]
        times = [t for e in runs if (t := edge_time(e, moment)) is not None]
        found.append(Unused(
            table, tuple(sorted(owners[table])), tuple(sorted(nodes[table] or {e["src"] for e in runs})),
            len({e["src"] for e in runs}), max(times) if times else None,
            sum(byte_counts) if byte_counts else None, sum(record_counts) if record_counts else None))
    return found


def dataset_graph(vertices: Sequence[Mapping[str, Any]], edges: Sequence[Mapping[str, Any]]) -> "nx.DiGraph":
    """Datasets and the FEEDS between them (rows as of T); each edge keeps its ``via`` jobs."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(v["id"] for v in vertices if v.get("label") in DATASET_LABELS)
    for e in edges:
        if e["relationship"] == "FEEDS" and e["src"] in graph and e["dst"] in graph:
            via = _as_list(of_row(e).get("via"))
            if graph.has_edge(e["src"], e["dst"]):
                graph.edges[e["src"], e["dst"]]["via"].extend(via)
            else:
                graph.add_edge(e["src"], e["dst"], via=via)
    return graph


def flow_graph(datasets: "nx.DiGraph", edges: Sequence[Mapping[str, Any]], ids: set[str]) -> "nx.DiGraph":
    """The PageRank graph: dataset FEEDS plus READS turned the way data flows (table -> reader)."""
    import networkx as nx

    graph = nx.DiGraph()
    graph.add_nodes_from(datasets.nodes)
    graph.add_edges_from(datasets.edges)
    graph.add_edges_from((e["dst"], e["src"]) for e in edges
                         if e["relationship"] == "READS" and e["dst"] in datasets and e["src"] in ids)
    return graph


def components(graph: "nx.DiGraph", *, strong: bool) -> dict[str, int]:
    """Vertex -> component number (strongly or weakly connected)."""
    import networkx as nx

    parts = nx.strongly_connected_components(graph) if strong else nx.weakly_connected_components(graph)
    return {vertex: number for number, part in enumerate(parts) for vertex in part}


def pagerank(graph: "nx.DiGraph") -> dict[str, float]:
    import networkx as nx

    if not graph.number_of_nodes():
        return {}
    return nx.pagerank(graph, alpha=DAMPING, tol=1e-12, max_iter=1000)


def local_hygiene(vertices: Sequence[Mapping[str, Any]], edges: Sequence[Mapping[str, Any]], moment: datetime, *,
                  unused_days: int = DEFAULT_UNUSED_DAYS, top: int = DEFAULT_TOP) -> Hygiene:
    """The whole answer from the rows valid at T (a pure function of them)."""
    datasets = dataset_graph(vertices, edges)
    feeds = [(a, b, via) for a, b, via in datasets.edges(data="via")]
    ids = {v["id"] for v in vertices}
    tables = sorted(v["id"] for v in vertices if v.get("label") == "Table")
    owners: dict[str, set[str]] = defaultdict(set)
    for e in edges:
        if e["relationship"] == "OWNS":
            owners[e["dst"]].add(e["src"])
    important = [Important(t, s, tuple(sorted(owners[t])))
                 for t, s in ranked(pagerank(flow_graph(datasets, edges, ids)), tables, top)]
    result = Hygiene(moment, unused_days, "local", unused_tables(vertices, edges, moment, unused_days),
                     cycles_from(components(datasets, strong=True), feeds),
                     islands_from(components(datasets, strong=False)), important)
    result.names = names_of(vertices, mentioned(result))
    return result


def mentioned(result: Hygiene) -> set[str]:
    """Every id the human output prints (so only their names need looking up)."""
    ids = {i for u in result.unused for i in (u.id, *u.owners, *u.writers)}
    ids |= {i for c in result.cycles for i in (*c.tables, *c.jobs)}
    ids |= {i for island in result.islands[:1] for i in island.tables}
    ids |= {i for island in result.islands if island.size <= TINY_ISLAND for i in island.tables}
    ids |= {i for imp in result.importance for i in (imp.id, *imp.owners)}
    return ids


def names_of(vertices: Iterable[Mapping[str, Any]], ids: set[str]) -> dict[str, str]:
    return {v["id"]: v["name"] for v in vertices if v["id"] in ids and v.get("name")}
