"""Mão de onze: the line that says who decides agrees with one player or with two
(QA: a 2-player table read "Bot 1 decidem")."""
from __future__ import annotations

import pytest

from tui.bets import pending_bets
from tui.i18n import Translator

from engine.testing import scenario
from tests.tui.kit import NAMES, model_for


@pytest.mark.parametrize(("lang", "one", "two"), [
    ("pt", "Bot 1 decide:", "Bot 1, Bot 3 decidem:"),
    ("es", "decide Bot 1:", "deciden Bot 1, Bot 3:"),
    ("en", "Bot 1 decides:", "Bot 1, Bot 3 decide:"),
])
def test_who_decides_the_mao_de_onze_with_the_verb_in_agreement(lang: str, one: str, two: str) -> None:
    tr = Translator(lang)
    for n, words in ((2, one), (4, two)):
        hands = {0: "4c 5c 6c", 1: "4h 5h 6h"} if n == 2 else {0: "4c 5c 6c", 1: "4h 5h 6h", 2: "4s 5s 6s",
                                                                   3: "4d 5d 6d"}
        state, _ = scenario(hands, n=n, variant="paulista", face_up="7d", scores=(0, 11), deck="french40")
        assert state.deal_kind.value == "eleven"
        texts = [part.text for part in pending_bets(tr, model_for(state, 0))]
        assert any(words in text for text in texts), texts
        assert not any(NAMES[0] in text for text in texts)  # Ana is not on 11: she waits
