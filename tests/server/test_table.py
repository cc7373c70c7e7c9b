"""The table actor: what each viewer receives, bots, timers, leaving, rematch."""
from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from typing import Any

import pytest

import engine
import protocol as p
from server.table import Occupant, Pace, TableActor
from server.table import messages as tm
from server.table import rematch
from server.table.log_events import log_events

FAST = Pace(bot_delay=0, hand_pause=0)
LEVELS_IN_TURN = ("easy", "normal")


class Viewers:
    """Collects the frames a table sends, decoded, per connection."""

    def __init__(self) -> None:
        self.frames: dict[int, list[p.Message]] = {}

    def send(self, conn_id: int, frame: bytes) -> None:
        self.frames.setdefault(conn_id, []).append(p.decode(frame))

    def updates(self, conn_id: int) -> list[p.TableUpdate]:
        return [m for m in self.frames.get(conn_id, []) if isinstance(m, p.TableUpdate)]

    def errors(self, conn_id: int) -> list[p.Error]:
        return [m for m in self.frames.get(conn_id, []) if isinstance(m, p.Error)]


async def until(predicate, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        await asyncio.sleep(0.005)


async def play_as_the_bot_would(actor: TableActor, seat: int, rng: random.Random) -> None:
    """``seat``'s player sends the move the table's bot would make there (an ``act``, as a
    session does), and waits until the table has taken it."""
    assert actor.state is not None
    view = engine.view(actor.state, seat)
    action = engine.choose_action(view, actor.rules, rng) or view.legal[0]
    conn = actor.seats[seat].conn_id
    assert conn is not None
    seq = actor.seq
    actor.post(tm.Act(conn, p.TableAction(table_id=actor.table_id, call=action.call.value, amount=action.amount,
                                          card=None if action.card is None else str(action.card))))
    await until(lambda: actor.seq > seq)


def bots(n: int) -> list[Occupant]:
    return [Occupant(f"Bot {i}", None, bot=True) for i in range(n)]


def short_options(variant: str) -> dict[str, Any]:
    spec = next(v for v in engine.variant_catalog() if v.name == variant)
    names = {o.name: o for o in spec.options}
    options: dict[str, Any] = {}
    if "match_games" in names:
        options["match_games"] = 1
    if "target" in names:
        options["target"] = min(c for c in names["target"].choices if isinstance(c, int))
    return options


def implemented() -> list[engine.VariantSpec]:
    return [v for v in engine.variant_catalog() if v.implemented]


@pytest.mark.slow
@pytest.mark.parametrize("variant", implemented(), ids=lambda v: v.name)
async def test_bot_only_tables_finish_20_games(variant: engine.VariantSpec) -> None:
    """20 complete games per variant, player counts in turn, bots only, without an error.

    Nobody watches (so no frames are built): this is about the actor and the rules;
    what viewers receive is covered below. Every game seats both the easy and the normal
    level, in turns: easy's careless cards and answers reach positions normal avoids, and
    its decisions cost a fraction of normal's (whose beliefs are most of this test's CPU).
    """
    games = 0
    # Only a guard against a table that never ends: how fast is for the benchmarks (on this
    # 2-core machine the Venezuelan 20 take about 8 s). The rules themselves are played far
    # more often, and faster, without the actor: tests/engine/test_bot.py.
    deadline = time.monotonic() + 400
    while games < 20 and time.monotonic() < deadline:
        players = variant.player_counts[games % len(variant.player_counts)]
        seats = [dataclasses.replace(bot, level=LEVELS_IN_TURN[(i + games) % 2])
                 for i, bot in enumerate(bots(players))]
        actor = TableActor("t", variant.name, short_options(variant.name), seats,
                           Viewers().send, pace=FAST, seed=games)
        actor.start()
        await until(lambda: actor.finished)
        assert actor.state is not None and actor.state.match_over
        await actor.stop()
        games += 1
    assert games == 20, f"only {games} games in 400 s: a table does not end"


async def test_spectators_never_see_hidden_cards_and_seats_only_their_own() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1)] + bots(3)
    actor = TableActor("t", "argentino", {"match_games": 1}, seats, viewers.send, pace=FAST, seed=3)
    actor.viewers[2] = None  # spectator from the start
    actor.start()
    await until(lambda: len(viewers.updates(2)) >= 1)
    actor.post(tm.Leave(1))  # a bot plays ana's seat, so the match runs to the end
    await until(lambda: actor.finished)
    await actor.stop()
    assert len(viewers.updates(2)) > 10
    for update in viewers.updates(2):
        assert update.seat is None
        assert update.view.own_cards == ()
        for event in update.events:
            if isinstance(event, p.HandDealt):
                assert all(hand is None for hand in event.hands)
    first = viewers.updates(1)[0]
    assert first.seat == 0 and len(first.view.own_cards) == 3
    dealt = next(e for e in first.events if isinstance(e, p.HandDealt))
    assert dealt.hands[0] == first.view.own_cards
    assert all(h is None for h in dealt.hands[1:])


async def test_illegal_actions_get_the_engine_reason_and_change_nothing() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("beto", 2)]
    actor = TableActor("t", "argentino", {"flor": False}, seats, viewers.send, pace=FAST, seed=1)
    actor.start()
    await until(lambda: viewers.updates(1))
    seq = actor.seq
    actor.post(tm.Act(1, p.TableAction(table_id="t", call="quiero")))
    actor.post(tm.Act(1, p.TableAction(table_id="t", call="play", card="99x")))
    actor.post(tm.Act(3, p.TableAction(table_id="t", call="truco")))  # not seated here
    await until(lambda: len(viewers.errors(1)) == 2 and viewers.errors(3))
    assert [e.code for e in viewers.errors(1)] == ["illegal", "illegal"]
    assert viewers.errors(1)[0].message  # a reason in words
    assert viewers.errors(1)[0].reason == "no_bet"  # and its code, for the player's language
    assert viewers.errors(3)[0].code == "not_seated"
    assert actor.seq == seq
    await actor.stop()


async def test_a_repeated_command_id_acts_once() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("beto", 2)]
    actor = TableActor("t", "argentino", {"flor": False}, seats, viewers.send, pace=FAST, seed=1)
    actor.start()
    await until(lambda: viewers.updates(1))
    view = viewers.updates(1)[-1].view
    seat_to_act = view.turn
    conn = 1 if seat_to_act == 0 else 2
    mine = viewers.updates(conn)[-1].view
    card = mine.own_cards[0]
    command = p.TableAction(table_id="t", call="play", card=card, cid=7)
    before = len(viewers.updates(conn))
    actor.post(tm.Act(conn, command))
    actor.post(tm.Act(conn, command))  # the retry of a command whose answer was lost
    await until(lambda: len(viewers.updates(conn)) >= before + 2)  # the retry is answered with the view again
    played = [e for u in viewers.updates(conn) for e in u.events if isinstance(e, p.Acted) and e.call == "play"]
    assert len(played) == 1
    assert not viewers.updates(conn)[-1].events  # the answer to the retry shows nothing twice
    assert not viewers.errors(conn)
    await actor.stop()


async def test_turn_timer_lets_the_bot_move_for_a_silent_player() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("beto", 2)]
    actor = TableActor("t", "argentino", {"flor": False}, seats, viewers.send, turn_timer=1,
                       pace=FAST, seed=2)
    actor.start()
    await until(lambda: viewers.updates(1))
    first = viewers.updates(1)[-1]
    assert first.timer is not None and 0 < first.timer <= 1 and first.waiting
    seq = actor.seq
    await until(lambda: actor.seq > seq, timeout=5)  # nobody typed anything
    acted = [e for u in viewers.updates(1) for e in u.events if isinstance(e, p.Acted)]
    assert acted and acted[0].seat in first.waiting
    # The log says the bot chose that move, for whom, and why, right before the move itself.
    events = [e for u in viewers.updates(1) for e in u.events]
    covered = [i for i, e in enumerate(events) if isinstance(e, p.SeatCovered)]
    assert covered and events[covered[0]] == p.SeatCovered(seat=acted[0].seat, reason="time")
    assert events[covered[0] + 1] == acted[0]
    # ... and the log with that note still replays to the table's state.
    assert engine.replay(actor.rules, 2, actor.events) == actor.state
    await actor.stop()


async def test_a_player_who_leaves_is_replaced_by_a_bot_and_rematch_needs_every_human() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("beto", 2), Occupant("carla", 3), Occupant("dani", 4)]
    actor = TableActor("t", "argentino", {"match_games": 1, "target": 15}, seats, viewers.send,
                       pace=FAST, seed=4)
    actor.start()
    await until(lambda: viewers.updates(1))
    for conn in (2, 3, 4):
        actor.post(tm.Leave(conn))
    await until(lambda: viewers.updates(1)[-1].seats[3].bot)
    assert [s.bot for s in viewers.updates(1)[-1].seats] == [False, True, True, True]
    # ana's log says who left (a bot plays their seats from now on), each once, in order
    said = [e for u in viewers.updates(1) for e in u.events if isinstance(e, p.SeatCovered)]
    assert [(e.seat, e.reason) for e in said if e.reason == "left"] == [(1, "left"), (2, "left"), (3, "left")]
    # ana is the only human: let her be covered too by timing out is slow, so she leaves too
    actor.post(tm.Leave(1))
    await until(lambda: actor.finished)
    assert rematch.human_seats(actor.seats) == []
    await actor.stop()


async def test_rematch_starts_a_new_match_once_every_human_voted() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1)] + bots(1)
    actor = TableActor("t", "argentino", {"match_games": 1, "target": 15}, seats, viewers.send,
                       pace=FAST, seed=6)
    actor.start()
    rng = random.Random(1)
    while not actor.finished:  # ana plays whatever the bot would
        await asyncio.sleep(0)
        if actor.state is not None and not actor.state.match_over and 0 in actor.waiting_on():
            await play_as_the_bot_would(actor, 0, rng)
        await asyncio.sleep(0.001)
    seq = actor.seq
    actor.post(tm.Rematch(1))
    await until(lambda: actor.seq > seq and not actor.finished)
    started = [e for u in viewers.updates(1) for e in u.events if isinstance(e, p.MatchStarted)]
    assert len(started) == 2
    await actor.stop()


async def test_table_chat_reaches_players_and_spectators_cleaned() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("beto", 2)]
    actor = TableActor("t", "argentino", {}, seats, viewers.send, pace=FAST, seed=1)
    actor.viewers[3] = None
    actor.start()
    actor.post(tm.Chat(1, "ana", "buena \x1b[2J[b]x[/b]"))
    actor.post(tm.Chat(9, "intruder", "not at this table"))
    await until(lambda: any(isinstance(m, p.Chat) for m in viewers.frames.get(3, [])))
    await asyncio.sleep(0.02)
    for conn in (1, 2, 3):
        lines = [m.line for m in viewers.frames[conn] if isinstance(m, p.Chat)]
        assert [(line.sender, line.text, line.table_id) for line in lines] == [("ana", "buena [2J[b]x[/b]", "t")]
    await actor.stop()


@pytest.mark.parametrize("variant", [v.name for v in implemented()])
async def test_a_human_plays_cards_by_their_text_in_every_variant(variant: str) -> None:
    """Cards travel as text; French ones ("7c" = seven of clubs) must read as the table's deck."""
    viewers = Viewers()
    seats = [Occupant("ana", 1)] + bots(1)
    actor = TableActor("t", variant, short_options(variant), seats, viewers.send, pace=FAST, seed=9)
    actor.start()
    played = 0
    deadline = time.monotonic() + 20
    while played < 5 and time.monotonic() < deadline and not actor.finished:
        await asyncio.sleep(0.002)
        updates = viewers.updates(1)
        if not updates or 0 not in updates[-1].waiting:
            continue
        legal = updates[-1].view.legal
        cards = [a for a in legal if a.card]
        action = cards[0] if cards else legal[0]
        before = actor.seq
        actor.post(tm.Act(1, p.TableAction(table_id="t", call=action.call, card=action.card)))
        await until(lambda: actor.seq > before or viewers.errors(1), timeout=5)
        assert not viewers.errors(1), viewers.errors(1)[-1].message
        played += 1
    assert played == 5 or actor.finished
    await actor.stop()


def projected(events: list[engine.Event], seat: int | None) -> list[p.LogEvent]:
    return log_events(events, seat)


async def test_a_rejoining_player_and_a_new_spectator_get_the_match_so_far_in_whole_hands() -> None:
    """Issue 13: after a reconnect the log came back empty. The update that puts a viewer
    back carries the match so far as that viewer may see it: whole hands, latest last,
    at most HISTORY_MAX events; everybody else's update carries none."""
    viewers = Viewers()
    ana = Occupant("ana", None, away=True)  # dropped: the bot covers her at once
    seats = [ana] + bots(5)
    # Two games: the match must outlast HISTORY_MAX events whatever the bots decide (a
    # single game can end sooner, and then no hand was left out of the history).
    actor = TableActor("t", "argentino", {"match_games": 2}, seats, viewers.send,
                       pace=Pace(bot_delay=0, hand_pause=0, away_grace=0), seed=5)
    actor.viewers[9] = None  # a spectator from the start: never gets a history
    actor.start()
    await until(lambda: len(actor.events) > p.HISTORY_MAX + 60 or actor.finished)
    actor.post(tm.Rejoin(1, 0))
    actor.post(tm.Watch(2))
    await until(lambda: viewers.updates(1) and viewers.updates(2))
    await actor.stop()
    match = list(actor.events)
    for conn, seat in ((1, 0), (2, None)):
        update = viewers.updates(conn)[0]
        history = list(update.history)
        assert 0 < len(history) <= p.HISTORY_MAX
        # Exactly the end of what this viewer may see of the match up to this update.
        mine = projected(match[: update.seq], seat)
        assert history == mine[-len(history):]
        assert isinstance(history[0], (p.HandDealt, p.MatchStarted))  # a whole hand first
        dealt = [e for e in history if isinstance(e, p.HandDealt)]
        assert len(dealt) >= 2  # the current hand and hands before it
        assert dealt[-1].deal_no == max(e.deal_no for e in mine if isinstance(e, p.HandDealt))
        for event in dealt:  # nobody else's cards
            assert all(h is None for i, h in enumerate(event.hands) if i != seat)
        if len(history) < p.HISTORY_MAX:  # the hand before the oldest one sent would not fit
            start = len(mine) - len(history)
            previous = max(i for i, e in enumerate(mine[:start]) if isinstance(e, p.HandDealt))
            assert len(mine) - previous > p.HISTORY_MAX
    assert all(not u.history for u in viewers.updates(9))
    assert all(not u.history for u in viewers.updates(1)[1:])


async def test_a_rejoin_right_at_the_start_gets_the_match_start_and_the_deal() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("beto", 2)]
    actor = TableActor("t", "argentino", {"flor": False}, seats, viewers.send, pace=FAST, seed=1)
    actor.start()
    await until(lambda: viewers.updates(2))
    actor.post(tm.Away(2))
    actor.post(tm.Rejoin(3, 1))
    await until(lambda: viewers.updates(3))
    await actor.stop()
    history = viewers.updates(3)[0].history
    assert [e.KIND for e in history[:2]] == ["match_started", "hand_dealt"]
    assert history == tuple(projected(actor.events, 1))
    assert viewers.updates(3)[0].events == ()


async def test_the_rematch_deals_first_from_the_next_seat_so_the_mano_alternates() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1)] + bots(3)
    actor = TableActor("t", "argentino", {"match_games": 1, "target": 15}, seats, viewers.send,
                       pace=FAST, seed=6)
    actor.start()
    firsts: list[tuple[int, int]] = []  # (first dealer, first mano) of each match
    rng = random.Random(1)
    for _ in range(3):
        while not actor.finished:
            await asyncio.sleep(0)
            if actor.state is not None and not actor.state.match_over and 0 in actor.waiting_on():
                await play_as_the_bot_would(actor, 0, rng)
            await asyncio.sleep(0.001)
        started = actor.events[0]
        assert isinstance(started, engine.MatchStarted)
        mano = next(e.mano for e in actor.events if isinstance(e, engine.HandStarted))
        firsts.append((started.first_dealer, mano))
        seq = actor.seq
        actor.post(tm.Rematch(1))
        await until(lambda: actor.seq > seq and not actor.finished)
    await actor.stop()
    for (dealer, mano), (next_dealer, next_mano) in zip(firsts, firsts[1:]):
        assert next_dealer == (dealer + 1) % 4 and next_mano == (mano + 1) % 4
    # Each match replays from its own log (the first dealer is in match_started).
    state = engine.replay(actor.rules, 4, actor.events)
    assert engine.view(state, 0).to_wire() == engine.view(actor.state, 0).to_wire()


async def test_a_rejoining_player_gets_the_recent_table_chat_before_the_update() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("beto", 2)]
    actor = TableActor("t", "argentino", {"flor": False}, seats, viewers.send, pace=FAST, seed=1)
    actor.start()
    await until(lambda: viewers.updates(2))
    for n in range(25):
        actor.post(tm.Chat(1, "ana", f"line {n}"))
    actor.post(tm.Away(2))
    actor.post(tm.Rejoin(3, 1))
    await until(lambda: viewers.updates(3))
    await actor.stop()
    frames = viewers.frames[3]
    said = [m.line.text for m in frames if isinstance(m, p.Chat)]
    assert said == [f"line {n}" for n in range(5, 25)]  # the last ones, in order
    first_update = next(i for i, m in enumerate(frames) if isinstance(m, p.TableUpdate))
    assert all(isinstance(m, (p.Chat, p.DealSeal)) for m in frames[:first_update])  # and the commitment


async def test_a_rematch_asked_by_everyone_left_starts_when_the_last_other_player_leaves() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("beto", 2)]
    actor = TableActor("t", "argentino", {"match_games": 1, "target": 15}, seats, viewers.send,
                       pace=FAST, seed=6)
    actor.start()
    rng = random.Random(1)
    while not actor.finished:  # both humans play what the bot would
        await asyncio.sleep(0)
        if actor.state is not None and not actor.state.match_over:
            for seat in actor.waiting_on()[:1]:
                await play_as_the_bot_would(actor, seat, rng)
        await asyncio.sleep(0.001)
    seq = actor.seq
    actor.post(tm.Rematch(1))
    await until(lambda: viewers.updates(2)[-1].rematch_votes == (0,))
    assert actor.finished and actor.seq == seq  # waits for beto
    actor.post(tm.Leave(2))  # beto goes: ana, who asked, need not wait for him
    await until(lambda: actor.seq > seq and not actor.finished)
    await actor.stop()
    assert actor.match_no == 2 and actor.seats[1].bot
    # The rematch is not played (nor rated) in the name of beto, who left: a bot of its own.
    assert actor.seats[1].name == "Bot 1" and not actor.seats[1].was_human
    assert viewers.updates(1)[-1].seats[1].name == "Bot 1"


async def test_a_resend_gives_every_viewer_its_current_view_again_and_changes_nothing() -> None:
    viewers = Viewers()
    seats = [Occupant("ana", 1), Occupant("beto", 2)]
    actor = TableActor("t", "argentino", {"flor": False}, seats, viewers.send, pace=FAST, seed=1)
    actor.start()
    actor.post(tm.Watch(3))
    await until(lambda: viewers.updates(1) and viewers.updates(2) and viewers.updates(3))
    before = {conn: viewers.updates(conn)[-1] for conn in (1, 2, 3)}
    counts = {conn: len(viewers.updates(conn)) for conn in (1, 2, 3)}
    seq = actor.seq
    actor.post(tm.Resend())  # frames to them may have been lost in a NATS failover
    await until(lambda: all(len(viewers.updates(conn)) == counts[conn] + 1 for conn in (1, 2, 3)))
    for conn, last in before.items():
        again = viewers.updates(conn)[-1]
        assert (again.seq, again.seat, again.view) == (last.seq, last.seat, last.view)
        assert not again.events  # nothing happened: no event is shown twice
    assert actor.seq == seq
    await actor.stop()
