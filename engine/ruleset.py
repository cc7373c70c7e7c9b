"""RuleSet: one variant as frozen data plus the few small functions that are behaviour.

`get_ruleset(variant, **options)` is the only way to build one; options are validated
against the catalog (engine/catalog.py), so the lobby form and the engine cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from engine.calls import Call
from engine.cards import FRENCH_DECK, FRENCH_DECK_40, SPANISH_DECK, Card
from engine.catalog import OptionValue, resolve_options, variant_spec
from engine.manilha import MANILHA_28, MANILHA_40, no_envido, no_flor
from engine.muestra import (
    uruguayan_envido,
    uruguayan_envido_cards,
    uruguayan_flor,
    uruguayan_strength,
)
from engine.scoring import argentine_envido, argentine_flor, argentine_strength, envido_cards
from engine.ve_cards import pericos, ve_envite, ve_envite_cards, ve_flor, ve_strength

StrengthFn = Callable[[Card, Card | None], int]
EnvidoFn = Callable[[tuple[Card, ...], Card | None], int]
FlorFn = Callable[[tuple[Card, ...], Card | None], int | None]
ProofFn = Callable[[tuple[Card, ...], Card | None], tuple[Card, ...]]
SpecialsFn = Callable[[Card | None], tuple[Card | None, ...]]


def _argentine_proof(cards: tuple[Card, ...], face_up: Card | None = None) -> tuple[Card, ...]:
    return envido_cards(cards)


def _no_specials(face_up: Card | None) -> tuple[Card | None, ...]:
    return ()


@dataclass(frozen=True, slots=True)
class TrucoStep:
    call: Call
    accepted: int  # the hand is worth this once the call is accepted
    declined: int  # the calling team scores this when it is declined
    wins_game: bool = False  # accepted, the hand decides the game (Venezuelan vale el juego)


@dataclass(frozen=True, slots=True)
class EnvidoStep:
    call: Call
    level: int  # a call may not follow one of a higher level (RULES.md 1.7.2)
    points: int  # what it adds to the stake; falta envido replaces the stake (points 0)


@dataclass(frozen=True)
class RuleSet:
    variant: str
    options: tuple[tuple[str, OptionValue], ...]
    player_counts: tuple[int, ...]
    deck: tuple[Card, ...]
    cards_per_hand: int
    has_face_up: bool  # a muestra / vira card is turned up after the deal
    target: int
    match_games: int
    malas: int  # the malas/buenas boundary, shown to players
    truco_ladder: tuple[TrucoStep, ...]
    envido_ladder: tuple[EnvidoStep, ...]
    flor: bool
    negras_30: bool
    cfar_malas: bool
    cfar_no_flor_points: bool
    cfar_achico_all_flores: bool
    cfar_wins_chico: bool
    envido_max_replies: str
    truco_timing: str
    mazo: str
    simultaneous: bool
    strength: StrengthFn
    envido: EnvidoFn
    flor_fn: FlorFn
    # Fields added after the Argentine core carry defaults, so every builder stays short.
    flor_optional: bool = False  # OPT-FLOR-OPTIONAL: a holder may keep quiet
    maldon: str = "off"  # OPT-MALDON: "off", "any" player or only the "mano" may claim
    # ---- muestra / manilha variants (RULES.md 2 and 3) ----
    card_notation: str = "spanish"  # deck for card text: "spanish" or "french"
    envido_proof: ProofFn = _argentine_proof  # the cards that prove an envido value
    deal_step: int = 1  # +1: the deal passes on in playing order; -1: backwards (Brazil)
    three_pardas: str = "mano"  # "mano" wins, or the dealer's team "loses_game"/"loses_hand"
    counter_raise: bool = False  # a ladder raise may answer a pending one (accepting it)
    first_tie_highest: bool = False  # after a tied trick 1, everyone plays his highest card
    eleven_rule: bool = False  # Brazilian mão de onze and double-eleven blind hand
    solo_mano_three: bool = False  # 3 players: the mano alone with 4 cards (RULES.md 2.12.2)
    # ---- added with venezolano; the defaults are the Argentine game ----
    envite: str = "ladder"  # "ladder": the envido_ladder calls; "piedras": the Venezuelan envite
    specials: SpecialsFn = _no_specials  # cards named by the face-up card (perico, perica)
    parda_leads: str = "previous"  # after a tied trick: the "previous" leader or the "mano"
    tie_rule: str = "standard"  # "venezolano": RULES 4.6 (second tie decided by the tied)
    late_raises: bool = True  # the team holding the right may raise on a later turn
    accept_bars_envido: bool = True  # accepting a truco in trick 1 ends one's envido window
    perico_locks: bool = False  # 001 L37: a trick winner playing the perico voids raises
    pasar: bool = False  # a player may pass all three cards on his first turn (OP-VE-23)
    cantando: bool = False  # 4.12.1 estar cantando: a team needing one point
    flor_style: str = "argentine"  # "venezolano": 3 per flor, envite between flores, achicar
    hasta_igualar_level: str = "illegal"  # OP-VE-7
    pintan_figure: str = "illegal"  # OP-VE-8
    flor_declaration: str = "automatic"  # venezolano: "a_ley" (players declare) or "automatic"

    @property
    def deck_codes(self) -> frozenset[int]:
        return _deck_codes(self.deck)

    def option(self, name: str) -> OptionValue:
        for key, value in self.options:
            if key == name:
                return value
        raise KeyError(name)

    def options_dict(self) -> dict[str, OptionValue]:
        return dict(self.options)

    def envido_step(self, call: Call) -> EnvidoStep | None:
        for step in self.envido_ladder:
            if step.call is call:
                return step
        return None

    def mazo_allowed(self, n_players: int) -> bool:
        return self.mazo == "always" or (self.mazo == "two_player" and n_players == 2)


_DECK_CODES: dict[tuple[Card, ...], frozenset[int]] = {}


def _deck_codes(deck: tuple[Card, ...]) -> frozenset[int]:
    codes = _DECK_CODES.get(deck)
    if codes is None:
        codes = _DECK_CODES[deck] = frozenset(c.code for c in deck)
    return codes


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


def _argentino(opts: dict[str, OptionValue]) -> RuleSet:
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
        envido_max_replies=s("envido_max_replies"),
        truco_timing=s("truco_timing"),
        mazo=s("mazo"),
        simultaneous=b("simultaneous"),
        strength=argentine_strength,
        envido=argentine_envido,
        flor_fn=flor_fn,
        flor_optional=b("flor_optional"),
        maldon=s("maldon"),
    )


VENEZUELAN_TRUCO = (
    TrucoStep(Call.TRUCO, 3, 1),
    TrucoStep(Call.RETRUCO, 6, 3),
    TrucoStep(Call.VALE_NUEVE, 9, 6),
    TrucoStep(Call.VALE_EL_JUEGO, 0, 9, wins_game=True),
)


def _venezolano(opts: dict[str, OptionValue]) -> RuleSet:
    """RULES.md section 4; each option is an open point of 4.14 (see DECISIONS.md)."""
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
        envido_max_replies="unlimited",
        truco_timing="own_turn",  # 001 L38, L21: truco and envite on one's own turn
        mazo="off",  # no mazo in 001; passing the three cards is the fold (OP-VE-23)
        simultaneous=False,
        strength=ve_strength,
        envido=ve_envite,
        flor_fn=ve_flor,
        envite="piedras",
        envido_proof=ve_envite_cards,
        specials=pericos,
        parda_leads="mano",  # 001 L46
        tie_rule="venezolano",
        counter_raise=True,  # "quiero y retruco" (001 L34-36)
        late_raises=bool(opts["late_raises"]),
        accept_bars_envido=False,  # 001 L21: only calling truco ends one's envite window
        perico_locks=True,
        pasar=True,
        cantando=True,
        flor_style="venezolano",
        hasta_igualar_level=str(opts["hasta_igualar_level"]),
        pintan_figure=str(opts["las_que_pintan_figure"]),
        flor_declaration=str(opts["flor_declaration"]),
    )


def _on_argentine(opts: dict[str, OptionValue]) -> RuleSet:
    """The Argentine RuleSet for a variant's options (Argentine defaults for the rest): the
    muestra and manilha games share all Argentine behaviour they do not replace."""
    shared: dict[str, object] = {k: v for k, v in opts.items() if k in _ARGENTINE_OPTION_NAMES}
    return _argentino(resolve_options("argentino", shared))


_ARGENTINE_OPTION_NAMES = frozenset(o.name for o in variant_spec("argentino").options)


def _uruguayo(opts: dict[str, OptionValue]) -> RuleSet:
    """RULES.md 2: the Argentine game with the muestra (face-up card) and its piezas."""
    return replace(
        _on_argentine(opts),
        variant="uruguayo",
        options=tuple(sorted(opts.items())),
        player_counts=(2, 3, 4, 6),
        has_face_up=True,
        strength=uruguayan_strength,
        envido=uruguayan_envido,
        flor_fn=uruguayan_flor,
        envido_proof=uruguayan_envido_cards,
        solo_mano_three=True,
    )


# RULES.md 3.7 / OP-BR-3: accepted 3 / 6 / 9 / 12; a declined raise pays the step below.
BRAZILIAN_TRUCO = (
    TrucoStep(Call.TRUCO, 3, 1),
    TrucoStep(Call.SEIS, 6, 3),
    TrucoStep(Call.NUEVE, 9, 6),
    TrucoStep(Call.DOCE, 12, 9),
)


def _paulista(opts: dict[str, OptionValue]) -> RuleSet:
    """RULES.md 3: no envido or flor, the vira and manilha, truco 3-6-9-12, game to 12."""
    forty = opts["deck"] == "french40"
    target = opts["target"]
    assert isinstance(target, int)
    return replace(
        _on_argentine({"match_games": opts["match_games"], "flor": False}),
        variant="paulista",
        options=tuple(sorted(opts.items())),
        player_counts=(2, 4),
        deck=FRENCH_DECK_40 if forty else FRENCH_DECK,
        has_face_up=True,
        target=target,
        malas=0,  # no malas/buenas in Brazil: scores are shown as plain numbers
        truco_ladder=BRAZILIAN_TRUCO,
        envido_ladder=(),
        truco_timing="own_turn",  # "only on the player's own turn, before he lays a card"
        mazo="off",  # the seed has no mazo; declining a raise turns the cards in
        strength=MANILHA_40 if forty else MANILHA_28,
        envido=no_envido,
        flor_fn=no_flor,
        card_notation="french",
        deal_step=-1,  # OP-BR-7: the deal passes to the left, against the play
        three_pardas="loses_" + str(opts["forfeit_scope"]),
        counter_raise=True,
        first_tie_highest=True,
        eleven_rule=True,
    )


_BUILDERS: dict[str, Callable[[dict[str, OptionValue]], RuleSet]] = {
    "argentino": _argentino,
    "uruguayo": _uruguayo,
    "paulista": _paulista,
    "venezolano": _venezolano,
}
_CACHE: dict[tuple[str, tuple[tuple[str, Any], ...]], RuleSet] = {}


def get_ruleset(variant: str, **options: Any) -> RuleSet:
    """The RuleSet of `variant` with `options` over the catalog defaults.

    Raises ValueError for an unknown variant, an unknown option, a value outside the
    option's choices, or a variant that is catalogued but not implemented yet.
    """
    spec = variant_spec(variant)
    resolved = resolve_options(variant, options)
    if not spec.implemented:
        raise ValueError(f"variant {variant!r} is not implemented yet")
    key = (variant, tuple(sorted(resolved.items())))
    rules = _CACHE.get(key)
    if rules is None:
        rules = _CACHE[key] = _BUILDERS[variant](resolved)
    return rules


def envido_value(cards: tuple[Card, ...] | list[Card], rules: RuleSet, face_up: Card | None = None) -> int:
    """The envido value of a hand under `rules` (0..33 in the Argentine game)."""
    return rules.envido(tuple(cards), face_up)


def flor_value(
    cards: tuple[Card, ...] | list[Card], rules: RuleSet, face_up: Card | None = None
) -> int | None:
    """The flor value of a hand, or None when it is no flor (or flor is not played)."""
    if not rules.flor:
        return None
    return rules.flor_fn(tuple(cards), face_up)


def trick_strength(card: Card, rules: RuleSet, face_up: Card | None = None) -> int:
    """Higher beats lower; equal strengths tie (parda)."""
    return rules.strength(card, face_up)
