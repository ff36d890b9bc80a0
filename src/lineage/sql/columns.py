"""Column lineage out of job SQL, with sqlglot's own resolver (``optimizer.qualify`` + scopes).

``column_lineage(sql, schema)`` says, for every statement whose table lineage is a query
(INSERT / INSERT OVERWRITE, multi-insert, CTAS, CREATE VIEW, MERGE, UPDATE ... SET), which output
column comes from which input columns, classified as DESIGN.md says (OpenLineage's column-lineage
facet): ``direct`` subtypes IDENTITY, TRANSFORMATION, AGGREGATION; ``indirect`` subtypes JOIN,
FILTER, GROUP_BY, SORT (dataset-wide: they shape every output column of the statement) and
WINDOW, CONDITIONAL (field-level: the one output column they are part of).

How: each query is qualified by ``sqlglot.optimizer.qualify`` with the MaxCompute dialect and the
schema given (so every column gets its source and ``SELECT *`` is expanded where the columns are
known), then its scopes (``sqlglot.optimizer.scope``) are followed from the output projections
down to table columns, noting on the way where in an expression each column sits (a CASE
condition, a window's PARTITION BY, an aggregate's argument, ...). MERGE and UPDATE assignments are
read as the SELECT they amount to (``SELECT <value> AS <column> FROM target JOIN source ON ...``).

Never guessed: a ``SELECT *`` over a table whose columns are not in ``schema``, an unqualified
column over several tables of unknown schema, an unnamed expression written into a table whose
columns are unknown, a table name holding a ``${variable}``, an unparsable statement -- each makes
the result ``partial`` with the reason, and the statement (or the column) gives no pairs; with
``by_position`` (extraction, which sees one job's DDL only) so does a positional INSERT into a table
of unknown columns, which otherwise names them by the query's output names.
A ``${var}`` used as a value (``WHERE ds = ${bizdate}``) is a value, not a column.
"""

from __future__ import annotations

import re

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.errors import OptimizeError, SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.scope import Scope, build_scope
from sqlglot.schema import MappingSchema

from lineage.sql import ddl
from lineage.sql.ddl import SchemaChange
from lineage.sql.dialect import is_variable
from lineage.sql.lineage import DIALECT, ParsedStatement, StatementError, _table_lineage, parse_script
from lineage.sql.scopes import _output_names, _branches, _has_star, _star_branch, _star_tables, _lateral, _feeding, _child_scope, _columns, _subqueries

IDENTITY, TRANSFORMATION, AGGREGATION = "IDENTITY", "TRANSFORMATION", "AGGREGATION"
JOIN, FILTER, GROUP_BY, SORT, WINDOW, CONDITIONAL = "JOIN", "FILTER", "GROUP_BY", "SORT", "WINDOW", "CONDITIONAL"
DIRECT = frozenset({IDENTITY, TRANSFORMATION, AGGREGATION})
INDIRECT = frozenset({JOIN, FILTER, GROUP_BY, SORT, WINDOW, CONDITIONAL})
FIELD_LEVEL = DIRECT | {WINDOW, CONDITIONAL}
"""What the peer (sqllineage) calls column lineage: direct plus the field-level indirect inputs."""

DEFAULT = "<default>"
"""Project of an unqualified table when no default project is given."""


@dataclass(frozen=True)
class ColumnFeed:
    """``source`` feeds ``target`` (``project.table.column``, lower-case) by ``transformations``
    (OpenLineage subtypes, sorted); one pair may be both direct and indirect."""

    source: str
    target: str
    transformations: tuple[str, ...]

    @property
    def direct(self) -> bool:
        return bool(DIRECT.intersection(self.transformations))

    @property
    def indirect(self) -> bool:
        return bool(INDIRECT.intersection(self.transformations))


@dataclass(frozen=True)
class ColumnLineage:
    """Every column feed of a script; ``partial`` holds why some lineage is unknown (empty: complete)."""

    feeds: tuple[ColumnFeed, ...]
    partial: tuple[str, ...] = ()
    schema: tuple[SchemaChange, ...] = ()  # what the script's DDL and CTAS say about table columns, in order

    @property
    def is_partial(self) -> bool:
        return bool(self.partial)

    def pairs(self, kinds: Iterable[str] = DIRECT | INDIRECT) -> set[tuple[str, str]]:
        """(source, target) of the feeds holding any of ``kinds`` (default: all)."""
        wanted = set(kinds)
        return {(f.source, f.target) for f in self.feeds if wanted.intersection(f.transformations)}


class Partial(Exception):
    """Some lineage of a statement cannot be known; the message says why."""


Roles = frozenset[str]
Sources = dict[str, set[str]]
"""Source column id -> transformations by which it reaches one output."""


def column_lineage(sql: str, schema: Mapping[str, Sequence[str]] | None = None,
                   default_project: str | None = None, by_position: bool = False) -> ColumnLineage:
    """Column feeds of every data-moving statement of ``sql``.

    ``schema``: ``project.table`` -> its column names in order (partition columns last), as known
    at the job's time; a table missing from it has unknown columns. ``by_position``: a positional
    INSERT into a table of unknown columns is partial (no pairs), not named by the query's outputs.
    """
    project = (default_project or DEFAULT).lower()
    tables = {name.lower(): [c.lower() for c in cols] for name, cols in (schema or {}).items()}
    partitions: dict[str, set[str]] = {}
    parsed, errors = parse_script(sql)
    feeds: dict[tuple[str, str], set[str]] = {}
    reasons = [message for _, message in errors]
    changes: list[SchemaChange] = []
    for statement in parsed:
        written: list[tuple[str, Sources]] | None = None
        gaps: list[str] = []  # what is unknown of a statement that still gives pairs
        try:
            written = _statement(statement.tree, tables, project, by_position, gaps) or \
                _whole_table(statement, tables, project)
            for target, sources in written:
                for source, roles in sources.items():
                    feeds.setdefault((source, target), set()).update(roles)
        except Partial as e:
            gaps.append(str(e))
        reasons += [f"statement {statement.index}: {gap}" for gap in dict.fromkeys(gaps)]
        # the schema as of each statement: later statements see what this one created or altered
        for change in ddl.schema_changes(statement.tree, project, tables, statement.index) + \
                _ctas_schema(statement.tree, written, project, statement.index):
            ddl.apply(tables, change, partitions)
            changes.append(change)
    return ColumnLineage(
        tuple(ColumnFeed(s, t, tuple(sorted(r))) for (s, t), r in sorted(feeds.items()) if r),
        tuple(reasons), tuple(changes),
    )


WHOLE_TABLE = ("exchange", "clone")
"""``ALTER TABLE t EXCHANGE PARTITION ... WITH TABLE s`` and ``CLONE TABLE s TO t``: whole-table
identity, each column of ``s`` into the column of the same name of ``t`` (the table lineage's kinds)."""


def _whole_table(statement: ParsedStatement, tables: dict[str, list[str]], project: str) -> list[tuple[str, Sources]]:
    if not isinstance(statement.tree, exp.Command):
        return []
    try:
        found = _table_lineage(statement, project)
    except StatementError:
        return []
    if found.kind not in WHOLE_TABLE or len(found.reads) != 1 or len(found.writes) != 1:
        return []
    source, target = found.reads[0], found.writes[0]
    if source not in tables:
        raise Partial(f"{found.statement}: columns of {source} unknown")
    return [(f"{target}.{c}", {f"{source}.{c}": {IDENTITY}}) for c in tables[source]]


CREATED_BY_QUERY = ("TABLE", "VIEW")


def _ctas_schema(tree: exp.Expr, written: list[tuple[str, Sources]] | None, project: str,
                 index: int) -> list[SchemaChange]:
    """CTAS and CREATE VIEW ... AS: the new table's (view's) columns are the query's outputs, so a
    later statement of the script reads them (unknown when its lineage was partial)."""
    if not (isinstance(tree, exp.Create) and isinstance(tree.expression, exp.Query)
            and (tree.args.get("kind") or "").upper() in CREATED_BY_QUERY and isinstance(tree.this, exp.Table)):
        return []
    try:
        name = _table_id(tree.this, project)
    except Partial:
        return []
    op = ddl.CREATE if tree.args.get("exists") else ddl.REPLACE
    if written is None:
        return [SchemaChange(name, ddl.UNKNOWN, statement=index)]
    return [SchemaChange(name, op, tuple(ddl.Col(t.rsplit(".", 1)[1]) for t, _ in written), statement=index)]


# --- statements --------------------------------------------------------------------------------


def _statement(tree: exp.Expr, tables: dict[str, list[str]], project: str, strict: bool,
               gaps: list[str]) -> list[tuple[str, Sources]]:
    """(target column id, its sources) for one statement; other statements give nothing."""
    if isinstance(tree, exp.MultitableInserts):
        out = []
        for insert in tree.expressions:
            query = insert.expression.copy()
            if isinstance(query, exp.Select) and not query.args.get("from_"):
                query.set("from_", exp.From(this=tree.args["source"].copy()))
            out += _write(insert.this, query, tables, project, gaps, positional=True, strict=strict)
        return out
    if isinstance(tree, exp.Insert) and isinstance(tree.expression, exp.Query):
        if isinstance(tree.this, exp.Directory):
            return []
        return _write(tree.this, _with(tree, tree.expression), tables, project, gaps, positional=True, strict=strict)
    if isinstance(tree, exp.Create) and isinstance(tree.expression, exp.Query):
        return _write(tree.this, _with(tree, tree.expression), tables, project, gaps, positional=False)
    if isinstance(tree, exp.Merge):
        return _merge(tree, tables, project, gaps)
    if isinstance(tree, exp.Update):
        return _update(tree, tables, project, gaps)
    return []


def _with(statement: exp.Expr, query: exp.Query) -> exp.Query:
    """The query with the statement's own ``WITH`` (``WITH c AS (...) INSERT ... SELECT``) moved onto it."""
    query = query.copy()
    while isinstance(query, exp.Subquery) and not query.alias:
        inner_query = query.this  # INSERT INTO t (a, b) (SELECT ...): the parentheses say nothing
        inner_query.set("with_", inner_query.args.get("with_") or query.args.get("with_"))
        query = inner_query
    outer = statement.args.get("with_")
    if isinstance(outer, exp.With):
        inner = query.args.get("with_")
        ctes = [c.copy() for c in outer.expressions] + (list(inner.expressions) if inner else [])
        query.set("with_", exp.With(expressions=ctes))
    return query


def _write(target: exp.Expr, query: exp.Query, tables: dict[str, list[str]], project: str, gaps: list[str],
           positional: bool, strict: bool = False) -> list[tuple[str, Sources]]:
    """Lineage of ``query`` written into ``target`` (a Table, or a Schema holding a column list).

    Output columns map by position onto the column list, else (INSERT) onto the target's known
    columns without its static partition columns; a CTAS/view, or an INSERT into a table of
    unknown columns, names them by the query's output names (``strict``: no pairs, partial).
    """
    columns: list[str] | None = None
    table = target
    if isinstance(target, exp.Schema):
        table = target.this
        columns = [(c.this if isinstance(c, exp.ColumnDef) else c).name.lower() for c in target.expressions]
    if not isinstance(table, exp.Table):
        return []
    name = _table_id(table, project)
    static = _static_partitions(table)
    analysis = _Analysis(tables, project, gaps)
    outputs = analysis.outputs(query)
    if columns is None and positional and name in tables:
        columns = [c for c in tables[name] if c not in static]
    if columns is None:
        columns = [o for o in outputs.names]
        unnamed = [str(i + 1) for i, n in enumerate(columns) if n is None]
        if unnamed:
            raise Partial(f"columns of {name} unknown and output column {', '.join(unnamed)} has no name")
        if positional and strict:
            raise Partial(f"columns of {name} unknown: a positional INSERT maps onto them by position")
    elif len(columns) != len(outputs.names):
        raise Partial(f"{len(outputs.names)} output columns for {len(columns)} columns of {name}")
    wide = analysis.dataset_wide(query)
    result = []
    for i, column in enumerate(columns):
        sources = {s: set(r) for s, r in outputs.sources[i].items()}
        for s, r in wide.items():
            sources.setdefault(s, set()).update(r)
        result.append((f"{name}.{column}", sources))
    return result


def _merge(tree: exp.Merge, tables: dict[str, list[str]], project: str, gaps: list[str]) -> list[tuple[str, Sources]]:
    """Each WHEN's assignments as ``SELECT value AS column FROM target JOIN source ON <on> [WHERE <when>]``."""
    target = tree.this
    if not isinstance(target, exp.Table):
        return []
    name = _table_id(target, project)
    out: list[tuple[str, Sources]] = []
    for when in (tree.args.get("whens") or exp.Whens()).expressions:
        then = when.args.get("then")
        pairs: list[tuple[str, exp.Expr]] = []
        if isinstance(then, exp.Update):
            pairs = [(eq.this.name.lower(), eq.expression) for eq in then.expressions if isinstance(eq, exp.EQ)]
        elif isinstance(then, exp.Insert) and isinstance(then.expression, exp.Tuple):
            names = then.this.expressions if isinstance(then.this, exp.Tuple) else (
                [exp.column(c) for c in tables.get(name, [])])
            values = then.expression.expressions
            if len(names) != len(values):
                raise Partial(f"MERGE INSERT: {len(values)} values for {len(names)} columns of {name}")
            pairs = [(n.name.lower(), v) for n, v in zip(names, values)]
        if not pairs:
            continue
        select = exp.select(*[exp.alias_(v.copy(), f"_c{i}") for i, (_, v) in enumerate(pairs)])
        select = select.from_(target.copy()).join(tree.args["using"].copy(), on=tree.args["on"].copy())
        if when.args.get("condition") is not None:
            select = select.where(when.args["condition"].copy())
        out += _assignments(name, [c for c, _ in pairs], _with(tree, select), tables, project, gaps)
    return out


def _update(tree: exp.Update, tables: dict[str, list[str]], project: str, gaps: list[str]) -> list[tuple[str, Sources]]:
    """``UPDATE t SET c = v [FROM s] [WHERE w]`` as ``SELECT v AS c FROM t [, s] [WHERE w]``."""
    target = tree.this
    if not isinstance(target, exp.Table):
        return []
    name = _table_id(target, project)
    eqs = [eq for eq in tree.expressions if isinstance(eq, exp.EQ)]
    select = exp.select(*[exp.alias_(eq.expression.copy(), f"_c{i}") for i, eq in enumerate(eqs)]).from_(target.copy())
    from_ = tree.args.get("from_")
    if from_ is not None:
        select = select.join(from_.this.copy())
    for join in tree.args.get("joins") or []:
        select = select.join(join.copy())
    if tree.args.get("where") is not None:
        select = select.where(tree.args["where"].this.copy())
    return _assignments(name, [eq.this.name.lower() for eq in eqs], _with(tree, select), tables, project, gaps)


def _assignments(name: str, columns: list[str], select: exp.Query, tables: dict[str, list[str]],
                 project: str, gaps: list[str]) -> list[tuple[str, Sources]]:
    analysis = _Analysis(tables, project, gaps)
    outputs = analysis.outputs(select)
    wide = analysis.dataset_wide(select)
    result = []
    for column, sources in zip(columns, outputs.sources):
        merged = {s: set(r) for s, r in sources.items()}
        for s, r in wide.items():
            merged.setdefault(s, set()).update(r)
        result.append((f"{name}.{column}", merged))
    return result


def _table_key(table: exp.Table, project: str) -> str | None:
    """``_table_id``, None for a table named by a variable."""
    try:
        return _table_id(table, project)
    except Partial:
        return None


def _table_id(table: exp.Table, project: str) -> str:
    parts = [p.name.lower() for p in table.parts]
    if any(is_variable(p) for p in parts) or isinstance(table.this, exp.Parameter):
        raise Partial(f"table name is a variable ({table.sql(dialect=DIALECT)})")
    if len(parts) == 1:
        parts.insert(0, project)
    return ".".join(parts[-2:])


def _static_partitions(table: exp.Table) -> set[str]:
    """Partition columns given a value in ``PARTITION (ds='x', hr)``: ``ds`` (no pair for them)."""
    partition = table.args.get("partition")
    if not isinstance(partition, exp.Partition):
        return set()
    return {e.this.name.lower() for e in partition.expressions if isinstance(e, exp.EQ)}


# --- queries -----------------------------------------------------------------------------------


@dataclass
class _Outputs:
    names: list[str | None]
    sources: list[Sources]


@dataclass
class _Analysis:
    """One query qualified against the schema, and its scopes followed down to table columns."""

    tables: dict[str, list[str]]
    project: str
    gaps: list[str] = field(default_factory=list)
    """What is unknown while the rest is known: a UNION branch's columns, a JOIN or filter input."""
    _root: Scope | None = None
    _cache: dict[tuple[int, int], Sources] = field(default_factory=dict)
    _busy: set[tuple[int, int]] = field(default_factory=set)

    def _scope(self, query: exp.Query) -> Scope:
        if self._root is None:
            schema = MappingSchema(_nested(self.tables), dialect=DIALECT)
            try:
                qualified = qualify(
                    self._own_columns(query.copy()), dialect=DIALECT, schema=schema, db=self.project,
                    validate_qualify_columns=False, allow_partial_qualification=True,
                    quote_identifiers=False, identify=False, expand_alias_refs=False,
                )
            except (OptimizeError, SqlglotError) as e:
                raise Partial(f"cannot resolve the query's columns: {_first_line(e)}") from None
            root = build_scope(qualified)
            if root is None:
                raise Partial("no query scope")
            self._root = root
        return self._root

    def _own_columns(self, query: exp.Query) -> exp.Query:
        """An unqualified column of a subquery over one table of unknown columns is that table's: a
        name resolves in the nearest query first (sqlglot, not knowing the table's columns, will
        not choose between it and a correlated outer column)."""
        root = build_scope(query)
        for scope in root.traverse() if root is not None else []:
            if not (scope.can_be_correlated and isinstance(scope.expression, exp.Select)) or \
                    scope.expression.args.get("laterals"):  # a LATERAL VIEW's names are not the table's
                continue
            try:
                sources = list(scope.selected_sources.items())
            except OptimizeError:  # unaliased derived tables: not a subquery of one table
                continue
            if len(sources) != 1:
                continue
            alias, (_, source) = sources[0]
            if not isinstance(source, exp.Table) or _table_key(source, self.project) in self.tables:
                continue
            aliases = {s.alias.lower() for s in scope.expression.selects if isinstance(s, exp.Alias)}
            for column in scope.unqualified_columns:
                if column.name.lower() not in aliases and not is_variable(column.name):
                    column.set("table", exp.to_identifier(alias))
        return query

    def outputs(self, query: exp.Query) -> _Outputs:
        root = self._scope(query)
        names = _output_names(root)
        return _Outputs(names, [self.projection(root, i) for i in range(len(names))])

    # output column ``index`` of ``scope``: its sources
    def projection(self, scope: Scope, index: int) -> Sources:
        key = (id(scope), index)
        if key in self._cache:
            return self._cache[key]
        if key in self._busy:
            return {}
        self._busy.add(key)
        try:
            if isinstance(scope.expression, exp.SetOperation):
                out: Sources = {}
                branches = _branches(scope)
                if len({len(_output_names(b)) for b in branches if not _star_branch(b)}) > 1:
                    raise Partial("UNION branches with different numbers of columns")
                if all(_star_branch(b) for b in branches):
                    tables = ", ".join(_star_tables(b, None) for b in branches)
                    raise Partial(f"SELECT * over {tables} whose columns are unknown")
                for branch in branches:  # a SELECT * branch of unknown columns is a gap, not the UNION's end
                    if _star_branch(branch):
                        self.gaps.append(f"SELECT * over {_star_tables(branch, None)} whose columns are unknown")
                    else:
                        _merge_into(out, self.projection(branch, index))
            else:
                selects = scope.expression.selects
                if index >= len(selects):
                    raise Partial("UNION branches with different numbers of columns")
                out = self.expression(scope, selects[index])
        finally:
            self._busy.discard(key)
        self._cache[key] = out
        return out

    def expression(self, scope: Scope, node: exp.Expr) -> Sources:
        """Sources of an expression of ``scope``, by where each column sits in it."""
        if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
            raise Partial(f"SELECT * over {_star_tables(scope, node)} whose columns are unknown")
        root = node.this if isinstance(node, exp.Alias) else node
        out: Sources = {}
        for column in _columns(root):
            roles = _roles(column, root)
            if roles:
                _merge_into(out, _compose(roles, self.column(scope, column)))
        for sub in _subqueries(root):
            child = _child_scope(scope, sub)
            if child is None:
                continue
            inner: Sources = {}
            for i in range(len(_output_names(child))):
                _merge_into(inner, self.projection(child, i))
            _merge_into(inner, self.dataset_wide_of(child))
            roles = _roles(sub, root) or frozenset()
            roles = frozenset({TRANSFORMATION} if roles == {IDENTITY} else roles)
            _merge_into(out, _compose(roles, inner))
        return out

    def column(self, scope: Scope, column: exp.Column) -> Sources:
        """Sources of one column reference: a table column, or a child scope's output, followed."""
        name, table = column.name.lower(), column.table.lower()
        if not table and column.find_ancestor(exp.Order, exp.Group, exp.Having, exp.Qualify) is not None:
            for i, projection in enumerate(getattr(scope.expression, "selects", [])):
                if isinstance(projection, exp.Alias) and projection.alias.lower() == name:
                    return self.projection(scope, i)  # ORDER BY / GROUP BY an output alias
        if not table:
            for lateral in (scope.expression.args.get("laterals") or []) if isinstance(scope.expression, exp.Select) else []:
                if name in [c.name.lower() for c in lateral.args["alias"].columns]:
                    return _compose(frozenset({TRANSFORMATION}), self.expression(scope, lateral.this))
            sources = list(scope.selected_sources) if isinstance(scope.expression, exp.Select) else []
            if not sources and scope.parent is not None:
                return self.column(scope.parent, column)  # (SELECT a + b) over the outer query's row
            if len(sources) == 1:
                table = sources[0].lower()  # the only source of unknown columns: the column is its
            else:
                raise Partial(f"column {name} could be in any of {len(sources)} sources, whose columns are unknown"
                              if len(sources) > 1 else f"column {name} has no source")
        current: Scope | None = scope
        while current is not None:
            lateral = _lateral(current, table)
            if lateral is not None:
                return _compose(frozenset({TRANSFORMATION}), self.expression(current, lateral.this))
            source = current.sources.get(table)
            if isinstance(source, exp.Table):
                return {f"{_table_id(source, self.project)}.{name}": {IDENTITY}}
            if isinstance(source, Scope):
                names = _output_names(source)
                if name in names:
                    return self.projection(source, names.index(name))
                if _has_star(source):
                    raise Partial(f"SELECT * over {_star_tables(source, None)} whose columns are unknown")
                raise Partial(f"column {name} is not an output of {table}")
            current = current.parent
        raise Partial(f"column {table}.{name} has no source")

    def dataset_wide(self, query: exp.Query) -> Sources:
        return self.dataset_wide_of(self._scope(query))

    def dataset_wide_of(self, scope: Scope) -> Sources:
        """JOIN / FILTER / GROUP_BY / SORT inputs of every scope the rows of ``scope`` pass through."""
        out: Sources = {}
        for inner in _feeding(scope):
            select = inner.expression
            if not isinstance(select, exp.Select):
                continue
            clauses: list[tuple[str, exp.Expr | None]] = [(FILTER, select.args.get("where")),
                                                          (FILTER, select.args.get("having")),
                                                          (FILTER, select.args.get("qualify")),
                                                          (GROUP_BY, select.args.get("group")),
                                                          (SORT, select.args.get("order"))]
            for join in select.args.get("joins") or []:
                clauses.append((JOIN, join.args.get("on")))
                for using in join.args.get("using") or []:
                    clauses.append((JOIN, exp.column(using.name)))
            for role, clause in clauses:
                if clause is None:
                    continue
                for column in _columns(clause):
                    if not column.table and not any(
                        isinstance(s, exp.Alias) and s.alias.lower() == column.name.lower() for s in select.selects
                    ):
                        # USING (k): k is in each joined source
                        for alias, source in inner.sources.items():
                            try:
                                _merge_into(out, _compose(frozenset({role}), self.column(
                                    inner, exp.column(column.name, table=alias))))
                            except Partial:
                                pass
                        continue
                    self._gap(out, role, self.column, inner, column)
                for sub in _subqueries(clause):
                    child = _child_scope(inner, sub)
                    if child is not None:  # IN (SELECT k FROM s WHERE ...): k, and what filters s, filter here
                        for i in range(len(_output_names(child))):
                            self._gap(out, role, self.projection, child, i)
                        self._gap(out, role, self.dataset_wide_of, child)
        return out

    def _gap(self, out: Sources, role: str, sources: Callable[..., Sources], *args: object) -> None:
        """A dataset-wide input's ``sources(*args)`` into ``out``; one unknown is a gap (said), not the
        statement's end: the output columns' own sources are still known."""
        try:
            _merge_into(out, _compose(frozenset({role}), sources(*args)))
        except Partial as e:
            self.gaps.append(f"{role} input unknown: {e}")


def _nested(tables: dict[str, list[str]]) -> dict:
    nested: dict = {}
    for name, columns in tables.items():
        db, _, table = name.rpartition(".")
        nested.setdefault(db or DEFAULT, {})[table] = {c: "STRING" for c in columns}
    return nested


def _roles(node: exp.Expr, root: exp.Expr) -> Roles:
    """How the value of ``node`` reaches ``root``: IDENTITY when it is ``root``; TRANSFORMATION or
    AGGREGATION through functions; CONDITIONAL in a CASE/IF condition (COALESCE/NVL arguments are
    both); WINDOW in a window's PARTITION BY / ORDER BY."""
    roles: set[str] = set()
    direct = True
    aggregated = False
    child, parent = node, node.parent
    while child is not root and parent is not None:
        if isinstance(parent, exp.Window) and child is not parent.this:
            roles.add(WINDOW)
            direct = False
        elif isinstance(parent, exp.If) and child is parent.this:
            roles.add(CONDITIONAL)
            direct = False  # a CASE WHEN condition, or IF(cond, ...)
        elif isinstance(parent, exp.Case) and child is parent.this:
            roles.add(CONDITIONAL)
            direct = False  # CASE x WHEN ...: x only chooses the branch
        elif isinstance(parent, exp.Coalesce):
            roles.add(CONDITIONAL)
        elif isinstance(parent, exp.AggFunc):
            aggregated = True
        child, parent = parent, parent.parent
    if direct:
        if aggregated:
            roles.add(AGGREGATION)
        elif node is root or (isinstance(root, exp.Paren) and root.unnest() is node):
            roles.add(IDENTITY)
        else:
            roles.add(TRANSFORMATION)
    return frozenset(roles)


def _compose(outer: Roles, inner: Sources) -> Sources:
    """Sources reached through an output used by ``outer``: indirect if either step is."""
    out: Sources = {}
    for source, roles in inner.items():
        combined: set[str] = set()
        for o in outer:
            for r in roles:
                combined.add(_step(o, r))
        out[source] = combined
    return out


def _step(outer: str, inner: str) -> str:
    if outer in INDIRECT:
        return outer
    if inner in INDIRECT:
        return inner
    if AGGREGATION in (outer, inner):
        return AGGREGATION
    if outer == IDENTITY and inner == IDENTITY:
        return IDENTITY
    return TRANSFORMATION


def _merge_into(out: Sources, more: Sources) -> None:
    for source, roles in more.items():
        out.setdefault(source, set()).update(roles)


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
