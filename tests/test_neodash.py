"""docker/neodash/lineage.json: the NeoDash dashboard for people who do not write Cypher.

Every report that queries the graph runs one of the tested cypher/ queries (tests/test_cypher_queries.py):
its text is the file's statement without comments, with `$name` renamed `$neodash_name` (NeoDash
passes only its own parameters). The other reports are NeoDash parameter inputs, each setting a
parameter those queries use, from a label and property of the export's vocabulary."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from test_cypher_queries import CYPHER, NEO4J_ONLY, compact, header

ROOT = Path(__file__).resolve().parents[1]
DASHBOARD = ROOT / "docker" / "neodash" / "lineage.json"


def library() -> dict[str, str]:
    """Dashboard query text -> cypher/ file, for every portable query."""
    out = {}
    for path in sorted(CYPHER.glob("*.cypher")):
        if not path.name.endswith(NEO4J_ONLY):
            out[re.sub(r"\$([A-Za-z_]\w*)", r"$neodash_\1", compact(path.read_text()))] = path.name
    return out


def reports() -> list[dict]:
    board = json.loads(DASHBOARD.read_text())
    return [r for page in board["pages"] for r in page["reports"]]


def test_every_report_runs_a_tested_query():
    from lineage.export.records import NODE_LABELS

    queries = library()
    board = json.loads(DASHBOARD.read_text())
    used, inputs = set(), set()
    for report in reports():
        if report["type"] == "select":
            settings = report["settings"]
            assert settings["parameterName"].startswith("neodash_"), report["id"]
            inputs.add(settings["parameterName"].removeprefix("neodash_"))
            if settings["type"] == "Node Property":
                assert settings["entityType"] in NODE_LABELS and settings["propertyType"] == "id", report["id"]
            else:
                assert settings["type"] == "Free Text" and report["query"] == "RETURN true;", report["id"]
            continue
        assert report["query"] in queries, f"{report['id']}: its query is not one of cypher/'s tested queries"
        used.add(queries[report["query"]])
    # the four views of issue 18: changes by score, a change's impact, PII exposure, access to a table
    assert {"changes_this_week.cypher", "change_impact.cypher", "pii_exposure.cypher", "who_can_access.cypher"} <= used
    needed = {p for name in used for p in header(CYPHER / name)["params"]}
    assert needed == inputs, "every parameter of the reports has an input on the dashboard, and no other"
    defaults = board["settings"]["parameters"]  # each input starts with a value of a header's example
    assert set(defaults) == {f"neodash_{p}" for p in needed}
    examples = {(p, str(v)[:10]) for name in used for p, v in header(CYPHER / name)["examples"].items()}
    assert all((p.removeprefix("neodash_"), v[:10]) in examples for p, v in defaults.items()), defaults


def test_dashboard_is_the_generated_one():
    """lineage.json is what make_dashboard.py writes from today's queries (re-run it after editing one)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_dashboard", DASHBOARD.with_name("make_dashboard.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert json.loads(DASHBOARD.read_text()) == module.build()


def test_neodash_service_opens_the_dashboard():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    neodash = compose["services"]["neodash"]
    assert re.fullmatch(r"neo4jlabs/neodash:2\.4\.\d+", neodash["image"])
    env = neodash["environment"]
    assert (env["standaloneHost"], env["standalonePort"]) == ("localhost", "7687")  # the browser connects to Bolt
    assert env["standaloneDashboardURL"].endswith("/lineage.json")
    mounts = [m.split(":") for m in neodash["volumes"]]
    assert ["./docker/neodash/lineage.json", "/usr/share/nginx/html/lineage.json", "ro"] in mounts
    assert neodash["ports"] == ["${LINEAGE_BIND_ADDRESS:-127.0.0.1}:5005:5005"]
