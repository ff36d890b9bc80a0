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

ELLIPSIS = "…"
MIN_WIDTH = 12
GAP = "  "


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
    right: bool = False


def widths(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int, indent: int = 0) -> list[int]:
    """Each column's width: its widest cell, then shrinkable columns (highest ``shrink`` first)
    narrowed until the row fits ``width`` or every one is at its minimum."""
    natural = [max([len(c.header), *(len(r[i]) for r in rows)]) for i, c in enumerate(cols)]
    out = list(natural)
    excess = indent + sum(out) + len(GAP) * (len(cols) - 1) - width
    for level in sorted({c.shrink for c in cols if c.shrink}, reverse=True):
        if excess <= 0:
            break
        for i, c in enumerate(cols):
            if c.shrink != level or excess <= 0:
                continue
            floor = min(natural[i], max(len(c.header), c.least))
            take = min(excess, out[i] - floor)
            out[i] -= take
            excess -= take
    return out


def table(cols: Sequence[Col], rows: Sequence[Sequence[str]], width: int, indent: int = 2) -> list[str]:
    """The header and the rows as lines of aligned columns fitting ``width`` when they can."""
    sizes = widths(cols, rows, width, indent)
    pad = " " * indent

    def line(cells: Sequence[str]) -> str:
        parts = []
        for cell, col, size in zip(cells, cols, sizes):
            text = shorten(cell, size)
            parts.append(text.rjust(size) if col.right else text.ljust(size))
        return (pad + GAP.join(parts)).rstrip()

    return [line([c.header for c in cols]), *(line(r) for r in rows)]


def wrap(prefix: str, items: Sequence[str], width: int, sep: str = ", ") -> list[str]:
    """``prefix`` then ``items`` joined by ``sep``, continued on indented lines at ``width``
    (an item longer than a line gets a line of its own, whole)."""
    lines, current = [], prefix
    indent = " " * len(prefix)
    for i, item in enumerate(items):
        piece = item + (sep.rstrip() if i < len(items) - 1 else "")
        candidate = current + ("" if current in (prefix, indent) else " ") + piece
        if len(candidate) > width and current not in (prefix, indent):
            lines.append(current)
            current = indent + piece
        else:
            current = candidate
    lines.append(current)
    return lines
