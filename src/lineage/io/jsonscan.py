"""Lenient JSON: the two repairs we make, and finding record boundaries in a document stream.

Exactly two kinds of mess are repaired, because real exports and the vendors' own samples hold
them: ``//`` and ``/* */`` comments outside strings (blanked, so line numbers stay true), and
bare masked tokens such as ``70***287`` where a number was masked (quoted into a string).
Anything else (a placeholder like ``"tenantId": The tenant ID,``) stays invalid JSON.

Text is data, never trusted: :func:`decode` is the one JSON parser of the ingest (records and
JSON sent inside their fields). It fails only with ``json.JSONDecodeError``, also for text
nested deeper than :data:`MAX_DEPTH` (which would make Python's recursive parser, and every
recursive walk after it, raise ``RecursionError``) and for numbers Python refuses to convert.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterator

_SPECIAL = re.compile(r'["/*]')
_STRING_BODY = re.compile(r'(?:[^"\\\n]|\\.)*"')
_TOKEN_CHAR = re.compile(r"[A-Za-z0-9_.+\-]")
_MASKED = re.compile(r"[A-Za-z0-9_.+\-]*\*[A-Za-z0-9_.+\-*]*")


MAX_DEPTH = 100
"""How deeply objects and arrays may nest in one record. Real events nest about ten levels;
deeper text is broken or hostile, and is refused before recursive code meets it."""
_DIGITS = re.compile(r"\d{4301,}")  # longer integers: Python's int() refuses them (sys.int_info)


class JsonError(ValueError):
    """Invalid JSON with a position relative to the record: ``line`` is 1-based within it."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


def repair(text: str) -> tuple[str, tuple[str, ...]]:
    """Blank comments and quote masked bare tokens outside strings; report which repairs ran."""
    out: list[str] = []
    repairs: set[str] = set()
    pos = 0
    n = len(text)
    while pos < n:
        match = _SPECIAL.search(text, pos)
        if match is None:
            out.append(text[pos:])
            break
        start = match.start()
        char = text[start]
        if char == '"':
            end = _STRING_BODY.match(text, start + 1)
            stop = end.end() if end else n
            out.append(text[pos:stop])
            pos = stop
        elif char == "/" and (stop := _comment_end(text, start)) is not None:
            out.append(text[pos:start] + re.sub(r"[^\n]", " ", text[start:stop]))  # keep line numbers
            repairs.add("comments")
            pos = stop
        elif char == "*":
            # a masked token: extend left over the characters already emitted, and right
            left = start
            while left > pos and _TOKEN_CHAR.match(text[left - 1]):
                left -= 1
            token = _MASKED.match(text, left)
            stop = token.end() if token else start + 1
            out.append(text[pos:left] + json.dumps(text[left:stop]))
            repairs.add("masked-values")
            pos = stop
        else:  # a lone "/" outside a string: leave it for json to reject
            out.append(text[pos : start + 1])
            pos = start + 1
    return "".join(out), tuple(sorted(repairs))


def decode(text: str) -> Any:
    """``json.loads`` that fails only with ``json.JSONDecodeError``, naming the cause: nesting
    deeper than :data:`MAX_DEPTH`, an integer too long to convert, or invalid JSON."""
    try:
        value = json.loads(text)
    except RecursionError:
        value = _TOO_DEEP
    except json.JSONDecodeError:
        raise
    except ValueError:  # only int() refuses what json accepts: an integer of over 4300 digits
        match = _DIGITS.search(text)
        where = match.start() if match else 0
        digits = len(match.group()) if match else 0
        raise json.JSONDecodeError(f"a number of {digits} digits is out of range", text, where) from None
    if value is _TOO_DEEP or text.count("[") + text.count("{") > MAX_DEPTH:
        where = deeper_than(text, MAX_DEPTH)
        if where is not None:
            raise json.JSONDecodeError(f"nested more than {MAX_DEPTH} levels deep", text, where)
        if value is _TOO_DEEP:  # cannot happen: Python's limit is far above MAX_DEPTH
            raise json.JSONDecodeError("nested too deeply to parse", text, 0)
    return value


_TOO_DEEP = object()


def loads(text: str) -> tuple[Any, tuple[str, ...]]:
    """Parse strictly, else after repair; raise JsonError positioned in the original text."""
    try:
        return decode(text), ()
    except json.JSONDecodeError as strict_error:
        fixed, repairs = repair(text)
        if not repairs:
            raise JsonError(strict_error.msg, strict_error.lineno, strict_error.colno) from None
        try:
            return decode(fixed), repairs
        except json.JSONDecodeError as exc:
            raise JsonError(exc.msg, exc.lineno, exc.colno) from None


@dataclass(frozen=True)
class Span:
    """One top-level value (or array element) in a document stream; ``closed`` False = truncated."""

    start: int
    end: int
    closed: bool


def scan_values(text: str, split_top_array: bool = True) -> Iterator[Span]:
    """Yield the spans of top-level JSON values by bracket balancing (string- and comment-aware).

    Works on invalid JSON too, so one bad document does not take its neighbours with it. A
    top-level array is split into its elements. A value that never closes, or text that does not
    start a value, runs up to the next line that starts with ``{``/``[`` (or the end of the file)
    as one span that the caller reports as invalid.
    """
    n = len(text)
    pos = 0
    array_mode = False
    while pos < n:
        pos = _skip_blank(text, pos, commas=True)
        if pos >= n:
            return
        char = text[pos]
        if split_top_array and not array_mode and char == "[":
            array_mode = True
            pos += 1
            continue
        if array_mode and char == "]":
            array_mode = False
            pos += 1
            continue
        if char in "{[":
            end, closed = _match_close(text, pos)
            if not closed:  # resynchronise at the next line that starts a value
                end = _next_value_line(text, pos)
            yield Span(pos, end, closed)
            pos = end
        elif array_mode:
            # a scalar element: up to the next comma or closing bracket at this depth
            end = pos
            while end < n and text[end] not in ",]\n":
                end += 1
            yield Span(pos, end, True)
            pos = end
        else:
            end = _next_value_line(text, pos)
            yield Span(pos, end, False)
            pos = end


def _next_value_line(text: str, pos: int) -> int:
    """Where the next line starting with ``{`` or ``[`` begins (or the end): after a value that
    never closes, or text that is not JSON, a following record that starts a line is kept whole."""
    found = [i for i in (text.find("\n{", pos), text.find("\n[", pos)) if i >= 0]
    return min(found) + 1 if found else len(text)


def _comment_end(text: str, pos: int) -> int | None:
    """Where the comment starting at ``pos`` ends (a ``//`` one at its newline), else None."""
    if text.startswith("//", pos):
        stop = text.find("\n", pos)
        return len(text) if stop < 0 else stop
    if text.startswith("/*", pos):
        stop = text.find("*/", pos + 2)
        return len(text) if stop < 0 else stop + 2
    return None


def _skip_blank(text: str, pos: int, commas: bool) -> int:
    n = len(text)
    while pos < n:
        char = text[pos]
        if char.isspace() or (commas and char == ","):
            pos += 1
        elif (end := _comment_end(text, pos)) is not None:
            pos = end
        else:
            break
    return pos


_BRACKETS = re.compile(r'["{}\[\]/]')
_STRING_ANY = re.compile(r'(?:[^"\\]|\\.)*"', re.S)


_DECODER = json.JSONDecoder()


def _match_close(text: str, start: int) -> tuple[int, bool]:
    """Where the value opened at ``start`` closes. Valid JSON is measured by the C decoder (the
    same end, ~20x faster than balancing brackets in Python: a third of an ActionTrail file's
    parse time); invalid JSON (comments, masked values, truncation) by the bracket balance."""
    try:
        return _DECODER.raw_decode(text, start)[1], True
    except (ValueError, RecursionError):  # RecursionError: nested too deeply for the C decoder
        return balance(text, start)


def deeper_than(text: str, limit: int) -> int | None:
    """Where the nesting of ``text`` first goes deeper than ``limit`` (string- and
    comment-aware, iterative: safe on any depth), else None."""
    depth = 0
    pos = 0
    while (match := _BRACKETS.search(text, pos)) is not None:
        at = match.start()
        char = text[at]
        if char == '"':
            end = _STRING_ANY.match(text, at + 1)
            if end is None:
                return None
            pos = end.end()
            continue
        if char == "/":
            end = _comment_end(text, at)
            pos = at + 1 if end is None else end
            continue
        depth += 1 if char in "{[" else -1
        if depth > limit:
            return at
        pos = at + 1
    return None


def balance(text: str, start: int) -> tuple[int, bool]:
    """Where the brackets opened at ``start`` balance (string- and comment-aware), and whether
    they do before the end of ``text``."""
    depth = 0
    pos = start
    n = len(text)
    while pos < n:
        match = _BRACKETS.search(text, pos)
        if match is None:
            return n, False
        at = match.start()
        char = text[at]
        if char == '"':
            end = _STRING_ANY.match(text, at + 1)
            if end is None:
                return n, False
            pos = end.end()
            continue
        if char == "/":
            end = _comment_end(text, at)
            pos = at + 1 if end is None else end
            continue
        depth += 1 if char in "{[" else -1
        pos = at + 1
        if depth == 0:
            return pos, True
    return n, False
