"""Execute notebooks/*.ipynb against a demo warehouse into docs/notebooks/, for the docs site.

The committed notebooks carry no outputs (tests/test_notebooks.py); the site shows them run, with
their charts. `./dev docs` calls this before `mkdocs build`: it runs `lineage demo --out DIR` (a
fresh temporary DIR, so the pages show what this checkout builds; `--demo DIR` reuses DIR's
warehouse when there is one), then runs each notebook top to bottom with nbclient
(LINEAGE_WAREHOUSE=DIR/warehouse), as the tests do. A cell that fails stops the build, naming it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "notebooks"


def demo_warehouse(directory: Path) -> Path:
    warehouse = directory / "warehouse"
    if not (warehouse / "graph").is_dir():
        lineage = Path(sys.executable).with_name("lineage")
        subprocess.run([str(lineage), "demo", "--out", str(directory)], check=True, stdout=subprocess.DEVNULL)
    return warehouse


def execute(warehouse: Path, out: Path = OUT) -> list[Path]:
    import nbformat
    from nbclient import NotebookClient

    out.mkdir(parents=True, exist_ok=True)
    os.environ["LINEAGE_WAREHOUSE"] = str(warehouse)
    written = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        NotebookClient(nb, timeout=900, kernel_name="python3",
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        nbformat.write(nb, out / path.name)
        written.append(out / path.name)
        print(f"docs: executed {path.name}", file=sys.stderr)
    return written


def main() -> None:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--demo", type=Path, help="where `lineage demo` writes (kept, and reused when built)")
    args = parser.parse_args()
    if args.demo:
        execute(demo_warehouse(args.demo))
        return
    with tempfile.TemporaryDirectory(prefix="lineage-docs-") as tmp:
        execute(demo_warehouse(Path(tmp) / "demo"))


if __name__ == "__main__":
    main()
