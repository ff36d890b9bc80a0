"""The public peer's column-lineage cases (../shared/conformance/sqllineage-column), each run by
``tools/column_conformance.py`` as one finished MaxCompute SQL job through ``lineage ingest`` +
``lineage build`` and read back through ``lineage search`` / ``lineage show``: the column FEEDS a
case's job made, direct plus field-level indirect, must equal the peer's pairs, except in the cases
the tool judges wrong or out of scope (``JUDGED_OUT``, each with why; docs/column-conformance.md
lists them one by one)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "column_conformance.py"
CASES = ROOT / ".." / "shared" / "conformance" / "sqllineage-column"

SPEC = importlib.util.spec_from_file_location("column_conformance", SCRIPT)
TOOL = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(TOOL)
DIFFERS = TOOL.JUDGED_OUT
STAR, UNRESOLVED, INVALID = TOOL.STAR, TOOL.UNRESOLVED, TOOL.INVALID

RESOLVED = (  # partial or named by output names while a job saw only its own DDL; the graph's schema resolves them
    "multiple_statements/test_session_metadata.py::test_do_not_register_session_metadata_for_update_statement",
    "test_column_select_lateral_alias_ref.py::test_column_top_level_enable_lateral_ref_with_metadata_from_subquery",
    "test_column_select_lateral_alias_ref.py::test_column_top_level_enable_lateral_ref_with_metadata_from_nested_subquery",
    "test_metadata_unqualified_column.py::test_select_column_from_tables#1",
    "test_metadata_unqualified_column.py::test_select_column_from_tables#2",
    "test_metadata_wildcard.py::test_select_single_table_wildcard",
    "test_metadata_wildcard.py::test_select_single_table_partial_wildcard_in_subquery#1",
    "test_metadata_wildcard.py::test_select_single_table_partial_wildcard_in_subquery#2",
    "test_metadata_wildcard.py::test_select_table_join_partial_wildcard_at_last",
    "test_metadata_wildcard.py::test_select_table_join_partial_wildcard_at_beginning",
    "test_metadata_wildcard.py::test_select_table_join_multiple_wildcards",
    "test_metadata_wildcard.py::test_select_table_join_multiple_wildcards_merged_at_top_level",
    "test_metadata_wildcard.py::test_select_table_join_multiple_wildcards_at_different_level",
    "test_metadata_wildcard.py::test_wildcard_reference_from_previous_statements",
    "test_metadata_wildcard.py::test_wildcard_table_union_with_same_column_names",
    "test_metadata_wildcard.py::test_wildcard_table_union_with_different_column_names",
    "test_metadata_target_column.py::test_metadata_target_column",
    "test_metadata_target_column.py::test_metadata_target_column_cte",
    "test_metadata_wildcard.py::test_insert_overwrite_with_partition_excludes_partition_columns",
)


@pytest.fixture(scope="module")
def report(spark, tmp_path_factory):
    """One ingest + build for all cases (the session's SparkSession serves the CLI's build)."""
    if not (CASES / "cases.json").exists():
        pytest.skip("../shared/conformance/sqllineage-column is not present")
    return TOOL.compare(CASES, workdir=tmp_path_factory.mktemp("column-conformance"))


def test_peer_cases_agree_except_where_listed(report):
    """Every case agrees with the peer or is a listed, on-purpose difference (and vice versa)."""
    differ = {d["id"] for d in report["differ"]}
    assert report["cases"] == 170
    assert differ == set(DIFFERS)
    assert report["agree"] == report["cases"] - len(DIFFERS) == 150


def test_listed_differences_are_partial_or_named_otherwise(report):
    """Where we differ because we refuse to guess, the job says partial (column_lineage_reason)."""
    by_id = {d["id"]: d for d in report["differ"]}
    for case_id, why in DIFFERS.items():
        if why in (STAR, UNRESOLVED, INVALID):
            assert by_id[case_id]["partial"] or not by_id[case_id]["only_ours"], case_id


def test_cases_needing_another_jobs_schema_agree(report):
    """A ``SELECT *`` over, an unqualified column from, or a positional INSERT into a table whose
    columns the case's DDL job stated: the build resolves them with the graph's schema as of the job."""
    differ = {d["id"] for d in report["differ"]}
    assert len(RESOLVED) == 19 and not differ & set(RESOLVED)
