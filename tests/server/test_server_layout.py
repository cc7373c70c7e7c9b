"""The server's layout: no import cycle among its modules (imports inside functions and
under TYPE_CHECKING included), no module over 450 lines, one handler per command."""
from __future__ import annotations

import ast
from pathlib import Path

import protocol as p
from server.config import ServerConfig
from server.lobby import Hub
from server.variants import validate_options, variant_infos

SERVER = Path(__file__).resolve().parents[2] / "server"
MAX_LINES = 450


def module_names(root: Path) -> dict[str, Path]:
    """Every module of the package at ``root``, by dotted name (a package by its own name)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def imported(tree: ast.AST, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``tree`` imports, wherever the import statement is."""
    found = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package, up ``level - 1`` more
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            # `from pkg import sub` imports the submodule; `from mod import name`, the module
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                       for alias in node.names]
        for target in targets:
            while target and target not in known:  # `import a.b.c` of a name in a.b
                target = target.rpartition(".")[0]
            if target and target != module:
                found.add(target)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    modules = module_names(root)
    known = set(modules)
    return {
        name: imported(ast.parse(path.read_text(encoding="utf-8")), name, path.name == "__init__.py", known)
        for name, path in modules.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_cycle_finder_finds_a_cycle_hidden_in_a_function(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub.b import B\n")
    (pkg / "a.py").write_text("import pkg.sub.b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..a import x\n")
    (pkg / "c.py").write_text("from pkg import a\nfrom typing import TYPE_CHECKING\n"
                              "if TYPE_CHECKING:\n    from pkg.d import D\n")
    (pkg / "d.py").write_text("from pkg.c import thing\n")
    graph = import_graph(pkg)
    assert graph["pkg.a"] == {"pkg.sub.b"} and graph["pkg.sub.b"] == {"pkg.a"}
    assert graph["pkg.c"] == {"pkg.a", "pkg.d"}
    assert cycles(graph) == [["pkg.a", "pkg.sub.b"], ["pkg.c", "pkg.d"]]


def test_server_modules_import_each_other_without_a_cycle() -> None:
    graph = import_graph(SERVER)
    assert {"server.lobby.hub", "server.table.actor", "server.store.database"} <= set(graph)
    assert cycles(graph) == []


def test_no_server_module_is_over_450_lines() -> None:
    lengths = {name: len(path.read_text(encoding="utf-8").splitlines())
               for name, path in module_names(SERVER).items()}
    assert {name: n for name, n in lengths.items() if n > MAX_LINES} == {}


def test_every_command_has_exactly_one_handler_in_the_hub() -> None:
    def commands(cls: type[p.Command]) -> set[type[p.Command]]:
        found = set()
        for sub in cls.__subclasses__():
            found |= {sub} | commands(sub)
        return found

    hub = Hub(ServerConfig(), variant_infos(), validate_options)
    assert set(hub.handlers) == commands(p.Command)
