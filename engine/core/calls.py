"""Every kind of player action (the calls of the game and playing a card), as one Enum.

The values are the wire names. Envido and truco answers share QUIERO / NO_QUIERO: the
answer always goes to the open envido or flor bet first, because those suspend a pending
truco (docs/RULES.md 1.8.1).
"""

from __future__ import annotations

from enum import Enum


class Call(Enum):
    PLAY = "play"
    TRUCO = "truco"
    RETRUCO = "retruco"
    VALE_CUATRO = "vale_cuatro"
    QUIERO = "quiero"
    NO_QUIERO = "no_quiero"
    ENVIDO = "envido"
    REAL_ENVIDO = "real_envido"
    DOS_REALES_ENVIDO = "dos_reales_envido"
    TRES_REALES_ENVIDO = "tres_reales_envido"
    FALTA_ENVIDO = "falta_envido"
    DECLARE_ENVIDO = "declare_envido"
    SON_BUENAS = "son_buenas"
    FLOR = "flor"
    CONTRAFLOR = "contraflor"
    CONTRAFLOR_AL_RESTO = "contraflor_al_resto"
    CON_FLOR_QUIERO = "con_flor_quiero"
    CON_FLOR_ME_ACHICO = "con_flor_me_achico"
    PASS_FLOR = "pass_flor"
    MAZO = "mazo"
    # OPT-MALDON: a misdeal claim that throws the hand in (docs/RULES.md 1.13, OP-AR-26).
    MALDON = "maldon"
    # Brazilian truco ladder after TRUCO (docs/RULES.md 3.7); the UI names them per variant.
    SEIS = "seis"
    NUEVE = "nueve"
    DOCE = "doce"
    # A card played blind (Brazilian double eleven): the engine plays the seat's next card.
    PLAY_BLIND = "play_blind"
    # Uruguayan 3 players: the mano lays one of his four cards face down (docs/RULES.md 2.12.2).
    DISCARD = "discard"
    # ---- Venezuelan truco (docs/RULES.md section 4) ----
    VALE_NUEVE = "vale_nueve"
    VALE_EL_JUEGO = "vale_el_juego"
    ENVIDO_PUNTOS = "envido_puntos"  # "envido N puntos": opens at N (Action.amount)
    PIEDRAS = "piedras"  # "quiero y N piedras más": raises by N (Action.amount)
    HASTA_IGUALAR = "hasta_igualar"  # opens at the difference of the scores
    LAS_QUE_PINTAN = "las_que_pintan"  # plays Action.card and opens at its absolute value
    PASAR = "pasar"  # pass all three cards on one's first turn (OP-VE-23)
    # ---- Venezuelan flor declared by the players (option flor_declaration="a_ley") ----
    A_LEY = "a_ley"  # "a ley": the first card may hide a flor (V-L1, V-L3); the turn goes on
    TENGO_FLOR = "tengo_flor"  # after a ley: the holder identifies his flor (V-F2)
    CON_LEY_QUIERO = "con_ley_quiero"  # answer to an envite con ley: I have a flor (V-L4)
    SIN_LEY_NO_QUIERO = "sin_ley_no_quiero"  # ... I have no flor, no quiero (V-L4)
    # "pido flor": facing a truco from a team on 20, ask whether it holds a flor (001 L48)
    PEDIR_FLOR = "pedir_flor"


TRUCO_CALLS = (
    Call.TRUCO, Call.RETRUCO, Call.VALE_CUATRO, Call.SEIS, Call.NUEVE, Call.DOCE,
    Call.VALE_NUEVE, Call.VALE_EL_JUEGO,
)
# Calls that carry a number (Action.amount; in the log, Acted.value).
AMOUNT_CALLS = (Call.ENVIDO_PUNTOS, Call.PIEDRAS)
ENVIDO_CALLS = (
    Call.ENVIDO,
    Call.REAL_ENVIDO,
    Call.DOS_REALES_ENVIDO,
    Call.TRES_REALES_ENVIDO,
    Call.FALTA_ENVIDO,
)
FLOR_RAISES = (Call.CONTRAFLOR, Call.CONTRAFLOR_AL_RESTO)
