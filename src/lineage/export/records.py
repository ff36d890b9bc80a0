"""The built graph as the rows a property graph stores: nodes and relationships with flat properties.

One rule for every value so Neo4j Browser users and the saved queries can rely on it:

- Times are ISO-8601 UTC strings of fixed width (``2024-07-01T02:40:00.000000Z``). FalkorDB has
  no temporal type over Bolt, and fixed width makes string order time order, so
  ``e.valid_from <= $as_of`` works on both servers.
- A vertex becomes a node with its one label; an edge interval becomes one relationship whose
  ``key`` (a digest of src, type, dst, qualifier and valid_from) is its identity for MERGE.
- Change records become ``(:Change)-[:CHANGES]->(entity)`` so "this week's changes" is a query;
  each carries its ``effect`` (:func:`change_effect`), so a query walks downstream only for breaks.
- Mapping properties are flattened beside the core columns; a key that is not a plain identifier
  or collides with a core column is stored as ``p_<key>`` (left out when it equals that column). They are strings, but for the few in
  :data:`PROPERTY_TYPES` (JSON lists such as FEEDS ``via``, counts such as ``via_count``).
- Nulls are left out (Neo4j does not store null properties either).

Labels and relationship types come only from :data:`NODE_LABELS` / :data:`REL_TYPES`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from lineage import ids
from lineage.export.state import NODE, REL
from lineage.graph.api import built
from lineage.graph.node_diff import CHANGED
from lineage.graph.script_changes import SCRIPT

CHANGE_LABEL = "Change"
CHANGES_REL = "CHANGES"
AFFECTS_REL = "AFFECTS"  # written by `export neo4j --with-impact` (lineage.export.impact)
MARKER_LABEL = "LineageExport"
NODE_LABELS: frozenset[str] = frozenset(ids.LABELS) | {CHANGE_LABEL}
REL_TYPES: frozenset[str] = ids.RELATIONSHIPS | {CHANGES_REL, AFFECTS_REL}
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"  # arrow's %S on microsecond timestamps prints SS.ffffff

VERTEX_CORE = ("id", "label", "name", "first_seen", "last_seen", "deleted_at", "event_count")
EDGE_CORE = ("key", "qualifier", "valid_from", "valid_to", "last_seen", "event_count", "closed_by")
CHANGE_CORE = ("id", "change_id", "entity_id", "entity_label", "kind", "time", "actor", "event_id", "source", "effect")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Node:
    label: str
    id: str
    props: dict[str, Any]
    digest: str


@dataclass(frozen=True)
class Rel:
    type: str
    key: str
    src_label: str
    src: str
    dst_label: str
    dst: str
    props: dict[str, Any]
    digest: str


Home = tuple[str, str, "str | None", "str | None"]
"""Where a record lives: (``node`` or ``rel``, label or type, start label, end label); the Bolt
statements and the bulk files are grouped by it."""


def home(item: Node | Rel) -> Home:
    return (NODE, item.label, None, None) if isinstance(item, Node) else (REL, item.type, item.src_label, item.dst_label)


class VocabularyError(ValueError):
    """A label or relationship type outside the fixed vocabulary (never sent to the server)."""


def edge_key(src: str, relationship: str, dst: str, qualifier: str | None, valid_from: str | None) -> str:
    """The identity of one edge interval (stable across builds while the interval is)."""
    text = "\x1f".join((src, relationship, dst, qualifier or "", valid_from or ""))
    return hashlib.blake2b(text.encode(), digest_size=10).hexdigest()


def digest(props: dict[str, Any]) -> str:
    """What the server holds for a row; equal digests mean nothing to write."""
    return hashlib.blake2b(json.dumps(props, sort_keys=True, ensure_ascii=False).encode(), digest_size=10).hexdigest()


def _string_list(value: str) -> Any:
    """``'["a","b"]'`` -> ``["a", "b"]``; anything else stays the string it is."""
    try:
        parsed = json.loads(value) if value.startswith("[") else None
    except ValueError:
        return value
    return [str(v) for v in parsed] if isinstance(parsed, list) and all(isinstance(v, (str, int)) for v in parsed) else value


def _integer(value: str) -> Any:
    """A count as an integer; a number no Bolt server stores (beyond 64 bits) stays a string."""
    number = int(value) if re.fullmatch(r"-?[0-9]+", value) else None
    return number if number is not None and -2**63 <= number < 2**63 else value


PROPERTY_TYPES: dict[str, Callable[[str], Any]] = {
    "via": _string_list, "privileges": _string_list, "grantees": _string_list, "resources": _string_list,
    "allow_actions": _string_list, "via_count": _integer, "run_count": _integer, "status_code": _integer,
    "aliases": _string_list, "status_changes": _integer, "names": _string_list, "transformations": _string_list,
}
"""Mapping properties (strings in the graph) that Neo4j users want typed, so that
``'job:...' IN r.via`` and ``r.via_count > 3`` work; a value of another shape stays a string."""


def flat(core: dict[str, Any], extra: dict[str, str] | None, reserved: tuple[str, ...]) -> dict[str, Any]:
    """Core columns plus the mapping properties, nulls dropped (see the module docstring)."""
    out = {k: v for k, v in core.items() if v is not None}
    for key, value in (extra or {}).items():
        if value is None:
            continue
        if key in reserved and out.get(key) == value:
            continue  # the same fact twice (a mapping `name` equal to the vertex name)
        name = key if _IDENTIFIER.match(key) and key not in reserved else "p_" + re.sub(r"\W", "_", key)
        out.setdefault(name, PROPERTY_TYPES.get(key, str)(value))
    return out


def check_label(label: str) -> str:
    if label not in NODE_LABELS:
        raise VocabularyError(f"label {label!r} is not in the export vocabulary")
    return label


def check_type(rel: str) -> str:
    if rel not in REL_TYPES:
        raise VocabularyError(f"relationship type {rel!r} is not in the export vocabulary")
    return rel


BATCH_ROWS = 20_000
"""Rows of a dataset decoded at a time: the export holds one batch of records, never the graph
(the whole graph as records was 3.5 GB at 10^6 events)."""


def _batches(path: Path) -> Iterator[Any]:
    """The dataset at ``path`` a record batch at a time, always in the same order (its files, then
    their row groups: no threads), timestamps as fixed-width strings; a second read of the same
    files gives the same rows at the same positions."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds

    for batch in ds.dataset(str(path), format="parquet").to_batches(batch_size=BATCH_ROWS, use_threads=False):
        for i, field in enumerate(batch.schema):
            if pa.types.is_timestamp(field.type):
                batch = batch.set_column(i, field.name, pc.strftime(batch.column(i), format=TIME_FORMAT))
        if batch.num_rows:
            yield batch


def _rows(batch: Any) -> Iterator[dict[str, Any]]:
    for row in batch.to_pylist():
        props = row.get("properties")
        row["properties"] = dict(props) if props else {}
        yield row


def change_effect(change: dict[str, Any]) -> str:
    """How a change reaches people (``rules.CHANGE_EFFECTS``), from its record alone: a break or a
    notice by its kind; an access change by its words (``effects.access_effect`` with no graph);
    a tag change exposes when it adds a sensitive tag; a node update that changed none of the
    settings its outputs depend on notifies (``effects.effect_of``). Blast radius decides access
    changes from the graph, so ``exposes``/``restricts`` may differ there; ``breaks`` never does."""
    from lineage.analysis import effects
    from lineage.analysis.rules import ACCESS, EXPOSES, NOTIFIES, TAGGING

    effect = effects.effect_of(change)
    if effect == ACCESS:
        return effects.access_effect(change, (), ())
    if effect == TAGGING:
        return EXPOSES if effects.sensitive_tag_added(change) else NOTIFIES
    return effect


def _vertex(v: dict[str, Any]) -> Node:
    props = flat({k: v.get(k) for k in VERTEX_CORE}, v["properties"], VERTEX_CORE)
    return Node(check_label(v["label"]), v["id"], props, digest(props))


def _edge(e: dict[str, Any]) -> Rel:
    key = edge_key(e["src"], e["relationship"], e["dst"], e["qualifier"], e["valid_from"])
    core = {"key": key, **{k: e.get(k) for k in EDGE_CORE if k != "key"}}
    props = flat(core, e["properties"], (*EDGE_CORE, "relationship"))
    return Rel(check_type(e["relationship"]), key, check_label(e["src_label"]), e["src"],
               check_label(e["dst_label"]), e["dst"], props, digest(props))


def _change(c: dict[str, Any]) -> Node:
    core = {"id": c["change_id"], **{k: c.get(k) for k in CHANGE_CORE if k != "id"}}  # change_id: also by name
    core["effect"] = change_effect(c)
    props = flat(core, c["properties"], CHANGE_CORE)
    return Node(CHANGE_LABEL, c["change_id"], props, digest(props))


def _link(c: dict[str, Any]) -> Rel:
    link = {"key": c["change_id"]}
    return Rel(CHANGES_REL, c["change_id"], CHANGE_LABEL, c["change_id"], check_label(c["entity_label"]),
               c["entity_id"], link, digest(link))


STREAMS: tuple[tuple[str, Callable[[dict[str, Any]], Any]], ...] = (
    ("vertices", _vertex), ("changes", _change), ("edges", _edge), ("changes", _link))
"""The graph's records in write order, one record per row of a dataset: its vertices, the Change
records as nodes, its edge intervals, one CHANGES per Change record (every node before any
relationship, so a relationship's MATCH finds both ends)."""


DERIVED = (CHANGED, SCRIPT)
"""Change properties the questions derive from other records, carried by the exported Change."""


@dataclass(frozen=True)
class Source:
    """The datasets of one built generation, read a batch at a time as :data:`STREAMS`' records."""

    paths: tuple[Path, ...]
    derived: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    """Node change id -> what the questions derive for it (:data:`DERIVED`: what an update changed,
    ``graph.node_diff``; what its script change did, ``graph.script_changes``): a record says only
    the settings after it, so this is computed once, as every question reads the records."""

    @classmethod
    def of(cls, warehouse: str | Path) -> "Source":
        from lineage.graph import node_diff, script_changes
        from lineage.graph.api import change_rows

        wh = built(warehouse, "vertices", "edges", "changes")
        kinds = sorted(set(node_diff.NODE_KINDS) | set(script_changes.KINDS))
        derived = {c["change_id"]: said for c in change_rows(warehouse, kinds=kinds, merge=False)
                   if (said := {k: c["properties"][k] for k in DERIVED if k in (c["properties"] or {})})}
        return cls(tuple(getattr(wh, dataset) for dataset, _ in STREAMS), derived)

    def _rows(self, stream: int, batch: Any) -> Iterator[dict[str, Any]]:
        for row in _rows(batch):
            said = self.derived.get(row["change_id"]) if STREAMS[stream][0] == "changes" else None
            if said:
                row["properties"] = {**row["properties"], **said}
            yield row

    def batches(self, wanted: "Callable[[int], Any] | None" = None) -> Iterator[tuple[int, list[Any]]]:
        """``(stream, records)`` per batch of rows; ``wanted(stream)``, when given, is a boolean
        array over that stream's rows: only those rows become records, and a stream with none is
        not read."""
        import pyarrow as pa

        for stream, (path, (_, record)) in enumerate(zip(self.paths, STREAMS)):
            mask = wanted(stream) if wanted else None
            if mask is not None and not mask.any():
                continue
            first = 0
            for batch in _batches(path):
                part = None if mask is None else mask[first:first + batch.num_rows]
                first += batch.num_rows
                if part is not None and not part.all():
                    if not part.any():
                        continue
                    batch = batch.filter(pa.array(part))
                yield stream, [record(r) for r in self._rows(stream, batch)]

    def records(self) -> Iterator[Any]:
        for _, batch in self.batches():
            yield from batch


def graph(warehouse: str | Path) -> tuple[list[Node], list[Rel]]:
    """The whole built graph as nodes (vertices, then Change records) and relationships (edge
    intervals, then one CHANGES per Change record): for small graphs and tests; the export reads
    it a batch at a time (:class:`Source`)."""
    nodes: list[Node] = []
    rels: list[Rel] = []
    for item in Source.of(warehouse).records():
        (nodes if isinstance(item, Node) else rels).append(item)
    return nodes, rels
