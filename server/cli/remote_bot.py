"""``truco-ssh bot``: a bot that plays from any machine through the ``truco`` subsystem.

It is an ordinary protocol client (protocol/client.py): it knows only what its seat receives,
the table updates' wire views, read back with ``engine.view_from_wire``, and decides with the
engine's bot. The table is the one named (``--table``, ``--code``) or else the first table in
the lobby with a free seat that is still waiting for players (it waits for one to appear).
It plays ``--matches`` matches (voting for a rematch between them), leaves, and exits.
"""
from __future__ import annotations

import argparse
import asyncio
import logging
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncssh

import engine
import protocol as p
from protocol.client import Client, wire_view
from server.say import ENGLISH
from tui.i18n import Translator

log = logging.getLogger(__name__)

LEVELS = engine.BOT_LEVELS
ILLEGAL_RETRIES = 5  # refused moves in a row before the bot gives up a decision
# At most one move per this many seconds: well under the server's command rate (20 a second,
# bursts of 40, docs/OPERATING.md "Limits"), which a bot on a table of bots without delays would pass.
MOVE_INTERVAL = 0.1
RATE_PAUSE = 0.5  # seconds to wait after the server said "too many commands", then resend


def decide(seat_view: engine.View, rules: engine.RuleSet, rng: random.Random,
           level: str) -> engine.Action | None:
    """The one place the level meets the engine's bots (engine/bots/levels.py). The hard
    level searches sampled worlds of what this seat cannot see (engine.Worlds needs the
    whole state, which a remote seat never has): here it plays as normal."""
    return engine.choose_for_level(level, seat_view, rules, rng)


def view_of(update: p.TableUpdate) -> engine.View:
    """The engine's View of what a table update shows this viewer. A typed view may leave out
    what the update says already (the viewer: its seat) and the finished hands' summaries
    (only the screens show those): they are filled in."""
    wire = dict(wire_view(update))
    wire.setdefault("viewer", update.seat)
    wire.setdefault("history", [])
    return engine.view_from_wire(wire)


def must_move(seat_view: engine.View, rng: random.Random) -> engine.Action:
    """The table waits on this seat and the bot would rather wait: the least committal move
    (a card, else an acceptance, else anything legal), as the server's own bots do."""
    by_call = {a.call: a for a in seat_view.legal}
    cards = [a for a in seat_view.legal if a.call is engine.Call.PLAY]
    if cards:
        return cards[0]
    return by_call.get(engine.Call.QUIERO, rng.choice(seat_view.legal))


@dataclass
class Plan:
    """What the bot should do: which table, how long."""

    table_id: str | None = None
    code: str | None = None
    seat: int | None = None
    level: str = "normal"
    matches: int = 1
    # Join nothing: wait to be seated (the client created the table, or comes back to a
    # seat held for it, which the server gives back on its own).
    wait: bool = False


class RemoteBot:
    """Plays one seat from the updates it receives; ``run`` returns the matches it finished."""

    def __init__(self, client: Client, plan: Plan, rng: random.Random | None = None) -> None:
        if plan.level not in LEVELS:
            raise ValueError(f"unknown level {plan.level!r} (one of {', '.join(LEVELS)})")
        self.client = client
        self.plan = plan
        self.rng = rng or random.Random()
        self.table_id: str | None = None
        self.seat: int | None = None
        self.finished = 0
        self._asked = plan.wait  # a join is on its way (or none is wanted)
        self._acted_seq = -1
        self._refusals = 0
        self.last_view: engine.View | None = None  # the latest view of its seat
        self._last_command: p.TableAction | None = None
        self._next_move = 0.0  # loop time before which the bot does not send a move
        self._rules: dict[tuple[str, tuple[tuple[str, Any], ...]], engine.RuleSet] = {}
        self._over = False  # the match-over update of this match was counted

    async def run(self) -> int:
        client = self.client
        if self.plan.table_id is not None:
            await self._join(self.plan.table_id)
        elif self.plan.code is not None:
            await client.send(p.JoinByCode(code=self.plan.code))
            self._asked = True
        async for event in client:
            done = await self._on(event)
            if done:
                break
        return self.finished

    async def _join(self, table_id: str) -> None:
        self._asked = True
        await self.client.send(p.JoinTable(table_id=table_id, seat=self.plan.seat))

    async def _on(self, event: p.Event) -> bool:
        """Handle one event; True: the bot is done."""
        match event:
            case p.LobbySnapshot(tables=tables):
                await self._pick(tables)
            case p.TableUpdated(table=table):
                await self._pick((table,))
            case p.Seated(table_id=table_id, seat=seat):
                if table_id is not None and seat is not None:
                    self.table_id, self.seat = table_id, seat
                    log.info("seated at %s, seat %d", table_id, seat)
                elif self.table_id is not None:
                    return True  # left the table (or was removed)
            case p.TableUpdate() if event.seat is not None and self.table_id in (None, event.table_id):
                self.table_id, self.seat = event.table_id, event.seat  # an update for a seat: ours
                return await self._play(event)
            case p.Error(code=code, message=message):
                return await self._on_error(code, message)
            case p.Notice(code=code):
                log.info("server notice: %s", code)
        return False

    async def _pick(self, tables: tuple[p.TableInfo, ...]) -> None:
        """Without a named table: join the first waiting table with a free seat."""
        if self._asked or self.table_id is not None or self.plan.code is not None:
            return
        for table in tables:
            if table.status == "waiting" and None in table.seats and not table.private:
                await self._join(table.table_id)
                return

    async def _on_error(self, code: str, message: str) -> bool:
        # A partner answering the same bet first makes ours illegal: routine at 4 and 6.
        log.log(logging.INFO if code == "illegal" else logging.WARNING, "server error %s: %s", code, message)
        if code == "rate_limited" and self._last_command is not None:
            # The command was dropped before the table saw it; the same command id again
            # cannot act twice, so resending is safe either way.
            await asyncio.sleep(RATE_PAUSE)
            await self.client.send(self._last_command)
            return False
        if self.table_id is None and self._asked:
            if self.plan.table_id is not None or self.plan.code is not None:
                raise RuntimeError(f"could not join: {message}")
            self._asked = False  # that table filled up: wait for another
            return False
        if code == "illegal" and self.last_view is not None and self._refusals < ILLEGAL_RETRIES:
            self._refusals += 1  # the view was stale or the bot erred: any legal move instead
            action = self.rng.choice(self.last_view.legal) if self.last_view.legal else None
            if action is not None:
                await self._send(action)
        return False

    async def _play(self, update: p.TableUpdate) -> bool:
        seat_view = view_of(update)
        self.last_view = seat_view
        if seat_view.match_over:
            if not self._over:
                self._over = True
                self.finished += 1
                if self.finished >= self.plan.matches:
                    assert self.table_id is not None
                    await self.client.send(p.LeaveTable(table_id=self.table_id))
                    return True
                assert self.table_id is not None
                await self.client.send(p.Rematch(table_id=self.table_id))
            return False
        self._over = False
        if not seat_view.legal or update.seq == self._acted_seq:
            return False
        rules = self._ruleset(seat_view)
        action = decide(seat_view, rules, self.rng, self.plan.level)
        if action is None and update.seat in update.waiting:
            action = must_move(seat_view, self.rng)
        if action is not None:
            self._acted_seq = update.seq
            self._refusals = 0
            await self._send(action)
        return False

    async def _send(self, action: engine.Action) -> None:
        assert self.table_id is not None
        log.debug("%s plays %s", self.table_id, action.to_wire())
        command = p.TableAction(table_id=self.table_id, call=action.call.value,
                                card=str(action.card) if action.card is not None else None,
                                cid=self.client.next_cid(), amount=action.amount)
        self._last_command = command
        loop = asyncio.get_running_loop()
        wait = self._next_move - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        self._next_move = loop.time() + MOVE_INTERVAL
        await self.client.send(command)

    def _ruleset(self, seat_view: engine.View) -> engine.RuleSet:
        key = (seat_view.variant, seat_view.options)
        rules = self._rules.get(key)
        if rules is None:
            rules = self._rules[key] = engine.get_ruleset(seat_view.variant, **dict(seat_view.options))
        return rules


async def run_bot(host: str, port: int, name: str, plan: Plan, *, known_hosts: object = (),
                  client_keys: list[Any] | None = None, seed: int | None = None) -> int:
    """Connect, play as planned, disconnect; the number of matches finished."""
    async with await Client.connect(host, port, name, known_hosts=known_hosts,
                                    client_keys=client_keys) as client:
        return await RemoteBot(client, plan, random.Random(seed)).run()



# -- the command line: `truco-ssh bot` (server/cli/main.py adds the parser and calls bot_main) ------

def add_bot_parser(sub: Any, default_port: int, tr: Translator = ENGLISH) -> None:
    """The ``bot`` subcommand's arguments (``sub``: the CLI's subparsers; help in ``tr``'s language)."""
    bot = sub.add_parser("bot", help=tr("cli.help.bot"))
    bot.add_argument("name", help=tr("cli.help.bot.name"))
    bot.add_argument("--host", default="127.0.0.1", help=tr("cli.help.bot.host"))
    bot.add_argument("--port", type=int, default=default_port, help=tr("cli.help.bot.port"))
    bot.add_argument("--level", default="normal", choices=list(LEVELS),
                     help=tr("cli.help.bot.level"))
    bot.add_argument("--table", help=tr("cli.help.bot.table"))
    bot.add_argument("--code", help=tr("cli.help.bot.code"))
    bot.add_argument("--seat", type=int, help=tr("cli.help.bot.seat"))
    bot.add_argument("--matches", type=int, default=1,
                     help=tr("cli.help.bot.matches"))
    bot.add_argument("--identity", type=Path,
                     help=tr("cli.help.bot.identity"))
    bot.add_argument("--known-hosts", default="~/.ssh/known_hosts",
                     help=tr("cli.help.bot.known_hosts"))
    bot.add_argument("--seed", type=int, help=tr("cli.help.bot.seed"))
    bot.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                     help=tr("cli.help.log_level"))


def bot_main(args: argparse.Namespace) -> int:
    """``truco-ssh bot``: play, then say how many matches; 1 with the reason on failure."""
    logging.basicConfig(level=args.log_level, stream=sys.__stderr__,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    plan = Plan(table_id=args.table, code=args.code, seat=args.seat, level=args.level,
                matches=max(1, args.matches))
    known_hosts = None if args.known_hosts == "none" else str(Path(args.known_hosts).expanduser())
    if known_hosts is not None and not Path(known_hosts).is_file():
        log.error("bot: no known hosts file %s: give --known-hosts FILE with the server's key "
                  "(or none to accept any key)", known_hosts)
        return 1
    try:
        keys = [asyncssh.read_private_key(args.identity)] if args.identity else None
        played = asyncio.run(run_bot(args.host, args.port, args.name, plan, known_hosts=known_hosts,
                                     client_keys=keys, seed=args.seed))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # refused name, hang-up, no such table: the reason, not a traceback
        log.error("bot: %s", exc or type(exc).__name__)
        return 1
    out = sys.__stdout__
    if out is not None:
        out.write(f"{args.name}: played {played} match(es)\n")
    return 0
