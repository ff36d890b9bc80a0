"""The graph rows a report reads, loaded once (pyarrow, no JVM), with names and cached snapshots."""

from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Collection, Iterable, Mapping

from lineage import ids
from lineage.analysis import columns, propagation, runs
from lineage.analysis.access import Edge, Snapshot, Timeline
from lineage.graph.props import of_row, properties_of
from lineage.graph.api import collector_paused, every_vertex, load_rows, release_arrow

NAME_PROPERTIES = ("name", "display_name", "node_name", "table_name", "user_name", "account")
"""Where a vertex keeps a human name; the id's key when none (``retail_dw.dwd_orders``)."""
RUN_LABELS, RUN_TIME_PROPERTIES = runs.RUN_LABELS, runs.END_PROPERTIES
RUN_PROPERTIES = (*runs.RUN_PROPERTIES, *NAME_PROPERTIES)
"""All a report reads of a run's properties (``report.operations``): its state, when it ended,
its node, its name. Not its SQL and timestamps of every step: runs are most of a platform's
vertices, and their properties as Python dicts most of a report's memory."""
REPORT_RELATIONSHIPS = propagation.RELATIONSHIPS | frozenset(columns.RELATIONSHIPS) | {"HAS_INSTANCE", "CHECKS", "MEMBER_OF"}
"""What a report walks: access and sensitivity (``lineage access``, ``exposure``), column paths and
readers, owners, a failed instance's node, quality rules; not a platform's DAG runs, domains,
terms and downloads. A walk over another relationship raises (``access.Snapshot``)."""


def given_name(row: Mapping[str, Any] | None) -> str | None:
    """A vertex row's human name: its ``name``, else the first of its :data:`NAME_PROPERTIES`
    that is set (None: it has none)."""
    if not row:
        return None
    if row.get("name"):
        return str(row["name"])
    props = properties_of(row.get("properties"))
    for key in NAME_PROPERTIES:
        if props.get(key):
            return str(props[key])
    return None


TOLD_APART = ("User", "Role")
"""Labels whose names are compared: two people (or roles) called alike are shown with their ids."""


def clashing(vertices: Iterable[Mapping[str, Any]]) -> dict[str, set[str]]:
    """Per label of :data:`TOLD_APART`: the names (lower-cased) several of its vertices have."""
    seen: dict[str, dict[str, int]] = {label: {} for label in TOLD_APART}
    for row in vertices:
        if row.get("label") in seen:
            name = (given_name(row) or ids.key_of(row["id"])).lower()
            seen[row["label"]][name] = seen[row["label"]].get(name, 0) + 1
    return {label: {n for n, count in names.items() if count > 1} for label, names in seen.items()}


def iso(moment: datetime | None) -> str | None:
    """UTC ISO 8601 text of a time (stable: always with an offset)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).isoformat()


@dataclass
class Context:
    warehouse: Path
    vertices: list[dict[str, Any]]
    edge_rows: InitVar[Iterable[dict[str, Any] | Edge]]  # read once: indexed into ``timeline`` (as ``edges``), then let go
    relationships: InitVar[Collection[str] | None] = None  # the edges read are these only (a report)
    edges: list[Edge] = field(init=False)
    by_id: dict[str, dict[str, Any]] = field(init=False)
    timeline: Timeline = field(init=False)
    _snapshots: dict[datetime, Snapshot] = field(default_factory=dict, init=False)
    _clashing: dict[str, set[str]] = field(default_factory=dict, init=False)

    def __post_init__(self, edge_rows: Iterable[dict[str, Any]], relationships: Collection[str] | None) -> None:
        self.timeline = Timeline(self.vertices, edge_rows, relationships)
        self.edges = self.timeline.edges
        self.by_id = {v["id"]: v for v in self.vertices}
        self._clashing = clashing(self.vertices)

    @classmethod
    @collector_paused()
    def of(cls, warehouse: str | Path, *, report: bool = False) -> Context:
        """The whole graph; ``report``: what a report reads (:data:`REPORT_RELATIONSHIPS`, and of Jobs
        and Instances only :data:`RUN_PROPERTIES`)."""
        if not report:
            return cls(Path(warehouse), *load_rows(warehouse))
        vertices, edges = every_vertex(warehouse, relationships=REPORT_RELATIONSHIPS,
                                       properties=dict.fromkeys(RUN_LABELS, RUN_PROPERTIES))
        ctx = cls(Path(warehouse), vertices, Edge.stream(edges), REPORT_RELATIONSHIPS)
        del edges
        release_arrow()  # on the 16.6M-pair platform: 1,754 MiB resident after the read, 1,211 after this
        return ctx

    def snapshot(self, moment: datetime) -> Snapshot:
        """The graph at ``moment``: a view of the timeline, cached with what it learnt of existence."""
        if moment not in self._snapshots:
            self._snapshots[moment] = self.timeline.at(moment)
        return self._snapshots[moment]

    def label(self, vertex: str) -> str:
        row = self.by_id.get(vertex)
        return (row or {}).get("label") or ids.label_of(vertex)

    def name(self, vertex: str | None) -> str:
        """A readable name: a name property, else the id's key; a person's or role's name that
        another person or role has too is followed by the id that tells them apart."""
        if not vertex:
            return ""
        name = given_name(self.by_id.get(vertex)) or ids.key_of(vertex)
        return f"{name} ({vertex})" if name.lower() in self._clashing.get(self.label(vertex), ()) else name

    def properties(self, vertex: str) -> Mapping[str, str]:
        return of_row(self.by_id.get(vertex))
