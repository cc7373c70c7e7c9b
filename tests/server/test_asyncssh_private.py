"""Every private part of asyncssh the server touches goes through server/asyncssh_private.py,
which lists them and refuses an asyncssh it was not written for."""
from __future__ import annotations

import asyncssh.compression
import pytest
from asyncssh.channel import SSHServerChannel
from asyncssh.connection import SSHConnection

from server import asyncssh_private
from tests.fences import SERVER, private_names, used_outside, uses

FENCE = SERVER / "asyncssh_private.py"


def _asyncssh_private_names() -> set[str]:
    """Every private attribute name the asyncssh classes the server holds define, and the
    compression module's."""
    names = private_names((SSHConnection, SSHServerChannel), "asyncssh")
    return names | {n for n in vars(asyncssh.compression) if n.startswith("_") and not n.startswith("__")}


def test_only_the_fence_touches_asyncssh_privately() -> None:
    private = _asyncssh_private_names()
    assert {"_channels", "_env", "_cmp_decompressors"} <= private  # the reader sees them
    # A name asyncssh uses privately but that also names a private attribute of the server's
    # own objects (not read from an asyncssh object) would show here: none does today.
    assert used_outside((FENCE,), private) == {}


def test_the_fence_lists_every_private_name_it_uses() -> None:
    used = uses(FENCE, _asyncssh_private_names())
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
