"""The key bar never loses a key: where one line is too narrow (the lobby at 60 columns)
it breaks between keys onto a second line, and a key is never split from its words. It keeps
the rows it has needed at a width, so the screen above it does not move with the keys."""
from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

import engine
from engine.testing import act, scenario
from tests.tui.helpers import screen_text
from tests.tui.kit import lobby_app, table_shown, update_for, variant_app
from tui.i18n import Translator
from tui.screens.table import TableScreen
from tui.widgets.keybar import KeyBar, key_line


def test_key_line_breaks_between_keys_only() -> None:
    pairs = [("n", "Nueva"), ("j", "Entrar"), ("?", "Ayuda"), ("q", "Salir")]
    assert key_line(pairs).plain == "n Nueva  j Entrar  ? Ayuda  q Salir"
    assert key_line(pairs, 20).plain == "n Nueva  j Entrar\n? Ayuda  q Salir"


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
async def test_the_lobby_key_bar_keeps_every_key_at_60_columns(lang: str) -> None:
    app, _link = await lobby_app(lang=lang)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause(0.3)
        bar = app.screen.query_one("#lobby-keys" if app.screen.query("#lobby-keys") else "KeyBar")
        rows = screen_text(app).splitlines()[bar.region.y:bar.region.bottom]
        shown = " ".join(rows)
        for key in ("n ", "j ", "p ", "s ", "t ", "? ", "q "):
            assert key in shown, (key, rows)
        assert bar.region.height <= 3 and bar.region.bottom <= 20  # every key, on at most three rows


# -- the bar keeps the rows it has needed, so the screen above it does not move -----------

TWO_ROWS = [("q", "Quiero"), ("n", "No quiero"), ("e", "Envido"), ("r", "Real envido"),
            ("f", "Falta envido"), ("c", "Chat"), ("l", "Dejar"), ("?", "Ayuda")]
ONE_ROW = [("1-3", "Carta"), ("c", "Chat"), ("l", "Dejar"), ("?", "Ayuda")]


class _BarApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("the table", id="above")
        yield KeyBar()


def _bar_rows(app: App[None]) -> list[str]:
    bar = app.screen.query_one(KeyBar)
    return [row.strip() for row in screen_text(app).splitlines()[bar.region.y:bar.region.bottom]]


async def test_the_bar_keeps_its_second_row_until_the_width_changes() -> None:
    app = _BarApp()
    async with app.run_test(size=(60, 12)) as pilot:
        bar = app.screen.query_one(KeyBar)
        bar.show(ONE_ROW)
        await pilot.pause()
        assert _bar_rows(app) == ["1-3 Carta  c Chat  l Dejar  ? Ayuda"]
        bar.show(TWO_ROWS)  # an envido to answer: the keys need two rows at 60 columns
        await pilot.pause()
        assert len(_bar_rows(app)) == 2 and all(_bar_rows(app))
        above = app.screen.query_one("#above").region
        bar.show(ONE_ROW)  # the cards again: one row of keys, the second kept empty
        await pilot.pause()
        assert _bar_rows(app) == ["1-3 Carta  c Chat  l Dejar  ? Ayuda", ""]
        assert app.screen.query_one("#above").region == above  # nothing above it moved
        await pilot.resize_terminal(120, 12)  # wider: the rows are worked out again
        await pilot.pause()
        assert len(_bar_rows(app)) == 1


class _EarlyBarApp(App[None]):
    """Shows its keys on mount, before any layout, as the table and lobby screens do."""

    heights: list[int] = []

    def compose(self) -> ComposeResult:
        yield Static("the table")
        yield KeyBar()

    def on_mount(self) -> None:
        bar = self.screen.query_one(KeyBar)
        bar.show(TWO_ROWS)
        assert bar.styles.height is not None
        self.heights.append(int(bar.styles.height.value))


async def test_keys_shown_before_the_first_layout_get_the_rows_of_the_terminals_width() -> None:
    # (Worked out at width 0 they took one row, and the first resize asked for a second
    # layout of the whole screen to give them two.)
    app = _EarlyBarApp()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        assert app.heights == [2]
        assert len(_bar_rows(app)) == 2 and all(_bar_rows(app))


# -- a short terminal's bar while answering: chat and leave only where they fit -------------

async def _answer_bar(state: engine.State, variant: str, lang: str, size: tuple[int, int]) -> tuple[list[str], int]:
    """The table's key bar rows for ana (seat 0), who must answer, and the rows the
    answers alone take at that width."""
    app, link = await variant_app(state, 0, variant, lang=lang)
    async with table_shown(app, link, update_for(state, 0, 2), size=size):
        screen = app.screen
        assert isinstance(screen, TableScreen) and screen.answering()
        rows = [row for row in _bar_rows(app) if row]
        bar = screen.key_bar()
        answers = [(k, words) for k, words in bar.pairs if words not in (
            str(app.tr(d)) for d in ("key.chat", "key.leave_table"))]
        return rows, len(key_line(answers, bar.region.width).split("\n"))


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
async def test_a_short_bar_keeps_chat_and_leave_where_the_answers_leave_room(lang: str) -> None:
    # A truco from the other player in the Paulista game: three answers, room for the rest.
    state, _ = scenario({0: "Qc Jc Kc", 1: "Qh Jh Kh"}, n=2, variant="paulista", face_up="As")
    state, _ = act(state, (0, "play", "Qc"), (1, "truco"))
    rows, _ = await _answer_bar(state, "paulista", lang, (60, 20))
    shown = "  ".join(rows)
    assert len(rows) == 1, rows
    for words in ("key.chat", "key.leave_table", "key.help"):
        assert Translator(lang)(words) in shown, (words, rows)


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
async def test_a_short_bar_drops_chat_and_leave_before_it_takes_another_row(lang: str) -> None:
    # A truco in the Argentine game's first trick: the envido comes first, six answers.
    state, _ = scenario({0: "4c 5o 6b", 1: "4e 5c 6o"}, n=2, dealer=0, flor=False)
    state, _ = act(state, (1, "truco"))
    rows, alone = await _answer_bar(state, "argentino", lang, (60, 20))
    assert len(rows) == alone, rows  # the answers' rows: none added for chat and leave
    # Taller, the bar lists every key (the log has room).
    rows, _ = await _answer_bar(state, "argentino", lang, (60, 30))
    shown = "  ".join(rows)
    assert Translator(lang)("key.chat") in shown and Translator(lang)("key.leave_table") in shown
