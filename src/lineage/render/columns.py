"""Tables that fit the terminal, the one module every command's human output uses.

An id is never cut (issue 69): it is what a person pastes into the next command, so a row too
wide for the terminal loses the middle of a *name* (``retail_dw.d…ly``, :func:`shorten`, one way
everywhere) or wraps it, and an id that still does not fit continues on the next line. Piped
(no terminal), nothing is fitted: each row is one line (``render.terminal.console``). Two shapes:

* plain-text columns (:func:`table`, :func:`wrap`): ``impact``, ``upstream``, ``access``; columns
  marked shrinkable (names) lose characters in the middle, never below their header or
  :data:`MIN_WIDTH`; an id column (``is_id``) is printed whole, the row longer than the width if
  it must;
* rich tables (:func:`fitted`): ``show``, ``search``, ``history``; every other cell wrapped,
  and an id that still does not fit its column continues on the next line of its cell, whole.

Pure functions over strings: the CLI passes the width (:func:`terminal_width`).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.table import Table

from lineage.render.escape import CELL_LIMIT, terminal

ELLIPSIS = "…"
MIN_WIDTH = 12
GAP = "  "
NBSP = "\u00a0"


PIPED_WIDTH = 100_000
"""Output to a file or a pipe is not fitted: each row one line (``$COLUMNS`` still decides when set)."""


def terminal_width() -> int:
    """``$COLUMNS``, else the terminal's width, else :data:`PIPED_WIDTH` (output piped to a file)."""
    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    if not sys.stdout.isatty():
        return PIPED_WIDTH
    return shutil.get_terminal_size((120, 24)).columns


def few(items: Sequence[str], more: int = 0, shown: int = 3) -> str:
    """``a, b, c and 46 more``: the first ``shown`` of a list, and how many it leaves out (``more``:
    others not in ``items``). The one way every answer and the report cut a list short."""
    left = max(len(items) - shown, 0) + more
    return ", ".join(items[:shown]) + (f" and {left} more" if left else "")


def shorten(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, its middle replaced by an ellipsis when too long; the
    end (an id's key, which tells ids of one kind apart) keeps the odd cell. Every table and
    list the commands print shortens ids with this one function."""
    if cell_len(text) <= width:
        return text
    if width < 3:
        return ELLIPSIS[:max(width, 0)]
    head = (width - 1) // 2
    tail = width - 1 - head
    return text[:head] + ELLIPSIS + (text[-tail:] if tail else "")


@dataclass(frozen=True)
class Col:
    header: str
    shrink: int = 0  # 0: never shortened; higher shrinks first
    least: int = MIN_WIDTH  # never shortened below this (nor below the header)
    wrap: bool = False  # the last column: continued on the next lines instead of shortened
    right: bool = False
    is_id: bool = False  # printed whole, whatever the width


def widths(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int, indent: int = 0) -> list[int]:
    """Each column's width: its widest cell, then shrinkable columns (highest ``shrink`` first)
    narrowed until the row fits ``width`` or every one is at its minimum; a wrapping last
    column takes what is left (at least its ``least``)."""
    natural = [max([len(c.header), *(len(r[i]) for r in rows)]) for i, c in enumerate(cols)]
    out = list(natural)
    if cols and cols[-1].wrap:
        out[-1] = min(natural[-1], max(cols[-1].least, len(cols[-1].header)))
    excess = indent + sum(out) + len(GAP) * (len(cols) - 1) - width
    for level in sorted({c.shrink for c in cols if c.shrink}, reverse=True):
        if excess <= 0:
            break
        for i, c in enumerate(cols):
            if c.shrink != level or excess <= 0 or c.wrap:
                continue
            floor = min(natural[i], max(len(c.header), c.least))
            take = min(excess, out[i] - floor)
            out[i] -= take
            excess -= take
    if cols and cols[-1].wrap and excess < 0:
        out[-1] = min(natural[-1], out[-1] - excess)
    return out


def wrapped(text: str, size: int) -> list[str]:
    """``text`` in lines of at most ``size`` characters, broken after a ``,`` or ``;`` (a list's
    items stay whole) or, in an item longer than a line, at its spaces; a word longer than a
    line (an id) has a line of its own, whole."""
    import re
    import textwrap

    items = re.split(r"(?<=[,;]) ", text)
    joined = " ".join(item.replace(" ", NBSP) if len(item) <= size else item for item in items)
    lines = textwrap.wrap(joined, size, break_long_words=False, break_on_hyphens=False) or [""]
    return [line.replace(NBSP, " ") for line in lines]


def table(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int, indent: int = 2) -> list[str]:
    """The header and the rows as lines of aligned columns fitting ``width`` when they can.
    Cells are event text: control characters made visible, values past :data:`CELL_LIMIT`
    (no platform's id is that long) shortened, saying how much went."""
    rows = [[terminal(cell, CELL_LIMIT) for cell in row] for row in rows]
    sizes = widths(cols, rows, width, indent)
    pad = " " * indent

    def lines(cells: Sequence[str]) -> list[str]:
        parts = []
        for cell, col, size in zip(cells, cols, sizes):
            if col.wrap:
                continue
            text = cell if col.is_id else shorten(cell, size)
            parts.append(text.rjust(size) if col.right else text.ljust(size))
        if not cols[-1].wrap:
            return [(pad + GAP.join(parts)).rstrip()]
        tail = wrapped(cells[-1], sizes[-1])
        lead = pad + GAP.join(parts) + GAP
        return [(lead + tail[0]).rstrip(), *((" " * len(lead) + more).rstrip() for more in tail[1:])]

    if cols[-1].wrap and indent + sum(sizes) + len(GAP) * (len(cols) - 1) > width:
        return _records(cols, rows, widths(cols[:-1], [r[:-1] for r in rows], width, indent), width, pad)
    out = lines([c.header for c in cols])
    for row in rows:
        out += lines(row)
    return out


def _records(cols: Sequence[Col], rows: Sequence[Sequence[str]], sizes: Sequence[int], width: int,
             pad: str) -> list[str]:
    """When whole ids leave the wrapping column no room: each row's other columns on one line,
    the wrapping column's text on the lines under it, indented."""
    def head(cells: Sequence[str]) -> str:
        parts = [(cell if col.is_id else shorten(cell, size)) for cell, col, size in zip(cells, cols[:-1], sizes)]
        return (pad + GAP.join(p.rjust(z) if c.right else p.ljust(z) for p, c, z in zip(parts, cols, sizes))).rstrip()

    out = [head([c.header for c in cols[:-1]])]
    under = pad + "    "
    for row in rows:
        out.append(head(row[:-1]))
        out += [under + line for line in wrapped(row[-1], max(width - len(under), MIN_WIDTH))]
    return out


def wrap(prefix: str, items: Sequence[str], width: int, sep: str = ", ") -> list[str]:
    """``prefix`` then ``items`` joined by ``sep``, broken at spaces into lines of ``width``,
    continued under the text (an item longer than a line has a line of its own, whole)."""
    import textwrap

    indent = " " * min(len(prefix), max(width // 3, 0))
    words = [terminal(item).replace(" ", NBSP) for item in items]  # an item is one word: never broken
    lines = textwrap.wrap(sep.join(words), width, initial_indent=prefix, subsequent_indent=indent,
                          break_long_words=False, break_on_hyphens=False) or [prefix.rstrip()]
    return [line.replace(NBSP, " ") for line in lines]


# Rich tables (``show``, ``search``, ``history``)

MIN_ID = 12
"""An id column is never narrower than this (then the other columns wrap instead)."""
MAX_WORD = 20
"""When space is short, a column other than an id keeps room for words up to this long."""
ID_SHARE = 1 / 3
"""The id columns keep at least this share of the table (or their whole ids) between them..."""
MIN_TEXT = 4
"""...and, when even that does not fit, at least this much (its words then wrap inside)."""


@dataclass(frozen=True)
class Column:
    header: str
    is_id: bool = False
    justify: str = "left"
    whole_words: bool = False  # e.g. times: the last column to wrap inside a word


def overhead(columns: int) -> int:
    """Cells a rich table with the default box and padding spends on borders and padding."""
    return 3 * columns + 1


def _longest_word(texts: Sequence[str]) -> int:
    return max((cell_len(w) for t in texts for w in t.split()), default=1)


def fitted_widths(width: int, columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> tuple[list[int], bool]:
    """Each column's width so that the table fits ``width`` cells, and whether ids must be
    folded onto more lines. When the natural widths do not fit, every other column keeps room for its
    longest word (up to :data:`MAX_WORD`: it wraps between words) unless the ids would get less
    than :data:`ID_SHARE` of the table; the id columns share what is left (at least
    :data:`MIN_ID` each, the shortest served first), and the other columns then grow back
    towards their natural width with whatever the ids did not need."""
    natural = [max([cell_len(c.header)] + [cell_len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    inner = width - overhead(len(columns))
    if sum(natural) <= inner:
        return natural, False
    result = [n if c.is_id else min(n, MAX_WORD, _longest_word([c.header, *(r[i] for r in rows)]))
              for i, (n, c) in enumerate(zip(natural, columns))]
    ids = sorted((natural[i], i) for i, c in enumerate(columns) if c.is_id)
    texts = [i for i, c in enumerate(columns) if not c.is_id]
    share = int(inner * ID_SHARE) // len(ids) if ids else 0
    least = sum(min(n, max(share, MIN_ID, cell_len(columns[i].header))) for n, i in ids)
    while sum(result[i] for i in texts) + least > inner and any(result[i] > MIN_TEXT for i in texts):
        # too narrow for whole words: the widest column wraps inside them (times last)
        widest = max(texts, key=lambda i: (result[i] > MIN_TEXT, not columns[i].whole_words, result[i]))
        result[widest] -= 1
    room = inner - sum(result[i] for i in texts)
    for done, (want, i) in enumerate(ids):
        result[i] = min(want, max(room // (len(ids) - done), MIN_ID, cell_len(columns[i].header)))
        room -= result[i]
    for i in sorted(texts, key=lambda i: natural[i] - result[i]):
        grow = max(0, min(natural[i] - result[i], room))
        result[i] += grow
        room -= grow
    return result, any(result[i] < natural[i] for _, i in ids)


def fitted(width: int, columns: Sequence[Column], rows: Sequence[Sequence[str]], title: str | None = None) -> tuple[Table, bool]:
    """A rich table of ``rows`` that fits ``width`` cells; True when an id continues on the next
    line of its cell (folded, never cut). Cells are event text: control characters made
    visible, values past :data:`CELL_LIMIT` (no platform's id is that long) shortened, saying
    how much went."""
    rows = [[terminal(cell, CELL_LIMIT) for cell in row] for row in rows]
    title = terminal(title) if title is not None else None
    sizes, folded = fitted_widths(width, columns, rows)
    table = Table(title=title, title_justify="left")
    for column, w in zip(columns, sizes):
        table.add_column(column.header, justify=column.justify,  # type: ignore[arg-type]
                         overflow="fold", min_width=w, max_width=w)
    for row in rows:
        table.add_row(*row)
    return table, folded


FOLDED_NOTE = "(an id longer than its column continues on the next line; piped, or with --json, each is on one line)"
