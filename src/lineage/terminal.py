"""Tables that fit the terminal: canonical ids are shortened in the middle (``table:maxc…dwd_orders``)
when the columns would not fit otherwise, and say so; every other cell wraps, nothing is cut.

Ids are long and their two ends are what tell them apart (the kind at the start, the key at the
end), so the middle is what goes. ``--json`` always prints them whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import click
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from lineage.render.escape import CELL_LIMIT, terminal

ELLIPSIS = "…"
MIN_ID = 12
"""An id column is never narrower than this (then the other columns wrap instead)."""
MAX_WORD = 20
"""When space is short, a column other than an id keeps room for words up to this long."""
ID_SHARE = 1 / 3
"""The id columns keep at least this share of the table (or their whole ids) between them..."""
MIN_TEXT = 4
"""...and, when even that does not fit, at least this much (its words then wrap inside)."""


def shorten(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells, its middle replaced by an ellipsis when too long."""
    if cell_len(text) <= width or width < 3:
        return text
    head = (width - 1) // 2  # the end (the key) gets the odd cell: it tells ids of one kind apart
    tail = width - 1 - head
    return text[:head] + ELLIPSIS + (text[-tail:] if tail else "")


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


def widths(width: int, columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> tuple[list[int], bool]:
    """Each column's width so that the table fits ``width`` cells, and whether ids must be
    shortened. When the natural widths do not fit, every other column keeps room for its
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


def console(stderr: bool = False) -> Console:
    """A console that prints text as it is: no rich markup (``[bold]`` in a table name stays
    ``[bold]``), no ``:emoji:`` codes, no highlighting. Every command prints through one."""
    return Console(stderr=stderr, markup=False, emoji=False, highlight=False)


err = console(stderr=True)
"""The commands' stderr (progress bars ask it whether it is a terminal)."""


def say(message: str) -> None:
    """One unwrapped line on stderr (messages are read by people and by scripts); event text in
    it (an id, a name, a quarantine reason) cannot move the cursor or retitle the terminal."""
    click.echo(terminal(f"lineage: {message}"), err=True)


def lines_text(lines: Sequence[str]) -> str:
    """Lines of plain-text output as one string, each line's control characters made visible
    (its names are event text; the line breaks between lines are ours)."""
    return "\n".join(terminal(line) for line in lines)


def fitted(width: int, columns: Sequence[Column], rows: Sequence[Sequence[str]], title: str | None = None) -> tuple[Table, bool]:
    """A rich table of ``rows`` that fits ``width`` cells; True when ids were shortened. Cells
    are event text: control characters made visible, values past :data:`CELL_LIMIT` shortened."""
    rows = [[terminal(cell, CELL_LIMIT) for cell in row] for row in rows]
    title = terminal(title) if title is not None else None
    sizes, shortened = widths(width, columns, rows)
    table = Table(title=title, title_justify="left")
    for column, w in zip(columns, sizes):
        table.add_column(column.header, justify=column.justify, no_wrap=column.is_id,  # type: ignore[arg-type]
                         overflow="ellipsis" if column.is_id else "fold", min_width=w, max_width=w)
    for row in rows:
        table.add_row(*(shorten(cell, w) if c.is_id else cell for cell, c, w in zip(row, columns, sizes)))
    return table, shortened


SHORTENED_NOTE = "(ids shortened in the middle to fit the terminal; --json prints them whole)"
