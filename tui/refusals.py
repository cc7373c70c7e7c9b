"""A refused move, told in the player's language.

The server sends a move the engine refused as ``Error(code="illegal")`` with the engine's
reason, an English sentence. Each sentence the engine can give has a pattern here and a key
``refusal.<name>`` in the catalogs; a call, card or number inside it is carried over (a call
in the player's words). A sentence not listed gets the general ``error.illegal``: never English.
tests/tui/test_i18n_refusals.py checks that every sentence the engine gives is listed.
"""
from __future__ import annotations

import re
from typing import Any

from tui.calls import call_label

_CALL = r"(?P<call>[a-z_]+)"
REFUSALS: tuple[tuple[str, str], ...] = (
    # engine/game.py explain
    ("match_over", r"the match is over"),
    ("not_dealt", r"the cards have not been dealt yet"),
    ("no_seat", r"there is no seat (?P<n>\d+)"),
    ("not_in_hand", r"you are not playing this hand"),
    ("maldon_off", r"maldon is not played at this table"),
    ("maldon_mano", r"only the mano may claim maldon at this table"),
    ("maldon_hand", r"maldon needs two 4s and a card without a signal, before anything is played"),
    ("mano_discarding", r"the mano is laying away his fourth card"),
    ("discard_first", r"lay away one of your four cards first"),
    ("declaring", r"the envido values are being declared"),
    ("own_envido_waits", r"your team's envido call is waiting for an answer"),
    ("answer_envido", r"answer the envido first \(quiero, no quiero or a raise\)"),
    ("not_in_variant", _CALL + r" is not part of this variant"),
    ("answer_truco_first", r"the truco call must be answered before anyone plays"),
    ("not_your_turn", r"it is not your turn to play"),
    ("pass_first_turn", r"all three cards may be passed only on your first turn"),
    ("pintan", r"las que pintan opens the envite: not possible now or with that card"),
    ("blind_hand", r"this hand is played blind: play your next card unseen"),
    ("face_up_hand", r"cards are played face up in this hand"),
    ("highest_after_parda", r"after a tied first trick you must play your highest card"),
    ("not_holding", r"you do not hold (?P<card>\S+)"),
    ("not_a_call", _CALL + r" is not a call of this game"),
    ("perico_lock", r"the perico was played by a trick winner: no more raises \(001 L37\)"),
    ("eleven_rule", r"no raising in this hand \(eleven rule\)"),
    ("raise_now", r"the raise now is " + _CALL),
    ("bet_highest", r"the bet is at its highest"),
    ("quiero_first", r"say quiero first: a raise is only allowed after accepting the bet"),
    ("own_truco_waits", r"your team's truco call is waiting for an answer"),
    ("no_raise_right", r"your team does not hold the right to raise: the other team accepted last"),
    ("highest_bet", _CALL + r" is the highest bet"),
    ("raise_with_quiero", r"raises only together with quiero at this table"),
    ("truco_own_turn", r"truco may only be called on your own turn at this table"),
    ("next_bet", r"the next bet is " + _CALL),
    ("cantando", r"the truco must be played: it cannot be declined \(estar cantando\)"),
    ("nothing_to_answer", r"there is no bet for you to answer"),
    ("mazo_off", r"me voy al mazo is not allowed at this table"),
    ("mazo_when", r"you may go to the mazo only on your turn or when answering a truco"),
    ("not_declaring", r"no envido values are being declared"),
    ("not_possible", _CALL + r" is not possible now"),
    # engine/envido.py explain_opening
    ("envido_done", r"the envido has already been played in this hand"),
    ("envido_flor", r"a flor was announced: there is no envido in this hand"),
    ("envido_first_trick", r"envido is only possible during the first trick"),
    ("envido_barred", r"you can no longer call envido: you have played a card or bet on the truco"),
    ("envido_own_turn", r"envido may only be called on your own turn at this table"),
    # engine/flor.py and engine/ve_flor.py explain
    ("flor_settling", r"the flor is being settled: only players holding a flor speak now"),
    ("flor_pass_only", r"the flor round: you may only pass"),
    ("own_flor_waits", r"your team's flor bet is waiting for an answer"),
    ("answer_flor", r"answer the flor bet: con flor quiero, con flor me achico or contraflor al resto"),
    ("flor_other_turn", r"it is another flor holder's turn to speak"),
    ("no_flor_bet", r"there is no flor bet for you to accept"),
    ("flor_bet_not_now", r"that flor bet is not possible now"),
    ("announce_flor", r"you hold a flor: announce it before anything else"),
    ("ley_closing", r"the players who played a ley say now whether they have a flor"),
    ("own_flor_envite_waits", r"your team's envite between flores is waiting for an answer"),
    ("answer_flor_envite", r"answer the envite between flores: quiero, no quiero or a raise"),
    ("say_flor", r"you hold a flor: say flor"),
    ("shrink_or_envite", r"shrink \(la mía es chica\) or make an envite between flores"),
    # engine/ve_ley.py explain
    ("ley_only_declared", r"a ley is played only when the players declare their flor"),
    ("ley_el_pie", r"El Pie cannot play a ley \(V-L1\): he answers con ley or sin ley"),
    ("ley_first_card", r"a ley goes with your first card, on your turn"),
    ("tengo_flor_when", r"tengo flor is said by a holder who played a ley, before his second card"),
    ("con_ley_holder", r"only a flor holder may answer con ley quiero"),
    ("no_con_ley", r"there is no envite con ley to answer"),
    ("flor_first_card", r"flor is said by its holder with his first card \(or before it\)"),
    ("pido_flor_when", r"pido flor is asked, once, before answering a truco from a team on (?P<n>\d+) "
                       r"that could still declare a flor \(001 L48\)"),
)
_COMPILED = tuple((name, re.compile(pattern + r"\Z")) for name, pattern in REFUSALS)


def refusal_key(sentence: str) -> tuple[str, dict[str, str]] | None:
    """The catalog key for an engine refusal and the values taken from it, or None."""
    for name, pattern in _COMPILED:
        found = pattern.match(sentence.strip())
        if found:
            return f"refusal.{name}", found.groupdict()
    return None


def refusal_text(tr: Any, sentence: str, variant: str = "") -> str:
    """The engine's refusal in the player's language (``error.illegal`` when unknown)."""
    known = refusal_key(sentence)
    if known is None or not tr.has_default(known[0]):
        return str(tr("error.illegal"))
    key, values = known
    if "call" in values:
        values["call"] = call_label(tr, variant, values["call"])
    return str(tr(key, **values))
