"""Hostile event text through ingest, build, report and the terminal (issue 27): report.html has
no element or attribute that came from the text, report.md no HTML, link or image from it, the
terminal no control byte; and property tests that swap arbitrary text into every name a real
report carries."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lineage.cli import main
from lineage.render.escape import CONTROL, visible
from lineage.report import load
from lineage.report.model import Report
from lineage.report.render import html, markdown

from . import hostile
from .conftest import WEEK as DEMO_WEEK

pytestmark = pytest.mark.spark
ROOT = Path(__file__).resolve().parents[2]


class Structure(HTMLParser):
    """Every element and attribute name of a page, in order, and its text."""

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.shape: list[tuple[str, tuple[str, ...]]] = []
        self.text: list[str] = []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.shape.append((tag, tuple(sorted(name for name, _ in attrs))))

    def handle_data(self, data):
        self.text.append(data)


SOURCES = ("src/lineage/report/templates/report.html.j2", "src/lineage/report/svg.py")
TEMPLATE_TAGS = {tag for path in SOURCES for tag in re.findall(r"<([a-z][a-z0-9]*)", (ROOT / path).read_text())}
"""Every element the template and the SVG code can write: any other came from event text."""


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def hostile_report(hostile_warehouse, tmp_path_factory):
    out = tmp_path_factory.mktemp("hostile-report")
    result = run("report", "--warehouse", hostile_warehouse, "--out", out, "--week", hostile.WEEK, "--engine", "local",
                 "--top", 30)
    assert result.exit_code in (0, 3), result.output
    return out / hostile.WEEK


def test_report_html_holds_the_names_as_text_only(hostile_report):
    page = (hostile_report / "report.html").read_text()
    parsed = Structure(page)
    assert {tag for tag, _ in parsed.shape} <= TEMPLATE_TAGS
    assert not any(a.startswith("on") for _, attrs in parsed.shape for a in attrs)
    assert "<script" not in page and "<img" not in page and "<svg onload" not in page
    text = "".join(parsed.text)
    report = load(hostile_report)
    names = {c.entity_name for c in report.changes} | {c.actor_name for c in report.changes if c.actor_name}
    assert hostile.TABLE in names and any(hostile.ACTOR in n for n in names)
    for name in names:
        assert visible(name) in text
    assert "default-src 'none'" in page and "script-src" not in page  # the CSP forbids every script


def test_report_md_has_no_html_link_or_image_from_the_names(hostile_report):
    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    from lineage.report.render import person_markdown

    report = load(hostile_report)
    digests = [person_markdown(report, p) for p in report.people]  # lineage report --person, for each person
    assert digests
    for md in [(hostile_report / "report.md").read_text(), *digests]:
        rendered = cmarkgfm.github_flavored_markdown_to_html(md, options=Options.CMARK_OPT_UNSAFE)
        tags = set(re.findall(r"<([a-zA-Z][^\s/>]*)", rendered))
        assert tags <= {"h1", "h2", "h3", "p", "strong", "code", "ol", "li", "ul"}, tags
        assert "javascript:" not in re.sub(r"<code>.*?</code>", "", rendered, flags=re.S)
        assert not CONTROL.search(md.replace("\n", ""))


@pytest.mark.parametrize("command", ["search", "show", "history"])
def test_terminal_shows_markup_and_escapes_as_text(hostile_warehouse, command):
    args = [command, "acme." if command == "search" else f"table:maxcompute:{hostile.TABLE}", "--warehouse",
            hostile_warehouse]
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert not CONTROL.search(result.output.replace("\n", ""))
    if command != "search":
        assert "[bold red]boss[/]" in result.output.replace("\n", "").replace("│", "").replace(" ", "") or \
            "[bold" in result.output  # rich markup printed as written, never applied
    if command == "show":
        assert "\\x1b]0;pwne" in result.output  # the owner's OSC title sequence, made visible


def test_impact_pictures_of_a_hostile_table_carry_no_control_byte(hostile_warehouse):
    for fmt in ("dot", "mermaid", "graphml"):
        result = run("impact", f"table:maxcompute:{hostile.TABLE}", "--warehouse", hostile_warehouse, "--engine",
                     "local", "--format", fmt)
        assert result.exit_code == 0, result.output
        assert not CONTROL.search(result.output.replace("\n", ""))
        assert "<img" not in result.output or fmt == "dot"  # in DOT it sits inside a quoted string: text


# -- properties: arbitrary text in every name of a real report ------------------------------------------------

NAME_KEYS = {"name", "entity_name", "actor_name", "principal_name", "target_name", "example_id", "status", "privileges",
             "id", "entity_id", "actor", "principal", "target", "owners", "readers", "assets", "table", "tag", "rule",
             "node", "src", "dst", "sensitive", "detail"}
"""Keys whose values are event text (names, ids, statuses, privileges) in report.json."""


def _swap(doc, names: dict[str, str], make):
    """``doc`` with every value under :data:`NAME_KEYS` replaced, one replacement per distinct value."""
    if isinstance(doc, list):
        return [_swap(v, names, make) for v in doc]
    if not isinstance(doc, dict):
        return doc
    out = {}
    for key, value in doc.items():
        if key in NAME_KEYS and isinstance(value, str):
            out[key] = names.setdefault(value, make(len(names)))
        elif key in NAME_KEYS and isinstance(value, list) and all(isinstance(v, str) for v in value):
            out[key] = [names.setdefault(v, make(len(names))) for v in value]
        else:
            out[key] = _swap(value, names, make)
    return out


@pytest.fixture(scope="module")
def demo_doc(demo_warehouse, tmp_path_factory):
    out = tmp_path_factory.mktemp("demo-report")
    result = run("report", "--warehouse", demo_warehouse, "--out", out, "--week", DEMO_WEEK, "--engine", "local")
    assert result.exit_code == 0, result.output
    return json.loads((out / DEMO_WEEK / "report.json").read_text())


text = st.lists(st.one_of(st.sampled_from(["<script>", "</td>", '"', "'", "<img src=x onerror=f()>", "&", "`",
                                           "[bold]", "\x1b[2J", "](javascript:x)", "<!--", "]]>", "\u202e"]),
                          st.text(max_size=6)), max_size=5).map("".join)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(st.lists(text, min_size=1, max_size=6))
def test_any_name_leaves_the_report_structure_alone(demo_doc, drawn):
    benign = Report.model_validate(_swap(demo_doc, {}, lambda i: f"n{i}"))
    evil = Report.model_validate(_swap(demo_doc, {}, lambda i: f"n{i}{drawn[i % len(drawn)]}"))
    assert Structure(html(evil)).shape == Structure(html(benign)).shape
    cmarkgfm = pytest.importorskip("cmarkgfm")
    from cmarkgfm.cmark import Options

    def tags(doc: str) -> list[str]:
        return re.findall(r"</?([a-zA-Z][^\s/>]*)", cmarkgfm.github_flavored_markdown_to_html(
            doc, options=Options.CMARK_OPT_UNSAFE))

    shown = [t for t in tags(markdown(evil)) if t != "code"]  # a name may be a code span, nothing more
    assert shown == [t for t in tags(markdown(benign)) if t != "code"]
