"""The Venezuelan game (docs/RULES.md section 4) as a RuleSet. Where each of its rules lives:

- cards.py: the vira, the perico and perica, trick strength, envite and flor values;
- envite.py: the envite in piedras (instead of the envido ladder);
- flor.py: the flor round, estar cantando, the envite between flores;
- ley.py, ley_end.py: the flor declared by the players (flor_declaration="a_ley");
- hooks.py: how those plug into the shared hand (core/hooks.py).
"""

from __future__ import annotations

from engine.core.calls import Call
from engine.core.cards import SPANISH_DECK, Card, CardMark
from engine.core.ruleset import (
    Allowed,
    Envite,
    EnvidoReplies,
    EnvidoStep,
    FlorDeclaration,
    FlorStyle,
    Mazo,
    OptionValue,
    PardaLeads,
    RuleSet,
    TieRule,
    TrucoStep,
    TrucoTiming,
)
from engine.variants.venezolano.cards import (
    absolute_value,
    pericos,
    ve_envite,
    ve_envite_cards,
    ve_flor,
    ve_strength,
)
from engine.variants.venezolano.hooks import VENEZUELAN_HOOKS


def _marks(deck: tuple[Card, ...], face_up: Card) -> tuple[CardMark, ...]:
    """The perico and the perica of this vira, with their envite values."""
    perico, perica = pericos(face_up)
    assert perico is not None and perica is not None
    return (
        CardMark(perico, "perico", absolute_value(perico, face_up)),
        CardMark(perica, "perica", absolute_value(perica, face_up)),
    )


VENEZUELAN_TRUCO = (
    TrucoStep(Call.TRUCO, 3, 1),
    TrucoStep(Call.RETRUCO, 6, 3),
    TrucoStep(Call.VALE_NUEVE, 9, 6),
    TrucoStep(Call.VALE_EL_JUEGO, 0, 9, wins_game=True),
)


def venezolano(opts: dict[str, OptionValue]) -> RuleSet:
    """docs/RULES.md section 4; each option is an open point of 4.14 (see engine/DECISIONS.md)."""
    target = opts["target"]
    assert isinstance(target, int)
    match_games = opts["match_games"]
    assert isinstance(match_games, int)
    assert opts["perico_rule"] == "vira_11_10"  # the only reading offered (OP-VE-1)
    return RuleSet(
        variant="venezolano",
        options=tuple(sorted(opts.items())),
        player_counts=(2, 4),
        deck=SPANISH_DECK,
        cards_per_hand=3,
        has_face_up=True,  # la vira
        target=target,
        match_games=match_games,
        malas=0,  # the Venezuelan game counts plain points (piedras): no malas/buenas
        truco_ladder=VENEZUELAN_TRUCO,
        envido_ladder=(EnvidoStep(Call.ENVIDO, 0, 2),),  # the opening; the rest is envite.py
        flor=bool(opts["flor"]),
        negras_30=False,
        cfar_malas=False,
        cfar_no_flor_points=False,
        cfar_achico_all_flores=False,
        cfar_wins_chico=False,
        envido_max_replies=EnvidoReplies.UNLIMITED,
        truco_timing=TrucoTiming.OWN_TURN,  # 001 L38, L21: truco and envite on one's own turn
        mazo=Mazo.OFF,  # no mazo in 001; passing the three cards is the fold (OP-VE-23)
        simultaneous=False,
        strength=ve_strength,
        envido=ve_envite,
        flor_fn=ve_flor,
        envite=Envite.PIEDRAS,
        envido_proof=ve_envite_cards,
        specials=pericos,
        parda_leads=PardaLeads.MANO,  # 001 L46
        tie_rule=TieRule.VENEZOLANO,
        counter_raise=True,  # "quiero y retruco" (001 L34-36)
        late_raises=bool(opts["late_raises"]),
        accept_bars_envido=False,  # 001 L21: only calling truco ends one's envite window
        perico_locks=True,
        pasar=True,
        cantando=True,
        flor_style=FlorStyle.VENEZOLANO,
        hasta_igualar_level=Allowed(str(opts["hasta_igualar_level"])),
        pintan_figure=Allowed(str(opts["las_que_pintan_figure"])),
        flor_declaration=FlorDeclaration(str(opts["flor_declaration"])),
        hooks=VENEZUELAN_HOOKS,
        count_rule="venezolano",
        marks=_marks,
    )
