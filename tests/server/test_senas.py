"""Señas and the partner-only chat at a table: who sees what, and nothing leaks.

A seña reaches its sender and the sender's partners; an opponent only when the table option
``senas`` is "fair" and the seeded rng says this opponent caught it; a spectator never.
"""
from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

import protocol as p
from server.table import Occupant, TableActor
from server.table import messages as tm
from server.table.talk import CATCH_CHANCE
from tests.server.test_table import FAST, Viewers, until

SPECTATOR = 99


def senas_seen(viewers: Viewers, conn: int) -> list[p.SenaSeen]:
    return [m for m in viewers.frames.get(conn, []) if isinstance(m, p.SenaSeen)]


def watched_bots(n: int) -> list[Occupant]:
    """Bots that play every seat, each watched by connection seat+1: what a person in that
    seat would be sent, with the bots making honest señas every hand."""
    return [Occupant(f"Bot {i + 1}", i + 1, bot=True) for i in range(n)]


def hands_dealt(viewers: Viewers, conn: int) -> int:
    return sum(1 for u in viewers.updates(conn) for e in u.events if isinstance(e, p.HandDealt))


async def play_hands(variant: str, players: int, mode: str, seed: str, hands: int) -> tuple[Viewers, TableActor]:
    """Bots play (match after match) until `hands` hands were dealt; seat s is watched by
    connection s+1, and a spectator watches too."""
    viewers = Viewers()
    options: dict[str, Any] = {"senas": mode}
    if variant in ("argentino", "uruguayo"):
        options["target"] = 15
    actor = TableActor("t", variant, options, watched_bots(players), viewers.send, pace=FAST, seed=seed,
                       auto_rematch=True)
    actor.viewers[SPECTATOR] = None
    actor.start()
    await until(lambda: hands_dealt(viewers, 1) >= hands, timeout=120)
    await actor.stop()
    return viewers, actor


def check_no_leak(viewers: Viewers, players: int) -> tuple[int, int]:
    """Every seña went to its sender and every partner; an opponent got it only marked as
    caught; a spectator never. Returns (chances to catch one, catches)."""
    chances = catches = 0
    per_seat = {seat: senas_seen(viewers, seat + 1) for seat in range(players)}
    assert not senas_seen(viewers, SPECTATOR)
    for seat, seen in per_seat.items():
        for event in seen:
            if event.seat == seat or seat in event.to:
                assert not event.caught
            else:
                assert event.caught, f"seat {seat} saw an uncaught seña of seat {event.seat}"
                catches += 1
    for seat, seen in per_seat.items():
        own = [e for e in seen if e.seat == seat]  # the sender's echo: every seña it made
        for event in own:  # (the partners of the Uruguayan 3-player game change per hand)
            for mate in event.to:
                assert event in per_seat[mate], (event, mate)
            chances += sum(1 for s in range(players) if s != seat and s not in event.to)
        for mate in range(players):  # nobody gets a partner's seña that was not made
            assert all(e in own for e in per_seat[mate] if e.seat == seat and not e.caught)
    return chances, catches


# Hands enough for about 300 chances to catch a seña each (measured: 11 a hand at 4 players,
# 24 at 6, 3.3 in the Uruguayan 3-player game, where only the hand's lone player is anyone's
# opponent).
@pytest.mark.parametrize("variant, players, hands", [("argentino", 4, 30), ("argentino", 6, 14),
                                                     ("paulista", 4, 30), ("uruguayo", 3, 70)])
async def test_fair_senas_reach_partners_and_opponents_only_by_the_catch_chance(variant: str, players: int,
                                                                               hands: int) -> None:
    viewers, _ = await play_hands(variant, players, "fair", "senas-fair", hands=hands)
    chances, catches = check_no_leak(viewers, players)
    assert chances > 200, "too few señas made to judge the chance"
    # The catches follow the option's chance: within 5 standard deviations of a binomial.
    mean = chances * CATCH_CHANCE
    sd = math.sqrt(chances * CATCH_CHANCE * (1 - CATCH_CHANCE))
    assert abs(catches - mean) < 5 * sd, (catches, mean, sd)


async def test_private_senas_never_reach_an_opponent() -> None:
    viewers, _ = await play_hands("argentino", 4, "private", "senas-private", hands=40)
    chances, catches = check_no_leak(viewers, 4)
    assert chances > 100 and catches == 0


async def test_the_catches_are_the_same_for_the_same_seed() -> None:
    first, _ = await play_hands("uruguayo", 4, "fair", "same-seed", hands=15)
    again, _ = await play_hands("uruguayo", 4, "fair", "same-seed", hands=15)
    for conn in range(1, 5):
        a, b = senas_seen(first, conn), senas_seen(again, conn)
        n = min(len(a), len(b))  # (the second run may have stopped a hand later)
        assert n > 10 and a[:n] == b[:n]


async def test_with_senas_off_bots_make_none_and_a_player_is_refused() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("Bot 1", None, bot=True), Occupant("beto", 3),
             Occupant("Bot 2", None, bot=True)]
    actor = TableActor("t", "argentino", {"senas": "off"}, seats, viewers.send, pace=FAST, seed=3)
    actor.start()
    actor.post(tm.Sena(1, "ancho_espadas"))
    await until(lambda: viewers.errors(1))
    assert viewers.errors(1)[0].code == "senas_off"
    assert not senas_seen(viewers, 1) and not senas_seen(viewers, 3)
    await actor.stop()


async def test_a_players_sena_reaches_the_partner_not_the_opponent_nor_the_spectator() -> None:
    viewers = Viewers()
    # seats 0 and 2 are partners; 1 and 3 their opponents
    seats = [Occupant("ana", 1), Occupant("beto", 2), Occupant("caro", 3), Occupant("dani", 4)]
    actor = TableActor("t", "argentino", {"senas": "private"}, seats, viewers.send, pace=FAST, seed=5)
    actor.viewers[SPECTATOR] = None
    actor.start()
    await until(lambda: viewers.updates(1))
    actor.post(tm.Sena(1, "ancho_espadas"))  # humans may signal what they do not hold
    actor.post(tm.Sena(1, "no_such_sena"))
    actor.post(tm.Sena(SPECTATOR, "tres"))
    await until(lambda: len(viewers.errors(1)) >= 1 and viewers.errors(SPECTATOR))
    await asyncio.sleep(0.02)
    event = p.SenaSeen(table_id="t", seat=0, sena="ancho_espadas", to=(2,), deal_no=actor.state.deal_no)
    assert senas_seen(viewers, 1) == [event]  # the sender's own echo
    assert senas_seen(viewers, 3) == [event]
    assert senas_seen(viewers, 2) == senas_seen(viewers, 4) == senas_seen(viewers, SPECTATOR) == []
    assert [e.code for e in viewers.errors(1)] == ["bad_sena"]
    assert [e.code for e in viewers.errors(SPECTATOR)] == ["no_sena"]
    await actor.stop()


async def test_a_two_player_table_has_no_partner_to_signal() -> None:
    viewers = Viewers()
    actor = TableActor("t", "argentino", {}, [Occupant("ana", 1), Occupant("beto", 2)], viewers.send,
                       pace=FAST, seed=5)
    actor.start()
    actor.post(tm.Sena(1, "tres"))
    await until(lambda: viewers.errors(1))
    assert viewers.errors(1)[0].code == "no_partner" and not senas_seen(viewers, 2)
    await actor.stop()


async def test_partner_chat_reaches_the_partners_only() -> None:
    viewers = Viewers()
    seats = [Occupant(f"p{i}", i + 1) for i in range(6)]  # teams: 0 2 4 against 1 3 5
    actor = TableActor("t", "argentino", {}, seats, viewers.send, pace=FAST, seed=7)
    actor.viewers[SPECTATOR] = None
    actor.start()
    await until(lambda: viewers.updates(1))
    actor.post(tm.Chat(3, "p2", "tengo el \x1b[2Jancho", partners=True))
    actor.post(tm.Chat(SPECTATOR, "mirón", "a spectator has no partner", partners=True))
    actor.post(tm.Chat(2, "p1", "for the whole table"))
    await until(lambda: any(isinstance(m, p.Chat) for m in viewers.frames.get(SPECTATOR, [])))
    await asyncio.sleep(0.02)

    def lines(conn: int) -> list[tuple[str, str, bool]]:
        return [(m.line.sender, m.line.text, m.line.partners) for m in viewers.frames.get(conn, [])
                if isinstance(m, p.Chat)]

    partner_line = ("p2", "tengo el [2Jancho", True)
    whole = ("p1", "for the whole table", False)
    for conn in (1, 3, 5):
        assert lines(conn) == [partner_line, whole]
    for conn in (2, 4, 6, SPECTATOR):
        assert lines(conn) == [whole]
    await actor.stop()


async def test_a_bot_reads_its_partners_senas_when_it_decides() -> None:
    """The table hands the bot its partners' señas of this hand, and only theirs."""
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("Bot 1", None, bot=True), Occupant("Bot 2", None, bot=True),
             Occupant("beto", 4)]
    actor = TableActor("t", "argentino", {"senas": "private"}, seats, viewers.send, pace=FAST, seed=11)
    actor.start()
    await until(lambda: viewers.updates(1))
    actor.post(tm.Sena(1, "ancho_espadas"))
    actor.post(tm.Sena(4, "tres"))
    await until(lambda: len(senas_seen(viewers, 4)) >= 1 and any(
        e.sena == "ancho_espadas" for e in senas_seen(viewers, 1)))
    await asyncio.sleep(0.02)
    assert actor.state is not None
    mates = actor.talk.partner_senas(actor.state, 2)  # Bot 2 sits with ana
    assert (0, "ancho_espadas") in mates and all(seat == 0 for seat, _ in mates)
    assert (3, "tres") in actor.talk.partner_senas(actor.state, 1)
    await actor.stop()


async def test_a_player_back_on_a_new_connection_gets_this_hands_senas_of_his_side() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("beto", 2), Occupant("caro", 3), Occupant("dani", 4)]
    actor = TableActor("t", "argentino", {"senas": "fair"}, seats, viewers.send, pace=FAST, seed=5)
    actor.start()
    await until(lambda: viewers.updates(3))
    actor.post(tm.Sena(1, "tres"))  # ana to caro
    actor.post(tm.Sena(2, "nada"))  # beto to dani: the other side
    await until(lambda: senas_seen(viewers, 3) and senas_seen(viewers, 4))
    actor.post(tm.Away(3))
    actor.post(tm.Rejoin(7, 2))  # caro is back on connection 7
    await until(lambda: viewers.updates(7))
    assert [(e.seat, e.sena, e.caught) for e in senas_seen(viewers, 7)] == [(0, "tres", False)]
    await actor.stop()
