"""The variant catalog: which games exist, for how many players, with which table options.

The lobby builds its "New table" form from this data, and `get_ruleset` validates its
keyword options against it, so the option names here are exactly the keyword names
`get_ruleset(variant, **options)` accepts. Labels and help are English; the TUI translates
them by option name.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.ruleset import OptionValue



@dataclass(frozen=True, slots=True)
class OptionSpec:
    name: str
    label: str
    kind: str  # "bool" | "choice" | "int"
    default: OptionValue
    choices: tuple[OptionValue, ...]
    help: str

    def validate(self, value: object) -> OptionValue:
        """Return `value` if it is allowed for this option, else raise ValueError."""
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise ValueError(f"option {self.name!r} must be true or false, not {value!r}")
            return value
        # bool is an int subclass: refuse True/False where a number or word is expected.
        if isinstance(value, bool) or value not in self.choices:
            raise ValueError(
                f"option {self.name!r} must be one of {list(self.choices)!r}, not {value!r}"
            )
        assert isinstance(value, (int, str))
        return value


@dataclass(frozen=True, slots=True)
class VariantSpec:
    name: str
    title: str
    player_counts: tuple[int, ...]
    options: tuple[OptionSpec, ...]
    implemented: bool

    def option(self, name: str) -> OptionSpec:
        for spec in self.options:
            if spec.name == name:
                return spec
        raise ValueError(f"variant {self.name!r} has no option {name!r}")

    def defaults(self) -> dict[str, OptionValue]:
        return {spec.name: spec.default for spec in self.options}


def _bool(name: str, label: str, default: bool, help: str) -> OptionSpec:
    return OptionSpec(name, label, "bool", default, (False, True), help)


def _choice(
    name: str, label: str, default: OptionValue, choices: tuple[OptionValue, ...], help: str
) -> OptionSpec:
    assert default in choices
    return OptionSpec(name, label, "choice", default, choices, help)


def _match_games(word: str) -> OptionSpec:
    return _choice(
        "match_games",
        "Games to win the match",
        2 if word == "chicos" else 1,
        (1, 2),
        f"The match is won by the first team to win this many games ({word}). "
        "1 is a single game.",
    )


def _senas() -> OptionSpec:
    # A table option, not a rule of the hand: the server delivers the señas
    # (engine/variants/senas.py); the rule set carries it only so that it is validated.
    return _choice(
        "senas", "Señas between partners", "fair", ("fair", "private", "off"),
        "In games with partners a player may make señas (signals about his cards) to them. "
        "fair: an opponent sometimes catches one, as at a real table; private: only "
        "partners ever see them; off: no señas.",
    )


def _reserved_words() -> OptionSpec:
    # Read by the server's table chat (server/table/words.py), not by the rules of the hand.
    return _bool(
        "reserved_words", "Calls said in the table chat count", False,
        "A table chat line that is exactly a call (quiero, truco, quiero retruco, vale "
        "cuatro, envido, no quiero...; Brazilian seis, nove, doze, desce) makes that call "
        "when it is legal for the player who wrote it, as saying it does at a real table.",
    )


_ARGENTINO = VariantSpec(
    name="argentino",
    title="Truco argentino",
    player_counts=(2, 4, 6),
    implemented=True,
    options=(
        _choice(
            "target", "Points to win a game", 30, (30, 15),
            "30 as in every source (15 malas + 15 buenas). 15 is a shorter game that no "
            "source describes; falta envido and contraflor al resto count towards it.",
        ),
        _match_games("chicos"),
        _bool(
            "flor", "Play with flor", True,
            "Three cards of one suit are a flor: it must be announced, it cancels envido "
            "and it has its own betting (contraflor, contraflor al resto). Off: such a "
            "hand is an ordinary envido hand.",
        ),
        _bool(
            "negras_30", "Flor of three negras is worth 30", False,
            "A flor of 10, 11 and 12 of one suit is valued 30 instead of 20.",
        ),
        _bool(
            "cfar_malas", "Contraflor al resto in the malas", False,
            "While both teams are in the malas (15 or less), contraflor al resto is worth "
            "what the leader needs to reach 15, plus 3 per flor.",
        ),
        _bool(
            "cfar_no_flor_points", "Contraflor al resto without flor points", False,
            "Contraflor al resto is worth only the points the leader needs to win, "
            "without the 3 per flor.",
        ),
        _bool(
            "cfar_achico_all_flores", "Giving up after contraflor al resto pays every flor",
            False,
            "After Contraflor, Contraflor al resto, Con flor me achico: the winners score 3 "
            "for every flor, the conceding team's included, instead of 3 per own flor + 1.",
        ),
        _bool(
            "cfar_wins_chico", "Contraflor al resto wins the game", False,
            "An accepted contraflor al resto: the best flor wins the whole game.",
        ),
        _bool(
            "reales", "Dos reales and tres reales envido", False,
            "Two more envido calls: dos reales envido (raise by 6) and tres reales envido "
            "(raise by 9).",
        ),
        _choice(
            "envido_max_replies", "Envido raises", "unlimited", ("unlimited", "a", "b"),
            "unlimited: any number of raises (the stake never above the target); "
            "a: at most two replies after the opening call; b: at most two plain envidos.",
        ),
        _choice(
            "truco_timing", "When truco may be called", "any_time", ("any_time", "own_turn"),
            "any_time: a player may call or raise whenever no bet is pending; own_turn: "
            "only on his own turn, before playing his card.",
        ),
        _choice(
            "mazo", "Me voy al mazo", "always", ("always", "two_player", "off"),
            "Giving up the hand (the opponents score its current truco value): in every "
            "game, only with two players, or never.",
        ),
        _bool(
            "flor_optional", "Flor need not be announced", False,
            "A player holding a flor may keep quiet about it (e.g. when an opponent's flor "
            "looks better); there is then no 'pido flor' penalty, and a silent holder "
            "plays envido like anyone else.",
        ),
        _choice(
            "maldon", "Maldon (misdeal claim)", "off", ("off", "any", "mano"),
            "A player dealt two 4s and a card without a signal (a 12 or lower) may claim "
            "maldon: the hand is thrown in and the next player deals. any: every player "
            "may claim; mano: only the mano.",
        ),
        _bool(
            "simultaneous", "Score envido and flor with the truco", False,
            "Envido and flor points are added at the end of the hand together with the "
            "truco points, so a drawn game is possible (play then goes on until one team "
            "is ahead).",
        ),
        _senas(),
        _reserved_words(),
    ),
)

_URUGUAYO = VariantSpec(
    name="uruguayo",
    title="Truco uruguayo",
    player_counts=(2, 3, 4, 6),
    implemented=True,
    options=(
        _choice(
            "target", "Points to win a game", 30, (30, 15),
            "30, as in Argentina; 15 is an unseeded shorter game.",
        ),
        _match_games("chicos"),
        _bool(
            "flor", "Play with flor", True,
            "Three cards of one suit, two of a suit plus a pieza, or two piezas make a "
            "flor. Off: such a hand is an ordinary envido hand.",
        ),
        _choice(
            "envido_max_replies", "Envido raises", "unlimited", ("unlimited", "a", "b"),
            "unlimited: any number of raises (the stake never above the target); "
            "a: at most two replies after the opening call; b: at most two plain envidos.",
        ),
        _choice(
            "truco_timing", "When truco may be called", "any_time", ("any_time", "own_turn"),
            "any_time: whenever no bet is pending; own_turn: on his own turn only.",
        ),
        _choice(
            "mazo", "Me voy al mazo", "always", ("always", "two_player", "off"),
            "Giving up the hand: in every game, only with two players, or never.",
        ),
        _senas(),
        _reserved_words(),
    ),
)

_PAULISTA = VariantSpec(
    name="paulista",
    title="Truco paulista (Brazilian)",
    player_counts=(2, 4),
    implemented=True,
    options=(
        _choice("target", "Points to win a game", 12, (12,), "The first team to 12 wins."),
        _match_games("games"),
        _choice(
            "forfeit_scope", "Penalty for three tied tricks", "game", ("game", "hand"),
            "The seed says the dealer's side loses the game; 'hand': it loses only the "
            "hand, at the hand's value.",
        ),
        _choice(
            "deck", "Deck", "french28", ("french28", "french40"),
            "The seed's 28 cards (A K Q J 7 3 2), or the 40-card deck most Brazilians use "
            "(A 2 3 4 5 6 7 Q J K; order 3 2 A K J Q 7 6 5 4).",
        ),
        _senas(),
        _reserved_words(),
    ),
)

_VENEZOLANO = VariantSpec(
    name="venezolano",
    title="Truco venezolano",
    player_counts=(2, 4),
    implemented=True,
    options=(
        _choice(
            "target", "Points to win a game", 24, (24, 12),
            "24 piedras per the source; many tables play to 12 (not in the source).",
        ),
        _match_games("games"),
        _bool(
            "flor", "Play with flor", True,
            "Three cards of one suit, or the perico and perica together (la reservada), "
            "are a flor: 3 piedras each, 6 for two partners, an envite between opposing "
            "flores. Off: such hands are ordinary envite hands.",
        ),
        _choice(
            "flor_declaration", "Declaring the flor", "a_ley", ("a_ley", "automatic"),
            "a_ley (the source's rules): each holder says flor with his first card, or "
            "plays it 'a ley' (not El Pie) and says 'tengo flor' before his second card; a "
            "flor kept quiet is lost and its team cannot collect the envite or truco points "
            "it wins (La Reservada has its own exceptions). automatic: the server announces "
            "every flor at the start of the hand.",
        ),
        _choice(
            "perico_rule", "Perico and perica", "vira_11_10", ("vira_11_10",),
            "A card is turned up after the deal (la vira). The perico is the caballo (11) "
            "and the perica the sota (10) of its suit; when the vira is one of them, the "
            "rey (12) takes its place. The usual Venezuelan rule: the source does not say.",
        ),
        _bool(
            "late_raises", "Raises on a later turn", True,
            "The side that accepted the last truco step may raise on a later turn of its "
            "own, not only together with its 'quiero'.",
        ),
        _choice(
            "hasta_igualar_level", "'Hasta igualar' with level scores", "illegal",
            ("illegal", "two"),
            "When the scores are level, 'hasta igualar' is not allowed, or is worth 2.",
        ),
        _choice(
            "las_que_pintan_figure", "'Las que pintan' on a figure card",
            "illegal", ("illegal", "two"),
            "A figure card is worth 0: 'envido las que pintan' on it is not allowed, or is "
            "worth 2 (the minimum envite).",
        ),
        _senas(),
        _reserved_words(),
    ),
)

_CATALOG: tuple[VariantSpec, ...] = (_ARGENTINO, _URUGUAYO, _PAULISTA, _VENEZOLANO)


def variant_catalog() -> tuple[VariantSpec, ...]:
    """Every variant, implemented or not, in the order the lobby lists them."""
    return _CATALOG


def variant_spec(name: str) -> VariantSpec:
    for spec in _CATALOG:
        if spec.name == name:
            return spec
    known = ", ".join(s.name for s in _CATALOG)
    raise ValueError(f"unknown variant {name!r} (known: {known})")


def resolve_options(variant: str, options: dict[str, object]) -> dict[str, OptionValue]:
    """Defaults overlaid with `options`, each validated; ValueError on anything unknown."""
    spec = variant_spec(variant)
    resolved = spec.defaults()
    for name, value in options.items():
        resolved[name] = spec.option(name).validate(value)
    return resolved
