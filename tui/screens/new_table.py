"""The New-table form, built entirely from the variant data the hub sent.

A variant or option added to the engine's catalog shows up here with no change
to this file: option widgets come from each option's kind and choices.
"""
from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static

import protocol as p
from textual import on
from tui.i18n import option_help, option_label, option_value
from tui.screens.base import TrucoModalScreen
from tui.widgets.keybar import KeyBar
from tui.widgets.tickbox import TickBox

TIMER_CHOICES = (15, 30, 60, 120)


class OptionRows(VerticalScroll):
    """The variant's options, scrolled so that the focused one is always in view.

    Its height changes after the focus has moved (the help line under it takes one to
    three lines, a variant's rows are mounted again), and a scroll made for the focus
    before that layout can leave the focused control cut or out of sight."""

    def on_resize(self, event: events.Resize) -> None:
        focused = self.screen.focused
        if focused is not None and self in focused.ancestors:
            self.scroll_to_widget(focused, animate=False, immediate=True)


class NewTableScreen(TrucoModalScreen[p.CreateTable | None]):
    BINDINGS = [("escape", "cancel", ""), ("ctrl+s", "create", "")]
    # What the option in focus means: the same words as its tooltip, for keyboard players.
    DEFAULT_CSS = "#option-help { height: auto; max-height: 3; color: $text-muted; }"

    def __init__(self, variants: tuple[p.VariantInfo, ...], preferred: str = "") -> None:
        super().__init__()
        self._variants = {v.name: v for v in variants}
        playable = [v for v in variants if v.implemented] or list(variants)
        names = [v.name for v in playable]
        self._variant = preferred if preferred in names else names[0] if names else ""


    def compose(self) -> ComposeResult:
        tr = self.tr
        with Vertical(classes="dialog", id="new-table"):
            yield Static(Text(tr("form.title"), style="bold"))
            with Horizontal(classes="form-row"):
                yield Label(tr("form.variant"), classes="form-label")
                yield Select(
                    [(self._variant_label(v), v.name) for v in self._variants.values()],
                    value=self._variant, allow_blank=False, id="variant", compact=True,
                )
            with Horizontal(classes="form-row"):
                yield Label(tr("form.players"), classes="form-label")
                yield Select(self._player_choices(), allow_blank=False, id="players",
                             value=self._player_choices()[0][1], compact=True)
            with Horizontal(classes="form-row"):
                yield Label(tr("form.table_title"), classes="form-label")
                yield Input(max_length=p.TITLE_MAX, id="title", placeholder=tr("form.title_placeholder"),
                            compact=True)
            yield TickBox(tr("form.private"), False, id="private")
            with Horizontal(classes="form-row option-row", id="timer-row"):  # its label wraps at 60 columns
                yield Label(tr("form.turn_timer"), classes="form-label")
                yield Select(
                    [(tr("form.timer_default"), -1), (tr("form.timer_off"), 0)]
                    + [(f"{n} s", n) for n in TIMER_CHOICES],
                    value=-1, allow_blank=False, id="turn_timer", compact=True,
                )
            # Not a Tab stop itself (an invisible one): its controls are, and it scrolls
            # to show the focused one.
            yield OptionRows(*self._option_rows(), id="options", can_focus=False)
            # Under the options: the same words as the focused option's tooltip, for keyboard
            # (and lite, mouseless) players. Composed, not mounted later: a focus event can
            # arrive before a later mount lands (a CI run crashed the screen on it).
            yield Static(id="option-help")
            with Horizontal(id="form-buttons"):
                yield Button(tr("form.create"), variant="primary", id="create")
                yield Button(tr("form.cancel"), id="cancel")
            bar = KeyBar()
            bar.show([("Tab", tr("key.next_field")), ("Ctrl+S", tr("form.create")),
                      ("Esc", tr("key.cancel"))])
            yield bar

    def _variant_label(self, v: p.VariantInfo) -> str:
        label = self.tr(f"variant.{v.name}") if self.tr.has_default(f"variant.{v.name}") else v.title
        return label if v.implemented else f"{label} ({self.tr('form.coming_soon')})"

    def _player_choices(self) -> list[tuple[str, int]]:
        variant = self._variants.get(self._variant)
        counts = variant.player_counts if variant else (2,)
        return [(self.tr("form.n_players", n=n), n) for n in counts]

    def _option_rows(self) -> list[Horizontal | TickBox]:
        variant = self._variants.get(self._variant)
        rows: list[Horizontal | TickBox] = []
        if variant is None:
            return rows
        for opt in variant.options:
            label = self._option_label(opt)
            meaning = option_help(self.tr, variant.name, opt.name, opt.help)
            if opt.kind == "bool":
                box = TickBox(label, bool(opt.default), id=f"opt-{opt.name}", classes="option")
                box.tooltip = meaning
                rows.append(box)
            else:
                select = Select(
                    [(option_value(self.tr, c), c) for c in opt.choices],
                    value=opt.default, allow_blank=False, id=f"opt-{opt.name}", classes="option",
                    compact=True,
                )
                select.tooltip = meaning
                rows.append(Horizontal(Label(label, classes="form-label wide"), select, classes="form-row option-row"))
        return rows

    def _option_label(self, opt: p.OptionInfo) -> str:
        return option_label(self.tr, opt.name, opt.label)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """Mark the row of the focused control: its label turns reverse bold (truco.tcss).
        (Textual's :focus-within would not restyle the label, a sibling of the control.)
        From the focus now, not the event's widget: these events bubble up paths of
        different lengths, so after quick Tabs they arrive out of order."""
        focused = self.focused
        row = None if focused is None else next(
            (node for node in focused.ancestors_with_self if node.has_class("form-row")), None)
        for other in self.query(".form-row.-current"):
            if other is not row:
                other.remove_class("-current")
        if row is not None:
            row.add_class("-current")

    async def on_select_changed(self, event: Select.Changed) -> None:
        if event.select.id == "variant" and event.value != self._variant:
            self._variant = str(event.value)
            players = self.query_one("#players", Select)
            choices = self._player_choices()
            players.set_options(choices)
            players.value = choices[0][1]
            options = self.query_one("#options", OptionRows)
            await options.remove_children()
            await options.mount_all(self._option_rows())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "create":
            self.action_create()
        else:
            self.action_cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_create()

    def action_create(self) -> None:
        variant = self._variants.get(self._variant)
        if variant is None:
            return
        options: dict[str, p.OptionValue] = {}
        for opt in variant.options:
            widget = self.query_one(f"#opt-{opt.name}")
            # Selects here never allow a blank (and Select.BLANK is False, a real value).
            options[opt.name] = widget.value  # type: ignore[attr-defined]
        timer = int(self.query_one("#turn_timer", Select).value)  # type: ignore[arg-type]
        players = int(self.query_one("#players", Select).value)  # type: ignore[arg-type]
        self.dismiss(
            p.CreateTable(
                variant=variant.name,
                players=players,
                options=options,
                private=self.query_one("#private", TickBox).value,
                title=self.query_one("#title", Input).value,
                turn_timer=None if timer == -1 else timer,
                owner_starts=players >= 4,  # a waiting room: partners are chosen before the start
            )
        )

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_resize(self, event: events.Resize) -> None:
        # Below 70 columns a 40-column label left a value like `quem deu perde o jogo` as
        # `quem deu`: there the option labels get narrower and wrap (truco.tcss, -narrow).
        self.set_class(event.size.width < 70, "-narrow")

    # -- what the option in focus means ------------------------------------------------
    @on(events.DescendantFocus)
    def _explain_focused_option(self) -> None:
        # From the focus now, not the event's widget: after quick Tabs the events can
        # arrive out of order.
        focused = self.focused
        option = None if focused is None else next(
            (node for node in focused.ancestors_with_self if isinstance(node, Widget) and node.has_class("option")), None)
        meaning = option.tooltip if option is not None else None
        self.query_one("#option-help", Static).update(Text(str(meaning or "")))
        if focused is not None:  # the line's new height moves the options: keep the focus in view
            self.call_after_refresh(focused.scroll_visible, animate=False, immediate=True)
