"""Every cypher/*.cypher (the Neo4j-only variants too) through Neo4j's own Cypher parser and
linter, offline: npm @neo4j-cypher/language-support under node (tools/cypher-lint, installed by
./dev setup with `npm ci`), so a query Neo4j would reject fails CI although no Neo4j runs here."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = ROOT / "tools" / "cypher-lint"
FILES = sorted((ROOT / "cypher").glob("*.cypher"))


def lint(*files: Path) -> subprocess.CompletedProcess:
    node = shutil.which("node")
    assert node, "node is missing: run ./dev setup (it installs nodejs and the linter)"
    assert (LINT / "node_modules" / "@neo4j-cypher" / "language-support").is_dir(), \
        "the linter is not installed: run ./dev setup (npm ci in tools/cypher-lint)"
    return subprocess.run([node, str(LINT / "lint.mjs"), *map(str, files)], cwd=LINT, capture_output=True,
                          text=True, timeout=600)


def test_every_saved_query_is_valid_neo4j_cypher(tmp_path):
    """All files pass; the same run proves the linter rejects what Neo4j would: a misspelt clause,
    an undefined variable, and a parameter the header does not set."""
    header = "// Broken\n// Answers: nothing\n// Parameters:\n//   $id  an id\n// Example (Neo4j Browser):\n" \
             "//   :param id => 'x'\n\n"
    broken = {
        "clause.cypher": header + "MATCH (n:Table {id: $id})\nWHER n.id = 1\nRETURN n\n",
        "variable.cypher": header + "MATCH (n:Table {id: $id}) RETURN m\n",
        "parameter.cypher": header + "MATCH (n:Table {id: $id}) RETURN n, $other AS o\n",
    }
    for name, text in broken.items():
        (tmp_path / name).write_text(text)
    ran = lint(*FILES, *(tmp_path / name for name in broken))
    assert ran.returncode == 1, ran.stdout + ran.stderr
    errors = [line for line in ran.stdout.splitlines() if ": " in line and not line.endswith("error(s)")]
    assert not [e for e in errors if "/cypher/" in e], "\n".join(errors)
    assert any(e.startswith(str(tmp_path / "clause.cypher") + ":9:1: Invalid input 'WHER'") for e in errors), errors
    assert any(e.startswith(str(tmp_path / "variable.cypher") + ":8:") and "`m` not defined" in e for e in errors), errors
    assert any(e.startswith(str(tmp_path / "parameter.cypher") + ":8:") and "$other" in e for e in errors), errors
    assert ran.stdout.splitlines()[-1] == f"{len(FILES) + len(broken)} file(s) checked, {len(errors)} error(s)"
