"""Small read-only views of the graph that notebooks draw: central tables, a table's lineage
neighbourhood (and how it changed over time), grants opened and closed per day, the subgraph and
the people to tell of one change. Plain functions over the parquet rows (no JVM), re-exported by
``lineage.analysis.api``, so that notebooks hold no logic of their own.
"""

from __future__ import annotations

from collections import Counter, deque
from datetime import timedelta
from pathlib import Path
from typing import Any

from lineage.graph.api import load_rows, to_time

GRANT_SOURCES = ("User", "Role")
STRUCTURAL = ("drop", "project_deletion", "field_removal", "schema_change", "node_update", "node_deploy",
              "node_delete", "node_undeploy", "node_freeze", "deprecation")
"""Change kinds that alter data or pipelines (not who may read them): the change-impact view."""


def _names(vertices: list[dict[str, Any]]) -> dict[str, str]:
    return {v["id"]: v.get("name") or v["id"] for v in vertices}


def _feeds(edges: list[dict[str, Any]]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    down: dict[str, set[str]] = {}
    up: dict[str, set[str]] = {}
    for e in edges:
        if e["relationship"] == "FEEDS":
            down.setdefault(e["src"], set()).add(e["dst"])
            up.setdefault(e["dst"], set()).add(e["src"])
    return down, up


def _reach(start: str, step: dict[str, set[str]], depth: int | None = None) -> dict[str, int]:
    """Hop distance of everything reachable from ``start`` (BFS, cycles safe)."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        at = queue.popleft()
        if depth is not None and seen[at] >= depth:
            continue
        for nxt in sorted(step.get(at, ())):
            if nxt not in seen:
                seen[nxt] = seen[at] + 1
                queue.append(nxt)
    del seen[start]
    return seen


def time_span(warehouse: str | Path) -> tuple[Any, Any]:
    """(first, last) moment the graph has seen anything: "now" for a generated platform."""
    vertices, _ = load_rows(warehouse)
    seen = [v[k] for v in vertices for k in ("first_seen", "last_seen") if v.get(k) is not None]
    return (min(seen), max(seen)) if seen else (None, None)


def tagged(warehouse: str | Path, tag: str, *, as_of: Any = None) -> list[str]:
    """Tables carrying ``tag`` (a tag id such as ``tag:datahub:PII``, or its name) directly."""
    _, edges = load_rows(warehouse, as_of)
    wanted = tag if ":" in tag else f"tag:datahub:{tag}"
    return sorted({e["src"] for e in edges if e["relationship"] == "TAGGED" and e["dst"] == wanted
                   and e["src_label"] == "Table"})


def central_tables(warehouse: str | Path, *, as_of: Any = None, top: int = 10) -> list[dict[str, Any]]:
    """Tables ranked by how many tables depend on them (downstream along FEEDS), then direct readers."""
    vertices, edges = load_rows(warehouse, as_of)
    names = _names(vertices)
    down, _ = _feeds(edges)
    ranked = sorted(((len(_reach(t, down)), len(down.get(t, ())), t) for t in down), key=lambda r: (-r[0], -r[1], r[2]))
    return [{"id": t, "name": names.get(t, t), "downstream": n, "direct": d} for n, d, t in ranked[:top]]


def feeds_neighbourhood(warehouse: str | Path, table: str, *, as_of: Any = None, depth: int = 2) -> dict[str, Any]:
    """The tables up to ``depth`` hops upstream (negative level) and downstream (positive level) of
    ``table`` along FEEDS, and the FEEDS edges among them: a layered picture's input."""
    vertices, edges = load_rows(warehouse, as_of)
    names = _names(vertices)
    down, up = _feeds(edges)
    levels = {table: 0}
    levels.update({t: -d for t, d in _reach(table, up, depth).items()})
    for t, d in _reach(table, down, depth).items():
        levels.setdefault(t, d)
    links = sorted({(e["src"], e["dst"]) for e in edges
                    if e["relationship"] == "FEEDS" and e["src"] in levels and e["dst"] in levels})
    nodes = [{"id": t, "name": names.get(t, t), "level": lvl} for t, lvl in sorted(levels.items(), key=lambda i: (i[1], i[0]))]
    return {"table": table, "as_of": to_time(as_of), "nodes": nodes, "edges": links}


def lineage_diff(warehouse: str | Path, table: str, *, before: Any, after: Any, depth: int = 2) -> dict[str, Any]:
    """How ``table``'s lineage neighbourhood changed between two moments (tables and FEEDS edges)."""
    old = feeds_neighbourhood(warehouse, table, as_of=before, depth=depth)
    new = feeds_neighbourhood(warehouse, table, as_of=after, depth=depth)
    old_t, new_t = {n["id"] for n in old["nodes"]}, {n["id"] for n in new["nodes"]}
    old_e, new_e = set(old["edges"]), set(new["edges"])
    return {"before": old, "after": new,
            "tables_added": sorted(new_t - old_t), "tables_removed": sorted(old_t - new_t),
            "edges_added": sorted(new_e - old_e), "edges_removed": sorted(old_e - new_e)}


def grant_timeline(warehouse: str | Path, *, target: str | None = None) -> list[dict[str, Any]]:
    """Per day: access grants (CAN_ACCESS from a user or role to a table) opened, revoked and expired."""
    _, edges = load_rows(warehouse)
    days: dict[str, Counter] = {}
    for e in edges:
        if e["relationship"] != "CAN_ACCESS" or e["src_label"] not in GRANT_SOURCES or e["dst_label"] != "Table":
            continue
        if target is not None and e["dst"] != target:
            continue
        if e["valid_from"] is not None:
            days.setdefault(e["valid_from"].date().isoformat(), Counter())["opened"] += 1
        if e["valid_to"] is not None:
            closed = "expired" if e.get("closed_by") == "expiry" else "revoked"
            days.setdefault(e["valid_to"].date().isoformat(), Counter())[closed] += 1
    return [{"day": d, "opened": c["opened"], "revoked": c["revoked"], "expired": c["expired"]}
            for d, c in sorted(days.items())]


def impact_subgraph(change: Any) -> list[tuple[str, str]]:
    """The edges of the witness paths of a change's affected set (a ChangeImpact or ImpactResult),
    the runs a path walks through left out (a node's instance and DAG run: node -> workflow)."""
    from lineage.ids import is_run

    pairs = set()
    for affected in change.affected:
        path = [v for i, v in enumerate(affected.path) if i == 0 or not is_run(v)]
        pairs.update(zip(path, path[1:]))
    return sorted(pairs)


def people_to_tell(warehouse: str | Path, change: Any) -> list[dict[str, Any]]:
    """Who must hear about a change: owners of the changed entity, and every affected person
    (owners and readers of affected assets), with what reaches them, nearest first."""
    moment = getattr(change, "time", None)
    # as the blast radius sees it: one instant before the change (a dropped table still has owners)
    vertices, edges = load_rows(warehouse, moment - timedelta(microseconds=1) if moment else None)
    names = _names(vertices)
    entity = getattr(change, "entity_id", None)
    people: dict[str, dict[str, Any]] = {}
    for e in edges:
        if entity and e["relationship"] == "OWNS" and e["dst"] == entity:
            people[e["src"]] = {"id": e["src"], "name": names.get(e["src"], e["src"]), "distance": 0,
                                "why": f"owns {names.get(entity, entity)}"}
    for affected in change.affected:
        if affected.label == "User" and affected.id not in people:
            via = affected.path[-2] if len(affected.path) > 1 else entity
            people[affected.id] = {"id": affected.id, "name": names.get(affected.id, affected.id),
                                   "distance": affected.distance, "why": f"through {names.get(via, via)}"}
    return sorted(people.values(), key=lambda p: (p["distance"], p["id"]))
