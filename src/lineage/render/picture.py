"""The affected subgraph of `impact` / `upstream` as people read it, for text and pictures alike.

One vertex per *item*: every affected vertex, except that

* an Instance is collapsed into the Node that ``HAS_INSTANCE`` it ("31 instances, 2 failed");
* a DAG run into the node whose instance it was reached through;
* a Job is collapsed into its DataWorks Node (the job's ``skynet_id``) when that node is in the
  answer, else into one item per set of tables it writes ("jobs writing dwd_orders: 12").

Edges are the graph's edges (of the rules walked) between the answer's vertices at the answer's
moment, drawn upstream to downstream: for impact the way impact flows, for upstream the way data
flows (the reverse of the walk). Collapsing redirects an edge to the item holding its end.
Pure functions: the graph comes in as a :class:`lineage.analysis.access.Snapshot`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lineage.analysis.access import Snapshot
from lineage.analysis.engine import Affected
from lineage.analysis.rules import FORWARD, ImpactRule

LABEL_ORDER = ("Table", "Column", "Location", "Node", "Job", "Instance", "Dag", "Flow", "Baseline", "QualityRule",
               "Chart", "Dashboard", "File", "Project", "Role", "User")
"""The order label groups are listed in (others after, alphabetically)."""

FAILED = frozenset({"failed", "failure", "error"})
"""Instance or job ``status`` values that count as failed (lower-cased)."""


@dataclass(frozen=True)
class Item:
    """One line of the answer and one vertex of a picture: a graph vertex, or a group of jobs."""

    id: str
    label: str
    name: str
    distance: int
    via: str = ""  # the previous hop of the witness path (a vertex id), "" for a source
    members: tuple[str, ...] = ()  # collapsed vertices (instances, jobs)
    failed: int = 0  # failed members
    counts: tuple[tuple[str, int], ...] = ()  # (member label, count)

    @property
    def note(self) -> str:
        """``31 instances, 2 failed; 4 jobs``: what is collapsed into the item."""
        parts = [f"{n} {_plural(label, n)}" for label, n in self.counts]
        text = ", ".join(parts)
        return f"{text}, {self.failed} failed" if self.failed else text


def _plural(label: str, n: int) -> str:
    word = label.lower()
    return word if n == 1 else word + "s"


@dataclass(frozen=True)
class Picture:
    sources: tuple[Item, ...]
    items: tuple[Item, ...]  # grouped by label (LABEL_ORDER), then distance, name
    edges: tuple[tuple[str, str], ...]  # item ids, upstream -> downstream
    raw: tuple[Affected, ...] = field(default=(), repr=False)
    downstream: bool = True

    def nearer(self, item: str) -> list[str]:
        """Items one drawn edge nearer the sources: the jobs and nodes ``item`` was reached through, else any."""
        found = [a for a, b in self.edges if b == item] if self.downstream else [b for a, b in self.edges if a == item]
        kind = {i.id: i.label for i in (*self.sources, *self.items)}
        runs = [i for i in found if kind.get(i) in ("Node", "Job")]
        return sorted(runs or found)

    def groups(self) -> list[tuple[str, list[Item]]]:
        """(label, items) in :data:`LABEL_ORDER`."""
        found: dict[str, list[Item]] = defaultdict(list)
        for item in self.items:
            found[item.label].append(item)
        return [(label, found[label]) for label in sorted(found, key=label_rank)]


def label_rank(label: str) -> tuple[int, str]:
    return (LABEL_ORDER.index(label), "") if label in LABEL_ORDER else (len(LABEL_ORDER), label)


def _failed(snap: Snapshot, vertex: str) -> bool:
    return (snap.properties.get(vertex, {}).get("status") or "").lower() in FAILED


def _owner_node(snap: Snapshot, vertex: str, label: str, present: set[str]) -> str | None:
    """The Node an instance or a job belongs to, when that node is in the answer."""
    if label == "Instance":
        nodes = sorted(e.src for e in snap.into(vertex, "HAS_INSTANCE") if e.src in present)
        return nodes[0] if nodes else None
    if label == "Job":
        node = snap.properties.get(vertex, {}).get("skynet_id")
        return f"node:dataworks:{node}" if node and f"node:dataworks:{node}" in present else None
    return None


def _job_group(snap: Snapshot, job: str) -> str:
    written = sorted({e.dst for e in snap.out(job, "WRITES")})
    return "jobs:writing:" + ",".join(written)


def _via(path: Sequence[str], item_of: dict[str, str]) -> str:
    """The item a vertex was reached through: its nearest predecessor on the path that the
    answer lists (a run walked through is never affected, so never listed), or ""."""
    return next((item_of[v] for v in reversed(path[:-1]) if v in item_of), "")


def picture(
    snap: Snapshot,
    sources: Sequence[str],
    affected: Sequence[Affected],
    rules: Sequence[ImpactRule],
    *,
    downstream: bool = True,
    collapse: bool = True,
    name: Callable[[str], str] | None = None,
) -> Picture:
    """The items and drawn edges of an answer (see the module docstring); ``collapse=False``
    keeps every vertex (``--all``)."""
    name = name or snap.name
    label = {a.id: a.label for a in affected}
    label.update({s: snap.label(s) for s in sources})
    present = set(label)
    item_of: dict[str, str] = {v: v for v in present}
    members: dict[str, list[str]] = defaultdict(list)
    if collapse:
        for a in affected:
            if a.label not in ("Instance", "Job"):
                continue
            home = _owner_node(snap, a.id, a.label, present)
            if home is None and a.label == "Job":
                home = _job_group(snap, a.id)
            if home is not None:
                item_of[a.id] = home
                members[home].append(a.id)
        for a in affected:  # a DAG run goes where the instance it was reached through went
            if a.label == "Dag" and label.get(home := _via(a.path, item_of)) == "Node":
                item_of[a.id] = home
                members[home].append(a.id)
    items: dict[str, Item] = {}
    for a in affected:
        home = item_of[a.id]
        if home != a.id:
            continue
        items[a.id] = Item(a.id, a.label, name(a.id), a.distance, _via(a.path, item_of))
    by_id = {a.id: a for a in affected}
    for home, group in members.items():
        tally: dict[str, int] = defaultdict(int)
        for m in group:
            tally[label[m]] += 1
        counts = tuple(sorted(tally.items(), key=lambda kv: label_rank(kv[0])))
        failed = sum(1 for m in group if _failed(snap, m))
        if home in items or home in sources:
            base = items.get(home) or Item(home, label[home], name(home), 0)
            items[home] = Item(base.id, base.label, base.name, base.distance, base.via, tuple(sorted(group)), failed,
                               counts)
        else:  # a group of jobs without a node: named by the tables they write
            near = min(group, key=lambda m: (by_id[m].distance, m))
            written = home.split(":", 2)[2].split(",") if home.split(":", 2)[2] else []
            title = "jobs writing " + (", ".join(name(t) for t in written) if written else "no table")
            via = _via(by_id[near].path, item_of)
            items[home] = Item(home, "Job", title, by_id[near].distance, via,
                               tuple(sorted(group)), failed, counts)
    source_items = tuple(items.pop(s) if s in items else Item(s, label[s], name(s), 0) for s in dict.fromkeys(sources))
    edges = set()
    for v in present:
        for rule in rules:
            for e in snap.out(v, rule.relationship):
                if e.dst not in present:
                    continue
                a, b = (e.src, e.dst) if (rule.flows == FORWARD) == downstream else (e.dst, e.src)
                if item_of[a] != a and item_of[b] != b:
                    continue  # between two collapsed vertices (instance -> DAG run): inside the items
                a, b = item_of[a], item_of[b]
                if a != b:
                    edges.add((a, b))
    ordered = sorted(items.values(), key=lambda i: (label_rank(i.label), i.distance, i.name, i.id))
    return Picture(source_items, tuple(ordered), tuple(sorted(edges)), tuple(affected), downstream)

