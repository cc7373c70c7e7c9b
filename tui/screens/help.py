"""Keys and a short guide, in the session's language; at a table, this hand explained."""
from __future__ import annotations

from typing import Mapping

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll

import protocol as p
from tui.calls import bet_label
from tui.cards import card_face, card_roles, mark_text
from tui.i18n import Translator, option_value
from tui.screens.base import TrucoModalScreen, unless_popped
from tui.table_model import TableModel
from tui.widgets.hanging import HangingText
from tui.widgets.keybar import KeyBar
from tui.widgets.table.senas import senas_help


HELP_SHARE = 0.7  # of the terminal's height: with the title, the key bar and the frame the help
# fits a 20-line terminal whole, and a tall one shows more at once


class HelpScreen(TrucoModalScreen[None]):
    BINDINGS = [("escape", "close", ""), ("question_mark", "close", ""), ("q", "close", "")]

    def __init__(self, body: str | None = None, title: str | None = None) -> None:
        super().__init__()
        self.body = body  # the text it shows (None: the general help)
        self.title_text = title  # None: the help's

    def compose(self) -> ComposeResult:
        tr = self.app.tr
        box = Vertical(classes="dialog", id="help")
        box.border_title = Text(self.title_text or tr("help.title"), style="bold")  # in the border: one more line of help
        with box:
            body = self.body or f"{tr('help.body')}\n\n{tr('help.links')}\n\n{tr('help.stats')}"
            yield VerticalScroll(HangingText(body))  # long lines go on under their description
            bar = KeyBar()
            bar.show([("Esc", tr("key.close"))])
            yield bar

    @unless_popped
    def on_mount(self) -> None:
        self._fit()

    def on_resize(self, event: events.Resize) -> None:
        self._fit()

    def _fit(self) -> None:
        """The text's part of the screen, in rows: a ``max-height`` in ``vh`` is not counted
        when Textual sizes the dialog around it (the dialog took the whole screen, its lower
        part empty)."""
        self.query_one(VerticalScroll).styles.max_height = max(3, int(self.size.height * HELP_SHARE))

    def action_close(self) -> None:
        self.dismiss(None)


# ---------------------------------------------------------------- this hand, at the table


def _card(card: str, roles: dict[str, str], french: bool, ascii_only: bool) -> str:
    face = card_face(card, french=french, ascii_only=ascii_only)
    return f"{face.rank}{face.suit_mark}{mark_text(roles.get(card), ascii_only)}"


def _calls(tr: Translator, variant: str, calls: list[str]) -> str:
    return " + ".join(bet_label(tr, variant, str(c)) for c in calls)


def _worth(tr: Translator, wanted: int | None, refused: int | None, wins_game: bool) -> str:
    """"5 if wanted, 2 if not" (or "the game if wanted", "cannot be refused")."""
    parts = []
    if wins_game:
        parts.append(tr("guide.wins_game"))
    elif wanted is not None:
        parts.append(tr("guide.if_wanted", n=wanted))
    parts.append(tr("guide.no_refusal") if refused is None else tr("guide.if_not", n=refused))
    return ", ".join(parts)


RANKING_WIDTH = 52  # the ranking breaks between groups, so it reads well in a 60-column dialog


def _wrap_groups(groups: list[str], width: int) -> list[str]:
    """Groups joined by " > ", broken into lines between groups (a line ends with ">")."""
    lines: list[str] = []
    line = ""
    for i, group in enumerate(groups):
        piece = group + (" >" if i < len(groups) - 1 else "")
        if line and len(line) + 1 + len(piece) > width:
            lines.append(line)
            line = piece
        else:
            line = f"{line} {piece}" if line else piece
    if line:
        lines.append(line)
    return lines


def hand_help(tr: Translator, view: p.TableView, *, french: bool, ascii_only: bool) -> str:
    """This hand explained from the view: the special cards and the card ranking given the
    face-up card, how envido and flor are counted (and the player's own count), what each
    pending bet and each truco step is worth, and how scores are told."""
    variant = view.variant
    roles = card_roles(view)
    out = [tr("guide.title", variant=tr(f"variant.{variant}"))]
    face_up = view.face_up
    if face_up:
        key = f"table.face_up.{variant}"
        label = tr(key) if tr.has_default(key) else tr("table.face_up")
        out.append(f"  {label} {_card(face_up, {}, french, ascii_only)}")
    marks = view.card_marks
    for role in dict.fromkeys(m.role for m in marks):  # piezas; perico, perica...
        cards = ", ".join(
            _card(m.card, {}, french, ascii_only) + (f" ({m.envido})" if m.envido is not None else "")
            for m in marks if m.role == role
        )
        out.append(f"  {tr('guide.role.' + role)} {mark_text(role, ascii_only)}: {cards}")
    if any(m.envido is not None for m in marks):
        out.append("  " + tr("guide.special_values"))
    ranking = view.ranking
    if ranking:
        out.append("  " + tr("guide.ranking"))
        groups = [" ".join(_card(c, roles, french, ascii_only) for c in group) for group in ranking]
        out.extend("    " + line for line in _wrap_groups(groups, RANKING_WIDTH))
        out.append("  " + tr("guide.ranking_ties"))
    out.append("")
    rule = view.count_rule
    out.append(tr(f"guide.count.{rule}"))
    options = dict(view.options)
    if options.get("flor") and rule != "none":
        out.append(tr(f"guide.flor.{rule}"))
    if view.own_envido is not None and view.own_flor is None:
        cards = " ".join(_card(c, roles, french, ascii_only) for c in view.own_envido_cards)
        out.append("  " + tr("guide.own_envido", n=view.own_envido, cards=cards))
    if view.own_flor is not None:
        out.append("  " + tr("guide.own_flor", n=view.own_flor))
    out.append("")
    bets = view.bets
    out.append(tr("guide.bets"))
    for bet in bets:
        calls = list(bet.calls)
        if bet.kind == "truco":
            calls = calls[-1:]  # the step waiting for its answer
        worth = _worth(tr, bet.wanted, bet.refused, bet.wins_game)
        out.append(f"  {_calls(tr, variant, calls)}: {worth}")
    if not bets:
        out.append("  " + tr("guide.no_bet"))
    steps = view.truco_steps
    if steps:
        out.append(tr("guide.ladder"))
        for step in steps:
            worth = _worth(tr, step.wanted, step.refused, step.wins_game)
            out.append(f"  {bet_label(tr, variant, step.call)}: {worth}")
    malas = view.malas
    out.append("")
    if malas > 0:
        out.append(tr("guide.scores_malas", malas=malas, target=view.target))
    else:
        out.append(tr("guide.scores_plain", target=view.target))
    return "\n".join(out)


def table_help(tr: Translator, model: TableModel, info: p.TableInfo | None, variants: Mapping[str, p.VariantInfo], *,
               french: bool, ascii_only: bool) -> str:
    """The table's help: this hand first (what a player opens help for), the keys, the ley
    (Venezuelan flor a ley), then the table's options as the New-table form shows them."""
    lines = []
    if model.update is not None:
        lines += [hand_help(tr, model.view, french=french, ascii_only=ascii_only), ""]
    lines.append(tr("help.table"))
    if info is not None and info.variant == "venezolano" and info.options.get("flor", True) \
            and info.options.get("flor_declaration", "a_ley") == "a_ley":
        lines += ["", tr("help.ley")]
    variant = variants.get(info.variant) if info is not None else None
    if info is not None and len(info.seats) >= 3 and variant is not None and variant.senas:  # partners: señas
        lines += ["", *senas_help(tr, info.variant, tuple(variant.senas), str(info.options.get("senas", "fair")))]
    if info is not None:
        lines.append("")
        lines.append(tr("help.options"))
        for name, value in _options_in_form_order(info, variants.get(info.variant)):
            lines.append(f"  {_option_label(tr, variants.get(info.variant), name)}: {option_value(tr, value)}")
        timer = f"{info.turn_timer} s" if info.turn_timer else tr("form.timer_off")
        lines.append(f"  {tr('form.turn_timer')}: {timer}")
    return "\n".join(lines)


def _options_in_form_order(info: p.TableInfo, variant: p.VariantInfo | None) -> list[tuple[str, p.OptionValue]]:
    """The table's options in the order the New-table form shows them."""
    order = [o.name for o in variant.options] if variant else []
    return sorted(info.options.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order), kv[0]))


def _option_label(tr: Translator, variant: p.VariantInfo | None, name: str) -> str:
    key = f"option.{name}"
    if tr.has(key) or tr.has_default(key):
        return str(tr(key))
    for opt in variant.options if variant else ():
        if opt.name == name:
            return str(opt.label)
    return name
