"""`impact`, `upstream` and `access` as a person reads them, on `lineage demo --small`'s warehouse.

Golden files (read and checked by hand against tests/test_samples.py's platform) at 80 and 160
columns; the facts behind them are also asserted independently of the rendering: what is
collapsed into a node counts the graph's own instances and jobs, pictures parse with the tools
that read them (Graphviz, networkx), and `upstream --json` agrees across engines.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.graph.api import load_rows

pytestmark = pytest.mark.spark

T = "table:maxcompute:retail_dw.{}".format
AS_OF = "2024-07-06T00:00:00Z"  # day 6 of the sample week: the contractor still holds the ETL role
OWNER, ANALYST = "user:aliyun:1912232488744735", "user:aliyun:1320876710332592"
CONTRACTOR = "user:maxcompute:ram$contractor@retail.example:sub"
DWS_NODE, ADS_NODE = "node:dataworks:700100004", "node:dataworks:700100005"


def cli(*args: str, columns: int = 160) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("columns", [80, 160])
def test_impact_reads_top_down(demo_warehouse, golden_text, columns):
    out = cli("impact", T("dwd_orders"), "--warehouse", demo_warehouse, "--as-of", AS_OF, "--engine", "local",
              columns=columns)
    golden_text(f"impact-dwd_orders-{columns}", out)
    lines = out.splitlines()
    # summary first, then the people to tell, then assets by label
    order = [next(i for i, line in enumerate(lines) if line.startswith(h))
             for h in ("affected: ", "people to tell", "Table (", "Node (", "User (")]
    assert order == sorted(order)
    # it fits the terminal, but for a line holding an id longer than the room its name left
    assert all(len(line) <= columns or CONTRACTOR in line for line in lines), "fits the terminal"
    assert "…" in out if columns == 80 else "…" not in out  # at 80, names are shortened, ids never
    for vid in (OWNER, ANALYST, CONTRACTOR, T("dws_sales_daily"), T("ads_sales_report")):
        assert vid in out


def test_impact_people_to_tell_say_why(demo_warehouse):
    out = cli("impact", T("dwd_orders"), "--warehouse", demo_warehouse, "--as-of", AS_OF, "--engine", "local")
    block = out.split("people to tell (3)\n")[1].split("\n\n")[0].splitlines()
    why = {block[i].split()[-1]: block[i + 1].strip() for i in range(0, len(block), 2)}
    assert why == {
        OWNER: "owner of node ads_sales_report, dws_sales_daily; table ads_sales_report, dwd_orders",
        ANALYST: "can read table ads_sales_report",
        CONTRACTOR: "member of role retail_dw.role_etl_reader that can read table dwd_orders",
    }


def test_past_runs_are_not_listed_under_their_node(demo_warehouse):
    """The node's instances, DAG runs and jobs ran before the question's instant: what a change to
    the table reaches is the node (it runs again), never its past runs (issue 67)."""
    vertices, edges = load_rows(demo_warehouse, AS_OF)
    instances = {e["dst"] for e in edges if e["relationship"] == "HAS_INSTANCE" and e["src"] == DWS_NODE}
    jobs = {v["id"] for v in vertices if v["label"] == "Job" and (v["properties"] or {}).get("skynet_id") == "700100004"
            and any(e["src"] == v["id"] and e["relationship"] == "READS" and e["dst"] == T("dwd_orders") for e in edges)}
    assert len(instances) == 5 and len(jobs) == 5
    out = cli("impact", T("dwd_orders"), "--warehouse", demo_warehouse, "--as-of", AS_OF, "--engine", "local")
    line = next(line for line in out.splitlines() if DWS_NODE in line)
    assert "jobs" not in line and "instances" not in line
    assert not any(i in out for i in instances) and not any(j in out for j in jobs)
    every = cli("impact", T("dwd_orders"), "--warehouse", demo_warehouse, "--as-of", AS_OF, "--engine", "local", "--all",
                columns=400)
    affected = json.loads(cli("impact", T("dwd_orders"), "--warehouse", demo_warehouse, "--as-of", AS_OF, "--engine",
                              "local", "--json"))["affected"]
    assert all(a["id"] in every for a in affected) and len(affected) == 9
    assert not any(a["id"] in instances | jobs or a["label"] in ("Instance", "Dag") for a in affected)


def test_a_failed_run_is_explained_by_why(demo_warehouse):
    """On day 7 the dws_sales_daily run failed (samples.py): ``why`` of the node names it as the
    first failed run, after its last good run the day before."""
    vertices, edges = load_rows(demo_warehouse)
    status = {v["id"]: (v["properties"] or {}).get("status") for v in vertices}
    runs = [e["dst"] for e in edges if e["relationship"] == "HAS_INSTANCE" and e["src"] == DWS_NODE]
    assert len(runs) == 7 and [status[r] for r in runs].count("failure") == 1
    failed = next(r for r in runs if status[r] == "failure")
    doc = json.loads(cli("why", DWS_NODE, "--warehouse", demo_warehouse, "--engine", "local", "--json"))
    assert doc["target"] == DWS_NODE and doc["first_failure"]["id"] in {failed} | {
        v["id"] for v in vertices if v["label"] == "Job" and status[v["id"]] in ("failed", "Failed")}
    assert doc["last_success"] is not None and doc["last_success"]["time"] < doc["first_failure"]["time"]


@pytest.mark.parametrize("columns", [80, 160])
def test_access_tells_the_whole_truth(demo_warehouse, golden_text, columns):
    out = cli("access", T("dwd_orders"), "--warehouse", demo_warehouse, "--as-of", AS_OF, columns=columns)
    golden_text(f"access-dwd_orders-{columns}", out)
    grants, owners, metadata = out.split("\n\n")[1:4]
    assert CONTRACTOR[:20] in grants and "role" in grants  # through the ETL role
    assert "dw_owner" in owners and "owner" in owners and "all" in owners  # created the table (MaxCompute)
    assert "owners (metadata)" in metadata and "dw_owner" in metadata  # DataHub ownership, apart
    assert "since" in grants and "until" in grants


def test_access_json_keeps_the_contract(demo_warehouse):
    doc = json.loads(cli("access", T("dwd_orders"), "--warehouse", demo_warehouse, "--as-of", AS_OF, "--json"))
    contract = ("id", "label", "privileges", "path")  # DESIGN.md's minimum (with name): more keys may follow
    assert doc["target"] == T("dwd_orders") and [{k: p[k] for k in contract} for p in doc["principals"]] == [
        {"id": CONTRACTOR, "label": "User", "privileges": ["select"],
         "path": [CONTRACTOR, "role:maxcompute:retail_dw.role_etl_reader", T("dwd_orders")]}]
    assert doc["principals"][0]["name"] == "RAM$contractor@retail.example:sub"


def test_upstream_hop_by_hop(demo_warehouse, golden_text):
    out = cli("upstream", T("ads_sales_report"), "--warehouse", demo_warehouse, "--as-of", AS_OF, "--engine", "local",
              columns=80)
    golden_text("upstream-ads_sales_report-80", out)
    doc = json.loads(cli("upstream", T("ads_sales_report"), "--warehouse", demo_warehouse, "--as-of", AS_OF, "--engine",
                         "local", "--json"))
    assert set(doc) == {"sources", "upstream", "summary"} and doc["sources"] == [T("ads_sales_report")]
    tables = {a["id"]: a["distance"] for a in doc["upstream"] if a["label"] == "Table"}
    assert tables == {T("dws_sales_daily"): 1, T("dim_region"): 1, T("dwd_orders"): 2, T("ods_orders"): 3,
                      T("ods_users"): 3, T("ods_orders_src"): 4, T("ods_users_src"): 4}
    nodes = {a["id"]: a["distance"] for a in doc["upstream"] if a["label"] == "Node"}
    assert nodes[ADS_NODE] == 1 and nodes[DWS_NODE] == 2 and len(nodes) == 5
    for item in doc["upstream"]:
        assert set(item) == {"id", "label", "distance", "path"}
        assert item["path"][0] == T("ads_sales_report") and item["path"][-1] == item["id"]
        assert len(item["path"]) == item["distance"] + 1
    assert doc["summary"] == {"Job": 25, "Node": 5, "Table": 7}


def test_upstream_agrees_across_engines(demo_warehouse):
    local, spark = (json.loads(cli("upstream", T("ads_sales_report"), "--warehouse", demo_warehouse, "--as-of", AS_OF,
                                   "--engine", engine, "--json")) for engine in ("local", "spark"))
    assert local == spark


def _picture(warehouse, fmt: str, command: str = "impact", target: str = "dwd_orders") -> str:
    return cli(command, T(target), "--warehouse", warehouse, "--as-of", AS_OF, "--engine", "local", "--format", fmt)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is installed by .ci/run (Debian graphviz)")
@pytest.mark.parametrize("command, target", [("impact", "dwd_orders"), ("upstream", "ads_sales_report")])
def test_dot_renders_with_graphviz(demo_warehouse, tmp_path, command, target):
    text = _picture(demo_warehouse, "dot", command, target)
    assert "rankdir=LR" in text
    svg = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True, check=True).stdout
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    # every drawn item is a node of the SVG (Graphviz keeps the id attribute)
    assert T(target) in svg and (DWS_NODE in svg)


MERMAID_NODE = re.compile(r'^  (n\d+)\["([^"]*)"\]$')
MERMAID_EDGE = re.compile(r"^  (n\d+) --> (n\d+)$")


@pytest.mark.parametrize("command, target", [("impact", "dwd_orders"), ("upstream", "ads_sales_report")])
def test_mermaid_parses(demo_warehouse, command, target):
    """A structural parse: a flowchart LR header, nodes declared once, every edge's ends declared,
    labels escaped (no quote, bracket or markup inside a label but <br/>), class lines last."""
    lines = _picture(demo_warehouse, "mermaid", command, target).splitlines()
    assert lines[0] == "flowchart LR"
    declared, edges = [], []
    for line in lines[1:]:
        if node := MERMAID_NODE.match(line):
            declared.append(node.group(1))
            label = node.group(2).replace("<br/>", "")
            assert not re.search(r'[<>"\[\]]', label), line
        elif edge := MERMAID_EDGE.match(line):
            edges.append(edge.groups())
        else:
            assert line.startswith(("  classDef ", "  class ")), line
    assert len(declared) == len(set(declared)) and edges
    assert {end for edge in edges for end in edge} <= set(declared)


def test_graphml_reads_with_networkx(demo_warehouse, tmp_path):
    import networkx as nx

    path = tmp_path / "impact.graphml"
    path.write_text(_picture(demo_warehouse, "graphml"))
    graph = nx.read_graphml(path)
    assert graph.is_directed()
    assert graph.nodes[T("dwd_orders")]["source"] is True and graph.nodes[DWS_NODE]["label"] == "Node"
    assert not graph.nodes[DWS_NODE].get("collapsed")  # its past runs are not affected: nothing to collapse
    assert graph.has_edge(T("dwd_orders"), DWS_NODE) and graph.has_edge(DWS_NODE, T("dws_sales_daily"))
    assert not any(n.startswith("instance:") for n in graph.nodes)


def test_blast_radius_table_names_changes_and_fits(demo_warehouse):
    ranked = json.loads(cli("blast-radius", "--warehouse", demo_warehouse, "--engine", "local", "--json"))["changes"]
    out = cli("blast-radius", "--warehouse", demo_warehouse, "--engine", "local", "--top", "3", columns=80)
    lines = out.splitlines()
    assert lines[0] == f"blast radius of {len(ranked)} change(s), the top 3"
    assert all(len(line) <= 80 for line in lines)
    first = lines[2]
    assert first.split()[:2] == ["1", f"{ranked[0]['score']:g}"] and "dwd_orders" in first
    # the affected counts wrap between items, never inside one: every "Label n" is whole on its line
    second = next(i for i, line in enumerate(lines) if re.match(r"\s+2\s", line))
    counts = re.findall(r"([A-Z][A-Za-z]+) (\d+)", "\n".join(line.split("_orders")[-1] for line in lines[2:second]))
    assert {label: int(n) for label, n in counts} == ranked[0]["summary"]


def test_json_and_format_together_is_a_usage_error(demo_warehouse):
    result = CliRunner().invoke(main, ["impact", T("dwd_orders"), "--warehouse", str(demo_warehouse), "--json",
                                       "--format", "dot"])
    assert result.exit_code == 2 and "--json or --format" in result.output
