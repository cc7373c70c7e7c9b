"""A player who has sung his flor and must now settle it (contraflor, con flor me achico or
pass) is told that, not "you hold a flor: sing it first", when he tries to play a card."""
from __future__ import annotations

from typing import Any

import pytest
from engine.testing import act, scenario

from engine import legal_actions
from engine import IllegalAction


def refused(state: Any, *step: Any) -> str:
    with pytest.raises(IllegalAction) as exc:
        act(state, step)
    return str(exc.value.code)


def test_a_sung_flor_waits_to_be_settled_before_the_cards() -> None:
    state, _ = scenario({0: "1e 7e 3e", 1: "4c 5c 6c"}, n=2)
    assert refused(state, 0, "play", "1e") == "flor_announce"  # not sung yet
    state, _ = act(state, (0, "flor"), (1, "flor"))
    calls = {a.call.value for a in legal_actions(state, 0)}
    assert "pass_flor" in calls and "con_flor_me_achico" in calls
    assert refused(state, 0, "play", "1e") == "flor_settle"
