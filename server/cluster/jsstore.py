"""The cluster's store: what SQLite keeps for one process, kept by JetStream for all.

It answers the calls the lobby and the tables make of ``server.store.Store``, so the Hub
runs unchanged on whichever process is the host:

- open tables: the ``truco_tables`` bucket (a ``TableEntry`` per table; closing deletes it);
- each table's events: its subject of the events stream (``eventlog``); an append returns
  once JetStream acknowledged it (the table sends nothing before), and is fenced: a host
  that lost its lease cannot add to a table after the new host did;
- name reservations: the ``truco_names`` bucket (``names``);
- finished games ("My games"): the ``truco_games`` bucket, one ``GameEntry`` per match;
- ratings and stats: the ``truco_ratings`` and ``truco_stats`` buckets (``ratings``),
  written once a finished match's record is in, from the match's events this store saw
  appended (or, if it did not see all of them, read back from the stream);
- when the host was last alive: the ``truco_meta`` bucket;
- the señas of each table's current hand: the ``truco_senas`` bucket (a ``HandSenas`` per
  table, written after the events of the append that carries them);
- each table's latest chat lines: the ``truco_chat`` bucket (``table_chat``), written the same way.

A restore replays each table's current match from its stream (no snapshots are kept).
Values that do not decode are logged and skipped (``Bus.decode``), never trusted.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Iterable, TypeVar

from nats.js.errors import NotFoundError
from nats.js.kv import KeyValue

import protocol as p
from protocol.bus_base import BusMessage
from protocol.bus import (
    SENAS_PER_HAND, AliveAt, GameEntry, HandSenas, SenaRecord, TableEntry, decode_bus,
)
from server.cluster.bus import Bus, SteadyKV, bucket, retrying
from server.cluster.eventlog import READ_WITHIN, Fenced, TableLog, events_stream
from server.cluster.kvscan import current_values
from server.cluster.names import NameMirror
from server.cluster.ratings import RatingBook
from server.cluster.table_chat import ChatBook
from server.store import ChatRow, EventRow, GameRecord, Reservation, SenaRow, Snapshot, TableRecord

log = logging.getLogger(__name__)

TABLES_BUCKET = "truco_tables"
GAMES_BUCKET = "truco_games"
META_BUCKET = "truco_meta"
SENAS_BUCKET = "truco_senas"
ALIVE_KEY = "alive_at"
RATE_TRIES = 3  # writes of a finished match's ratings and stats, before it is left to a restore
SEAL_TRIES = 5  # reads of a table's log, each sealed, while another process still writes to it
T = TypeVar("T")
Players = list[tuple[int, str, str | None]]  # (seat, name key, fingerprint) of each person


@dataclass
class _Match:
    """The events of a table's current match as appended (its stats are counted from them)."""

    match_no: int
    events: list[dict[str, Any]] = field(default_factory=list)
    whole: bool = False  # from its first event: else read it back from the stream


def _future(coro: Awaitable[T]) -> "asyncio.Future[T]":
    return asyncio.ensure_future(coro)


class JetStreamStore:
    """``server.store.Store``'s interface on the bus (see the module's docstring)."""

    def __init__(self, bus: Bus, names: NameMirror,
                 still_owns: Callable[[str], Awaitable[bool]] | None = None) -> None:
        self._bus = bus
        self._names = names
        self._still_owns = still_owns  # this process still holds the table's lease
        self._logs: dict[str, TableLog] = {}
        # The open tables as last written: this process is the only writer while it hosts,
        # and a seat change then needs no read first (whose answer could come out of order)
        self._entries: dict[str, TableEntry] = {}
        self._tables: KeyValue | None = None
        self._games: KeyValue | None = None
        self._meta: KeyValue | None = None
        self._senas_kv: KeyValue | None = None
        self._hands: dict[str, HandSenas] = {}  # each table's current hand's señas, as last written
        self._book = RatingBook(bus)
        self._chat = ChatBook(bus)
        self._matches: dict[str, _Match] = {}
        self._background: set[asyncio.Task[None]] = set()  # ratings counted again at a restore

    # -- lifecycle ---------------------------------------------------------------------------
    async def open(self, check: bool = True) -> None:
        await events_stream(self._bus)
        self._tables = await bucket(self._bus, TABLES_BUCKET)
        self._games = await bucket(self._bus, GAMES_BUCKET)
        self._meta = await bucket(self._bus, META_BUCKET)
        self._senas_kv = await bucket(self._bus, SENAS_BUCKET)
        await self._book.open()
        await self._chat.open()

    async def check(self) -> None:
        """JetStream checks its own files; nothing to do here."""

    async def close(self) -> None:
        await self.settle()
        self._logs.clear()
        self._matches.clear()
        self._hands.clear()
        self._chat.clear()

    async def settle(self) -> None:
        """Wait for the writes a restore left running in the background."""
        while self._background:
            await asyncio.gather(*self._background, return_exceptions=True)

    def forget(self, table_id: str) -> None:
        """A table another process runs now: what this one kept of it goes."""
        self._logs.pop(table_id, None)
        self._matches.pop(table_id, None)
        self._hands.pop(table_id, None)
        self._chat.forget(table_id)

    def log_of(self, table_id: str) -> TableLog:
        found = self._logs.get(table_id)
        if found is None:
            found = self._logs[table_id] = TableLog(self._bus, table_id)
        return found

    def _kv(self, kv: KeyValue | None) -> SteadyKV:
        """The bucket, its writes and reads waiting out a NATS failover."""
        if kv is None:
            raise RuntimeError("the store is not open")
        return SteadyKV(kv)

    async def _values(self, kv: SteadyKV, kind: type[T]) -> list[T]:
        """Every value of a bucket that is a valid ``kind`` (others are logged and skipped)."""
        found: list[T] = []
        entries = await retrying(lambda: current_values(kv.kv, whole=True), "reading a bucket", READ_WITHIN)
        for entry in entries:  # not kv.keys(): its watch can end early (kvscan.py)
            message = self._decode(entry.value, entry.key)
            if isinstance(message, kind):
                found.append(message)
        return found

    def _decode(self, data: bytes | None, key: str) -> BusMessage | None:
        if not data:
            return None
        try:
            return decode_bus(data)
        except p.ProtocolError as exc:
            self._bus.dropped += 1
            log.warning("store: bad value under %.40s: %s", key, exc)
            return None

    # -- names -------------------------------------------------------------------------------
    async def reservations(self) -> list[Reservation]:
        return [Reservation(key, "", fp) for key, fp in self._names.items()]

    async def reserve(self, name_key: str, name: str, fingerprint: str) -> None:
        await self._names.publish([Reservation(name_key, name, fingerprint)])

    # -- tables ------------------------------------------------------------------------------
    def create_table(self, record: TableRecord) -> "asyncio.Future[None]":
        return _future(self._put_table(record))

    async def _put_table(self, record: TableRecord) -> None:
        entry = TableEntry(
            table_id=record.table_id, title=record.title, variant=record.variant,
            options=dict(record.options), owner=record.owner, private=record.private, code=record.code,
            turn_timer=record.turn_timer, seats=tuple(record.seats), seed=record.seed, demo=record.demo,
            owner_starts=record.owner_starts, quick=record.quick,
        )
        self._entries[record.table_id] = entry
        await self._kv(self._tables).put(record.table_id, p.encode(entry))

    def update_seats(self, table_id: str, seats: list[dict[str, Any]]) -> "asyncio.Future[None]":
        entry = self._entries.get(table_id)
        if entry is None:
            return _future(asyncio.sleep(0))
        entry = self._entries[table_id] = dataclasses.replace(entry, seats=tuple(seats))
        return _future(self._put(self._kv(self._tables), table_id, p.encode(entry)))

    @staticmethod
    async def _put(kv: SteadyKV, key: str, value: bytes) -> None:
        await kv.put(key, value)

    def close_table(self, table_id: str) -> "asyncio.Future[None]":
        self._entries.pop(table_id, None)
        self._hands.pop(table_id, None)
        self._matches.pop(table_id, None)

        async def write() -> None:
            for kv in (self._tables, self._senas_kv):
                try:
                    await self._kv(kv).delete(table_id)
                except NotFoundError:
                    pass
            await self._chat.delete(table_id)

        return _future(write())

    async def is_open(self, table_id: str) -> bool:
        """The table is in the directory (the lobby deletes a table it closes)."""
        try:
            await self._kv(self._tables).get(table_id)
        except NotFoundError:  # never written, or deleted
            return False
        return True

    async def table_index(self) -> list[TableRecord]:
        entries = await self._values(self._kv(self._tables), TableEntry)
        self._entries.update((e.table_id, e) for e in entries)
        return [TableRecord(
            table_id=e.table_id, title=e.title, variant=e.variant, options=dict(e.options),
            owner=e.owner, private=e.private, code=e.code, turn_timer=e.turn_timer,
            seats=[dict(s) for s in e.seats], seed=e.seed, demo=e.demo, owner_starts=e.owner_starts,
            quick=e.quick,
        ) for e in entries]

    async def load_matches(self, records: list[TableRecord]) -> None:
        """Each record's current match, read from its stream (which sets where the next
        append must follow)."""
        for record in records:
            table_log = self.log_of(record.table_id)
            rows = await table_log.read()
            for game in table_log.games:  # in the bucket already, unless the host died between
                await self._put_game(game)
            if table_log.games:  # rated already, unless the host died between (counted once);
                # in the background: the tables play again without waiting for it
                last = table_log.games[-1]
                task = asyncio.get_running_loop().create_task(self._rate(
                    _record(last), _players(last), [r.data for r in rows if r.match_no == last.match_no]))
                self._background.add(task)
                task.add_done_callback(self._background.discard)
            record.snapshot = None
            record.events = [r for r in rows if r.match_no == rows[-1].match_no] if rows else []
            if rows:
                self._matches[record.table_id] = _Match(rows[-1].match_no, [r.data for r in record.events],
                                                        whole=True)
            record.senas = await self._load_senas(record.table_id)
            record.chat = await self._chat.load(record.table_id)

    async def load_to_run(self, record: TableRecord) -> None:
        """``load_matches`` for a table this process now runs: the log read, then sealed
        (``TableLog.seal``), read again if another process wrote to it in between."""
        for _ in range(SEAL_TRIES):
            await self.load_matches([record])
            if await self.log_of(record.table_id).seal():
                return
            log.warning("table %s: written by another process while it was read: read again", record.table_id)
        raise Fenced(f"table {record.table_id}: another process keeps writing to its log")

    async def _load_senas(self, table_id: str) -> list[SenaRow]:
        try:
            entry = await self._kv(self._senas_kv).get(table_id)
        except NotFoundError:
            return []
        hand = self._decode(entry.value, table_id)
        if not isinstance(hand, HandSenas) or hand.table_id != table_id:
            return []
        self._hands[table_id] = hand
        return [SenaRow(hand.match_no, hand.deal_no, r.n, r.seat, r.sena, r.seen) for r in hand.senas]

    async def match_events(self, table_id: str, match_no: int) -> list[EventRow]:
        rows = await TableLog(self._bus, table_id).read()
        return [r for r in rows if r.match_no == match_no]

    # -- the log -----------------------------------------------------------------------------
    async def append(self, table_id: str, rows: Iterable[EventRow],
                     games: Iterable[tuple[GameRecord, list[tuple[int, str, str | None]]]] = (),
                     snapshot: Snapshot | None = None, senas: Iterable[SenaRow] = (),
                     chat: Iterable[ChatRow] = ()) -> None:
        """The events first (acknowledged, fenced), then the records of the matches they end;
        snapshots are not kept (a restore replays the match from its stream); the hand's
        señas and the table's chat lines go to their buckets after the events. An owner that is not sure of the table's
        lease any more (it stalled) writes nothing: the new owner may have read the log
        already."""
        if self._still_owns is not None and not await self._still_owns(table_id):
            raise Fenced(f"table {table_id}: this process may no longer run it")
        rows, games = list(rows), list(games)
        entries = tuple(_entry(game, players) for game, players in games)
        await self.log_of(table_id).append(rows, entries)
        self._follow(table_id, rows)
        senas = list(senas)
        if senas:
            await self._put_senas(table_id, senas)
        chat = list(chat)
        if chat:
            await self._chat.add(table_id, chat)
        for entry in entries:
            await self._put_game(entry)
        for game, players in games:
            await self._rate(game, players, await self._events_of(table_id, game.match_no))
            current = self._matches.get(table_id)
            if current is not None and current.match_no == game.match_no:
                del self._matches[table_id]  # counted: the next match starts a new list

    async def _put_senas(self, table_id: str, senas: list[SenaRow]) -> None:
        """The current hand's señas with these added (a new hand starts the list again)."""
        last = senas[-1]
        hand = self._hands.get(table_id)
        if hand is None or (hand.match_no, hand.deal_no) != (last.match_no, last.deal_no):
            hand = HandSenas(table_id=table_id, match_no=last.match_no, deal_no=last.deal_no)
        added = tuple(SenaRecord(n=r.n, seat=r.seat, sena=r.sena, seen=r.seen) for r in senas
                      if (r.match_no, r.deal_no) == (last.match_no, last.deal_no))
        hand = dataclasses.replace(hand, senas=(hand.senas + added)[:SENAS_PER_HAND])
        self._hands[table_id] = hand
        await self._kv(self._senas_kv).put(table_id, p.encode(hand))

    def _follow(self, table_id: str, rows: list[EventRow]) -> None:
        current = self._matches.get(table_id)
        for row in rows:
            if current is None or current.match_no != row.match_no:
                current = self._matches[table_id] = _Match(
                    row.match_no, whole=row.data.get("type") == "match_started")
            current.events.append(row.data)

    async def _events_of(self, table_id: str, match_no: int) -> list[dict[str, Any]]:
        """A match's events: as appended here, or read back from the stream."""
        current = self._matches.get(table_id)
        if current is not None and current.match_no == match_no and current.whole:
            return current.events
        return [r.data for r in await self.match_events(table_id, match_no)]

    async def _rate(self, game: GameRecord, players: Players, events: list[dict[str, Any]]) -> None:
        """Stats and ratings of a finished match, tried again after a bus error (a match
        counts once however often it is recorded); a failure is logged (the match is in the
        log and in "My games": a new owner counts the table's last one again)."""
        for attempt in range(RATE_TRIES):
            try:
                await self._book.record_match(game, players, events)
                return
            except Exception:
                if attempt + 1 == RATE_TRIES:
                    log.exception("store: the ratings of %s match %d were not written",
                                  game.table_id, game.match_no)
                else:
                    await asyncio.sleep(0.2 * (attempt + 1))

    def mark_alive(self, when: float | None = None) -> "asyncio.Future[None]":
        stamp = time.time() if when is None else when
        value = p.encode(AliveAt(ts=stamp))
        return _future(self._put_meta(value))

    async def _put_meta(self, value: bytes) -> None:
        await self._kv(self._meta).put(ALIVE_KEY, value)

    async def last_alive(self) -> float | None:
        try:
            entry = await self._kv(self._meta).get(ALIVE_KEY)
        except NotFoundError:
            return None
        message = self._decode(entry.value, ALIVE_KEY)
        return message.ts if isinstance(message, AliveAt) else None

    # -- finished games ----------------------------------------------------------------------
    async def finish_game(self, game: GameRecord, players: list[tuple[int, str, str | None]]) -> None:
        await self._put_game(_entry(game, players))

    async def _put_game(self, entry: GameEntry) -> None:
        await self._kv(self._games).put(f"{entry.table_id}.{entry.match_no}", p.encode(entry))

    async def my_games(self, fingerprint: str | None, name_key: str, limit: int = 50) -> list[GameRecord]:
        """The asker's finished games, newest first (reads the whole bucket: fine for a club,
        not for a site; see docs/CLUSTER.md)."""
        games = [g for g in await self._values(self._kv(self._games), GameEntry)
                 if _played(g, fingerprint, name_key)]
        games.sort(key=lambda g: g.finished_at, reverse=True)
        return [_record(g) for g in games[:limit]]

    async def game_log(self, table_id: str, match_no: int, fingerprint: str | None,
                       name_key: str) -> tuple[GameRecord, list[EventRow]] | None:
        try:
            entry = await self._kv(self._games).get(f"{table_id}.{match_no}")
        except NotFoundError:
            return None
        game = self._decode(entry.value, table_id)
        if not isinstance(game, GameEntry) or not _played(game, fingerprint, name_key):
            return None
        return _record(game), await self.match_events(table_id, match_no)


    # -- ratings and stats (``ratings``: the rules of server/store/ratings.py) --------------
    def desert(self, game: GameRecord, players: list[tuple[int, str, str | None]]) -> "asyncio.Future[None]":
        """Everybody left a match before its end: kept (My games, the proof of its deals) with
        nobody's win, and a loss for each of them if it was rated."""

        async def write() -> None:
            await self._put_game(_entry(dataclasses.replace(game, winner=None), players))
            events = await self._events_of(game.table_id, game.match_no)
            await self._book.record_deserted(game, players, events)

        return _future(write())

    async def player_stats(self, fingerprint: str, recent: int = 20) -> dict[str, Any]:
        return await self._book.player_stats(fingerprint, recent)

    async def leaderboard(self, variant: str, players: int, limit: int = 20) -> list[tuple[str, float, int, int, int]]:
        return await self._book.leaderboard(variant, players, limit)


def _entry(game: GameRecord, players: list[tuple[int, str, str | None]]) -> GameEntry:
    return GameEntry(
        table_id=game.table_id, match_no=game.match_no, variant=game.variant, title=game.title,
        seats=tuple(game.seats), scores=tuple(game.scores), winner=game.winner, hands=game.hands,
        finished_at=game.finished_at, player_seats=tuple(s for s, _, _ in players),
        player_keys=tuple(k for _, k, _ in players), player_fps=tuple(f for _, _, f in players),
        abandoned=tuple(game.abandoned), deal_secret=game.deal_secret,
    )


def _players(g: GameEntry) -> Players:
    return list(zip(g.player_seats, g.player_keys, g.player_fps))


def _played(game: GameEntry, fingerprint: str | None, name_key: str) -> bool:
    # As the SQLite store: key holders are known by their key, a guest by the name played under
    if fingerprint is not None:
        return fingerprint in game.player_fps
    return any(fp is None and key == name_key for key, fp in zip(game.player_keys, game.player_fps))


def _record(g: GameEntry) -> GameRecord:
    return GameRecord(g.table_id, g.match_no, g.variant, g.title, list(g.seats), list(g.scores),
                      g.winner, g.hands, g.finished_at, abandoned=g.abandoned, deal_secret=g.deal_secret)
