"""Three ``truco-ssh serve --nats`` processes and one nats-server: one lobby, one table
played from different processes, a spectator on the third, and the lobby host killed with
SIGKILL mid-hand: another process takes over and the hand goes on where it was. The players
are programs on the `truco` subsystem: what is checked is the cluster, not the screens."""
from __future__ import annotations

import asyncio
import re
import signal

import asyncssh
import pytest

import protocol as p
from server.cluster.bus import settle
from server.cluster.natsd import NatsServer
from tests.cluster.procs import RESTORED, Proc, logged_state, wait_for_host
from tests.e2e import programs

pytestmark = pytest.mark.e2e


async def test_players_on_different_processes_share_one_lobby_and_table(cluster: list[Proc]) -> None:
    """Programs on the `truco` subsystem (what the screens show is tested elsewhere)."""
    p1, p2, p3 = cluster
    ana, = await programs.connect(p2.port, "ana")
    beto, = await programs.connect(p3.port, "beto")
    clients = [ana, beto]
    try:
        await programs.Online(ana).until(lambda names: "beto" in names)
        await programs.Online(beto).until(lambda names: "ana" in names)
        await programs.round_trip(ana, beto, "hola beto, de otro proceso")
        table_id = await programs.table_of(ana, 2, options={"target": 15, "match_games": 1})
        await beto.send(p.JoinTable(table_id=table_id))
        first = await programs.update(ana, programs.dealt, peek=True)
        eve, = await programs.connect(p1.port, "eve")  # the spectator, on the third process
        clients.append(eve)
        await eve.send(p.WatchTable(table_id=table_id))
        assert (await eve.wait_for(p.Seated)).table_id == table_id

        def hand_two(u: p.TableUpdate) -> bool:
            return u.view.deal_no > first.view.deal_no

        await asyncio.gather(programs.play(ana, table_id, hand_two, seed=1, timeout=90),
                             programs.play(beto, table_id, hand_two, seed=2, timeout=90))
        # The spectator saw the first hand end, and no one's cards.
        seen = []
        while not seen or not hand_two(seen[-1]):
            seen.append(await programs.update(eve, lambda u: u.table_id == table_id, 10))
        assert all(u.seat is None and u.view.own_cards == () for u in seen)
    finally:
        await programs.close_all(clients)


async def test_the_host_killed_mid_hand_another_process_resumes_the_table(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    """Programs on the `truco` subsystem: they come back to the cards and turn they had."""
    p1, p2, p3 = cluster
    keys = {n: asyncssh.generate_private_key("ssh-ed25519") for n in ("ana", "beto")}
    ana, = await programs.connect(p2.port, "ana", client_keys=[keys["ana"]])
    beto, = await programs.connect(p3.port, "beto", client_keys=[keys["beto"]])
    clients = [ana, beto]
    try:
        # No flor: a dealt flor must be sung before any card (the test plays a card first).
        table_id = await programs.table_of(ana, 2, options={"flor": False})
        await beto.send(p.JoinTable(table_id=table_id))
        dealt = [await programs.update(c, programs.dealt) for c in clients]
        mover = next(i for i, u in enumerate(dealt) if u.seat in u.waiting and u.view.turn == u.seat)
        card = next(a.card for a in dealt[mover].view.legal if a.call == "play")
        await clients[mover].act(table_id, "play", card=card)  # one card played: the hand is under way
        after = [await programs.update(c, lambda u: bool(u.view.current_trick)) for c in clients]
        seen = {name: (u.view.own_cards, u.waiting) for name, u in zip(("ana", "beto"), after)}
        await p1.stop(signal.SIGKILL)  # the lobby host, with the table, mid-hand
        logged = await logged_state(nats_server.url)  # what JetStream acknowledged to it
        assert len(logged) == 1
        # Their sessions stay (test_host_swap.py follows them); these two leave at once, and
        # ana connects again (to a process that may not know the new host yet: her session
        # waits for it) ...
        for client in clients:
            assert (await client.wait_for(p.Notice, 15)).code == "reattaching"
        await programs.close_all(clients)
        clients = await programs.connect(p3.port, "ana", client_keys=[keys["ana"]])
        # ... another process has claimed the host lease ...
        new_host = await wait_for_host(p2, p3)
        # ... and restored the table at exactly the state its log replays to: nothing lost.
        restored = await new_host.wait_line(RESTORED)
        assert restored.group(1) == table_id
        assert (int(restored.group(2)), int(restored.group(3)), restored.group(4)) == logged[table_id]
        # The table ran on ana's process, not on the host: the new host adopts it where it
        # runs, and nothing is rebuilt (only a dead owner's tables are)
        await new_host.wait_line(re.compile(rf"table {table_id} runs on {re.escape(p2.owner)}"))
        assert not any("owner: restored table" in line for proc in (p2, p3) for line in proc.lines)
        # The players are back through either process, to the cards and turn they had.
        clients += await programs.connect(p2.port, "beto", client_keys=[keys["beto"]])
        ana, beto = clients
        for name, client in zip(("ana", "beto"), clients):
            back = await programs.update(client, lambda u: u.table_id == table_id and programs.dealt(u), peek=True)
            assert (back.view.own_cards, back.waiting) == seen[name], name

        def hand_two(u: p.TableUpdate) -> bool:
            return u.view.deal_no > after[0].view.deal_no

        await asyncio.gather(programs.play(ana, table_id, hand_two, seed=1, timeout=90),
                             programs.play(beto, table_id, hand_two, seed=2, timeout=90))
    finally:
        await programs.close_all(clients)



async def test_bad_bus_input_is_dropped_and_every_process_goes_on(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    import nats

    from protocol.bus import ConnOpened, HangUp
    from server.cluster.bus import CONN_HEADER, front_subject, hub_subject

    p1, p2, p3 = cluster
    ana, = await programs.connect(p2.port, "ana")
    beto, = await programs.connect(p3.port, "beto")
    hostile = await nats.connect(nats_server.url)
    try:
        fronts = [front_subject(p.owner) for p in cluster]
        junk = [b"", b"\xc1", b"\x93\x01\x02", b"x" * 70_000, p.encode(p.Ping(n=1)),
                p.encode(HangUp(conn_id=1)).replace(b"bus_hang_up", b"bus_hang_uX"),
                p.encode(ConnOpened(conn_id=1, front="nowhere", ip="1.2.3.4", username="x"))[:-3]]
        hubs = [hub_subject(p.owner) for p in cluster]  # (the host's, and two nobody listens on)
        for subject in [*hubs, *fronts, "truco.events.t000000", "truco.other"]:
            for data in junk:
                await hostile.publish(subject, data)
            for conn in ("", "0", "-1", "abc", "9" * 40, "123"):
                await hostile.publish(subject, b"\x00junk", headers={CONN_HEADER: conn})
        await settle(hostile)
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
        # Until the processes have reconnected (they retry every 2 s at most) and the lobby
        # answers: a chat line that goes round, tried again each second it does not
        for attempt in range(21):  # (a chat line a second: under the chat rate limit)
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
