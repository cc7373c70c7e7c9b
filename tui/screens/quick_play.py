"""Quick play's small chooser (``p`` in the lobby): the game and the table size.

The cursor starts on the last choice of this session, else on the game and size of the last
table sat at, else on the game of the player's language for two; Enter asks for it
(``QuickPlay``), Esc goes back.
"""
from __future__ import annotations

from typing import Iterable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

import protocol as p
from tui.screens.base import TrucoModalScreen, unless_popped
from tui.widgets.keybar import KeyBar


def quick_choices(variants: Iterable[p.VariantInfo]) -> list[tuple[str, int]]:
    return [(v.name, n) for v in variants if v.implemented for n in v.player_counts]


class QuickPlayScreen(TrucoModalScreen[tuple[str, int] | None]):
    BINDINGS = [Binding("escape", "cancel", "", show=False)]
    DEFAULT_CSS = "QuickPlayScreen OptionList { height: auto; max-height: 10; }"

    def __init__(self, variants: Iterable[p.VariantInfo], preferred: tuple[str, int]) -> None:
        super().__init__()
        self._choices = quick_choices(variants)
        self._preferred = preferred


    def _label(self, variant: str, players: int) -> Text:
        game = self.tr(f"variant.{variant}") if self.tr.has_default(f"variant.{variant}") else variant
        return Text(f"{game} · {self.tr('form.n_players', n=players)}")

    def compose(self) -> ComposeResult:
        tr = self.tr
        with Vertical(classes="dialog small"):
            yield Static(Text(tr("quick.title"), style="bold"))
            yield Static(Text(tr("quick.about"), style="dim"))
            yield OptionList(*(Option(self._label(v, n), id=f"{v}/{n}") for v, n in self._choices),
                             id="quick-choices")
            bar = KeyBar()
            bar.show([("↑↓ Enter", tr("key.pick")), ("Esc", tr("key.cancel"))])
            yield bar

    @unless_popped
    def on_mount(self) -> None:
        choices = self.query_one("#quick-choices", OptionList)
        if self._preferred in self._choices:
            choices.highlighted = self._choices.index(self._preferred)
        elif self._choices:
            choices.highlighted = 0
        choices.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        variant, players = str(event.option.id).split("/")
        self.dismiss((variant, int(players)))

    def action_cancel(self) -> None:
        self.dismiss(None)
