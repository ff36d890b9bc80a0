"""Tables fitted to the terminal (``lineage.render.terminal``): ids shortened in the middle, never cut,
and every rendered line within the width."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from lineage.render.columns import Column, fitted, shorten

ID = "table:maxcompute:retail_dw.dws_sales_daily"


def test_shorten_keeps_both_ends():
    assert shorten(ID, 100) == ID
    short = shorten(ID, 21)
    assert len(short) == 21 and short == "table:maxc…ales_daily"
    assert ID.startswith(short.split("…")[0]) and ID.endswith(short.split("…")[1])


def render(width: int, columns, rows) -> tuple[list[str], bool]:
    table, shortened = fitted(width, columns, rows, "a title long enough to wrap on a narrow terminal, never cut")
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None).print(table)
    return buffer.getvalue().splitlines(), shortened


COLUMNS = [Column("relationship"), Column("other end", is_id=True), Column("name"), Column("valid (UTC)")]
ROWS = [["<-CAN_ACCESS", "role:maxcompute:retail_dw.role_etl_reader", "retail_dw.role_etl_reader",
         "since 2024-06-29T02:00:00"],
        ["<-READS", "job:maxcompute:20240701023030931gsjgpv21", "dws_sales_daily_20240701", "2024-07-01T02:35:30 to 2024-07-02T00:00:00"]]


def cells(lines: list[str]) -> list[str]:
    """A one-row table's cells read back from its body lines (wrapped pieces joined, spaces dropped)."""
    body = [line.split("│")[1:-1] for line in lines if line.startswith("│")]
    return ["".join(piece.replace(" ", "") for piece in column) for column in zip(*body)]


@pytest.mark.parametrize("width", [40, 60, 80, 120, 160])
@pytest.mark.parametrize("row", ROWS)
def test_every_line_fits_and_nothing_but_ids_is_shortened(width, row):
    lines, shortened = render(width, COLUMNS, [row])
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    got = cells(lines)
    for i in (0, 2, 3):  # every other cell is all there, wrapped perhaps
        assert got[i] == row[i].replace(" ", ""), (width, "\n".join(lines))
    head, _, tail = got[1].partition("…")
    assert shortened == bool(_) and row[1].startswith(head) and row[1].endswith(tail)
    assert len(got[1]) >= 12 and (shortened or got[1] == row[1])
    if width >= 120:
        assert not shortened


def test_ids_keep_both_ends_at_80_columns():
    lines, shortened = render(80, COLUMNS, ROWS[:1])
    assert shortened
    shown = cells(lines)[1]
    assert shown.startswith("role:maxco") and shown.endswith("etl_reader") and len(shown) >= 22
