"""The Argentine game (docs/RULES.md section 1) as a RuleSet: its truco and envido ladders and
its options. The other variants start from it (`on_argentine`) and replace what differs."""

from __future__ import annotations

from functools import partial

from engine.core.calls import Call
from engine.core.cards import SPANISH_DECK, Card
from engine.core.ruleset import (
    EnvidoReplies,
    EnvidoStep,
    FlorFn,
    Maldon,
    Mazo,
    OptionValue,
    RuleSet,
    TrucoStep,
    TrucoTiming,
)
from engine.rules.hooks import ARGENTINE_HOOKS
from engine.rules.scoring import argentine_envido, argentine_flor, argentine_strength, envido_cards
from engine.variants.catalog import resolve_options, variant_spec


def _argentine_proof(cards: tuple[Card, ...], face_up: Card | None = None) -> tuple[Card, ...]:
    return envido_cards(cards)


ARGENTINE_TRUCO = (
    TrucoStep(Call.TRUCO, 2, 1),
    TrucoStep(Call.RETRUCO, 3, 2),
    TrucoStep(Call.VALE_CUATRO, 4, 3),
)


def _argentine_envido_ladder(reales: bool) -> tuple[EnvidoStep, ...]:
    steps = [EnvidoStep(Call.ENVIDO, 0, 2), EnvidoStep(Call.REAL_ENVIDO, 1, 3)]
    if reales:
        steps += [
            EnvidoStep(Call.DOS_REALES_ENVIDO, 2, 6),
            EnvidoStep(Call.TRES_REALES_ENVIDO, 3, 9),
        ]
    steps.append(EnvidoStep(Call.FALTA_ENVIDO, 9, 0))
    return tuple(steps)


def argentino(opts: dict[str, OptionValue]) -> RuleSet:
    def b(name: str) -> bool:
        value = opts[name]
        assert isinstance(value, bool)
        return value

    def i(name: str) -> int:
        value = opts[name]
        assert isinstance(value, int)
        return value

    def s(name: str) -> str:
        value = opts[name]
        assert isinstance(value, str)
        return value

    flor_fn: FlorFn = partial(argentine_flor, negras_30=b("negras_30"))
    return RuleSet(
        variant="argentino",
        options=tuple(sorted(opts.items())),
        player_counts=(2, 4, 6),
        deck=SPANISH_DECK,
        cards_per_hand=3,
        has_face_up=False,
        target=i("target"),
        match_games=i("match_games"),
        malas=i("target") // 2,
        truco_ladder=ARGENTINE_TRUCO,
        envido_ladder=_argentine_envido_ladder(b("reales")),
        flor=b("flor"),
        negras_30=b("negras_30"),
        cfar_malas=b("cfar_malas"),
        cfar_no_flor_points=b("cfar_no_flor_points"),
        cfar_achico_all_flores=b("cfar_achico_all_flores"),
        cfar_wins_chico=b("cfar_wins_chico"),
        envido_max_replies=EnvidoReplies(s("envido_max_replies")),
        truco_timing=TrucoTiming(s("truco_timing")),
        mazo=Mazo(s("mazo")),
        simultaneous=b("simultaneous"),
        strength=argentine_strength,
        envido=argentine_envido,
        flor_fn=flor_fn,
        flor_optional=b("flor_optional"),
        maldon=Maldon(s("maldon")),
        envido_proof=_argentine_proof,
        counter_raise=True,  # "Quiero, retruco" answers a pending truco (docs/RULES.md 1.7.1, 1.8.1)
        hooks=ARGENTINE_HOOKS,
        count_rule="argentine",
    )


def on_argentine(opts: dict[str, OptionValue]) -> RuleSet:
    """The Argentine RuleSet for a variant's options (Argentine defaults for the rest): the
    muestra and manilha games share all Argentine behaviour they do not replace."""
    shared: dict[str, object] = {k: v for k, v in opts.items() if k in _ARGENTINE_OPTION_NAMES}
    return argentino(resolve_options("argentino", shared))


_ARGENTINE_OPTION_NAMES = frozenset(o.name for o in variant_spec("argentino").options)
