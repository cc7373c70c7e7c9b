"""What a new lobby host gives back, over SSH on a real cluster (the lobby host killed with
SIGKILL): a waiting room's players get their seats back and the room starts (a table of two
waiting for its second player too, which still starts by itself once full); a seated
player whose SSH connection never dropped is not shown away to the others while the new
host takes over, and one whose connection died with the host is. The players are programs
on the `truco` subsystem (tests/cluster/test_host_swap.py: the rest of the host swap)."""
from __future__ import annotations

import asyncio
import re
import signal

import asyncssh
import pytest

import protocol as p
from protocol.client import Client
from server.cluster.natsd import NatsServer
from tests.cluster.procs import Proc, host_round_trip, taken_by_host, until, wait_for_host
from tests.e2e import programs

pytestmark = pytest.mark.e2e


async def _connect_once_let_in(port: int, name: str, timeout: float = 30.0) -> Client:
    """A new player on a process that may still be turning new players away: its lease was
    renewed late (a loaded machine: seen once in `make test`), and the refusal says to try
    again, as a player would: until one attempt is let in."""
    let_in: list[Client] = []

    async def attempt() -> bool:
        try:
            let_in.extend(await programs.connect(port, name))
        except asyncssh.DisconnectError as refused:
            if "reconnecting to its cluster" not in refused.reason:
                raise
        return bool(let_in)

    await until(attempt, timeout)
    return let_in[0]


async def _until_back(client: Client, table_id: str, seat: int, shown: list[p.TableUpdate],
                      done: "asyncio.Event | None" = None) -> None:
    """Read ``client``'s events through the host swap until it is seated again at ``table_id``
    and has an update of it after that (every update on the way goes to ``shown``); with
    ``done``, also until an update of the table satisfies... (see the callers)."""
    seated_again = False
    async with asyncio.timeout(30):
        while True:
            event = await client.receive()
            if isinstance(event, p.Seated) and event.table_id == table_id and event.seat == seat:
                seated_again = True
            elif isinstance(event, p.TableUpdate) and event.table_id == table_id:
                shown.append(event)
                if seated_again and (done is None or done.is_set()):
                    return


async def test_waiting_room_seats_come_back_and_the_others_are_never_shown_away(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    p1, p2, p3 = cluster
    key = asyncssh.generate_private_key("ssh-ed25519")
    ana, cris = await programs.connect(p2.port, "ana", "cris")  # ana: a guest at a game
    beto, = await programs.connect(p3.port, "beto")  # a guest at the same game
    eve, = await programs.connect(p3.port, "eve", client_keys=[key])  # a key holder in a waiting room
    dora, = await programs.connect(p1.port, "dora")  # at the game, on the host's own process
    frank, = await programs.connect(p3.port, "frank")  # a guest at a table of two, waiting for a second
    clients = [ana, beto, cris, eve, dora, frank]
    try:
        # A game of four on ana's process: ana, beto, dora and a bot
        game = await programs.table_of(ana, 4, options={"flor": False})
        for client in (beto, dora):
            await client.send(p.JoinTable(table_id=game))
            assert (await client.wait_for(p.Seated, 15)).table_id == game
        await ana.send(p.AddBot(table_id=game, seat=3))
        for client in (ana, beto, dora):
            await programs.update(client, programs.dealt)
        await p1.wait_line(re.compile(rf"table {game} runs on {re.escape(p2.owner)}"))
        # A waiting room (its creator starts it) with a guest and a key holder, not started
        room = await programs.table_of(cris, 4, options={"flor": False}, owner_starts=True)
        await eve.send(p.JoinTable(table_id=room))
        assert (await eve.wait_for(p.Seated, 15)) == p.Seated(table_id=room, seat=1)
        pair = await programs.table_of(frank, 2, options={"flor": False})
        assert (await frank.wait_for(p.Seated, 15)) == p.Seated(table_id=pair, seat=0)
        # The guests' seat codes have reached their front ends, and the host has confirmed
        # what the sessions on the other processes sent it (a CreateTable sent again to the
        # next host would make a second table)
        await taken_by_host(nats_server.url, p1.owner, (ana, p2.owner), (beto, p3.owner))

        await p1.stop(signal.SIGKILL)  # the lobby host; dora's connection goes with it
        for client in (ana, beto, cris, eve, frank):
            assert (await client.wait_for(p.Notice, 15)).code == "reattaching"
        await wait_for_host(p2, p3)
        # The game: ana and beto are seated again and each sees dora away (she is not
        # coming back), but never the other one
        shown: dict[str, list[p.TableUpdate]] = {"ana": [], "beto": []}

        async def watch(name: str, client: Client, seat: int) -> None:
            await _until_back(client, game, seat, shown[name])
            while not any(u.seats[2].away for u in shown[name]):
                shown[name].append(await programs.update(client, lambda u: u.table_id == game, 20))
        await asyncio.gather(watch("ana", ana, 0), watch("beto", beto, 1))
        for name, updates in shown.items():
            assert not any(u.seats[0].away or u.seats[1].away for u in updates), name
        # The waiting room: both seats back, and its creator starts it with two bots
        for client, seat in ((cris, 0), (eve, 1)):
            assert await client.wait_for(p.Seated, 20) == p.Seated(table_id=room, seat=seat)
        for seat in (2, 3):
            await cris.send(p.AddBot(table_id=room, seat=seat))
        await host_round_trip(cris, 9)  # the host has seated both bots
        await cris.send(p.StartTable(table_id=room))
        for client, seat in ((cris, 0), (eve, 1)):
            dealt = await programs.update(client, lambda u: u.table_id == room and programs.dealt(u), 20)
            assert dealt.seat == seat
        # The table of two: frank is back in his seat, and it starts by itself once full
        assert await frank.wait_for(p.Seated, 20) == p.Seated(table_id=pair, seat=0)
        gina = await _connect_once_let_in(p2.port, "gina")
        clients.append(gina)
        await gina.send(p.JoinTable(table_id=pair))
        for client, seat in ((frank, 0), (gina, 1)):
            dealt = await programs.update(client, lambda u: u.table_id == pair and programs.dealt(u), 20)
            assert dealt.seat == seat
        assert not any("Traceback" in line for proc in (p2, p3) for line in proc.lines)
    finally:
        await programs.close_all(clients)


async def test_what_players_send_while_the_host_is_dead_is_done_once_it_is_back(cluster: list[Proc]) -> None:
    """A lobby chat line and a card sent after the kill, before anyone knows the host is gone
    (its lease has not run out): both reach the new host after the re-attach, in order."""
    p1, p2, p3 = cluster
    ana, eve = await programs.connect(p2.port, "ana", "eve")
    beto, cris = await programs.connect(p3.port, "beto", "cris")
    clients = [ana, beto, cris, eve]
    try:
        table_id = await programs.table_of(ana, 2, options={"flor": False})
        await beto.send(p.JoinTable(table_id=table_id))
        dealt = [await programs.update(c, programs.dealt) for c in (ana, beto)]
        await programs.Online(eve).until(lambda names: {"ana", "beto", "cris", "eve"} <= names)
        mover = next(i for i, u in enumerate(dealt) if u.seat in u.waiting and u.view.turn == u.seat)
        card = next(a.card for a in dealt[mover].view.legal if a.call == "play")

        await p1.stop(signal.SIGKILL)
        await cris.send(p.SendChat(text="durante el corte"))
        await (ana, beto)[mover].act(table_id, "play", card=card)
        for client in clients:
            assert (await client.wait_for(p.Notice, 15)).code == "reattaching"
        await wait_for_host(p2, p3)
        while (await eve.wait_for(p.Chat, 20)).line.text != "durante el corte":
            pass
        for client in (ana, beto):
            played = await programs.update(client, lambda u: bool(u.view.current_trick), 20)
            assert [c for _, c in played.view.current_trick] == [card]
        assert not any("Traceback" in line for proc in (p2, p3) for line in proc.lines)
    finally:
        await programs.close_all(clients)
