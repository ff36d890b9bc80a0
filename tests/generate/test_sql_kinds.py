"""The statements real jobs run, on the generated platform (the ``generated`` fixture: 60 tables over
8 days, ingested and built once): none of them is unparsable, and the storage paths they read and
write are Location vertices that impact flows through."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner

from lineage.cli import main
from lineage.graph.api import load_rows
from lineage.sql.lineage import table_lineage

pytestmark = pytest.mark.spark

VARIABLE = "table name is a variable"
"""The one error the generator means: a script whose table name is a DataWorks variable."""
KINDS_RUN = {
    "insert", "multi_insert", "ctas", "merge", "update", "exchange_partition", "clone_table", "unload",
    "create_table", "drop", "add_resource", "msck", "set", "analyze", "describe", "show", "whoami", "use",
    "alter_add_column", "alter_other",
}
"""Statement kinds (``lineage.sql.kinds``) the generator's daily SQL runs."""


def _jobs(generated) -> list[dict]:
    vertices, _ = load_rows(generated.warehouse)
    return [v for v in vertices if v["label"] == "Job"]


def _props(vertex: dict) -> dict[str, str]:
    return dict(vertex.get("properties") or {})


def test_no_generated_statement_is_unparsable(generated):
    errors = [e for job in _jobs(generated) if (e := _props(job).get("sql_error"))]
    assert errors, "the generator keeps its variable-named scripts"
    unparsable = [e for e in errors if VARIABLE not in e]
    assert unparsable == [], unparsable[:3]
    assert all(e.count("statement ") == 1 for e in errors), "only the variable statement of a script fails"


def test_the_generated_sql_runs_every_statement_kind(generated):
    kinds: Counter[str] = Counter()
    for job in _jobs(generated):
        props = _props(job)
        if props.get("sql") and (props.get("task_type") or "").upper() == "SQL":
            for statement in table_lineage(props["sql"], props.get("project")).statements:
                kinds[statement.statement] += 1
    assert KINDS_RUN <= set(kinds), sorted(KINDS_RUN - set(kinds))
    assert kinds["insert"] > kinds["exchange_partition"] > 0  # plain inserts stay the common case


def test_storage_paths_are_location_vertices_that_feed_and_are_fed(generated):
    vertices, edges = load_rows(generated.warehouse)
    locations = {v["id"] for v in vertices if v["label"] == "Location"}
    assert locations and all(loc.startswith("location:oss://acme-") for loc in locations)
    feeds = [e for e in edges if e["relationship"] == "FEEDS"]
    read = {(e["src"], e["dst_label"]) for e in feeds if e["src_label"] == "Location"}
    written = {(e["dst"], e["src_label"]) for e in feeds if e["dst_label"] == "Location"}
    assert read and {label for _, label in read} == {"Table"}  # a lake file joined into a table
    assert written and {label for _, label in written} == {"Table"}  # a table unloaded to OSS
    assert {e["dst"] for e in edges if e["relationship"] == "READS" and e["src_label"] == "Node"} & locations


def test_impact_flows_through_a_location(generated):
    _, edges = load_rows(generated.warehouse)
    lake = sorted(e["src"] for e in edges if e["relationship"] == "FEEDS" and e["src_label"] == "Location")[0]
    fed = {e["dst"] for e in edges if e["relationship"] == "FEEDS" and e["src"] == lake}
    ran = CliRunner().invoke(main, ["impact", lake, "--warehouse", str(generated.warehouse), "--engine", "local", "--json"])
    assert ran.exit_code == 0, ran.output
    affected = {a["id"]: a for a in json.loads(ran.stdout)["affected"]}
    assert fed <= set(affected)
    assert all(affected[t]["label"] == "Table" and affected[t]["path"][0] == lake for t in fed)
