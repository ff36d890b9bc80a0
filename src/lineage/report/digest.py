"""What the report keeps of each change's affected set: what its sections read, let go of the rest
as each answer comes (``lineage.analysis.blast.evaluate``'s ``keep``).

A break on a hub table reaches every job run and instance downstream: on a platform whose hubs
change daily, four weeks are millions of (change, vertex) pairs, far more than fit in memory as
objects, and most of them runs that no section names. Counts, summaries and scores are computed
by the engine over every pair before this runs, so they stay complete. Of the vertices the
report keeps, per change:

* every vertex of :data:`KEPT_LABELS`: tables (affected tables, readers, quality failures, a
  sensitive tag's spread), the people (a notice's owners), what the impact picture draws;
* every vertex anything ever ``OWNS`` (the people to tell are the owners of affected assets);
* every run whose status is a failure (``report.operations``: a failure after a change);
* the change's :func:`lineage.report.changes.top_assets`, whatever their label.

So each section's answer is the same as from the whole affected set
(``tests/report/test_digest.py`` compares the two reports).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from lineage import ids
from lineage.graph.props import properties_of
from lineage.analysis.blast import ChangeImpact
from lineage.analysis.people import OWNS
from lineage.analysis.runs import failed
from lineage.report.changes import PICTURE_LABELS, top_assets
from lineage.report.context import NAME_PROPERTIES, RUN_LABELS, given_name

KEPT_LABELS = frozenset({"Table", "User", "Role", *PICTURE_LABELS})


@dataclass(frozen=True)
class Marks:
    """What the keeper reads of the graph while the engine walks (the report's context is read
    after, once the engine has let go): every vertex's human name (:func:`given_name`; the top
    assets are ranked by it on a tie), and the ``wanted`` ids: anything ever ``OWNS``, every run
    whose status is a failure. On the 16.6M-pair platform of ``benchmarks/pairs.py``, read as
    rows and indexed as a ``Context`` this was 671 MiB held (1.2 GB at the peak), beside the walk."""

    names: Mapping[str, str]
    wanted: frozenset[str]

    def name(self, vertex: str | None) -> str:
        if not vertex:
            return ""
        return self.names.get(vertex) or ids.key_of(vertex)

    @classmethod
    def of_rows(cls, vertices: Iterable[Mapping[str, Any]], edges: Iterable[Mapping[str, Any]]) -> Marks:
        """The definition, on graph rows (a later row of an id stands, as in ``Context.by_id``)."""
        by_id = {v["id"]: v for v in vertices}
        names = {vertex: name for vertex, row in by_id.items() if (name := given_name(row))}
        owned = {e["dst"] for e in edges if e.get("relationship") == OWNS}
        failing = {vertex for vertex, row in by_id.items()
                   if row.get("label") in RUN_LABELS and failed(properties_of(row.get("properties")).get("status"))}
        return cls(names, frozenset(owned | failing))

    @classmethod
    def of(cls, warehouse: str | Path) -> Marks:
        """:meth:`of_rows` on a built warehouse, computed in Arrow: of each vertex only its id,
        label and name become Python objects (``tests/report/test_digest.py`` holds the two equal)."""
        import pyarrow as pa
        import pyarrow.compute as pc
        import pyarrow.dataset as ds

        from lineage.graph.api import built, release_arrow

        wh = built(warehouse, "vertices", "edges")
        vertices = ds.dataset(str(wh.vertices), format="parquet")
        table = vertices.to_table(columns=[c for c in ("id", "label", "name", "properties") if c in vertices.schema.names])
        props = table.column("properties") if "properties" in table.column_names else None

        def given(column: Any) -> Any:  # "" is no name, as in given_name
            return pc.if_else(pc.greater(pc.utf8_length(column), 0), column, pa.scalar(None, pa.string()))

        candidates = [table.column("name")] if "name" in table.column_names else []
        if props is not None:  # a map's last value of a key, as dict() of its pairs keeps
            candidates += [pc.map_lookup(props, query_key=key, occurrence="last") for key in NAME_PROPERTIES]
        vertex_ids = table.column("id").to_pylist()
        named = dict(zip(vertex_ids, pc.coalesce(*map(given, candidates)).to_pylist())) if candidates else {}
        names = {vertex: name for vertex, name in named.items() if name}
        failing: set[str] = set()
        if props is not None:
            runs = pc.is_in(table.column("label"), value_set=pa.array(RUN_LABELS))
            status = pc.map_lookup(props, query_key="status", occurrence="last")
            last = dict(zip(vertex_ids, pc.if_else(runs, status, pa.scalar(None, pa.string())).to_pylist()))
            failing = {vertex for vertex, value in last.items() if value is not None and failed(value)}
        del table, named
        owns = ds.dataset(str(wh.edges), format="parquet").to_table(
            columns=["dst"], filter=ds.field("relationship") == OWNS).column("dst").to_pylist()
        release_arrow()
        return cls(names, frozenset(set(owns) | failing))


def keeper(marks: Marks) -> Callable[[ChangeImpact], ChangeImpact]:
    """The ``keep`` of a report on the graph ``marks`` was read from (the module's docstring)."""

    def keep(impact: ChangeImpact) -> ChangeImpact:
        top = {a.id for a in top_assets(marks, impact)}
        kept = tuple(a for a in impact.affected if a.label in KEPT_LABELS or a.id in marks.wanted or a.id in top)
        return impact if len(kept) == len(impact.affected) else replace(impact, affected=kept)

    return keep
