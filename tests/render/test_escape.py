"""Event text never becomes markup: property tests of lineage.render.escape and of every output
that prints event text (terminal tables, DOT, Mermaid, GraphML), with arbitrary Unicode,
control characters, rich markup, quotes and HTML as names."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len

from lineage.render.columns import Col, table
from lineage.render.escape import CONTROL, clip, markdown, terminal, visible
from lineage.render.formats import to_dot, to_graphml, to_mermaid
from lineage.render.picture import Item, Picture
from lineage.render.columns import Column, fitted
from lineage.render.terminal import console

PIECES = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "[bold red]boss[/]", "[/]", "\x1b]0;pwned\x07",
          "\x1b[2J", "\x9b31m", "x](javascript:alert(3))", "![i](http://e/x.png)", "https://evil.example/a", "a@b.co",
          '"', "'", "\\", "\\n", "`", "``", "|", "*", "_", "#", "&amp;", "&", "\u202e", "\u200b", "\n", "\r", "\t",
          "\x00", "\x7f", ":smile:", "{{ 7*7 }}", "%s", "表", "é", "👩‍💻"]
hostile = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)), max_size=8).map("".join)
"""Text built from the pieces known to break outputs, mixed with arbitrary Unicode."""
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_visible_names_each_control_character():
    assert visible("a\x1b[2Jb\x07\u202ec\n") == "a\\x1b[2Jb\\x07\\u202ec\\x0a"
    assert visible("表 é 👩‍💻 plain") == "表 é 👩‍💻 plain"  # ordinary text, joiners in emoji included, untouched


@FAST
@given(hostile)
def test_visible_leaves_no_control_character_and_is_stable(text):
    shown = visible(text)
    assert not CONTROL.search(shown)
    assert visible(shown) == shown
    if not CONTROL.search(text):
        assert shown == text


@given(st.text(min_size=201, max_size=5000))
def test_clip_keeps_both_ends_and_says_how_much_went(text):
    cut = clip(text, 200)
    assert len(cut) <= 200 and cut.startswith(text[:80]) and cut.endswith(text[-80:])
    went = int(re.search(r"…\[([\d,]+) chars\]…", cut).group(1).replace(",", ""))
    assert len(cut) - len(re.search(r"…\[[\d,]+ chars\]…", cut).group()) + went == len(text)


def _printed(renderable_or_text) -> str:
    out = console()
    out.file = io.StringIO()
    out.print(renderable_or_text)
    return out.file.getvalue()


def test_rich_markup_in_a_name_is_printed_as_written():
    name = "orders_[bold red]x[/bold red]"
    tbl, _ = fitted(120, [Column("name"), Column("id", is_id=True)], [[name, "table:maxcompute:p." + name]])
    assert name in _printed(tbl)
    assert "orders_[bold red]x[/bold red]" in _printed(name)


@FAST
@given(st.lists(hostile, min_size=1, max_size=4), st.integers(30, 160))
def test_terminal_tables_carry_no_control_byte_and_every_name(names, width):
    rows = [[name, f"table:maxcompute:p.{name}", "3"] for name in names]
    tbl, _ = fitted(width, [Column("name"), Column("id", is_id=True), Column("n", justify="right")], rows)
    text = _printed(tbl)
    assert not CONTROL.search(text.replace("\n", ""))
    for name in names:  # each name is there, visible, in order (wrapped over lines when narrow)
        shown = terminal(name, 200)
        if cell_len(shown) < width // 4 and " " not in shown:  # cells: 表 takes two
            assert shown in text.replace("│", "")
    lines = table([Col("name", shrink=1), Col("details", wrap=True)], [[n, n] for n in names], width)
    assert not any(CONTROL.search(line) for line in lines)


def test_a_20000_character_name_is_one_short_cell():
    name = "t" * 10_000 + "[bold]" + "u" * 10_000
    tbl, _ = fitted(100, [Column("name"), Column("id", is_id=True)], [[name, "table:x:" + name]])
    text = _printed(tbl)
    assert len(text.splitlines()) < 20 and "chars]" in text  # not ~1,000 lines


def _picture(names: list[str]) -> Picture:
    items = [Item(id=f"table:maxcompute:p.{n}", label="Table", name=n, distance=i + 1) for i, n in enumerate(names)]
    source = Item(id="table:maxcompute:p.src", label="Table", name="src\x1b[2J", distance=0)
    edges = [(source.id, items[0].id)] + [(a.id, b.id) for a, b in zip(items, items[1:])]
    return Picture(sources=(source,), items=tuple(items), edges=tuple(edges), downstream=True)


@FAST
@given(st.lists(hostile, min_size=1, max_size=4, unique=True))
def test_graphml_parses_and_carries_each_name_visibly(names):
    root = ET.fromstring(to_graphml(_picture(names)))
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    shown = [d.text or "" for d in root.iterfind(".//g:node/g:data[@key='name']", ns)]
    assert shown == ["src\\x1b[2J", *(visible(n) for n in names)]
    assert len(root.findall(".//g:edge", ns)) == len(names)


@FAST
@given(st.lists(hostile, min_size=1, max_size=4, unique=True))
def test_mermaid_labels_hold_no_syntax_from_names(names):
    text = to_mermaid(_picture(names))
    assert not CONTROL.search(text.replace("\n", ""))
    for line in text.splitlines():
        m = re.fullmatch(r'  n\d+\["(.*)"\]', line)
        if m:  # a label: nothing in it closes the quote or bracket, or starts markup or a link
            assert not re.search(r'["\[\]<>`|]', m.group(1).replace("<br/>", ""))
    assert sum(1 for line in text.splitlines() if "-->" in line) == len(names)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is installed by .ci/run (Debian graphviz)")
@settings(max_examples=40, deadline=None)
@given(st.lists(hostile, min_size=1, max_size=3, unique=True))
def test_dot_is_read_by_graphviz_with_every_node_and_label(names):
    import json

    done = subprocess.run(["dot", "-Tjson"], input=to_dot(_picture(names)), capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    graph = json.loads(done.stdout)
    assert len(graph["objects"]) == len(names) + 1 and len(graph["edges"]) == len(names)
    labels = [o["label"] for o in graph["objects"]]
    for name in names:  # DOT's own escapes undone, the name is its first line, made visible
        assert any(label.replace("\\\\", "\\").startswith(visible(name)) or visible(name) in label for label in labels)


@FAST
@given(hostile)
def test_markdown_text_renders_as_that_text_and_nothing_else(text):
    import html

    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    rendered = cmarkgfm.github_flavored_markdown_to_html(f"x {markdown(text)} x", options=Options.CMARK_OPT_UNSAFE)
    tags = re.findall(r"</?([a-zA-Z][^\s/>]*)", rendered)
    shown = visible(text)
    if markdown(text) == shown:  # plain: the same text, and nothing but text
        assert tags == ["p", "p"] and html.unescape(rendered.strip()[3:-4]) == f"x {shown} x"
    elif shown.strip():  # one code span: no link, image, emphasis or HTML from the text
        assert tags == ["p", "code", "code", "p"], rendered
        assert html.unescape(re.search(r"<code>(.*)</code>", rendered, re.S).group(1)) == shown
    else:
        assert tags == ["p", "p"]


@pytest.mark.parametrize("text", ["acme.orders", "2026-11-17T11:00", "+3", "www.evil.example", "https://evil.example",
                                  "a@b.co", "dwd_orders", "x](javascript:alert(3))"])
def test_markdown_keeps_plain_text_plain_and_quotes_the_rest(text):
    plain = text in ("acme.orders", "2026-11-17T11:00", "+3")
    assert (markdown(text) == text) is plain
