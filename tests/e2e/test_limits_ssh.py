"""Limits seen from outside: connections per address, chat flood, absurd terminal sizes."""
from __future__ import annotations

import asyncio
import math
import re
import shutil
import time

import asyncssh
import pytest

from tests.e2e import programs
from tests.e2e.harness import ScreenClient, quiet, running_server
from tests.e2e.helpers import (
    KEY_ENTER, chat_area, close_all, focus_chat, in_lobby_as, input_line, lobby_client,
    lobby_word, say,
)

pytestmark = pytest.mark.e2e


async def test_third_connection_from_one_address_is_refused(tmp_path):
    """Programs (the `truco` subsystem) and terminals count alike: two programs, then a third
    connection of either kind is refused."""
    async with running_server(tmp_path, max_connections_per_ip=2) as srv:
        ana, beto = clients = await programs.connect(srv.port, "ana", "beto")
        try:
            third = ScreenClient()
            with pytest.raises((asyncssh.DisconnectError, ConnectionError)) as refused:
                await asyncio.wait_for(third.connect(srv.port, "carla"), 10)
            await third.close()
            if isinstance(refused.value, asyncssh.DisconnectError):
                assert "too many connections" in refused.value.reason
            with pytest.raises((asyncssh.DisconnectError, ConnectionError)):
                await programs.connect(srv.port, "carla")
            # The first two are unaffected.
            assert await programs.round_trip(ana, beto, "still talking") < 10
            assert await programs.round_trip(beto, ana, "me too") < 10
        finally:
            await programs.close_all(clients)
        # A slot frees up when one leaves.
        dora = await lobby_client(srv.port, "dora")
        await dora.close()


def _flood_lines_seen(client: ScreenClient) -> set[str]:
    return set(re.findall(r"flood(\d\d)x", bytes(client.raw).decode("utf-8", "replace")))


async def test_chat_flood_is_cut_and_the_viewer_keeps_updating(tmp_path):
    async with running_server(tmp_path) as srv:  # chat: 1 line/s, bursts of 5
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
        try:
            await focus_chat(ana)  # the lobby's chat stays open after Enter
            started = time.monotonic()
            for i in range(20):
                # As fast as the sender's TUI takes them: a line, Enter as soon as it shows,
                # the next one as soon as the input is empty again.
                token = f"flood{i:02d}x"
                ana.send(token)
                await ana.wait_for(lambda _, token=token: token in input_line(ana), 10)
                ana.send(KEY_ENTER)
                await ana.wait_for(lambda _, token=token: token not in input_line(ana), 10)
            elapsed = time.monotonic() - started
            await ana.wait_for("chatting too fast")
            await beto.wait_for(lambda t: "ana: flood" in chat_area(t))
            # Her next line is the proof that everything the hub let through before it has
            # arrived. The flood spent her chat tokens (1 line/s): she says it again until the
            # hub takes it (a refused line costs no token) and beto's screen, which still
            # follows the lobby, shows it.
            deadline = time.monotonic() + 20
            while True:
                await say(ana, "calm now")
                try:
                    await beto.wait_for(lambda t: "ana: calm now" in chat_area(t), 0.1)
                    break
                except AssertionError:
                    if time.monotonic() > deadline:
                        raise
            seen = _flood_lines_seen(beto)
            # The burst of 5, plus one line per second the flood lasted (~1-2 s, at most 6 or
            # 7 of the 20 lines, on an idle machine; more on a loaded one, which types slower).
            # That some were cut, "chatting too fast" said above.
            assert 1 <= len(seen) <= 5 + math.ceil(elapsed), (sorted(seen), elapsed)
            assert {"00", "01", "02", "03", "04"} <= seen, sorted(seen)  # the burst passes
        finally:
            await close_all(ana, beto)


async def test_lines_typed_ahead_are_sent_one_by_one(tmp_path):
    """On a slow link the keys typed while waiting arrive together: "uno⏎dos⏎" is two
    lines (the lobby's chat stays open after Enter)."""
    async with running_server(tmp_path) as srv:
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
        try:
            await focus_chat(ana)
            ana.send(f"uno{KEY_ENTER}dos{KEY_ENTER}")  # one packet
            await beto.wait_for(lambda t: "ana: " in chat_area(t))
            # Everything the packet caused has reached beto once a later line has.
            await say(ana, "fin")
            chat = chat_area(await beto.wait_for(lambda t: "ana: fin" in chat_area(t), 15))
            lines = [line.strip() for line in chat.splitlines()
                     if line.startswith("ana:") and line.strip() != "ana: fin"]
            assert lines == ["ana: uno", "ana: dos"], chat
        finally:
            await close_all(ana, beto)


async def test_absurd_terminal_sizes_do_not_break_the_session(tmp_path):
    async with running_server(tmp_path) as srv:
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
        try:
            huge = 2**32 - 1
            for cols, rows in ((10000, 10000), (0, 0), (1, 1), (300, 1), (1, 100), (huge, huge),
                               (10000, 10000)):
                before = len(ana.raw)
                ana.process.change_terminal_size(cols, rows)
                # Its repaint, whole (every size is repainted, the same one again too): then the
                # next size, which would otherwise replace this one before it reached the app
                # (sizes are passed on at most every 0.2 s, the latest one).
                await quiet(ana, since=before)
                assert not ana.closed.is_set(), f"session ended after a resize to {cols}x{rows}"
                # Clamped to at most 300x100: the repaint is a bounded frame, not a huge one.
                assert len(ana.raw) - before < 300 * 100 * 30, f"huge frame after {cols}x{rows}"
            ana.process.change_terminal_size(80, 24)
            await ana.wait_for(in_lobby_as("ana"))
            # It still answers keys and still talks to the lobby.
            ana.send("g")  # another language
            await ana.wait_for(lambda t: lobby_word(t) not in ("", "Lobby"))
            await say(ana, "sigo vivo")
            await beto.wait_for(lambda t: "ana: sigo vivo" in chat_area(t))
        finally:
            await close_all(ana, beto)


@pytest.mark.skipif(shutil.which("ssh") is None, reason="the OpenSSH client (ssh) is not installed")
async def test_openssh_shows_why_a_connection_past_the_limit_is_refused(tmp_path):
    """Issue 32: the refusal came before the version exchange, so OpenSSH printed
    "banner line contains invalid characters"; now it prints the server's reason."""
    async with running_server(tmp_path, max_connections_per_ip=1) as srv:
        clients = await programs.connect(srv.port, "ana")
        try:
            ssh = await asyncio.create_subprocess_exec(
                "ssh", "-p", str(srv.port), "-F", "/dev/null", "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
                "-o", "IdentityAgent=none", "-T", "carla@127.0.0.1",
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            _, err = await asyncio.wait_for(ssh.communicate(), 30)
            said = err.decode("utf-8", "replace")
            assert ssh.returncode != 0
            assert "too many connections from your address (at most 1)" in said, said
            assert "invalid characters" not in said, said
        finally:
            await programs.close_all(clients)
