"""MaxCompute's privilege statements: GRANT / REVOKE (ACLs, roles, labels) and SET LABEL.

MaxCompute's DCL is its own (``grant select on table t(c1) to user RAM$x@y.com``,
``GRANT LABEL 2 ... WITH EXP 5``, ``SET LABEL 3 TO TABLE t(c1)``); sqlglot knows it only as an
opaque ``Command``. So it is read by walking the ``MaxCompute`` dialect's tokens (backtick
identifiers, double-quoted strings) -- never by regexes over SQL text. Principal names are free
text (``ALIYUN$bob@x.com``, ``RAM$a@b.com:sub``) and are taken from the source text they span.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from lineage.sql.dialect import MaxCompute

_QUOTED = (TokenType.STRING, TokenType.IDENTIFIER)
OBJECT_TYPES = frozenset({"TABLE", "PROJECT", "RESOURCE", "FUNCTION", "INSTANCE", "PACKAGE"})
"""Words of ``ON <type> <name>`` read as the object's type."""


@dataclass(frozen=True)
class Principal:
    kind: str  # "user" | "role" ("user" when the statement names none)
    name: str


@dataclass(frozen=True)
class PrivilegeStatement:
    """What a MaxCompute GRANT/REVOKE/SET LABEL says (every name as written, privileges lower-case).

    ``grant select, update on table t(c1) to user x``: privileges (select, update), object (table,
    t), columns (c1), principals (user x). ``grant r1 to x``: privileges hold the role names and
    there is no object. ``GRANT LABEL 2 ON TABLE t TO USER x WITH EXP 5``: label 2, exp_days 5.
    ``SET LABEL 3 TO TABLE t(c1)`` / ``SET LABEL 3 TO USER x``: a label and its target.
    """

    verb: str
    privileges: tuple[str, ...] = ()
    label: str | None = None
    object_type: str | None = None
    object_name: str | None = None
    columns: tuple[str, ...] = ()
    principals: tuple[Principal, ...] = ()
    exp_days: int | None = None


def _word(token: Token) -> str:
    """A token's keyword spelling (upper-case); quoted names are never keywords."""
    return "" if token.token_type in _QUOTED else token.text.upper()


def _split(tokens: list[Token], sep: TokenType = TokenType.COMMA) -> list[list[Token]]:
    """Split at ``sep`` outside parentheses."""
    parts: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        if token.token_type == TokenType.L_PAREN:
            depth += 1
        elif token.token_type == TokenType.R_PAREN:
            depth -= 1
        if token.token_type == sep and depth == 0:
            parts.append([])
        else:
            parts[-1].append(token)
    return [part for part in parts if part]


def _name(tokens: list[Token], sql: str) -> str | None:
    """A name as written: one quoted token's content, else the source text the tokens span."""
    if not tokens:
        return None
    if len(tokens) == 1 and tokens[0].token_type in _QUOTED:
        return tokens[0].text
    if all(t.token_type in (*_QUOTED, TokenType.DOT) or t.text.isidentifier() for t in tokens):
        return "".join(t.text for t in tokens)  # a dotted name: p.t, `p`.`t`
    return sql[tokens[0].start: tokens[-1].end + 1].strip() or None


def _name_and_columns(tokens: list[Token], sql: str) -> tuple[str | None, tuple[str, ...]]:
    """``t(c1, c2)`` -> ("t", ("c1", "c2"))."""
    for index, token in enumerate(tokens):
        if token.token_type == TokenType.L_PAREN:
            inner = [t for t in tokens[index + 1:] if t.token_type != TokenType.R_PAREN]
            columns = tuple(c for c in (_name(part, sql) for part in _split(inner)) if c)
            return _name(tokens[:index], sql), columns
    return _name(tokens, sql), ()


def _principals(tokens: list[Token], sql: str) -> tuple[Principal, ...]:
    out = []
    for part in _split(tokens):
        kind = "user"
        if _word(part[0]) in ("USER", "ROLE") and len(part) > 1:
            kind, part = _word(part[0]).lower(), part[1:]
        name = _name(part, sql)
        if name:
            out.append(Principal(kind, name))
    return tuple(out)


def _clauses(tokens: list[Token]) -> dict[str, list[Token]]:
    """Tokens after the verb grouped by clause: head (privileges/label), on, to (TO/FROM), with, properties.

    Principal names are free text (``ALIYUN$bob@x.com``), so once TO/FROM is seen only WITH EXP /
    WITH GRANT and PRIVILEGEPROPERTIES end the clause.
    """
    clauses: dict[str, list[Token]] = {"head": []}
    current = "head"
    for index, token in enumerate(tokens):
        word = _word(token)
        following = _word(tokens[index + 1]) if index + 1 < len(tokens) else ""
        if current == "head" and word == "ON":
            current = "on"
        elif current in ("head", "on") and word in ("TO", "FROM"):
            current = "to"
        elif current == "to" and word == "WITH" and following in ("EXP", "GRANT"):
            current = "with"
        elif word == "PRIVILEGEPROPERTIES":
            current = "properties"
        else:
            clauses.setdefault(current, []).append(token)
            continue
        clauses.setdefault(current, [])
    return clauses


def parse_privilege_statement(sql: str | None) -> PrivilegeStatement | None:
    """The first statement of ``sql`` as a ``PrivilegeStatement``; None when it is not one."""
    if not sql or not sql.strip():
        return None
    try:
        tokens = MaxCompute().tokenize(sql)
    except (SqlglotError, ValueError):
        return None
    statements = _split(tokens, TokenType.SEMICOLON)
    if not statements:
        return None
    tokens = statements[0]
    verb = _word(tokens[0]).lower()
    if verb not in ("grant", "revoke", "set"):
        return None
    clauses = _clauses(tokens[1:])
    head = clauses["head"]
    label = None
    privileges: tuple[str, ...] = ()
    if head and _word(head[0]) == "LABEL":
        label = _name(head[1:2], sql)
    else:
        privileges = tuple(
            p.lower() for p in (_name_and_columns(part, sql)[0] for part in _split(head)) if p)
    object_type = object_name = None
    columns: tuple[str, ...] = ()
    target = clauses.get("on", [])
    principals_tokens = clauses.get("to", [])
    if verb == "set" and principals_tokens and _word(principals_tokens[0]) != "USER":
        target, principals_tokens = principals_tokens, []  # SET LABEL n TO TABLE t(cols)
    if target:
        if _word(target[0]) in OBJECT_TYPES:
            object_type, target = _word(target[0]).lower(), target[1:]
        object_name, columns = _name_and_columns(target, sql)
    exp_days = None
    with_clause = clauses.get("with", [])
    if len(with_clause) >= 2 and _word(with_clause[0]) == "EXP" and with_clause[1].text.isdigit():
        exp_days = int(with_clause[1].text)
    return PrivilegeStatement(
        verb=verb, privileges=privileges, label=label, object_type=object_type,
        object_name=object_name, columns=columns, principals=_principals(principals_tokens, sql),
        exp_days=exp_days,
    )
