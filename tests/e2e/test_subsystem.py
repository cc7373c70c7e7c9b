"""The `truco` SSH subsystem (issue 17): programs speak the protocol over SSH, with the same
authentication, names and limits as a terminal session."""
from __future__ import annotations

import asyncio
import os
import random
import shutil
import struct
import sys
from pathlib import Path

import asyncssh
import msgpack
import pytest

import protocol as p
from protocol.client import Client, Closed, NameRefused
from server.cli.remote_bot import Plan, RemoteBot, view_of, run_bot
from server.config import ServerConfig
from tests.e2e.harness import running_server
from tests.e2e.helpers import lobby_client

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
FAST = dict(bot_delay=0.0, hand_pause=0.0)


async def _raw(port: int, name: str) -> tuple[asyncssh.SSHClientConnection, asyncssh.SSHWriter[bytes],
                                              asyncssh.SSHReader[bytes]]:
    conn = await asyncio.wait_for(asyncssh.connect(
        "127.0.0.1", port, username=name, known_hosts=None, client_keys=[], agent_path=None,
        password="x", preferred_auth="keyboard-interactive,password"), 10)
    writer, reader, _ = await conn.open_session(subsystem="truco", encoding=None)
    return conn, writer, reader


async def _frames(reader: asyncssh.SSHReader[bytes], until: type[p.Message], timeout: float = 10) -> list[p.Message]:
    got: list[p.Message] = []
    frames = p.FrameReader()
    async with asyncio.timeout(timeout):
        while not any(isinstance(m, until) for m in got):
            chunk = await reader.read(65536)
            assert chunk, f"closed before {until.__name__}: {got}"
            got += frames.feed(chunk)
    return got


@pytest.mark.slow
async def test_a_client_plays_a_whole_match_against_a_bot(tmp_path):
    async with running_server(tmp_path, **FAST) as srv:
        async with await Client.connect("127.0.0.1", srv.port, "ana") as client:
            assert client.welcome is not None and client.welcome.name == "ana"
            assert client.welcome.guest
            await client.wait_for(p.LobbySnapshot)
            await client.send(p.CreateTable(variant="argentino", players=2, options={"target": 15}))
            created = await client.wait_for(p.TableCreated)
            await client.send(p.AddBot(table_id=created.table_id))
            bot = RemoteBot(client, Plan(wait=True))  # seated as the creator: Seated is queued
            assert await asyncio.wait_for(bot.run(), 120) == 1
            final = bot.last_view
            assert final is not None and final.match_over and max(final.scores) >= 15


@pytest.mark.slow
async def test_the_openssh_client_and_a_short_script_play_a_whole_game(tmp_path):
    """docs/ssh_player.py (shown in docs/PROGRAMS.md) with the real `ssh -s`."""
    if shutil.which("ssh") is None:
        pytest.skip("the OpenSSH client (ssh) is not installed")
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_file = tmp_path / "id_ed25519"
    key.write_private_key(str(key_file))
    os.chmod(key_file, 0o600)
    # Bots move after 0.1 s: the script answers at once, and a faster table would take it
    # past the command rate limit (20 a second).
    async with running_server(tmp_path, bot_delay=0.1, hand_pause=0.0) as srv:
        ssh = ["ssh", "-F", "/dev/null", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
               "-o", "LogLevel=ERROR", "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none",
               "-i", str(key_file), "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
               "-s", "-p", str(srv.port), "carla@127.0.0.1", "truco"]
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(ROOT / "docs" / "ssh_player.py"), *ssh,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            out, err = await asyncio.wait_for(proc.communicate(), 150)
        finally:
            if proc.returncode is None:
                proc.kill()
    text = out.decode()
    assert proc.returncode == 0, (text, err.decode())
    assert "welcome, carla" in text
    assert "match over: " in text, text
    assert "error" not in text, text


@pytest.mark.slow
async def test_truco_ssh_bot_joins_a_table_from_another_process(tmp_path):
    async with running_server(tmp_path, **FAST) as srv:
        async with await Client.connect("127.0.0.1", srv.port, "ana") as client:
            await client.send(p.CreateTable(variant="uruguayo", players=2, options={"target": 15}))
            created = await client.wait_for(p.TableCreated)
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "server.cli.main", "bot", "--port", str(srv.port), "--known-hosts", "none",
                "--level", "hard", "--table", created.table_id, "--seed", "7", "robota",
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": str(ROOT)})
            try:
                # The bot sits down: the table shows it in the second seat, as a person (not a
                # server bot), and the match starts.
                while True:
                    update = await client.wait_for(p.TableUpdated, 30)
                    if update.table.table_id == created.table_id and update.table.seats[1] == "robota":
                        assert update.table.bots == () or not update.table.bots[1]
                        break
                me = RemoteBot(client, Plan(wait=True))
                assert await asyncio.wait_for(me.run(), 120) == 1
                out, err = await asyncio.wait_for(proc.communicate(), 30)
            finally:
                if proc.returncode is None:
                    proc.kill()
    assert proc.returncode == 0, err.decode()
    assert "robota: played 1 match(es)" in out.decode()


async def test_names_are_claimed_and_refused_as_in_a_terminal(tmp_path):
    async with running_server(tmp_path) as srv:
        async with await Client.connect("127.0.0.1", srv.port, "ana") as first:
            with pytest.raises(NameRefused) as refused:
                await Client.connect("127.0.0.1", srv.port, "[/bold]")
            assert refused.value.event.reason == "invalid"
            # A command before the name is refused; the session goes on.
            conn, writer, reader = await _raw(srv.port, "beto")
            try:
                writer.write(p.frame(p.SendChat(text="hola")))
                got = await _frames(reader, p.Error)
                assert [m for m in got if isinstance(m, p.Error)][0].code == "no_name"
            finally:
                conn.close()
            await first.send(p.Ping(n=3))
            assert (await first.wait_for(p.Pong)).n == 3


async def test_hostile_frames_get_clear_errors_and_do_not_touch_other_players(tmp_path):
    async with running_server(tmp_path) as srv:
        async with await Client.connect("127.0.0.1", srv.port, "ana") as ana:
            conn, writer, reader = await _raw(srv.port, "mallory")
            try:
                writer.write(p.frame(p.ClaimName(name="mallory")))
                await _frames(reader, p.LobbySnapshot)
                bad = [
                    b"\xc1",  # not msgpack
                    msgpack.packb([1, 2]),  # not a map
                    msgpack.packb({"v": 99, "t": "ping"}),  # another protocol version
                    msgpack.packb({"v": p.PROTOCOL_VERSION, "t": "format_disk"}),  # no such message
                    msgpack.packb({"v": p.PROTOCOL_VERSION, "t": "send_chat", "text": 7}),  # a wrong type
                    msgpack.packb({"v": p.PROTOCOL_VERSION, "t": "welcome", "name": "x", "guest": True, "variants": []}),  # an event
                ]
                for data in bad:
                    writer.write(struct.pack(">I", len(data)) + data)
                writer.write(p.frame(p.Ping(n=1)))
                got = await _frames(reader, p.Pong)
                errors = [m for m in got if isinstance(m, p.Error)]
                assert [e.code for e in errors] == ["bad_frame"] * len(bad)
                assert "version" in errors[2].message and "format_disk" in errors[3].message
                # The others never noticed; a chat line from ana still reaches everybody.
                await ana.send(p.SendChat(text="todo bien"))
                line = await ana.wait_for(p.Chat)
                assert line.line.text == "todo bien"
                # A frame announced over the limit: the stream cannot be trusted any more.
                writer.write(struct.pack(">I", p.MAX_FRAME + 1) + b"x" * 100)
                rest = await _frames(reader, p.Error)
                assert "exceeds" in [m for m in rest if isinstance(m, p.Error)][-1].message
                async with asyncio.timeout(10):
                    while await reader.read(65536):
                        pass  # the server closes the channel
            finally:
                conn.close()
            seen = await ana.wait_for(p.PlayerLeft)
            assert seen.name == "mallory"
            await ana.send(p.Ping(n=2))
            assert (await ana.wait_for(p.Pong)).n == 2


async def test_only_the_truco_subsystem_is_offered(tmp_path):
    async with running_server(tmp_path) as srv:
        conn = await asyncio.wait_for(asyncssh.connect(
            "127.0.0.1", srv.port, username="probe", known_hosts=None, client_keys=[], agent_path=None,
            password="x", preferred_auth="keyboard-interactive,password"), 10)
        async with conn:
            for subsystem in ("sftp", "Truco", "truco "):
                with pytest.raises(asyncssh.ChannelOpenError):
                    await asyncio.wait_for(conn.open_session(subsystem=subsystem), 10)
            with pytest.raises(asyncssh.ChannelOpenError):
                await asyncio.wait_for(conn.run("truco"), 10)  # exec of the same word


async def _update(client: Client, want=lambda u: True, timeout: float = 15) -> p.TableUpdate:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        update = await client.wait_for(p.TableUpdate, max(0.1, deadline - loop.time()))
        if want(update):
            return update


async def test_a_program_watches_chats_and_comes_back_to_its_seat(tmp_path):
    async with running_server(tmp_path, bot_delay=0.05, hand_pause=0.1, away_grace=120.0) as srv:
        ana = await Client.connect("127.0.0.1", srv.port, "ana")
        beto = await Client.connect("127.0.0.1", srv.port, "beto")
        carla = await Client.connect("127.0.0.1", srv.port, "carla")
        try:
            await ana.send(p.CreateTable(variant="argentino", players=2, options={"target": 15}))
            table_id = (await ana.wait_for(p.TableCreated)).table_id
            await beto.send(p.JoinTable(table_id=table_id))
            mine = await _update(beto, lambda u: bool(view_of(u).own_cards) and bool(u.resume_code))
            assert mine.seat == 1
            # A spectator sees the table, and no hidden card.
            await carla.send(p.WatchTable(table_id=table_id))
            seated = await carla.wait_for(p.Seated)
            assert (seated.table_id, seated.seat) == (table_id, None)
            watched = await _update(carla)
            assert watched.seat is None and view_of(watched).own_cards == ()
            assert [s.name for s in watched.seats] == ["ana", "beto"]
            # Table chat reaches the players and the spectator.
            await ana.send(p.TableChat(table_id=table_id, text="suerte"))
            for c in (beto, carla):
                line = (await c.wait_for(p.Chat)).line
                assert (line.sender, line.text, line.table_id) == ("ana", "suerte", table_id)
            # beto's connection drops; the seat is held, and his resume code (as the SSH user
            # name, the same as in a terminal) gives it back with the same cards.
            cards = view_of(mine).own_cards
            await beto.close()
            await _update(ana, lambda u: u.seats[1].away)
            beto = await Client.connect("127.0.0.1", srv.port, mine.resume_code)
            assert beto.welcome is not None and beto.welcome.name == "beto"
            back = await _update(beto, lambda u: u.seat == 1)
            assert back.table_id == table_id and view_of(back).own_cards == cards
            await _update(ana, lambda u: not u.seats[1].away)
        finally:
            for c in (ana, beto, carla):
                await c.close()


async def test_an_idle_program_in_the_lobby_is_told_and_disconnected(tmp_path):
    async with running_server(tmp_path, lobby_idle_timeout=1.0) as srv:
        async with await Client.connect("127.0.0.1", srv.port, "dormilon") as client:
            notice = await client.wait_for(p.Notice, 15)
            assert notice.code == "idle"
            with pytest.raises(Closed):
                while True:
                    await client.receive(10)


async def test_a_program_is_told_of_a_shutdown_before_the_hang_up(tmp_path):
    async with running_server(tmp_path) as srv:
        client = await Client.connect("127.0.0.1", srv.port, "ana")
        await client.wait_for(p.LobbySnapshot)
    try:
        notices = []
        with pytest.raises(Closed):
            while True:
                event = await client.receive(10)
                if isinstance(event, p.Notice):
                    notices.append(event.code)
        assert notices == ["shutdown"]
    finally:
        await client.close()


async def test_a_bot_without_a_table_named_joins_the_first_one_waiting_for_players(tmp_path):
    async with running_server(tmp_path, **FAST) as srv:
        bot = asyncio.create_task(run_bot("127.0.0.1", srv.port, "Robota", Plan(level="easy"), known_hosts=None,
                                          seed=3))
        try:
            async with await Client.connect("127.0.0.1", srv.port, "ana") as ana:
                # Private tables and full ones are not for it; this one is.
                await ana.send(p.CreateTable(variant="paulista", players=2, options={}))
                table_id = (await ana.wait_for(p.TableCreated)).table_id
                me = RemoteBot(ana, Plan(wait=True), random.Random(1))
                assert await asyncio.wait_for(me.run(), 120) == 1
                assert me.last_view is not None and me.last_view.variant == "paulista"
                assert me.table_id == table_id
            assert await asyncio.wait_for(bot, 30) == 1
        finally:
            bot.cancel()


async def test_a_flood_of_frames_ends_the_session_and_others_keep_playing(tmp_path):
    async with running_server(tmp_path) as srv:
        async with await Client.connect("127.0.0.1", srv.port, "ana") as ana:
            conn, writer, reader = await _raw(srv.port, "mallory")
            try:
                writer.write(p.frame(p.ClaimName(name="mallory")))
                await _frames(reader, p.LobbySnapshot)
                ping = p.frame(p.Ping(n=9))
                writer.write(ping * (256 * 1024 // len(ping)))  # 256 KiB of commands at once
                got = []
                frames = p.FrameReader()
                async with asyncio.timeout(15):
                    while chunk := await reader.read(65536):
                        got += frames.feed(chunk)
                errors = [m for m in got if isinstance(m, p.Error)]
                assert errors[0].code == "rate_limited"  # the commands past the hub's rate
                assert errors[-1].message == "too much input; closing"  # then the bytes' budget
                assert sum(isinstance(m, p.Pong) for m in got) <= ServerConfig().commands_burst + 5
            finally:
                conn.close()
            for n in range(3):  # ana never noticed
                await ana.send(p.Ping(n=n))
                assert (await ana.wait_for(p.Pong, 10)).n == n


async def test_a_key_reserves_a_name_for_programs_as_for_terminals(tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with running_server(tmp_path) as srv:
        # A terminal session with the key reserves the name...
        screen = await lobby_client(srv.port, "alice", client_keys=[key])
        await screen.close()
        # ...which a program without the key cannot take,
        with pytest.raises(NameRefused) as refused:
            await Client.connect("127.0.0.1", srv.port, "alice")
        assert refused.value.event.reason == "reserved_key"
        assert refused.value.event.suggestion == "alice2"
        # and a program with it can: not a guest, and a second login replaces the first.
        first = await Client.connect("127.0.0.1", srv.port, "alice", client_keys=[key])
        assert first.welcome is not None and not first.welcome.guest
        second = await Client.connect("127.0.0.1", srv.port, "alice", client_keys=[key])
        try:
            assert (await first.wait_for(p.Notice)).code == "replaced"
            with pytest.raises(Closed):
                while True:
                    await first.receive(10)
            await second.send(p.Ping(n=5))
            assert (await second.wait_for(p.Pong)).n == 5
        finally:
            await first.close()
            await second.close()
