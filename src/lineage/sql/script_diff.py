"""What a script change did to the tables the script writes (issue 68, item 3).

DataWorks' node events say that a node was edited, never the script before and after (seed 000);
the MaxCompute jobs a node submits do carry its script, so an edit is the difference between the
last run's script before it and the first run's after it (``lineage.graph.script_changes``). This
module compares the two texts, per table the script inserts into, the way SQLMesh's categorizer
compares a model's two queries (``../shared/STYLE.md``), and says what a reader of that table sees:

* the statement's *shape* (its sources, CTEs and subqueries, filters, joins, grouping, ``HAVING``,
  ``QUALIFY``, ``LIMIT``, ``DISTINCT``, set operations, the ``PARTITION`` it writes) changed: every
  row may differ, so every reader of the table is reached (``table``);
* an output column removed (a rename is a removal plus an addition) or computed another way
  (``redefined``): its readers (``breaking``, column by column downstream);
* output columns only added: no reader naming its columns notices (``additive``), unless the query
  is ``DISTINCT`` or the new column explodes rows (a table function), which changes the rows;
* nothing a reader sees changed (comments, spacing, a ``SET``): ``unchanged``.

A text that does not parse says nothing (None): the caller keeps the safe side. Names holding a
``${variable}`` are compared as written: the scheduler substitutes them on every run alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlglot import exp

from lineage.sql.lineage import parse_script
from lineage.sql.positional import _name

UNCHANGED, ADDITIVE, BREAKING, TABLE = "unchanged", "additive", "breaking", "table"
ORDER = (UNCHANGED, ADDITIVE, BREAKING, TABLE)
"""Categories from the mildest: a script's is its worst table's."""
SHAPE = {"with_": "a CTE", "from_": "the source", "joins": "a join", "where": "the filter", "group": "the grouping",
         "having": "HAVING", "qualify": "QUALIFY", "limit": "LIMIT", "offset": "OFFSET", "distinct": "DISTINCT",
         "laterals": "a LATERAL VIEW", "order": "ORDER BY", "sort": "SORT BY", "cluster": "CLUSTER BY",
         "distribute": "DISTRIBUTE BY"}
"""The parts of a SELECT that decide which rows come out (and how to name one): one changed
reaches every reader."""
STATEMENT = {"source": "the shared source", "statement_with": "a CTE", "partition": "the partition written",
             "listed": "the column list", "set": "a UNION branch"}
"""The same for the statement around the query."""
ROW_MAKERS = (exp.Explode, exp.Posexplode, exp.Inline, exp.Unnest)
"""Functions that turn one row into several: a column added through one changes the rows."""


@dataclass(frozen=True)
class Output:
    """What one statement writes into one table: each output column's expression, the shape."""

    columns: tuple[tuple[str, str], ...]
    shape: tuple[tuple[str, str], ...]  # (part, its SQL): SHAPE's and STATEMENT's keys
    distinct: bool
    explodes: frozenset[str]


@dataclass(frozen=True)
class TableDiff:
    table: str
    category: str
    columns: tuple[tuple[str, str], ...]  # (column, added / removed / redefined)
    why: str
    parts: tuple[str, ...] = ()  # what decides its rows and changed ("a join", "the filter")


@dataclass(frozen=True)
class ScriptDiff:
    category: str
    tables: tuple[TableDiff, ...]

    def to_json(self) -> dict[str, Any]:
        return {"category": self.category,
                "tables": [{"table": t.table, "category": t.category, "why": t.why, "parts": list(t.parts),
                            "columns": [{"column": c, "change": how} for c, how in t.columns]} for t in self.tables]}


def _select_output(query: exp.Expr) -> Output | None:
    """The output of a query: a SELECT's projections by name, or a set operation's (its first
    branch's names, each position's expressions in every branch)."""
    if isinstance(query, exp.Subquery):
        return _select_output(query.this)
    if isinstance(query, exp.SetOperation):
        left, right = _select_output(query.this), _select_output(query.expression)
        if left is None or right is None:
            return None
        names = [n for n, _ in left.columns]
        right_exprs = [e for _, e in right.columns] + [""] * max(0, len(names) - len(right.columns))
        columns = tuple((n, f"{e} | {r}") for (n, e), r in zip(left.columns, right_exprs))
        kind = f"{type(query).__name__}:{query.args.get('distinct')}"
        shape = tuple((k, f"{v} | {dict(right.shape).get(k, '')}") for k, v in left.shape) + (("set", kind),)
        return Output(columns, shape, left.distinct or bool(query.args.get("distinct")), left.explodes | right.explodes)
    if not isinstance(query, exp.Select):
        return None
    columns = []
    explodes = set()
    for projection in query.selects:
        name = projection.alias_or_name.lower()
        body = projection.this if isinstance(projection, exp.Alias) else projection
        columns.append((name, body.sql(dialect="hive", normalize=True)))
        if any(body.find(kind) is not None for kind in ROW_MAKERS):
            explodes.add(name)
    shape = tuple((key, _sql(query.args.get(key))) for key in SHAPE)
    return Output(tuple(columns), shape, bool(query.args.get("distinct")), frozenset(explodes))


def _sql(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "[" + ",".join(_sql(v) for v in value) + "]"
    return value.sql(dialect="hive", normalize=True) if isinstance(value, exp.Expr) else str(value)


def _writes(statement: exp.Expr, project: str) -> dict[str, Output | None]:
    """Table -> its output, for each INSERT of one statement (a multi-table insert's each, its
    shared source part of each shape); None: the table is written by a query not understood."""
    found: dict[str, Output | None] = {}
    inserts = statement.expressions if isinstance(statement, exp.MultitableInserts) else [statement]
    shared = _sql(statement.args.get("source")) if isinstance(statement, exp.MultitableInserts) else ""
    with_ = _sql(statement.args.get("with_") or statement.args.get("with"))
    for insert in inserts:
        if not isinstance(insert, exp.Insert):
            continue
        target = insert.this.this if isinstance(insert.this, exp.Schema) else insert.this
        name = _name(target, project) if isinstance(target, exp.Table) else None
        if name is None:
            continue
        output = _select_output(insert.expression)
        if output is not None:
            spec = _sql(target.args.get("partition")) + _sql(insert.args.get("partition"))
            listed = _sql(insert.this.expressions) if isinstance(insert.this, exp.Schema) else ""
            around = (("source", shared), ("statement_with", with_), ("partition", spec), ("listed", listed))
            output = Output(output.columns, around + output.shape, output.distinct, output.explodes)
        found[name] = output
    return found


@lru_cache(maxsize=1024)
def outputs(sql: str, project: str | None) -> dict[str, Output | None] | None:
    """Every table the script inserts into and its output (None: a statement did not parse)."""
    parsed, errors = parse_script(sql or "")
    if errors:
        return None
    found: dict[str, Output | None] = {}
    for statement in parsed:
        found.update(_writes(statement.tree, (project or "").lower()))
    return found


def _table(table: str, old: Output | None, new: Output | None) -> TableDiff:
    if old is None and new is None:
        return TableDiff(table, TABLE, (), "its query is not understood: every reader, the safe side")
    if old is None or new is None:
        return TableDiff(table, TABLE if old is not None else ADDITIVE, (),
                         "the script no longer writes it" if old is not None else "the script writes it now")
    if old.shape != new.shape:
        parts = {**SHAPE, **STATEMENT}
        changed = sorted({parts[k] for (k, a), (_, b) in zip(old.shape, new.shape) if a != b}) or ["its query"]
        return TableDiff(table, TABLE, (), f"which rows it writes changed ({', '.join(changed)}): every reader",
                         tuple(changed))
    before, after = dict(old.columns), dict(new.columns)
    removed = sorted(set(before) - set(after))
    added = sorted(set(after) - set(before))
    redefined = sorted(c for c in set(before) & set(after) if before[c] != after[c])
    columns = tuple([(c, "removed") for c in removed] + [(c, "redefined") for c in redefined]
                    + [(c, "added") for c in added])
    if removed or redefined:
        return TableDiff(table, BREAKING, columns, "output columns removed or computed another way: their readers")
    if added and (new.distinct or set(added) & new.explodes):
        return TableDiff(table, TABLE, columns, "a column added to a DISTINCT query or exploding rows changes the rows")
    if added:
        return TableDiff(table, ADDITIVE, columns, "output columns only added: readers naming theirs see the same")
    return TableDiff(table, UNCHANGED, (), "nothing a reader sees changed")


def diff(old_sql: str | None, new_sql: str | None, project: str | None) -> ScriptDiff | None:
    """What changing ``old_sql`` into ``new_sql`` did to each table it writes (None: either does
    not parse, or neither writes a table: nothing to say)."""
    if old_sql is None or new_sql is None:
        return None
    old, new = outputs(old_sql, project), outputs(new_sql, project)
    if old is None or new is None or not (old or new):
        return None
    tables = tuple(_table(t, old.get(t), new.get(t)) for t in sorted(set(old) | set(new)))
    worst = max((t.category for t in tables), key=ORDER.index)
    return ScriptDiff(worst, tables)
