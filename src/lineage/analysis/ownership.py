"""Who holds a MaxCompute table or project without any grant: its owner and the project's admins.

MaxCompute semantics (authorization docs: "Role planning", "Users and roles"):

* the account that creates an object owns it and holds every privilege on it; the account that
  creates a project is the project owner, with every privilege on every object in the project.
  The graph has no ``OWNS`` edge for this (an ``OWNS`` edge is DataHub's or DataWorks' metadata
  ownership, which grants nothing): the owner is the actor of the latest ``create`` Change of
  the table or project at or before the moment asked (a dropped and re-created table has the
  new creator);
* the built-in project-level roles :data:`ADMIN_ROLES` (Super_Administrator, Admin) operate on
  every resource of the project: their members (``HAS_ROLE`` as of the moment) hold every
  privilege on its tables.

The privileges listed are MaxCompute's for the object type (:data:`PRIVILEGES`), lower-cased as
``lineage.analysis.access`` spells grants. Pure functions over a snapshot and change rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from lineage import ids
from lineage.analysis.access import HAS_ROLE, IN_PROJECT, AccessPath, Principal, Snapshot

ADMIN_ROLES = ("super_administrator", "admin")
PRIVILEGES: dict[str, tuple[str, ...]] = {
    "Table": ("alter", "describe", "drop", "select", "showhistory", "update"),
    "Project": ("createfunction", "createinstance", "createresource", "createtable", "list", "read", "write"),
}
"""Every privilege MaxCompute defines on a table and on a project (``GRANT ... ON TABLE|PROJECT``)."""


def creators(changes: Iterable[Mapping[str, Any]]) -> dict[str, list[tuple[datetime, str]]]:
    """Entity -> [(time, actor)] of its ``create`` changes with an actor, oldest first."""
    found: dict[str, list[tuple[datetime, str]]] = {}
    for c in changes:
        if c.get("kind") == "create" and c.get("actor") and c.get("time") is not None:
            found.setdefault(c["entity_id"], []).append((c["time"], c["actor"]))
    return {k: sorted(v) for k, v in found.items()}


def _maxcompute(vertex: str) -> bool:
    return vertex.split(":", 2)[1:2] == ["maxcompute"]


def _owner(made: Mapping[str, list[tuple[datetime, str]]], entity: str, moment: datetime) -> tuple[str, datetime] | None:
    before = [(t, actor) for t, actor in made.get(entity, ()) if t <= moment]
    return (before[-1][1], before[-1][0]) if before else None


def admin_roles(project: str) -> list[str]:
    """The ids of a MaxCompute project's built-in admin roles (:data:`ADMIN_ROLES`)."""
    return [f"role:maxcompute:{ids.key_of(project)}.{role}" for role in ADMIN_ROLES]


def _projects(snap: Snapshot, target: str) -> list[str]:
    if snap.label(target) == "Project":
        return [target]
    return sorted({e.dst for e in snap.out(target, IN_PROJECT) if _maxcompute(e.dst)})


def owners_and_admins(snap: Snapshot, target: str, made: Mapping[str, list[tuple[datetime, str]]]) -> dict[str, Principal]:
    """The owner of a MaxCompute table or project, its project's owner and the members of the
    project's built-in admin roles, as of the snapshot's moment, each a :class:`Principal` with
    kind ``owner`` or ``admin`` and every privilege of the target's type; by id."""
    if not snap.exists(target) or not _maxcompute(target) or snap.label(target) not in PRIVILEGES:
        return {}
    privileges = PRIVILEGES[snap.label(target)]
    paths: dict[str, list[AccessPath]] = {}
    if found := _owner(made, target, snap.moment):
        paths.setdefault(found[0], []).append(AccessPath((found[0], target), ("owner",), privileges, since=found[1]))
    for project in _projects(snap, target):
        tail = (target,) if project == target else (project, target)
        if project != target and (found := _owner(made, project, snap.moment)):
            paths.setdefault(found[0], []).append(AccessPath((found[0], *tail), ("owner", "project"), privileges,
                                                             since=found[1]))
        for role_id in admin_roles(project):
            for e in snap.into(role_id, HAS_ROLE):
                paths.setdefault(e.src, []).append(AccessPath((e.src, role_id, *tail), ("admin",), privileges,
                                                              e.valid_to if e.closed_by == "expiry" else None, None,
                                                              e.valid_from))
    out = {}
    for pid, found_paths in sorted(paths.items()):
        ordered = sorted(found_paths, key=lambda p: (len(p.path), p.path))
        kinds = tuple(dict.fromkeys(k for p in ordered for k in p.kinds))
        ends = [p.expires_at for p in ordered]
        starts = [p.since for p in ordered if p.since is not None]
        out[pid] = Principal(pid, snap.label(pid), privileges, tuple(p.path for p in ordered), kinds, tuple(ordered),
                             None if None in ends else max(ends), None, snap.name(pid), min(starts) if starts else None)
    return out


def metadata_owners(snap: Snapshot, target: str) -> list[tuple[str, datetime | None]]:
    """(owner, since) of every ``OWNS`` edge into the target: catalogue ownership (DataHub,
    DataWorks), listed apart because it grants no access."""
    return sorted({(e.src, e.valid_from) for e in snap.into(target, "OWNS")}, key=lambda o: o[0])
