"""examples/airflow_weekly_report.py is a DAG whose task runs a `lineage weekly` command line that
the CLI accepts (parsed with ast, not imported: Airflow is not a dependency)."""

from __future__ import annotations

import ast
import shlex
from pathlib import Path

from lineage.cli import main, weekly

DAG = Path(__file__).parents[2] / "examples" / "airflow_weekly_report.py"


def _constants(tree: ast.Module) -> dict[str, str]:
    return {t.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name) and isinstance(node.value, ast.Constant)}


def _command(tree: ast.Module) -> str:
    """The BashOperator's bash_command, its f-string filled from the module's constants."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "BashOperator"]
    assert len(calls) == 1
    value = next(k.value for k in calls[0].keywords if k.arg == "bash_command")
    names = _constants(tree)
    if isinstance(value, ast.Constant):
        return value.value
    return "".join(part.value if isinstance(part, ast.Constant) else names[part.value.id] for part in value.values)


def test_airflow_dag_runs_lineage_weekly_with_options_the_cli_accepts():
    tree = ast.parse(DAG.read_text())
    dags = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "DAG"]
    assert len(dags) == 1 and {k.arg for k in dags[0].keywords} >= {"dag_id", "schedule", "start_date"}
    argv = shlex.split(_command(tree))
    assert argv[:2] == ["lineage", "weekly"]
    assert main.get_command(None, "weekly") is weekly  # type: ignore[arg-type]
    ctx = weekly.make_context("weekly", argv[2:])  # raises on an unknown option or a missing required one
    assert ctx.params["paths"] and ctx.params["warehouse"] and ctx.params["out"]
