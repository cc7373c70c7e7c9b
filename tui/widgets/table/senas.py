"""Señas and the partner-only chat at the table: the seña picker, their lines, their help.

The señas of each variant come from the server (``VariantInfo.senas``); what each one is
called and which gesture makes it come from the locale (``sena_name.<code>``,
``sena_gesture.<variant>.<code>``). ``PartnerTalk`` is mixed into the table screen: the
``S`` (seña) and ``C`` (partner chat) keys, and where a typed line goes.
"""
from __future__ import annotations


from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Static

import protocol as p
from tui.cards import card_text
from tui.i18n import Translator, names_said
from tui.screens.base import TrucoModalScreen
from tui.screens.table_mixin import TableMixin
from tui.table_model import TableModel
from tui.widgets.keybar import KeyBar
from tui.widgets.table.talk import TableLog

PICK_KEYS = "123456789abcdefgh"  # the picker's keys, one per seña of the variant
TALL = 30  # terminal rows from which the picker adds its hint under the señas


def sena_name(tr: Translator, code: str) -> str:
    key = f"sena_name.{code}"
    return str(tr(key)) if tr.has_default(key) else code


def sena_gesture(tr: Translator, variant: str, code: str) -> str:
    key = f"sena_gesture.{variant}.{code}"
    return str(tr(key)) if tr.has_default(key) else ""


def senas_mode(model: TableModel) -> str:
    """The table option ``senas`` (fair / private / off)."""
    return str(dict(model.view.options).get("senas", "off"))


def partners(model: TableModel) -> list[int]:
    """My partners in this hand (none for a spectator or in a game without partners)."""
    seat, teams = model.seat, list(model.view.teams)
    if seat is None or not 0 <= seat < len(teams):
        return []
    return [s for s, team in enumerate(teams) if s != seat and team == teams[seat]]


def sena_text(tr: Translator, model: TableModel, event: p.SenaSeen) -> Text:
    """One seña as the log shows it: mine, a partner's, or one I caught from an opponent."""
    variant = model.view.variant
    name = sena_name(tr, event.sena)
    to = names_said(tr, [model.name(s) for s in event.to])
    if event.seat == model.seat:
        return Text(tr("senas.log.mine", to=to, name=name), style="green")
    gesture = sena_gesture(tr, variant, event.sena)
    who = model.name(event.seat)
    if event.caught:
        return Text(tr("senas.log.caught", who=who, gesture=gesture, to=to, name=name), style="bold yellow")
    return Text(tr("senas.log.partner", who=who, gesture=gesture, name=name), style="bold green")


def partner_chat_text(tr: Translator, line: p.ChatLine) -> Text:
    """A partner-only chat line: marked, so it is never taken for one the table heard."""
    text = Text(f"[{tr('senas.partners_mark')}] ", style="green")
    text.append(line.sender, style="bold green")
    text.append(": ")
    text.append(line.text)
    return text


def senas_help(tr: Translator, variant: str, codes: tuple[str, ...], mode: str) -> list[str]:
    """The help's señas section: each seña's gesture and meaning, and the table's option."""
    if mode == "off":
        return [tr("senas.help_off")]
    lines = [tr("senas.help_title")]
    lines += [f"  {sena_name(tr, c)}: {sena_gesture(tr, variant, c)}" for c in codes]
    lines.append("  " + tr(f"senas.mode.{mode}" if mode in ("fair", "private") else "senas.mode.fair"))
    return lines


class SenasScreen(TrucoModalScreen[str | None]):
    """The seña picker: one key per seña of the variant, each with its gesture, under the
    player's own cards (the list may cover the table's on a small terminal); Esc makes none."""

    def __init__(self, variant: str, codes: tuple[str, ...], mode: str, cards: Text | None = None) -> None:
        super().__init__(classes="-over-table")
        self._variant, self._codes, self._mode = variant, codes[:len(PICK_KEYS)], mode
        self._cards = cards

    def compose(self) -> ComposeResult:
        tr = self.app.tr
        box = Vertical(classes="dialog", id="senas")
        box.border_title = Text(tr("senas.title"), style="bold")  # Text: never markup
        with box:
            # Each seña with its gesture, a long one wrapped under its own words (never under
            # the keys); a tall terminal adds the hint (a short one keeps the cards in view).
            rows = self._one_per_line(tr)
            if self._cards is not None and self._cards.plain:
                yield Static(Text(tr("senas.your_cards"), style="dim") + self._cards, id="senas-cards")
            if self.app.size.height >= TALL:  # (the help says it too)
                rows.append("\n" + tr("senas.hint") + " " + tr(f"senas.mode.{self._mode}"), style="dim")
            yield VerticalScroll(Static(rows))
            bar = KeyBar()
            bar.show([(f"1-{PICK_KEYS[len(self._codes) - 1]}", tr("key.sena")), ("Esc", tr("key.cancel"))])
            yield bar

    def _one_per_line(self, tr: Translator) -> Text:
        # inside the dialog's frame and padding, and a scrollbar's column where it scrolls
        width = max(20, min(76, self.app.size.width) - 5)
        rows: list[Text] = []
        for key, code in zip(PICK_KEYS, self._codes):
            entry = Text()
            entry.append(sena_name(tr, code), style="bold")
            entry.append(f" · {sena_gesture(tr, self._variant, code)}")
            for n, line in enumerate(entry.wrap(self.app.console, width - 2)):
                rows.append(Text(f"{key} " if n == 0 else "  ", style="bold") + line)
        text = Text("\n").join(rows)
        text.no_wrap = True
        return text

    def on_key(self, event: events.Key) -> None:
        key = event.character or ""
        if event.key == "escape":
            event.stop()
            self.dismiss(None)
        elif key and key in PICK_KEYS[:len(self._codes)]:
            event.stop()
            self.dismiss(self._codes[PICK_KEYS.index(key)])


class PartnerTalk(TableMixin):
    """Mixed into the table screen: ``c`` talks to the table, ``C`` to the partners only,
    ``S`` opens the seña picker."""

    _partner_chat = False  # the chat input's line goes to the partners only

    def _write_chat(self, line: p.ChatLine) -> None:
        """A table chat line in the chat pane and the log (which shows the chat where the
        chat pane is hidden); a partner line marked as such."""
        if line.partners:  # never to be taken for a line the whole table heard
            self._write_talk(partner_chat_text(self.tr, line))
            return
        for pane in ("#t-chat-log", "#t-log"):
            self.query_one(pane, TableLog).write_chat(line)

    def _write_talk(self, text: Text) -> None:
        """A partner line or a seña, where the chat goes."""
        for pane in ("#t-chat-log", "#t-log"):
            self.query_one(pane, TableLog).write(text.copy(), chat=True)

    def partner_key_usable(self, action: str) -> bool:
        """S and C work for a seated player with a partner in a running match (S: when the
        table plays with señas)."""
        model = self.table
        if model.update is None or model.view.match_over or not partners(model):
            return False
        return action == "partner_chat" or senas_mode(model) != "off"

    def action_chat(self) -> None:
        self._talk_to(False)

    def action_partner_chat(self) -> None:
        self._talk_to(True)

    def _talk_to(self, partners_only: bool) -> None:
        self._partner_chat = partners_only
        chat = self.query_one("#t-chat", Input)
        chat.placeholder = self._placeholder()
        # set_focus, not focus(): at once, so the keys right after "c" are typed in the chat.
        self.set_focus(chat)

    def send_chat(self, text: str) -> None:
        self.app.speak(text, p.TableChat(table_id=self.table_id, text=text, partners=self._partner_chat))
        if self._partner_chat:
            self._partner_chat = False
            self.query_one("#t-chat", Input).placeholder = self._placeholder()

    def _placeholder(self) -> str:
        """What the chat input says it is for: the partners, or the table (where, with the
        option reserved_words, a call said alone is made)."""
        if self._partner_chat:
            return str(self.tr("table.partner_chat_placeholder"))
        words = dict(self.table.view.options).get("reserved_words")
        return str(self.tr("table.chat_placeholder_words" if words else "table.chat_placeholder"))

    def action_sena(self) -> None:
        variant = self.table.view.variant
        info = self.app.model.variants.get(variant)
        codes = tuple(info.senas) if info is not None else ()
        if dict(self.table.view.options).get("flor") is False:  # no flor seña without flor
            codes = tuple(c for c in codes if c != "flor")
        if not codes:
            return

        def picked(code: str | None) -> None:
            if code:
                self.app.send(p.MakeSena(table_id=self.table_id, sena=code))

        view = self.table.view
        lite = bool(getattr(self.app, "lite", False))
        cards = Text(" ").join(card_text(c, french=view.french, ascii_only=lite) for c in view.own_cards)
        self.app.push_screen(SenasScreen(variant, codes, senas_mode(self.table), cards), picked)
