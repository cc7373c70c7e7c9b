"""The asyncssh front end: authentication, identity and connection limits.

Identity: the SSH username is the requested display name. Any public key is
accepted, except that a name reserved by one key refuses every other key (so
a client holding several keys moves on to the right one); the fingerprint of
the key that actually signed becomes the connection's identity. A client
without keys gets in as a guest through keyboard-interactive auth with no
prompts (or any password).
"""
from __future__ import annotations

import logging
import time
from typing import Any, Callable

import asyncssh

from protocol.text import name_key
from server import asyncssh_private
from server.ops import metrics
from server.ssh import compression, ignore as ssh_ignore
from server.session import write_flow
from server.session.context import ServerContext
from server.session.input_gate import InputGate
from server.session.shell import TrucoSession

log = logging.getLogger(__name__)

SERVER_VERSION = "TrucoSSH"  # no library name or version for scanners
KEX_ALGS = ["mlkem768x25519-sha256", "curve25519-sha256", "curve25519-sha256@libssh.org"]
# No chacha20-poly1305, though OpenSSH clients prefer it (and so would get it, the client's
# order deciding): asyncssh builds it from two cipher objects and a Poly1305 key per packet,
# 13 us a screen update against 2.5-2.8 us for AES-GCM or AES-CTR with an ETM MAC, and every
# seat's every update is one packet. Every client has one of those (OpenSSH's own order then
# picks aes128-ctr with hmac-sha2-256-etm; PuTTY since 0.76 and asyncssh pick AES-GCM).
ENCRYPTION_ALGS = [
    "aes256-gcm@openssh.com", "aes128-gcm@openssh.com", "aes256-ctr", "aes192-ctr", "aes128-ctr",
]
MAC_ALGS = ["hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com"]
SIG_ALGS = ["ssh-ed25519"]
ssh_ignore.install()  # one packet per write: no CBC cipher is offered (server/ssh/ignore.py)
write_flow.install()  # a full TCP connection holds its sessions' output (server/session/write_flow.py)


class TrucoSSHServer(asyncssh.SSHServer):
    def __init__(self, ctx: ServerContext) -> None:
        self._ctx = ctx
        self._conn: asyncssh.SSHServerConnection | None = None
        self._ip = ""
        self._authenticated = False
        self._counted = False
        self._refusal = ""  # why this connection is refused (said at begin_auth)
        self._last_method = ""
        self._last_key_fp: str | None = None
        self._fingerprint: str | None = None
        self._username = ""
        self._has_session = False
        self.gate: InputGate | None = None  # the session's, once there is one

    # -- connection accounting -------------------------------------------------------
    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self._conn = conn
        transport = write_flow.transport_of(conn)
        if transport is not None:
            write_flow.hold_little(transport, self._ctx.config.output_high_water)
            write_flow.read_little(transport)
        _meter_ssh_input(conn, self)
        compression.offer_compression(conn, compression.configured(self._ctx.config.compression))
        peer = conn.get_extra_info("peername") or ("?", 0)
        self._ip = str(peer[0])
        cfg = self._ctx.config
        ctx = self._ctx
        reason, refusal = self._refused(ctx)
        if refusal:
            metrics.REFUSED.labels(reason).inc()
            log.info("connection from %s refused (%s): %s", self._ip, reason, refusal)
        if refusal and ctx.refusing >= cfg.max_unauthenticated:  # a flood: no key exchange each
            conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, refusal)
            return
        if refusal:
            self._refusal = refusal  # said once the client can read it (begin_auth)
            ctx.refusing += 1
            return
        ctx.per_ip[self._ip] += 1
        ctx.unauthenticated += 1
        self._counted = True

    def _refused(self, ctx: ServerContext) -> tuple[str, str]:
        """Why a new connection from ``self._ip`` is refused: (the metric's reason, what the
        client is told); ("", "") if it is not."""
        cfg = ctx.config
        if not ctx.connection_allowed(self._ip):
            return "rate", "connecting too often, wait a minute"
        if ctx.per_ip[self._ip] >= cfg.max_connections_per_ip:
            return "per_ip", f"too many connections from your address (at most {cfg.max_connections_per_ip})"
        if ctx.unauthenticated >= cfg.max_unauthenticated:
            return "unauthenticated", "server busy, try again shortly"
        if len(ctx.sessions) >= cfg.max_sessions:
            return "full", "the server is full, try again later"
        why = ctx.hub.turning_away()
        if why:
            return "cluster", why
        return "", ""

    def connection_lost(self, exc: Exception | None) -> None:
        self._ctx.released.set()  # (whoever waits on it runs after this, with the counts down)
        if self._refusal:
            self._refusal = ""
            self._ctx.refusing -= 1
        if not self._counted:
            return
        self._counted = False
        ctx = self._ctx
        ctx.per_ip[self._ip] -= 1
        if ctx.per_ip[self._ip] <= 0:
            del ctx.per_ip[self._ip]
        if not self._authenticated:
            ctx.unauthenticated -= 1

    # -- authentication ----------------------------------------------------------------
    def begin_auth(self, username: str) -> bool:
        if self._refusal and self._conn is not None:
            # A refusal sent before the version exchange reads as a garbled banner
            # (OpenSSH: "banner line contains invalid characters"); now it is a disconnect
            # the client shows: "Received disconnect ...: too many connections ..."
            log.info("refused %s: %s", self._ip, self._refusal)
            self._conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, self._refusal)
            return True
        self._username = username
        return True  # ask for auth, so that clients offer their keys

    def _banned(self, fingerprint: str | None) -> bool:
        """A ban of this key, name or address: disconnected with the reason, which the client
        shows. Decided at authentication, not at the connection: an operator's key passes
        every ban (an operator banned by address could otherwise never lift it)."""
        moderation = self._ctx.moderation
        if moderation.is_operator(fingerprint):
            return False
        ban = moderation.book.banned(fingerprint, name_key(self._username), self._ip)
        if ban is None:
            return False
        log.info("banned %s (%r): %s", self._ip, self._username, ban.told())
        metrics.REFUSED.labels("banned").inc()
        if self._conn is not None:
            self._conn.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, ban.told())
        return True

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        fp = str(key.get_fingerprint("sha256"))
        if self._banned(fp):
            return False
        owner = self._ctx.hub.reserved_fingerprint(name_key(username))
        if owner is not None and owner != fp:
            return False  # let the client try its next key, then fall back to guest auth
        # Called for the probe and again for the signed request; the success that
        # follows a signed request is the last call before auth_completed.
        self._last_method, self._last_key_fp = "publickey", fp
        return True

    def kbdint_auth_supported(self) -> bool:
        return True

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self._last_method, self._last_key_fp = "guest", None
        return not self._banned(None)  # no prompts: a guest

    def password_auth_supported(self) -> bool:
        return True

    def validate_password(self, username: str, password: str) -> bool:
        self._last_method, self._last_key_fp = "guest", None
        return not self._banned(None)

    def auth_completed(self) -> None:
        self._authenticated = True
        if self._counted:
            self._ctx.unauthenticated -= 1
        self._fingerprint = self._last_key_fp if self._last_method == "publickey" else None

    # -- what an authenticated client may ask for -------------------------------------
    def session_requested(self) -> Any:
        if self._has_session or self._conn is None:
            return False  # one session per connection
        self._has_session = True
        chan = self._conn.create_server_channel(encoding=None, window=self._ctx.config.input_window)
        _limit_env_requests(chan, self._ctx.config.max_env_vars)
        session = TrucoSession(self._ctx, self._username, self._fingerprint, self._ip)
        session.transport = write_flow.transport_of(self._conn)
        self.gate = session.gate
        return chan, session

    def connection_requested(self, *args: Any) -> bool:
        return False

    def server_requested(self, *args: Any) -> bool:
        return False

    def unix_connection_requested(self, *args: Any) -> bool:
        return False

    def unix_server_requested(self, *args: Any) -> bool:
        return False


def _meter_ssh_input(conn: asyncssh.SSHServerConnection, server: TrucoSSHServer) -> None:
    """Charge the SSH layer's work on what this client sends (decrypting and parsing its
    packets, window-size changes, data it is not allowed to type) to its session's input
    budget: a flood costs that too. While the budget is spent the session stops reading
    the socket, so this work stops with it (server/session/input_gate.py)."""
    receive = conn.data_received
    clock = time.perf_counter

    def metered(data: bytes, datatype: Any = None) -> None:
        gate = server.gate
        if gate is None:
            receive(data, datatype)
            return
        started = clock()
        try:
            receive(data, datatype)
        finally:
            gate.spend(clock() - started)

    conn.data_received = metered  # type: ignore[method-assign]


ENV_NAME_MAX, ENV_VALUE_MAX = 64, 256


def _limit_env_requests(chan: asyncssh.SSHServerChannel[bytes], limit: int) -> None:
    """Refuse environment variables past ``limit`` or of absurd size.

    asyncssh keeps every variable a client sends, without bound; only a few are
    useful here (LANG, LC_*, COLORTERM, NO_COLOR).
    """
    def wrap(accept: Callable[[Any], bool], env: dict[str, str]) -> Callable[[Any], bool]:
        def limited(packet: Any) -> bool:
            if len(env) >= limit:
                return False
            result = accept(packet)
            for key in [k for k, v in env.items() if len(k) > ENV_NAME_MAX or len(v) > ENV_VALUE_MAX]:
                del env[key]
            return bool(result)

        return limited

    asyncssh_private.wrap_env_requests(chan, wrap)


async def start_ssh_server(ctx: ServerContext, host_key: asyncssh.SSHKey,
                           reuse_port: bool = False) -> asyncssh.SSHAcceptor:
    """``reuse_port``: several processes share the port (``--workers``: the kernel spreads
    the connections between them)."""
    cfg = ctx.config
    return await asyncssh.listen(
        cfg.host or None,
        cfg.port,
        server_host_keys=[host_key],
        server_factory=lambda: TrucoSSHServer(ctx),
        encoding=None,
        line_editor=False,
        allow_pty=True,
        agent_forwarding=False,
        x11_forwarding=False,
        server_version=SERVER_VERSION,
        kex_algs=KEX_ALGS,
        encryption_algs=ENCRYPTION_ALGS,
        mac_algs=MAC_ALGS,
        signature_algs=SIG_ALGS,
        compression_algs=compression.configured(cfg.compression),
        login_timeout=cfg.login_timeout,
        keepalive_interval=cfg.keepalive_interval,
        keepalive_count_max=cfg.keepalive_count_max,
        reuse_address=True,
        reuse_port=reuse_port or None,
    )
