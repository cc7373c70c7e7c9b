"""Ratings and stats in cluster mode: what ``server/store/ratings.py`` keeps in SQLite, kept
in two JetStream key-value buckets, by the same rules (its functions say who counts and how
a rating moves):

- ``truco_ratings``: a ``RatingEntry`` per key, variant and table size, under
  ``<variant hex>.<size>.<fingerprint hex>``: a leaderboard reads one variant and size, a
  stats screen one key's ratings, each through a key filter, never the whole bucket;
- ``truco_stats``: a ``StatLine`` per key holder and match, under
  ``<fingerprint hex>.<table>.<match>.<seat>``.

Each rating is read, moved and written back naming the revision it read (another writer in
between: read it again and move that). A rating remembers the last matches it counted, so
a match recorded twice counts once: a new host records again the last finished match of
each table it restores, in case the old one died between the log and the ratings. A value
that does not decode is logged and skipped.
"""
from __future__ import annotations

import logging
from typing import Any, Sequence, TypeVar

from nats.js.errors import KeyWrongLastSequenceError, NotFoundError
from nats.js.kv import KeyValue

import protocol as p
from protocol.bus import decode_bus
from protocol.bus_base import BusMessage
from protocol.bus_ratings import RATED_KEPT, RatedMatch, RatingEntry, StatLine
from server.cluster.bus import Bus, bucket
from server.cluster.kvscan import current_values
from server.store.match_stats import match_stats
from server.store.ratings import MODEL, is_rated, key_holders, new_ratings, ordinal, two_teams
from server.store.records import GameRecord

log = logging.getLogger(__name__)

RATINGS_BUCKET = "truco_ratings"
STATS_BUCKET = "truco_stats"
WRITE_TRIES = 8  # a rating another writer keeps moving: give up (logged) after this many reads
Players = Sequence[tuple[int, str, str | None]]  # (seat, name key, fingerprint) of each person
T = TypeVar("T", bound=BusMessage)


def _hex(text: str) -> str:
    return text.encode().hex()  # KV keys allow few characters; fingerprints have + / =


def rating_key(variant: str, players: int, fingerprint: str) -> str:
    return f"{_hex(variant)}.{players}.{_hex(fingerprint)}"


def stat_key(fingerprint: str, table_id: str, match_no: int, seat: int) -> str:
    return f"{_hex(fingerprint)}.{_hex(table_id)}.{match_no}.{seat}"


class RatingBook:
    """The cluster's ratings and stats lines (see the module's docstring)."""

    def __init__(self, bus: Bus) -> None:
        self._bus = bus
        self._ratings: KeyValue | None = None
        self._stats: KeyValue | None = None

    async def open(self) -> None:
        self._ratings = await bucket(self._bus, RATINGS_BUCKET)
        self._stats = await bucket(self._bus, STATS_BUCKET)

    def _kv(self, kv: KeyValue | None) -> KeyValue:
        if kv is None:
            raise RuntimeError("the rating book is not open")
        return kv

    # -- writing ---------------------------------------------------------------------------
    async def record_match(self, game: GameRecord, players: Players, events: list[dict[str, Any]]) -> None:
        """A finished match: every key holder's stats line and, if it is rated, their ratings."""
        if not two_teams(game):
            return
        keyed = key_holders(players)
        if keyed:
            await self._record(game, keyed, events, int(game.winner or 0), deserted=False)

    async def record_deserted(self, game: GameRecord, players: Players, events: list[dict[str, Any]]) -> None:
        """A rated match every person left before its end: a loss for each of them."""
        keyed = key_holders(players)
        if len(game.seats) % 2 == 0 and is_rated(keyed, len(game.seats)):
            await self._record(game, keyed, events, None, deserted=True)

    async def _record(self, game: GameRecord, keyed: dict[int, str], events: list[dict[str, Any]],
                      winner: int | None, deserted: bool) -> None:
        n = len(game.seats)
        rated = is_rated(keyed, n)
        teams = match_stats(events)
        before: dict[int, tuple[float, float]] = {}
        if rated:
            for seat, fp in keyed.items():
                entry, _rev = await self._rating(game.variant, n, fp)
                before[seat] = (entry.mu, entry.sigma) if entry is not None else _fresh()
        for seat, fp in keyed.items():
            team = seat % 2
            # Deserted: every person lost it, each rated as if their team had lost
            won = not deserted and team == winner and seat not in game.abandoned
            moved = None
            if rated:
                moved = await self._move(game, seat, fp, before, won,
                                         1 - team if winner is None else winner,
                                         () if deserted else game.abandoned,
                                         left=deserted or seat in game.abandoned)
            mine, theirs = teams[team], teams[1 - team]
            line = StatLine(
                table_id=game.table_id, match_no=game.match_no, seat=seat, fingerprint=fp,
                variant=game.variant, players=n, title=game.title, won=won,
                abandoned=deserted or seat in game.abandoned, points_for=mine.points_for,
                points_against=theirs.points_for, envidos_won=mine.envidos_won,
                trucos_won=mine.trucos_won, trucos_refused=mine.trucos_refused, rated=rated,
                rating_before=moved.before if moved else None,
                rating_after=moved.after if moved else None, finished_at=game.finished_at)
            await self._kv(self._stats).put(stat_key(fp, game.table_id, game.match_no, seat), p.encode(line))

    async def _move(self, game: GameRecord, seat: int, fp: str, before: dict[int, tuple[float, float]],
                    won: bool, winner: int, abandoned: Sequence[int], left: bool) -> RatedMatch | None:
        """Move one seat's rating (against the others' as they were at the match's end);
        the match as this rating counted it (None: it could not be written)."""
        match_id = f"{game.table_id}.{game.match_no}"
        key = rating_key(game.variant, len(game.seats), fp)
        kv = self._kv(self._ratings)
        for _ in range(WRITE_TRIES):
            entry, revision = await self._rating(game.variant, len(game.seats), fp)
            done = next((m for m in entry.counted if m.match == match_id), None) if entry else None
            if done is not None:
                return done  # counted already (recorded again by a new host)
            mine = (entry.mu, entry.sigma) if entry is not None else _fresh()
            mu, sigma = new_ratings({**before, seat: mine}, winner, abandoned)[seat]
            counted = RatedMatch(match=match_id, before=ordinal(*mine), after=ordinal(mu, sigma))
            value = RatingEntry(
                fingerprint=fp, variant=game.variant, players=len(game.seats), mu=mu, sigma=sigma,
                games=(entry.games if entry else 0) + 1, wins=(entry.wins if entry else 0) + int(won),
                left=(entry.left if entry else 0) + int(left),
                updated_at=game.finished_at, name=game.seats[seat][:p.NAME_MAX],
                counted=((entry.counted if entry else ()) + (counted,))[-RATED_KEPT:])
            try:
                if revision is None:
                    await kv.create(key, p.encode(value))
                else:
                    await kv.update(key, p.encode(value), last=revision)
            except KeyWrongLastSequenceError:
                continue  # another writer moved it meanwhile: read it again
            return counted
        log.error("ratings: %s of %s kept changing; not rated", key, match_id)
        return None

    # -- reading ---------------------------------------------------------------------------
    async def _rating(self, variant: str, players: int, fp: str) -> tuple[RatingEntry | None, int | None]:
        """The key's rating and its revision (None, None: none yet)."""
        key = rating_key(variant, players, fp)
        try:
            found = await self._kv(self._ratings).get(key)
        except NotFoundError:
            return None, None
        entry = self._decode(found.value, key, RatingEntry)
        if entry is None or entry.fingerprint != fp:  # unreadable: written over by the next match
            return None, found.revision
        return entry, found.revision

    async def _scan(self, kv: KeyValue, keys: str, kind: type[T]) -> list[T]:
        """The valid ``kind`` values under the keys ``keys`` matches (a NATS subject filter)."""
        found: list[T] = []
        for entry in await current_values(kv, keys):
            value = self._decode(entry.value, entry.key, kind)
            if value is not None:
                found.append(value)
        return found

    def _decode(self, data: bytes | None, key: str, kind: type[T]) -> T | None:
        if not data:
            return None
        try:
            message = decode_bus(data)
        except p.ProtocolError as exc:
            message = None
            log.warning("ratings: bad value under %.60s: %s", key, exc)
        if not isinstance(message, kind):
            self._bus.dropped += 1
            return None
        return message

    async def player_stats(self, fp: str, recent: int = 20) -> dict[str, Any]:
        """As ``server.store.ratings.player_stats``: totals, ratings, the last matches."""
        lines = [line for line in await self._scan(self._kv(self._stats), f"{_hex(fp)}.>", StatLine)
                 if line.fingerprint == fp]
        totals = (len(lines), sum(int(line.won) for line in lines),
                  sum(line.points_for for line in lines), sum(line.points_against for line in lines),
                  sum(line.envidos_won for line in lines), sum(line.trucos_won for line in lines),
                  sum(line.trucos_refused for line in lines))
        ratings = [r for r in await self._scan(self._kv(self._ratings), f"*.*.{_hex(fp)}", RatingEntry)
                   if r.fingerprint == fp]
        ratings.sort(key=lambda r: (-r.games, r.variant, r.players))
        lines.sort(key=lambda line: (-line.finished_at, line.table_id, -line.match_no))
        return {
            "totals": totals,
            "ratings": [(r.variant, r.players, ordinal(r.mu, r.sigma), r.games, r.wins) for r in ratings],
            "recent": [(line.variant, line.players, line.title, int(line.won), int(line.abandoned),
                        line.points_for, line.points_against, int(line.rated), _delta(line),
                        line.finished_at, line.table_id, line.match_no) for line in lines[:recent]],
        }

    async def leaderboard(self, variant: str, players: int,
                          limit: int = 20) -> list[tuple[str, float, int, int, int]]:
        """(name, rating, games, wins, left) of the best rated at a variant and table size."""
        board = [r for r in await self._scan(self._kv(self._ratings), f"{_hex(variant)}.{players}.*",
                                             RatingEntry)
                 if r.variant == variant and r.players == players]
        board.sort(key=lambda r: (-ordinal(r.mu, r.sigma), -r.games))
        return [(r.name or "?", ordinal(r.mu, r.sigma), r.games, r.wins, r.left) for r in board[:limit]]


def _fresh() -> tuple[float, float]:
    fresh = MODEL.rating()
    return float(fresh.mu), float(fresh.sigma)


def _delta(line: StatLine) -> float | None:
    if line.rating_before is None or line.rating_after is None:
        return None
    return line.rating_after - line.rating_before
