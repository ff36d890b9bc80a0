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
from dataclasses import asdict, dataclass, field
from functools import lru_cache

from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from lineage.ids import location_uri
from lineage.sql.dialect import (
    Assignment,
    MaxCompute,
    assigned_variable,
    is_variable,
    join_variables,
    variables_in,
)
from lineage.sql.kinds import BY_NAME, NONE, Match, classify

PARSE_CACHE = 64
"""Parsed scripts kept per process: a few suffice, as the build extracts the events of one text
together (``facts.extract.by_script``); the analyses built on them have their own, larger caches."""

# sqlglot warns on every statement it can only keep as a raw command; we report those ourselves
logging.getLogger("sqlglot").setLevel(logging.ERROR)


@dataclass(frozen=True)
class StatementLineage:
    """One statement: its kind, tables read and written, storage paths read and written.

    Kinds (coarse): insert, ctas, create_table, create_view, select, merge, update, delete, load,
    exchange, clone, unload, ddl, other. ``statement`` is the fine kind, a row of
    ``lineage.sql.kinds.KINDS``, and ``effect`` what it does to stored data (data / schema /
    none). ``create_table`` (``CREATE TABLE t (...)`` or ``... LIKE src``) writes ``t`` -- the
    job that runs it defines the table -- and reads the ``LIKE`` template.
    ``index`` is 1-based and counts every non-empty statement of the script (SET included),
    the same numbering as ``SqlLineage.errors``. A script assignment ``@v := SELECT`` is a
    ``select``. Locations are canonical URIs (``lineage.ids.location_uri``: ``oss://bucket/path``).
    """

    index: int
    kind: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    read_locations: tuple[str, ...] = ()
    written_locations: tuple[str, ...] = ()
    statement: str = field(default="", compare=False)  # the fine kind: comparing kinds stays coarse

    @property
    def effect(self) -> str:
        return BY_NAME[self.statement].effect if self.statement in BY_NAME else NONE


@dataclass(frozen=True)
class SqlLineage:
    """Tables read and written by a script, as lower-cased qualified names ``project.table``.

    Unqualified names get ``default_project``; without one they stay bare (``table``).
    Storage paths (``parquet.`oss://...```, ``LOCATION '...'``) are ``read_locations`` /
    ``written_locations``, never tables.
    ``errors`` has one message per statement that could not be parsed ("statement 2: ...");
    such statements contribute nothing (never guessed).
    """

    reads: tuple[str, ...]
    writes: tuple[str, ...]
    statements: tuple[StatementLineage, ...]
    errors: tuple[str, ...]
    read_locations: tuple[str, ...] = ()
    written_locations: tuple[str, ...] = ()

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
    sql: str = ""


# The dialect object is immutable configuration; tokenizers and parsers are made per call.
DIALECT = MaxCompute()

FILE_FORMATS = frozenset({"parquet", "orc", "csv", "json", "text", "avro", "delta", "hudi", "binaryfile", "iceberg"})
"""Spark's ``<format>.`<path>``` reads a path, not a table (``parquet.`oss://b/p```)."""


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
        read_locations=_sorted(uri for s in statements for uri in s.read_locations),
        written_locations=_sorted(uri for s in statements for uri in s.written_locations),
    )


def to_json(lineage: SqlLineage) -> dict:
    """``lineage`` as JSON-able data (kept across builds: ``lineage.sql.memo``)."""
    return asdict(lineage)


def from_json(data: dict) -> SqlLineage:
    """The :class:`SqlLineage` :func:`to_json` wrote."""
    statements = tuple(StatementLineage(**_tuples(s)) for s in data["statements"])
    return SqlLineage(**{**_tuples(data), "statements": statements})


def _tuples(data: dict) -> dict:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}


# --- parsing --------------------------------------------------------------------------------


def parse_script(sql: str) -> tuple[list[ParsedStatement], list[tuple[int, str]]]:
    """Every non-empty statement parsed on its own, and (index, message) of those that failed.

    The trees are shared by every caller of one text (table and column lineage parse it once): they
    are read, never changed (column lineage copies a query before qualifying it)."""
    parsed, errors = _parsed(sql or "")
    return list(parsed), list(errors)


@lru_cache(maxsize=PARSE_CACHE)
def _parsed(sql: str) -> tuple[tuple[ParsedStatement, ...], tuple[tuple[int, str], ...]]:
    chunks, token_error = _split_statements(sql)
    parsed: list[ParsedStatement] = []
    errors: list[tuple[int, str]] = []
    table_vars: set[str] = set()
    for index, tokens in enumerate(chunks, start=1):
        assigned = assigned_variable(tokens)
        if assigned:
            table_vars.add(assigned)  # even when its query fails: later ``FROM @v`` is still no table
        try:
            parsed.append(ParsedStatement(index, _parse(tokens, sql), tuple(tokens), frozenset(table_vars), sql))
        except StatementError as e:
            errors.append((index, f"statement {index}: {e}"))
    if token_error is not None:
        index = len(chunks) + 1
        errors.append((index, f"statement {index}: {token_error} (rest of the script not analysed)"))
    return tuple(parsed), tuple(errors)


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
    return _without_positions(trees[0])


POSITIONS = ("line", "col", "start", "end")
"""Where in the text an identifier was (sqlglot's ``meta``): for highlighting an error, which the
analysis never asks for; every copy column lineage makes of a shared tree deep-copied them, a
quarter of its time."""


def _without_positions(tree: exp.Expr) -> exp.Expr:
    for node in tree.walk():
        meta = node._meta
        if meta:
            for key in POSITIONS:
                meta.pop(key, None)
            if not meta:
                node._meta = None
    return tree


# --- table lineage of one statement ---------------------------------------------------------


def _table_lineage(statement: ParsedStatement, project: str | None) -> StatementLineage:
    """Kind, reads and writes of one parsed statement; raises StatementError when unknowable."""
    tree = statement.tree
    found = classify(tree, statement.tokens)
    if found is None:
        raise StatementError(_unsupported(tree))
    kind, match = found
    reads, writes, read_at, written_at = LINEAGE_OF[kind.lineage](statement, match)
    return StatementLineage(
        statement.index, kind.kind,
        _sorted(_table_name(t, project) for t in reads), _sorted(_table_name(t, project) for t in writes),
        _sorted(read_at), _sorted(written_at), statement=kind.name,
    )


Found = tuple[list[exp.Table], list[exp.Table], list[str], list[str]]
"""Tables read, tables written, storage paths (canonical URIs) read, written."""


def _unsupported(tree: exp.Expr) -> str:
    if isinstance(tree, exp.Command):
        return f"unsupported syntax: sqlglot could not parse this {tree.this} statement"
    if isinstance(tree, exp.Create) and isinstance(tree.expression, exp.Query):
        return f"unsupported CREATE {tree.args.get('kind')} ... AS query"
    return f"not a supported SQL statement (parsed as {type(tree).__name__})"


def _no_lineage(_statement: ParsedStatement, _match: Match) -> Found:
    return [], [], [], []


def _tree_lineage(statement: ParsedStatement, _match: Match) -> Found:
    """The statement's targets are written; every other table in it is read, paths aside."""
    tree = statement.tree
    targets = _targets(tree)
    target_ids = {id(t) for t in targets}
    reads, read_at = [], []
    for table in _source_tables(tree, statement.table_vars):
        if id(table) in target_ids:
            continue
        path = _path_read(table)
        if path is not None:
            read_at.append(path)
        else:
            reads.append(table)
    written_at = []
    if isinstance(tree, exp.Insert) and isinstance(tree.this, exp.Directory):
        written_at.append(_uri(tree.this.this, bool(tree.this.args.get("local"))))
    if isinstance(tree, exp.LoadData) and tree.args.get("inpath") is not None:
        read_at.append(_uri(tree.args["inpath"], bool(tree.args.get("local"))))
    for prop in tree.find_all(exp.LocationProperty):
        read_at.append(_uri(prop.this))  # an external table's data is at its LOCATION
    return reads, targets, [p for p in read_at if p], [p for p in written_at if p]


def _word_lineage(statement: ParsedStatement, match: Match) -> Found:
    """What a word pattern named: ``{target}``/``{source}`` tables, paths, and ``(query)`` reads."""
    writes = [_table_of(name) for name in match.names.get("target", [])]
    reads = [_table_of(name) for name in match.names.get("source", [])]
    read_at = [location_uri(p) for p in match.reads_at]
    for tokens in match.queries:
        query = _parse(list(tokens), statement.sql)
        inner = ParsedStatement(statement.index, query, tokens, statement.table_vars, statement.sql)
        more, _, more_at, _ = _tree_lineage(inner, match)
        reads += more
        read_at += more_at
    written_at = [location_uri(p) for p in match.writes_at]
    return reads, writes, [p for p in read_at if p], [p for p in written_at if p]


LINEAGE_OF = {"none": _no_lineage, "tree": _tree_lineage, "words": _word_lineage}
"""How a kind's reads and writes are found (``Kind.lineage``)."""


def _targets(tree: exp.Expr) -> list[exp.Table]:
    """The Table nodes a statement writes: each insert of a multi-insert, else its ``this``."""
    if isinstance(tree, exp.MultitableInserts):
        return [t for insert in tree.expressions if (t := _target(insert.this)) is not None]
    if isinstance(tree, (Assignment, exp.Query)):
        return []  # @v := <query>: a script-local result, whatever the query
    return [t for t in [_target(tree.this)] if t is not None]


def _path_read(table: exp.Table) -> str | None:
    """``parquet.`oss://b/p``` (a format and a path): the path's URI; a real table: None."""
    parts = table.parts
    if len(parts) == 2 and parts[0].name.lower() in FILE_FORMATS and "/" in parts[1].name:
        return location_uri(parts[1].name)
    return None


def _uri(node: exp.Expr | None, local: bool = False) -> str | None:
    return location_uri(node.name, local) if isinstance(node, exp.Literal) else None


def _table_of(name: str) -> exp.Table:
    """A dotted name from a word pattern as a Table node (so names check like parsed ones)."""
    parts = name.split(".")
    if len(parts) > 3:
        raise StatementError(f"unsupported table name {name!r}")
    return exp.table_(parts[-1], db=parts[-2] if len(parts) > 1 else None, catalog=parts[-3] if len(parts) > 2 else None)


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
