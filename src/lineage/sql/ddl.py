"""What a script's DDL says about table schemas: the column changes of each statement.

MaxCompute's ActionTrail ``CreateTable`` / ``ChangeTable`` events name the table but not its
columns (seed 002: ``OperationText`` is only ``CREATE_TABLE``, ``ALTER_TABLE_ADD_COLUMNS``, ...);
the columns are in the job's SQL. ``schema_changes`` reads them from one parsed statement:
``CREATE TABLE t (...) PARTITIONED BY (...)`` (partition columns last), ``CREATE TABLE t LIKE s``
(when ``s`` is known), ``DROP TABLE``, and ``ALTER TABLE ... ADD COLUMN(S) / DROP COLUMN(S) /
CHANGE [COLUMN] / RENAME COLUMN``. The dialect keeps ``ALTER TABLE`` as a raw command; its text
is parsed again with sqlglot's Spark grammar, which knows these forms. CTAS columns are the
query's outputs (``lineage.sql.columns``). ``apply`` keeps a script's running schema, so later
statements (``INSERT ... SELECT *`` from a table the script created) see the columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType

from lineage.sql.lineage import DIALECT

CREATE, REPLACE, ADD, DROP, CHANGE, DROP_TABLE, UNKNOWN = "create", "replace", "add", "drop", "change", "drop_table", "unknown"
"""``create``: the table's whole schema if it did not exist (``IF NOT EXISTS``); ``replace``: the
whole schema, replacing any earlier one; ``add`` / ``drop`` columns; ``change`` one column (``old``:
its former name; a type); ``drop_table``: every column goes; ``unknown``: the table was (re)created
with columns that cannot be known (a CTAS whose query could not be resolved)."""


@dataclass(frozen=True)
class Col:
    name: str
    type: str | None = None
    partition: bool = False


@dataclass(frozen=True)
class SchemaChange:
    """One statement's change to ``table`` (``project.table``, lower-case)."""

    table: str
    op: str
    columns: tuple[Col, ...] = ()
    old: str | None = None
    statement: int = 0


def schema_changes(tree: exp.Expr, project: str, tables: dict[str, list[str]], index: int = 0) -> list[SchemaChange]:
    """The schema changes of one statement (not CTAS: its columns are the query's)."""
    for kinds, reader in _READERS:
        if isinstance(tree, kinds):
            return [SchemaChange(**{**c.__dict__, "statement": index}) for c in reader(tree, project, tables)]
    return []


def apply(tables: dict[str, list[str]], change: SchemaChange, partitions: dict[str, set[str]]) -> None:
    """``tables`` (``project.table`` -> column names in order, partition columns last) after
    ``change``; ``partitions`` holds which columns are partition columns (added columns go before them)."""
    current = tables.get(change.table)
    if change.op in (REPLACE, DROP_TABLE, UNKNOWN) or (change.op == CREATE and current is None):
        tables.pop(change.table, None)
        partitions.pop(change.table, None)
        if change.op in (REPLACE, CREATE):
            tables[change.table] = [c.name for c in change.columns]
            partitions[change.table] = {c.name for c in change.columns if c.partition}
    elif current is not None and change.op in _ALTER:  # a table of unknown columns stays unknown
        tables[change.table] = _ALTER[change.op](current, change, partitions.get(change.table, set()))


_ALTER = {
    ADD: lambda cols, c, keys: [n for n in cols if n not in keys] + [x.name for x in c.columns if x.name not in cols]
    + [n for n in cols if n in keys],
    DROP: lambda cols, c, _keys: [n for n in cols if n not in {x.name for x in c.columns}],
    CHANGE: lambda cols, c, _keys: [c.columns[0].name if n == c.old else n for n in cols],
}
"""How each ALTER form changes a known column list (``CREATE`` of an existing table changes nothing)."""


def _table(node: exp.Expr | None, project: str) -> str | None:
    if not isinstance(node, exp.Table) or not node.name:
        return None
    parts = [p.name.lower() for p in node.parts]
    return ".".join(([project] if len(parts) == 1 else []) + parts[-2:])


def _type(node: exp.Expr | None) -> str | None:
    return node.sql(dialect=DIALECT).lower() if isinstance(node, exp.DataType) else None


def _col(node: exp.Expr, partition: bool = False) -> Col | None:
    if isinstance(node, exp.ColumnDef) and node.name:
        return Col(node.name.lower(), _type(node.args.get("kind")), partition)
    return None


def _create(tree: exp.Create, project: str, tables: dict[str, list[str]]) -> list[SchemaChange]:
    if (tree.args.get("kind") or "").upper() != "TABLE" or isinstance(tree.expression, exp.Query):
        return []
    op = CREATE if tree.args.get("exists") else REPLACE
    target = tree.this
    if isinstance(target, exp.Schema):
        name = _table(target.this, project)
        data = [c for c in map(_col, target.expressions) if c]
        parts = [c for p in tree.find_all(exp.PartitionedByProperty) if isinstance(p.this, exp.Schema)
                 for c in (_col(e, True) for e in p.this.expressions) if c]
        return [SchemaChange(name, op, tuple(data + parts))] if name else []
    like = next((p for p in (tree.args.get("properties") or exp.Properties()).expressions
                 if isinstance(p, exp.LikeProperty)), None)
    name, source = _table(target, project), _table(like.this if like else None, project)
    if name and source in tables:
        return [SchemaChange(name, op, tuple(Col(c) for c in tables[source]))]
    return []


def _drop(tree: exp.Drop, project: str, _tables: dict[str, list[str]]) -> list[SchemaChange]:
    if (tree.args.get("kind") or "").upper() != "TABLE":
        return []
    return [SchemaChange(name, DROP_TABLE) for t in tree.args.get("tables") or () if (name := _table(t, project))]


def _alter(tree: exp.Command, project: str, tables: dict[str, list[str]]) -> list[SchemaChange]:
    """``ALTER TABLE`` column forms, parsed again with the Spark grammar (the dialect keeps a Command)."""
    if str(tree.this).upper() != "ALTER":
        return []
    alter = _spark_alter(f"ALTER {tree.expression}")
    name = _table(alter.this, project) if alter is not None else None
    if name is None:
        return []
    out = []
    for action in alter.args.get("actions") or ():
        if isinstance(action, exp.Schema):  # ADD COLUMNS (a T, b T)
            out.append(SchemaChange(name, ADD, tuple(c for c in map(_col, action.expressions) if c)))
        elif isinstance(action, exp.ColumnDef):  # ADD COLUMN a T
            out.append(SchemaChange(name, ADD, tuple(c for c in [_col(action)] if c)))
        elif isinstance(action, exp.Drop) and (action.args.get("kind") or "").upper().startswith("COLUMN"):
            dropped = [n for t in action.args.get("tables") or () for n in _names(t)]
            out.append(SchemaChange(name, DROP, tuple(Col(n) for n in dropped)))
        elif isinstance(action, exp.AlterColumn) and action.args.get("rename_to") is not None:  # CHANGE a b T
            out.append(SchemaChange(name, CHANGE, (Col(action.args["rename_to"].name.lower(), _type(action.args.get("dtype"))),),
                                    old=action.name.lower()))
        elif isinstance(action, exp.RenameColumn):
            out.append(SchemaChange(name, CHANGE, (Col(action.args["to"].name.lower()),), old=action.this.name.lower()))
    return out


def _names(node: exp.Expr) -> list[str]:
    if isinstance(node, exp.Schema):
        return [e.name.lower() for e in node.expressions if e.name]
    return [node.name.lower()] if node.name else []


def _spark_alter(text: str) -> exp.Alter | None:
    """The statement as Spark's grammar reads it; ``ADD COLUMNS IF NOT EXISTS`` (MaxCompute only)
    is read without its ``IF NOT EXISTS`` tokens."""
    try:
        tokens = sqlglot.Dialect.get_or_raise("spark").tokenize(text)
    except SqlglotError:
        return None
    words = [t.text.upper() for t in tokens]
    for i in range(len(tokens) - 3):
        if words[i] in ("COLUMNS", "COLUMN") and words[i + 1:i + 4] == ["IF", "NOT", "EXISTS"]:
            text = text[:tokens[i + 1].start] + text[tokens[i + 3].end + 1:]
            break
    try:
        tree = sqlglot.parse_one(text, read="spark", error_level=sqlglot.ErrorLevel.IGNORE)
    except SqlglotError:
        return None
    return tree if isinstance(tree, exp.Alter) and not any(t.token_type == TokenType.SEMICOLON for t in tokens) else None


_READERS = (
    (exp.Create, _create),
    (exp.Drop, _drop),
    (exp.Command, _alter),
)
