"""The generated platform with Spark jobs reporting OpenLineage runs (``--openlineage-share``),
ingested through the CLI and built once for the tests of this folder that need it."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

OL_TABLES, OL_DAYS, OL_SHARE = 40, 5, 0.15


@pytest.fixture(scope="session")
def openlineage_platform(spark, tmp_path_factory):
    """`lineage generate --tables 40 --days 5 --openlineage-share 0.15`, `ingest --json`, built (read-only)."""
    from click.testing import CliRunner

    from lineage.cli import main
    from lineage.generate import generate
    from lineage.graph.build import build

    root = tmp_path_factory.mktemp("openlineage-platform")
    result = generate(root / "platform", tables=OL_TABLES, days=OL_DAYS, openlineage_share=OL_SHARE)
    warehouse = root / "warehouse"
    ran = CliRunner().invoke(main, ["ingest", str(root / "platform" / "events"), "--warehouse", str(warehouse), "--json"])
    assert ran.exit_code == 0, ran.output
    (warehouse / "aliases.csv").write_text((root / "platform" / "aliases.csv").read_text())
    build(warehouse, spark=spark)
    return SimpleNamespace(root=root / "platform", warehouse=warehouse, summary=result.summary,
                           ingest=json.loads(ran.stdout), truth=root / "platform" / "truth")
