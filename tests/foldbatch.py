"""Many hand-written fold cases in ONE Spark fold, so a module's cases cost one plan, not one each.

Each case's ids (and event ids) get the case's own prefix inside the id
(``table:maxcompute:<prefix>p.a``), all facts are folded together, and the results are split back
by prefix and the prefix removed. Cases share ids only in the written-out rows, never in the fold,
so each case sees exactly what a fold of its rows alone gives (each module proves it on a few
cases folded alone). A case whose answer depends on the text of an id itself (which alias names a
merged person) cannot be batched: fold it alone with :func:`fold_one`.

The fold runs as ``build`` runs it: with its multiply-read frames written to scratch files (``fold.Scratch``).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from lineage.facts.core import PAIRS, Fact, stored
from lineage.graph import column_feeds, fold
from lineage.graph.api import utc_row
from lineage.store.schema import FACTS

Case = tuple[list[Fact], "dict[str, str] | None"]


class Cases(dict):
    """``{name: (facts, aliases)}``, filled by :meth:`add` at a module's import."""

    def add(self, name: str, rows: list[Fact], aliases: dict[str, str] | None = None) -> str:
        assert name not in self, name
        self[name] = (rows, aliases)
        return name


def folded_fixture(cases: Cases):
    """A module's ``folded`` fixture: ``cases`` folded once (see :func:`fold_all`)."""

    @pytest.fixture(scope="module")
    def folded(spark):
        return fold_all(spark, cases)

    return folded


def _prefix(number: int) -> str:
    return f"k{number:04d}~"


def _put(value: str | None, prefix: str) -> str | None:
    if value is None:
        return None
    kind, ns, rest = value.split(":", 2)
    return f"{kind}:{ns}:{prefix}{rest}"


def _put_pairs(fact: Fact, prefix: str) -> dict[str, str]:
    """A ``pairs`` fact's properties with the ids inside its pairs prefixed too."""
    if fact.op != PAIRS:
        return fact.properties
    pairs = [{**p, "src": _put(p["src"], prefix), "dst": _put(p["dst"], prefix)} for p in json.loads(fact.properties["pairs"])]
    return {**fact.properties, "pairs": json.dumps(pairs)}


def _strip(value, prefix: str):
    if isinstance(value, str):
        return value.replace(prefix, "")
    if isinstance(value, dict):
        return {_strip(k, prefix): _strip(v, prefix) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_strip(v, prefix) for v in value)
    return value


def _owner(entity_id: str) -> str:
    """The case prefix inside an output id (every output id comes from some case's input)."""
    rest = entity_id.split(":", 2)[2]
    return rest[: rest.index("~") + 1]


def _edge_key(e):
    return (e["relationship"], e["src"], e["dst"], e["qualifier"], str(e["valid_from"]))


def fold_rows(spark, rows: list[Fact], aliases: dict[str, str]):
    """Collected (vertices, edges, changes) rows of one fold, its scratch files removed after; a
    ``pairs`` fact's text stored apart first, as the build stores it."""
    frame, texts = column_feeds.apart(spark.createDataFrame(list(stored(rows, {})), FACTS.ddl))
    alias_df = spark.createDataFrame(sorted(aliases.items()), "alias string, canonical string") if aliases else None
    folder = Path(tempfile.mkdtemp(prefix="lineage-fold-"))
    try:
        return tuple([utc_row(r.asDict()) for r in out.collect()]
                     for out in fold.fold(frame, alias_df, fold.Scratch(folder), texts=texts))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fold_all(spark, cases: dict[str, Case]) -> dict[str, tuple[dict, list, list]]:
    """``{case name: (vertices by id, sorted edges, changes)}`` from one fold of every case's facts."""
    prefixes = {name: _prefix(i) for i, name in enumerate(cases)}
    rows, aliases = [], {}
    for name, (facts, case_aliases) in cases.items():
        p = prefixes[name]
        rows += [f._replace(event_id=p + f.event_id, src_id=_put(f.src_id, p), dst_id=_put(f.dst_id, p),
                            properties=_put_pairs(f, p)) for f in facts]
        aliases.update({_put(a, p): _put(c, p) for a, c in (case_aliases or {}).items()})
    vertices, edges, changes = fold_rows(spark, rows, aliases)
    by_prefix = {p: ({}, [], []) for p in prefixes.values()}
    for row in vertices:
        p = _owner(row["id"])
        row = _strip(row, p)
        by_prefix[p][0][row["id"]] = row
    for row in edges:
        p = _owner(row["src"])
        by_prefix[p][1].append(_strip(row, p))
    for row in changes:
        p = _owner(row["entity_id"])
        by_prefix[p][2].append(_strip(row, p))
    return {name: (v, sorted(e, key=_edge_key), c) for name, (v, e, c) in
            ((name, by_prefix[p]) for name, p in prefixes.items())}


def fold_one(spark, rows: list[Fact], aliases: dict[str, str] | None = None) -> tuple[dict, list, list]:
    """One case folded alone, ids untouched: (vertices by id, sorted edges, changes)."""
    vertices, edges, changes = fold_rows(spark, rows, aliases or {})
    return {v["id"]: v for v in vertices}, sorted(edges, key=_edge_key), changes
