"""Plain-text columns that fit the terminal: the human side of `impact`, `upstream`, `access`.

Cells are never cut silently: when a row is wider than the terminal, the columns marked
shrinkable lose characters *in the middle* (``table:maxcompute:retail_dw.d…ly``), each shortened
cell keeping its start and its end, and a column never shrinks below its header or
:data:`MIN_WIDTH`. When that is still too wide the line is simply longer than the terminal.
Pure functions over strings: the CLI passes the width (``terminal_width``).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass

from lineage.render.escape import CELL_LIMIT, terminal

ELLIPSIS = "…"
MIN_WIDTH = 12
GAP = "  "
NBSP = "\u00a0"


def terminal_width(default: int = 120) -> int:
    """``$COLUMNS``, else the terminal's width, else ``default`` (output piped to a file)."""
    if os.environ.get("COLUMNS", "").isdigit():
        return int(os.environ["COLUMNS"])
    return shutil.get_terminal_size((default, 24)).columns


def shorten(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, the middle replaced by an ellipsis when it must."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    head, tail = width // 2, (width - 1) // 2
    return text[:head] + ELLIPSIS + (text[-tail:] if tail else "")


@dataclass(frozen=True)
class Col:
    header: str
    shrink: int = 0  # 0: never shortened; higher shrinks first
    least: int = MIN_WIDTH  # never shortened below this (nor below the header)
    wrap: bool = False  # the last column: continued on the next lines instead of shortened
    right: bool = False


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
    items stay whole) or, in an item longer than a line, at its spaces; only a word longer than
    a line is shortened in the middle."""
    import re
    import textwrap

    items = re.split(r"(?<=[,;]) ", text)
    joined = " ".join(item.replace(" ", NBSP) if len(item) <= size else
                      " ".join(shorten(word, size) for word in item.split(" ")) for item in items)
    lines = textwrap.wrap(joined, size, break_long_words=False, break_on_hyphens=False) or [""]
    return [line.replace(NBSP, " ") for line in lines]


def table(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int, indent: int = 2) -> list[str]:
    """The header and the rows as lines of aligned columns fitting ``width`` when they can.
    Cells are event text: control characters made visible, very long values shortened."""
    rows = [[terminal(cell, CELL_LIMIT) for cell in row] for row in rows]
    sizes = widths(cols, rows, width, indent)
    pad = " " * indent

    def lines(cells: Sequence[str]) -> list[str]:
        parts = []
        for cell, col, size in zip(cells, cols, sizes):
            if col.wrap:
                continue
            text = shorten(cell, size)
            parts.append(text.rjust(size) if col.right else text.ljust(size))
        if not cols[-1].wrap:
            return [(pad + GAP.join(parts)).rstrip()]
        tail = wrapped(cells[-1], sizes[-1])
        lead = pad + GAP.join(parts) + GAP
        return [(lead + tail[0]).rstrip(), *((" " * len(lead) + more).rstrip() for more in tail[1:])]

    out = lines([c.header for c in cols])
    for row in rows:
        out += lines(row)
    return out


def wrap(prefix: str, items: Sequence[str], width: int, sep: str = ", ") -> list[str]:
    """``prefix`` then ``items`` joined by ``sep``, broken at spaces into lines of ``width``,
    continued under the text (a word longer than a line is shortened in the middle)."""
    import textwrap

    indent = " " * min(len(prefix), max(width // 3, 0))
    # an item is one word (a no-break space inside it), a longer one than a line shortened
    words = [shorten(terminal(item), width - len(indent)).replace(" ", NBSP) for item in items]
    lines = textwrap.wrap(sep.join(words), width, initial_indent=prefix, subsequent_indent=indent,
                          break_long_words=False, break_on_hyphens=False) or [prefix.rstrip()]
    return [line.replace(NBSP, " ") for line in lines]
