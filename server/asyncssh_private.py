"""Every private part of asyncssh the server touches, in one place, checked at start-up.

asyncssh has no public way to do five things the server needs: leave out the ignore packet
it sends ahead of every packet (server/ssh/ignore.py reads the negotiated ciphers), bound
the zlib inflation and answer a client's first KEXINIT with compression and only the
algorithms it will pick (server/ssh/compression.py, server/ssh/kexinit.py), cap a client's
environment variables (server/ssh/server.py), hand a channel to the program session
(server/session/shell.py) and tell a connection's sessions that its TCP buffer is full
(server/session/write_flow.py). Each of those goes
through a function here, and no other module of ``server/`` names a private attribute of asyncssh
(tests/server/test_asyncssh_private.py reads them all). :func:`check` refuses to start on an
asyncssh this was not written for (pyproject.toml pins the same range) or one that lacks any
of :data:`PRIVATE_NAMES`, rather than fail on a player's connection later.
"""
from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Callable

import asyncssh.compression as _compression
from asyncssh.channel import SSHServerChannel
from asyncssh.connection import SSHConnection

from server.fences import check_fence

PINNED_ASYNCSSH = "2.24."  # pyproject.toml: asyncssh>=2.24.1,<2.25

# (where, name): every private name used below, for the check and the test.
PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    ("SSHConnection", "_enc_alg_cs"), ("SSHConnection", "_enc_alg_sc"),
    ("SSHConnection", "_client_kexinit"), ("SSHConnection", "_cmp_algs"),
    ("SSHConnection", "_kex_algs"), ("SSHConnection", "_enc_algs"), ("SSHConnection", "_mac_algs"),
    ("SSHConnection", "_server_host_key_algs"),
    ("SSHConnection", "_send_kexinit"), ("SSHConnection", "_kexinit_sent"),
    ("SSHConnection", "_recv_handler"), ("SSHConnection", "_session_id"),
    ("SSHConnection", "_loop"),
    ("SSHConnection", "_channels"), ("SSHConnection", "_transport"),
    ("SSHServerChannel", "_env"), ("SSHServerChannel", "_session"),
    ("SSHServerChannel", "_process_env_request"),
    ("asyncssh.compression", "_cmp_decompressors"),
)


def check(installed: str | None = None) -> None:
    """Raise RuntimeError unless the installed asyncssh (or ``installed``) is the pinned one
    and has every private name used here."""
    check_fence("asyncssh", "server/asyncssh_private.py", PINNED_ASYNCSSH, PRIVATE_NAMES, _has, installed)


def _has(where: str, name: str) -> bool:
    if where == "asyncssh.compression":
        return hasattr(_compression, name)
    cls = {"SSHConnection": SSHConnection, "SSHServerChannel": SSHServerChannel}[where]
    # Attributes set in __init__ are not on the class: read them from its source.
    return hasattr(cls, name) or f"self.{name}" in _init_source(cls)


def _init_source(cls: type) -> str:
    return "".join(inspect.getsource(vars(klass)["__init__"]) for klass in cls.__mro__
                   if "__init__" in vars(klass) and klass.__module__.startswith("asyncssh"))


# -- ciphers and compression (server/ssh/ignore.py, server/ssh/compression.py) ----------------

def encryption_algs(conn: Any) -> tuple[bytes, bytes]:
    """The (client-to-server, server-to-client) ciphers negotiated on ``conn``."""
    return conn._enc_alg_cs, conn._enc_alg_sc


@dataclasses.dataclass(frozen=True)
class Offer:
    """The lists a server's KEXINIT is written from (asyncssh sends one encryption, MAC and
    compression list for both directions)."""

    kex: list[bytes]
    host_key: list[bytes]
    encryption: list[bytes]
    mac: list[bytes]
    compression: list[bytes]


def answer_kexinit(conn: Any, answer: Callable[[bytes, Offer], Offer],
                   wait: float) -> None:
    """Send the server's first KEXINIT only once the client's has come, listing
    ``answer(the client's KEXINIT, what the server would list)``; if the client's has not
    come ``wait`` seconds after its version line, the configured lists go out without it.

    Both sides send their KEXINIT at once (RFC 4253 7.1), and asyncssh's server does so as
    the client's version line arrives; it may as well answer the client's, as asyncssh does
    for a client that starts a re-key (``_process_kexinit`` sends ours when
    ``_kexinit_sent`` is false). Called from ``SSHServer.connection_made``, before any byte
    came in."""
    send = conn._send_kexinit  # the bound method, which the instance's attribute shadows
    read_version = conn._recv_handler  # the bound _recv_version, set in __init__
    timers: list[Any] = []

    def send_now() -> None:
        for timer in timers:
            timer.cancel()
        del conn._send_kexinit  # re-keys are asyncssh's own again
        send()

    def send_kexinit() -> None:
        if not conn._session_id:  # the first key exchange
            client = bytes(conn._client_kexinit)
            if not client:
                return  # asked by _recv_version: the client's comes first
            full = Offer(
                kex=list(conn._kex_algs), host_key=list(conn._server_host_key_algs or ()),
                encryption=list(conn._enc_algs), mac=list(conn._mac_algs),
                compression=list(conn._cmp_algs))
            offer = answer(client, full)
            _listed(conn, offer)
            send_now()
            # What is chosen from the full lists is what is chosen from those sent (the
            # client's first of each): the connection keeps its full lists for what follows,
            # but for compression, whose answer re-keys keep offering this client (an
            # OpenSSH client lists "none" first each time).
            _listed(conn, dataclasses.replace(full, compression=offer.compression))
            return
        send_now()

    def unanswered() -> None:
        if not conn._client_kexinit and not conn.is_closed() and "_send_kexinit" in vars(conn):
            send_now()
            conn._kexinit_sent = True  # as _recv_version would have set it

    def recv_version() -> bool:
        done = read_version()
        if conn._recv_handler is not recv_version:  # the version line was read
            conn._kexinit_sent = False  # ours is not sent: _process_kexinit will answer
            timers.append(conn._loop.call_later(wait, unanswered))
        return bool(done)

    conn._send_kexinit = send_kexinit
    conn._recv_handler = recv_version


def _listed(conn: Any, offer: Offer) -> None:
    """Make ``offer`` the lists ``conn``'s next KEXINIT is written from."""
    conn._kex_algs, conn._enc_algs, conn._mac_algs = offer.kex, offer.encryption, offer.mac
    conn._cmp_algs = offer.compression
    if conn._server_host_key_algs:  # (None: no host key, asyncssh lists "null")
        conn._server_host_key_algs = offer.host_key


def replace_decompressor(alg: bytes, factory: Callable[..., object]) -> bool:
    """Make ``factory`` the decompressor asyncssh creates for ``alg`` (server and client);
    False if asyncssh knows no such algorithm."""
    if alg not in _compression._cmp_decompressors:
        return False
    _compression._cmp_decompressors[alg] = factory
    return True


# -- channels and sessions (server/ssh/server.py, server/session/) -------------------------------

def wrap_env_requests(chan: Any, wrap: Callable[[Callable[[Any], bool], dict[str, str]], Callable[[Any], bool]]) -> None:
    """Replace how ``chan`` takes a client's environment request: ``wrap`` gets asyncssh's own
    handler and the channel's environment (a dict it may trim) and returns the new handler."""
    chan._process_env_request = wrap(chan._process_env_request, chan._env)


def set_channel_session(chan: Any, session: object) -> None:
    """Make ``session`` the one ``chan`` hands its callbacks to from now on."""
    chan._session = session


def channel_sessions(conn: Any) -> list[object]:
    """The session object of every open channel of ``conn``."""
    return [chan._session for chan in list(conn._channels.values())]


def transport_of(conn: Any) -> Any:
    """``conn``'s TCP transport (None once it is gone)."""
    return getattr(conn, "_transport", None)
