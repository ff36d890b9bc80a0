"""notebooks/: every notebook runs top to bottom against a generated platform, and is committed
without outputs (outputs belong to whoever runs it, not to the repository)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from smalldata import conf_dir

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))


def test_there_are_the_four_notebooks():
    names = {p.stem for p in NOTEBOOKS}
    assert {"01_exploring_lineage", "02_access_and_pii", "03_change_impact", "04_graphframes"} <= names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.cells[0].cell_type == "markdown" and "What this answers" in nb.cells[0].source
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: outputs committed"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_runs_top_to_bottom_on_a_generated_platform(path, generated, monkeypatch, tmp_path):
    monkeypatch.setenv("LINEAGE_WAREHOUSE", str(generated.warehouse))
    # a notebook that starts Spark (04) runs it as the test session does (tests/smalldata.py)
    monkeypatch.setenv("SPARK_CONF_DIR", str(conf_dir(tmp_path / "spark-conf")))
    nb = nbformat.read(path, as_version=4)
    # any error in any cell raises CellExecutionError naming the cell and the traceback
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert str(generated.warehouse) in text
    figures = sum(1 for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {}))
    assert figures >= 2, f"{path.name}: its charts were not drawn"
