"""Why an action is refused, in the player's language.

The engine names every reason with a code (engine.errors.Reason): the view carries the code
for each card of the player's hand that cannot be played now (``card_refusals``), and an
``error`` reply carries it for an action the server refused. This module only words it.
"""
from __future__ import annotations

from typing import Any

from protocol import TableView
from tui.calls import bet_label
from tui.i18n import Translator
from tui.table_model import NO_VIEW, TableModel


def _next_call(view: TableView) -> str:
    """The ladder's call a raise must be now (after a pending step, else the accepted level)."""
    ladder = view.truco_ladder
    step = view.truco_pending_level or view.truco_level
    return ladder[step] if 0 <= step < len(ladder) else ""


def refusal_text(tr: Translator, code: str, model: TableModel | None = None) -> str:
    """The sentence for a refusal code; codes this client does not know get a general one."""
    view = model.view if model is not None else NO_VIEW
    variant = view.variant
    values: dict[str, Any] = {}
    if code == "not_your_turn" and model is not None and view.turn is not None:
        values["who"] = model.name(view.turn)
        code = "not_your_turn_who"
    elif code in ("raise_is", "next_bet"):
        call = _next_call(view)
        if call:
            values["call"] = bet_label(tr, variant, call)
        else:
            code = "not_now"
    key = f"refusal.{code}"
    if not (tr.has(key) or tr.has_default(key)):
        key, values = "refusal.not_now", {}
    return str(tr(key, **values))


def no_card_reason(tr: Translator, model: TableModel) -> str:
    """Why a card key finds no card: watching, or a blind hand (mão de ferro) whose
    cards go down unseen with their own key ("" when there is nothing to say)."""
    if model.update is None or model.view.match_over:
        return ""
    if model.seat is None:
        return str(tr("refusal.watching"))
    if any(a.call == "play_blind" for a in model.view.legal):
        return refusal_text(tr, "blind_hand", model)
    return ""


def card_refusal(tr: Translator, model: TableModel, card: str) -> str:
    """Why this card cannot be played now: the engine's reason (the view's
    ``card_refusals``), in the player's language."""
    if model.seat is None:
        return str(tr("refusal.watching"))
    code = next((reason for refused, reason in model.view.card_refusals if refused == card), "")
    if not code:  # the card is playable, but not for the call that waits for a card
        return str(tr("table.cannot_play"))
    return refusal_text(tr, code, model)
