"""No import cycle anywhere in the project (issue 14).

The import graph is read from the source with ast: every `import` and `from ... import`,
at module level or inside a function (an import inside a function is how a cycle hides),
except those under `if TYPE_CHECKING:`, which never run. `from pkg import name` is an edge
to the module `pkg.name` when there is one, else to `pkg` itself. Importing a submodule
also runs its parent packages' `__init__`; that implicit edge is not counted (as in
import-linter and pydeps), so a package may re-export its submodules.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engine", "protocol", "server", "tui")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement in the tree, at any depth, outside `if TYPE_CHECKING:`."""
    out: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def _edges(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    targets.add(alias.name)
            continue
        base = node.module or ""
        if node.level:
            anchor = name.split(".") if is_package else name.split(".")[:-1]
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join(anchor + ([base] if base else []))
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            if sub in modules:
                targets.add(sub)
            elif base in modules:
                targets.add(base)
    targets.discard(name)
    return targets


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _edges(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def connect(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found




@pytest.mark.parametrize(
    "package",
    [
        "engine",
        "protocol",
        "server",
        "tui",
    ],
)
def test_no_import_cycle(package: str) -> None:
    cycles = [c for c in _cycles(_graph()) if any(m.split(".")[0] == package for m in c)]
    assert not cycles, f"import cycles in {package}: {cycles}"


def test_the_graph_sees_imports_inside_functions() -> None:
    """The walker itself: a function-level import is an edge, a TYPE_CHECKING one is not."""
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from a import b\n"
        "def f():\n    from c import d\n    import e\n"
    )
    names = [n.module if isinstance(n, ast.ImportFrom) else n.names[0].name for n in _imports(tree)]
    assert names == ["typing", "c", "e"]
    assert _cycles({"x": {"y"}, "y": {"x"}, "z": {"x"}}) == [["x", "y"]]


def test_engine_layers_import_one_way() -> None:
    """core <- rules <- variants <- bots, testing: a lower layer never imports a higher one."""
    order = ["engine.core", "engine.rules", "engine.variants", "engine.bots"]
    graph = _graph()

    def layer(module: str) -> int | None:
        for i, prefix in enumerate(order):
            if module == prefix or module.startswith(prefix + "."):
                return i
        return None

    wrong = []
    for module, targets in graph.items():
        mine = layer(module)
        if mine is None:
            continue
        for target in targets:
            theirs = layer(target)
            if target == "engine" or (theirs is not None and theirs > mine):
                wrong.append(f"{module} -> {target}")
    assert not wrong, wrong


MAX_LINES = 450


@pytest.mark.parametrize("package", ["engine", "protocol"])
def test_no_module_over_450_lines(package: str) -> None:
    """A module that grows past this is doing more than one job: split it by concept."""
    long = {
        str(path.relative_to(ROOT)): n
        for path in sorted((ROOT / package).rglob("*.py"))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, long
