"""Columns out of a finished MaxCompute job's SQL: schemas (HAS_COLUMN) and column FEEDS.

ActionTrail's ``CreateTable`` / ``ChangeTable`` name a table but not its columns (seed 002), so a
table's columns come from the DDL of the job that created or altered it (``lineage.sql.ddl``):
``CREATE TABLE`` (partition columns too), CTAS outputs, ``ALTER TABLE ADD/DROP/CHANGE COLUMN(S)``.
A script's net effect per table is asserted at the job's time: a table (re)created without
``IF NOT EXISTS`` or dropped first closes every column it had (a wildcard retract), then its
columns open; a dropped or renamed column closes (a ``field_removal`` Change on the table); a
``CHANGE`` that states a type is a ``column_type_change`` on the column.

Column FEEDS come from ``lineage.sql.columns.column_lineage`` with the schemas the script itself
states: extraction sees one event at a time, so a ``SELECT *`` over, an unqualified column from,
or a positional INSERT into a table whose columns another job (or DataHub) stated gives no pairs
here -- the Job gets ``column_lineage: partial``, ``column_lineage_reason`` and
``column_lineage_unknown_tables`` (JSON list of those tables) -- never guessed. The build then
recomputes such jobs with the graph's schemas as of the job's time (:func:`resolved`,
``lineage.graph.resolve``). The job's table lineage and its column lineage are kept consistent:
each (read, written) table pair of the job (what its table FEEDS are made of) is joined by a chain
of its column pairs or named in the reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from lineage import ids
from lineage.events.base import ParsedEvent
from lineage.facts.core import Out, prop_value
from lineage.facts.maxcompute import helpers
from lineage.facts.maxcompute.helpers import _data, _job_id, _job_lineage, _text
from lineage.sql import ddl, memo
from lineage.sql.lineage import SqlLineage
from lineage.sql.columns import DEFAULT, DIRECT, INDIRECT, ColumnLineage, column_lineage
from lineage.sql.positional import by_position

REASON_MAX_CHARS = 1000
UNKNOWN_TABLES = "column_lineage_unknown_tables"
"""The Job property listing (JSON) the tables whose columns its column lineage needed and did not have."""
COLUMN_ORDER = "column_order"
"""The Job property listing (JSON) the tables it takes by column position (``lineage.sql.positional``):
read through a ``*``, inserted into without a column list. A column added reaches these jobs only."""
QUALIFIERS = (("direct", DIRECT), ("indirect", INDIRECT))
"""A pair's qualifier and the OpenLineage subtypes it carries (one pair may have both)."""


Schema = tuple[tuple[str, tuple[str, ...]], ...]
"""``project.table`` -> its columns in order, as a hashable cache key."""


@lru_cache(maxsize=8192)
def _columns_of(sql: str, project: str | None, schema: Schema, by_position: bool) -> ColumnLineage:
    """Parsed once per text and schema, as table lineage is (a node submits the same script every day).
    Every argument is given, in order: ``lru_cache`` keys ``f(a, b)`` and ``f(a, b, (), True)`` apart,
    so a default left out analysed the job's script once more in its resolution."""
    return column_lineage(sql, dict(schema), default_project=project, by_position=by_position)


@dataclass(frozen=True)
class _Script:
    """What a script states at column level on its own, the same for every run of it: computed once
    per text (:func:`_script`), as its lineage is. Per run, the schema steps, the status and the
    pairs took 2.8 s of a 15k-event day's extraction against 1.5 s for all the rest, the analysis
    itself being cached."""

    nets: dict[str, "_Net"]  # read, never changed: shared by every run
    reasons: tuple[str, ...]
    """Why some of its column lineage is unknown: the resolver's reasons, and every (read, written)
    table pair of the job -- the pairs its table FEEDS are made of (``graph.fold``) -- that no chain
    of its column pairs joins (a chain passes through the script's own tables, e.g. a CTAS temp
    table read by the next statement; such a table's self-loop is exempt)."""
    unknown: tuple[str, ...] | None
    """The tables (``project.table``) whose columns it needs and does not state (None: none): the
    build looks only these up in the graph."""
    pairs: str | None  # the ``pairs`` property (JSON) when nothing is unknown and some pair is known


def _script_json(script: _Script) -> dict:
    nets = {t: {"cleared": n.cleared, "known": n.known, "columns": [[c.name, c.type, c.partition] for c in n.columns.values()],
                "dropped": sorted(n.dropped), "retyped": n.retyped} for t, n in script.nets.items()}
    return {"nets": nets, "reasons": script.reasons, "unknown": script.unknown, "pairs": script.pairs}


def _script_from(data: dict) -> _Script:
    nets = {t: _Net(n["cleared"], n["known"], {c[0]: ddl.Col(*c) for c in n["columns"]}, set(n["dropped"]), n["retyped"])
            for t, n in data["nets"].items()}
    unknown = data["unknown"]
    return _Script(nets, tuple(data["reasons"]), None if unknown is None else tuple(unknown), data["pairs"])


@memo.on_disk("script_columns", _script_json, _script_from)
def _script(sql: str, project: str | None) -> _Script:
    lineage, unknown = _columns_of(sql, project, (), True), _still_needed(sql, project, ())
    pairs = None if unknown else _pair_list(lineage)
    return _Script(_nets_of(lineage), tuple(_reasons(lineage, helpers._lineage_of(sql, project))), unknown or None,
                   prop_value(pairs) if pairs else None)


def _of(event: ParsedEvent) -> _Script | None:
    """A successfully finished SQL job's :class:`_Script` (None otherwise, as for table lineage)."""
    if _job_lineage(event) is None:
        return None
    data = _data(event)
    return _script(data.operation_text, _text(data.project_name))


def _table(name: str) -> str | None:
    """A qualified name's Table id; a table of no known project (``<default>``) has none, nor has
    a storage path read as a table (``parquet.`oss://...```: a Location, whose columns no event states)."""
    if name.startswith(DEFAULT) or "/" in name:
        return None
    return ids.table_from_qualified(name)


def _column(qualified: str) -> str | None:
    """``project.table.column`` -> its Column id."""
    table, _, name = qualified.rpartition(".")
    table_id = _table(table)
    return ids.column(table_id, name) if table_id and name else None


# --- schemas -------------------------------------------------------------------------------------


@dataclass
class _Net:
    """One table's net schema change over a script."""

    cleared: bool = False  # (re)created or dropped: every earlier column closes first
    known: bool = False  # the columns below are the whole schema (positions are meaningful)
    columns: dict[str, ddl.Col] = field(default_factory=dict)
    dropped: set[str] = field(default_factory=set)
    retyped: dict[str, str | None] = field(default_factory=dict)


_NET_STEPS = {
    ddl.REPLACE: lambda net, c: _reset(net, c, True),
    ddl.UNKNOWN: lambda net, c: _reset(net, c, False),
    ddl.DROP_TABLE: lambda net, c: _reset(net, c, False),
    ddl.CREATE: lambda net, c: None if net.columns else _create(net, c),
    ddl.ADD: lambda net, c: _add(net, c),
    ddl.DROP: lambda net, c: _drop(net, [col.name for col in c.columns]),
    ddl.CHANGE: lambda net, c: _change(net, c),
}
"""How each kind of schema statement moves a table's net change (``lineage.sql.ddl`` ops)."""


def _reset(net: _Net, change: ddl.SchemaChange, known: bool) -> None:
    net.cleared, net.known, net.dropped, net.retyped = True, known, set(), {}
    net.columns = {c.name: c for c in change.columns}


def _add(net: _Net, change: ddl.SchemaChange) -> None:
    """Added columns go before the partition columns (MaxCompute keeps partition columns last)."""
    new = {c.name: c for c in change.columns if c.name not in net.columns}
    data = {n: c for n, c in net.columns.items() if not c.partition}
    net.columns = {**data, **new, **{n: c for n, c in net.columns.items() if c.partition}}


def _create(net: _Net, change: ddl.SchemaChange) -> None:
    net.known = True
    net.columns = {c.name: c for c in change.columns}


def _drop(net: _Net, names: list[str]) -> None:
    for name in names:
        net.columns.pop(name, None)
        net.retyped.pop(name, None)
        net.dropped.add(name)


def _change(net: _Net, change: ddl.SchemaChange) -> None:
    new = change.columns[0]
    old = net.columns.get(change.old or "")
    if change.old and change.old != new.name:
        _drop(net, [change.old])
        net.dropped.discard(new.name)
    elif new.type:
        net.retyped[new.name] = new.type
    net.columns[new.name] = ddl.Col(new.name, new.type or (old.type if old else None), old.partition if old else False)


def _nets(event: ParsedEvent) -> dict[str, _Net]:
    script = _of(event)
    return script.nets if script else {}


def _nets_of(lineage: ColumnLineage | None) -> dict[str, _Net]:
    nets: dict[str, _Net] = {}
    for change in lineage.schema if lineage else ():
        _NET_STEPS[change.op](nets.setdefault(change.table, _Net()), change)
    return {t: net for t, net in nets.items() if _table(t)}


def schema_cleared(event: ParsedEvent) -> Iterator[Out]:
    """A table the script (re)created or dropped: every column it had closes (wildcard retract)."""
    for table, net in _nets(event).items():
        if net.cleared:
            yield Out(_table(table))


def table_dropped(event: ParsedEvent) -> Iterator[Out]:
    """ActionTrail ``DropTable``: the table's columns close with it (wildcard retract)."""
    yield Out(helpers._table_id(event))


def schema_columns(event: ParsedEvent) -> Iterator[Out]:
    """(Table)-[:HAS_COLUMN]->(Column) for each column the script leaves the table with."""
    for table, net in _nets(event).items():
        for i, col in enumerate(net.columns.values()):
            yield Out(_table(table), ids.column(_table(table), col.name),
                      props={"position": i + 1 if net.known else None, "partition": col.partition or None})


def column_vertices(event: ParsedEvent) -> Iterator[Out]:
    for table, net in _nets(event).items():
        for i, col in enumerate(net.columns.values()):
            yield Out(ids.column(_table(table), col.name), props={
                "name": col.name, "type": col.type, "table": _table(table),
                "position": i + 1 if net.known else None, "partition": col.partition or None})


def columns_dropped(event: ParsedEvent) -> Iterator[Out]:
    """HAS_COLUMN closes for each column dropped (or renamed away) and not re-added."""
    for table, net in _nets(event).items():
        for name in sorted(net.dropped - set(net.columns)):
            yield Out(_table(table), ids.column(_table(table), name))


def dropped_vertices(event: ParsedEvent) -> Iterator[Out]:
    for table, net in _nets(event).items():
        for name in sorted(net.dropped - set(net.columns)):
            yield Out(ids.column(_table(table), name), props={"name": name, "table": _table(table)})


def field_removal(event: ParsedEvent) -> Iterator[Out]:
    """A Change on the table naming the columns its readers lose."""
    for table, net in _nets(event).items():
        gone = sorted(net.dropped - set(net.columns))
        if gone:
            yield Out(_table(table), props={"columns": gone, "statement": "ALTER TABLE ... DROP/CHANGE COLUMN"})


def type_changed(event: ParsedEvent) -> Iterator[Out]:
    """``ALTER TABLE t CHANGE [COLUMN] c c <type>``: the column's type as stated."""
    for table, net in _nets(event).items():
        for name, new_type in sorted(net.retyped.items()):
            yield Out(ids.column(_table(table), name), props={"type": new_type, "table": _table(table)})


# --- column FEEDS ----------------------------------------------------------------------------------


def column_pairs(event: ParsedEvent) -> Iterator[Out]:
    """The run's column FEEDS as one ``pairs`` fact on its Job (``lineage.graph.column_feeds``);
    none for a job whose lineage needs another table's columns: the build resolves it (:func:`resolved`)."""
    script, job = _of(event), _job_id(_data(event).instance_id)
    if script is not None and script.pairs and job:
        yield Out(job, props={"pairs": script.pairs, **helpers.definition(event)})


def _pair_list(lineage: ColumnLineage) -> list[dict]:
    pairs = sorted({(o.src, o.dst, o.qualifier, tuple(o.props["transformations"])) for o in _feeds(lineage, None)})
    return [{"src": s, "dst": d, "qualifier": q, "transformations": list(t)} for s, d, q, t in pairs]


def _feeds(lineage: ColumnLineage, job: str | None) -> Iterator[Out]:
    for feed in lineage.feeds:
        src, dst = _column(feed.source), _column(feed.target)
        if not (src and dst):
            continue
        for qualifier, kinds in QUALIFIERS:
            subtypes = sorted(kinds.intersection(feed.transformations))
            if subtypes:
                yield Out(src, dst, qualifier=qualifier, props={"via": [job], "transformations": subtypes})


def _reasons(lineage: ColumnLineage, tables: SqlLineage) -> list[str]:
    reach: dict[str, set[str]] = {}
    for f in lineage.feeds:
        reach.setdefault(f.source.rpartition(".")[0], set()).add(f.target.rpartition(".")[0])
    reasons = list(lineage.partial)
    staged = _staged(tables)
    for read in tables.reads:
        found = _reachable(reach, read) | ({read} if read in staged else set())
        reasons += [f"no column of {read} is known to reach {written}" for written in tables.writes if written not in found]
    return list(dict.fromkeys(reasons))


def _staged(tables: SqlLineage) -> set[str]:
    """Tables the script writes before it reads them (a staging table swapped or cloned in): the
    self-loop their read and write make at job level moves no data from the table into itself."""
    first_write: dict[str, int] = {}
    for s in tables.statements:
        for t in s.writes:
            first_write.setdefault(t, s.index)
    return {t for s in tables.statements for t in s.reads if first_write.get(t, s.index) < s.index}


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def job_status(event: ParsedEvent) -> Iterator[Out]:
    """``helpers.job_status`` plus the Job's ``column_lineage`` (complete / partial),
    ``column_lineage_reason`` and ``column_order`` (:data:`COLUMN_ORDER`) when it is a finished SQL job."""
    extra: dict[str, object] = {}
    script = _of(event)
    if script is not None:
        data = _data(event)
        order = [t for t in map(_table, by_position(data.operation_text, _text(data.project_name))) if t]
        extra = {**_status(script.reasons), UNKNOWN_TABLES: list(script.unknown) if script.unknown else None,
                 COLUMN_ORDER: order or None}
    for out in helpers.job_status(event):
        yield Out(out.src, props={**(out.props or {}), **extra})


def _status(reasons: Sequence[str]) -> dict[str, str | None]:
    reason = "; ".join(reasons)
    return {"column_lineage": "partial" if reason else "complete",
            "column_lineage_reason": reason[:REASON_MAX_CHARS] if reason else None}


def _needed(lineage: ColumnLineage, tables: SqlLineage, stated: set[str]) -> list[str]:
    """Those the partial reasons name and those written (a positional INSERT's target, hidden behind
    a ``*`` first), or every one when a reason names none (an unqualified column over several
    sources); not a table the SQL did not need, whose few DataHub fields are not all its columns."""
    if not lineage.partial:
        return []
    used = sorted({*tables.reads, *tables.writes})
    external = [t for t in used if _table(t) and t not in stated]
    named = [t for t in external if t in tables.writes or any(_names(reason, t) for reason in lineage.partial)]
    anonymous = any(not any(_names(reason, t) for t in used) for reason in lineage.partial)
    return external if anonymous else named


def _names(reason: str, table: str) -> bool:
    return _naming(table).search(reason) is not None


@lru_cache(maxsize=8192)
def _naming(table: str) -> re.Pattern:
    """Compiled once per table: ``re``'s own cache (512) missed on a platform's tables, a third of
    the time of every job's status."""
    return re.compile(rf"(?<![\w.]){re.escape(table)}(?![\w])")


def resolved(event: ParsedEvent, lookup: Callable[[str], Sequence[str]],
             unknown: Sequence[str] = ()) -> tuple[list[Out], Out] | None:
    """The job's column lineage again with the graph's columns (``lookup``: a table's as of the job's
    time, empty when unknown) of the tables it needs -- first those extraction named (``unknown``:
    its :attr:`_Script.unknown`, so the script is not analysed without a schema once more), again
    while a result names more (the second ``*`` of a UNION, the next statement's): its ``pairs``
    fact (none without pairs) and its status (None: not a finished SQL job). A positional INSERT
    into a table still unknown names the target by the query's outputs, as ``column_lineage`` does
    without a schema, and stays partial."""
    tables, data = _job_lineage(event), _data(event)
    if tables is None:
        return None
    sql, project, asked = data.operation_text, _text(data.project_name), set(unknown)
    schema = {t: tuple(cols) for t in sorted(asked) if (cols := lookup(t))}
    while True:
        key = tuple(sorted(schema.items()))
        wanted = set(_needs(sql, project, key)) - asked
        if not wanted:
            break
        asked |= wanted
        schema.update({t: tuple(cols) for t in wanted if (cols := lookup(t))})
    job, (pairs, reasons) = _job_id(data.instance_id), _outcome(sql, project, key)
    still = sorted(t for t in asked if t not in schema)
    return ([Out(job, props={"pairs": pairs, **helpers.definition(event)})] if job and pairs else []), \
        Out(job, props={**_status(reasons), UNKNOWN_TABLES: still})


@memo.on_disk("needs", list, tuple)
def _needs(sql: str, project: str | None, schema: Schema) -> tuple[str, ...]:
    """The tables the script's column lineage with ``schema`` still needs (:func:`_needed`): once per
    text and schema, as the analysis, not once per run; kept for the resolution's schemas."""
    return _still_needed(sql, project, schema)


def _still_needed(sql: str, project: str | None, schema: Schema) -> tuple[str, ...]:
    """:func:`_needs` itself: what extraction's :func:`_script` asks, kept only inside its result
    (a file of its own per script was a third of a day's writes, and read by nothing)."""
    lineage = _columns_of(sql, project, schema, True)
    stated = {t for t, net in _nets_of(lineage).items() if net.known}
    return tuple(_needed(lineage, helpers._lineage_of(sql, project), stated))


@memo.on_disk("outcome", list, lambda data: (data[0], tuple(data[1])))
def _outcome(sql: str, project: str | None, schema: Schema) -> tuple[str | None, tuple[str, ...]]:
    """The ``pairs`` property (JSON; None: no pair) and the partial reasons with ``schema``: a
    positional INSERT into a table still unknown names the target by the query's outputs."""
    lineage = _columns_of(sql, project, schema, True)
    if lineage.partial:
        lineage = replace(lineage, feeds=_columns_of(sql, project, schema, False).feeds)
    pairs = _pair_list(lineage)
    return (prop_value(pairs) if pairs else None), tuple(_reasons(lineage, helpers._lineage_of(sql, project)))
