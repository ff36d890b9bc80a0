"""The report's column changes (issue 32 part 6): a field removal's row says how many of its
table's downstream tables read the removed column, with the column paths to the nearest ones.

The hand-made graph of ``tests/analysis/test_columns.py``: ``s`` (columns a, b, k) feeds a, b, c
and p table-level; a feeds d, p feeds q, b feeds e: 7 downstream tables. s.a is removed on
2024-07-02 (week 2024-W27). Along direct column FEEDS s.a reaches a.x (table a) and d.u (table
d); p is written by a job whose column lineage is partial, so p and q (after it) count as reading
it: 4 of 7. b (reads s.b only), c (filters on s.a: indirect) and e do not. The nearest readers
by column path: a (s.a -> a.x), then d (s.a -> a.x -> d.u).
"""

from __future__ import annotations

import json
from html.parser import HTMLParser

from analysis.test_columns import CHANGE_ID, cid, graph
from click.testing import CliRunner
from export.graphgen import write_graph

from lineage.cli import main
from lineage.report import load

WEEK = "2024-W27"
HOSTILE = '<script>alert(1)</script>*x*'


def report(tmp_path, vertices, edges, changes):
    wh = write_graph(tmp_path / "wh", vertices, edges, changes)
    out = tmp_path / "reports"
    result = CliRunner().invoke(main, ["report", "--warehouse", str(wh), "--out", str(out), "--week", WEEK,
                                       "--engine", "local"])
    assert result.exit_code in (0, 3), result.output
    return out / WEEK


def test_a_field_removal_says_how_many_downstream_tables_read_the_column(tmp_path):
    folder = report(tmp_path, *graph())
    row = next(c for c in load(folder).changes if c.change_id == CHANGE_ID)
    assert row.column_reach is not None
    assert row.column_reach.columns == [cid("s", "a")]
    assert (row.column_reach.reading, row.column_reach.downstream) == (4, 7)
    assert row.column_reach.paths == [["s.a", "a.x"], ["s.a", "a.x", "d.u"]]
    doc = json.loads((folder / "report.json").read_text())
    assert next(c for c in doc["changes"] if c["change_id"] == CHANGE_ID)["column_reach"]["reading"] == 4
    page = (folder / "report.html").read_text()
    assert "4 of 7 downstream tables read this column: <code>s.a -&gt; a.x</code>, <code>s.a -&gt; a.x -&gt; d.u</code>" in page
    md = (folder / "report.md").read_text()
    assert "4 of 7 downstream tables read this column (" in md and "a.x -" in md


class Elements(HTMLParser):
    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def test_event_text_in_a_column_name_is_escaped(tmp_path):
    vertices, edges, changes = graph()
    bad = f"column:maxcompute:p.a.{HOSTILE}"

    def swap(value):
        return bad if value == cid("a", "x") else value

    vertices = [{**v, "id": swap(v["id"])} for v in vertices]
    edges = [{**e, "src": swap(e["src"]), "dst": swap(e["dst"])} for e in edges]
    folder = report(tmp_path, vertices, edges, changes)
    row = next(c for c in load(folder).changes if c.change_id == CHANGE_ID)
    assert row.column_reach.paths[0] == ["s.a", f"a.{HOSTILE}"]
    page = (folder / "report.html").read_text()
    parsed = Elements(page)
    assert "script" not in parsed.tags
    assert f"s.a -> a.{HOSTILE}" in "".join(parsed.text)
    md = (folder / "report.md").read_text()
    assert "<script>" not in md.replace(f"` s.a -> a.{HOSTILE}", "")  # only inside a code span
    assert f"` s.a -> a.{HOSTILE}" in md
