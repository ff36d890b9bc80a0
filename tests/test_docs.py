"""The docs site (mkdocs.yml, docs/): it builds strictly, and its CLI reference lists every
command and option that `lineage --help` prints.

The site is built for real with MkDocs (mkdocs-click renders the click commands, mkdocstrings
the API), into a temporary directory, from a copy of docs/ whose notebooks are the committed,
unexecuted ones (`./dev docs` executes them on the demo first; CI builds it that way too).
"""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
LINEAGE = Path(sys.executable).with_name("lineage")


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """`mkdocs build --strict` of this checkout's docs into a temporary site directory."""
    tmp = tmp_path_factory.mktemp("docs")
    docs = tmp / "docs"
    shutil.copytree(ROOT / "docs", docs, ignore=shutil.ignore_patterns("notebooks"))
    (docs / "notebooks").mkdir()
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copy(notebook, docs / "notebooks" / notebook.name)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    config.update(docs_dir=str(docs), site_dir=str(tmp / "site"))
    config["plugins"][1]["mkdocstrings"]["handlers"]["python"]["paths"] = [str(ROOT / "src")]
    (tmp / "mkdocs.yml").write_text(yaml.safe_dump(config))
    built = subprocess.run([str(LINEAGE.with_name("mkdocs")), "build", "--strict", "-f", str(tmp / "mkdocs.yml")],
                           cwd=ROOT, capture_output=True, text=True, timeout=600, env={"NO_MKDOCS_2_WARNING": "1",
                                                                                      "PATH": "/usr/bin:/bin"})
    assert built.returncode == 0, built.stdout + built.stderr
    return tmp / "site"


def help_of(*command: str) -> tuple[list[str], set[str]]:
    """(subcommands, long options) as `lineage ... --help` prints them."""
    text = subprocess.run([str(LINEAGE), *command, "--help"], capture_output=True, text=True, check=True).stdout
    commands: list[str] = []
    if "\nCommands:\n" in text:
        commands = re.findall(r"^  ([a-z][a-z0-9-]*)\s", text.split("\nCommands:\n", 1)[1], re.M)
    options_part = text.split("\nOptions:\n", 1)[1].split("\nCommands:\n", 1)[0]
    options = set(re.findall(r"^  (?:-\w, )?(--[a-z][a-z0-9-]*)", options_part, re.M))
    return commands, options


def test_the_cli_reference_lists_every_command_and_option(site):
    page = (site / "cli" / "index.html").read_text()
    sections = re.split(r'<h[2-6] id="(lineage[a-z0-9-]*)"', page)
    by_id = {sections[i]: html.unescape(sections[i + 1]) for i in range(1, len(sections) - 1, 2)}
    seen = 0
    todo: list[tuple[str, ...]] = [()]
    while todo:
        command = todo.pop()
        subcommands, options = help_of(*command)
        anchor = "-".join(("lineage", *command))
        assert anchor in by_id, f"the CLI reference has no section for `lineage {' '.join(command)}`"
        # a group's own options come before its first subcommand's heading
        listed = set(re.findall(r"<code>(--[a-z][a-z0-9-]*)", by_id[anchor]))
        assert options - {"--help"} <= listed, f"lineage {' '.join(command)}: {sorted(options - listed - {'--help'})} missing"
        todo += [(*command, sub) for sub in subcommands]
        seen += 1
    assert seen >= 19  # the group, its commands, export's two targets


def test_the_site_holds_every_page_of_the_nav(site):
    for page in ("index.html", "cli/index.html", "api/index.html", "mapping/index.html", "cypher/index.html",
                 "benchmarks/index.html", "operating-safely/index.html"):
        assert (site / page).is_file(), page
    api = (site / "api" / "index.html").read_text()
    for name in ("lineage.analysis.api", "lineage.graph.api", "lineage.facts.core"):
        assert f'id="{name}"' in api, name
    assert "reach.py" in (site / "benchmarks" / "index.html").read_text()  # benchmarks/README.md is included


README = ROOT / "README.md"


def test_the_readme_is_short_and_starts_with_the_two_commands():
    """Issue 35: at most 300 lines (as `wc -l` counts), opening on the two set-up commands."""
    text = README.read_text()
    assert text.count("\n") <= 300, f"README.md has {text.count(chr(10))} lines"
    assert text.splitlines()[:6] == [
        "# lineage", "", "```bash",
        "./dev demo     # set up everything, then run the main job end to end on a generated platform",
        "./dev test     # set up everything, then run the test suite", "```"]


def test_the_readme_links_pages_of_the_site():
    """Every docs/ page the README links exists and is in the site's navigation."""
    nav = (ROOT / "mkdocs.yml").read_text()
    linked = set(re.findall(r"\]\(docs/([\w./-]+?\.md)(?:#[\w-]+)?\)", README.read_text()))
    assert len(linked) >= 12, sorted(linked)
    for page in linked:
        assert (ROOT / "docs" / page).is_file() and f": {page}" in nav, page

