"""The commands' output streams: consoles that print event text as it is, and one-line messages.

Tables are fitted to the terminal by :mod:`lineage.render.columns` (names shortened, ids never);
output to a file or a pipe is not fitted at all.
"""

from __future__ import annotations

import os
from typing import Sequence

import click
from rich.console import Console

from lineage.render import columns
from lineage.render.escape import terminal


def console(stderr: bool = False) -> Console:
    """A console that prints text as it is: no rich markup (``[bold]`` in a table name stays
    ``[bold]``), no ``:emoji:`` codes, no highlighting. Every command prints through one."""
    console = Console(stderr=stderr, markup=False, emoji=False, highlight=False)
    if not console.is_terminal and not os.environ.get("COLUMNS", "").isdigit():
        console.width = columns.PIPED_WIDTH  # piped: a row is one line, nothing folded to fit a screen
    return console


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
