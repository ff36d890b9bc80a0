"""Finding vertices by what people call them: search, and the one name -> id resolver.

Commands take a canonical id or a *unique name* (DESIGN.md's CLI contract). What a vertex is
called (:func:`names_of`): its id, the key of its id (``retail_dw.dwd_orders`` for a table,
``1912232488744735`` for a user), a table's bare name (``dwd_orders``), its ``name`` and, for a
merged person, every login in ``properties.aliases``; compared case-insensitively (MaxCompute and DataHub names are).

:func:`resolve` never guesses: an exact canonical id wins; otherwise exactly one vertex must be
called that, or it is a :class:`UsageError` (exit 2) listing the candidates — all of them when
several vertices share the name, the nearest ones when none has it. Pure functions over vertex
rows (dicts with ``id``, ``label``, ``name``, ``properties``); :func:`vertex_rows` reads them.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Iterable, Mapping, Sequence

from lineage.errors import UsageError
from lineage.ids import key_of
from lineage.render.escape import visible

EXACT, PREFIX, SUBSTRING = 3, 2, 1
"""Search scores: the query is one of a vertex's names, begins one, or is inside one."""
NEAREST = 8
"""Candidates listed when a name is unknown."""
ALIASES = "aliases"
"""The one property a vertex is called by: a merged person's logins (a JSON list)."""
LABEL_ORDER = ("Table", "Column", "Node", "Project", "User", "Role", "Tag", "GlossaryTerm", "Domain", "Baseline",
               "Flow", "File", "QualityRule", "Dashboard", "Chart", "DataFlow", "DataJob")
"""Among equally good hits, the assets people look for come first; labels not listed (runs:
Job, Instance, Dag, ...) follow in alphabetical order."""


def _rank(hit: "Hit") -> tuple[Any, ...]:
    label = LABEL_ORDER.index(hit.label) if hit.label in LABEL_ORDER else len(LABEL_ORDER)
    return (-hit.score, label, hit.label, hit.name.lower(), hit.id)


class UnknownName(UsageError):
    """No vertex has this id or name (exit 2; the message lists the nearest candidates)."""


class AmbiguousName(UsageError):
    """Several vertices have this name (exit 2; the message lists them all)."""


@dataclass(frozen=True)
class Hit:
    id: str
    label: str
    name: str
    score: int

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "name": self.name, "score": self.score}


def names_of(vertex: Mapping[str, Any]) -> tuple[str, ...]:
    """Every name ``vertex`` answers to, lower-cased, without repeats (id first)."""
    key = key_of(vertex["id"])
    found = [vertex["id"], key, vertex.get("name") or ""]
    if vertex.get("label") == "Table":
        found.append(key.rsplit(".", 1)[-1])  # the bare table name of `project.table`
    aliases = (vertex.get("properties") or {}).get(ALIASES)
    if aliases:
        try:
            found += [str(a) for a in json.loads(aliases)]
        except (ValueError, TypeError):
            pass  # not a JSON list: the vertex keeps its other names
    return tuple(dict.fromkeys(n.strip().lower() for n in found if n and n.strip()))


def _score(query: str, names: Sequence[str]) -> int:
    if query in names:
        return EXACT
    if any(n.startswith(query) for n in names):
        return PREFIX
    return SUBSTRING if any(query in n for n in names) else 0


def search(text: str, vertices: Iterable[Mapping[str, Any]], limit: int | None = None) -> list[Hit]:
    """Vertices whose id or a name contains ``text`` (case-insensitive), best first: exact,
    then prefix, then substring; ties by label (:data:`LABEL_ORDER`), name, id."""
    query = text.strip().lower()
    if not query:
        return []
    hits = [
        Hit(v["id"], v["label"], v.get("name") or key_of(v["id"]), score)
        for v in vertices if (score := _score(query, names_of(v)))
    ]
    hits.sort(key=_rank)
    return hits if limit is None else hits[:limit]


def _listing(hits: Iterable[Hit]) -> str:
    """One line per candidate; event text made visible here, so the message's own line breaks are
    the only ones it has (the CLI prints it line by line)."""
    return "".join(f"\n  {visible(h.id)}  ({visible(h.label)}, {visible(h.name)})" for h in hits)


def nearest(text: str, vertices: Sequence[Mapping[str, Any]], count: int = NEAREST) -> list[Hit]:
    """What someone who typed ``text`` probably meant: vertices containing it (or a word of it)
    as :func:`search` ranks them, then names that look alike (``difflib``)."""
    query = text.strip().lower()
    found = {h.id: h for h in search(query, vertices)}
    for word in sorted({w for w in query.replace(":", ".").split(".") if len(w) >= 3}, key=len, reverse=True):
        for h in search(word, vertices):
            found.setdefault(h.id, Hit(h.id, h.label, h.name, SUBSTRING))
    by_name: dict[str, list[Mapping[str, Any]]] = {}
    for v in vertices:
        for n in names_of(v):
            by_name.setdefault(n, []).append(v)
    for n in difflib.get_close_matches(query, list(by_name), n=count, cutoff=0.6):
        for v in by_name[n]:
            found.setdefault(v["id"], Hit(v["id"], v["label"], v.get("name") or key_of(v["id"]), 0))
    return sorted(found.values(), key=_rank)[:count]


def resolve(text: str, vertices: Sequence[Mapping[str, Any]]) -> str:
    """The canonical id ``text`` means: itself when it is a vertex id, else the one vertex
    called ``text``. Several vertices called that: :class:`AmbiguousName`; none:
    :class:`UnknownName`; each lists candidates with label and id, and nothing is picked."""
    if any(v["id"] == text for v in vertices):
        return text
    query = text.strip().lower()
    matches = sorted({v["id"]: v for v in vertices if query and query in names_of(v)}.values(),
                     key=lambda v: (v["label"], v["id"]))
    if len(matches) == 1:
        return matches[0]["id"]
    if matches:
        hits = [Hit(v["id"], v["label"], v.get("name") or key_of(v["id"]), EXACT) for v in matches]
        raise AmbiguousName(f"{text!r} is the name of {len(matches)} vertices; give one of their ids:{_listing(hits)}")
    close = nearest(text, vertices)
    hint = f"; nearest:{_listing(close)}" if close else " (and nothing close: try `lineage search`)"
    raise UnknownName(f"not in the graph: no vertex has the id or name {text!r}{hint}")


def resolve_all(texts: Iterable[str], vertices: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """:func:`resolve` for each text, in order."""
    return tuple(resolve(t, vertices) for t in texts)


def vertex_rows(warehouse: str | Path) -> list[dict[str, Any]]:
    """The whole vertex table's naming columns (id, label, name, and of the properties only
    ``aliases``), read with pyarrow: names are resolved over the whole history, whatever moment a
    command then asks about. A run's other properties (its SQL, its ids) are left in the file:
    turning them into dicts was most of 20 s of resolving one name at 10^6 events."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from lineage.graph.api import built

    table = pq.read_table(str(built(warehouse, "vertices").vertices), columns=["id", "label", "name", "properties"])
    aliases = pc.map_lookup(table.column("properties"), query_key=ALIASES, occurrence="last")  # as dict() of its pairs
    rows = table.drop_columns(["properties"]).append_column(ALIASES, aliases).to_pylist()
    for row in rows:
        given = row.pop(ALIASES)
        row["properties"] = {ALIASES: given} if given is not None else {}
    return rows


def resolve_in(warehouse: str | Path, texts: Iterable[str]) -> tuple[str, ...]:
    """The canonical ids ``texts`` mean in the warehouse's graph (see :func:`resolve`). Ids are
    looked up in the id column, filtered as it is read (no Python string per vertex: that was
    1.5 s of a `show` at 10^6 events); the names are read only when something is not an id."""
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    from lineage.graph.api import built

    texts = tuple(texts)
    wh = built(warehouse, "vertices")
    if (arrays := _index(wh)) is not None:  # the ids, sorted and mapped: a binary search each
        from lineage.graph.index import positions

        known: Collection[str] = positions(arrays.ids, texts)
    else:
        path = str(wh.vertices)
        if "id" not in pq.ParquetDataset(path).schema.names:  # no vertex files at all: nothing to resolve against,
            return texts  # the command's own reading says what is wrong (no graph, a damaged file)
        known = set(pq.read_table(path, columns=["id"], filters=ds.field("id").isin(sorted(set(texts)))).column("id").to_pylist())
    return texts if all(t in known for t in texts) else resolve_all(texts, vertex_rows(wh))


def _index(wh: Any) -> Any:
    """The generation's question index, or None (none, or damaged: the question's own read says so)."""
    from lineage.graph.index import IndexDamaged, opened

    try:
        return opened(wh.index)
    except IndexDamaged:
        return None
