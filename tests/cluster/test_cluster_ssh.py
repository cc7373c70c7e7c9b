"""Three ``truco-ssh serve --nats`` processes and one nats-server: one lobby, one table
played from different processes, a spectator on the third, and the lobby host killed with
SIGKILL mid-hand: another process takes over and the hand goes on where it was."""
from __future__ import annotations

import asyncio
import re
import signal
import sys
import time
from pathlib import Path
from typing import AsyncIterator, Callable

import asyncssh
import pytest

from server.cluster.natsd import NatsServer
from tests.cluster.procs import RESTORED, Proc, logged_state, start
import protocol as p
from tests.e2e import programs
from tests.e2e.harness import ScreenClient
from tests.e2e.helpers import (
    chat_area, close_all, lobby_client, offered_actions, players_pane, refused, say, title_of,
)
from tests.e2e.test_reconnect_ssh import back, cards, status
from tests.e2e.test_table_ssh import ANSWER_ORDER, AVOID, join_first_table, open_table

pytestmark = pytest.mark.e2e


@pytest.fixture
async def cluster(tmp_path: Path, nats_server: NatsServer) -> AsyncIterator[list[Proc]]:
    procs: list[Proc] = []
    try:
        procs.append(await start(tmp_path, nats_server.url))  # the first one becomes the host
        assert procs[0].is_host
        procs += await asyncio.gather(*(start(tmp_path, nats_server.url) for _ in range(2)))
        yield procs
    finally:
        await asyncio.gather(*(p.stop() for p in procs))


async def play_until(client: ScreenClient, done: Callable[[str], bool], deadline: float) -> None:
    """Play as a person does (answers first, otherwise a card) until ``done`` holds."""
    while time.monotonic() < deadline:
        text = client.text()
        if done(text):
            return
        if "Your move." in text:
            pairs = offered_actions(text)
            offered = {label: key for key, label in pairs}
            answer = next((offered[a] for a in ANSWER_ORDER if a in offered), None)
            if answer is not None:
                client.send(answer)
            else:
                for digit in "123":
                    client.send(digit)
                    await asyncio.sleep(0.05)
                    if not refused(client.text()):
                        break
                else:
                    fallback = [k for k, label in pairs if label not in AVOID] or [k for k, _ in pairs]
                    if fallback:
                        client.send(fallback[0])
            await asyncio.sleep(0.08)
        else:
            await asyncio.sleep(0.02)
    raise AssertionError(f"not done in time; screen:\n{client.text()}")


def hand_two(text: str) -> bool:
    return re.search(r"\bHand 2\b", text) is not None


async def test_players_on_different_processes_share_one_lobby_and_table(cluster: list[Proc]) -> None:
    p1, p2, p3 = cluster
    ana = await lobby_client(p2.port, "ana")
    beto = await lobby_client(p3.port, "beto")
    clients = [ana, beto]
    try:
        await ana.wait_for(lambda t: "beto" in players_pane(t))
        await beto.wait_for(lambda t: "ana" in players_pane(t))
        await say(ana, "hola beto, de otro proceso")
        await beto.wait_for(lambda t: "ana: hola beto, de otro proceso" in chat_area(t))
        ana.send("\x1b")
        await asyncio.sleep(0.3)
        await open_table(ana, 2, short=True)
        await join_first_table(beto)
        eve = await lobby_client(p1.port, "eve")  # the spectator, on the third process
        clients.append(eve)
        await eve.wait_for("playing")
        eve.send("w")
        await eve.wait_for("watching")
        deadline = time.monotonic() + 90
        try:
            await asyncio.gather(play_until(ana, hand_two, deadline), play_until(beto, hand_two, deadline))
        except AssertionError:
            for c in clients:
                sys.stderr.write(c.text() + "\n\n")
            raise
        await eve.wait_for(hand_two, 10)  # the spectator saw the first hand end
        assert "╭─────╮" not in eve.text()  # and no one's cards
    finally:
        await close_all(*clients)


async def test_the_host_killed_mid_hand_another_process_resumes_the_table(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    p1, p2, p3 = cluster
    keys = {n: asyncssh.generate_private_key("ssh-ed25519") for n in ("ana", "beto")}
    ana = await lobby_client(p2.port, "ana", client_keys=[keys["ana"]])
    beto = await lobby_client(p3.port, "beto", client_keys=[keys["beto"]])
    clients = [ana, beto]
    try:
        await open_table(ana, 2)
        await join_first_table(beto)
        for c in clients:
            await c.wait_for(lambda s: status(s) != "" and "╭─────╮" in s, 10)
        mover = next(c for c in clients if status(c.text()) == "Your move.")
        before = cards(mover.text())
        for digit in "123":  # one card played: the hand is under way
            mover.send(digit)
            await asyncio.sleep(0.2)
            if cards(mover.text()) != before:
                break
        await asyncio.sleep(0.3)
        seen = {"ana": cards(ana.text()), "beto": cards(beto.text())}
        turns = {"ana": status(ana.text()), "beto": status(beto.text())}
        killed_at = time.monotonic()
        await p1.stop(signal.SIGKILL)  # the lobby host, with the table, mid-hand
        logged = await logged_state(nats_server.url)  # what JetStream acknowledged to it
        assert len(logged) == 1
        # The sessions of the dead host end; at once ana connects again (to a process that
        # may not know the new host yet: her session waits for it) ...
        await asyncio.wait_for(asyncio.gather(ana.closed.wait(), beto.closed.wait()), 15)
        await close_all(*clients)
        clients = [await back(p3.port, "ana", [keys["ana"]], seen["ana"])]
        # ... another process has claimed the host lease ...
        new_host = await _new_host(p2, p3)
        took = time.monotonic() - killed_at
        # ... and restored the table at exactly the state its log replays to: nothing lost.
        restored = await new_host.wait_line(RESTORED)
        table_id = restored.group(1)
        assert (int(restored.group(2)), int(restored.group(3)), restored.group(4)) == logged[table_id]
        # The players are back through either process, to the cards and turn they had.
        clients.append(await back(p2.port, "beto", [keys["beto"]], seen["beto"]))
        ana, beto = clients
        assert (status(ana.text()), status(beto.text())) == (turns["ana"], turns["beto"])
        deadline = time.monotonic() + 90
        await asyncio.gather(play_until(ana, hand_two, deadline), play_until(beto, hand_two, deadline))
        assert took < 15
    finally:
        await close_all(*clients)


async def _new_host(*procs: Proc, timeout: float = 15.0) -> Proc:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in procs:
            if proc.is_host:
                return proc
        await asyncio.sleep(0.05)
    raise AssertionError("no process took over as the lobby host")


async def test_bad_bus_input_is_dropped_and_every_process_goes_on(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    import nats

    from protocol.bus import ConnOpened, HangUp
    from server.cluster.bus import CONN_HEADER, HUB_SUBJECT, front_subject

    p1, p2, p3 = cluster
    ana, = await programs.connect(p2.port, "ana")
    beto, = await programs.connect(p3.port, "beto")
    hostile = await nats.connect(nats_server.url)
    try:
        fronts = [front_subject(p.owner) for p in cluster]
        junk = [b"", b"\xc1", b"\x93\x01\x02", b"x" * 70_000, p.encode(p.Ping(n=1)),
                p.encode(HangUp(conn_id=1)).replace(b"bus_hang_up", b"bus_hang_uX"),
                p.encode(ConnOpened(conn_id=1, front="nowhere", ip="1.2.3.4", username="x"))[:-3]]
        for subject in [HUB_SUBJECT, *fronts, "truco.events.t000000", "truco.other"]:
            for data in junk:
                await hostile.publish(subject, data)
            for conn in ("", "0", "-1", "abc", "9" * 40, "123"):
                await hostile.publish(subject, b"\x00junk", headers={CONN_HEADER: conn})
        await hostile.flush()
        await programs.round_trip(ana, beto, "still here")
        assert all(proc.process.returncode is None for proc in cluster)
        dropped = sum(len([line for line in proc.lines if "dropped a bad message" in line]) for proc in cluster)
        assert dropped >= len(junk) * 2  # the host's inbox and every front end's logged them
        assert not any("Traceback" in line for proc in cluster for line in proc.lines)
    finally:
        await hostile.close()
        await programs.close_all([ana, beto])


async def test_a_front_end_killed_its_players_leave_the_lobby(cluster: list[Proc]) -> None:
    p1, p2, p3 = cluster
    ana, = await programs.connect(p2.port, "ana")
    beto, = await programs.connect(p3.port, "beto")
    try:
        online = programs.Online(ana)
        await online.until(lambda names: "beto" in names)
        await p3.stop(signal.SIGKILL)  # beto's process dies without a word to the host
        assert await online.until(lambda names: "beto" not in names, 15) == {"ana"}
    finally:
        await programs.close_all([ana, beto])


async def test_a_nats_restart_the_processes_reconnect_and_play_goes_on(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    p1, p2, p3 = cluster
    ana, = await programs.connect(p2.port, "ana")
    beto, = await programs.connect(p3.port, "beto")
    try:
        await programs.Online(ana).until(lambda names: "beto" in names)
        await nats_server.stop()
        await nats_server.start()  # the same port and store
        await asyncio.sleep(1.0)  # the clients reconnect (they retry every 2 s at most)
        for attempt in range(20):  # (a chat line a second: under the chat rate limit)
            try:
                await programs.round_trip(ana, beto, f"back {attempt}", timeout=1.0)
                break
            except TimeoutError:
                continue
        else:
            raise AssertionError("the lobby did not come back after the NATS restart")
        assert all(proc.process.returncode is None for proc in cluster)
    finally:
        await programs.close_all([ana, beto])


async def test_a_front_end_stopped_its_players_are_told_and_leave_the_lobby(cluster: list[Proc]) -> None:
    p1, p2, p3 = cluster
    ana, = await programs.connect(p2.port, "ana")
    beto, = await programs.connect(p3.port, "beto")
    try:
        online = programs.Online(ana)
        await online.until(lambda names: "beto" in names)
        await p3.stop(signal.SIGINT)  # Ctrl-C on beto's process only
        assert (await beto.wait_for(p.Notice, 10)).code == "shutdown"
        await online.until(lambda names: "beto" not in names, 10)  # at once, not after a TTL
        assert p1.process.returncode is None and p2.process.returncode is None
    finally:
        await programs.close_all([ana, beto])
