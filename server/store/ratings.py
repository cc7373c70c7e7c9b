"""Ratings (openskill) and each key holder's match lines, as SQL on the writer thread.

Written with a finished match's record, in the transaction of its last events (``games``).
The policy, as docs/PLAYING.md says ("Ratings and stats"):
- Only two-team matches count (1v1, 2v2, 3v3): seat % 2 is the team (not the Uruguayan
  game of three, whose teams change every hand).
- Every key holder at such a match gets a stats line (games against bots count in the stats).
- A match is *rated* only if every seat was taken by a person with a key from the start
  (no bot seat, no guest, no key twice): bots and guests have no rating to move, and a win
  against a bot says nothing about the players. Ratings are per key, variant and table size.
- A player who left a rated match for good (a bot finished for them) loses it: their rating
  moves as if their team had lost; the partners who stayed get the team's real result. If
  every person leaves before the end, the table closes and each of them loses the match
  (``record_deserted``).
"""
from __future__ import annotations

import sqlite3
from typing import Any, Sequence

from openskill.models import PlackettLuce

from server.store.match_stats import match_stats
from server.store.records import GameRecord, unpack_event

MODEL = PlackettLuce()
Players = Sequence[tuple[int, str, str | None]]  # (seat, name key, fingerprint) of each person


def ordinal(mu: float, sigma: float) -> float:
    """The rating shown: openskill's conservative estimate (0 for a new player)."""
    return mu - 3 * sigma


# -- who counts (the cluster's store applies the same rules: server/cluster/ratings.py) ----

def two_teams(game: GameRecord) -> bool:
    """A finished match of two teams (seat % 2), won by one of them: the only kind with
    stats; not e.g. the Uruguayan game of three, whose teams change every hand."""
    return len(game.scores) == 2 and game.winner in (0, 1) and len(game.seats) % 2 == 0


def key_holders(players: Players) -> dict[int, str]:
    """seat -> fingerprint of each person who played with a key."""
    return {seat: fp for seat, _key, fp in players if fp is not None}


def is_rated(keyed: dict[int, str], seats: int) -> bool:
    """Every seat a person with a key, no key twice."""
    return len(keyed) == seats and len(set(keyed.values())) == seats


def _current(db: sqlite3.Connection, fp: str, variant: str, players: int) -> tuple[float, float]:
    row = db.execute(
        "SELECT mu, sigma FROM ratings WHERE fingerprint = ? AND variant = ? AND players = ?",
        (fp, variant, players),
    ).fetchone()
    if row is None:
        fresh = MODEL.rating()
        return float(fresh.mu), float(fresh.sigma)
    return float(row[0]), float(row[1])


def new_ratings(current: dict[int, tuple[float, float]], winner: int,
                abandoned: Sequence[int] = ()) -> dict[int, tuple[float, float]]:
    """Every seat's (mu, sigma) after a two-team match ``winner`` won; the seats in
    ``abandoned`` are rated as losers whatever their team did."""
    seats = sorted(current)
    teams = [[s for s in seats if s % 2 == t] for t in (0, 1)]

    def rate(won: int) -> dict[int, tuple[float, float]]:
        ratings = [[MODEL.rating(*current[s]) for s in team] for team in teams]
        ranks = [0.0 if t == won else 1.0 for t in (0, 1)]
        rated = MODEL.rate(ratings, ranks=ranks)
        return {s: (float(r.mu), float(r.sigma)) for team, new in zip(teams, rated) for s, r in zip(team, new)}

    after = rate(winner)
    quitters = [s for s in abandoned if s % 2 == winner]
    if quitters:
        as_losers = rate(1 - winner)
        for seat in quitters:
            after[seat] = as_losers[seat]
    return after


def record_match(db: sqlite3.Connection, game: GameRecord, players: Players,
                 events: list[dict[str, Any]]) -> None:
    """The match's stats lines and, if it is rated, the new ratings (see the module doc)."""
    if not two_teams(game):
        return
    winner = int(game.winner or 0)  # 0 or 1 (checked above)
    n = len(game.seats)
    keyed = key_holders(players)
    if not keyed:
        return
    rated = is_rated(keyed, n)
    before: dict[int, tuple[float, float]] = {}
    after: dict[int, tuple[float, float]] = {}
    if rated:
        before = {seat: _current(db, fp, game.variant, n) for seat, fp in keyed.items()}
        after = new_ratings(before, winner, game.abandoned)
    teams = match_stats(events)
    for seat, fp in keyed.items():
        team = seat % 2
        won = team == winner and seat not in game.abandoned
        if rated:
            mu, sigma = after[seat]
            db.execute(
                "INSERT INTO ratings (fingerprint, variant, players, mu, sigma, games, wins, updated_at)"
                " VALUES (?,?,?,?,?,1,?,?) ON CONFLICT (fingerprint, variant, players) DO UPDATE SET"
                " mu = excluded.mu, sigma = excluded.sigma, games = games + 1,"
                " wins = wins + excluded.wins, updated_at = excluded.updated_at",
                (fp, game.variant, n, mu, sigma, int(won), game.finished_at),
            )
        mine, theirs = teams[team], teams[1 - team]
        db.execute(
            "INSERT OR REPLACE INTO match_stats (table_id, match_no, seat, fingerprint, variant,"
            " players, won, abandoned, points_for, points_against, envidos_won, trucos_won,"
            " trucos_refused, rated, rating_before, rating_after, finished_at)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (game.table_id, game.match_no, seat, fp, game.variant, n, int(won),
             int(seat in game.abandoned), mine.points_for, theirs.points_for, mine.envidos_won,
             mine.trucos_won, mine.trucos_refused, int(rated),
             ordinal(*before[seat]) if rated else None, ordinal(*after[seat]) if rated else None,
             game.finished_at),
        )


def record_deserted(db: sqlite3.Connection, game: GameRecord, players: Players) -> None:
    """A rated match every person left before its end (the table closed): each of them
    abandoned it, so each loses it (rated as if their team had lost). Its record, with
    nobody's win, is written beside this (server/store/games.py, ``write_deserted``)."""
    n = len(game.seats)
    keyed = key_holders(players)
    if n % 2 or not is_rated(keyed, n):
        return
    events = [unpack_event(data) for (data,) in db.execute(
        "SELECT data FROM events WHERE table_id = ? AND match_no = ? ORDER BY seq",
        (game.table_id, game.match_no))]
    teams = match_stats(events)
    before = {seat: _current(db, fp, game.variant, n) for seat, fp in keyed.items()}
    as_lost = [new_ratings(before, winner=1 - team) for team in (0, 1)]
    for seat, fp in keyed.items():
        mu, sigma = as_lost[seat % 2][seat]
        db.execute(
            "INSERT INTO ratings (fingerprint, variant, players, mu, sigma, games, wins, updated_at)"
            " VALUES (?,?,?,?,?,1,0,?) ON CONFLICT (fingerprint, variant, players) DO UPDATE SET"
            " mu = excluded.mu, sigma = excluded.sigma, games = games + 1, updated_at = excluded.updated_at",
            (fp, game.variant, n, mu, sigma, game.finished_at),
        )
        mine, theirs = teams[seat % 2], teams[1 - seat % 2]
        db.execute(
            "INSERT OR REPLACE INTO match_stats (table_id, match_no, seat, fingerprint, variant,"
            " players, won, abandoned, points_for, points_against, envidos_won, trucos_won,"
            " trucos_refused, rated, rating_before, rating_after, finished_at)"
            " VALUES (?,?,?,?,?,?,0,1,?,?,?,?,?,1,?,?,?)",
            (game.table_id, game.match_no, seat, fp, game.variant, n, mine.points_for,
             theirs.points_for, mine.envidos_won, mine.trucos_won, mine.trucos_refused,
             ordinal(*before[seat]), ordinal(mu, sigma), game.finished_at),
        )


# -- reading: the stats screen and the leaderboards --------------------------------------

def player_stats(db: sqlite3.Connection, fp: str, recent: int) -> dict[str, Any]:
    totals = db.execute(
        "SELECT COUNT(*), COALESCE(SUM(won), 0), COALESCE(SUM(points_for), 0),"
        " COALESCE(SUM(points_against), 0), COALESCE(SUM(envidos_won), 0),"
        " COALESCE(SUM(trucos_won), 0), COALESCE(SUM(trucos_refused), 0)"
        " FROM match_stats WHERE fingerprint = ?", (fp,),
    ).fetchone()
    ratings = [
        (variant, players, ordinal(mu, sigma), games, wins)
        for variant, players, mu, sigma, games, wins in db.execute(
            "SELECT variant, players, mu, sigma, games, wins FROM ratings WHERE fingerprint = ?"
            " ORDER BY games DESC, variant, players", (fp,),
        )
    ]
    lines = db.execute(
        "SELECT m.variant, m.players, COALESCE(g.title, ''), m.won, m.abandoned, m.points_for,"
        " m.points_against, m.rated, m.rating_after - m.rating_before, m.finished_at, m.table_id, m.match_no"
        " FROM match_stats m LEFT JOIN games g ON g.table_id = m.table_id AND g.match_no = m.match_no"
        " WHERE m.fingerprint = ? ORDER BY m.finished_at DESC, m.table_id, m.match_no DESC LIMIT ?",
        (fp, recent),
    ).fetchall()
    return {"totals": tuple(totals), "ratings": ratings, "recent": [tuple(r) for r in lines]}


def leaderboard(db: sqlite3.Connection, variant: str, players: int,
                limit: int) -> list[tuple[str, float, int, int, int]]:
    """The best ratings (ordinal) at a variant and table size, with each key's latest name
    and how many of its rated matches there it left before the end."""
    rows = db.execute(
        "SELECT r.mu, r.sigma, r.games, r.wins,"
        " (SELECT p.name FROM players p WHERE p.fingerprint = r.fingerprint"
        "  ORDER BY p.last_seen DESC LIMIT 1),"
        " (SELECT COUNT(*) FROM match_stats m WHERE m.fingerprint = r.fingerprint"
        "  AND m.variant = r.variant AND m.players = r.players AND m.rated = 1 AND m.abandoned = 1)"
        " FROM ratings r WHERE r.variant = ? AND r.players = ?"
        " ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC LIMIT ?", (variant, players, limit),
    ).fetchall()
    return [(name or "?", ordinal(mu, sigma), games, wins, left)
            for mu, sigma, games, wins, name, left in rows]
