"""Every statement kind of MaxCompute / Hive / Spark SQL a job runs, as one table.

Each row of ``KINDS`` names a kind, says what it does to stored data -- ``data`` (reads or
changes rows or files: the lineage comes from these), ``schema`` (creates, drops or changes the
definition of a table, view, column, partition or other object) or ``none`` (session settings,
resources, describes: nothing stored changes) -- and how its reads and writes are found:

* ``tree``: the statement is a sqlglot tree (``INSERT``, ``MERGE``, CTAS, ...); the written
  table is the statement's target, every other table in it is read;
* ``words``: the dialect keeps the statement as a raw ``Command`` (MaxCompute's ``ALTER TABLE``
  forms, ``CLONE``, ``LOAD ... FROM LOCATION``, ``UNLOAD``, ``ADD JAR``); a word pattern names the
  parts: ``{target}`` / ``{source}`` a table written / read, ``<in>`` / ``<out>`` a storage path
  read / written, ``(query)`` a parenthesized query whose tables are read;
* ``none``: nothing is read or written.

The first matching row wins, so specific rows come before the catch-alls. A statement no row
matches is reported as unparsable (never guessed).

Word patterns, space-separated items: ``WORD`` (case-insensitive; ``A|B`` either), ``{role}`` a
dotted name (``{_}`` not kept), ``()`` a parenthesized group, ``(query)`` one kept, ``<in>`` /
``<out>`` a string literal, ``[items]`` optional items, ``...`` any units up to what follows.
A pattern matches a prefix of the statement: the rest is not read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

from lineage.sql.dialect import Assignment

DATA, SCHEMA, NONE = "data", "schema", "none"
EFFECTS = (DATA, SCHEMA, NONE)


@dataclass(frozen=True)
class Kind:
    """One statement kind: ``name`` (fine), ``kind`` (the coarse kind ``StatementLineage`` reports),
    ``effect`` (data / schema / none), how it is recognised and where its lineage comes from."""

    name: str
    kind: str
    effect: str
    example: str
    tree: type[exp.Expr] | tuple[type[exp.Expr], ...] = exp.Command
    when: Callable[[exp.Expr, tuple[Token, ...]], bool] | None = None
    words: tuple[str, ...] = ()
    lineage: str = "none"  # tree | words | none

    def __post_init__(self) -> None:
        if self.effect not in EFFECTS or self.lineage not in ("tree", "words", "none"):
            raise ValueError(f"kind {self.name}: bad effect {self.effect!r} or lineage {self.lineage!r}")
        if bool(self.words) != (self.tree is exp.Command):
            raise ValueError(f"kind {self.name}: word patterns are for Command statements only")


@dataclass(frozen=True)
class Unit:
    """One unit of a statement's words: a word, a ``.``, a string literal or a parenthesized group."""

    kind: str  # word | dot | string | group
    text: str
    tokens: tuple[Token, ...] = ()


@dataclass
class Match:
    """What a word pattern captured: names by role, storage paths, kept query groups."""

    names: dict[str, list[str]] = field(default_factory=dict)
    reads_at: list[str] = field(default_factory=list)
    writes_at: list[str] = field(default_factory=list)
    queries: list[tuple[Token, ...]] = field(default_factory=list)


# --- predicates over parsed trees (named, so the table stays readable) -------------------------


def _create_kind(tree: exp.Expr) -> str:
    return str(tree.args.get("kind") or "").upper()


def _is_query_create(tree: exp.Expr, kind: str) -> bool:
    return isinstance(tree.expression, exp.Query) and _create_kind(tree) == kind


def is_ctas(tree: exp.Expr, _tokens: tuple[Token, ...] = ()) -> bool:
    return _is_query_create(tree, "TABLE")


def is_create_view_as(tree: exp.Expr, _tokens: tuple[Token, ...] = ()) -> bool:
    return _is_query_create(tree, "VIEW")


def _plain_create(tree: exp.Expr) -> bool:
    return not isinstance(tree.expression, exp.Query) and _create_kind(tree) == "TABLE"


def is_create_like(tree: exp.Expr, _tokens: tuple[Token, ...] = ()) -> bool:
    props = tree.args.get("properties")
    return _plain_create(tree) and bool(props) and any(isinstance(p, exp.LikeProperty) for p in props.expressions)


def is_create_at_location(tree: exp.Expr, _tokens: tuple[Token, ...] = ()) -> bool:
    """An external table (``CREATE EXTERNAL TABLE``) or any table with a ``LOCATION``."""
    props = tree.args.get("properties")
    found = props.expressions if props else []
    return _plain_create(tree) and any(isinstance(p, (exp.LocationProperty, exp.ExternalProperty)) for p in found)


def is_create_table(tree: exp.Expr, _tokens: tuple[Token, ...] = ()) -> bool:
    return _plain_create(tree)


def is_create_other(tree: exp.Expr, _tokens: tuple[Token, ...] = ()) -> bool:
    """CREATE FUNCTION / SCHEMA / RESOURCE ...: no query, not a table."""
    return not isinstance(tree.expression, exp.Query) and _create_kind(tree) != "TABLE"


def is_into_directory(tree: exp.Expr, _tokens: tuple[Token, ...] = ()) -> bool:
    return isinstance(tree.this, exp.Directory)


def holds_query(tree: exp.Expr, _tokens: tuple[Token, ...] = ()) -> bool:
    return any(isinstance(action, exp.Query) for action in tree.args.get("actions") or [])


def holds_no_select(_tree: exp.Expr, tokens: tuple[Token, ...]) -> bool:
    """A raw-command fallback of a DDL verb is DDL only without a query (a CTAS sqlglot could
    not parse falls back to a CREATE command too: that one is unparsable, not DDL)."""
    return not any(t.token_type == TokenType.SELECT for t in tokens)


# --- the table ---------------------------------------------------------------------------------

KINDS: tuple[Kind, ...] = (
    # parsed trees: queries and DML
    Kind("script_assignment", "select", DATA, "@v := SELECT * FROM t", Assignment, lineage="tree"),
    Kind("multi_insert", "insert", DATA, "FROM s INSERT OVERWRITE TABLE a SELECT .. INSERT INTO b SELECT ..",
         exp.MultitableInserts, lineage="tree"),
    Kind("insert_directory", "insert", DATA, "INSERT OVERWRITE DIRECTORY 'oss://b/p' SELECT * FROM t",
         exp.Insert, is_into_directory, lineage="tree"),
    Kind("insert", "insert", DATA, "INSERT INTO|OVERWRITE TABLE t PARTITION (ds='1', hh) SELECT ... | VALUES ...",
         exp.Insert, lineage="tree"),
    Kind("ctas", "ctas", DATA, "CREATE TABLE t LIFECYCLE 7 AS SELECT * FROM s", exp.Create, is_ctas, lineage="tree"),
    Kind("create_view", "create_view", DATA, "CREATE [MATERIALIZED] VIEW v AS SELECT * FROM t",
         exp.Create, is_create_view_as, lineage="tree"),
    Kind("alter_view_as", "create_view", DATA, "ALTER VIEW v AS SELECT * FROM t", exp.Alter, holds_query, lineage="tree"),
    Kind("merge", "merge", DATA, "MERGE INTO t USING s ON ... WHEN MATCHED THEN UPDATE ...", exp.Merge, lineage="tree"),
    Kind("update", "update", DATA, "UPDATE t SET a = s.a FROM s WHERE t.id = s.id", exp.Update, lineage="tree"),
    Kind("delete", "delete", DATA, "DELETE FROM t WHERE id IN (SELECT id FROM s)", exp.Delete, lineage="tree"),
    Kind("load_data", "load", DATA, "LOAD DATA [LOCAL] INPATH '/p' [OVERWRITE] INTO TABLE t", exp.LoadData,
         lineage="tree"),
    Kind("select", "select", DATA, "SELECT * FROM t JOIN parquet.`oss://b/p` ...", exp.Query, lineage="tree"),
    Kind("truncate", "ddl", DATA, "TRUNCATE TABLE t [PARTITION (...)]", exp.TruncateTable),
    # parsed trees: definitions
    Kind("create_table_like", "create_table", SCHEMA, "CREATE TABLE t LIKE s", exp.Create, is_create_like,
         lineage="tree"),
    Kind("create_external_table", "create_table", SCHEMA, "CREATE EXTERNAL TABLE t (...) LOCATION 'oss://b/p'",
         exp.Create, is_create_at_location, lineage="tree"),
    Kind("create_table", "create_table", SCHEMA, "CREATE TABLE t (a BIGINT) PARTITIONED BY (ds STRING)",
         exp.Create, is_create_table, lineage="tree"),
    Kind("create_other", "ddl", SCHEMA, "CREATE FUNCTION f AS 'x' USING 'f.jar'", exp.Create, is_create_other),
    Kind("drop", "ddl", SCHEMA, "DROP TABLE|VIEW|FUNCTION [IF EXISTS] t", exp.Drop),
    Kind("comment", "ddl", SCHEMA, "COMMENT ON TABLE t IS '...'", exp.Comment),
    # parsed trees: nothing stored changes
    Kind("use", "ddl", NONE, "USE project", exp.Use),
    Kind("analyze", "ddl", NONE, "ANALYZE TABLE t COMPUTE STATISTICS", exp.Analyze),
    Kind("cache", "ddl", NONE, "REFRESH|CACHE|UNCACHE TABLE t", (exp.Refresh, exp.Cache, exp.Uncache)),
    # raw commands: data moves
    Kind("exchange_partition", "exchange", DATA, "ALTER TABLE t1 EXCHANGE PARTITION (ds='1') WITH TABLE t2",
         words=("ALTER TABLE {target} EXCHANGE PARTITION () WITH TABLE {source}",), lineage="words"),
    Kind("clone_table", "clone", DATA, "CLONE TABLE s [PARTITION (...)] TO t [IF EXISTS OVERWRITE]",
         words=("CLONE TABLE {source} ... TO {target}",), lineage="words"),
    Kind("load_location", "load", DATA, "LOAD OVERWRITE|INTO TABLE t [PARTITION (...)] FROM LOCATION 'oss://b/p' ...",
         words=("LOAD OVERWRITE|INTO TABLE {target} ... FROM LOCATION <in>",), lineage="words"),
    Kind("unload", "unload", DATA, "UNLOAD FROM t | (SELECT ...) [PARTITION (...)] INTO LOCATION 'oss://b/p' ...",
         words=("UNLOAD FROM (query) INTO LOCATION <out>", "UNLOAD FROM {source} ... INTO LOCATION <out>"),
         lineage="words"),
    Kind("alter_drop_partition", "ddl", DATA, "ALTER TABLE t DROP [IF EXISTS] PARTITION (...)",
         words=("ALTER TABLE {_} DROP [IF EXISTS] PARTITION",)),
    Kind("alter_set_location", "ddl", SCHEMA, "ALTER TABLE t SET LOCATION 'oss://b/p'",
         words=("ALTER TABLE {target} SET LOCATION <in>",), lineage="words"),
    # raw commands: definitions
    Kind("alter_rename", "ddl", SCHEMA, "ALTER TABLE|VIEW t RENAME TO t2",
         words=("ALTER TABLE|VIEW {_} RENAME TO",)),
    Kind("alter_add_column", "ddl", SCHEMA, "ALTER TABLE t ADD COLUMNS [IF NOT EXISTS] (a BIGINT)",
         words=("ALTER TABLE {_} ADD COLUMNS|COLUMN",)),
    Kind("alter_drop_column", "ddl", SCHEMA, "ALTER TABLE t DROP COLUMNS|COLUMN a, b",
         words=("ALTER TABLE {_} DROP COLUMNS|COLUMN",)),
    Kind("alter_owner", "ddl", SCHEMA, "ALTER TABLE t CHANGEOWNER TO 'user'",
         words=("ALTER ... CHANGEOWNER TO", "ALTER ... CHANGE OWNER TO")),
    Kind("alter_change_column", "ddl", SCHEMA, "ALTER TABLE t CHANGE [COLUMN] a b BIGINT | RENAME COLUMN | REPLACE COLUMNS",
         words=("ALTER TABLE {_} CHANGE", "ALTER TABLE {_} RENAME COLUMN", "ALTER TABLE {_} REPLACE COLUMNS",
                "ALTER TABLE {_} ALTER COLUMN")),
    Kind("alter_add_partition", "ddl", SCHEMA, "ALTER TABLE t ADD [IF NOT EXISTS] PARTITION (...) [LOCATION '...']",
         words=("ALTER TABLE {_} ADD [IF NOT EXISTS] PARTITION",)),
    Kind("alter_merge_smallfiles", "ddl", NONE, "ALTER TABLE t [PARTITION (...)] MERGE SMALLFILES | COMPACT major",
         words=("ALTER TABLE {_} [PARTITION ()] MERGE SMALLFILES", "ALTER TABLE {_} [PARTITION ()] COMPACT")),
    Kind("alter_other", "ddl", SCHEMA, "ALTER TABLE t SET LIFECYCLE 30 | SET TBLPROPERTIES | TOUCH | ...",
         words=("ALTER",)),
    Kind("ddl_command", "ddl", SCHEMA, "CREATE RESOURCE | DROP OFFLINEMODEL | ... (sqlglot: a raw command), no query",
         when=holds_no_select, words=("CREATE|DROP|TRUNCATE|COMMENT",)),
    # raw commands: nothing stored changes
    Kind("add_resource", "ddl", NONE, "ADD JAR|FILE|ARCHIVE|PY|TABLE x [AS alias]",
         words=("ADD JAR|FILE|ARCHIVE|PY|TABLE",)),
    Kind("msck", "ddl", NONE, "MSCK [REPAIR] TABLE t [ADD PARTITIONS]", words=("MSCK",)),
    Kind("set", "other", NONE, "SET odps.sql.allow.fullscan=true", words=("SET",)),
    Kind("explain", "other", NONE, "EXPLAIN SELECT ...", words=("EXPLAIN",)),
    Kind("describe", "ddl", NONE, "DESC [EXTENDED] t | DESC PROJECT p | DESC INSTANCE i", when=holds_no_select,
         words=("DESC|DESCRIBE",)),
    Kind("show", "ddl", NONE, "SHOW GRANTS | SHOW CREATE TABLE t", words=("SHOW",)),
    Kind("whoami", "ddl", NONE, "WHOAMI", words=("WHOAMI",)),
    Kind("privilege", "ddl", NONE, "GRANT ... TO USER u | REVOKE ...", words=("GRANT|REVOKE",)),
    Kind("admin_command", "ddl", NONE, "LIST RESOURCES | REMOVE | KILL i | PURGE | TUNNEL ...",
         words=("LIST|REMOVE|KILL|PURGE|TUNNEL",)),
)
"""The statement kinds, specific before general: the first row that matches decides."""

BY_NAME: dict[str, Kind] = {k.name: k for k in KINDS}


def classify(tree: exp.Expr, tokens: tuple[Token, ...]) -> tuple[Kind, Match] | None:
    """The first row that matches the statement, and what its word pattern captured."""
    units = _units(tokens) if isinstance(tree, exp.Command) else []
    for kind in KINDS:
        if not isinstance(tree, kind.tree) or (kind.when is not None and not kind.when(tree, tokens)):
            continue
        if not kind.words:
            return kind, Match()
        for pattern in kind.words:
            found = match_words(pattern, units)
            if found is not None:
                return kind, found
    return None


# --- word patterns -----------------------------------------------------------------------------


def _units(tokens: tuple[Token, ...]) -> list[Unit]:
    """Words (multi-word command tokens such as ``ADD JAR`` split), dots, strings, paren groups."""
    units: list[Unit] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.token_type == TokenType.L_PAREN:
            depth, j = 0, i
            while j < len(tokens):
                depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(tokens[j].token_type, 0)
                if depth == 0:
                    break
                j += 1
            units.append(Unit("group", "()", tuple(tokens[i + 1 : j])))
            i = j + 1
            continue
        if token.token_type == TokenType.DOT:
            units.append(Unit("dot", "."))
        elif token.token_type == TokenType.STRING:
            units.append(Unit("string", token.text))
        elif token.token_type == TokenType.IDENTIFIER:
            units.append(Unit("word", token.text))  # a backquoted name: never a keyword
        else:
            units.extend(Unit("word", word) for word in token.text.split())
        i += 1
    return units


def _items(pattern: str) -> list[str | list]:
    """``A [B C] D`` -> ``["A", ["B", "C"], "D"]`` (one level of optional brackets)."""
    items: list[str | list] = []
    group: list[str] | None = None
    for word in pattern.split():
        if word.startswith("["):
            group = []
            word = word[1:]
        closing = word.endswith("]")
        word = word.rstrip("]")
        (group if group is not None else items).append(word)
        if closing and group is not None:
            items.append(group)
            group = None
    return items


def match_words(pattern: str, units: list[Unit]) -> Match | None:
    """Captures of ``pattern`` matched against a prefix of ``units``; None when it does not match."""
    found = Match()
    return found if _match(_items(pattern), units, 0, found) else None


def _match(items: list, units: list[Unit], pos: int, found: Match) -> bool:
    if not items:
        return True
    item, rest = items[0], items[1:]
    if isinstance(item, list):  # optional: with it, else without it
        trial = Match()
        if _match(item + rest, units, pos, trial):
            _merge(found, trial)
            return True
        return _match(rest, units, pos, found)
    if item == "...":
        for start in range(pos, len(units) + 1):
            trial = Match()
            if _match(rest, units, start, trial):
                _merge(found, trial)
                return True
        return False
    end = _match_one(item, units, pos, found)
    return end is not None and _match(rest, units, end, found)


def _match_one(item: str, units: list[Unit], pos: int, found: Match) -> int | None:
    """Position after ``item`` matched at ``pos`` (recording captures), else None."""
    if pos >= len(units):
        return None
    unit = units[pos]
    if item.startswith("{"):
        if unit.kind != "word":
            return None
        parts, end = [unit.text], pos + 1
        while end + 1 < len(units) and units[end].kind == "dot" and units[end + 1].kind == "word":
            parts.append(units[end + 1].text)
            end += 2
        found.names.setdefault(item.strip("{}"), []).append(".".join(parts))
        return end
    if item in ("<in>", "<out>"):
        if unit.kind != "string":
            return None
        (found.reads_at if item == "<in>" else found.writes_at).append(unit.text)
        return pos + 1
    if item in ("()", "(query)"):
        if unit.kind != "group":
            return None
        if item == "(query)":
            found.queries.append(unit.tokens)
        return pos + 1
    if unit.kind == "word" and unit.text.upper() in item.split("|"):
        return pos + 1
    return None


def _merge(into: Match, other: Match) -> None:
    for role, names in other.names.items():
        into.names.setdefault(role, []).extend(names)
    into.reads_at.extend(other.reads_at)
    into.writes_at.extend(other.writes_at)
    into.queries.extend(other.queries)
