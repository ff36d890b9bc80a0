"""MaxCompute (ODPS) SQL as a sqlglot dialect: Hive plus the handful of things that differ.

sqlglot has no MaxCompute dialect; Hive is its closest relative (backtick identifiers,
double-quoted strings, INSERT OVERWRITE ... PARTITION, LATERAL VIEW, multi-insert). As in
sqlglot's own ``dialects/databricks.py``, this module only overrides what differs:

* Tokenizer: a DataWorks scheduling variable ``${name}`` / ``$[expr]`` is ONE token, joined to
  the word characters it is glued to (``ods_log_${region}`` is one name). DataWorks substitutes
  these textually before submitting the SQL, so they may stand for a value (``ds=${bizdate}``)
  or for (part of) a name; a name holding one is reported by the lineage, never guessed.
* Parser, ``PROPERTY_PARSERS``: ``LIFECYCLE <days>`` (a table's retention) is a property.
* Parser, statement level: statements that sqlglot does not know (``WHOAMI``, ``LIST``, ``TUNNEL``,
  ``KILL``, ``CLONE``, ``UNLOAD``, ... and every ``ALTER`` without a query: MaxCompute has many ALTER
  forms such as ``SET LIFECYCLE``, ``MERGE SMALLFILES``, ``EXCHANGE PARTITION``) are kept as raw
  ``Command`` nodes named by their verb, like sqlglot's ``COMMANDS``; ``lineage.sql.kinds`` reads
  their words. Those verbs are
  ordinary words elsewhere (a column may be called ``list``), so they are recognised only as a
  statement's first token, not as tokenizer keywords.
* Parser, script mode: ``@v := SELECT ...`` is an ``Assignment`` node holding the query.

The tokenizer override works on sqlglot's tokens (``Tokenizer.tokenize`` is the public entry
point), not on the SQL text: strings and comments holding ``${`` are never touched.
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.hive import Hive
from sqlglot.tokens import Token, TokenType

VARIABLE_OPENERS = {TokenType.L_BRACE: TokenType.R_BRACE, TokenType.L_BRACKET: TokenType.R_BRACKET}
"""``${...}`` and ``$[...]``: what follows the ``$`` and what closes the variable."""

ADMIN_VERBS = frozenset(
    {"SHOW", "GRANT", "REVOKE", "WHOAMI", "LIST", "ADD", "REMOVE", "KILL", "PURGE", "MSCK", "TUNNEL", "DESC", "DESCRIBE"}
)
"""First words of statements that never move data: a ``Command`` (``DESC PROJECT p`` included)."""
SESSION_VERBS = frozenset({"SET", "EXPLAIN"})
"""First words of statements that change or describe the session: a ``Command``."""
DATA_VERBS = frozenset({"CLONE", "UNLOAD"})
"""First words of MaxCompute statements that move data and that sqlglot does not know: a
``Command`` whose words ``lineage.sql.kinds`` reads (``CLONE TABLE s TO t``, ``UNLOAD FROM t INTO
LOCATION 'oss://...'``; ``LOAD ... FROM LOCATION`` is already a ``LOAD`` command in sqlglot)."""
COMMAND_VERBS = ADMIN_VERBS | SESSION_VERBS | DATA_VERBS


class Assignment(exp.Expression):
    """MaxCompute script mode ``@name := <query>``: ``this`` is the name, ``expression`` the query."""

    arg_types = {"this": True, "expression": True}


def is_variable(text: str) -> bool:
    """Whether a name holds a DataWorks scheduling variable (``${x}`` or ``$[x]``)."""
    return "${" in text or "$[" in text


def variables_in(text: str) -> list[str]:
    """The ``${...}`` / ``$[...]`` parts of one name, as written."""
    found, pos = [], 0
    while (start := min((i for i in (text.find("${", pos), text.find("$[", pos)) if i >= 0), default=-1)) >= 0:
        end = text.find("}" if text[start + 1] == "{" else "]", start)
        end = len(text) - 1 if end < 0 else end
        found.append(text[start : end + 1])
        pos = end + 1
    return found


def assigned_variable(tokens: list[Token]) -> str | None:
    """Name (lower-case) of a script assignment ``@name := ...``, else None."""
    if (
        len(tokens) >= 3
        and tokens[0].token_type == TokenType.PARAMETER
        and tokens[0].text == "@"
        and tokens[2].token_type == TokenType.COLON_EQ
    ):
        return tokens[1].text.lower()
    return None


def _adjacent(left: Token, right: Token) -> bool:
    return left.end + 1 == right.start


def _wordlike(token: Token) -> bool:
    return token.token_type != TokenType.STRING and all(c.isalnum() or c == "_" for c in token.text)


def join_variables(tokens: list[Token], sql: str) -> list[Token]:
    """Merge each ``$`` ``{``...``}`` run (on one line) and the words glued to it into one VAR."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        end = _variable_end(tokens, i)
        if end is None:
            out.append(tokens[i])
            i += 1
            continue
        first = tokens[i]
        while out and _wordlike(out[-1]) and _adjacent(out[-1], first):
            first = out.pop()  # ods_log_${region}: the prefix belongs to the name
        last = end
        while last + 1 < len(tokens) and _adjacent(tokens[last], tokens[last + 1]) and (
            _wordlike(tokens[last + 1]) or _variable_end(tokens, last + 1) is not None
        ):
            last = _variable_end(tokens, last + 1) or last + 1  # ${a}_${b}: one name
        out.append(Token(TokenType.VAR, sql[first.start : tokens[last].end + 1], line=first.line,
                         col=tokens[last].col, start=first.start, end=tokens[last].end, comments=first.comments))
        i = last + 1
    return out


def _variable_end(tokens: list[Token], i: int) -> int | None:
    """Index of the closing brace of a variable starting at ``tokens[i]`` (``$``), else None."""
    dollar = tokens[i]
    if dollar.token_type != TokenType.PARAMETER or dollar.text != "$":
        return None
    if i + 1 >= len(tokens) or not _adjacent(dollar, tokens[i + 1]):
        return None
    closer = VARIABLE_OPENERS.get(tokens[i + 1].token_type)
    if closer is None:
        return None
    for j in range(i + 2, len(tokens)):
        if tokens[j].line != tokens[i].line:
            return None  # a variable closes on its own line, or it is not one
        if tokens[j].token_type == closer:
            return j
    return None


class MaxCompute(Hive):
    class Tokenizer(Hive.Tokenizer):
        def tokenize(self, sql: str) -> list[Token]:
            return join_variables(super().tokenize(sql), sql)

    class Parser(Hive.Parser):
        def _parse_lifecycle(self) -> exp.Property:
            """``LIFECYCLE <days>`` (or a variable): the table's retention, a plain property."""
            days = self._parse_number() or self._parse_var()
            if days is None:
                self.raise_error("expected a number of days after LIFECYCLE")
            return self.expression(exp.Property(this=exp.var("LIFECYCLE"), value=days))

        PROPERTY_PARSERS = {**Hive.Parser.PROPERTY_PARSERS, "LIFECYCLE": _parse_lifecycle}

        def _parse_statement(self) -> exp.Expr | None:
            if not self._curr:
                return None
            verb = self._curr.text.upper() if self._curr.token_type != TokenType.STRING else ""
            if verb in COMMAND_VERBS or (verb == "ALTER" and not self._statement_has_query()):
                return self._parse_verb_command()
            if assigned_variable(self._tokens[self._index : self._index + 3]):
                return self._parse_assignment_statement()
            return super()._parse_statement()

        def _parse_verb_command(self) -> exp.Command:
            """The whole statement as ``Command(this=VERB, expression=rest)`` (no "unsupported" warning:
            these statements are understood, they just hold nothing to parse)."""
            start = self._curr
            while self._curr and self._curr.token_type != TokenType.SEMICOLON:
                self._advance()
            text = self._find_sql(start, self._prev)
            return self.expression(exp.Command(this=start.text.upper(), expression=text[len(start.text):].strip()))

        def _statement_has_query(self) -> bool:
            """Whether the rest of the current statement holds a SELECT (could move data)."""
            for token in self._tokens[self._index :]:
                if token.token_type == TokenType.SEMICOLON:
                    return False
                if token.token_type == TokenType.SELECT:
                    return True
            return False

        def _parse_assignment_statement(self) -> Assignment:
            name = self._tokens[self._index + 1].text
            self._advance(3)
            query = super()._parse_statement()
            if query is None:
                self.raise_error(f"nothing assigned to @{name}")
            return self.expression(Assignment(this=exp.to_identifier(name), expression=query))
