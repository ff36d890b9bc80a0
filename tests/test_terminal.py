"""Tables fitted to the terminal (``lineage.render.columns.fitted``): every line within the width,
every cell all there, an id folded onto the next line of its cell when it must, never cut."""

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
def test_every_line_fits_and_every_cell_is_all_there(width, row):
    lines, folded = render(width, COLUMNS, [row])
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    got = cells(lines)
    for i in range(4):  # every cell is all there, the id too: folded perhaps, never cut
        assert got[i] == row[i].replace(" ", ""), (width, "\n".join(lines))
    assert "…" not in "".join(lines)
    assert folded == (not any(row[1] in line for line in lines))  # said when the id is on two lines
    if width >= 120:
        assert not folded


def test_ids_are_folded_not_cut_at_80_columns():
    lines, folded = render(80, COLUMNS, ROWS[:1])
    assert folded and cells(lines)[1] == ROWS[0][1]
