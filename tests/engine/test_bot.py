"""The bot of issue 6 (engine/bot.py): legal in every variant, blind to hidden cards, sensible.

Bot-only games use the shortest game each variant offers (the smallest `target` choice and
`match_games=1` when the catalog has them), so the 200-game runs stay a few seconds each.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import (
    Action,
    Call,
    Phase,
    RuleSet,
    State,
    advance,
    apply,
    choose_action,
    get_ruleset,
    legal_actions,
    new_match,
    trick_strength,
    variant_catalog,
    view,
)
from engine.bots import bot
from engine.testing import act, scenario

IMPLEMENTED = [spec for spec in variant_catalog() if spec.implemented]
VARIANT_COUNTS = [
    pytest.param(spec.name, n, id=f"{spec.name}-{n}p")
    for spec in IMPLEMENTED
    for n in spec.player_counts
    if n in (2, 4, 6)
]


def short_options(variant: str) -> dict[str, Any]:
    """The quickest game of a variant: one game, to the smallest target offered."""
    spec = engine.variants.catalog.variant_spec(variant)
    options: dict[str, Any] = {}
    for opt in spec.options:
        if opt.name == "match_games" and 1 in opt.choices:
            options["match_games"] = 1
        if opt.name == "target" and opt.choices:
            options["target"] = min(c for c in opt.choices if isinstance(c, int))
    return options


Policy = Callable[[State, int, random.Random], Action | None]


def bot_policy(state: State, seat: int, rng: random.Random) -> Action | None:
    v = view(state, seat)
    action = choose_action(v, state.rules, rng, strict=True)
    if action is None:
        assert not bot.is_obliged(v, state.rules), f"the bot passed when it had to act: {v.legal}"
    else:
        assert action in v.legal
    return action


def random_policy(state: State, seat: int, rng: random.Random) -> Action | None:
    return rng.choice(legal_actions(state, seat))


def play_match(
    rules: RuleSet, n: int, seed: int, policies: list[Policy], max_steps: int = 20_000
) -> tuple[State, int]:
    """A whole match; at each step the awaiting seats are asked in a random order and the
    first action given is applied (`apply` raises IllegalAction for an illegal one)."""
    rng = random.Random(seed)
    seat_rngs = [random.Random(seed * 1000 + s) for s in range(n)]
    state, _ = new_match(rules, n, rng)
    steps = 0
    while not state.match_over:
        steps += 1
        assert steps < max_steps, "the match does not end"
        start = rng.randrange(n)
        chosen = None
        for i in range(n):
            seat = (start + i) % n
            if not legal_actions(state, seat):
                continue
            chosen = policies[seat](state, seat, seat_rngs[seat])
            if chosen is not None:
                break
        assert chosen is not None, "no seat acted"
        state, _ = advance(state, chosen, rng)
    return state, steps


# ---------------------------------------------------------------- legal in every variant


def test_every_implemented_variant_is_covered() -> None:
    assert VARIANT_COUNTS, "no implemented variant"
    assert any(spec.name == "argentino" for spec in IMPLEMENTED)


@pytest.mark.slow  # 360 matches in all (200 each took a third of the suite's pure CPU)
@pytest.mark.parametrize(("variant", "n"), VARIANT_COUNTS)
def test_30_bot_games_per_variant_and_player_count(variant: str, n: int) -> None:
    """30 complete bot-only matches (one game to the smallest target) without an illegal
    action; tests/engine/test_invariants.py and the options' property below play more."""
    rules = get_ruleset(variant, **short_options(variant))
    winners = [0, 0]
    for game in range(30):
        state, _ = play_match(rules, n, seed=game, policies=[bot_policy] * n)
        assert state.winner is not None
        winners[state.winner] += 1
    # Identical bots on both sides: neither team should win almost everything. (How long the
    # games take is a benchmark's business: tests/bench/engine_bench.py.)
    assert min(winners) >= 7, winners


def _options_strategy(variant: str) -> st.SearchStrategy[dict[str, Any]]:
    spec = engine.variants.catalog.variant_spec(variant)
    return st.fixed_dictionaries({o.name: st.sampled_from(o.choices) for o in spec.options})


@pytest.mark.parametrize("variant", [spec.name for spec in IMPLEMENTED])
def test_bot_games_with_any_table_options(variant: str) -> None:
    spec = engine.variants.catalog.variant_spec(variant)
    counts = [n for n in spec.player_counts if n in (2, 4, 6)]

    @settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(options=_options_strategy(variant), n=st.sampled_from(counts),
           seed=st.integers(0, 2**32 - 1))
    def run(options: dict[str, Any], n: int, seed: int) -> None:
        rules = get_ruleset(variant, **options)
        state, _ = play_match(rules, n, seed, [bot_policy] * n)
        assert state.winner in (0, 1)

    run()


@pytest.mark.parametrize(("variant", "n"), VARIANT_COUNTS)
def test_bot_takes_over_a_seat_mid_game(variant: str, n: int) -> None:
    """Random players for a while; then bots take over every seat one by one, in the middle
    of hands (a player leaving), and finish the match."""
    rules = get_ruleset(variant, **short_options(variant))
    for seed in range(10):
        rng = random.Random(seed)
        state, _ = new_match(rules, n, rng)
        policies: list[Policy] = [random_policy] * n
        seat_rngs = [random.Random(seed + 100 * s) for s in range(n)]
        steps = 0
        while not state.match_over:
            steps += 1
            assert steps < 20_000
            if steps % 17 == 0 and random_policy in policies:
                policies[policies.index(random_policy)] = bot_policy  # someone leaves
            chosen = None
            for seat in rng.sample(range(n), n):
                if legal_actions(state, seat):
                    chosen = policies[seat](state, seat, seat_rngs[seat])
                    if chosen is not None:
                        break
            assert chosen is not None
            state, _ = advance(state, chosen, rng)


@pytest.mark.parametrize("variant", [spec.name for spec in IMPLEMENTED if 2 in spec.player_counts])
def test_bot_beats_a_random_player(variant: str) -> None:
    """200 two-player matches (one game to the smallest target), the bot in either seat."""
    rules = get_ruleset(variant, **short_options(variant))
    games, won = 200, 0
    for game in range(games):
        bot_seat = game % 2
        policies: list[Policy] = [random_policy, random_policy]
        policies[bot_seat] = bot_policy
        state, _ = play_match(rules, 2, seed=50_000 + game, policies=policies)
        won += state.winner == bot_seat
    rate = won / games
    print(f"{variant}: the bot won {won} of {games} matches against a random player ({rate:.0%})")
    assert rate > 0.75, rate


# ---------------------------------------------------------------- hidden information


def test_bot_source_never_touches_the_state() -> None:
    """engine/bots/ imports no state-level module and reads no hidden State field. The hard
    level alone runs the engine's `apply` on worlds built from its own proposals
    (engine/core/worlds.py), so it may import engine.core.game, and nothing else of the state."""
    forbidden_modules = {"engine.core.state", "engine.core.game", "engine.rules.envido", "engine.rules.flor"}
    hidden_fields = {"dealt", "hands", "flor_holders", "envido_best", "deferred", "shown", "_state"}
    sources = sorted(Path(bot.__file__).parent.glob("*.py"))
    assert len(sources) > 1  # bot.py and its helpers
    for source in sources:
        tree = ast.parse(source.read_text())
        forbidden = forbidden_modules - {"engine.core.game"} if source.name == "hard.py" else forbidden_modules
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.module not in forbidden, node.module
            if isinstance(node, ast.Import):
                assert not {a.name for a in node.names} & forbidden
            if isinstance(node, ast.Attribute):
                assert node.attr not in hidden_fields, f"{source.name} reads .{node.attr}"
            if isinstance(node, ast.Name):
                assert node.id != "State"


def _decisions(state: State, seat: int, seeds: range) -> list[Action | None]:
    v = view(state, seat)
    return [choose_action(v, state.rules, random.Random(s), strict=True) for s in seeds]


def test_same_view_same_action_whatever_the_hidden_cards() -> None:
    """Two deals that differ only in the other seats' cards: seat 0 sees the same view and
    the bot decides the same, seed by seed, though the best play against each deal differs."""
    mine = "3e 2o 7b"
    a, _ = scenario({0: mine, 1: "1e 1b 7e", 2: "4c 5c 6b", 3: "7o 12o 11b"}, n=4, flor=False)
    b, _ = scenario({0: mine, 1: "4e 5b 6o", 2: "1e 1b 11c", 3: "4o 5o 10b"}, n=4, flor=False)
    assert a.hands != b.hands
    assert view(a, 0) == view(b, 0)
    assert _decisions(a, 0, range(40)) == _decisions(b, 0, range(40))
    # Later in the hand, after public actions in both: still equal.
    steps = [(0, "play", "2o"), (1, "truco")]
    a2, _ = act(a, *steps)
    b2, _ = act(b, *steps)
    assert view(a2, 0) == view(b2, 0)
    assert view(a2, 2) != view(b2, 2)  # seat 2's own cards differ: a real difference
    assert _decisions(a2, 0, range(40)) == _decisions(b2, 0, range(40))


def _reshuffle_hidden(state: State, seat: int, rng: random.Random) -> State:
    """The same state with the other seats' unplayed cards dealt among them again (each
    seat keeps its number of cards; played cards stay where they are)."""
    others = [s for s in range(state.n) if s != seat]
    pool = [c for s in others for c in state.hands[s]]
    rng.shuffle(pool)
    hands = list(state.hands)
    dealt = list(state.dealt)
    for s in others:
        k = len(state.hands[s])
        new, pool = tuple(pool[:k]), pool[k:]
        played = tuple(c for c in state.dealt[s] if c not in state.hands[s])
        hands[s], dealt[s] = new, played + new
    return dataclasses.replace(state, hands=tuple(hands), dealt=tuple(dealt))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([2, 4, 6]),
       steps=st.integers(0, 120), flor=st.booleans())
def test_decision_is_a_function_of_the_view(seed: int, n: int, steps: int, flor: bool) -> None:
    rules = get_ruleset("argentino", flor=flor)
    rng = random.Random(seed)
    state, _ = new_match(rules, n, rng)
    for _ in range(steps):
        if state.match_over:
            break
        acts = engine.all_legal_actions(state)
        state, _ = advance(state, rng.choice(acts), rng)
    if state.match_over:
        return
    for seat in range(n):
        other = _reshuffle_hidden(state, seat, random.Random(seed + seat))
        assert view(state, seat) == view(other, seat)
        assert _decisions(state, seat, range(5)) == _decisions(other, seat, range(5))


# ---------------------------------------------------------------- sensible play


_OPTIONAL = {Call.TRUCO, Call.RETRUCO, Call.VALE_CUATRO, Call.ENVIDO, Call.REAL_ENVIDO,
             Call.DOS_REALES_ENVIDO, Call.TRES_REALES_ENVIDO, Call.FALTA_ENVIDO, Call.MAZO}


def _must_act(state: State, seat: int) -> bool:
    return any(a.call not in _OPTIONAL for a in legal_actions(state, seat))


def _scripted(state: State, seat: int) -> Action:
    """A passive opponent: refuses envido, accepts truco, plays its lowest card."""
    acts = legal_actions(state, seat)
    calls = {a.call: a for a in acts}
    if state.envido_status.value == "betting" and Call.NO_QUIERO in calls:
        return calls[Call.NO_QUIERO]
    if Call.QUIERO in calls:
        return calls[Call.QUIERO]
    for want in (Call.DECLARE_ENVIDO, Call.SON_BUENAS, Call.FLOR):
        if want in calls:
            return calls[want]
    plays = [a for a in acts if a.call is Call.PLAY]
    assert plays, acts
    return min(plays, key=lambda a: trick_strength(a.card, state.rules))  # type: ignore[arg-type]


def _bot_actions(state: State, me: int, seed: int, until: Callable[[Action], bool]) -> list[Action]:
    """Run one hand: the bot at `me`, passive scripted players elsewhere; stop when the bot
    makes an action matching `until` or the hand ends. Returns the bot's actions."""
    rng = random.Random(seed)
    deal_no = state.deal_no
    mine: list[Action] = []
    while state.phase in (Phase.PLAY, Phase.FLOR) and state.deal_no == deal_no:
        action = None
        if legal_actions(state, me):
            action = choose_action(view(state, me), state.rules, rng, strict=True)
        if action is not None:
            mine.append(action)
            if until(action):
                break
        else:
            seat = next(s for s in range(state.n) if s != me and _must_act(state, s))
            action = _scripted(state, seat)
        state, _ = apply(state, action)
    return mine


def _is_truco(a: Action) -> bool:
    return a.call in (Call.TRUCO, Call.RETRUCO, Call.VALE_CUATRO)


def _is_envido_bet(a: Action) -> bool:
    return a.call in (Call.ENVIDO, Call.REAL_ENVIDO, Call.FALTA_ENVIDO)


@pytest.mark.parametrize("n", [2, 4])
def test_calls_truco_with_the_two_best_cards(n: int) -> None:
    called = 0
    for seed in range(60):
        state, _ = scenario({0: "1e 7e 4c"}, n=n, flor=False)
        mine = _bot_actions(state, 0, seed, _is_truco)
        called += any(_is_truco(a) for a in mine)
    assert called >= 54, called  # slow play is allowed, now and then


@pytest.mark.parametrize("n", [2, 4])
def test_accepts_truco_with_the_two_best_cards(n: int) -> None:
    for seed in range(60):
        state, _ = scenario({1: "1e 7e 4c"}, n=n, flor=False)
        state, _ = act(state, (0, "truco"))
        mine = _bot_actions(state, 1, seed, lambda a: a.call is not Call.ENVIDO and not _is_envido_bet(a))
        answer = mine[-1]
        assert answer.call in (Call.QUIERO, Call.RETRUCO), (seed, mine)


def test_declines_truco_with_a_hopeless_hand() -> None:
    declined = 0
    for seed in range(100):
        state, _ = scenario({1: "4e 5b 6o"}, n=2, flor=False)
        state, _ = act(state, (0, "truco"))
        mine = _bot_actions(state, 1, seed, lambda a: a.call in (Call.QUIERO, Call.NO_QUIERO, Call.MAZO, Call.RETRUCO))
        declined += mine[-1].call in (Call.NO_QUIERO, Call.MAZO)
    assert declined > 70, declined


def test_declines_a_retruco_with_a_weak_hand_more_often_than_not() -> None:
    """The bot's truco was accepted, it lost the first trick; the other team raises."""
    declined = 0
    for seed in range(100):
        state, _ = scenario({0: "3e 4b 5o", 1: "1e 7o 2c"}, n=2, flor=False)
        state, _ = act(state, (0, "truco"), (1, "quiero"), (0, "play", "3e"),
                       (1, "play", "7o"), (1, "retruco"))
        action = choose_action(view(state, 0), state.rules, random.Random(seed), strict=True)
        assert action is not None
        declined += action.call is Call.NO_QUIERO
    assert declined > 50, declined


@pytest.mark.parametrize("n", [2, 4])
def test_calls_envido_with_33(n: int) -> None:
    called = 0
    for seed in range(50):
        state, _ = scenario({0: "7o 6o 4c"}, n=n, flor=False)
        mine = _bot_actions(state, 0, seed, _is_envido_bet)
        called += any(_is_envido_bet(a) for a in mine)
    assert called >= 45, called


@pytest.mark.parametrize("opening", ["envido", "real_envido", "falta_envido"])
def test_accepts_envido_with_33(opening: str) -> None:
    for seed in range(40):
        state, _ = scenario({1: "7o 6o 4c"}, n=2, flor=False)
        state, _ = act(state, (0, opening))
        action = choose_action(view(state, 1), state.rules, random.Random(seed), strict=True)
        assert action is not None
        assert action.call is not Call.NO_QUIERO, (seed, action)


def test_declines_falta_envido_with_a_weak_envido_when_behind() -> None:
    refused = 0
    for seed in range(40):
        # Seat 1 (team 1) is far behind, and holds an envido of 5.
        state, _ = scenario({1: "5e 12b 4c"}, n=2, flor=False, scores=(20, 4))
        state, _ = act(state, (0, "falta_envido"))
        action = choose_action(view(state, 1), state.rules, random.Random(seed), strict=True)
        assert action is not None
        refused += action.call is Call.NO_QUIERO
    assert refused == 40


def test_accepts_any_envido_when_refusing_loses_the_game() -> None:
    for seed in range(20):
        # Team 0 needs one point: a refused envido gives it the game.
        state, _ = scenario({1: "5e 12b 4c"}, n=2, flor=False, scores=(29, 4))
        state, _ = act(state, (0, "envido"))
        action = choose_action(view(state, 1), state.rules, random.Random(seed), strict=True)
        assert action is not None and action.call is not Call.NO_QUIERO


def _bot_card(state: State, me: int, seed: int) -> Action:
    mine = _bot_actions(state, me, seed, lambda a: a.call is Call.PLAY)
    assert mine and mine[-1].call is Call.PLAY, mine
    return mine[-1]


def test_last_player_wins_with_the_lowest_sufficient_card() -> None:
    for seed in range(30):
        state, _ = scenario({0: "2o 4b 5c", 1: "1e 3c 12b"}, n=2, flor=False)
        state, _ = act(state, (0, "play", "2o"))
        assert str(_bot_card(state, 1, seed).card) == "3c"


def test_last_player_throws_the_lowest_card_when_it_cannot_win() -> None:
    for seed in range(30):
        state, _ = scenario({0: "1e 4b 5c", 1: "7o 3c 12b"}, n=2, flor=False)
        state, _ = act(state, (0, "play", "1e"))
        assert str(_bot_card(state, 1, seed).card) == "12b"


def test_does_not_waste_its_best_card_when_the_partner_wins() -> None:
    """Four players: the partner (seat 1) holds the trick with the 1 of espadas."""
    for seed in range(30):
        state, _ = scenario(
            {0: "4c 5c 6b", 1: "1e 10o 11o", 2: "6c 4o 5b", 3: "7e 3o 4b"}, n=4, flor=False
        )
        state, _ = act(state, (0, "play", "4c"), (1, "play", "1e"), (2, "play", "6c"))
        assert str(_bot_card(state, 3, seed).card) == "4b"


def test_second_trick_is_fought_after_losing_the_first() -> None:
    """After losing trick 1, a last player who can win trick 2 must: the lowest winner."""
    for seed in range(30):
        state, _ = scenario({0: "1e 4b 12c", 1: "7o 3c 5b"}, n=2, flor=False)
        state, _ = act(state, (0, "play", "1e"), (1, "play", "5b"), (0, "play", "12c"))
        assert str(_bot_card(state, 1, seed).card) == "3c"


def test_flor_is_announced() -> None:
    for seed in range(10):
        state, _ = scenario({0: "7e 6e 5e"}, n=2)
        assert state.phase is Phase.FLOR
        action = choose_action(view(state, 0), state.rules, random.Random(seed), strict=True)
        assert action is not None and action.call is Call.FLOR


def test_waits_instead_of_betting_off_turn() -> None:
    """Seat 1 may call truco now (any_time) but need not: with a weak hand it waits."""
    state, _ = scenario({1: "4e 5b 6o"}, n=2, flor=False)
    v = view(state, 1)
    assert v.legal and not bot.is_obliged(v, state.rules)
    assert all(choose_action(v, state.rules, random.Random(s)) is None for s in range(30))


# ---------------------------------------------------------------- calls of future variants


class FutureCall(enum.Enum):
    """Stand-ins for calls the other variants add (the bot sees only their names)."""

    QUIERO_Y_VALE_NUEVE = "quiero_y_vale_nueve"
    ACHICAR = "achicar"
    PIEDRAS = "piedras"
    CON_FLOR_NO_QUIERO = "con_flor_no_quiero"
    A_LEY = "a_ley"
    MANO_DE_ONCE = "mano_de_once"
    CON_LEY_QUIERO = "con_ley_quiero"
    SEIS = "seis"


def _with_legal(v: Any, *acts: Action) -> Any:
    return dataclasses.replace(v, legal=tuple(acts))


def test_unknown_calls_never_crash_and_prefer_accepting() -> None:
    state, _ = scenario({0: "4e 5b 6o"}, n=2, flor=False)
    state, _ = act(state, (1, "truco"))
    v = view(state, 0)
    rules = state.rules
    odd = [Action(0, c) for c in FutureCall if c is not FutureCall.CON_LEY_QUIERO]  # type: ignore[arg-type]
    # Only unknown calls: never a raise, never a false flor claim; a neutral call here.
    for seed in range(20):
        chosen = choose_action(_with_legal(v, *odd), rules, random.Random(seed))
        assert chosen is not None and chosen.call is FutureCall.MANO_DE_ONCE
    # A plain acceptance is preferred to everything unknown; an accepting raise to a raise.
    plain = Action(0, FutureCall.CON_LEY_QUIERO)  # type: ignore[arg-type]
    assert choose_action(_with_legal(v, *odd, plain), rules, random.Random(0)) == plain
    raises = [Action(0, FutureCall.SEIS), Action(0, FutureCall.QUIERO_Y_VALE_NUEVE)]  # type: ignore[arg-type]
    chosen = choose_action(_with_legal(v, *raises), rules, random.Random(0))
    assert chosen is not None and chosen.call is FutureCall.QUIERO_Y_VALE_NUEVE
    # Unknown next to known calls: the known ones are decided on, the unknown ignored.
    mixed = _with_legal(v, *odd, *v.legal)
    for seed in range(20):
        chosen = choose_action(mixed, rules, random.Random(seed), strict=True)
        assert chosen in v.legal
    for call in FutureCall:
        assert bot.call_family(call, rules) in (  # type: ignore[arg-type]
            bot.UNKNOWN, bot.FLOR_CONCEDE, bot.FLOR_ANNOUNCE, bot.FLOR_ACCEPT)
    assert bot.call_family(FutureCall.CON_FLOR_NO_QUIERO, rules) == bot.FLOR_CONCEDE  # type: ignore[arg-type]
    assert bot.call_family(FutureCall.CON_LEY_QUIERO, rules) == bot.FLOR_ACCEPT  # type: ignore[arg-type]


def test_a_new_truco_ladder_call_is_read_from_the_rules() -> None:
    """A Brazilian-like ladder (truco 3/1, then a "seis" worth 6/3): the new call is a truco
    raise by the RuleSet, and a pending "seis" is answered by its ladder values."""
    from engine.core.ruleset import TrucoStep

    base = get_ruleset("argentino", flor=False)
    seis = FutureCall.SEIS
    ladder = (TrucoStep(Call.TRUCO, 3, 1), TrucoStep(seis, 6, 3))  # type: ignore[arg-type]
    rules = dataclasses.replace(base, truco_ladder=ladder)
    assert bot.call_family(seis, base) == bot.UNKNOWN  # type: ignore[arg-type]
    assert bot.call_family(seis, rules) == bot.TRUCO  # type: ignore[arg-type]
    answers = (Action(0, Call.QUIERO), Action(0, Call.NO_QUIERO))
    for hand, accept in (("1e 1b 7e", True), ("4e 5b 6o", False)):
        state, _ = scenario({0: hand}, n=2, flor=False)
        v = dataclasses.replace(view(state, 0), truco_pending="seis", truco_pending_by=1,
                                truco_value=3, legal=answers)
        calls = [choose_action(v, rules, random.Random(s), strict=True) for s in range(20)]
        accepted = sum(1 for a in calls if a is not None and a.call is Call.QUIERO)
        assert accepted == (20 if accept else 0), (hand, calls)
