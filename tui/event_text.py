"""Engine events (as the protocol carries them) told in the session's language."""
from __future__ import annotations

from typing import Any

from rich.text import Text

from tui.calls import call_label
from tui.cards import card_text
from tui.table_model import TableModel


def team_name(tr, model: TableModel, team: int | None) -> str:  # type: ignore[no-untyped-def]
    if team is None:
        return tr("table.parda")
    mine = model.my_team()
    if mine is None:
        return tr("table.team_n", n=team + 1)
    return tr("table.us") if team == mine else tr("table.them")


def reason_text(tr, reason: str) -> str:  # type: ignore[no-untyped-def]
    key = f"reason.{reason}"
    return tr(key) if tr.has(key) or tr.has_default(key) else reason.replace("_", " ")


def event_line(tr, model: TableModel, event: dict[str, Any], french: bool,
               ascii_only: bool = False) -> Text | None:  # type: ignore[no-untyped-def]
    """One log line for an event, or None for events that need no line."""
    kind = event.get("type")
    variant = str(model.view.get("variant", ""))
    name = model.name
    if kind == "acted":
        who = name(event.get("seat"))
        call = str(event.get("call"))
        line = Text(f"{who}: ", style="bold")
        if call == "play" and event.get("card"):
            line.append_text(card_text(str(event["card"]), french=french, ascii_only=ascii_only))
        elif call == "declare_envido":
            line.append(str(event.get("value")))
        else:
            line.append(call_label(tr, variant, call) + ("" if call in ("son_buenas", "pass_flor") else "!"))
        return line
    if kind == "hand_dealt":
        line = Text(tr("log.dealt", n=event.get("deal_no"), dealer=name(event.get("dealer"))), style="dim")
        if event.get("face_up"):
            line.append("  " + tr("table.face_up") + " ")
            line.append_text(card_text(str(event["face_up"]), french=french, ascii_only=ascii_only))
        return line
    if kind == "trick_ended":
        winner = event.get("winner_team")
        return Text(tr("log.trick", n=event.get("number"), team=team_name(tr, model, winner)), style="cyan")
    if kind == "points_scored":
        return Text(tr("log.points", team=team_name(tr, model, event.get("team")), points=event.get("points"),
                       reason=reason_text(tr, str(event.get("reason")))), style="bold yellow")
    if kind == "points_withheld":
        return Text(withheld_text(tr, model, event), style="bold red")
    if kind == "flor_answered":
        key = "log.flor_answered_yes" if event.get("holds") else "log.flor_answered_no"
        return Text(tr(key, team=team_name(tr, model, event.get("team"))), style="bold magenta")
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
        return Text(tr("log.hand_over", team=team_name(tr, model, winner), points=event.get("points"),
                       reason=reason_text(tr, str(event.get("reason")))), style="bold")
    if kind == "game_ended":
        return Text(tr("log.game_over", team=team_name(tr, model, event.get("winner_team"))), style="bold green")
    if kind == "match_ended":
        return Text(tr("log.match_over", team=team_name(tr, model, event.get("winner_team"))), style="bold green")
    return None


def withheld_text(tr, model: TableModel, event: dict[str, Any]) -> str:  # type: ignore[no-untyped-def]
    """Points won but not collected (Venezuelan hidden flor), with the rule that says so."""
    rule = str(event.get("rule"))
    key = f"rule.{rule}"
    return str(tr("log.withheld", team=team_name(tr, model, event.get("team")), points=event.get("points"),
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
        parts.append(tr("log.points", team=team_name(tr, model, event.get("team")), points=event.get("points"),
                        reason=reason_text(tr, str(event.get("reason")))))
    return parts
