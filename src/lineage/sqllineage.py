"""Table lineage out of SQL text (MaxCompute OperationText, DataWorks sqlText) with sqlglot.

MaxCompute SQL is parsed with sqlglot's ``hive`` dialect (sqlglot has no ODPS/MaxCompute
dialect; Hive is the closest relative). Everything MaxCompute-specific is bridged by a few
documented steps that never look for table names themselves:

* DataWorks scheduling variables ``${name}`` / ``$[expr]`` are replaced *as text* by a marked
  identifier before tokenizing, exactly as DataWorks substitutes them before submitting the
  SQL. ``ds=${bizdate}`` and ``ds='${bizdate}'`` both parse; a table name that contains the
  marker is reported as "table name is a variable", never guessed.
* The script is tokenized once by sqlglot and split on ``;`` tokens, so semicolons inside
  strings and comments are safe and each statement can fail on its own.
* ``SET ...`` statements are skipped (kind ``other``); admin verbs sqlglot cannot parse
  (SHOW, GRANT, REVOKE, WHOAMI, ...) are ``ddl`` by their first token.
* ``LIFECYCLE n`` in CREATE statements is dropped at token level (sqlglot does not know it).
* Script-mode assignments ``@v := SELECT ...`` are parsed without the ``@v :=`` tokens; later
  ``FROM @v`` references are script-local results, not tables.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

# sqlglot warns on every statement it can only keep as a raw command; we report those ourselves
logging.getLogger("sqlglot").setLevel(logging.ERROR)


@dataclass(frozen=True)
class StatementLineage:
    """One statement: its kind, tables read and written.

    Kinds: insert, ctas, create_view, select, merge, update, delete, load, ddl, other.
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


# The dialect object is immutable configuration; tokenizers and parsers are made per call.
_DIALECT = Dialect.get_or_raise("hive")

# Marks a substituted scheduling variable; "__lineage_var_3__" is the 4th variable.
_VAR_MARK = "__lineage_var_"
_VAR_CLOSERS = {"${": "}", "$[": "]"}

# Statements that never move data and that sqlglot only knows as raw commands: classified by
# their first word without parsing (avoids sqlglot's "unsupported syntax" fallback and its
# warning). ALTER without a SELECT is treated the same way: MaxCompute has many ALTER forms
# sqlglot does not know (SET LIFECYCLE, TOUCH, MERGE SMALLFILES, CHANGE OWNER ...).
_ADMIN_VERBS = frozenset(
    {"SHOW", "GRANT", "REVOKE", "WHOAMI", "LIST", "ADD", "REMOVE", "KILL", "PURGE", "MSCK", "TUNNEL"}
)
_OTHER_VERBS = frozenset({"SET", "EXPLAIN"})
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


class _StatementError(Exception):
    """A statement whose lineage cannot be known; the message goes into ``errors``."""


def table_lineage(sql: str, default_project: str | None = None) -> SqlLineage:
    """Reads and writes of every statement of ``sql``; unparsable statements become errors."""
    text, variables = _substitute_variables(sql or "")
    chunks, token_error = _split_statements(text)
    project = default_project.lower() if default_project else None
    statements: list[StatementLineage] = []
    errors: list[str] = []
    table_vars: set[str] = set()
    for index, tokens in enumerate(chunks, start=1):
        assigned = _assigned_variable(tokens)
        if assigned:
            table_vars.add(assigned)
        try:
            statements.append(_analyse(index, tokens, text, _Names(project, variables, frozenset(table_vars))))
        except _StatementError as e:
            errors.append(f"statement {index}: {e}")
    if token_error is not None:
        errors.append(f"statement {len(chunks) + 1}: {token_error} (rest of the script not analysed)")
    return SqlLineage(
        reads=_sorted(name for s in statements for name in s.reads),
        writes=_sorted(name for s in statements for name in s.writes),
        statements=tuple(statements),
        errors=tuple(errors),
    )


# --- pre-processing -------------------------------------------------------------------------


def _substitute_variables(sql: str) -> tuple[str, tuple[str, ...]]:
    """Replace DataWorks ``${x}``/``$[x]`` by marked identifiers, as DataWorks does textually.

    Returns the new text and the original variable texts (indexed by the marker number).
    A variable must close on its own line; otherwise the text is left as it is.
    """
    pieces: list[str] = []
    originals: list[str] = []
    pos = 0
    while True:
        start, opener = _next_variable(sql, pos)
        if start < 0:
            break
        close = sql.find(_VAR_CLOSERS[opener], start + 2)
        if close < 0 or "\n" in sql[start:close]:
            pieces.append(sql[pos : start + 2])
            pos = start + 2
            continue
        pieces.append(sql[pos:start])
        pieces.append(f"{_VAR_MARK}{len(originals)}__")
        originals.append(sql[start : close + 1])
        pos = close + 1
    pieces.append(sql[pos:])
    return "".join(pieces), tuple(originals)


def _next_variable(sql: str, pos: int) -> tuple[int, str]:
    """Position and opener of the next ``${``/``$[`` at or after ``pos`` (-1 if none)."""
    found = [(i, opener) for opener in _VAR_CLOSERS if (i := sql.find(opener, pos)) >= 0]
    return min(found) if found else (-1, "")


def _split_statements(sql: str) -> tuple[list[list[Token]], str | None]:
    """Non-empty statements as token lists, split on ``;`` tokens, plus a tokenizer error.

    On a tokenizer error (unterminated string/comment) the statements completed before it are
    still returned; the broken statement is the next one and everything after it is lost.
    """
    tokenizer = _DIALECT.tokenizer()
    error: str | None = None
    try:
        tokens = tokenizer.tokenize(sql)
    except TokenError as e:
        tokens, error = list(tokenizer.tokens), _first_line(e)
    chunks: list[list[Token]] = [[]]
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            chunks.append([])
        else:
            chunks[-1].append(token)
    if error is not None:
        chunks.pop()  # the unfinished statement: reported as the error
    return [chunk for chunk in chunks if chunk], error


def _assigned_variable(tokens: list[Token]) -> str | None:
    """Name of a MaxCompute script assignment ``@name := ...``, else None."""
    if (
        len(tokens) >= 3
        and tokens[0].token_type == TokenType.PARAMETER
        and tokens[0].text == "@"
        and tokens[2].token_type == TokenType.COLON_EQ
    ):
        return tokens[1].text.lower()
    return None


def _drop_lifecycle(tokens: list[Token]) -> list[Token]:
    """Remove MaxCompute's ``LIFECYCLE <days>`` clause (unknown to sqlglot) from a CREATE."""
    out: list[Token] = []
    skip_next = False
    for i, token in enumerate(tokens):
        if skip_next:
            skip_next = False
            continue
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        if (
            token.token_type == TokenType.VAR
            and token.text.upper() == "LIFECYCLE"
            and following is not None
            and (following.token_type == TokenType.NUMBER or following.text.startswith(_VAR_MARK))
        ):
            skip_next = True
            continue
        out.append(token)
    return out


# --- one statement --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Names:
    """What naming a table needs: default project, variable texts, script table variables."""

    project: str | None
    variables: tuple[str, ...]
    table_vars: frozenset[str]


def _analyse(index: int, tokens: list[Token], sql: str, names: _Names) -> StatementLineage:
    """Lineage of one statement; raises _StatementError when it cannot be known."""
    verb = tokens[0].text.upper()
    if verb in _OTHER_VERBS:
        return StatementLineage(index, "other", (), ())
    if verb in _ADMIN_VERBS or (verb == "ALTER" and not _has_query(tokens)):
        return StatementLineage(index, "ddl", (), ())
    assigned = _assigned_variable(tokens)
    if assigned:
        tokens = tokens[3:]
        if not tokens:
            raise _StatementError(f"nothing assigned to @{assigned}")
    if verb == "CREATE":
        tokens = _drop_lifecycle(tokens)
    tree = _parse(tokens, sql)
    kind, targets = ("select", []) if assigned else _classify(tree, tokens)
    if kind in ("ddl", "other"):
        return StatementLineage(index, kind, (), ())
    target_ids = {id(t) for t in targets}
    writes = [_table_name(t, names) for t in targets]
    reads = [_table_name(t, names) for t in _source_tables(tree, names.table_vars) if id(t) not in target_ids]
    return StatementLineage(index, kind, _sorted(reads), _sorted(writes))


def _parse(tokens: list[Token], sql: str) -> exp.Expr:
    """Parse one statement's tokens into exactly one tree."""
    try:
        trees = [tree for tree in _DIALECT.parser().parse(tokens, sql) if tree is not None]
    except (ParseError, TokenError) as e:
        raise _StatementError(_first_line(e)) from None
    if len(trees) != 1:
        raise _StatementError(f"expected one statement, parsed {len(trees)}")
    return trees[0]


def _classify(tree: exp.Expr, tokens: list[Token]) -> tuple[str, list[exp.Table]]:
    """Statement kind and the Table nodes it writes."""
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
    raise _StatementError(f"not a supported SQL statement (parsed as {type(tree).__name__})")


def _classify_create(tree: exp.Create) -> tuple[str, list[exp.Table]]:
    """CTAS and CREATE VIEW write their target; every other CREATE is DDL."""
    if not isinstance(tree.expression, exp.Query):
        return "ddl", []
    kind = {"TABLE": "ctas", "VIEW": "create_view"}.get(str(tree.args.get("kind") or "").upper())
    if kind is None:
        raise _StatementError(f"unsupported CREATE {tree.args.get('kind')} ... AS query")
    return kind, [t for t in [_target(tree.this)] if t is not None]


def _classify_command(tree: exp.Command, tokens: list[Token]) -> str:
    """A raw-command fallback is DDL only if it is a DDL verb and holds no query."""
    if str(tree.this).upper() in _DDL_COMMANDS and not _has_query(tokens):
        return "ddl"
    raise _StatementError(f"unsupported syntax: sqlglot could not parse this {tree.this} statement")


def _has_query(tokens: list[Token]) -> bool:
    """Whether a statement contains a SELECT, i.e. could move data."""
    return any(t.token_type == TokenType.SELECT for t in tokens)


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


def _table_name(table: exp.Table, names: _Names) -> str:
    """``project.table`` (or ``project.schema.table``), lower-cased; variables are errors."""
    if isinstance(table.this, exp.Parameter):
        raise _StatementError(f"table name is a variable ({table.this.name})")
    parts = table.parts
    if not 1 <= len(parts) <= 3 or not all(isinstance(p, exp.Identifier) for p in parts):
        raise _StatementError(f"unsupported table name {table.sql(dialect=_DIALECT)!r}")
    words = [p.name.lower() for p in parts]
    for word in words:
        if _VAR_MARK in word:
            raise _StatementError(f"table name is a variable ({_variable_text(word, names.variables)})")
    if len(words) == 1 and names.project:
        words.insert(0, names.project)
    return ".".join(words)


def _variable_text(word: str, variables: tuple[str, ...]) -> str:
    """The original ``${...}`` text behind a marked identifier."""
    found = [text for i, text in enumerate(variables) if f"{_VAR_MARK}{i}__" in word]
    return ", ".join(found) or word


def _sorted(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(names)))


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
