"""What the tests of the fences around libraries' private parts read (tests/server/
test_asyncssh_private.py, tests/cluster/test_nats_private.py): the private names a library's
classes define, and where the server's modules use them."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

SERVER = Path(__file__).resolve().parents[1] / "server"


def private_names(classes: tuple[type, ...], package: str) -> set[str]:
    """Every private attribute name ``classes`` (and their bases in ``package``) define, on
    the class or set in an ``__init__``."""
    names = set()
    for cls in classes:
        for klass in cls.__mro__:
            if not klass.__module__.startswith(package):
                continue
            names |= {n for n in vars(klass) if n.startswith("_") and not n.startswith("__")}
            if "__init__" in vars(klass):
                tree = ast.parse(inspect.getsource(vars(klass)["__init__"]).strip().replace("\n    ", "\n"))
                names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                          and isinstance(node.value, ast.Name) and node.value.id == "self"
                          and node.attr.startswith("_") and not node.attr.startswith("__")}
    return names


def uses(path: Path, names: set[str]) -> set[str]:
    """The names of ``names`` that ``path`` reads or writes as an attribute of anything but
    ``self`` or ``cls`` (its own objects may well have attributes of the same name), or
    through getattr/setattr with a literal."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in names:
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.add(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and node.args[1].value in names:
            found.add(node.args[1].value)
    return found


def used_outside(fences: tuple[Path, ...], names: set[str]) -> dict[str, set[str]]:
    """Each module of ``server/`` but ``fences`` that uses any of ``names``, and which."""
    return {str(path.relative_to(SERVER.parent)): used for path in sorted(SERVER.rglob("*.py"))
            if path not in fences and (used := uses(path, names))}
