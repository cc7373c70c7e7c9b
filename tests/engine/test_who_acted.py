"""Who made each bet, as the view tells it: a seat, not a team (a team is two or three
people at a 4- or 6-player table); the special Brazilian hands scored under their own
names; the server's note that its bot chose a move (SeatCovered) in the log and in replay."""

from __future__ import annotations

import random

import pytest
from engine.testing import E, N, S, W, act, points, scenario

import engine
from engine import (
    Acted,
    HandEnded,
    SeatCovered,
    TrickEnded,
    event_from_wire,
    project_event,
    replay,
    view,
)


def test_truco_pending_names_the_seat_that_raised_and_keeps_its_team() -> None:
    state, _ = scenario({}, flor=False)
    state, _ = act(state, (N, "truco"))
    v = view(state, E)
    assert (v.truco_pending, v.truco_pending_seat, v.truco_pending_by) == ("truco", N, 1)
    state, _ = act(state, (W, "quiero"), (W, "retruco"))
    v = view(state, N)
    # W raised: the seat is W (2), its team is 0 (E-W); E, the partner, did not speak.
    assert (v.truco_pending, v.truco_pending_seat, v.truco_pending_by) == ("retruco", W, 0)
    state, _ = act(state, (S, "quiero"))
    assert view(state, E).truco_pending_seat is None


def test_envido_pending_names_the_last_seat_that_bet() -> None:
    state, _ = scenario({}, flor=False)
    state, _ = act(state, (S, "envido"))
    v = view(state, E)
    assert (v.envido_pending_seat, v.envido_by) == (S, 1)
    state, _ = act(state, (W, "real_envido"))
    v = view(state, N)
    assert (v.envido_pending_seat, v.envido_by) == (W, 0)
    state, _ = act(state, (N, "quiero"))
    assert view(state, E).envido_status == "declaring" and view(state, E).envido_pending_seat is None


def test_flor_raise_names_the_seat_of_the_contraflor() -> None:
    state, _ = scenario({E: "1c 3c 5c", N: "4o 10o 12o"})
    state, _ = act(state, (E, "flor"), (N, "contraflor"))
    v = view(state, W)
    assert (v.flor_pending_seat, v.flor_pending_by, v.flor_level) == (N, 1, 1)
    state, _ = act(state, (E, "con_flor_me_achico"))
    assert view(state, W).flor_pending_seat is None


def test_trick_winners_are_seats() -> None:
    state, _ = scenario({E: "4e 5e 6b", N: "1e 4b 5b", W: "4o 5o 6o", S: "4c 5c 6c"}, flor=False)
    state, _ = act(state, (E, "play", "4e"), (N, "play", "1e"), (W, "play", "4o"), (S, "play", "4c"))
    v = view(state, E)
    assert v.trick_results == (1,) and v.trick_winners == (N,)


def _br(hands: dict[int, str], **kw):  # type: ignore[no-untyped-def]
    return scenario(hands, variant="paulista", face_up="Qh", **kw)


BR_HANDS = {E: "3c Ac 7c", N: "3h Ah 7h", W: "3s As 7s", S: "3d Ad 7d"}


def test_mao_de_onze_is_pending_by_nobody_and_scores_as_mao_de_onze() -> None:
    state, _ = _br(BR_HANDS, scores=(5, 11))
    v = view(state, E)
    # Nobody called truco: the team on 11 (N-S) decides; the view names no seat.
    assert v.deal_kind == "eleven" and v.truco_pending == "truco"
    assert v.truco_pending_seat is None and v.truco_pending_by == 0
    state, _ = act(state, (N, "quiero"))
    state, ev = act(state, (E, "play", "3c"), (N, "play", "7h"), (W, "play", "As"),
                    (S, "play", "7d"), (E, "play", "Ac"), (N, "play", "Ah"), (W, "play", "3s"),
                    (S, "play", "Ad"))
    assert points(ev) == [(0, 3, "mao_de_onze")]


def test_mao_de_ferro_scores_as_mao_de_ferro() -> None:
    # E holds three manilhas (the vira is a Q): E-W take the hand, played blind.
    state, _ = _br({E: "Jc Jh Js", N: "7h 7d 2d", W: "Kc Ks Kd", S: "Ac Ah As"}, scores=(11, 11))
    assert view(state, E).deal_kind == "blind"
    ev: list[engine.Event] = []
    while not any(isinstance(e, HandEnded) for e in ev):
        seat = view(state, E).turn
        assert seat is not None
        state, more = act(state, (seat, "play_blind"))
        ev += more
    scored = points(ev)
    assert scored == [(0, 1, "mao_de_ferro")]


def test_seat_covered_travels_and_replay_passes_over_it() -> None:
    note = SeatCovered(2, "time")
    assert note.public and project_event(note, 0) == note and project_event(note, None) == note
    assert event_from_wire(note.to_wire()) == note
    assert note.to_wire() == {"type": "seat_covered", "seat": 2, "reason": "time"}
    rules = engine.get_ruleset("argentino", flor=False)
    state, log = engine.new_match(rules, 4, random.Random(4))
    for _ in range(4):  # the first trick, every card played by "the bot" for its seat
        seat = view(state, None).turn
        assert seat is not None
        action = next(a for a in engine.legal_actions(state, seat) if a.call is engine.Call.PLAY)
        state, events = engine.apply(state, action)
        log += [SeatCovered(seat, "away"), *events]
    assert replay(rules, 4, log) == state
    # Inside one action's events (between the last card and the end of the trick) a note
    # is not where the server puts it: that log is refused.
    ended = next(i for i, e in enumerate(log) if isinstance(e, TrickEnded))
    assert isinstance(log[ended - 1], Acted)
    with pytest.raises(ValueError):
        replay(rules, 4, [*log[:ended], SeatCovered(0, "time"), *log[ended:]])
