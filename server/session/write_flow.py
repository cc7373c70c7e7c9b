"""Whether a session may write now: its SSH channel, and the TCP connection under it.

asyncssh pauses a session when its channel's buffer passes the high water (the client's SSH
window is used up), but does nothing when the connection's transport pauses:
``SSHConnection.pause_writing`` is empty in asyncssh 2.24. A client that grants itself a large
window (a WINDOW_ADJUST costs it nothing, and needs no reading) and stops reading would have
the server keep everything sent to it in the asyncio transport, without bound. ``install``
forwards the transport's pause and resume to the sessions of the connection's channels
(their ``link_writing``), and ``unsent`` counts both buffers for the sessions' watchdogs.

The kernel is asked to hold little unsent output (``hold_little``: TCP_NOTSENT_LOWAT), so a
slow or stalled link fills the transport, which pauses the session, within a few hundred
kilobytes instead of the megabytes Linux's send buffer grows to: a player on a bad mobile
link then gets a fresh whole screen when the link catches up (server/session/shell.py) rather than
seconds of stale frames, and a client that stopped reading is seen as paused soon enough
for the watchdog to hang up.
Reads a connection's channels' sessions and its transport through server/asyncssh_private.py
(asyncssh has no public way); tests/e2e/test_hardening.py stalls a client either way.
"""
from __future__ import annotations

import socket
from typing import Any

from asyncssh.connection import SSHConnection

from server import asyncssh_private

# Unsent bytes the kernel may hold for a connection: beyond what is in flight, enough to keep
# a fast link busy between two writes, far below a frame's lifetime on a slow one.
KERNEL_UNSENT = 64 * 1024
READ_AT_ONCE = 4 * 1024  # bytes of a client's input read (and decrypted) in one callback
_LINK_PAUSED = "_truco_link_paused"  # set on a connection while its transport is paused
_installed = False


class WriteFlow:
    """A session's two reasons to hold its output: a full channel, a full connection.
    Paused while either holds; ``since`` is when the pause began (loop time)."""

    def __init__(self) -> None:
        self.channel = False
        self.link = False
        self.since: float | None = None

    @property
    def paused(self) -> bool:
        return self.channel or self.link

    def update(self, *, now: float, channel: bool | None = None, link: bool | None = None) -> bool:
        """Note a pause or resume of one of them; True if writing may go on again now."""
        was = self.paused
        if channel is not None:
            self.channel = channel
        if link is not None:
            self.link = link
        if self.paused and not was:
            self.since = now
        elif was and not self.paused:
            self.since = None
            return True
        return False


def transport_of(conn: Any) -> Any:
    """The TCP transport under an asyncssh connection (None once it is gone)."""
    return asyncssh_private.transport_of(conn)


def read_little(transport: Any) -> None:
    """Read at most ``READ_AT_ONCE`` bytes of the client per callback. asyncio's selector
    transport reads up to 256 KiB at once (``max_size``, an attribute of CPython's
    ``_SelectorSocketTransport``), and asyncssh decrypts and parses all of it in that one
    callback: a flooding client's 256 KiB held the loop for 50-130 ms, whoever else was due,
    and 16 KiB of window-size changes (some 250 packets) still 35-65 ms. The input gate
    charges it afterwards (server/ssh/server.py); this keeps each bite small (a paste of a few KiB
    takes a read or two)."""
    if isinstance(getattr(transport, "max_size", None), int):
        transport.max_size = READ_AT_ONCE


def hold_little(transport: Any, high_water: int) -> None:
    """Cap what the kernel holds unsent (where the platform can) and pause the connection's
    sessions once ``high_water`` bytes wait in the transport (a whole 300x100 screen fits)."""
    sock = transport.get_extra_info("socket")
    lowat = getattr(socket, "TCP_NOTSENT_LOWAT", None)  # Linux, macOS
    if sock is not None and lowat is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            sock.setsockopt(socket.IPPROTO_TCP, lowat, KERNEL_UNSENT)
        except OSError:
            pass  # not for this socket: the transport's own high water still holds
    transport.set_write_buffer_limits(high=high_water, low=high_water // 4)


def unsent(chan: Any, transport: Any) -> int:
    """Bytes written to a session and not yet taken by the kernel: the channel's buffer
    (beyond the client's window) and the connection's transport buffer."""
    size = chan.get_write_buffer_size()
    if transport is not None and not transport.is_closing():
        size += transport.get_write_buffer_size()
    return int(size)


def link_paused(conn: Any) -> bool:
    """Whether the connection's transport is paused now (for a session opened meanwhile)."""
    return bool(getattr(conn, _LINK_PAUSED, False))


def _tell_sessions(conn: SSHConnection, paused: bool) -> None:
    setattr(conn, _LINK_PAUSED, paused)
    for session in asyncssh_private.channel_sessions(conn):
        hook = getattr(session, "link_writing", None)
        if hook is not None:
            hook(paused)


def install() -> None:
    """Replace asyncssh's empty ``SSHConnection.pause_writing``/``resume_writing`` (once per
    process; a second call changes nothing)."""
    global _installed
    if _installed:
        return

    def pause_writing(self: SSHConnection) -> None:
        _tell_sessions(self, True)

    def resume_writing(self: SSHConnection) -> None:
        _tell_sessions(self, False)

    SSHConnection.pause_writing = pause_writing  # type: ignore[method-assign]
    SSHConnection.resume_writing = resume_writing  # type: ignore[method-assign]
    _installed = True
