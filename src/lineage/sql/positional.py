"""Which tables a script depends on by column count or order (issue 68, item 1).

A column added to a table breaks no reader that names its columns; it breaks the statements that
take the table's columns *by position*: a ``SELECT *`` (or ``t.*``) over it, whose output gains a
column, and an ``INSERT`` into it without a column list, whose query no longer has as many columns
as the table. :func:`by_position` finds both on the parse trees, before any qualification expands
a ``*``: ``*`` over a CTE or a subquery is followed to the tables that one selects ``*`` from
(a CTE naming its columns stops it). Names holding a ``${variable}`` are left out, never guessed.
"""

from __future__ import annotations

from functools import lru_cache

from sqlglot import exp

from lineage.sql.dialect import is_variable
from lineage.sql.lineage import parse_script


def _name(table: exp.Table, project: str) -> str | None:
    parts = [p.name.lower() for p in table.parts]
    if not parts or any(is_variable(p) for p in parts) or isinstance(table.this, exp.Parameter):
        return None
    if len(parts) == 1:
        parts.insert(0, project)
    return ".".join(parts[-2:])


def _is_star(node: exp.Expr) -> bool:
    return isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star))


def _sources(select: exp.Select) -> dict[str, exp.Expr]:
    """The select's FROM and JOIN sources by alias (a table's own name when it has none)."""
    found: dict[str, exp.Expr] = {}
    from_ = select.args.get("from_") or select.args.get("from")
    items = ([from_.this] if from_ is not None else []) + [j.this for j in select.args.get("joins") or []]
    for item in items:
        alias = item.alias_or_name.lower() if hasattr(item, "alias_or_name") else ""
        found[alias] = item
    return found


def _starred(query: exp.Expr, ctes: dict[str, exp.Expr], project: str, seen: frozenset[str]) -> set[str]:
    """Tables whose every column ``query``'s output takes through a ``*``."""
    out: set[str] = set()
    if isinstance(query, exp.Subquery):
        return _starred(query.this, ctes, project, seen)
    if isinstance(query, exp.SetOperation):
        return _starred(query.this, ctes, project, seen) | _starred(query.expression, ctes, project, seen)
    if not isinstance(query, exp.Select):
        return out
    local = dict(ctes)
    with_ = query.args.get("with_") or query.args.get("with")
    for cte in (with_.expressions if with_ is not None else []):
        local[cte.alias.lower()] = cte.this
    sources = _sources(query)
    for projection in query.selects:
        if not _is_star(projection):
            continue
        named = projection.table.lower() if isinstance(projection, exp.Column) and projection.table else None
        for alias, source in sources.items():
            if named is None or alias == named:
                out |= _of_source(source, local, project, seen)
    return out


def _of_source(source: exp.Expr, ctes: dict[str, exp.Expr], project: str, seen: frozenset[str]) -> set[str]:
    if isinstance(source, exp.Table):
        key = source.name.lower()
        if len(source.parts) == 1 and key in ctes and key not in seen:  # a CTE: what it takes by *
            cte = ctes[key]
            if isinstance(cte, exp.Expr) and not cte.args.get("columns"):
                return _starred(cte, ctes, project, seen | {key})
            return set()
        name = _name(source, project)
        return {name} if name else set()
    if isinstance(source, exp.Subquery):
        return _starred(source.this, ctes, project, seen)
    return set()


def _statement(tree: exp.Expr, project: str) -> set[str]:
    """An INSERT's target without a column list, and the tables the statement's query (an
    INSERT's, a CTAS's, a view's or a bare SELECT's) takes through a ``*`` at its output."""
    found: set[str] = set()
    inserts = tree.expressions if isinstance(tree, exp.MultitableInserts) else [tree]
    queries: list[exp.Expr] = []
    for insert in inserts:
        if isinstance(insert, exp.Insert):
            if isinstance(insert.this, exp.Table):  # no column list: the query's columns go in by position
                name = _name(insert.this, project)
                found |= {name} if name else set()
            query = insert.expression
            if isinstance(tree, exp.MultitableInserts) and isinstance(query, exp.Select) and not query.args.get("from_"):
                query = query.copy()  # FROM src INSERT ... SELECT *: each insert selects from the shared source
                query.set("from_", exp.From(this=tree.args["source"].copy()))
            queries.append(query)
    if isinstance(tree, exp.Create):
        queries.append(tree.expression)
    elif isinstance(tree, exp.Query):
        queries.append(tree)
    ctes: dict[str, exp.Expr] = {}
    with_ = tree.args.get("with_") or tree.args.get("with")
    for cte in (with_.expressions if with_ is not None else []):
        ctes[cte.alias.lower()] = cte.this
    for query in queries:
        if isinstance(query, exp.Expr):
            found |= _starred(query, ctes, project, frozenset())
    return found


@lru_cache(maxsize=8192)
def by_position(sql: str, project: str | None) -> tuple[str, ...]:
    """``project.table`` of every table the script reads through a ``*`` or inserts into without a
    column list, sorted (an unqualified name is in ``project``; none without one). Per text, once."""
    parsed, _ = parse_script(sql or "")
    found: set[str] = set()
    for statement in parsed:
        found |= _statement(statement.tree, (project or "").lower())
    return tuple(sorted(t for t in found if not t.startswith(".")))
