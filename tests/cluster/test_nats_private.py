"""Every private part of nats-py the cluster touches goes through server/cluster/nats_private.py,
which lists them and refuses a nats-py it was not written for."""
from __future__ import annotations

import pytest
from nats.aio.client import Client
from nats.js.kv import KeyValue

from server.cluster import nats_private
from tests.fences import SERVER, private_names, used_outside, uses

FENCE = SERVER / "cluster" / "nats_private.py"
# asyncssh's fence reads asyncssh's privates, one of which nats-py's Client also names
ASYNCSSH_FENCE = SERVER / "asyncssh_private.py"


def test_only_the_fence_touches_nats_py_privately() -> None:
    private = private_names((Client, KeyValue), "nats")
    assert {"_flush_pending", "_pre", "_stream"} <= private  # the reader sees them
    assert used_outside((FENCE, ASYNCSSH_FENCE), private) == {}


def test_the_fence_lists_every_private_name_it_uses() -> None:
    used = uses(FENCE, private_names((Client, KeyValue), "nats"))
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
