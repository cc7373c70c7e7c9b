"""Reserved words (table option ``reserved_words``): a table chat line that is exactly a
call ("quiero", "¡Truco!", "quiero retruco", "vale cuatro", Brazilian "seis", "desce")
counts as that call when it is legal for the speaker, as at a real table where saying
the word is making the call (docs/RULES.md 1.12.4's source: "reserved words are taken as
bets, when legal").

Only a whole line counts (after case, accents and punctuation are set aside): "quiero
ir al baño" is just chat. Calls that need a card or a number (las que pintan, piedras)
are never made this way. Pure: the actor applies what ``reserved_action`` returns.
"""
from __future__ import annotations

import unicodedata

import engine
from engine.core.calls import TRUCO_CALLS

# Words players say for a call besides its own name ("real envido" is read from the call
# real_envido). Per variant: the Brazilian game's ladder is truco, seis, nove, doze.
_COMMON: dict[str, str] = {
    "quiero retruco": "retruco", "quiero vale cuatro": "vale_cuatro", "vale 4": "vale_cuatro",
    "al mazo": "mazo", "me voy al mazo": "mazo",
    "tengo flor": "flor", "con flor quiero": "con_flor_quiero", "con flor me achico": "con_flor_me_achico",
    "no quiero": "no_quiero",
}
_BY_VARIANT: dict[str, dict[str, str]] = {
    "paulista": {
        "aceito": "quiero", "desce": "quiero", "cai": "quiero", "manda": "quiero",
        "corro": "no_quiero", "nao quero": "no_quiero", "fugi": "no_quiero",
        "6": "seis", "nove": "nueve", "9": "nueve", "doze": "doce", "12": "doce",
    },
    "venezolano": {"quiero vale nueve": "vale_nueve", "vale juego": "vale_el_juego",
                   "quiero y retruco": "retruco", "quiero y vale nueve": "vale_nueve",
                   "quiero y vale el juego": "vale_el_juego"},
}
# A raise said in reply to a pending bet is the raise only with its "quiero" ("Quiero,
# retruco"): a bare "Retruco" then is no call (docs/RULES.md AR-22). The Brazilian counter-raise
# is the bare word ("seis!", docs/RULES.md 3.7).
_BARE_COUNTER_RAISE = frozenset({"paulista"})
_RAISES = frozenset(c.value for c in TRUCO_CALLS) - {"truco"}
_NOT_BY_WORDS = frozenset({"play", "play_blind", "discard", "declare_envido", "piedras", "las_que_pintan",
                           "envido_puntos", "maldon"})


def normalise(text: str) -> str:
    """Lower case, no accents, no punctuation, single spaces: how a said word is compared."""
    plain = unicodedata.normalize("NFKD", text.casefold())
    kept = "".join(c if c.isalnum() or c.isspace() else " " for c in plain if not unicodedata.combining(c))
    return " ".join(kept.split())


def said_call(text: str, variant: str) -> str | None:
    """The call a whole chat line names in ``variant``, if any."""
    words = normalise(text)
    if not words:
        return None
    named = _BY_VARIANT.get(variant, {}).get(words) or _COMMON.get(words)
    if named is not None:
        return named
    by_name = words.replace(" ", "_")
    if by_name in _NOT_BY_WORDS:
        return None
    return next((c.value for c in engine.Call if c.value == by_name), None)


def reserved_action(text: str, state: engine.State, seat: int, variant: str) -> engine.Action | None:
    """The legal action the line makes for ``seat``, or None (just chat)."""
    call = said_call(text, variant)
    if call is None:
        return None
    if (call in _RAISES and state.truco_pending and variant not in _BARE_COUNTER_RAISE
            and not normalise(text).startswith("quiero")):
        return None
    return next((a for a in engine.legal_actions(state, seat)
                 if a.call.value == call and a.card is None and a.amount is None), None)
