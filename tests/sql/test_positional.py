"""Which tables a script takes by column position (``lineage.sql.positional``): what a column added
to a table can break."""

from __future__ import annotations

import pytest

from lineage.sql.positional import by_position


@pytest.mark.parametrize("sql, tables", [
    # an INSERT without a column list takes its target by position; with one it does not
    ("INSERT OVERWRITE TABLE p.out SELECT k, v FROM p.src;", ("p.out",)),
    ("INSERT OVERWRITE TABLE p.out (k, v) SELECT k, v FROM p.src;", ()),
    # a * at the output takes its source by position, through an alias, a subquery, a CTE, a UNION branch
    ("INSERT OVERWRITE TABLE p.out (k, v) SELECT * FROM p.src;", ("p.src",)),
    ("INSERT INTO TABLE out PARTITION (ds='1') SELECT s.* FROM src s JOIN other o ON s.k = o.k;", ("p.out", "p.src")),
    ("CREATE TABLE p.n AS SELECT * FROM (SELECT * FROM p.src WHERE ds = '1') x;", ("p.src",)),
    ("WITH c AS (SELECT * FROM p.src) INSERT OVERWRITE TABLE p.o (a, b) SELECT * FROM c;", ("p.src",)),
    ("SELECT * FROM p.a UNION ALL SELECT a, b FROM p.b;", ("p.a",)),
    ("FROM p.src INSERT OVERWRITE TABLE p.x SELECT * INSERT OVERWRITE TABLE p.y (a) SELECT a;", ("p.src", "p.x")),
    # a * inside, under named output columns, takes nothing by position
    ("WITH c AS (SELECT * FROM p.src) INSERT OVERWRITE TABLE p.o (a) SELECT a FROM c;", ()),
    ("SELECT a FROM p.src WHERE k IN (SELECT k FROM p.t);", ()),
    # a name holding a variable is not guessed
    ("INSERT OVERWRITE TABLE ${t} SELECT * FROM p.src;", ("p.src",)),
])
def test_tables_taken_by_position(sql, tables):
    assert by_position(sql, "p") == tables
