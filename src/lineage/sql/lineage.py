"""Table lineage out of SQL text (MaxCompute OperationText, DataWorks sqlText) with sqlglot.

Two steps, so that column lineage can be added as a second walk over the same trees:

1. ``parse_script``: the script is tokenized once with the ``MaxCompute`` dialect
   (``lineage.sql.dialect``) and split on ``;`` tokens, so semicolons inside strings and
   comments are safe and each statement is parsed -- and can fail -- on its own.
2. ``table_lineage``: each parsed statement's kind, and the tables it reads and writes.

A name holding a DataWorks variable (``${x}``) is reported as "table name is a variable",
never guessed; ``FROM @v`` after ``@v := SELECT ...`` is a script-local result, not a table.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from lineage.sql.dialect import (
    ADMIN_VERBS,
    SESSION_VERBS,
    Assignment,
    MaxCompute,
    assigned_variable,
    is_variable,
    join_variables,
    variables_in,
)

# sqlglot warns on every statement it can only keep as a raw command; we report those ourselves
logging.getLogger("sqlglot").setLevel(logging.ERROR)


@dataclass(frozen=True)
class StatementLineage:
    """One statement: its kind, tables read and written.

    Kinds: insert, ctas, create_table, create_view, select, merge, update, delete, load, ddl, other.
    ``create_table`` (``CREATE TABLE t (...)`` or ``... LIKE src``) writes ``t`` -- the job that
    runs it defines the table -- and reads the ``LIKE`` template.
    ``index`` is 1-based and counts every non-empty statement of the script (SET included),
    the same numbering as ``SqlLineage.errors``. A script assignment ``@v := SELECT`` is a
    ``select``.
    """

    index: int
    kind: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]


@dataclass(frozen=True)
class SqlLineage:
    """Tables read and written by a script, as lower-cased qualified names ``project.table``.

    Unqualified names get ``default_project``; without one they stay bare (``table``).
    ``errors`` has one message per statement that could not be parsed ("statement 2: ...");
    such statements contribute nothing (never guessed).
    """

    reads: tuple[str, ...]
    writes: tuple[str, ...]
    statements: tuple[StatementLineage, ...]
    errors: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.errors


@dataclass(frozen=True)
class ParsedStatement:
    """One statement's tree; ``table_vars`` are the script variables assigned before (and by) it."""

    index: int
    tree: exp.Expr
    tokens: tuple[Token, ...]
    table_vars: frozenset[str]


# The dialect object is immutable configuration; tokenizers and parsers are made per call.
DIALECT = MaxCompute()

COMMAND_KINDS: dict[str, str] = {**{verb: "ddl" for verb in ADMIN_VERBS}, **{verb: "other" for verb in SESSION_VERBS}}
"""Statements the dialect keeps as a ``Command`` of a known verb: never move data."""
# Raw-command fallbacks accepted as DDL when they hold no query (a CTAS sqlglot could not
# parse falls back to a CREATE command too: that one is an error, not DDL).
_DDL_COMMANDS = frozenset({"CREATE", "ALTER", "DROP", "DESC", "DESCRIBE", "USE", "TRUNCATE", "ANALYZE", "COMMENT"})
_DDL_TYPES: tuple[type[exp.Expr], ...] = (
    exp.Drop,
    exp.Alter,
    exp.Describe,
    exp.TruncateTable,
    exp.Use,
    exp.Analyze,
    exp.Comment,
    exp.Grant,
    exp.Revoke,
    exp.Show,
    exp.Refresh,
    exp.Cache,
    exp.Uncache,
)
_DML_KINDS: dict[type[exp.Expr], str] = {exp.Merge: "merge", exp.Update: "update", exp.Delete: "delete", exp.LoadData: "load"}


class StatementError(Exception):
    """A statement whose lineage cannot be known; the message goes into ``errors``."""


def table_lineage(sql: str, default_project: str | None = None) -> SqlLineage:
    """Reads and writes of every statement of ``sql``; unparsable statements become errors."""
    project = default_project.lower() if default_project else None
    parsed, errors = parse_script(sql)
    statements: list[StatementLineage] = []
    for statement in parsed:
        try:
            statements.append(_table_lineage(statement, project))
        except StatementError as e:
            errors.append((statement.index, f"statement {statement.index}: {e}"))
    return SqlLineage(
        reads=_sorted(name for s in statements for name in s.reads),
        writes=_sorted(name for s in statements for name in s.writes),
        statements=tuple(statements),
        errors=tuple(message for _, message in sorted(errors, key=lambda e: e[0])),
    )


# --- parsing --------------------------------------------------------------------------------


def parse_script(sql: str) -> tuple[list[ParsedStatement], list[tuple[int, str]]]:
    """Every non-empty statement parsed on its own, and (index, message) of those that failed."""
    chunks, token_error = _split_statements(sql or "")
    parsed: list[ParsedStatement] = []
    errors: list[tuple[int, str]] = []
    table_vars: set[str] = set()
    for index, tokens in enumerate(chunks, start=1):
        assigned = assigned_variable(tokens)
        if assigned:
            table_vars.add(assigned)  # even when its query fails: later ``FROM @v`` is still no table
        try:
            parsed.append(ParsedStatement(index, _parse(tokens, sql or ""), tuple(tokens), frozenset(table_vars)))
        except StatementError as e:
            errors.append((index, f"statement {index}: {e}"))
    if token_error is not None:
        index = len(chunks) + 1
        errors.append((index, f"statement {index}: {token_error} (rest of the script not analysed)"))
    return parsed, errors


def _split_statements(sql: str) -> tuple[list[list[Token]], str | None]:
    """Non-empty statements as token lists, split on ``;`` tokens, plus a tokenizer error.

    On a tokenizer error (unterminated string/comment) the statements completed before it are
    still returned; the broken statement is the next one and everything after it is lost.
    """
    tokenizer = DIALECT.tokenizer()
    error: str | None = None
    try:
        tokens = tokenizer.tokenize(sql)
    except TokenError as e:
        tokens, error = join_variables(list(tokenizer.tokens), sql), _first_line(e)
    chunks: list[list[Token]] = [[]]
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            chunks.append([])
        else:
            chunks[-1].append(token)
    if error is not None:
        chunks.pop()  # the unfinished statement: reported as the error
    return [chunk for chunk in chunks if chunk], error


def _parse(tokens: list[Token], sql: str) -> exp.Expr:
    """Parse one statement's tokens into exactly one tree."""
    try:
        trees = [tree for tree in DIALECT.parser().parse(tokens, sql) if tree is not None]
    except (ParseError, TokenError) as e:
        raise StatementError(_first_line(e)) from None
    if len(trees) != 1:
        raise StatementError(f"expected one statement, parsed {len(trees)}")
    return trees[0]


# --- table lineage of one statement ---------------------------------------------------------


def _table_lineage(statement: ParsedStatement, project: str | None) -> StatementLineage:
    """Kind, reads and writes of one parsed statement; raises StatementError when unknowable."""
    tree = statement.tree
    kind, targets = _classify(tree, statement.tokens)
    if kind in ("ddl", "other"):
        return StatementLineage(statement.index, kind, (), ())
    target_ids = {id(t) for t in targets}
    writes = [_table_name(t, project) for t in targets]
    reads = [_table_name(t, project) for t in _source_tables(tree, statement.table_vars) if id(t) not in target_ids]
    return StatementLineage(statement.index, kind, _sorted(reads), _sorted(writes))


def _classify(tree: exp.Expr, tokens: tuple[Token, ...]) -> tuple[str, list[exp.Table]]:
    """Statement kind and the Table nodes it writes."""
    if isinstance(tree, Assignment):
        return "select", []  # @v := <query>: a script-local result, whatever the query
    if isinstance(tree, exp.MultitableInserts):
        return "insert", [t for insert in tree.expressions if (t := _target(insert.this)) is not None]
    if isinstance(tree, exp.Insert):
        return "insert", [t for t in [_target(tree.this)] if t is not None]
    if isinstance(tree, exp.Create):
        return _classify_create(tree)
    if isinstance(tree, exp.Alter) and any(isinstance(a, exp.Query) for a in tree.args.get("actions") or []):
        return "create_view", [t for t in [_target(tree.this)] if t is not None]  # ALTER VIEW v AS SELECT
    for node_type, kind in _DML_KINDS.items():
        if isinstance(tree, node_type):
            return kind, [t for t in [_target(tree.this)] if t is not None]
    if isinstance(tree, exp.Query):
        return "select", []
    if isinstance(tree, _DDL_TYPES):
        return "ddl", []
    if isinstance(tree, exp.Command):
        return _classify_command(tree, tokens), []
    raise StatementError(f"not a supported SQL statement (parsed as {type(tree).__name__})")


def _classify_create(tree: exp.Create) -> tuple[str, list[exp.Table]]:
    """CREATE TABLE (plain, LIKE, AS query) and CREATE VIEW write their target; other CREATEs are DDL."""
    if not isinstance(tree.expression, exp.Query):
        if str(tree.args.get("kind") or "").upper() == "TABLE":
            return "create_table", [t for t in [_target(tree.this)] if t is not None]  # LIKE src: a read
        return "ddl", []
    kind = {"TABLE": "ctas", "VIEW": "create_view"}.get(str(tree.args.get("kind") or "").upper())
    if kind is None:
        raise StatementError(f"unsupported CREATE {tree.args.get('kind')} ... AS query")
    return kind, [t for t in [_target(tree.this)] if t is not None]


def _classify_command(tree: exp.Command, tokens: tuple[Token, ...]) -> str:
    """A known verb's kind; a raw-command fallback is DDL only if a DDL verb holding no query."""
    verb = str(tree.this).upper()
    if verb in COMMAND_KINDS:
        return COMMAND_KINDS[verb]
    if verb in _DDL_COMMANDS and not any(t.token_type == TokenType.SELECT for t in tokens):
        return "ddl"
    raise StatementError(f"unsupported syntax: sqlglot could not parse this {tree.this} statement")


def _target(node: exp.Expr | None) -> exp.Table | None:
    """The Table a statement writes (unwrapping a column list); None for a directory."""
    if isinstance(node, exp.Schema):
        node = node.this
    return node if isinstance(node, exp.Table) else None


def _source_tables(tree: exp.Expr, table_vars: frozenset[str]) -> Iterable[exp.Table]:
    """Table nodes that are real tables: not CTEs, script variables or table functions."""
    for table in tree.find_all(exp.Table):
        if isinstance(table.this, exp.Func):
            continue  # table-valued function, e.g. FROM explode(...)
        if isinstance(table.this, exp.Parameter) and table.this.name.lower() in table_vars:
            continue  # FROM @v: the result of a script assignment, whose reads are counted there
        if not table.args.get("db") and table.name.lower() in _visible_ctes(table):
            continue
        yield table


def _visible_ctes(node: exp.Expr) -> set[str]:
    """Lower-cased CTE names in scope at ``node`` (a CTE sees only the CTEs defined before it)."""
    names: set[str] = set()
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, exp.With):
            ctes = parent.expressions
            upto = next((i for i, cte in enumerate(ctes) if cte is child), len(ctes))
            names.update(cte.alias_or_name.lower() for cte in ctes[:upto])
        else:
            with_ = parent.args.get("with_")
            if isinstance(with_, exp.With) and with_ is not child:
                names.update(cte.alias_or_name.lower() for cte in with_.expressions)
        child, parent = parent, parent.parent
    return names


def _table_name(table: exp.Table, project: str | None) -> str:
    """``project.table`` (or ``project.schema.table``), lower-cased; variables are errors."""
    if isinstance(table.this, exp.Parameter):
        raise StatementError(f"table name is a variable ({table.this.name})")
    parts = table.parts
    if not 1 <= len(parts) <= 3 or not all(isinstance(p, exp.Identifier) for p in parts):
        raise StatementError(f"unsupported table name {table.sql(dialect=DIALECT)!r}")
    for part in parts:
        if is_variable(part.name):
            raise StatementError(f"table name is a variable ({', '.join(variables_in(part.name))})")
    words = [p.name.lower() for p in parts]
    if len(words) == 1 and project:
        words.insert(0, project)
    return ".".join(words)


def _sorted(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(names)))


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
