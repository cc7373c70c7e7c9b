"""Hostile clients on 127.0.0.1: each abuse is refused or contained, and a well-behaved
player's chat line still reaches the other screen meanwhile. How quickly is the benchmark's
to say (`make bench`, its flood stage): a bound on time here would measure the machine."""
from __future__ import annotations

import asyncio
import time

import asyncssh
import pytest

from tests.e2e import programs
from tests.e2e.harness import ScreenClient, running_server
from tests.e2e.helpers import chat_area, close_all, focus_chat, lobby_client, say

pytestmark = pytest.mark.e2e

async def chat_reaches(sender: ScreenClient, viewer: ScreenClient, text: str) -> bool:
    """``sender`` says ``text`` and ``viewer``'s chat shows it (within 10 s: before the
    input budget, a flood held other players' lines back for longer)."""
    await say(sender, text)
    await viewer.wait_for(lambda t: f": {text}" in chat_area(t), timeout=10)
    return True


async def test_environment_variable_flood_is_capped(tmp_path):
    async with running_server(tmp_path, max_env_vars=8) as srv:
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
        try:
            env = {f"X{i}": "v" * 200 for i in range(300)}
            env["LANG"] = "es_AR.UTF-8"
            hostile = ScreenClient()
            await hostile.connect(srv.port, "carla", env=env)
            await hostile.wait_for(lambda t: "carla" in t, timeout=15)
            # LANG came after the cap: refused, so the session speaks the default language.
            assert "Lobby" in hostile.text() and "Salón" not in hostile.text()
            assert await chat_reaches(ana, beto, "sigo aca")
            await hostile.close()
        finally:
            await close_all(ana, beto)


async def test_paste_flood_is_dropped_without_stalling_anyone(tmp_path):
    async with running_server(tmp_path) as srv:
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
        flooder = await lobby_client(srv.port, "flood")
        try:
            await focus_chat(flooder)
            # A 1 MB paste: SSH flow control holds most of it, so the round trip below runs
            # while the server is still receiving it.
            flooder.send(b"\x1b[200~" + b"A" * (1024 * 1024) + b"\x1b[201~")
            assert await chat_reaches(ana, beto, "durante")
            # The flooder's session survives and a long line never reaches the others.
            assert await chat_reaches(beto, ana, "despues")
            assert "AAAAAAAAAAAAAAAAAAAA" not in chat_area(ana.text())
            # The paste never reached the flooder's own input line either: it was dropped whole.
            assert "AAAAAAAAAA" not in flooder.text()
        finally:
            await close_all(ana, beto, flooder)


async def stop_reading_and_storm(stuck: ScreenClient, watcher: ScreenClient, seconds: float = 60) -> None:
    """``stuck`` reads nothing more but keeps forcing whole new screens (resizes, as fast as
    the server takes them), until ``watcher``'s lobby no longer lists it or time is up."""
    assert stuck.conn is not None and stuck.process is not None
    await watcher.wait_for(lambda screen: "stuck" in players(screen), 10)  # listed to begin with
    stuck._reader.cancel()  # type: ignore[union-attr]
    stuck.conn._transport.pause_reading()  # type: ignore[attr-defined]
    deadline = time.monotonic() + seconds
    width = 80
    while time.monotonic() < deadline and "stuck" in players(watcher.text()):
        for _ in range(20):
            width = 161 - width  # 80 <-> 81 columns: a whole new screen each time
            stuck.process.change_terminal_size(width, 24)
        await asyncio.sleep(0.05)


# Small bounds, so that the stalled client's output fills them in seconds (resizes reach the
# App five times a second: about 30 KB a second of screens): uncompressed, as OpenSSH's default.
# The session must be seen paused (its output held) and hung up on for that; the bytes that
# would end it anyway (output_limit) are out of reach here.
STALLING = {"stalled_reader_timeout": 2.0, "output_high_water": 32 * 1024, "output_limit": 64 * 1024 * 1024}


async def check_a_stalled_client_is_dropped(tmp_path, **client: object) -> None:
    """The ``stuck`` client (connected with ``client``'s options) stalls: the server hangs up
    on it while the others play on."""
    async with running_server(tmp_path, **STALLING) as srv:
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
        stuck = await lobby_client(srv.port, "stuck", compression_algs=["none"], **client)
        try:
            await stop_reading_and_storm(stuck, beto)
            assert "stuck" not in players(beto.text()), "the stalled client was not dropped"
            assert await chat_reaches(ana, beto, "sin el colgado")
        finally:
            await close_all(ana, beto, stuck)


async def test_a_client_that_stops_reading_is_dropped(tmp_path):
    """Its SSH window fills (a small one here: OpenSSH's is 2 MB), then the channel's
    buffer: the server holds its output, and hangs up on it."""
    await check_a_stalled_client_is_dropped(tmp_path, window=16 * 1024)


@pytest.mark.slow
async def test_a_client_that_grants_a_huge_window_and_stops_reading_is_dropped(tmp_path):
    """Its window never fills (2 GB): what piles up is the TCP connection's, in the kernel
    and then in the server's transport. That too holds the session's output and hangs up on
    it (server/session/write_flow.py); before, the server kept buffering for it without bound."""
    await check_a_stalled_client_is_dropped(tmp_path, window=2**31, receive_buffer=4096)


def players(screen: str) -> str:
    """The players pane of the lobby screen."""
    return "\n".join(line[:22] for line in screen.splitlines()[3:15])


async def test_idle_player_in_the_lobby_is_disconnected_with_a_reason(tmp_path):
    async with running_server(tmp_path, lobby_idle_timeout=1.0) as srv:
        sleeper = await lobby_client(srv.port, "sleeper")
        await asyncio.wait_for(sleeper.closed.wait(), 15)
        assert "idle in the lobby" in bytes(sleeper.raw).decode("utf-8", "replace")


async def test_connection_rate_per_address(tmp_path):
    """Programs (the `truco` subsystem) count as connections like terminals do."""
    async with running_server(tmp_path, connections_per_minute_per_ip=3) as srv:
        clients = await programs.connect(srv.port, "a1", "a2", "a3")
        try:
            with pytest.raises((asyncssh.DisconnectError, ConnectionError)):
                await programs.connect(srv.port, "a4")
            await programs.round_trip(clients[0], clients[1], "siguen")  # times out if it never arrives
        finally:
            await programs.close_all(clients)


async def test_logins_that_never_finish_are_capped_and_timed_out(tmp_path):
    async with running_server(tmp_path, max_unauthenticated=2, login_timeout=2.0) as srv:
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
        silent, readers = [], []
        try:
            for _ in range(4):  # TCP connections that never speak SSH
                reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
                silent.append(writer)
                readers.append(reader)
            assert await chat_reaches(ana, beto, "con mudos")
            # The login timeout closes them: each reads to its end (a banner at most, then EOF).
            for reader in readers:
                while await asyncio.wait_for(reader.read(4096), 30):
                    pass
            for writer in silent:
                assert writer.transport.is_closing() or writer.is_closing() or await _eof(writer)
        finally:
            for writer in silent:
                writer.close()
            await close_all(ana, beto)


async def _eof(writer: asyncio.StreamWriter) -> bool:
    reader = writer.transport.get_protocol()._stream_reader  # type: ignore[attr-defined]
    try:
        while True:
            data = await asyncio.wait_for(reader.read(4096), 2)
            if not data:
                return True
    except asyncio.TimeoutError:
        return False


async def test_a_dead_peer_is_dropped_by_keepalive(tmp_path):
    """A client that vanished without closing (no reads, no replies) is found by keepalives."""
    async with running_server(tmp_path, keepalive_interval=0.5, keepalive_count_max=2) as srv:
        ana = await lobby_client(srv.port, "ana")
        ghost = await lobby_client(srv.port, "ghost")
        try:
            assert ghost.conn is not None
            ghost._reader.cancel()  # type: ignore[union-attr]
            ghost.conn._transport.pause_reading()  # type: ignore[attr-defined]  # gone silent
            await ana.wait_for(lambda t: "ghost" not in players(t), timeout=10)
            assert await chat_reaches(ana, ana, "solo")
        finally:
            await close_all(ana, ghost)
