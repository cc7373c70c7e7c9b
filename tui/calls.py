"""Keys and labels for the calls a player may make, for any variant.

The engine says which calls are legal; this module only gives each a key and a
name. Calls are grouped in families so a call added by a new variant lands on a
sensible key (or a spare one) without table code knowing the variant.
"""
from __future__ import annotations

from dataclasses import dataclass
from tui.i18n import Translator


# Preferred keys by call; the first free one wins. Families share keys because
# their members are never legal at the same time (e.g. truco / retruco / vale cuatro).
PREFERRED_KEYS: dict[str, str] = {
    "truco": "t", "retruco": "t", "vale_cuatro": "t", "vale_nueve": "t", "vale_el_juego": "t",
    "seis": "t", "nueve": "t", "doce": "t",
    "quiero": "q", "con_flor_quiero": "q",
    "no_quiero": "n", "con_flor_me_achico": "n",
    "envido": "e", "real_envido": "r", "falta_envido": "f",
    "dos_reales_envido": "d", "tres_reales_envido": "x",
    "declare_envido": "e", "son_buenas": "s",
    "flor": "o", "contraflor": "o", "contraflor_al_resto": "a", "pass_flor": "p",
    "mazo": "m", "play_blind": "j", "maldon": "x",
    "envido_puntos": "u", "piedras": "i", "hasta_igualar": "h", "las_que_pintan": "k", "pasar": "p",
    # Venezuelan a ley: tengo flor is the flor key (never legal with flor), the V-L4 answers
    # the quiero / no quiero keys (they replace them), and a ley its own key. Pido flor is
    # asked while a truco waits for an answer, when pass and pasar are never legal.
    "a_ley": "y", "tengo_flor": "o", "con_ley_quiero": "q", "sin_ley_no_quiero": "n",
    "pedir_flor": "p",
}
SPARE_KEYS = "abghijkuvwxyz"
RESERVED = set("123456789lc?CS")  # cards, leave, chat, help, partner chat, seña


@dataclass(frozen=True)
class CallChoice:
    call: str
    key: str


def assign_keys(calls: list[str]) -> list[CallChoice]:
    """A distinct key for each legal call (cards keep 1-9)."""
    used: set[str] = set()
    out: list[CallChoice] = []
    pending: list[str] = []
    for call in calls:
        key = PREFERRED_KEYS.get(call)
        if key and key not in used:
            used.add(key)
            out.append(CallChoice(call, key))
        else:
            pending.append(call)
    for call in pending:
        key = next(k for k in SPARE_KEYS + "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if k not in used and k not in RESERVED)
        used.add(key)
        out.append(CallChoice(call, key))
    return out


# The answers to a bet: a raise offered beside them is said as an answer ("Quiero retruco").
ANSWERS = frozenset(("quiero", "no_quiero", "con_ley_quiero", "sin_ley_no_quiero"))


def answers_a_bet(calls: list[str]) -> bool:
    """The legal ``calls`` answer a bet: a raise among them accepts it too."""
    return any(call in ANSWERS for call in calls)


def call_label(tr: Translator, variant: str, call: str, value: object = None,
               deal_kind: str | None = None, answering: bool = False) -> str:
    """The words a player says: per kind of hand (in a mão de onze, quiero is "play the
    hand"), per variant (Portuguese for the Brazilian game), then general. ``answering``:
    the call answers a bet that waits for the speaker, so a raise accepts it first
    ("Quiero retruco"; later in the hand, with nothing to accept, it is "Retruco")."""
    keys: tuple[str, ...] = (f"call.{variant}.{call}", f"call.{call}")
    if deal_kind:
        keys = (f"call.{deal_kind}.{call}", *keys)
    if answering:
        keys = (f"call.{variant}.answer.{call}", f"call.answer.{call}", *keys)
    for key in keys:
        if tr.has(key) or tr.has_default(key):
            return tr(key, value=value) if value is not None else tr(key)
    return call.replace("_", " ")


def bet_label(tr: Translator, variant: str, call: str) -> str:
    """The name of a bet, where it differs from the words that make it: a retruco may be
    said "Quiero retruco" but the bet is the retruco ("Retruco from beto", "retruco not
    wanted", the ladder's "Retruco: 3 if wanted"). Else the call's own words."""
    for key in (f"bet.{variant}.{call}", f"bet.{call}"):
        if tr.has(key) or tr.has_default(key):
            return str(tr(key))
    return call_label(tr, variant, call)
