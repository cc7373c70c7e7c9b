"""The project's shape, read from its source: which package may import which, no import cycle,
no module over 450 lines (docs/ARCHITECTURE.md draws the same picture).

The import graph comes from ast: every `import` and `from ... import`, at module level or inside
a function (an import inside a function is how a cycle hides). Those under `if TYPE_CHECKING:`
count for the directions (the dependency is there for a reader) but not for cycles (they never
run: a type-only cycle between a state and its rule set is how annotations are written).
`from pkg import name` is an edge to the module `pkg.name` when there is one, else to `pkg`.
Importing a submodule also runs its parent packages' `__init__`; that implicit edge is not
counted (as in import-linter and pydeps), so a package may re-export its submodules.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "protocol", "server", "tui")
MAX_LINES = 450  # a module past this does more than one job: split it by concept
CAPPED = ("engine", "protocol", "server")

# Whom each top-level package may import, of this project's packages.
ALLOWED = {
    "engine": set(),
    "protocol": set(),
    "tui": {"protocol"},  # a screen sees protocol messages, never the engine or the server
    "server": {"engine", "protocol", "tui"},
}

# Inside server/: a package imports only packages of a lower layer (never one of its own layer
# but itself). The table knows nothing of the lobby, a session nothing of the hub (it has only
# its byte pipe, server/link.py), and only the entry points (cluster, cli) see everything.
SERVER_LAYERS = (
    ("server", "server.ops"),  # top-level modules (config, link, say...), health and metrics
    ("server.moderation",),
    ("server.store",),
    ("server.table",),
    ("server.lobby", "server.session"),
    ("server.ssh", "server.lan"),
    ("server.cluster",),
    ("server.cli",),
)

# The engine's own layers: core <- rules <- variants <- bots.
ENGINE_LAYERS = ("engine.core", "engine.rules", "engine.variants", "engine.bots")


# -- the graph --------------------------------------------------------------------------------

def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    return {module_name(path, root): path
            for package in packages for path in sorted((root / package).rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def import_nodes(tree: ast.AST, typing_too: bool) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement in the tree, at any depth (under `if TYPE_CHECKING:` if
    ``typing_too``)."""
    out: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if not typing_too and isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def edges(name: str, path: Path, known: dict[str, Path], typing_too: bool = True) -> set[str]:
    """The modules of ``known`` that the module ``name`` (at ``path``) imports."""
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in import_nodes(ast.parse(path.read_text(encoding="utf-8")), typing_too):
        if isinstance(node, ast.Import):
            wanted = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:  # relative: from the module's package, up ``level - 1`` more
                anchor = name.split(".") if is_package else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            wanted = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                      for alias in node.names]
        for target in wanted:
            while target and target not in known:  # `import a.b.c` of a name in a.b
                target = target.rpartition(".")[0]
            if target:
                targets.add(target)
    targets.discard(name)
    return targets


def import_graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES,
                 typing_too: bool = True) -> dict[str, set[str]]:
    known = modules(root, packages)
    return {name: edges(name, path, known, typing_too) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
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


def group(module: str, groups: tuple[str, ...]) -> str | None:
    """The longest of ``groups`` that ``module`` is or lies in."""
    inside = [g for g in groups if module == g or module.startswith(g + ".")]
    return max(inside, key=len, default=None)


def layer_breaks(graph: dict[str, set[str]], layers: tuple[tuple[str, ...], ...]) -> list[str]:
    """Every edge from a group of ``layers`` to another group that is not on a lower layer."""
    rank = {g: i for i, layer in enumerate(layers) for g in layer}
    groups = tuple(rank)
    wrong = []
    for module, targets in graph.items():
        mine = group(module, groups)
        for target in targets:
            theirs = group(target, groups)
            if mine is None or theirs is None or mine == theirs:
                continue
            if rank[theirs] >= rank[mine]:
                wrong.append(f"{module} -> {target}")
    return sorted(wrong)


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph()


@pytest.fixture(scope="module")
def runtime_graph() -> dict[str, set[str]]:
    return import_graph(typing_too=False)


# -- the project --------------------------------------------------------------------------------

def test_each_package_imports_only_what_it_may(graph: dict[str, set[str]]) -> None:
    wrong = sorted(f"{module} -> {target}" for module, targets in graph.items() for target in targets
                   if target.split(".")[0] != module.split(".")[0]
                   and target.split(".")[0] not in ALLOWED[module.split(".")[0]])
    assert not wrong, wrong


def test_server_packages_import_only_lower_layers(graph: dict[str, set[str]]) -> None:
    assert {"server.lobby.hub", "server.table.actor", "server.ssh.server", "server.cli.main"} <= set(graph)
    every = {".".join(m.split(".")[:2]) for m in graph if m.startswith("server.")
             and (ROOT / m.replace(".", "/")).is_dir()}
    placed = {g for layer in SERVER_LAYERS for g in layer}
    assert every <= placed, f"a package of server/ on no layer: {sorted(every - placed)}"
    assert layer_breaks(graph, SERVER_LAYERS) == []


def test_engine_layers_import_one_way(graph: dict[str, set[str]]) -> None:
    layers = tuple((layer,) for layer in ENGINE_LAYERS)
    assert layer_breaks(graph, layers) == []
    # nor does any layer go back through the package's front door
    assert [f"{m} -> engine" for m, targets in graph.items()
            if group(m, ENGINE_LAYERS) and "engine" in targets] == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle(runtime_graph: dict[str, set[str]], package: str) -> None:
    found = [c for c in cycles(runtime_graph) if any(m.split(".")[0] == package for m in c)]
    assert not found, f"import cycles in {package}: {found}"


@pytest.mark.parametrize("package", CAPPED)
def test_no_module_over_450_lines(package: str) -> None:
    long = {str(path.relative_to(ROOT)): n for path in sorted((ROOT / package).rglob("*.py"))
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, long


# -- the walker itself ----------------------------------------------------------------------------

def test_the_graph_sees_imports_in_functions_relative_and_under_type_checking(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub.b import B\n")
    (pkg / "a.py").write_text("import pkg.sub.b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    from ..a import x\n")
    (pkg / "c.py").write_text("from pkg import a\nfrom typing import TYPE_CHECKING\n"
                              "if TYPE_CHECKING:\n    from pkg.d import D\n")
    (pkg / "d.py").write_text("from pkg.c import thing\n")
    found = import_graph(tmp_path, ("pkg",))
    assert found["pkg.a"] == {"pkg.sub.b"} and found["pkg.sub.b"] == {"pkg.a"}
    assert found["pkg.c"] == {"pkg.a", "pkg.d"}
    assert cycles(found) == [["pkg.a", "pkg.sub.b"], ["pkg.c", "pkg.d"]]
    running = import_graph(tmp_path, ("pkg",), typing_too=False)
    assert running["pkg.c"] == {"pkg.a"} and cycles(running) == [["pkg.a", "pkg.sub.b"]]


def test_a_layer_break_is_found() -> None:
    graph = {"s.low.x": {"s.high.y"}, "s.high.y": {"s.low.z"}, "s.low.z": set(),
             "s.mid.m": {"s.side.n"}, "s.side.n": set()}
    layers = (("s.low",), ("s.mid", "s.side"), ("s.high",))
    assert layer_breaks(graph, layers) == ["s.low.x -> s.high.y", "s.mid.m -> s.side.n"]
