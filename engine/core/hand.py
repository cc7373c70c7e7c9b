"""The hand's life cycle: the empty match, a deal applied, a hand started, ended, and the
game and match ends that follow. What a variant adds to it goes through its RuleSet's hooks
(core/hooks.py)."""

from __future__ import annotations

from engine.core.actions import Action, Deal
from engine.core.cards import Card
from engine.core.errors import IllegalAction
from engine.core.events import (
    CardsShown,
    Event,
    GameEnded,
    HandDealt,
    HandEnded,
    HandStarted,
    MatchEnded,
    PointsScored,
    Scoring,
)
from engine.core.ledger import add_points, credit, truco_value
from engine.core.ruleset import RuleSet
from engine.core.state import NO_TEAM, DealKind, EnvidoStatus, FlorStatus, HandSummary, Phase, State, Work, freeze, thaw


def initial_state(rules: RuleSet, n_players: int, first_dealer: int) -> State:
    empty: tuple[tuple[Card, ...], ...] = tuple(() for _ in range(n_players))
    zeros = (0,) * holder_count(rules, n_players)
    # Every field is set here (freeze refuses a missing one); mypy checks each name.
    w = object.__new__(Work)
    w.rules, w.n, w.phase, w.scores, w.games_won = rules, n_players, Phase.DEAL, zeros, zeros
    w.game_no, w.dealer, w.deal_no = 1, first_dealer, 0
    w.deal_kind = DealKind.REDONDA if n_players == 6 else DealKind.NORMAL
    w.next_pica, w.duel, w.dealt, w.face_up, w.winner, w.game_winner = False, 0, empty, None, None, None
    w.history, w.deferred, w.players, w.mano, w.hands = (), (), (), -1, empty
    w.tricks, w.trick_results, w.current, w.leader, w.turn = (), (), (), -1, -1
    w.truco_level = w.truco_pending = 0
    w.truco_by = w.truco_right = NO_TEAM
    w.envido_status, w.envido_calls, w.envido_by, w.envido_decl = EnvidoStatus.CLOSED, (), NO_TEAM, ()
    w.envido_best, w.envido_barred, w.envido_result = -1, frozenset(), None
    w.flor_status, w.flor_holders, w.flor_announced = FlorStatus.NONE, (), ()
    w.flor_idx = w.flor_level = w.flor_passes = 0
    w.flor_by = w.flor_conceded = w.flor_cf_by = NO_TEAM
    w.flor_accepted, w.flor_result, w.shown = False, None, ()
    w.raise_barred, w.team_of = False, tuple(s % 2 for s in range(n_players))
    w.active, w.trick_winners, w.variant_hand = (), (), None
    w.truco_seat = w.envido_seat = w.flor_seat = -1
    return freeze(w)


def holder_count(rules: RuleSet, n: int) -> int:
    """Score holders: two teams, or the three seats of the Uruguayan 3-player game."""
    return n if solo_mano(rules, n) else 2


def solo_mano(rules: RuleSet, n: int) -> bool:
    """The Uruguayan 3-player game: the mano alone, with a fourth card to discard."""
    return rules.solo_mano_three and n == 3


def eleven_kind(scores: tuple[int, ...], target: int) -> DealKind:
    """Brazilian eleven rules (docs/RULES.md 3.11): one team on 11, or both (blind hand)."""
    on = [s == target - 1 for s in scores]
    if all(on):
        return DealKind.BLIND
    return DealKind.ELEVEN if any(on) else DealKind.NORMAL


def apply_deal(state: State, d: Deal) -> tuple[State, list[Event]]:
    if state.phase is not Phase.DEAL:
        raise IllegalAction("it is not time to deal")
    rules = state.rules
    sizes = [rules.cards_per_hand] * state.n
    if solo_mano(rules, state.n):
        sizes[(state.dealer + 1) % state.n] += 1
    if len(d.hands) != state.n or [len(h) for h in d.hands] != sizes:
        raise IllegalAction(f"a deal gives {rules.cards_per_hand} cards to each of {state.n} seats")
    seen = [c.code for h in d.hands for c in h] + ([] if d.face_up is None else [d.face_up.code])
    codes = set(seen)
    if len(codes) != len(seen) or not codes <= rules.deck_codes:
        raise IllegalAction("a deal must use distinct cards of the deck")
    if (d.face_up is not None) != rules.has_face_up:
        raise IllegalAction("wrong face-up card for this variant")
    w = thaw(state)
    if w.game_winner is not None:
        w.scores = (0,) * len(w.scores)
        w.game_no += 1
        w.history = ()
        w.next_pica = False
        w.game_winner = None
    w.deal_no += 1
    if state.n == 6:
        # Pica-pica stops once a team has 10 buenas (25 of 30; target - 5 in general).
        pica_allowed = max(w.scores) < rules.target - 5
        w.deal_kind = DealKind.PICA_PICA if (w.next_pica and pica_allowed) else DealKind.REDONDA
        w.next_pica = w.deal_kind is DealKind.REDONDA
    if rules.eleven_rule:
        w.deal_kind = eleven_kind(w.scores, rules.target)
    w.dealt = d.hands
    w.hands = d.hands
    w.face_up = d.face_up
    w.duel = 0
    events: list[Event] = [HandDealt(w.deal_no, w.dealer, w.deal_kind.value, d.hands, d.face_up)]
    start_hand(w, events)
    return freeze(w), events


def start_hand(w: Work, events: list[Event]) -> None:
    n, d = w.n, w.dealer
    if w.deal_kind is DealKind.PICA_PICA:
        # Duels of opposite seats: mano vs his opposite, then their right-hand neighbours,
        # then the dealer vs his opposite (docs/RULES.md 1.12.6; duel mano per OP-AR-21).
        first = (d + 1 + w.duel) % n
        w.players = (first, (first + 3) % n)
    else:
        w.players = tuple((d + 1 + i) % n for i in range(n))
    w.mano = w.players[0]
    if solo_mano(w.rules, n):
        w.team_of = tuple(0 if s == w.mano else 1 for s in range(n))
    w.tricks = ()
    w.trick_results = ()
    w.current = ()
    w.leader = w.turn = w.mano
    w.truco_level = w.truco_pending = 0
    w.truco_by = w.truco_right = NO_TEAM
    w.truco_seat = w.envido_seat = -1
    w.envido_status = EnvidoStatus.OPEN
    w.envido_calls = ()
    w.envido_by = NO_TEAM
    w.envido_decl = ()
    w.envido_best = -1
    w.envido_barred = frozenset()
    w.envido_result = None
    w.flor_result = None
    w.shown = ()
    w.active = w.players
    w.trick_winners = ()
    w.variant_hand = None
    w.phase = Phase.PLAY
    if not w.rules.envido_ladder:
        w.envido_status = EnvidoStatus.CLOSED  # a game without envido (Brazil)
    w.raise_barred = w.deal_kind in (DealKind.ELEVEN, DealKind.BLIND)
    if w.deal_kind is DealKind.ELEVEN:
        # The eleven rule is an offer the team on 11 answers like a truco from the other
        # team: quiero plays the hand for 3, no quiero gives the others 1 (docs/RULES.md 3.11).
        on_eleven = 0 if w.scores[0] == w.rules.target - 1 else 1
        w.truco_pending = 1
        w.truco_by = 1 - on_eleven
    events.append(HandStarted(w.mano, w.players, w.duel))
    if solo_mano(w.rules, n) and len(w.hands[w.mano]) > w.rules.cards_per_hand:
        w.phase = Phase.DISCARD  # flor is known only once the mano has kept his three
        w.turn = -1
        return
    w.rules.hooks.start_flor(w, events)


def discard(w: Work, events: list[Event], action: Action) -> None:
    """The mano lays one card away, face down and out of play (OP-UY-6); the hand then
    starts as usual, with envido and flor counted on the three cards he kept."""
    seat = action.seat
    kept = tuple(c for c in w.hands[seat] if c != action.card)
    w.hands = w.hands[:seat] + (kept,) + w.hands[seat + 1 :]
    w.dealt = w.dealt[:seat] + (kept,) + w.dealt[seat + 1 :]
    w.phase = Phase.PLAY
    w.turn = w.leader = w.mano
    w.rules.hooks.start_flor(w, events)


# What the tricks of a hand score, by deal: the special Brazilian hands are named for what
# they are (docs/RULES.md 3.11): nobody called truco in a mão de onze (the team on 11 chose to
# play it for 3) nor in the blind mão de ferro.
HAND_POINTS = {DealKind.ELEVEN: Scoring.MAO_DE_ONZE, DealKind.BLIND: Scoring.MAO_DE_FERRO}


def end_hand(
    w: Work, events: list[Event], winner: int | None, reason: Scoring, points: int | None = None
) -> None:
    """Finish the hand: truco points (unless the game already ended), proofs, next step."""
    game_over = reason == Scoring.GAME_OVER
    truco_points = 0
    # Points a variant kept for the end of the hand first (Venezuelan a ley, 001 L22).
    game_over = w.rules.hooks.before_hand_end(w, events, game_over)
    if not game_over and winner is not None:
        truco_points = truco_value(w) if points is None else points
        if points is None and w.truco_level and w.rules.truco_ladder[w.truco_level - 1].wins_game:
            # vale el juego accepted: the winner wins the game whatever the score (001 L36)
            truco_points = max(w.rules.target - w.scores[winner], 1)
        why = HAND_POINTS.get(w.deal_kind, Scoring.TRUCO) if reason == Scoring.TRICKS else reason
        truco_points = w.rules.hooks.truco_points(w, events, winner, truco_points, why)
        game_over = credit(w, events, winner, truco_points, why)
    for seat, cards in w.shown:
        kind = "maldon" if reason == Scoring.MALDON else "flor" if len(cards) == 3 else "envido"
        kind = w.rules.hooks.shown_kind(w, seat, kind)
        events.append(CardsShown(seat, cards, kind))
    if w.rules.simultaneous and not game_over:
        for team, pts, why in w.deferred:
            add_points(w, team, pts)
            events.append(PointsScored(team, pts, why, w.scores))
        w.deferred = ()
        target = w.rules.target
        a, b = w.scores
        game_over = (a >= target or b >= target) and a != b
    events.append(HandEnded(winner, truco_points, reason, w.scores))
    w.history = w.history + (
        HandSummary(w.deal_no, w.duel, winner, truco_points, w.envido_result, w.flor_result,
                    reason, w.shown, w.rules.hooks.penalties(w)),
    )
    w.turn = -1
    if game_over:
        end_game(w, events)
        return
    if w.deal_kind is DealKind.PICA_PICA and w.duel < 2:
        w.duel += 1
        start_hand(w, events)
        return
    w.phase = Phase.DEAL
    w.dealer = (w.dealer + w.rules.deal_step) % w.n


def end_hand_now(w: Work, events: list[Event]) -> None:
    """The game was decided by envido or flor points: the hand stops at once (RULES 1.10)."""
    end_hand(w, events, None, Scoring.GAME_OVER)


def end_game(w: Work, events: list[Event]) -> None:
    if len(w.scores) == 2:
        a, b = w.scores
        winner = 0 if a > b else 1
        won_by: tuple[int, ...] = (winner,)
    else:
        # 3 players: the seats that reached the target (partners together), OP-UY-5; the
        # event's team is their team in the hand that ended the game.
        won_by = tuple(s for s in range(w.n) if w.scores[s] >= w.rules.target)
        winner = w.team_of[won_by[0]]
    won = list(w.games_won)
    for h in won_by:
        won[h] += 1
    w.games_won = tuple(won)
    events.append(GameEnded(winner, w.scores, w.games_won))
    w.deferred = ()
    if max(w.games_won[h] for h in won_by) >= w.rules.match_games:
        w.phase = Phase.MATCH_OVER
        w.winner = winner
        events.append(MatchEnded(winner, w.games_won))
        return
    # The final score stays visible until the next game's first deal resets it.
    w.game_winner = winner
    w.phase = Phase.DEAL
    w.dealer = (w.dealer + w.rules.deal_step) % w.n
