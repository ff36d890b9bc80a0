"""Events -> facts: the declarative mapping format and the one function that applies it.

A source's mapping (``lineage.facts.<source>``) is a table ``MAPPING: kind -> (Emit, ...)``.
Each ``Emit`` says which fact it produces -- ``op`` (assert / retract / observe / change),
``(src label)-[relationship]->(dst label)`` or a vertex (no relationship) -- and holds a small
function reading the validated event model into zero or more ``Out`` (ids and properties). The
same objects generate ``docs/mapping.md``, so the documentation cannot drift from the code.

Fact semantics (folded by ``lineage.graph.fold``):

* ``assert``  vertex: it exists (``deleted_at`` cleared), properties merged; edge: opens (or
  keeps open) an interval ``valid_from``; ``Out.until`` closes it at an expiry.
* ``retract`` vertex: deleted at that time; edge: closes the open interval. An edge retract
  without ``dst`` closes *every* open edge of that relationship from ``src`` (a wildcard,
  e.g. a table's columns before its new schema is asserted).
* ``observe`` vertex: seen (``last_seen``), properties merged (statuses); never opens an edge.
* ``change``  a Change record ``(entity=src, kind=relationship)``; also marks the vertex seen.
* ``pairs``   on a Job: its run's column FEEDS, all in one fact (``properties.pairs``, a JSON list
  of ``{src, dst, qualifier, transformations}``), folded as one assert per pair would be
  (``lineage.graph.column_feeds``): a daily job's runs share one pairs text, folded once. Stored,
  the fact holds the text's key instead, and the text is stored once (:func:`stored`).

A *failed* operation (the source's ``failed(event)``) changes no state: each of its facts is
kept with ``op = observe`` and ``failed = true`` and the fold skips it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Iterable, Iterator, Mapping, NamedTuple

from lineage import ids
from lineage.events.base import ParsedEvent
from lineage.store.schema import FACTS

PAIRS = "pairs"
"""The op of a job run's column lineage as one fact (``properties.pairs``; ``lineage.graph.column_feeds``)."""
OPS = ("assert", "retract", "observe", "change", PAIRS)
PAIRS_KEY = "pairs_key"
"""What a stored ``pairs`` fact holds in place of its text: the text's SHA-256 (:func:`stored`)."""
TEXT = "pairs_text"
"""The op of the row that carries a pairs text from the build's Python workers to its writer, once
per text and task (``src_id``: the key, ``properties.pairs``: the text); never stored as a fact."""
ERROR = "error"  # op of the one fact row an event yields when its mapping raised: never lost



class Fact(NamedTuple):
    """One row of the facts dataset (``lineage.store.schema.FACTS``: the same columns, in order)."""

    event_id: str
    source: str
    kind: str
    event_time: datetime | None
    actor: str | None
    seq: int
    op: str
    src_id: str | None
    src_label: str | None
    relationship: str | None  # edge relationship; for op == "change": the change kind
    dst_id: str | None
    dst_label: str | None
    qualifier: str
    properties: dict[str, str]
    valid_until: datetime | None
    failed: bool


FACT_NAMES = Fact._fields
if FACT_NAMES != FACTS.names:  # one declaration of the columns: the tuple must follow it
    raise RuntimeError(f"lineage.facts.core.Fact {FACT_NAMES} differs from lineage.store.schema.FACTS {FACTS.names}")


@dataclass(frozen=True)
class Out:
    """One fact's ids and values, as an ``Emit`` function yields it.

    ``qualifier`` splits one (src, relationship, dst) into independent intervals (a privilege:
    revoking ``update`` must not close ``select``). ``time`` overrides the event time (a DataHub
    audit stamp, an approval's grant time); ``until`` is an expiry that closes the interval.
    """

    src: str
    dst: str | None = None
    props: Mapping[str, Any] | None = None
    qualifier: str = ""
    time: datetime | None = None
    until: datetime | None = None


@dataclass(frozen=True, kw_only=True)
class Emit:
    """One row of a mapping table: what fact an event kind asserts, retracts, observes or changes."""

    op: str
    src: str
    fn: Callable[[ParsedEvent], Iterable[Out]]
    rel: str | None = None  # edge relationship; for op == "change": the change kind
    dst: str | None = None
    note: str = ""  # where the ids come from, for docs/mapping.md
    extra: tuple[str, ...] = field(default_factory=tuple)  # property names, for the docs

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise ValueError(f"unknown op {self.op!r}")
        for label in (self.src, self.dst):
            if label is not None and label not in ids.LABELS:
                raise ValueError(f"label {label!r} is not in the vocabulary (lineage.ids.LABELS)")
        if self.op == "change":
            if self.rel not in ids.CHANGE_KINDS or self.dst is not None:
                raise ValueError(f"a change needs a kind from lineage.ids.CHANGE_KINDS, got {self.rel!r}")
        elif self.rel is not None and self.rel not in ids.RELATIONSHIPS:
            raise ValueError(f"relationship {self.rel!r} is not in the vocabulary (lineage.ids.RELATIONSHIPS)")
        if (self.rel is None) != (self.dst is None) and self.op != "change":
            raise ValueError("an edge needs both rel and dst; a vertex fact neither")

    @property
    def is_edge(self) -> bool:
        return self.op != "change" and self.rel is not None


def prop_value(value: Any) -> str | None:
    """Properties are strings: lists/dicts as JSON, times ISO 8601, booleans lower-case."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return str(value)


def clean_props(props: Mapping[str, Any] | None) -> dict[str, str]:
    out = {}
    for key, value in (props or {}).items():
        text = prop_value(value)
        if text is not None and text != "":
            out[str(key)] = text
    return out


class MappingError(ValueError):
    """A mapping produced an id of the wrong label: a bug in the table, reported per event."""


def facts_of(event: ParsedEvent, event_id: str, mapping: Any) -> list[Fact]:
    """Apply a source mapping module to one parsed event: its facts, numbered by ``seq``."""
    emits: tuple[Emit, ...] = mapping.MAPPING.get(event.kind, ())
    failed = bool(mapping.failed(event))
    actor = mapping.actor_id(event)
    rows: list[Fact] = []
    for emit in emits:
        for out in emit.fn(event) or ():
            if out is None or not out.src:
                continue
            _check(out.src, emit.src, emit)
            dst = out.dst if emit.is_edge else None
            if dst is not None:
                _check(dst, emit.dst, emit)
            elif emit.is_edge and emit.op != "retract":
                continue  # an edge with no far end: nothing to assert
            rows.append(Fact(
                event_id=event_id, source=event.source, kind=event.kind,
                event_time=out.time or event.event_time, actor=actor, seq=len(rows),
                op="observe" if failed else emit.op,
                src_id=out.src, src_label=emit.src,
                relationship=emit.rel,
                dst_id=dst, dst_label=emit.dst if emit.rel and emit.op != "change" else None,
                qualifier=out.qualifier or "",
                properties=clean_props(out.props),
                valid_until=out.until,
                failed=failed,
            ))
    return rows


def _check(vertex_id: str, label: str | None, emit: Emit) -> None:
    if ids.label_of(vertex_id) != label:
        raise MappingError(f"{emit.op} {emit.src}-{emit.rel}->{emit.dst}: id {vertex_id!r} is not a {label}")


def stored(facts: Iterable[Fact], keys: dict[str, str]) -> Iterator[Fact]:
    """``facts`` as the build stores them: a ``pairs`` fact's text replaced by its key, the text itself
    in a :data:`TEXT` row before the first fact naming it (``keys``: the texts of the task so far).
    Why: a month's 87k job runs carry 0.74 GB of pairs text in 3.8k distinct texts, and each copy
    was pickled into the JVM, written, read back and persisted by the fold."""
    for fact in facts:
        text = fact.properties.get(PAIRS) if fact.op == PAIRS else None
        if text is None:
            yield fact
            continue
        key = keys.get(text)
        if key is None:
            key = keys[text] = hashlib.sha256(text.encode()).hexdigest()
            yield fact._replace(op=TEXT, src_id=key, src_label=None, properties={PAIRS: text})
        yield fact._replace(properties={**{k: v for k, v in fact.properties.items() if k != PAIRS}, PAIRS_KEY: key})


def error_row(event_id: str, source: str, kind: str, time: datetime | None, reason: str) -> Fact:
    """The fact row standing for an event whose mapping failed (counted and listed by build)."""
    return Fact(
        event_id=event_id, source=source, kind=kind, event_time=time, actor=None, seq=0, op=ERROR,
        src_id=None, src_label=None, relationship=None, dst_id=None, dst_label=None, qualifier="",
        properties={"reason": reason}, valid_until=None, failed=False,
    )
