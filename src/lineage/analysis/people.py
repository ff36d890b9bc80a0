"""The people to tell about a set of assets: owners, readers, members of a role that can read.

One computation shared by the weekly report (``lineage.report.changes``) and the human answer of
``lineage impact``: owners are ``OWNS`` edges into an asset, readers are the principals
``lineage access`` lists for an affected table (a label grant alone is not a read), and a reader
whose every way in goes through a role is told as that role's member.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lineage.analysis.access import Principal, Snapshot, principals_at

OWNS = "OWNS"


def owners_at(snap: Snapshot, assets: Iterable[str]) -> dict[str, set[str]]:
    """Owner -> the assets they own (``OWNS``), in this snapshot."""
    found: dict[str, set[str]] = defaultdict(set)
    for asset in dict.fromkeys(assets):
        for edge in snap.into(asset, OWNS):
            found[edge.src].add(asset)
    return found


def readers_at(snap: Snapshot, tables: Iterable[str]) -> dict[str, dict[str, Principal]]:
    """Principal -> table -> how they read it, for every table someone can read, by principal id."""
    found: dict[str, dict[str, Principal]] = defaultdict(dict)
    for table in dict.fromkeys(tables):
        for pid, principal in principals_at(snap, table).items():
            if principal.reads:
                found[pid][table] = principal
    return {pid: found[pid] for pid in sorted(found)}


@dataclass(frozen=True)
class Tell:
    """Someone to tell and why, reasons in the order owner, can read, member of a role that can read."""

    id: str
    name: str
    why: tuple[str, ...]


def _roles(principal: Principal) -> list[str]:
    """The roles of a principal's read paths, when every read path goes through a role."""
    reads = [a for a in principal.access if a.reads]
    if not reads or any("role" not in a.kinds for a in reads):
        return []
    return sorted({a.path[1] for a in reads if len(a.path) > 2})


def _listed(names: list[str], most: int = 3) -> str:
    shown = ", ".join(names[:most])
    return shown + (f" (+{len(names) - most})" if len(names) > most else "")


def people_to_tell(snap: Snapshot, assets: Iterable[str], name: Callable[[str], str] | None = None) -> list[Tell]:
    """Everyone to tell about ``assets`` (the changed ones and those affected): owners of any,
    readers of the tables among them, each with why; sorted by name, then id."""
    name = name or snap.name
    assets = list(dict.fromkeys(assets))
    owned = owners_at(snap, assets)
    read = readers_at(snap, [a for a in assets if snap.label(a) == "Table"])
    why: dict[str, list[str]] = defaultdict(list)
    for pid, things in owned.items():
        by_label: dict[str, list[str]] = defaultdict(list)
        for thing in things:
            by_label[snap.label(thing)].append(name(thing))
        why[pid].append("owner of " + "; ".join(f"{label.lower()} {_listed(sorted(names))}"
                                                for label, names in sorted(by_label.items())))
    for pid, tables in read.items():
        direct = sorted(name(t) for t, p in tables.items() if not _roles(p))
        by_role: dict[str, list[str]] = defaultdict(list)
        for t, p in tables.items():
            for role in _roles(p):
                by_role[role].append(name(t))
        if direct:
            why[pid].append("can read table " + _listed(direct))
        for role, names in sorted(by_role.items()):
            why[pid].append(f"member of role {name(role)} that can read table " + _listed(sorted(names)))
    people = [Tell(pid, name(pid), tuple(reasons)) for pid, reasons in why.items() if snap.label(pid) != "Role"]
    return sorted(people, key=lambda t: (t.name.lower(), t.id))
