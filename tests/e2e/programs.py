"""Helpers for end-to-end tests that drive the server as programs do: through the ``truco``
subsystem (protocol/client.py), typed messages in, typed events out, no screen to read."""
from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence

import engine
import protocol as p
from protocol.client import Client
from server.cli.remote_bot import decide, must_move, view_of

MOVE_PAUSE = 0.06  # between one client's moves: under the command rate limit (20 a second)


async def connect(port: int, *names: str, **kwargs: object) -> list[Client]:
    """One subsystem client per name, in order (each past its welcome)."""
    clients: list[Client] = []
    try:
        for name in names:
            clients.append(await Client.connect("127.0.0.1", port, name, **kwargs))  # type: ignore[arg-type]
    except BaseException:
        await close_all(clients)
        raise
    return clients


async def close_all(clients: Sequence[Client]) -> None:
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


class Online:
    """Who is in the lobby, as one client is told it (the snapshot, then who came and went).
    It reads the client's events: the others among them are skipped."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.names: set[str] = set()

    async def until(self, check: Callable[[set[str]], bool], timeout: float = 15.0) -> set[str]:
        async with asyncio.timeout(timeout):
            while not check(self.names):
                match await self.client.receive():
                    case p.LobbySnapshot(players=players):
                        self.names = {player.name for player in players}
                    case p.PlayerUpdated(player=player):
                        self.names.add(player.name)
                    case p.PlayerLeft(name=name):
                        self.names.discard(name)
        return self.names


async def round_trip(sender: Client, viewer: Client, text: str, timeout: float = 10.0) -> float:
    """Seconds from ``sender``'s lobby chat line to ``viewer`` receiving it."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    await sender.send(p.SendChat(text=text))
    while True:
        line = (await viewer.wait_for(p.Chat, max(0.1, start + timeout - loop.time()))).line
        if (line.sender, line.text) == (sender.welcome.name if sender.welcome else "", text):
            return loop.time() - start


async def table_of(owner: Client, players: int, variant: str = "argentino",
                   options: dict[str, p.OptionValue] | None = None, **kwargs: object) -> str:
    """A new table created by ``owner`` (who sits in seat 0): its id."""
    await owner.send(p.CreateTable(variant=variant, players=players, options=options or {},
                                   **kwargs))  # type: ignore[arg-type]
    return (await owner.wait_for(p.TableCreated, 15)).table_id


async def update(client: Client, want: Callable[[p.TableUpdate], bool] = lambda u: True,
                 timeout: float = 15.0, *, peek: bool = False) -> p.TableUpdate:
    """The next table update that satisfies ``want`` (those before it are skipped); with
    ``peek`` it is also left to be read again (by ``play``, which may have to act on it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        got = await client.wait_for(p.TableUpdate, max(0.1, deadline - loop.time()))
        if want(got):
            if peek:
                client.unread(got)
            return got


def dealt(u: p.TableUpdate) -> bool:
    return u.seat is not None and bool(u.view.own_cards)


async def play_until_over(client: Client, table_id: str, seed: int = 0,
                          timeout: float = 120.0) -> p.TableUpdate:
    """Play this client's seat until the match is over; the update that says so."""
    return await play(client, table_id, lambda u: u.view.match_over, seed, timeout)


async def play(client: Client, table_id: str, until: Callable[[p.TableUpdate], bool], seed: int = 0,
               timeout: float = 120.0, resend_after: float | None = None) -> p.TableUpdate:
    """Play this client's seat with the engine's bot (from the seat's view only) until an
    update satisfies ``until`` (or the match is over); that update. Only this client's events
    are read. With ``resend_after``, a player who hears nothing for that long sends the last
    move again, as a person presses again (its command id makes it act once at most).

    A move dropped by the command rate limit (``rate_limited``: said once a second at most,
    the moves dropped after it silently) is sent again every ``MOVE_PAUSE`` until the table
    answers: an update past the one it answered (or the same move's, again: a retry of a
    move that acted is answered with the table as it is)."""
    rng = random.Random(seed)
    acted = -1
    rules: engine.RuleSet | None = None
    last: p.TableAction | None = None
    seat_view: engine.View | None = None
    dropped = False  # the last move met the rate limit: sent again until the table answers
    async with asyncio.timeout(timeout):
        while True:
            try:
                event = await client.receive(MOVE_PAUSE if dropped else resend_after)
            except TimeoutError:
                if last is not None:
                    await client.send(last)
                continue
            if isinstance(event, p.Error) and last is not None:
                if event.code == "rate_limited":  # dropped before the table saw it: again, soon
                    dropped = True  # (its command id acts once at most)
                    continue
                if seat_view is not None and seat_view.legal:  # refused: a partner answered first
                    last = _command(client, table_id, rng.choice(seat_view.legal))
                await client.send(last)
                continue
            if not (isinstance(event, p.TableUpdate) and event.table_id == table_id and event.seat is not None):
                continue
            if event.seq != acted:
                dropped = False  # the table moved on: past the move, or past waiting for it
            if until(event) or event.view.match_over:
                return event
            if event.seat not in event.waiting or not event.view.legal or event.seq == acted:
                continue
            seat_view = view_of(event)
            rules = rules or engine.get_ruleset(seat_view.variant, **dict(seat_view.options))
            action = decide(seat_view, rules, rng, "easy") or must_move(seat_view, rng)
            acted = event.seq
            last = _command(client, table_id, action)
            await asyncio.sleep(MOVE_PAUSE)
            await client.send(last)


def _command(client: Client, table_id: str, action: engine.Action) -> p.TableAction:
    return p.TableAction(table_id=table_id, call=action.call.value,
                         card=str(action.card) if action.card is not None else None,
                         cid=client.next_cid(), amount=action.amount)
