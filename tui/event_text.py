"""Engine events (as the protocol carries them) told in the session's language."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from rich.text import Text

from tui.calls import call_label
from tui.cards import card_text
from tui.table_model import TableModel


def team_name(tr, model: TableModel, team: int | None,
              teams: Sequence[int] | None = None) -> str:  # type: ignore[no-untyped-def]
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


def side_name(tr, model: TableModel, team: Any,
              teams: Sequence[int] | None = None) -> str:  # type: ignore[no-untyped-def]
    """The side a line is about. In the Uruguayan three-player game (a score per player)
    this hand's "Them" is another pair next hand: the line names the players instead."""
    seat_teams = teams or model.view.teams or ()
    if len(seat_teams) == 3 and team is not None:
        players = [model.name(s) for s, t in enumerate(seat_teams) if t == team]
        return tr("table.pair", a=players[0], b=players[1]) if len(players) == 2 else ", ".join(players)
    return team_name(tr, model, team, teams)


def holder_name(tr, model: TableModel, entry: int, holders: list[list[int]]) -> str:  # type: ignore[no-untyped-def]
    """Who one score belongs to: a team (Us / Them) or, with a score per player (the
    Uruguayan three-player game), that player: never a team index read as a seat."""
    if len(holders) == 2:
        return team_name(tr, model, entry)
    return " + ".join(model.name(s) for s in holders[entry]) if entry < len(holders) else "?"


def score_text(tr, score: int, malas: int) -> str:  # type: ignore[no-untyped-def]
    """A score as players say it: "12 malas", "1 buena" in the Argentine game to 30 (the view's
    ``malas`` boundary), the plain number everywhere else."""
    if not malas:
        return str(score)
    if score <= malas:
        return str(tr("score.mala" if score == 1 else "score.malas", n=score))
    buenas = score - malas
    return str(tr("score.buena" if buenas == 1 else "score.buenas", n=buenas))


def reason_text(tr, reason: str) -> str:  # type: ignore[no-untyped-def]
    key = f"reason.{reason}"
    return tr(key) if tr.has(key) or tr.has_default(key) else reason.replace("_", " ")


def points_reason(tr, event: dict[str, Any]) -> str:  # type: ignore[no-untyped-def]
    """Why points were scored. The engine books a hand won at cards as its truco stake;
    a hand nobody raised (worth 1) was won by the tricks, and says so, not "truco"."""
    reason = str(event.get("reason"))
    if reason == "truco" and event.get("points") == 1:
        reason = "tricks"
    return reason_text(tr, reason)


def log_lines(tr, model: TableModel, events: Iterable[dict[str, Any]], french: bool,
              ascii_only: bool = False) -> list[Text]:  # type: ignore[no-untyped-def]
    """The log lines of a run of events. A move the bot made for a seat (its timer ran out,
    or its player is away) is one line that says so: "Time's up: the bot played 7e for ana"."""
    out: list[Text] = []
    covered: dict[str, Any] | None = None
    hand = HandContext()
    for event in events:
        hand = _hand_of(model, event, hand)
        if event.get("type") == "seat_covered":
            if covered is not None:
                out.append(_covered_alone(tr, model, covered))
            covered = event
            continue
        line: Text | None
        if covered is not None and event.get("type") == "acted" and event.get("seat") == covered.get("seat"):
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
    return out


@dataclass(frozen=True)
class HandContext:
    """What a log line needs to know of its event's hand, which need not be the current one
    (a log read again after a reconnect); None: as in the current view."""

    deal_kind: str | None = None  # a mão de onze's "quiero" is "play for 3"
    teams: tuple[int, ...] | None = None  # the team of each seat in that hand
    deal_no: int | None = None  # that hand's deal number

    def is_current(self, model: TableModel) -> bool:
        """The event belongs to the hand the view shows (so the view may tell more of it)."""
        return self.deal_no is None or self.deal_no == model.view.deal_no


def _hand_of(model: TableModel, event: dict[str, Any], hand: HandContext) -> HandContext:
    """The context after `event`. Teams change only in the Uruguayan three-player game,
    where the mano plays alone against the other two (RULES.md 2.12.2): "Us" in an
    earlier hand's line must be who was "us" then, not in the hand now."""
    kind = event.get("type")
    if kind == "hand_dealt" and isinstance(event.get("deal_kind"), str):
        deal_no = event.get("deal_no")
        return replace(hand, deal_kind=event["deal_kind"], deal_no=deal_no if isinstance(deal_no, int) else None)
    n = len(model.view.teams)
    if n == 3 and kind == "hand_started" and isinstance(event.get("mano"), int):
        return replace(hand, teams=tuple(0 if seat == event["mano"] else 1 for seat in range(n)))
    return hand


def _covered_alone(tr, model: TableModel, event: dict[str, Any]) -> Text:  # type: ignore[no-untyped-def]
    why = "away" if event.get("reason") == "away" else "time"
    return Text(tr(f"log.covered.{why}", who=model.name(event.get("seat"))), style="bold yellow")


def _covered_act(tr, model: TableModel, covered: dict[str, Any], event: dict[str, Any], french: bool,
                 ascii_only: bool, hand: HandContext) -> Text:  # type: ignore[no-untyped-def]
    why = "away" if covered.get("reason") == "away" else "time"
    who = model.name(event.get("seat"))
    if event.get("card") and event.get("call") in ("play", "play_blind"):
        card = card_text(str(event["card"]), french=french, ascii_only=ascii_only)
        return _with(tr(f"log.covered_play.{why}", who=who, card="\0"), card, "bold yellow")
    said = act_words(tr, model, event, hand.deal_kind)
    return Text(tr(f"log.covered_call.{why}", who=who, call=said), style="bold yellow")


def _with(template: str, inner: Text, style: str) -> Text:
    """`template` with its one NUL replaced by `inner` (a card keeps its colours)."""
    before, _, after = template.partition("\0")
    line = Text(before, style=style)
    line.append_text(inner)
    line.append(after, style=style)
    return line


def act_words(tr, model: TableModel, event: dict[str, Any],  # type: ignore[no-untyped-def]
              deal_kind: str | None = None) -> str:
    """What a player said, with its number where the call has one (the Venezuelan envite's
    piedras: "Envido 5 piedras"; a declared envido: "27"). `deal_kind` is the kind of the
    event's hand when it is not the current one (a mão de onze's quiero is "play for 3")."""
    variant = model.view.variant
    if deal_kind is None:
        deal_kind = model.view.deal_kind
    call = str(event.get("call"))
    value = event.get("value")
    if call == "declare_envido":
        return str(value)
    if call in ("envido_puntos", "piedras") and isinstance(value, int):
        return str(tr(f"log.{call}", n=value))
    return call_label(tr, variant, call, deal_kind=deal_kind)


def event_line(tr, model: TableModel, event: dict[str, Any], french: bool, ascii_only: bool = False,
               hand: HandContext | None = None) -> Text | None:  # type: ignore[no-untyped-def]
    """One log line for an event, or None for events that need no line. `hand`: what is
    known of the event's hand, if it may not be the current one (see log_lines)."""
    kind = event.get("type")
    name = model.name
    hand = hand or HandContext()
    teams = hand.teams

    solo = len(teams or model.view.teams or ()) == 3

    def side(team: Any) -> str:
        return side_name(tr, model, team, teams)

    if kind == "acted":
        who = name(event.get("seat"))
        call = str(event.get("call"))
        line = Text(f"{who}: ", style="bold")
        if call in ("play", "play_blind") and event.get("card"):
            line.append_text(card_text(str(event["card"]), french=french, ascii_only=ascii_only))
        elif call == "discard":
            line.append(tr("log.discard"))  # the laid-away card stays face down
        else:
            quiet = call in ("declare_envido", "son_buenas", "pass_flor", "pasar")
            words = act_words(tr, model, event, hand.deal_kind)
            line.append(words if quiet else tr("log.exclaim", words=words))  # es: ¡Truco!
        return line
    if kind == "seat_covered":
        return _covered_alone(tr, model, event)
    if kind == "hand_dealt":
        line = Text(tr("log.dealt", n=event.get("deal_no"), dealer=name(event.get("dealer"))), style="dim")
        if event.get("face_up"):
            label = f"table.face_up.{model.view.variant}"  # muestra, vira
            line.append("  " + (tr(label) if tr.has_default(label) else tr("table.face_up")) + " ")
            line.append_text(card_text(str(event["face_up"]), french=french, ascii_only=ascii_only))
        deal_kind = event.get("deal_kind")
        if deal_kind in ("eleven", "blind", "pica_pica"):
            line.append("  " + tr(f"table.hand.{deal_kind}"), style="bold cyan")
        return line
    if kind == "hand_started":
        players = event.get("players") or []
        if len(players) == 2 and len(model.view.teams) > 2:
            # A pica-pica duel: two of the six play this hand.
            return Text(tr("log.duel", n=int(event.get("duel") or 0) + 1, a=name(players[0]), b=name(players[1])),
                        style="dim")
        return None
    if kind == "trick_ended":
        winner = event.get("winner_team")
        if winner is None or solo:  # a parda; or three players: the taker is the side
            taker = side(None) if winner is None else name(event.get("next_leader"))
            line = Text(tr("log.trick", n=event.get("number"), team=taker), style="cyan")
        else:  # a trick is taken by a player (who leads the next one): name him, and his side
            line = Text(tr("log.trick_by", n=event.get("number"), who=name(event.get("next_leader")),
                           team=side(winner)), style="cyan")
        passed = [s for n, s in model.view.passed_cards if n == event.get("number")]
        if passed and hand.is_current(model):
            # Venezuelan: a third card above one's second has no value (001 L45).
            line.append(" " + tr("log.carta_pasada", names=", ".join(name(s) for s in passed)), style="cyan")
        return line
    if kind == "points_scored":
        return Text(tr("log.points", team=side(event.get("team")), points=event.get("points"),
                       reason=points_reason(tr, event)), style="bold yellow")
    if kind == "points_withheld":
        return Text(withheld_text(tr, model, event, teams), style="bold red")
    if kind == "flor_answered":
        key = "log.flor_answered_yes" if event.get("holds") else "log.flor_answered_no"
        return Text(tr(key, team=side(event.get("team"))), style="bold magenta")
    if kind == "cards_shown":
        line = Text(tr("log.shown", who=name(event.get("seat")), reason=reason_text(tr, str(event.get("reason")))) + " ")
        for card in event.get("cards") or []:
            line.append_text(card_text(str(card), french=french, ascii_only=ascii_only))
            line.append(" ")
        return line
    if kind == "hand_ended":
        winner = event.get("winner_team")
        if winner is None:
            return Text(tr("log.hand_over_plain"), style="bold")
        return Text(tr("log.hand_over", team=side(winner), points=event.get("points"),
                       reason=reason_text(tr, str(event.get("reason")))), style="bold")
    if kind == "game_ended":
        names = _solo_winners(model, event.get("scores"), model.view.target)
        return Text(tr("log.game_over", team=names or side(event.get("winner_team"))), style="bold green")
    if kind == "match_ended":
        names = _solo_winners(model, event.get("games_won"), model.view.match_games)
        if names:
            return Text(tr("log.match_over_names", names=names), style="bold green")
        return Text(tr("log.match_over", team=side(event.get("winner_team"))), style="bold green")
    return None


def _solo_winners(model: TableModel, totals: Any, reached: Any) -> str | None:
    """With a score per player (the Uruguayan three-player game) a game or match is won by
    players, not by this hand's "Them": the names of those whose total reached the mark.
    None where scores are kept by team."""
    if not isinstance(totals, (list, tuple)) or len(totals) <= 2 or not isinstance(reached, int):
        return None
    seats = [s for s, total in enumerate(totals) if total >= reached]
    return ", ".join(model.name(s) for s in seats) or None


def withheld_text(tr, model: TableModel, event: dict[str, Any],
                  teams: Sequence[int] | None = None) -> str:  # type: ignore[no-untyped-def]
    """Points won but not collected (Venezuelan hidden flor), with the rule that says so."""
    rule = str(event.get("rule"))
    key = f"rule.{rule}"
    return str(tr("log.withheld", team=side_name(tr, model, event.get("team"), teams), points=event.get("points"),
                  reason=reason_text(tr, str(event.get("reason"))),
                  rule=tr(key) if tr.has(key) or tr.has_default(key) else rule))


def hand_summary(tr, model: TableModel, french: bool, ascii_only: bool = False) -> Text:  # type: ignore[no-untyped-def]
    """After a hand: who scored what, and why (from the events of that hand)."""
    parts = Text()
    for event in model.last_hand_events:
        kind = event.get("type")
        if kind not in ("points_scored", "points_withheld"):
            continue
        if parts:
            parts.append(" · ")
        if kind == "points_withheld":
            parts.append(withheld_text(tr, model, event), style="red")
            continue
        parts.append(tr("log.points", team=side_name(tr, model, event.get("team")), points=event.get("points"),
                        reason=points_reason(tr, event)))
    return parts
