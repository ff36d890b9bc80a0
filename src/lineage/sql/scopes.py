"""The scopes of a query, as column lineage walks them (``lineage.sql.columns``): output names,
UNION branches, ``*`` branches, lateral views, the scopes feeding a scope, the columns and subqueries
of an expression. Pure functions over sqlglot's scopes, apart so the walk stays readable."""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from lineage.sql.dialect import is_variable


def _output_names(scope: Scope) -> list[str | None]:
    """Output names of a scope (a UNION's are its first branch's; as many unknown ones as another
    branch has when the first is a ``SELECT *`` of unknown columns)."""
    expression = scope.expression
    branches = _branches(scope)
    if isinstance(expression, exp.SetOperation) and branches:
        names = [_output_names(b) for b in branches]
        known = [n for b, n in zip(branches, names) if not _star_branch(b)]
        return [None] * len(known[0]) if _star_branch(branches[0]) and known else names[0]
    while isinstance(expression, exp.SetOperation):
        expression = expression.this
    if isinstance(expression, exp.Subquery):
        expression = expression.unnest()
    names: list[str | None] = []
    for s in expression.selects:
        if isinstance(s, exp.Alias) and re.fullmatch(r"_col_\d+", s.alias):
            names.append(None)  # qualify's name for an unnamed expression: it has none
        elif isinstance(s, exp.Alias):
            names.append(s.alias.lower())
        elif isinstance(s, exp.Column) and not isinstance(s.this, exp.Star):
            names.append(s.name.lower())
        else:
            names.append(None)
    return names


def _branches(scope: Scope) -> list[Scope]:
    return list(getattr(scope, "set_operation_scopes", None) or [])


def _has_star(scope: Scope) -> bool:
    selects = getattr(scope.expression, "selects", [])
    return any(isinstance(s, exp.Star) or (isinstance(s, exp.Column) and isinstance(s.this, exp.Star)) for s in selects)


def _star_branch(scope: Scope) -> bool:
    """A UNION branch ``SELECT *`` that qualify left unexpanded: over columns not known."""
    return _has_star(scope) and not _branches(scope)


def _star_tables(scope: Scope, node: exp.Expr | None) -> str:
    if isinstance(node, exp.Column) and node.table:
        source = scope.sources.get(node.table.lower())
        names = [source] if source is not None else []
    else:
        names = list(scope.sources.values())
    found = []
    for source in names:
        if isinstance(source, exp.Table):
            found.append(".".join(p.name.lower() for p in source.parts))
        elif isinstance(source, Scope):
            found.append("a subquery")
    return ", ".join(sorted(set(found))) or "a source"


def _lateral(scope: Scope, alias: str) -> exp.Lateral | None:
    select = scope.expression
    if not isinstance(select, exp.Select):
        return None
    for lateral in select.args.get("laterals") or []:
        if lateral.alias.lower() == alias:
            return lateral
    return None


def _feeding(scope: Scope) -> list[Scope]:
    """``scope`` and every scope whose rows reach it (sources, union branches), not scalar subqueries."""
    seen: dict[int, Scope] = {}
    todo = [scope]
    while todo:
        current = todo.pop()
        if id(current) in seen:
            continue
        seen[id(current)] = current
        todo += _branches(current)
        todo += [s for s in current.sources.values() if isinstance(s, Scope)]
    return list(seen.values())


def _child_scope(scope: Scope, sub: exp.Expr) -> Scope | None:
    query = sub.this if isinstance(sub, exp.Subquery) else sub
    for child in scope.subquery_scopes + scope.set_operation_scopes + list(scope.cte_scopes) + scope.derived_table_scopes:
        if child.expression is query or child.expression is sub:
            return child
    for child in scope.traverse():
        if child.expression is query:
            return child
    return None


def _columns(node: exp.Expr) -> list[exp.Column]:
    """Column references in ``node`` outside nested queries, ``${var}`` values left out."""
    found = []
    for column in node.find_all(exp.Column):
        if isinstance(column.this, exp.Star) or is_variable(column.name):
            continue
        parent = column.parent if column is not node else None
        nested = False
        while parent is not None and parent is not node:
            if isinstance(parent, exp.Query):
                nested = True
                break
            parent = parent.parent
        if not nested:
            found.append(column)
    return found


def _subqueries(node: exp.Expr) -> list[exp.Expr]:
    """Outermost queries nested in ``node`` (scalar subqueries, IN (SELECT ...))."""
    found = []
    for query in node.find_all(exp.Query):
        if query is node:
            continue
        parent = query.parent
        outer = False
        while parent is not None and parent is not node:
            if isinstance(parent, exp.Query):
                outer = True
                break
            parent = parent.parent
        if not outer:
            found.append(query)
    return found
