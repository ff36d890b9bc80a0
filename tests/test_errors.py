"""One family of expected errors, mapped to exit statuses in one place; run reports from one base."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest
from click.testing import CliRunner

from lineage.analysis.engine import UnknownIds
from lineage.cli import main
from lineage.errors import LineageError, SettingsError, SetupError, UsageError
from lineage.export.neo4j import ExportError, ExportInterrupted, Target
from lineage.graph.aliases import AliasError
from lineage.graph.api import GraphNotBuilt, NotATime, to_time
from lineage.graph.build import NothingToBuild
from lineage.io.reader import InputNotFound, expand_paths
from lineage.store.runs import RunReport, new_run_id


@pytest.mark.parametrize("cls", [NothingToBuild, AliasError, GraphNotBuilt, NotATime, UnknownIds, InputNotFound,
                                 ExportError, SettingsError])
def test_usage_errors_exit_2_and_stay_value_errors(cls):
    assert issubclass(cls, UsageError) and issubclass(cls, ValueError) and cls.exit_code == 2


def test_the_other_expected_errors_keep_their_exit_status_and_base():
    assert issubclass(ExportInterrupted, ExportError) and ExportInterrupted.exit_code == 1
    assert issubclass(SetupError, RuntimeError) and SetupError.exit_code == 2
    assert issubclass(ExportError, RuntimeError) and issubclass(InputNotFound, FileNotFoundError)
    assert not issubclass(LineageError, ValueError)


def test_library_raises_typed_errors_with_the_same_messages(tmp_path):
    with pytest.raises(NotATime, match=r"^not a time: 'soon' \(use ISO 8601"):
        to_time("soon")
    with pytest.raises(InputNotFound, match=f"^no such file or directory: {tmp_path / 'nope'}$"):
        expand_paths([tmp_path / "nope"])
    with pytest.raises(ExportError, match=r"^--uri must be a bolt:// or neo4j:// address, not 'http://x'$"):
        Target.from_options("http://x", "neo4j", None, None)
    with pytest.raises(ExportError, match="^--password-env NOT_SET_X: that environment variable is not set$"):
        Target.from_options("bolt://h:1", "neo4j", "NOT_SET_X", None)


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_an_expected_error_is_one_line_with_its_exit_status_and_a_traceback_only_with_debug(tmp_path):
    plain = run("build", "--warehouse", tmp_path)
    assert plain.exit_code == 2
    assert plain.stderr == (f"Error: no events in {tmp_path.resolve() / 'events'}: run `lineage ingest PATH... "
                            f"--warehouse {tmp_path.resolve()}` first\n")
    debug = run("--debug", "build", "--warehouse", tmp_path)
    assert debug.exit_code == 2 and debug.stderr.startswith("Traceback (most recent call last):")
    assert "NothingToBuild" in debug.stderr and debug.stderr.endswith(plain.stderr)
    missing = run("ingest", tmp_path / "nope", "--warehouse", tmp_path / "w")
    assert (missing.exit_code, missing.stderr) == (2, f"Error: no such file or directory: {tmp_path / 'nope'}\n")
    not_built = run("impact", "table:maxcompute:a.b", "--warehouse", tmp_path)
    assert not_built.exit_code == 2 and not_built.stderr.startswith("Error: no graph in ")


PY4J_LOSES_THE_JVM = """
import logging, sys
import py4j.java_gateway
from lineage.cli import main
try:
    main(sys.argv[1:])
finally:  # what Py4J does when the JVM dies before answering a command
    exec(compile('logging.exception("Exception while sending command.")', py4j.java_gateway.__file__, "exec"),
         {"logging": logging})
"""


@pytest.mark.parametrize("debug", [[], ["--debug"]])
def test_a_librarys_log_record_is_not_printed_beside_the_one_line_unless_debug(tmp_path, debug):
    # the CI failure of 2026-11-27: a JVM out of memory mid-command, and Py4J's traceback on stderr
    import subprocess
    import sys

    ran = subprocess.run([sys.executable, "-c", PY4J_LOSES_THE_JVM, *debug, "build", "--warehouse", str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 2
    if debug:
        assert "ERROR:root:Exception while sending command." in ran.stderr
    else:
        assert ran.stderr.startswith("Error: no events in ") and ran.stderr.count("\n") == 1, ran.stderr


def test_an_internal_error_is_exit_1_with_one_line(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    warehouse = tmp_path / "w"
    (warehouse / "graph" / "vertices").mkdir(parents=True)
    (warehouse / "graph" / "edges").mkdir(parents=True)
    # a graph file with columns no build writes: a bug, not input
    pq.write_table(pa.table({"unexpected": [1]}), warehouse / "graph" / "edges" / "part-0.parquet")
    broken = run("impact", "table:maxcompute:a.b", "--warehouse", warehouse, "--engine", "local")
    assert broken.exit_code == 1
    assert broken.stderr.startswith("lineage: internal error: ") and broken.stderr.endswith(
        "(run with --debug for details)\n") and broken.stderr.count("\n") == 1


def test_a_damaged_warehouse_file_is_exit_2_naming_it_and_its_repair(tmp_path):
    """A file that is not parquet (truncated, corrupted) is a damaged warehouse, which the user
    can repair: one line naming the file and the command (issue 16; see tests/test_faults.py)."""
    warehouse = tmp_path / "w"
    (warehouse / "graph" / "vertices").mkdir(parents=True)
    (warehouse / "graph" / "edges").mkdir(parents=True)
    damaged = warehouse / "graph" / "edges" / "part-0.parquet"
    damaged.write_text("not parquet")
    broken = run("impact", "table:maxcompute:a.b", "--warehouse", warehouse, "--engine", "local")
    assert broken.exit_code == 2 and broken.stderr.count("\n") == 1
    assert broken.stderr.startswith(f"Error: damaged file in the warehouse (graph): {damaged}: truncated or corrupted")
    assert broken.stderr.endswith(f"run `lineage build --warehouse {warehouse}` (the graph is made again from the "
                                  "facts; the old one is never read)\n")


@dataclass
class Tally(RunReport):
    id_field = "tally_id"
    derived = ("total",)

    tally_id: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def test_a_report_is_its_fields_then_its_derived_values_in_json_and_in_its_log(tmp_path):
    report = Tally(new_run_id(), {"a": 1, "b": 2})
    assert list(report.as_obj()) == ["tally_id", "counts", "total"] and report.as_obj()["total"] == 3
    assert report.to_json() == report.as_obj() and json.loads(report.as_json()) == report.as_obj()
    path = report.log(tmp_path / "runs")
    assert path == tmp_path / "runs" / f"{report.tally_id}.json"
    assert path.read_text() == json.dumps(report.as_obj(), indent=2) + "\n"
