"""The log's events (protocol/log_events.py records) told in the session's language."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from rich.text import Text

import protocol as p

from tui.calls import ANSWERS, call_label
from tui.cards import card_text
from tui.hand_points import RAISES, TRUCO_CALLS, Scored, hand_scored, hand_totals, points_reason, reason_text
from tui.i18n import Translator, names_said
from tui.table_model import TableModel


def team_name(tr: Translator, model: TableModel, team: int | None,
              teams: Sequence[int] | None = None) -> str:
    """Us / Them for a player (Team 1 / Team 2 for a spectator). `teams` is the team of each
    seat in the hand the event belongs to, where it differs from the current hand's."""
    if team is None:
        return tr("table.parda")
    mine = model.my_team() if teams is None or model.seat is None else teams[model.seat]
    if mine is None:
        if model.update is not None and len(model.update.seats) == 2:
            return model.name(team)  # one against one: a "team" is that player (no "Dupla 1")
        return tr("table.team_n", n=team + 1)
    return tr("table.us") if team == mine else tr("table.them")


def side_name(tr: Translator, model: TableModel, team: int | None,
              teams: Sequence[int] | None = None) -> str:
    """The side a line is about. In the Uruguayan three-player game (a score per player)
    this hand's "Them" is another pair next hand: the line names the players instead."""
    seat_teams = teams or model.view.teams or ()
    if len(seat_teams) == 3 and team is not None:
        players = [model.name(s) for s, t in enumerate(seat_teams) if t == team]
        return names_said(tr, players)
    return team_name(tr, model, team, teams)


def holder_name(tr: Translator, model: TableModel, entry: int, holders: Sequence[Sequence[int]]) -> str:
    """Who one score belongs to: a team (Us / Them) or, with a score per player (the
    Uruguayan three-player game), that player: never a team index read as a seat."""
    if len(holders) == 2:
        return team_name(tr, model, entry)
    return " + ".join(model.name(s) for s in holders[entry]) if entry < len(holders) else "?"


def score_text(tr: Translator, score: int, malas: int) -> str:
    """A score as players say it: "12 malas", "1 buena" in the Argentine game to 30 (the view's
    ``malas`` boundary), the plain number everywhere else."""
    if not malas:
        return str(score)
    if score <= malas:
        return str(tr("score.mala" if score == 1 else "score.malas", n=score))
    buenas = score - malas
    return str(tr("score.buena" if buenas == 1 else "score.buenas", n=buenas))


def log_lines(tr: Translator, model: TableModel, events: Iterable[p.LogEvent], french: bool,
              ascii_only: bool = False) -> list[Text]:
    """The log lines of a run of events. A move the bot made for a seat (its timer ran out,
    or its player is away) is one line that says so: "Time's up: the bot played 7e for ana"."""
    return log_lines_after(tr, model, events, french, ascii_only)[0]


def log_lines_after(tr: Translator, model: TableModel, events: Iterable[p.LogEvent], french: bool,
                    ascii_only: bool = False, hand: HandContext | None = None) -> tuple[list[Text], HandContext]:
    """``log_lines`` of events that follow others of their hand (``hand``: what those told,
    as this returned it for them), and what the hand has told after these: a log written
    update by update names a refused bet and adds up a hand as one written at once."""
    out: list[Text] = []
    covered: p.SeatCovered | None = None
    hand = hand or HandContext()
    for event in events:
        hand = _hand_of(model, event, hand)
        if isinstance(event, p.SeatCovered):
            if covered is not None:
                out.append(_covered_alone(tr, model, covered))
            covered = event
            continue
        line: Text | None
        if covered is not None and isinstance(event, p.Acted) and event.seat == covered.seat:
            line = _covered_act(tr, model, covered, event, french, ascii_only, hand)
        else:
            if covered is not None:
                out.append(_covered_alone(tr, model, covered))
            line = event_line(tr, model, event, french, ascii_only, hand)
        covered = None
        if line is not None:
            out.append(line)
    if covered is not None:
        out.append(_covered_alone(tr, model, covered))
    return out, hand


@dataclass(frozen=True)
class HandContext:
    """What a log line needs to know of its event's hand, which need not be the current one
    (a log read again after a reconnect); None: as in the current view."""

    deal_kind: str | None = None  # a mão de onze's "quiero" is "play for 3"
    teams: tuple[int, ...] | None = None  # the team of each seat in that hand
    deal_no: int | None = None  # that hand's deal number
    raised: str | None = None  # the hand's last truco call so far (a refused one is named)
    truco_waits: bool = False  # that call still waits for its answer
    envido_waits: bool = False  # an envido (or envite) waits for its answer: the next quiero is its
    raise_answers: bool = False  # the last truco call raised one that waited: "Quiero retruco"
    scored: tuple[Scored, ...] = ()  # the hand's points so far (its closing line adds them up)
    duel: int | None = None  # a pica-pica hand's duel (each is played and closed as a hand of its own)

    def is_current(self, model: TableModel) -> bool:
        """The event belongs to the hand the view shows (so the view may tell more of it)."""
        return self.deal_no is None or self.deal_no == model.view.deal_no


def _hand_of(model: TableModel, event: p.LogEvent, hand: HandContext) -> HandContext:
    """The context after `event`. Teams change only in the Uruguayan three-player game,
    where the mano plays alone against the other two (docs/RULES.md 2.12.2): "Us" in an
    earlier hand's line must be who was "us" then, not in the hand now."""
    if isinstance(event, p.HandDealt):
        # A mão de onze starts with its truco waiting for the team on eleven (docs/RULES.md OP-BR-11)
        return replace(hand, deal_kind=event.deal_kind, deal_no=event.deal_no, raised=None, scored=(), duel=None,
                       truco_waits=event.deal_kind == "eleven", envido_waits=False, raise_answers=False)
    if isinstance(event, p.Acted):
        return _said(hand, event.call)
    if isinstance(event, p.PointsScored):
        scored = (*hand.scored, Scored(event.team, event.points, event.reason, hand.raised))
        # Estar cantando, "privado": the hand goes on with the privo's truco waiting for the
        # cantando team (docs/RULES.md 4.12.1); had the cantando team won, the hand is over.
        privo = event.reason in ("cantando_envite", "cantando_flor")
        return replace(hand, scored=scored, truco_waits=hand.truco_waits or privo)
    if isinstance(event, p.HandStarted) and hand.deal_kind == "pica_pica":
        # A new duel: its own bets and its own points (the closing line is the duel's).
        return replace(hand, duel=event.duel, scored=(), raised=None, truco_waits=False, envido_waits=False,
                       raise_answers=False)
    n = len(model.view.teams)
    if n == 3 and isinstance(event, p.HandStarted):
        return replace(hand, teams=tuple(0 if seat == event.mano else 1 for seat in range(n)))
    return hand


# What opens an envido (or the Venezuelan envite) and what closes it unanswered: an envido
# or flor suspends a pending truco, and the quiero said next answers it, not the truco
# (docs/RULES.md 1.8.1).
ENVIDO_OPENERS = frozenset(("envido", "real_envido", "dos_reales_envido", "tres_reales_envido", "falta_envido",
                            "envido_puntos", "hasta_igualar", "las_que_pintan"))
ENVIDO_CLOSERS = frozenset(("flor", "tengo_flor", "declare_envido", "son_buenas"))


def _said(hand: HandContext, call: str) -> HandContext:
    if call in TRUCO_CALLS:
        return replace(hand, raised=call, truco_waits=True, raise_answers=hand.truco_waits)
    if call in ENVIDO_OPENERS:
        return replace(hand, envido_waits=True)
    if call in ANSWERS:
        return replace(hand, envido_waits=False) if hand.envido_waits else replace(hand, truco_waits=False)
    if call in ENVIDO_CLOSERS:
        return replace(hand, envido_waits=False)
    return hand


def said_in_hand(tr: Translator, model: TableModel, events: Iterable[p.LogEvent]) -> dict[int, str]:
    """What each seat said last in a run of a hand's events ("Quiero retruco", "Envido 5
    piedras"), in the words the log uses; a new pica-pica duel starts afresh."""
    said: dict[int, str] = {}
    hand = HandContext()
    for event in events:
        hand = _hand_of(model, event, hand)
        if isinstance(event, p.HandStarted):
            said.clear()  # what was said in the last duel is over
        elif isinstance(event, p.Acted) and event.call not in ("play", "play_blind", "discard"):
            said[event.seat] = act_words(tr, model, event, hand)
    return said


def _covered_alone(tr: Translator, model: TableModel, event: p.SeatCovered) -> Text:
    why = event.reason if event.reason in ("away", "left", "gone") else "time"
    return Text(tr(f"log.covered.{why}", who=model.name(event.seat)), style="bold yellow")


def _covered_act(tr: Translator, model: TableModel, covered: p.SeatCovered, event: p.Acted, french: bool,
                 ascii_only: bool, hand: HandContext) -> Text:
    why = "away" if covered.reason == "away" else "time"
    who = model.name(event.seat)
    if event.card and event.call in ("play", "play_blind"):
        card = card_text(event.card, french=french, ascii_only=ascii_only)
        return _with(tr(f"log.covered_play.{why}", who=who, card="\0"), card, "bold yellow")
    said = act_words(tr, model, event, hand)
    return Text(tr(f"log.covered_call.{why}", who=who, call=said), style="bold yellow")


def _with(template: str, inner: Text, style: str) -> Text:
    """`template` with its one NUL replaced by `inner` (a card keeps its colours)."""
    before, _, after = template.partition("\0")
    line = Text(before, style=style)
    line.append_text(inner)
    line.append(after, style=style)
    return line


def act_words(tr: Translator, model: TableModel, event: p.Acted,
              hand: HandContext | None = None) -> str:
    """What a player said, with its number where the call has one (the Venezuelan envite's
    piedras: "Envido 5 piedras"; a declared envido: "27"). `hand`: the event's hand up to
    and with it (its kind when it is not the current one: a mão de onze's quiero is "play
    for 3"; whether a raise answered a bet: "Quiero retruco", else "Retruco")."""
    variant = model.view.variant
    hand = hand or HandContext()
    deal_kind = hand.deal_kind if hand.deal_kind is not None else model.view.deal_kind
    call, value = event.call, event.value
    if call == "declare_envido":
        return str(value)
    if call in ("envido_puntos", "piedras") and value is not None:
        return str(tr(f"log.{call}", n=value))
    return call_label(tr, variant, call, deal_kind=deal_kind, answering=call in RAISES and hand.raise_answers)


def event_line(tr: Translator, model: TableModel, event: p.LogEvent, french: bool, ascii_only: bool = False,
               hand: HandContext | None = None) -> Text | None:
    """One log line for an event, or None for events that need no line. `hand`: what is
    known of the event's hand, if it may not be the current one (see log_lines)."""
    name = model.name
    hand = hand or HandContext()
    teams = hand.teams

    solo = len(teams or model.view.teams or ()) == 3

    def side(team: int | None) -> str:
        return side_name(tr, model, team, teams)

    def card(text: str) -> Text:
        return card_text(text, french=french, ascii_only=ascii_only)

    if isinstance(event, p.Acted):
        line = Text(f"{name(event.seat)}: ", style="bold")
        if event.call in ("play", "play_blind") and event.card:
            line.append_text(card(event.card))
        elif event.call == "discard":
            line.append(tr("log.discard"))  # the laid-away card stays face down
        else:
            quiet = event.call in ("declare_envido", "son_buenas", "pass_flor", "pasar")
            words = act_words(tr, model, event, hand)
            line.append(words if quiet else tr("log.exclaim", words=words))  # es: ¡Truco!
        return line
    if isinstance(event, p.SeatCovered):
        return _covered_alone(tr, model, event)
    if isinstance(event, p.HandDealt):
        line = Text(tr("log.dealt", n=event.deal_no, dealer=name(event.dealer)), style="dim")
        if event.face_up:
            label = f"table.face_up.{model.view.variant}"  # muestra, vira
            line.append("  " + (tr(label) if tr.has_default(label) else tr("table.face_up")) + " ")
            line.append_text(card(event.face_up))
        if event.deal_kind in ("eleven", "blind", "pica_pica"):
            line.append("  " + tr(f"table.hand.{event.deal_kind}"), style="bold cyan")
        return line
    if isinstance(event, p.HandStarted):
        players = event.players
        if len(players) == 2 and len(model.view.teams) > 2:
            # A pica-pica duel: two of the six play this hand.
            return Text(tr("log.duel", n=event.duel + 1, a=name(players[0]), b=name(players[1])), style="dim")
        if len(players) == 3 and solo:
            # The Uruguayan three-player game: who plays with whom changes every hand.
            a, b = (name(s) for s in players if s != event.mano)
            return Text(tr("log.solo", mano=name(event.mano), a=a, b=b), style="dim")
        return None
    if isinstance(event, p.TrickEnded):
        winner = event.winner_team
        if winner is None or solo:  # a parda; or three players: the taker is the side
            taker = side(None) if winner is None else name(event.next_leader)
            line = Text(tr("log.trick", n=event.number, team=taker), style="cyan")
        else:  # a trick is taken by a player (who leads the next one): name him, and his side
            who, team = name(event.next_leader), side(winner)
            # (a watcher of a duel knows each side by its player's name: said once)
            line = Text(tr("log.trick", n=event.number, team=who) if who == team else
                        tr("log.trick_by", n=event.number, who=who, team=team), style="cyan")
        passed = [s for n, s in model.view.passed_cards if n == event.number]
        if passed and hand.is_current(model):
            # Venezuelan: a third card above one's second has no value (001 L45).
            line.append(" " + tr("log.carta_pasada", names=names_said(tr, [name(s) for s in passed])), style="cyan")
        return line
    if isinstance(event, p.PointsScored):
        return Text(tr("log.points", team=side(event.team), points=event.points,
                       reason=points_reason(tr, event.reason, event.points, hand.raised)), style="bold yellow")
    if isinstance(event, p.PointsWithheld):
        return Text(withheld_text(tr, model, event, teams), style="bold red")
    if isinstance(event, p.FlorAnswered):
        key = "log.flor_answered_yes" if event.holds else "log.flor_answered_no"
        return Text(tr(key, team=side(event.team)), style="bold magenta")
    if isinstance(event, p.CardsShown):
        line = Text(tr("log.shown", who=name(event.seat), reason=reason_text(tr, event.reason)) + " ")
        for shown in event.cards:
            line.append_text(card(shown))
            line.append(" ")
        return line
    if isinstance(event, p.HandEnded):
        # Each side's total for the hand and its parts (envido, flor, truco), the winner first.
        totals = hand_totals(tr, hand.scored, side, event.winner_team)
        if hand.duel is not None:  # one duel of a pica-pica hand: its own points
            n = hand.duel + 1
            return Text(tr("log.duel_over", n=n, totals=totals) if totals else tr("log.duel_over_plain", n=n),
                        style="bold")
        return Text(tr("log.hand_over", totals=totals) if totals else tr("log.hand_over_plain"), style="bold")
    if isinstance(event, p.GameEnded):
        names = _solo_winners(model, event.scores, model.view.target)
        return Text(tr("log.game_over", team=names or side(event.winner_team)), style="bold green")
    if isinstance(event, p.MatchEnded):
        names = _solo_winners(model, event.games_won, model.view.match_games)
        if names:
            return Text(tr("log.match_over_names", names=names), style="bold green")
        return Text(tr("log.match_over", team=side(event.winner_team)), style="bold green")
    return None  # the match start: the table's header says it


def _solo_winners(model: TableModel, totals: tuple[int, ...], reached: int) -> str | None:
    """With a score per player (the Uruguayan three-player game) a game or match is won by
    players, not by this hand's "Them": the names of those whose total reached the mark.
    None where scores are kept by team."""
    if len(totals) <= 2:
        return None
    seats = [s for s, total in enumerate(totals) if total >= reached]
    return ", ".join(model.name(s) for s in seats) or None


def withheld_text(tr: Translator, model: TableModel, event: p.PointsWithheld,
                  teams: Sequence[int] | None = None) -> str:
    """Points won but not collected (Venezuelan hidden flor), with the rule that says so."""
    rule = event.rule
    key = f"rule.{rule}"
    return str(tr("log.withheld", team=side_name(tr, model, event.team, teams), points=event.points,
                  reason=reason_text(tr, event.reason),
                  rule=tr(key) if tr.has(key) or tr.has_default(key) else rule))


def hand_summary(tr: Translator, model: TableModel, french: bool, ascii_only: bool = False) -> Text:
    """After a hand: each side's total and its parts, as the log's closing line says them
    (from the events of that hand), then the points won but withheld."""
    events = model.last_hand_events
    ended = next((e for e in reversed(events) if isinstance(e, p.HandEnded)), None)
    parts = Text(hand_totals(tr, hand_scored(events), lambda team: side_name(tr, model, team),
                             ended.winner_team if ended is not None else None))
    for event in events:
        if isinstance(event, p.PointsWithheld):
            if parts:
                parts.append(" · ")
            parts.append(withheld_text(tr, model, event), style="red")
    return parts
