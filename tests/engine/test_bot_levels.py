"""The bot levels of issue 17 (engine/bots/levels.py): every level legal in every variant,
blind to hidden cards (the hard level's sampling seeded), and the inference behind them."""

from __future__ import annotations

import dataclasses
import random
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import Action, Call, State, advance, get_ruleset, new_match, view
from engine.bots import bot, easy, hard, infer, normal
from engine.core.worlds import NoWorld, Worlds
from engine.testing import act, scenario
from tests.engine.test_bot import IMPLEMENTED, _reshuffle_hidden, play_match, short_options

VARIANTS = [spec.name for spec in IMPLEMENTED]
LEVELS = ("easy", "normal", "hard")


def decide(level: str, state: State, seat: int, rng: random.Random) -> Action | None:
    """A level's decision, strict; hard searches a few worlds with no clock (deterministic)."""
    v = view(state, seat)
    if level == "hard":
        return hard.choose(v, state.rules, rng, worlds=Worlds(state, seat), strict=True,
                           n_worlds=3, time_limit=None)
    if level == "easy":
        return easy.choose(v, state.rules, rng, strict=True)
    return normal.choose(v, state.rules, rng, strict=True)


def level_policy(level: str):  # type: ignore[no-untyped-def]
    def policy(state: State, seat: int, rng: random.Random) -> Action | None:
        v = view(state, seat)
        action = decide(level, state, seat, rng)
        if action is None:
            assert not bot.is_obliged(v, state.rules), f"{level} passed when it had to act"
        else:
            assert action in v.legal, f"{level} chose an illegal {action}"
        return action
    return policy


def test_the_levels_are_easy_normal_hard_and_normal_is_the_default() -> None:
    assert engine.BOT_LEVELS == LEVELS and engine.BOT_DEFAULT_LEVEL == "normal"


# ---------------------------------------------------------------- legal in every variant


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_level_makes_only_legal_moves_in_random_games(variant: str) -> None:
    spec = engine.variants.catalog.variant_spec(variant)
    counts = [n for n in spec.player_counts if n in (2, 3, 4, 6)]

    @settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(n=st.sampled_from(counts), seed=st.integers(0, 2**32 - 1),
           levels=st.lists(st.sampled_from(LEVELS), min_size=6, max_size=6))
    def run(n: int, seed: int, levels: list[str]) -> None:
        rules = get_ruleset(variant, **short_options(variant))
        state, _ = play_match(rules, n, seed, [level_policy(lv) for lv in levels[:n]])
        assert state.match_over

    run()


# ---------------------------------------------------------------- from the view only


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(VARIANTS),
       steps=st.integers(0, 60), level=st.sampled_from(LEVELS))
def test_a_levels_decision_is_a_function_of_the_view(seed: int, variant: str, steps: int,
                                                     level: str) -> None:
    """Every card a seat cannot see is dealt again among the other seats: the view is the
    same, so is every level's decision, seed by seed (the hard level's worlds included)."""
    spec = engine.variants.catalog.variant_spec(variant)
    n = 4 if 4 in spec.player_counts else 2
    rules = get_ruleset(variant, **short_options(variant))
    rng = random.Random(seed)
    state, _ = new_match(rules, n, rng)
    for _ in range(steps):
        if state.match_over:
            return
        # Mostly the normal bot, so hands reach their declarations and later tricks.
        mover = next((s for s in rng.sample(range(n), n) if engine.legal_actions(state, s)))
        action = normal.choose(view(state, mover), rules, rng) or rng.choice(
            engine.legal_actions(state, mover))
        state, _ = advance(state, action, rng)
    if state.match_over or state.needs_deal:
        return
    for seat in range(n):
        if not view(state, seat).legal:
            continue
        other = _reshuffle_hidden(state, seat, random.Random(seed + seat))
        assert view(state, seat) == view(other, seat)
        first = [decide(level, state, seat, random.Random(s)) for s in range(3)]
        again = [decide(level, other, seat, random.Random(s)) for s in range(3)]
        assert first == again


# ---------------------------------------------------------------- inference


def test_a_declared_envido_narrows_the_drawn_hands() -> None:
    state, _ = scenario({0: "4e 5c 6b", 1: "7o 6o 1b"}, n=2, flor=False)
    state, _ = act(state, (0, "envido"), (1, "quiero"))
    for seat in (0, 1):  # each says his value (the engine offers the true one)
        state, _ = engine.apply(state, next(a for a in engine.legal_actions(state, seat)
                                            if a.call is Call.DECLARE_ENVIDO))
    v = view(state, 0)
    rng = random.Random(1)
    (clue,) = infer.clues(v, state.rules)
    assert clue.envido == 33
    for _ in range(30):
        hands = infer.sample_hands(v, state.rules, rng)
        assert state.rules.envido(hands[1], None) == 33
        assert not set(hands[1]) & set(v.own_cards)
    beliefs = infer.beliefs(v, state.rules, rng)
    assert beliefs is not None and beliefs.opponent_cards


def test_a_sung_flor_and_a_played_card_narrow_the_drawn_hands() -> None:
    state, _ = scenario({0: "4e 5c 6b", 1: "1o 7o 3o"}, n=2, flor=True)
    state, _ = act(state, (1, "flor"))
    while view(state, 0).phase != "play" or state.turn != 0:
        v = view(state, state.turn if view(state, state.turn).legal else 0)
        state, _ = engine.apply(state, next(a for a in v.legal if a.call is not Call.MAZO))
    state, _ = act(state, (0, "play", "4e"), (1, "play", "1o"))
    v = view(state, 0)
    rng = random.Random(2)
    for _ in range(30):
        hands = infer.sample_hands(v, state.rules, rng)
        whole = hands[1] + tuple(c for _, c in v.tricks[0] if c.code != v.tricks[0][0][1].code)
        assert state.rules.flor_fn(whole, None) is not None, whole



def test_with_a_muestra_a_declared_envido_narrows_hands_not_yet_shown() -> None:
    """Uruguayan: the opponent said 33 before playing a card (piezas count in the envido):
    every drawn hand is worth 33 with this muestra (they were drawn blind before)."""
    state, _ = scenario({0: "12c 11b 4o", 1: "7o 6o 1b"}, n=2, variant="uruguayo",
                        face_up="3c")
    state, _ = act(state, (0, "envido"), (1, "quiero"))
    while state.envido_status.value == "declaring":
        seat = next(s for s in (0, 1) if engine.legal_actions(state, s))
        state, _ = engine.apply(state, next(a for a in engine.legal_actions(state, seat)
                                            if a.call is Call.DECLARE_ENVIDO))
    v = view(state, 0)
    (clue,) = infer.clues(v, state.rules)
    assert clue.envido == 33 and not clue.played
    rng = random.Random(1)
    for _ in range(30):
        hands = infer.sample_hands(v, state.rules, rng)
        assert state.rules.envido(hands[1], state.face_up) == 33
        assert not set(hands[1]) & (set(v.own_cards) | {state.face_up})


def test_with_a_muestra_a_sung_flor_narrows_hands_not_yet_shown() -> None:
    """Uruguayan: a flor sung before any card is shown: every draw is a flor with this
    muestra, so every one makes a world for the hard level's search."""
    state, _ = scenario({0: "12c 11b 4o", 1: "1o 7o 3o"}, n=2, variant="uruguayo",
                        face_up="3c")
    state, _ = act(state, (1, "flor"))
    v = view(state, 0)
    assert v.phase == "play" and v.legal
    worlds = Worlds(state, 0)
    rng = random.Random(2)
    for _ in range(30):
        hands = infer.sample_hands(v, state.rules, rng)
        assert state.rules.flor_fn(hands[1], state.face_up) is not None, hands[1]
        worlds.make(hands)

def test_an_opponents_played_card_narrows_its_envido() -> None:
    """The mano led the 7 of oros: its envido is at least 7 (and often a 7 with a suit
    partner), so the estimate differs from the plain one."""
    state, _ = scenario({0: "7o 2c 4b", 1: "4e 5e 12c"}, n=2, flor=False)
    state, _ = act(state, (0, "play", "7o"))
    b = infer.beliefs(view(state, 1), state.rules, random.Random(0))
    assert b is not None and min(b.envido_by_seat[0]) >= 7


def test_worlds_refuse_proposals_that_contradict_the_table() -> None:
    state, _ = scenario({0: "4e 5c 6b", 1: "7o 6o 1b"}, n=2, flor=False)
    worlds = Worlds(state, 0)
    seen = engine.parse_cards("4e 5c 6b")
    with pytest.raises(NoWorld):
        worlds.make({1: tuple(seen)})  # my own cards
    with pytest.raises(NoWorld):
        worlds.make({1: tuple(engine.parse_cards("1e 2e"))})  # two cards for three
    made = worlds.make({1: tuple(engine.parse_cards("1e 2e 3e"))})
    assert made.hands[1] == tuple(engine.parse_cards("1e 2e 3e")) and made.hands[0] == state.hands[0]
    assert view(made, 0) == view(state, 0)


def test_hard_keeps_the_card_that_wins_the_last_trick() -> None:
    """Trick 1 lost; trick 2 can be won with the 5 or with the ace of espadas, and only the
    ace beats the 3 still held by the other seat in trick 3: hard never spends the ace."""
    state, _ = scenario({0: "4e 5c 1e", 1: "7o 4c 3b"}, n=2, flor=False)
    state, _ = act(state, (0, "play", "4e"), (1, "play", "7o"), (1, "play", "4c"))
    ace = engine.parse_cards("1e")[0]
    for seed in range(5):
        chosen = hard.choose(view(state, 0), state.rules, random.Random(seed),
                             worlds=Worlds(state, 0), strict=True, n_worlds=4, time_limit=None)
        assert chosen is not None and chosen.card != ace, chosen


def test_a_truco_call_is_read_as_a_strong_hand() -> None:
    """The mano calls truco before any card: the answering seat's beliefs draw the caller's
    cards from the hands that would have called (read_caller), stronger on average than the
    unseen cards."""
    state, _ = scenario({0: "4e 5c 6b", 1: "7o 4c 12b"}, n=2, flor=False)
    state, _ = act(state, (0, "truco"))
    v = view(state, 1)
    b = infer.beliefs(v, state.rules, random.Random(3))
    assert b is not None and b.read_caller and b.opponent_cards
    strength = bot.card_tables(state.rules, None).strength
    mine = {c.code for c in v.own_cards}
    unseen = [strength[c.code] for c in state.rules.deck if c.code not in mine]
    read = sum(b.opponent_cards) / len(b.opponent_cards)
    assert read > sum(unseen) / len(unseen) + 1


def test_an_envido_bet_is_read_from_the_range_that_makes_it() -> None:
    """Facing an envido with 24, today's bot (the issue 6 reading of a call) accepts most of
    the time; normal reads the bet as a hand in the top of the range and declines more."""
    state, _ = scenario({0: "7o 6o 4b", 1: "4e 12c 4c"}, n=2, flor=False)  # seat 1 has 24
    state, _ = act(state, (0, "envido"))
    v = view(state, 1)
    def accepts(choose) -> int:  # type: ignore[no-untyped-def]
        return sum(1 for seed in range(40)
                   if choose(v, state.rules, random.Random(seed)).call is Call.QUIERO)
    assert accepts(normal.choose) < accepts(bot.choose_action)


def test_the_win_chance_favours_the_side_nearer_the_target() -> None:
    from engine.bots import odds
    for a in range(1, 16):
        for b in range(1, 16):
            assert abs(odds.win_chance(a, b) + odds.win_chance(b, a) - 1) < 1e-9
            if a < 15:
                assert odds.win_chance(a, b) > odds.win_chance(a + 1, b)
    assert odds.win_chance(0, 3) == 1.0 and odds.win_chance(3, 0) == 0.0
    # One point is worth more with both sides near the end than at the start.
    assert (odds.win_chance(1, 2) - odds.win_chance(2, 2)
            > odds.win_chance(14, 15) - odds.win_chance(15, 15))


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_lean_view_differs_only_in_what_the_bots_never_read(variant: str) -> None:
    """hard's playouts build lean views (no `awaiting`, no hand guide): the same view
    otherwise, and the same decisions."""
    rules = get_ruleset(variant, **short_options(variant))
    rng = random.Random(11)
    state, _ = new_match(rules, 2, rng)
    blank = {f: getattr(view(state, 0, lean=True), f) for f in (
        "awaiting", "card_marks", "ranking", "count_rule", "own_envido", "own_envido_cards",
        "own_flor", "bets", "truco_steps", "malas", "card_refusals", "call_refusals")}
    for _ in range(80):
        if state.match_over:
            break
        seat = next(s for s in (0, 1) if engine.legal_actions(state, s))
        full, lean = view(state, seat), view(state, seat, lean=True)
        assert dataclasses.replace(full, **blank) == lean
        assert (bot.choose_action(full, rules, random.Random(3))
                == bot.choose_action(lean, rules, random.Random(3)))
        action = normal.choose(full, rules, rng) or full.legal[0]
        state, _ = advance(state, action, rng)


def test_a_lead_without_an_envido_is_read_as_a_low_envido() -> None:
    """The mano led a card and left the envido alone: the rule-based bot bets from about 25,
    so the pie with 24 bets it (today's bot, which reads nothing into the silence, does
    not, bar its rare bluffs)."""
    state, _ = scenario({0: "4b 5c 12o", 1: "4e 12c 4c"}, n=2, flor=False)
    state, _ = act(state, (0, "play", "4b"))
    v = view(state, 1)
    def opens(choose) -> int:  # type: ignore[no-untyped-def]
        return sum(1 for seed in range(40)
                   if choose(v, state.rules, random.Random(seed)).call is Call.ENVIDO)
    assert opens(bot.choose_action) <= 6 and opens(normal.choose) >= 30


def test_hard_with_no_time_left_plays_the_normal_move() -> None:
    """The deadline is checked before every playout: with none left, not one playout runs
    and hard's move is the normal level's (in a spot where its search, given the worlds,
    plays another move)."""
    rules = get_ruleset("argentino", flor=False, target=15, match_games=1)
    state, _ = new_match(rules, 2, random.Random(0))
    v = view(state, 0)
    move = normal.choose(v, rules, random.Random(0), strict=True)
    searched = hard.choose(v, rules, random.Random(0), worlds=Worlds(state, 0), strict=True,
                           n_worlds=20, time_limit=None)
    assert searched != move
    rushed = hard.choose(v, rules, random.Random(0), worlds=Worlds(state, 0), strict=True,
                         time_limit=0.0)
    assert rushed == move


def test_normal_keeps_the_falta_envido_for_when_it_wins_the_game() -> None:
    """Behind 0-10 in a game to 30 with 33 of envido: today's bot opens with the falta
    envido, which it is mostly refused (1 point); normal bets a plain envido, mostly taken.
    Needing only what the falta is worth, normal bets the falta too."""
    hands = {0: "7o 6o 4b", 1: "4e 12c 5b"}
    for scores, falta in (((0, 10), False), ((25, 20), True)):
        state, _ = scenario(hands, n=2, flor=False, target=30, scores=scores)
        v = view(state, 0)
        calls = {normal.choose(v, state.rules, random.Random(seed)).call for seed in range(10)}
        today = {bot.choose_action(v, state.rules, random.Random(seed)).call for seed in range(10)}
        if falta:
            assert calls == {Call.FALTA_ENVIDO}
        else:
            assert Call.FALTA_ENVIDO in today and Call.FALTA_ENVIDO not in calls


def test_a_side_that_wins_by_our_refusals_is_read_as_a_bluffer() -> None:
    """Seat 1 wins two hands by a truco seat 0 refused: its bets no longer read as the
    rule-based bot's (normal answers its next truco on the plain estimate)."""
    rules = get_ruleset("argentino", flor=False)
    rng = random.Random(4)
    state, _ = new_match(rules, 2, rng)

    def seat_1_calls_truco(state: State) -> State:
        while not any(a.call is Call.TRUCO for a in engine.legal_actions(state, 1)):
            state, _ = advance(state, next(a for a in engine.legal_actions(state, 0)
                                           if a.call is Call.PLAY), rng)
        state, _ = advance(state, next(a for a in engine.legal_actions(state, 1)
                                       if a.call is Call.TRUCO), rng)
        return state

    for hands in (1, 2):
        state = seat_1_calls_truco(state)
        answer = view(state, 0)
        assert not normal.bluffed(answer)
        state, _ = advance(state, next(a for a in answer.legal if a.call is Call.NO_QUIERO), rng)
        assert infer.bets_refused(view(state, 0)) == (hands, hands)
        assert infer.bets_refused(view(state, 1)) == (0, hands)
    state = seat_1_calls_truco(state)
    answer = view(state, 0)
    assert normal.bluffed(answer)
    read = infer.beliefs(answer, rules, random.Random(0))
    assert read is not None and read.read_caller
    plain = infer.beliefs(answer, rules, random.Random(0), read_bets=False)
    assert plain is None or not plain.read_caller


def test_a_side_that_goes_to_the_mazo_is_not_read_as_the_rule_based_bot() -> None:
    """Seat 1 leaves its first hand by the mazo (the rule-based bot never does in a duel):
    its bets no longer read as that bot's while the mazo is more than a quarter of the
    game's hands; after three hands played out, one in four, they are read again."""
    rules = get_ruleset("argentino", flor=False)
    rng = random.Random(5)
    state, _ = new_match(rules, 2, rng)

    def finish_hand(state: State, leave: bool) -> State:
        deal = state.deal_no
        while state.deal_no == deal and not state.needs_deal:
            seat = next(s for s in (0, 1) if engine.legal_actions(state, s))
            legal = engine.legal_actions(state, seat)
            if seat == 1 and leave and any(a.call is Call.MAZO for a in legal):
                action = next(a for a in legal if a.call is Call.MAZO)
            else:
                action = next((a for a in legal if a.call is Call.PLAY),
                              next((a for a in legal if a.call is Call.QUIERO), legal[0]))
            state, _ = advance(state, action, rng)
        return state

    assert not normal.bluffed(view(state, 0))  # nothing seen yet
    state = finish_hand(state, True)
    v = view(state, 0)
    assert infer.hands_left(v) == 1 and infer.hands_left(view(state, 1)) == 0
    assert normal.bluffed(v) and not normal.bluffed(view(state, 1))
    for played in (2, 3):
        state = finish_hand(state, False)
        assert len(view(state, 0).history) == played and normal.bluffed(view(state, 0))
    state = finish_hand(state, False)
    v = view(state, 0)
    assert infer.hands_left(v) == 1 and len(v.history) == 4
    assert not normal.bluffed(v)
