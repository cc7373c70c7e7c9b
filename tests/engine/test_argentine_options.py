"""OPT-FLOR-OPTIONAL and OPT-MALDON (docs/RULES.md 1.13; worked example AR-31; OP-AR-26)."""

from __future__ import annotations

from engine.testing import E, N, S, W, act, illegal, points, scenario

from engine import Call, CardsShown, HandEnded, legal_actions
from engine.rules.maldon import is_maldon
from engine.core.state import EnvidoStatus, Phase
from engine.core.cards import parse_cards

FLOR_N, FLOR_E = "4o 10o 12o", "1c 3c 5c"


def _calls(state, seat):  # type: ignore[no-untyped-def]
    return [a.call for a in legal_actions(state, seat)]


def test_flor_optional_every_player_speaks_and_a_holder_may_stay_quiet() -> None:
    state, _ = scenario({N: FLOR_N}, flor_optional=True)
    assert state.phase is Phase.FLOR
    # East (mano, no flor) can only pass: the round looks the same for holders and others.
    assert _calls(state, E) == [Call.PASS_FLOR]
    state, _ = act(state, (E, "pass_flor"))
    assert _calls(state, N) == [Call.FLOR, Call.PASS_FLOR]
    state, ev = act(state, (N, "pass_flor"), (W, "pass_flor"), (S, "pass_flor"))
    assert points(ev) == []
    # Nobody announced: no flor this hand, and the envido is open to everyone.
    assert state.phase is Phase.PLAY and state.envido_status is EnvidoStatus.OPEN
    assert state.flor_announced == ()
    state, ev = act(state, (E, "envido"), (N, "quiero"), (E, "declare_envido"),
                    (N, "declare_envido"))
    # North's quiet flor 4-10-12 of oros counts as an ordinary envido: 4 + 0 + 20 = 24.
    assert [e.value for e in ev if getattr(e, "call", "") == "declare_envido"][1] == 24


def test_flor_optional_announced_flor_scores_and_silent_one_does_not() -> None:
    state, _ = scenario({N: FLOR_N, E: FLOR_E}, flor_optional=True)
    state, ev = act(state, (E, "flor"))
    # North sees East's flor and keeps his smaller one quiet: E-W score 3, no betting.
    assert Call.PASS_FLOR in _calls(state, N)
    state, ev = act(state, (N, "pass_flor"), (W, "pass_flor"), (S, "pass_flor"))
    assert points(ev) == [(0, 3, "flor")]
    assert state.envido_status is EnvidoStatus.CLOSED
    assert state.phase is Phase.PLAY


def test_flor_optional_two_announced_flores_still_bet() -> None:
    state, _ = scenario({N: FLOR_N, E: FLOR_E}, flor_optional=True)
    state, ev = act(state, (E, "flor"), (N, "contraflor"), (W, "pass_flor"), (S, "pass_flor"))
    assert state.flor_holders == (E, N)
    state, ev = act(state, (E, "con_flor_quiero"))
    assert points(ev) == [(0, 6, "contraflor")]  # East's 29 beats North's 24


def test_flor_mandatory_by_default_offers_no_silence() -> None:
    state, _ = scenario({N: FLOR_N})
    assert _calls(state, N) == [Call.FLOR]
    assert "flor" in illegal(state, E, "pass_flor")


def test_AR31_maldon_hands() -> None:
    assert is_maldon(parse_cards("4e 4b 12c"))
    assert is_maldon(parse_cards("4e 4b 4o"))  # a third 4 has no signal either
    assert is_maldon(parse_cards("4e 4b 7c"))  # a false 7
    assert not is_maldon(parse_cards("4e 4b 3c"))  # a 3 has a signal
    assert not is_maldon(parse_cards("4e 4b 1o"))  # a false ace has a signal
    assert not is_maldon(parse_cards("4e 5b 12c"))


def test_AR31_maldon_throws_the_hand_in_and_the_next_player_deals() -> None:
    state, _ = scenario({N: "4e 4b 12c"}, maldon="any")
    assert Call.MALDON in _calls(state, N)
    dealer = state.dealer
    state, ev = act(state, (N, "maldon"))
    assert points(ev) == []
    ended = [e for e in ev if isinstance(e, HandEnded)]
    assert ended and ended[0].winner_team is None and ended[0].reason == "maldon"
    assert [e.reason for e in ev if isinstance(e, CardsShown)] == ["maldon"]
    assert state.needs_deal and state.dealer == (dealer + 1) % 4


def test_AR31_no_maldon_with_a_signalled_third_card_or_once_play_started() -> None:
    state, _ = scenario({N: "4e 4b 3c"}, maldon="any")
    assert Call.MALDON not in _calls(state, N)
    state, _ = scenario({N: "4e 4b 12c"}, maldon="any")
    after, _ = act(state, (E, "play", str(state.hands[E][0])))
    assert Call.MALDON not in _calls(after, N)
    after, _ = act(state, (E, "truco"))
    assert Call.MALDON not in _calls(after, N)


def test_maldon_only_the_mano_suboption_and_off_by_default() -> None:
    state, _ = scenario({N: "4e 4b 12c"}, maldon="mano")
    assert Call.MALDON not in _calls(state, N)
    assert "mano" in illegal(state, N, "maldon")
    state, _ = scenario({E: "4e 4b 12c"}, maldon="mano")
    assert Call.MALDON in _calls(state, E)
    state, _ = scenario({N: "4e 4b 12c"})
    assert "not played" in illegal(state, N, "maldon")


def test_maldon_may_be_claimed_before_the_flor_round_starts() -> None:
    state, _ = scenario({N: "4e 4b 12c", W: "5c 6c 7c"}, maldon="any")
    assert state.phase is Phase.FLOR
    assert Call.MALDON in _calls(state, N)
    state, ev = act(state, (N, "maldon"))
    assert points(ev) == [] and state.needs_deal
