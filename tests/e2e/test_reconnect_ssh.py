"""Reconnecting over real SSH: a dropped player returns to the same hand; a restart mid-hand."""
from __future__ import annotations

import asyncio
import random
import re

import asyncssh
import pytest

import protocol as p
from engine import Call
from protocol.client import Client
from server.cli.remote_bot import Plan, RemoteBot, view_of
from tests.e2e import programs
from tests.e2e.harness import ScreenClient, running_server
from tests.e2e.helpers import close_all, lobby_client
from tests.e2e.test_table_ssh import join_first_table

pytestmark = pytest.mark.e2e

FAST = dict(bot_delay=0.05, hand_pause=0.1, away_grace=120.0)
CODE = re.compile(r"Resume code ([A-Z0-9]{6})")


def cards(text: str) -> str:
    """The player's cards (left of the action buttons)."""
    return "\n".join(line[:26].rstrip() for line in text.splitlines()[10:15])


def status(text: str) -> str:
    """The status row: whose move it is (the timer and the resume code cut off)."""
    for line in text.splitlines():
        m = re.search(r"(Your move\.|Waiting for [^.]*\.|Next hand coming)", line)
        if m:
            return m.group(1)
    return ""


def away(text: str, name: str) -> bool:
    return any(re.search(rf"\b{name}\b.*\baway\b", line) for line in text.splitlines()[2:9])


async def back(port: int, username: str, keys: list[asyncssh.SSHKey] | None, want: str) -> ScreenClient:
    """Connect again and wait for the table screen to show the cards seen before."""
    client = ScreenClient()
    await asyncio.wait_for(client.connect(port, username, client_keys=keys), 10)
    try:
        await client.wait_for(lambda s: cards(s) == want and status(s) != "", 10)
    except BaseException:
        await client.close()
        raise
    return client


async def test_a_dropped_player_comes_back_to_the_same_cards_and_turn(tmp_path) -> None:
    """ana, with a key, is a program on the `truco` subsystem; beto, a guest, is a terminal:
    his screen shows the resume code he comes back with (CODE@host), and ana's absence."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with running_server(tmp_path, **FAST) as server:
        ana, = await programs.connect(server.port, "ana", client_keys=[key])
        beto = await lobby_client(server.port, "beto")  # a guest
        try:
            table_id = await programs.table_of(ana, 2)
            await join_first_table(beto)
            mine = await programs.update(ana, programs.dealt)
            await beto.wait_for(lambda s: status(s) != "" and "╭─────╮" in s, 10)
            await ana.close()  # the connection drops mid-hand
            await beto.wait_for(lambda s: away(s, "ana"), 10)
            ana, = await programs.connect(server.port, "ana", client_keys=[key])
            again = await programs.update(ana, lambda u: u.table_id == table_id)
            assert (again.seat, again.view.own_cards, again.waiting) == (0, mine.view.own_cards, mine.waiting)
            # The hand's log comes back too (issue 13: it came back empty).
            assert [e.KIND for e in again.history][:2] == ["match_started", "hand_dealt"]
            await beto.wait_for(lambda s: not away(s, "ana"), 10)

            # The guest has no key: the table shows a code, and CODE@host brings them back.
            code = CODE.search(await beto.wait_for(lambda s: CODE.search(s) is not None, 10)).group(1)  # type: ignore[union-attr]
            theirs, their_turn = cards(beto.text()), status(beto.text())
            await beto.close()
            await programs.update(ana, lambda u: u.seats[1].away)
            beto = await back(server.port, code, None, theirs)
            assert status(beto.text()) == their_turn
            # His screen shows the hand's log again (issue 13: it came back empty), once.
            await beto.wait_for("Hand 1: ", 5)
            assert beto.text().count("Hand 1: ") == 1
            await programs.update(ana, lambda u: not u.seats[1].away)
        finally:
            await close_all(beto)
            await ana.close()


@pytest.mark.slow
async def test_a_restart_mid_hand_and_all_four_players_finish_the_game(tmp_path) -> None:
    """Programs through the `truco` subsystem (the screens are not the point here): each
    player comes back after the restart to the cards it held, and the four finish the match."""
    names = ["ana", "beto", "carla", "dani"]
    keys = {n: asyncssh.generate_private_key("ssh-ed25519") for n in names}
    async with running_server(tmp_path, **FAST) as server:
        clients = [await Client.connect("127.0.0.1", server.port, n, client_keys=[keys[n]]) for n in names]
        try:
            await clients[0].send(p.CreateTable(variant="argentino", players=4,
                                                options={"target": 15, "match_games": 1, "flor": False}))
            table_id = (await clients[0].wait_for(p.TableCreated)).table_id
            for c in clients[1:]:
                await c.send(p.JoinTable(table_id=table_id))
            views = [await _dealt(c) for c in clients]
            # One card is played, so the hand is under way when the server goes down.
            mover = next(i for i, u in enumerate(views) if view_of(u).turn == u.seat)
            card = str(next(a for a in view_of(views[mover]).legal if a.call is Call.PLAY).card)
            await clients[mover].act(table_id, "play", card=card)
            seen = {names[i]: (await _after_card(clients[i])) for i in range(4)}
        finally:
            for c in clients:
                await c.close()
    async with running_server(tmp_path, **FAST) as server:  # the same data directory
        clients = []
        try:
            for n in names:
                clients.append(await Client.connect("127.0.0.1", server.port, n, client_keys=[keys[n]]))
            for n, c in zip(names, clients):
                update = await _dealt(c)
                assert (update.table_id, view_of(update).own_cards) == (table_id, seen[n]), n
                c.unread(update)
            bots = [RemoteBot(c, Plan(wait=True), random.Random(i)) for i, c in enumerate(clients)]
            finished = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 150)
            assert finished == [1, 1, 1, 1]
            assert all(b.last_view is not None and b.last_view.match_over for b in bots)
        finally:
            for c in clients:
                await c.close()


async def _dealt(client: Client) -> p.TableUpdate:
    """The first table update with cards in this seat's hand."""
    while True:
        update = await client.wait_for(p.TableUpdate, 20)
        if update.seat is not None and view_of(update).own_cards:
            return update


async def _after_card(client: Client) -> tuple[object, ...]:
    """The seat's cards once the first card of the hand is on the table."""
    while True:
        update = await client.wait_for(p.TableUpdate, 20)
        if view_of(update).current_trick:
            return view_of(update).own_cards
