"""Every private part of nats-py the cluster touches goes through server/cluster/nats_private.py,
which lists them and refuses a nats-py it was not written for."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from nats.aio.client import Client
from nats.js.kv import KeyValue

from server.cluster import nats_private

SERVER = Path(__file__).resolve().parents[2] / "server"
FENCE = SERVER / "cluster" / "nats_private.py"
# asyncssh's fence reads asyncssh's privates, one of which nats-py's Client also names
ASYNCSSH_FENCE = SERVER / "asyncssh_private.py"


def _nats_private_names() -> set[str]:
    """Every private attribute name nats-py's ``Client`` and ``KeyValue`` define (on the
    class or set in an ``__init__``)."""
    names = set()
    for cls in (Client, KeyValue):
        for klass in cls.__mro__:
            if not klass.__module__.startswith("nats"):
                continue
            names |= {n for n in vars(klass) if n.startswith("_") and not n.startswith("__")}
            if "__init__" in vars(klass):
                tree = ast.parse(inspect.getsource(vars(klass)["__init__"]).strip().replace("\n    ", "\n"))
                names |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                          and isinstance(node.value, ast.Name) and node.value.id == "self"
                          and node.attr.startswith("_") and not node.attr.startswith("__")}
    return names


def _uses(path: Path, names: set[str]) -> set[str]:
    """The names of ``names`` that ``path`` reads or writes as an attribute of anything but
    ``self`` or ``cls``, or through getattr/setattr with a literal."""
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


def test_only_the_fence_touches_nats_py_privately() -> None:
    private = _nats_private_names()
    assert {"_flush_pending", "_pre", "_stream"} <= private  # the reader sees them
    outside = {str(path.relative_to(SERVER.parent)): used for path in sorted(SERVER.rglob("*.py"))
               if path not in (FENCE, ASYNCSSH_FENCE) and (used := _uses(path, private))}
    assert outside == {}


def test_the_fence_lists_every_private_name_it_uses() -> None:
    used = _uses(FENCE, _nats_private_names())
    assert used == {name for _, name in nats_private.PRIVATE_NAMES}


def test_the_installed_nats_py_passes_and_another_version_is_refused() -> None:
    nats_private.check()
    with pytest.raises(RuntimeError, match="written for nats-py 2.16.x, not 2.17.0"):
        nats_private.check("2.17.0")


def test_a_missing_private_name_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nats_private, "PRIVATE_NAMES",
                        (*nats_private.PRIVATE_NAMES, ("KeyValue", "_not_in_nats_py")))
    with pytest.raises(RuntimeError, match="KeyValue._not_in_nats_py"):
        nats_private.check()
