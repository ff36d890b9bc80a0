"""Changes ranked by blast radius, the people to tell, and the impact subgraph of the top changes.

The ranking and the affected sets are ``lineage.analysis.api.blast`` (the same call as
``lineage blast-radius``). People are asked of the graph one instant before each change, the
instant blast radius uses: owners (``OWNS``) of the changed entity and of its affected assets,
and the principals who can read an affected table (``lineage.analysis.access``, as ``lineage
access`` answers).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from typing import Any, Iterable, Mapping, Protocol

from lineage.analysis.blast import ChangeImpact, weight
from lineage.analysis.columns import COLUMN_KINDS, column_name, column_paths, known_columns
from lineage.analysis.engine import BEFORE, Traversal, query_of
from lineage.analysis.people import OWNS, owners_at, readers_at
from lineage.analysis.runs import names_column
from lineage.analysis.rules import BREAKS, NOTIFIES
from lineage.report.context import Context, iso
from lineage.report.model import Asset, Change, ColumnReach, FailedRun, GraphEdge, GraphNode, ImpactGraph, Person

HIGH_IMPACT_SCORE = 10.0
"""A change scoring at least this is "high impact" in the headline (tune with the weights in blast.py)."""
TOP_ASSETS = 8
PICTURE_LABELS = frozenset({"Table", "Node", "Dashboard", "Chart", "Baseline"})
"""What the impact picture draws; instances and jobs are collapsed into their node (not drawn)."""
PICTURE_LIMIT = 40


def owners(ctx: Context, impact: ChangeImpact) -> list[str]:
    """Owners of the changed entity and of every affected asset, one instant before the change."""
    if impact.time is None:
        return []
    snap = ctx.snapshot(impact.time - BEFORE)
    return sorted(owners_at(snap, [impact.entity_id, *(a.id for a in impact.affected)]))


def readers(ctx: Context, impact: ChangeImpact) -> dict[str, list[str]]:
    """Principal -> affected tables (and the changed one, for a break) they could read one instant
    before the change: a grant's or an owner change's people are its affected principals and
    owners, not everyone who reads the table."""
    if impact.time is None:
        return {}
    snap = ctx.snapshot(impact.time - BEFORE)
    tables = [impact.entity_id] if impact.entity_label == "Table" and impact.effect == BREAKS else []
    tables += [a.id for a in impact.affected if a.label == "Table"]
    return {pid: sorted(found) for pid, found in readers_at(snap, tables).items()}


class Named(Protocol):
    """What names a vertex: the report's ``Context``, or the keeper's ``digest.Marks`` during the walk."""

    def name(self, vertex: str | None) -> str: ...


def top_assets(ctx: Named, impact: ChangeImpact, n: int = TOP_ASSETS) -> list[Asset]:
    """The most important affected assets: highest ``weight(label) / distance``, then by name."""
    ranked = heapq.nsmallest(n, impact.affected,
                             key=lambda a: (-weight(a.label) / max(a.distance, 1), ctx.name(a.id), a.id))
    return [Asset(id=a.id, label=a.label, name=ctx.name(a.id), distance=a.distance) for a in ranked]


def table_reach(ranked: list[ChangeImpact], records: Mapping[str, Mapping[str, Any]],
                traversal: Traversal) -> dict[str, int]:
    """Change id -> the tables one table-level walk of ``traversal`` reaches from the changed
    table, one instant before, for each field removal or column type change of ``ranked`` (the
    other side of :func:`column_reach`; walked before the report reads its context)."""
    asked = [impact for impact in ranked
             if impact.kind in COLUMN_KINDS and impact.time is not None and records.get(impact.change_id)]
    if not asked:
        return {}
    walks = traversal.impacts([query_of(records[impact.change_id]) for impact in asked], max_depth=None, limit=0,
                              weigh=weight)
    return {asked[n].change_id: found.summary.get("Table", 0) for n, found in walks}


def column_reach(ctx: Context, ranked: list[ChangeImpact], records: Mapping[str, Mapping[str, Any]],
                 downstream: Mapping[str, int]) -> dict[str, ColumnReach]:
    """Change id -> how many of its table's downstream tables read the changed columns, for
    each field removal or column type change whose columns the graph knows (as blast radius
    scored it column-precisely): the tables of its column-precise affected set against the
    tables a table-level walk reaches from its table (``downstream``: :func:`table_reach`), with
    the column paths to the nearest readers (``lineage.analysis.columns.column_paths``)."""
    out: dict[str, ColumnReach] = {}
    for impact in ranked:
        change = records.get(impact.change_id)
        if impact.change_id not in downstream or impact.time is None or not change:
            continue
        snap = ctx.snapshot(impact.time - BEFORE)
        named = known_columns(snap, change)
        if named:
            out[impact.change_id] = ColumnReach(
                columns=named, reading=sum(a.label == "Table" for a in impact.affected),
                downstream=downstream[impact.change_id],
                paths=[[column_name(snap, c) for c in path] for path in column_paths(snap, change)])
    return out


def change_rows(ctx: Context, ranked: list[ChangeImpact], reach: Mapping[str, ColumnReach] | None = None
                ) -> tuple[list[Change], dict[str, dict[str, list[str]]]]:
    """The report's changes (rank order) and, per change, principal -> tables read (``reach``:
    :func:`column_reach` of the column changes)."""
    rows, read = [], {}
    for rank, impact in enumerate(ranked, 1):
        read[impact.change_id] = readers(ctx, impact)
        touched = impact.columns()
        columns = [c["column"] for c in touched]
        rows.append(Change(
            rank=rank, change_id=impact.change_id, entity_id=impact.entity_id, entity_label=impact.entity_label,
            entity_name=ctx.name(impact.entity_id), kind=impact.kind, effect=impact.effect, time=iso(impact.time), actor=impact.actor,
            actor_name=ctx.name(impact.actor) if impact.actor else None, score=impact.score,
            high_impact=impact.score >= HIGH_IMPACT_SCORE, affected_count=impact.count, summary=dict(impact.summary),
            top_assets=top_assets(ctx, impact), owners=owners(ctx, impact), readers=sorted(read[impact.change_id]),
            column_reach=(reach or {}).get(impact.change_id),
            reported_by=list(dict.fromkeys(str(r.get("source")) for r in impact.reported_by)),
            columns=columns, category=impact.category(), column_change=touched[0]["change"] if touched else None,
            script=", ".join(impact.rows_changed()) or None,
            failed_after=[FailedRun(id=r["id"], label=r["label"], definition=r["definition"],
                                    definition_name=ctx.name(r["definition"]), time=r["time"], error=r.get("error"))
                          for r in impact.failed_after],
            failing=sorted({ctx.name(r["definition"]) for r in impact.failed_after}),
            explained=names_column(" ".join(r.get("error") or "" for r in impact.failed_after), columns),
        ))
    return rows, read


Reach = dict[str, dict[str, dict[str, set[str]]]]
"""Person -> change id -> reason (owner, reader) -> what of theirs the change reaches."""


def people(ctx: Context, ranked: list[ChangeImpact], read: dict[str, dict[str, list[str]]]) -> list[Person]:
    """Everyone to tell, deduplicated across changes, each with the changes and assets to hear about."""
    return people_and_reach(ctx, ranked, read)[0]


def people_and_reach(ctx: Context, ranked: list[ChangeImpact], read: dict[str, dict[str, list[str]]]
                     ) -> tuple[list[Person], Reach]:
    """:func:`people`, and per person and change what of theirs it reaches and why (their digest's lines)."""
    reach: Reach = defaultdict(lambda: defaultdict(lambda: defaultdict(set)))
    for impact in ranked:
        if impact.time is None:
            continue
        snap = ctx.snapshot(impact.time - BEFORE)
        for asset in [impact.entity_id, *(a.id for a in impact.affected)]:
            for edge in snap.into(asset, OWNS):
                reach[edge.src][impact.change_id]["owner"].add(asset)
        if impact.effect == NOTIFIES:  # its affected people are the owners, old and new
            for owner in (a.id for a in impact.affected if a.label == "User"):
                reach[owner][impact.change_id]["owner"].add(impact.entity_id)
        for pid, tables in read.get(impact.change_id, {}).items():
            reach[pid][impact.change_id]["reader"].update(tables)
    order = {c.change_id: i for i, c in enumerate(ranked)}
    found = [
        Person(id=pid, name=ctx.name(pid), reasons=sorted({r for why in reach[pid].values() for r in why}),
               changes=sorted(reach[pid], key=order.__getitem__),
               assets=sorted({a for why in reach[pid].values() for tables in why.values() for a in tables}))
        for pid in sorted(reach)
    ]
    return found, reach


def impact_graph(ctx: Context, top: Iterable[ChangeImpact], limit: int = PICTURE_LIMIT) -> ImpactGraph:
    """Tables, nodes, dashboards and baselines reached by the top changes, by distance; each
    witness path contributes its consecutive drawn vertices as edges (instances collapsed)."""
    nodes: dict[str, GraphNode] = {}
    edges: set[tuple[str, str]] = set()
    left_out = 0
    ids = []
    for impact in top:
        ids.append(impact.change_id)
        root = impact.entity_id
        nodes.setdefault(root, GraphNode(id=root, label=impact.entity_label, name=ctx.name(root), layer=0))
        for affected in impact.affected:
            if affected.label not in PICTURE_LABELS:
                continue
            if affected.id not in nodes and len(nodes) >= limit:
                left_out += 1
                continue
            if affected.id not in nodes or nodes[affected.id].layer > affected.distance:
                nodes[affected.id] = GraphNode(id=affected.id, label=affected.label, name=ctx.name(affected.id),
                                               layer=affected.distance)
            drawn = [v for v in affected.path if v == root or ctx.label(v) in PICTURE_LABELS]
            edges.update(zip(drawn, drawn[1:]))
    kept = [GraphEdge(src=s, dst=d) for s, d in sorted(edges) if s in nodes and d in nodes and s != d]
    # layers compact: a collapsed hop (node -> instance -> table) must not leave an empty column
    layers = sorted({n.layer for n in nodes.values()})
    compact = {layer: i for i, layer in enumerate(layers)}
    return ImpactGraph(changes=ids, nodes=[n.model_copy(update={"layer": compact[n.layer]})
                                           for n in sorted(nodes.values(), key=lambda n: (n.layer, n.id))],
                       edges=kept, truncated=left_out)
