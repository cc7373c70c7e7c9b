"""Every private part of asyncssh the server touches goes through server/asyncssh_private.py,
which lists them and refuses an asyncssh it was not written for."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import asyncssh.compression
import pytest
from asyncssh.channel import SSHServerChannel
from asyncssh.connection import SSHConnection

from server import asyncssh_private

SERVER = Path(__file__).resolve().parents[2] / "server"
FENCE = SERVER / "asyncssh_private.py"


def _asyncssh_private_names() -> set[str]:
    """Every private attribute name the asyncssh classes the server holds define (on the
    class or set in an ``__init__``), and the compression module's."""
    names = set()
    for cls in (SSHConnection, SSHServerChannel):
        for klass in cls.__mro__:
            if not klass.__module__.startswith("asyncssh"):
                continue
            names |= {n for n in vars(klass) if n.startswith("_") and not n.startswith("__")}
            if "__init__" in vars(klass):
                tree = ast.parse(inspect.getsource(klass.__init__).strip().replace("\n    ", "\n"))
                names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                          and isinstance(node.value, ast.Name) and node.value.id == "self"
                          and node.attr.startswith("_") and not node.attr.startswith("__")}
    names |= {n for n in vars(asyncssh.compression) if n.startswith("_") and not n.startswith("__")}
    return names


def _uses(path: Path, names: set[str]) -> set[str]:
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


def test_only_the_fence_touches_asyncssh_privately() -> None:
    private = _asyncssh_private_names()
    assert {"_channels", "_env", "_cmp_decompressors"} <= private  # the reader sees them
    outside = {str(path.relative_to(SERVER.parent)): used for path in sorted(SERVER.rglob("*.py"))
               if path != FENCE and (used := _uses(path, private))}
    # A name asyncssh uses privately but that also names a private attribute of the server's
    # own objects (not read from an asyncssh object) would show here: none does today.
    assert outside == {}


def test_the_fence_lists_every_private_name_it_uses() -> None:
    used = _uses(FENCE, _asyncssh_private_names())
    assert used == {name for _, name in asyncssh_private.PRIVATE_NAMES}


def test_the_installed_asyncssh_passes_and_another_version_is_refused() -> None:
    asyncssh_private.check()
    with pytest.raises(RuntimeError, match="written for asyncssh 2.24.x, not 2.25.0"):
        asyncssh_private.check("2.25.0")


def test_a_missing_private_name_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asyncssh_private, "PRIVATE_NAMES",
                        (*asyncssh_private.PRIVATE_NAMES, ("SSHConnection", "_not_in_asyncssh")))
    with pytest.raises(RuntimeError, match="SSHConnection._not_in_asyncssh"):
        asyncssh_private.check()
