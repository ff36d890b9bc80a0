"""The report's four parts (issue 29) and its platform hygiene section (issue 33).

A grant is not a data break: the demo week's breaks are ranked apart from who gained and who lost
access. On a hand-made platform, a revoke whose principal runs a node reading the table lists that
node (and its owner) under "lost access", and an owner change appears only under "should know".
On a generated platform, the planted unused tables and cycle are this week's hygiene findings.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner
from export.graphgen import write_graph

from lineage.cli import main
from lineage.render.escape import markdown as markdown_escape
from lineage.report import load
from lineage.report.hygiene import shares_text

from .conftest import WEEK

pytestmark = pytest.mark.spark
BOB = "user:dataphin:300010002"
ODS_USERS = "table:maxcompute:retail_dw.ods_users"
CONTRACTOR = "user:maxcompute:ram$contractor@retail.example:sub"


def report(warehouse, out, week, *extra):
    result = CliRunner().invoke(main, ["report", "--warehouse", str(warehouse), "--out", str(out), "--week", week,
                                       "--engine", "local", *extra])
    assert result.exit_code in (0, 3), result.output
    return out / week


class Parts(HTMLParser):
    """The text of each ``<div id="part-...">`` of report.html."""

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.text: dict[str, str] = {}
        self._part: str | None = None
        self._depth = 0
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag == "div":
            if self._part:
                self._depth += 1
            elif (dict(attrs).get("id") or "").startswith("part-"):
                self._part, self._depth = dict(attrs)["id"][5:], 0
                self.text[self._part] = ""

    def handle_endtag(self, tag):
        if tag == "div" and self._part:
            if self._depth:
                self._depth -= 1
            else:
                self._part = None

    def handle_data(self, data):
        if self._part:
            self.text[self._part] += data


@pytest.fixture(scope="module")
def demo_week(demo_warehouse, tmp_path_factory):
    return report(demo_warehouse, tmp_path_factory.mktemp("parts"), WEEK)


def test_the_demo_week_ranks_breaks_apart_from_access(demo_week):
    """The demo week (samples.py): a schema change of dwd_orders and a drop of tmp_orders_backup
    may break data; alice approved bob's request for the PII table ods_users (a grant); bob
    returned it and the contractor's role was revoked (access lost, no job of theirs reads it); a
    domain was set on ads_sales_report (a notice)."""
    doc = load(demo_week)
    rows = {c.change_id: c for c in doc.changes}
    parts = {p.effect: p for p in doc.parts}
    assert [p.effect for p in doc.parts] == ["breaks", "exposes", "restricts", "notifies"]
    assert [p.title for p in doc.parts] == ["What may break", "Who gained access",
                                           "Who lost access and which jobs will fail", "What people should know"]
    breaks = [rows[e.change_id] for e in parts["breaks"].entries[:10]]
    assert [(c.kind, c.entity_name) for c in breaks] == [("schema_change", "dwd_orders"), ("drop", "tmp_orders_backup")]
    assert all(c.effect == "breaks" for c in breaks)
    assert [c.score for c in breaks] == sorted((c.score for c in breaks), reverse=True)
    assert [c.rank for c in breaks] == sorted(c.rank for c in breaks)
    # the grant: under access, with its grantee and why the data is sensitive; never under breaks
    [grant] = parts["exposes"].entries
    assert (rows[grant.change_id].kind, rows[grant.change_id].entity_id) == ("permission_change", ODS_USERS)
    assert [p.id for p in grant.principals] == [BOB] and grant.sensitive == ["PII"]
    assert grant.change_id not in {e.change_id for e in parts["breaks"].entries}
    lost = {rows[e.change_id].entity_name: ([p.id for p in e.principals], e.may_fail) for e in parts["restricts"].entries}
    assert lost == {"ods_users": ([BOB], []), "retail_dw.role_etl_reader": ([CONTRACTOR], [])}
    [notice] = parts["notifies"].entries
    assert (rows[notice.change_id].kind, rows[notice.change_id].entity_name, notice.detail) == \
        ("domain_change", "ads_sales_report", "add sales")
    # the headline counts each part; every change is in exactly one part
    figures = {f.key: f.value for f in doc.headline}
    assert {p.effect: p.count for p in doc.parts} == {e: figures[e] for e in parts} == \
        {"breaks": 2, "exposes": 1, "restricts": 2, "notifies": 1}
    assert sorted(e.change_id for p in doc.parts for e in p.entries) == sorted(rows)
    # the pages: each part under its own title, the grant shown under access only
    html = Parts((demo_week / "report.html").read_text())
    assert "bob" in html.text["exposes"] and "PII" in html.text["exposes"] and "ods_users" in html.text["exposes"]
    assert "ods_users" not in html.text["breaks"] and "dwd_orders" in html.text["breaks"]
    md = (demo_week / "report.md").read_text()
    order = [md.index(f"## {p.title} ({p.count})") for p in doc.parts]
    assert order == sorted(order) and md.index("gained access: bob") > order[1]


def test_an_empty_part_says_so_in_one_line(demo_warehouse, tmp_path):
    doc_dir = report(demo_warehouse, tmp_path, "2024-W20")  # a week before the demo's events
    doc = load(doc_dir)
    assert [p.count for p in doc.parts] == [0, 0, 0, 0]
    html = Parts((doc_dir / "report.html").read_text())
    assert "Nothing changed this week that may break data." in html.text["breaks"]
    assert "Nobody gained access this week." in html.text["exposes"]
    assert "Nobody lost access this week." in (doc_dir / "report.md").read_text()


# -- a hand-made platform: a revoke that breaks a node, an owner handed over, a deprecation ---------------------

T0 = datetime(2024, 7, 1, tzinfo=timezone.utc)  # Monday of 2024-W27
T1, T2, T3, T4 = (T0 + timedelta(days=d, hours=9) for d in (1, 2, 3, 4))
SRC, OUT, DOWN = "table:maxcompute:p.src", "table:maxcompute:p.out", "table:maxcompute:p.down"
N1, N2, PII = "node:dataworks:1", "node:dataworks:2", "tag:datahub:PII"
ALICE, BOB_, CAROL, DAVE, ERIN = (f"user:maxcompute:{n}" for n in ("alice", "bob", "carol", "dave", "erin"))
LABELS = {SRC: "Table", OUT: "Table", DOWN: "Table", N1: "Node", N2: "Node", PII: "Tag",
          **{u: "User" for u in (ALICE, BOB_, CAROL, DAVE, ERIN)}}
NAMES = {SRC: "src", OUT: "out", DOWN: "down", N1: "load_out", N2: "load_down", PII: "PII",
         ALICE: "alice", BOB_: "bob", CAROL: "carol", DAVE: "dave", ERIN: "erin"}


def edge(src, rel, dst, start=T0 - timedelta(days=3), end=None, last=None):
    return {"src": src, "dst": dst, "relationship": rel, "valid_from": start, "valid_to": end,
            "last_seen": last or start, "src_label": LABELS[src], "dst_label": LABELS[dst]}


EDGES = [
    edge(N1, "READS", SRC, last=T1), edge(N1, "WRITES", OUT), edge(SRC, "FEEDS", OUT),
    edge(N2, "READS", OUT, last=T1), edge(N2, "WRITES", DOWN), edge(OUT, "FEEDS", DOWN),
    edge(ALICE, "OWNS", N1), edge(DAVE, "OWNS", N2), edge(DAVE, "OWNS", OUT), edge(SRC, "TAGGED", PII),
    edge(ALICE, "CAN_ACCESS", SRC, end=T2),  # revoked at T2: alice runs load_out, which reads src
    edge(BOB_, "CAN_ACCESS", OUT, end=T2),  # revoked at T2: bob runs nothing
    edge(ERIN, "CAN_ACCESS", SRC, start=T1),  # granted at T1 on the PII table
    edge(CAROL, "OWNS", DOWN, end=T3), edge(DAVE, "OWNS", DOWN, start=T3),  # down handed from carol to dave
]


def change(cid, entity, kind, time, **properties):
    return {"change_id": cid, "entity_id": entity, "entity_label": LABELS[entity], "kind": kind, "time": time,
            "actor": None, "event_id": f"e-{cid}", "source": "test", "properties": properties}


CHANGES = [
    change("grant", SRC, "permission_change", T1, grantees=f'["{ERIN}"]', statement="grant select on src to erin"),
    change("revoke-runs", SRC, "permission_change", T2, statement="revoke select on table src from user alice"),
    change("revoke-idle", OUT, "permission_change", T2, statement="revoke select on table out from user bob"),
    change("owner", DOWN, "owner_change", T3, operation="add", modifier="urn:li:corpuser:dave"),
    change("deprecate", OUT, "deprecation", T3),
    change("drop", SRC, "drop", T4, operation="DROP_TABLE"),
]


@pytest.fixture(scope="module")
def hand_report(tmp_path_factory):
    root = tmp_path_factory.mktemp("hand-parts")
    vertices = [{"id": i, "label": label, "name": NAMES[i], "first_seen": T0 - timedelta(days=3)}
                for i, label in LABELS.items()]
    write_graph(root / "warehouse", vertices, EDGES, CHANGES)
    return report(root / "warehouse", root / "reports", WEEK)


def test_a_revoke_lists_the_jobs_that_will_fail_and_an_owner_change_is_only_news(hand_report):
    doc = load(hand_report)
    parts = {p.effect: {e.change_id: e for e in p.entries} for p in doc.parts}
    assert {effect: sorted(found) for effect, found in parts.items()} == {
        "breaks": ["drop"], "exposes": ["grant"], "restricts": ["revoke-idle", "revoke-runs"],
        "notifies": ["deprecate", "owner"]}
    runs = parts["restricts"]["revoke-runs"]
    assert [p.id for p in runs.principals] == [ALICE]
    assert [(j.id, j.label, j.name, [o.id for o in j.owners]) for j in runs.may_fail] == [(N1, "Node", "load_out", [ALICE])]
    idle = parts["restricts"]["revoke-idle"]
    assert [p.id for p in idle.principals] == [BOB_] and idle.may_fail == []
    owner = parts["notifies"]["owner"]
    assert ([o.id for o in owner.old_owners], [o.id for o in owner.new_owners]) == ([CAROL], [DAVE])
    deprecated = parts["notifies"]["deprecate"]
    assert [(r.id, [o.id for o in r.owners]) for r in deprecated.readers] == [(N2, [DAVE])]
    assert parts["exposes"]["grant"].sensitive == ["PII"] and [p.id for p in parts["exposes"]["grant"].principals] == [ERIN]
    # the revoke whose node may fail ranks first among the restrictions
    assert [e.change_id for e in next(p for p in doc.parts if p.effect == "restricts").entries] == ["revoke-runs", "revoke-idle"]
    html = Parts((hand_report / "report.html").read_text())
    assert "load_out" in html.text["restricts"] and "alice" in html.text["restricts"]
    assert "carol → dave" in html.text["notifies"]
    assert "owner_change" not in "".join(text for effect, text in html.text.items() if effect != "notifies")
    md = (hand_report / "report.md").read_text()
    assert "may fail: Node load\\_out (owner alice)" in md or "may fail: Node ` load_out ` (owner alice)" in md


# -- platform hygiene ------------------------------------------------------------------------------------------


def test_the_hygiene_section_finds_the_generators_planted_unused_tables_and_cycle(generated, tmp_path):
    """`lineage generate` plants two tables written daily and read by nothing and two tables feeding
    each other (truth/hygiene.json). The first week's report: both planted tables are new unused
    tables (nothing was written before the week), with the owners of truth/tables.csv and their writers;
    the planted cycle is a new cycle."""
    import csv

    from lineage.generate import DEFAULT_START

    name = "{}-W{:02d}".format(*DEFAULT_START.isocalendar()[:2])
    folder = report(generated.warehouse, tmp_path, name)
    section = load(folder).hygiene
    truth = json.loads((generated.truth / "hygiene.json").read_text())["planted"]
    tables = {row["table_id"]: row for row in csv.DictReader((generated.truth / "tables.csv").open())}
    found = {u.id: u for u in section.new_unused}
    assert set(truth["unused"]) <= set(found)
    for table in truth["unused"]:
        assert [o.id for o in found[table].owners] == [tables[table]["owner"]]
        assert found[table].writers and found[table].runs >= 1  # its node, or the jobs that wrote it
    cycles = {tuple(t.id for t in c.tables): c for c in section.cycles}
    for planted in truth["cycles"]:
        assert tuple(planted) in cycles and cycles[tuple(planted)].new and cycles[tuple(planted)].jobs
    assert section.engine == "local" and section.unused_end >= len(found)
    assert section.risers and all(m.end > m.start for m in section.risers)
    html = (folder / "report.html").read_text()
    assert '<section id="hygiene">' in html
    # issue 69: a self-loop is said apart from tables feeding each other; shares tell start from end
    loops = [c for c in section.cycles if c.self_loop]
    assert all(len(c.tables) == 1 for c in loops) and all(len(c.tables) > 1 for c in section.cycles if not c.self_loop)
    md = (folder / "report.md").read_text()
    assert f"self-loops (a table its own job reads and rewrites, usually by design): {len(loops)}." in md
    for m in section.risers + section.fallers:
        start, end = shares_text(m.start, m.end)
        assert start != end and f"{markdown_escape(m.name)} ({start}% to {end}%)" in md
    for table in truth["unused"]:
        assert tables[table]["name"] in html.split('<section id="hygiene">')[1].split("</section>")[0]
