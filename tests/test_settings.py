"""One settings model: every LINEAGE_* variable, its default, one-line errors naming it, and
the CLI reading it once per command (root options winning) without writing os.environ."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from lineage import spark as factory
from lineage.analysis.engines import local_max_edges
from lineage.cli import main
from lineage.errors import SettingsError, UsageError
from lineage.settings import VARIABLES as SETTING_VARIABLES
from lineage.settings import Settings, current, running

README = Path(__file__).parent.parent / "README.md"
VARIABLES = {variable.name: name for name, variable in SETTING_VARIABLES.items()}


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for variable in VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def test_defaults_are_the_documented_ones():
    settings = Settings.from_env()
    assert (settings.graphframes, settings.spark_master, settings.shuffle_partitions, settings.driver_memory) == (
        "auto", "local[2]", 4, "4g")
    assert settings.cache == Path.home() / ".cache" / "lineage"
    assert (settings.spark_progress, settings.spark_log_level) == (False, "ERROR")
    assert (settings.ingest_local_max_bytes, settings.local_max_edges) == (64 * 1024 * 1024, 500_000)


def test_readme_settings_table_lists_every_variable_with_its_default():
    documented = "\n".join(p.read_text() for p in [README, *sorted((README.parent / "docs").glob("*.md"))])
    rows = dict(re.findall(r"^\| `(LINEAGE_[A-Z_]+)` \| `([^`]*)` \|", documented, re.M))
    assert set(rows) == set(VARIABLES)
    defaults = Settings.from_env()
    for variable, documented in rows.items():
        value = getattr(defaults, VARIABLES[variable])
        if variable == "LINEAGE_CACHE":
            assert documented == "~/.cache/lineage"
        elif variable == "LINEAGE_INGEST_LOCAL_MAX_BYTES":
            assert documented == str(value) == str(64 * 1024 * 1024)
        else:
            assert documented == (str(value).lower() if isinstance(value, bool) else str(value))


def test_every_variable_is_read_by_its_exact_name(monkeypatch, tmp_path):
    values = {
        "LINEAGE_GRAPHFRAMES": "none", "LINEAGE_SPARK_MASTER": "local[1]", "LINEAGE_SHUFFLE_PARTITIONS": "7",
        "LINEAGE_DRIVER_MEMORY": "512m", "LINEAGE_CACHE": str(tmp_path), "LINEAGE_SPARK_PROGRESS": "true",
        "LINEAGE_SPARK_LOG_LEVEL": "warn", "LINEAGE_INGEST_LOCAL_MAX_BYTES": "10", "LINEAGE_LOCAL_MAX_EDGES": "3",
        "LINEAGE_LOCAL_MEMORY": "2g", "LINEAGE_EXECUTOR_MEMORY": "3g",
    }
    assert set(values) == set(VARIABLES)
    for variable, value in values.items():
        monkeypatch.setenv(variable, value)
    monkeypatch.setenv("lineage_local_max_edges", "99")  # names are case-sensitive, as os.environ reads were
    settings = Settings.from_env()
    assert (settings.graphframes, settings.spark_master, settings.shuffle_partitions, settings.driver_memory,
            settings.cache, settings.spark_progress, settings.spark_log_level, settings.ingest_local_max_bytes,
            settings.local_max_edges, settings.local_memory, settings.executor_memory) == (
        "none", "local[1]", 7, "512m", tmp_path, True, "WARN", 10, 3, "2g", "3g")


def test_empty_means_default_and_overrides_win(monkeypatch):
    monkeypatch.setenv("LINEAGE_LOCAL_MAX_EDGES", "")
    monkeypatch.setenv("LINEAGE_SPARK_MASTER", "local[3]")
    settings = Settings.from_env(spark_master="yarn", graphframes=None)
    assert (settings.local_max_edges, settings.spark_master, settings.graphframes) == (500_000, "yarn", "auto")


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("LINEAGE_LOCAL_MAX_EDGES", "many", "LINEAGE_LOCAL_MAX_EDGES must be an integer, not 'many'"),
    ("LINEAGE_INGEST_LOCAL_MAX_BYTES", "64M", "LINEAGE_INGEST_LOCAL_MAX_BYTES must be an integer, not '64M'"),
    ("LINEAGE_SHUFFLE_PARTITIONS", "0", "LINEAGE_SHUFFLE_PARTITIONS must be an integer >= 1, not '0'"),
    ("LINEAGE_SPARK_PROGRESS", "maybe", "LINEAGE_SPARK_PROGRESS must be true or false, not 'maybe'"),
    ("LINEAGE_DRIVER_MEMORY", "lots", "LINEAGE_DRIVER_MEMORY must be a size such as 512m or 4g, not 'lots'"),
    ("LINEAGE_EXECUTOR_MEMORY", "4 g", "LINEAGE_EXECUTOR_MEMORY must be a size such as 512m or 4g, not '4 g'"),
    ("LINEAGE_SPARK_LOG_LEVEL", "loud", "LINEAGE_SPARK_LOG_LEVEL must be one of ALL, DEBUG, ERROR, FATAL, INFO, OFF, "
                                        "TRACE, WARN, not 'loud'"),
])
def test_a_bad_value_is_one_line_naming_the_variable(monkeypatch, variable, value, message):
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as error:
        Settings.from_env()
    assert str(error.value) == message and isinstance(error.value, UsageError)


def test_library_code_reads_the_environment_at_call_time_outside_a_command(monkeypatch):
    assert local_max_edges() == 500_000
    monkeypatch.setenv("LINEAGE_LOCAL_MAX_EDGES", "12")
    assert local_max_edges() == 12 == current().local_max_edges
    assert local_max_edges(Settings.from_env(local_max_edges=5)) == 5
    monkeypatch.setenv("LINEAGE_GRAPHFRAMES", "none")
    assert factory.graphframes_conf() == {}
    jar = factory.graphframes_jar(download=False)
    assert factory.cache_dir(Settings.from_env(cache=str(jar.parent.parent))) == jar.parent.parent


def test_running_scopes_the_current_settings(monkeypatch):
    calls = []

    def load() -> Settings:
        calls.append(1)
        return Settings.from_env(local_max_edges=1)

    with running(load):
        assert local_max_edges() == 1
    assert local_max_edges() == 500_000 and calls == [1]


def test_the_cli_reads_settings_once_and_never_writes_them_back(monkeypatch, tmp_path):
    before = dict(os.environ)
    runner = CliRunner()
    bad = runner.invoke(main, ["--spark-master", "local[1]", "ingest", str(tmp_path), "--warehouse", str(tmp_path / "w")],
                        env={"LINEAGE_INGEST_LOCAL_MAX_BYTES": "lots"})
    assert bad.exit_code == 2
    assert bad.stderr == "Error: LINEAGE_INGEST_LOCAL_MAX_BYTES must be an integer, not 'lots'\n"
    assert dict(os.environ) == before  # neither the option nor the variable leaked into the process
    helped = runner.invoke(main, ["ingest", "--help"], env={"LINEAGE_INGEST_LOCAL_MAX_BYTES": "lots"})
    assert helped.exit_code == 0 and "--warehouse" in helped.stdout  # help never needs the settings


@pytest.mark.parametrize(("value", "expected"), [("yes", True), ("On", True), ("1", True), ("no", False), ("0", False),
                                                 (" false ", False)])
def test_a_flag_reads_the_usual_words(monkeypatch, value, expected):
    monkeypatch.setenv("LINEAGE_SPARK_PROGRESS", value)
    settings = Settings.from_env()
    assert settings.spark_progress is expected and "spark_progress" in settings.given


def test_given_says_what_the_environment_or_an_option_set(monkeypatch):
    monkeypatch.setenv("LINEAGE_DRIVER_MEMORY", "3g")
    settings = Settings.from_env(spark_master="local[1]", graphframes=None)
    assert settings.given == {"driver_memory", "spark_master"}
    shown = settings.replace(spark_progress="true")
    assert shown.spark_progress is True and shown.given == {"driver_memory", "spark_master", "spark_progress"}
    with pytest.raises(SettingsError, match="LINEAGE_SHUFFLE_PARTITIONS must be an integer >= 1, not 0"):
        settings.replace(shuffle_partitions=0)


def test_the_questions_modules_never_import_pydantic():
    """Every command reads its settings; importing pydantic (and building a settings model) took
    0.45 s of each question, whose target is 2 s (issue 31). The event models still use it."""
    import subprocess
    import sys

    modules = ["lineage.cli", "lineage.settings", "lineage.analysis.api", "lineage.analysis.names",
               "lineage.analysis.inspection", "lineage.analysis.local", "lineage.graph.api", "lineage.graph.index"]
    probe = f"import sys\nfor m in {modules!r}: __import__(m)\nprint(sorted(m for m in sys.modules if 'pydantic' in m))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    events = subprocess.run([sys.executable, "-c", "import sys, lineage.events.base; print('pydantic' in sys.modules)"],
                            capture_output=True, text=True, check=True).stdout
    assert events.strip() == "True"  # the probe can see pydantic when it is there
