"""The package's shape rules (STYLE: no module over 700 lines except pure data tables; no import cycle).

Both are read from the source with ``ast``: nothing is imported, so the checks hold for modules that
are never imported by a test, and a cycle is found even where Python's import order happens to hide it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "lineage"
MAX_LINES = 700

# Modules allowed over MAX_LINES because they are pure data tables (literals, no logic).
# Each entry says what the table is; a module joins this list only if it stays data.
DATA_TABLES = {
    # the Dataphin event catalogue: one literal row per documented event type
    "lineage.events.dataphin_catalogue",
}


def _modules() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the package (``__init__`` is its package)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _module_level_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Imports run when the module is imported: top level, inside try/if, not under TYPE_CHECKING."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.stmt] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If):
            if not _is_type_checking(node):
                stack.extend(node.body)
            stack.extend(node.orelse)
        elif isinstance(node, ast.Try):
            stack.extend(node.body + node.orelse + node.finalbody)
            for handler in node.handlers:
                stack.extend(handler.body)
        elif isinstance(node, ast.With):
            stack.extend(node.body)
    return found


def _imported(module: str, path: Path, node: ast.Import | ast.ImportFrom) -> set[str]:
    """The package modules an import statement loads (the most specific existing module)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{base}" if base else package
        # `from pkg import sub` loads the submodule pkg.sub when there is one, else pkg itself
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
    out = set()
    for name in names:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name:
            out.add(name)
    return out


def _graph(trees: dict[str, ast.Module], collect) -> nx.DiGraph:
    """Module -> the package modules its imports (those ``collect`` finds in its tree) load."""
    graph = nx.DiGraph()
    for module, tree in trees.items():
        graph.add_node(module)
        for node in collect(tree):
            for target in _imported(module, MODULES[module], node):
                if target != module:
                    graph.add_edge(module, target)
    return graph


def _trees() -> dict[str, ast.Module]:
    return {module: ast.parse(path.read_text(), str(path)) for module, path in MODULES.items()}


def import_graph() -> nx.DiGraph:
    return _graph(_trees(), _module_level_imports)


def test_no_module_over_700_lines_except_data_tables() -> None:
    sizes = {m: len(p.read_text().splitlines()) for m, p in MODULES.items()}
    over = {m: n for m, n in sizes.items() if n > MAX_LINES and m not in DATA_TABLES}
    assert over == {}, f"modules over {MAX_LINES} lines (split them, or list a pure data table): {over}"
    # the allow-list stays honest: every entry exists (renames must update it)
    assert DATA_TABLES <= set(MODULES), DATA_TABLES - set(MODULES)


def test_data_table_modules_hold_no_logic() -> None:
    """An allow-listed module is data: no function bodies beyond a few lines, no classes with methods."""
    for module in DATA_TABLES:
        tree = ast.parse(MODULES[module].read_text())
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                assert length <= 15, f"{module}.{node.name} is {length} lines: not a pure data table"


def test_import_graph_is_read() -> None:
    """The walker sees real edges (so an empty graph cannot pass the cycle test by accident)."""
    graph = import_graph()
    assert graph.number_of_edges() > len(MODULES)


def test_import_walker_finds_a_cycle() -> None:
    """The cycle check itself can fail: two modules importing each other are reported."""
    a = ast.parse("from lineage.store import schema\n")
    b = ast.parse("import lineage.ids\n")
    graph = _graph({"lineage.ids": a, "lineage.store.schema": b}, _module_level_imports)
    assert sorted(map(sorted, nx.simple_cycles(graph))) == [["lineage.ids", "lineage.store.schema"]]


def test_no_import_cycle() -> None:
    graph = import_graph()
    cycles = sorted(" -> ".join(c + [c[0]]) for c in nx.simple_cycles(graph))
    assert cycles == [], "import cycles (module-level imports):\n" + "\n".join(cycles[:20])


def test_no_module_level_import_circle() -> None:
    """No strongly connected component of more than one module among module-level imports."""
    circles = [sorted(c) for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert circles == [], f"module-level import circles: {circles}"


def _every_import(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import that can run, function-level (lazy) ones included; not those under TYPE_CHECKING."""
    found: list[ast.Import | ast.ImportFrom] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If) and _is_type_checking(node):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))
    return found


def full_import_graph() -> nx.DiGraph:
    """Every import statement, function-level (lazy) ones included."""
    return _graph(_trees(), _every_import)


def test_no_import_circle_through_function_level_imports() -> None:
    """No strongly connected component of more than one module, lazy imports inside functions
    included (issue 35: no import circle in src/); only ``TYPE_CHECKING`` imports, which never
    run, are left out. A function that needs a higher layer moves up, or is handed what it needs."""
    circles = [sorted(c) for c in nx.strongly_connected_components(full_import_graph()) if len(c) > 1]
    assert circles == [], f"import circles (through function-level imports): {circles}"


def test_function_level_walker_finds_a_circle_through_a_lazy_import() -> None:
    """The full walker reads imports inside functions and skips ``TYPE_CHECKING`` ones: two modules
    whose circle closes only through a lazy import are reported."""
    a = ast.parse("def f():\n    from lineage.store import schema\n")
    b = ast.parse("import lineage.ids\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import lineage.errors\n")
    graph = _graph({"lineage.ids": a, "lineage.store.schema": b}, _every_import)
    assert _module_level_imports(a) == []  # a circle the module-level test cannot see
    circles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert circles == [["lineage.ids", "lineage.store.schema"]] and "lineage.errors" not in graph


ROOT_MODULES_MAX = 6


def test_at_most_six_modules_loose_at_the_package_root() -> None:
    """The root shows the layers: cli/, store/ and the stages are packages; only a few modules stay loose."""
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= ROOT_MODULES_MAX, f"{len(loose)} modules loose in src/lineage: {loose}"
    for package in ("cli", "store"):
        assert (PACKAGE / package / "__init__.py").is_file(), package
