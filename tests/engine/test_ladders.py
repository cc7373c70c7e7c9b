"""Table-driven tests of the whole envido ladder (docs/RULES.md 1.7.2 E01-E24, 1.13 D01-D34)."""

from __future__ import annotations

import pytest
from engine.testing import act, points, scenario

from engine import Action, Call, IllegalAction, legal_actions
from engine.rules.envido import legal_declare

SHORT = {"E": "envido", "R": "real_envido", "F": "falta_envido",
         "D": "dos_reales_envido", "T": "tres_reales_envido"}
SCORES = (4, 11)  # f = 30 - 11 = 19
F = 19

# (id, calls, accepted, declined, allowed under reading A, allowed under reading B)
E_TABLE = [
    ("E01", "E", 2, 1, True, True), ("E02", "R", 3, 1, True, True),
    ("E03", "F", F, 1, True, True), ("E04", "EE", 4, 2, True, True),
    ("E05", "ER", 5, 2, True, True), ("E06", "EF", F, 2, True, True),
    ("E07", "RR", 6, 3, True, True), ("E08", "RF", F, 3, True, True),
    ("E09", "EEE", 6, 4, True, False), ("E10", "EER", 7, 4, True, True),
    ("E11", "EEF", F, 4, True, True), ("E12", "ERR", 8, 5, True, True),
    ("E13", "ERF", F, 5, True, True), ("E14", "RRR", 9, 6, True, True),
    ("E15", "RRF", F, 6, True, True), ("E16", "EEEE", 8, 6, False, False),
    ("E17", "EEER", 9, 6, False, False), ("E18", "EEEF", F, 6, False, False),
    ("E19", "EERR", 10, 7, False, True), ("E20", "EERF", F, 7, False, True),
    ("E21", "ERRR", 11, 8, False, True), ("E22", "ERRF", F, 8, False, True),
    ("E23", "RRRR", 12, 9, False, True), ("E24", "RRRF", F, 9, False, True),
]

D_TABLE = [
    ("D01", "D", 6, 1), ("D02", "T", 9, 1), ("D03", "ED", 8, 2), ("D04", "ET", 11, 2),
    ("D05", "RD", 9, 3), ("D06", "RT", 12, 3), ("D07", "DD", 12, 6), ("D08", "DT", 15, 6),
    ("D09", "DF", F, 6), ("D10", "TT", 18, 9), ("D11", "TF", F, 9), ("D12", "EED", 10, 4),
    ("D13", "EET", 13, 4), ("D14", "ERD", 11, 5), ("D15", "ERT", 14, 5),
    ("D16", "EDD", 14, 8), ("D17", "EDT", 17, 8), ("D18", "EDF", F, 8),
    ("D19", "ETT", 20, 11), ("D20", "ETF", F, 11), ("D21", "RRD", 12, 6),
    ("D22", "RRT", 15, 6), ("D23", "RDD", 15, 9), ("D24", "RDT", 18, 9), ("D25", "RDF", F, 9),
    ("D26", "RTT", 21, 12), ("D27", "RTF", F, 12), ("D28", "DDD", 18, 12),
    ("D29", "DDT", 21, 12), ("D30", "DDF", F, 12), ("D31", "DTT", 24, 15),
    ("D32", "DTF", F, 15), ("D33", "TTT", 27, 18), ("D34", "TTF", F, 18),
]

# Seat 1 holds 33 and wins any accepted envido; seat 0 makes the first call.
HANDS = {0: "4e 5o 12c", 1: "7b 6b 1o"}


def _run(seq: str, answer: str, **options: object) -> list[tuple[int, int, str]]:
    state, _ = scenario(HANDS, n=2, scores=SCORES, **options)
    seat = 0
    for letter in seq:
        state, _ = act(state, (seat, SHORT[letter]))
        seat = 1 - seat
    state, events = act(state, (seat, answer))
    for _ in range(4):
        for s in (0, 1):
            acts = legal_declare(state, s)
            if acts:
                state, more = act(state, (s, acts[-1].call.value))
                events += more
    return points(events)


@pytest.mark.parametrize("eid, seq, accepted, declined, in_a, in_b", E_TABLE)
def test_envido_ladder_accepted(eid: str, seq: str, accepted: int, declined: int, in_a: bool, in_b: bool) -> None:
    assert _run(seq, "quiero") == [(1, accepted, "envido")]


@pytest.mark.parametrize("eid, seq, accepted, declined, in_a, in_b", E_TABLE)
def test_envido_ladder_declined(eid: str, seq: str, accepted: int, declined: int, in_a: bool, in_b: bool) -> None:
    last_caller_team = (len(seq) - 1) % 2
    assert _run(seq, "no_quiero") == [(last_caller_team, declined, "envido_declined")]


@pytest.mark.parametrize("eid, seq, accepted, declined, in_a, in_b", E_TABLE)
def test_envido_max_replies_readings(eid: str, seq: str, accepted: int, declined: int, in_a: bool, in_b: bool) -> None:
    for mode, allowed in (("a", in_a), ("b", in_b)):
        if allowed:
            assert _run(seq, "quiero", envido_max_replies=mode) == [(1, accepted, "envido")]
        else:
            with pytest.raises(IllegalAction):
                _run(seq, "quiero", envido_max_replies=mode)


@pytest.mark.parametrize("did, seq, accepted, declined", D_TABLE)
def test_reales_ladder(did: str, seq: str, accepted: int, declined: int) -> None:
    assert _run(seq, "quiero", reales=True) == [(1, accepted, "envido")]
    assert _run(seq, "no_quiero", reales=True) == [((len(seq) - 1) % 2, declined, "envido_declined")]


def test_lower_call_after_higher_is_illegal() -> None:
    state, _ = scenario(HANDS, n=2, reales=True)
    state, _ = act(state, (0, "real_envido"))
    assert Action(1, Call.ENVIDO) not in legal_actions(state, 1)
    state, _ = act(state, (1, "tres_reales_envido"))
    calls = {a.call for a in legal_actions(state, 0)}
    assert calls == {Call.QUIERO, Call.NO_QUIERO, Call.TRES_REALES_ENVIDO, Call.FALTA_ENVIDO}
    state, _ = act(state, (0, "falta_envido"))
    assert {a.call for a in legal_actions(state, 1)} == {Call.QUIERO, Call.NO_QUIERO}


def test_envido_only_in_first_trick_and_before_committing() -> None:
    state, _ = scenario(HANDS, n=2, flor=False)
    state, _ = act(state, (0, "play", "4e"))
    assert Call.ENVIDO not in {a.call for a in legal_actions(state, 0)}  # mano has played
    assert Call.ENVIDO in {a.call for a in legal_actions(state, 1)}  # the pie has not
    state, _ = act(state, (1, "truco"))
    # the mano may answer the truco with envido? no: he has played his first card
    assert Call.ENVIDO not in {a.call for a in legal_actions(state, 0)}
    state2, _ = scenario(HANDS, n=2, flor=False)
    state2, _ = act(state2, (0, "truco"))
    # the pie, facing a truco, may call envido first; the truco waits for it
    state2, _ = act(state2, (1, "envido"))
    assert state2.truco_pending == 1
    state2, _ = act(state2, (0, "real_envido"))  # the truco caller may raise (OP-AR-8)
    state2, _ = act(state2, (1, "no_quiero"))
    assert {a.call for a in legal_actions(state2, 1)} >= {Call.QUIERO, Call.NO_QUIERO}
    assert not any(a.call is Call.PLAY for a in legal_actions(state2, 0))
