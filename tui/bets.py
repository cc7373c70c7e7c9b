"""What waits for an answer, and who asked: the pending-bet parts of the table's bets line.

Every bet that waits is named with the SEAT that made it (the view's ``*_pending_seat``
fields), never with its team: at a 4- or 6-player table a team is two or three people.
A bet nobody called is told for what it is: the Brazilian mão de onze (the team on 11
decides whether to play the hand for 3) and the Venezuelan "privo y truco" against the
team that is cantando.
"""
from __future__ import annotations

from dataclasses import dataclass

from protocol import TableView
from tui.calls import bet_label, call_label
from tui.i18n import Translator
from tui.table_model import TableModel

PENDING_ENVIDO = ("betting", "declaring")
PENDING_FLOR = ("announcing", "answering", "round_two")
FLOR_RAISES = {1: "contraflor", 2: "contraflor_al_resto"}


@dataclass(frozen=True)
class Pending:
    """One part of the bets line: its text, its style, and the seat it names (if any)."""

    kind: str  # "truco", "envido", "flor" or "hand" (the special hand being played)
    text: str
    style: str
    seat: int | None = None


def team_seats(model: TableModel, team: int | None) -> str:
    """The players of one team in this hand, by name ("ana, carla")."""
    return ", ".join(model.name(s) for s in _team_seat_list(model, team)) or "?"


def _single(model: TableModel, team: int | None) -> str:
    """The key suffix for a line whose verb has a one-player team as its subject."""
    return "_single" if len(_team_seat_list(model, team)) == 1 else ""


def _team_seat_list(model: TableModel, team: int | None) -> list[int]:
    view = model.view
    teams = view.teams
    return [s for s in (view.players or range(len(teams))) if s < len(teams) and teams[s] == team]


def special_hand(tr: Translator, model: TableModel) -> str | None:
    """The name of a special hand being played (mão de onze, mão de ferro, the Venezuelan
    estar cantando, with the team that is cantando), else None."""
    view = model.view
    if view.phase in ("deal", "match_over"):
        return None
    kind = view.deal_kind
    if kind in ("eleven", "blind"):
        return str(tr(f"table.hand.{kind}"))
    if view.cantando is not None:
        return str(tr("table.hand.cantando", names=team_seats(model, view.cantando)))
    return None


def pending_bets(tr: Translator, model: TableModel) -> list[Pending]:
    """The bets that wait for an answer now, each naming the seat that made it."""
    view = model.view
    out: list[Pending] = []
    hand = special_hand(tr, model)
    if hand is not None and not view.truco_pending:
        out.append(Pending("hand", hand, "bold cyan"))
    truco = _truco(tr, model, view)
    if truco is not None:
        out.append(truco)
    envido = _envido(tr, model, view)
    if envido is not None:
        out.append(envido)
    flor = _flor(tr, model, view)
    if flor is not None:
        out.append(flor)
    return out


def _said_by(tr: Translator, model: TableModel, view: TableView, kind: str, bet: str, seat: int,
             style: str, frame: str | None = None) -> Pending:
    """`bet` said by `seat`: "Retruco from Beto", and ": answer!" for the players
    whose side must answer it (not for the bettor's side, nor for a spectator)."""
    teams = view.teams
    mine = model.my_team()
    answer = mine is not None and seat < len(teams) and teams[seat] != mine
    if frame is None and answer:
        return Pending(kind, tr("table.pending", call=bet, who=model.name(seat)), style, seat)
    # The bettor is not named to himself: "Truco from ana" read as if someone else called it.
    said = tr("table.from_me", call=bet) if seat == model.seat else tr("table.from", call=bet, who=model.name(seat))
    if frame is not None:
        said = tr(frame, calls=said)
    return Pending(kind, tr("table.answer", bet=said) if answer else said, style, seat)


def _truco(tr: Translator, model: TableModel, view: TableView) -> Pending | None:
    pending = view.truco_pending
    if not pending:
        return None
    variant = view.variant
    seat = view.truco_pending_seat
    if seat is not None:
        return _said_by(tr, model, view, "truco", bet_label(tr, variant, pending), seat, "bold red")
    by = view.truco_pending_by
    if view.deal_kind == "eleven" and by is not None:
        # Nobody called it: the team on 11 looked at its cards and decides (docs/RULES.md 3.11).
        # The verb agrees with one player ("Bot 1 decide") or a pair ("ana, beto decidem").
        key = "table.pending_eleven" + _single(model, 1 - by)
        return Pending("truco", tr(key, names=team_seats(model, 1 - by)), "bold red")
    cantando = view.cantando
    if cantando is not None:
        # Estar cantando: the opponents "privaron", the truco is on the cantando team (4.12.1).
        key = "table.pending_privo" + _single(model, cantando)
        return Pending("truco", tr(key, names=team_seats(model, cantando)), "bold red")
    return Pending("truco", tr("table.pending_plain", call=bet_label(tr, variant, pending)), "bold red")


def _envido(tr: Translator, model: TableModel, view: TableView) -> Pending | None:
    calls = view.envido_calls
    status = view.envido_status
    if not calls or status not in PENDING_ENVIDO:
        return None
    variant = view.variant
    said = " + ".join(call_label(tr, variant, c) for c in calls)
    stake = view.envido_stake
    if stake is not None and stake > 0:
        said += " " + tr("table.stake", n=stake)  # the Venezuelan envite: piedras at stake
    ley = view.envite_ley  # Venezuelan a ley: con ley (a bet on flor) or sin ley
    seat = view.envido_pending_seat
    if status == "betting" and seat is not None:
        frame = None if ley is None else ("table.envite_con_ley" if ley else "table.envite_sin_ley")
        return _said_by(tr, model, view, "envido", said, seat, "bold magenta", frame)
    key = "table.envido_pending" if ley is None else ("table.envite_con_ley" if ley else "table.envite_sin_ley")
    return Pending("envido", tr(key, calls=said), "bold magenta")


def _flor(tr: Translator, model: TableModel, view: TableView) -> Pending | None:
    status = view.flor_status
    if status == "ley":
        return Pending("flor", tr("table.ley_pending"), "bold magenta")
    if status not in PENDING_FLOR:
        return None
    seat = view.flor_pending_seat
    raise_call = FLOR_RAISES.get(view.flor_level)
    if seat is not None and raise_call is not None:
        call = call_label(tr, view.variant, raise_call)
        return _said_by(tr, model, view, "flor", call, seat, "bold magenta")
    return Pending("flor", tr("table.flor_pending"), "bold magenta")
