"""The table screen at the smallest supported size (60x20), the usual one (80x24) and a
big one (200x50), in every language, with 16-character names and the longest call
labels: what a player needs is on screen, whole."""
from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator

import pytest
from rich.text import Text
from textual import events

import engine
import protocol as p
from tui.app import TrucoApp
from tui.calls import answers_a_bet, call_label
from tui.cards import card_text
from tui.event_text import log_lines
from tui.i18n import Translator
from tui.widgets.log_panel import LogPanel
from tui.screens.table import TableScreen

from tests.tui.table_states import LONG_NAMES, RESUME, Shown, longest_calls, spectator, to_play
from tests.tui.helpers import region_text, screen_text, until
from tests.tui.kit import FakeLink, welcome

SIZES = [(60, 20), (80, 24), (200, 50)]
LANGS = ["en", "es", "pt"]
# Each language with the variant it is played most in, and the largest table that
# variant has: the most seat rows and the most calls to fit.
TABLES = [("argentino", 6), ("uruguayo", 6), ("paulista", 4), ("venezolano", 4)]


@contextlib.asynccontextmanager
async def shown_at(shown: Shown, size: tuple[int, int], lang: str) -> AsyncIterator[tuple[TrucoApp, Any]]:
    link = FakeLink()
    me = shown.names[shown.seat or 0]
    app = TrucoApp(link, me, lang)
    link.push(*welcome(me), p.TableUpdated(table=shown.info), p.Seated(table_id="t1", seat=shown.seat))
    async with app.run_test(size=size) as pilot:
        await pilot.pause(0.1)
        link.push(shown.update())
        await pilot.pause(0.2)
        assert isinstance(app.screen, TableScreen)
        yield app, pilot


def assert_whole(text: str, words: list[str]) -> None:
    """Every place a word starts on screen, it is there whole (no `Nosot`, `Anasta…`)."""
    for word in (w for w in words if len(w) > 3):  # "Us", "Nós": too short to be cut
        stem = word[:5] if len(word) > 5 else word[:-1]
        assert text.count(stem) == sum(text.count(w) for w in words if w.startswith(stem)), (word, text)


def check_screen(app: TrucoApp, shown: Shown, lang: str) -> None:
    tr = Translator(lang)
    text = screen_text(app)
    view = engine.view(shown.state, shown.seat)
    french = view.card_notation == "french"
    # Every call this seat may make, by its whole label.
    actions = "\n".join(region_text(app, "#t-actions"))
    calls = shown.calls()
    for call in calls:  # (a raise among the answers to a bet accepts it too: "Quiero retruco")
        assert call_label(tr, shown.variant, call, answering=answers_a_bet(calls)) in actions, (call, actions)
    # Every card on the table, in the trick grid.
    tricks = "\n".join(region_text(app, "#t-tricks"))
    for trick in (*view.tricks, view.current_trick):
        for _seat, card in trick:
            assert card_text(str(card), french=french).plain in tricks, (card, tricks)
    # Your cards: each one's rank is drawn on its card.
    cards = "\n".join(region_text(app, "#t-cards"))
    for card in view.own_cards:
        assert card_text(str(card), french=french).plain[:-1] in cards
    # At least three lines of the log, the newest ones.
    log = app.screen.query_one("#t-log", LogPanel)
    assert log.region.height - 1 >= 3  # a rule above, then the lines
    model = app.table_model("t1")  # type: ignore[attr-defined]
    written = log_lines(tr, model, model.log, french)
    log_text = "\n".join(region_text(app, "#t-log"))
    rows_free = log.region.height - 1
    newest = []  # the newest lines, as many as fit whole (a long line wraps onto two rows)
    for line in reversed(written[-3:]):
        rows_free -= len(line.wrap(app.console, log.region.width))
        if rows_free < 0:
            break
        newest.append(line)
    assert newest, log_text
    for line in newest:
        assert line.plain[:20] in log_text, (line.plain, log_text)
    # Names whole: players, teams (in the score line, the seat rows and the trick headers).
    teams = [tr("table.us"), tr("table.them")] if shown.seat is not None else \
        [tr("table.team_n", n=1), tr("table.team_n", n=2)]
    assert_whole(text, list(shown.names) + (teams if shown.players > 3 else []))
    for team in teams if shown.players > 3 else []:
        assert team in "\n".join(region_text(app, "#t-score"))
    # The resume code's line keeps its end.
    if shown.seat is not None:
        assert tr("table.resume_code", code=RESUME) in " ".join(region_text(app, "#t-status"))
    # Nothing outside the screen.
    for widget_id in ("#t-seats", "#t-tricks", "#t-bets", "#t-cards", "#t-actions", "#t-log", "#t-keys"):
        region = app.screen.query_one(widget_id).region
        assert region.bottom <= app.size.height and region.right <= app.size.width, widget_id
        assert region.height > 0, widget_id


def check_bubbles(app: TrucoApp, shown: Shown, lang: str) -> None:
    """What a seat last said is whole, or ends in an ellipsis."""
    tr = Translator(lang)
    seats = region_text(app, "#t-seats")
    said: dict[int, tuple[str, ...]] = {}  # the words a seat may have said last
    for event in shown.events:
        if isinstance(event, (engine.HandDealt, engine.HandStarted)):
            said = {}  # a new hand, or a new pica-pica duel: what was said is over
        if isinstance(event, engine.Acted) and event.call not in ("play", "play_blind"):
            # (a raise said as an answer reads "Quiero retruco"; which of the two: test_raise_words)
            said[event.seat] = ((str(event.value),) if event.call == "declare_envido" else
                                tuple({call_label(tr, shown.variant, event.call, answering=a): 0 for a in (True, False)}))
    for seat, forms in said.items():
        row = next(line for line in seats if shown.names[seat] in line).rstrip()
        tail = row.split(shown.names[seat], 1)[1]
        if any(words in tail for words in forms):
            continue
        assert row.endswith("…"), (row, forms)
        assert any(words.startswith(cut[i:-1].strip()) for words in forms
                   for cut in [tail.rsplit(" ", 1)[-1] if " " not in words else tail]
                   for i in range(len(cut))), (row, forms)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("variant, players", TABLES)
async def test_what_a_player_needs_is_on_screen_whole(variant: str, players: int, lang: str,
                                                      size: tuple[int, int]) -> None:
    shown = longest_calls(variant, players, lang)
    async with shown_at(shown, size, lang) as (app, pilot):
        check_screen(app, shown, lang)
        check_bubbles(app, shown, lang)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_spectator_sees_team_names_whole(size: tuple[int, int]) -> None:
    shown = spectator(longest_calls("argentino", 4, "pt"))
    async with shown_at(shown, size, "pt") as (app, pilot):
        check_screen(app, shown, "pt")
        assert "Dupla 1" in screen_text(app)


async def test_a_trick_header_names_the_player_who_won_it_where_it_fits() -> None:
    """Never a team name cut to fit (`Nosot`): the winner's card is marked, and with
    room for it the header says the winner's whole name."""
    shown = longest_calls("argentino", 4, "es")
    view = engine.view(shown.state, shown.seat)
    won = [i for i, r in enumerate(view.trick_results) if r is not None]
    async with shown_at(shown, (200, 50), "es") as (app, pilot):
        header = region_text(app, "#t-tricks")[0]
        for i in won:
            winner = next(s for s in LONG_NAMES if f"{i + 1}ª {s}" in header)
            assert engine.view(shown.state, None).teams[LONG_NAMES.index(winner)] == view.trick_results[i]
        assert "Nosot " not in header and "Ellos" not in header
    async with shown_at(shown, (60, 20), "es") as (app, pilot):
        header = region_text(app, "#t-tricks")[0]
        assert "1ª" in header and not any(name[:5] in header for name in LONG_NAMES)


@pytest.mark.parametrize("lite", [False, True])
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("players", [4, 6])
async def test_the_log_keeps_six_lines_at_60x20(players: int, lang: str, lite: bool) -> None:
    """The smallest terminal, the most seats: while a hand is played the log shows at least
    six lines; read back with PgUp, it says how far back it is."""
    shown = to_play("argentino", players)
    async with shown_at(shown, (60, 20), lang) as (app, pilot):
        if lite:
            app.toggle_lite()
            await pilot.pause()  # (no delay: until the app is idle again, laid out in lite)
        log = app.screen.query_one("#t-log", LogPanel)

        def lines() -> int:
            return log.region.height - (log.styles.border_top[0] not in ("", "none"))
        await until(pilot, lambda: lines() >= 6, "six log lines", seen=lambda: screen_text(app))
        for i in range(20):
            log.write(Text(f"old line {i:02d}"))
        await pilot.press("pageup")
        await until(pilot, lambda: "↓" in "\n".join(region_text(app, "#t-log")), "the rule saying how far back",
                    seen=lambda: screen_text(app))


async def test_a_long_log_line_goes_on_under_an_indent() -> None:
    """A line wider than the log wraps at a space, and what does not fit goes on two columns
    in, so it is not read as a line of its own (a seña, a hand's closing line at 60 columns)."""
    said = ("Bot 2 te hace una seña: abre apenas la boca (un ancho falso, de oro o de copa) "
            "y después se toca la oreja")
    async with shown_at(to_play("argentino", 6), (60, 20), "es") as (app, pilot):
        app.screen.query_one("#t-log", LogPanel).write(Text(said))
        await until(pilot, lambda: "la oreja" in "\n".join(region_text(app, "#t-log")), "the line written")
        rows = [row.rstrip() for row in region_text(app, "#t-log")]
        start = next(i for i, row in enumerate(rows) if row.startswith("Bot 2 te hace"))
        shown = rows[start:]
        assert len(shown) >= 2 and all(row.startswith("  ") and not row.startswith("   ") for row in shown[1:])
        assert " ".join(row.strip() for row in shown) == said


async def test_the_log_scrolls_back_through_the_hands_the_client_keeps() -> None:
    shown = longest_calls("argentino", 2, "en")
    async with shown_at(shown, (80, 24), "en") as (app, pilot):
        log = app.screen.query_one("#t-log", LogPanel)
        for i in range(60):  # older lines than the pane has room for
            log.write(Text(f"old line {i:02d}"))
        await pilot.pause(0.05)
        assert "old line 59" in "\n".join(region_text(app, "#t-log"))
        assert "old line 00" not in "\n".join(region_text(app, "#t-log"))
        for _ in range(30):
            await pilot.press("pageup")
        await pilot.pause(0.05)
        top = "\n".join(region_text(app, "#t-log"))
        assert "Hand 1" in top or "old line 00" in top or log.lines[0].plain[:20] in top
        assert "↓" in top  # the pane says it is scrolled
        log.write(Text("a new line while reading back"))
        await pilot.pause(0.05)
        # The rows being read stay put (only the scroll mark in the rule above changes).
        assert region_text(app, "#t-log")[1:] == top.split("\n")[1:]
        for _ in range(30):
            await pilot.press("pagedown")
        await pilot.pause(0.05)
        bottom = "\n".join(region_text(app, "#t-log"))
        assert "a new line while reading back" in bottom and "↓" not in bottom
        # The wheel scrolls it too, as the terminal sends it: at the pointer's place.
        x, y = log.region.x + 2, log.region.y + 2
        app.post_message(events.MouseScrollUp(None, x, y, 0, -1, 0, False, False, False, screen_x=x, screen_y=y))
        await pilot.pause(0.05)
        assert log.scrolled == 3
        app.post_message(events.MouseScrollDown(None, x, y, 0, 1, 0, False, False, False, screen_x=x, screen_y=y))
        await pilot.pause(0.05)
        assert log.scrolled == 0


async def test_log_and_chat_are_separate_panes_and_c_still_chats() -> None:
    shown = longest_calls("argentino", 2, "es")
    link = FakeLink()
    app = TrucoApp(link, shown.names[shown.seat or 0], "es")
    link.push(*welcome(shown.names[0]), p.TableUpdated(table=shown.info), p.Seated(table_id="t1", seat=shown.seat))
    for size in ((80, 24), (60, 20)):
        async with app.run_test(size=size) as pilot:
            await pilot.pause(0.1)
            link.push(shown.update(),
                      p.Chat(line=p.ChatLine(sender="Bartolomeo_Funes", text="¡qué mano!", ts=0, table_id="t1")))
            await pilot.pause(0.2)
            log = "\n".join(region_text(app, "#t-log"))
            if size == (80, 24):
                assert "¡qué mano!" in "\n".join(region_text(app, "#t-chat-log"))
                assert "¡qué mano!" not in log  # the log is the game's
            else:  # 60x20: one pane for both, the chat line in it
                assert not app.screen.query_one("#t-chat-log").display
                assert "¡qué mano!" in log
            await pilot.press("c")
            await pilot.pause(0.1)
            await pilot.press(*"hola")
            await pilot.pause(0.1)
            assert app.screen.query_one("#t-chat").region.height == 1  # shown while typing
            await pilot.press("enter")
            await pilot.pause(0.1)
            assert [m for m in link.sent if isinstance(m, p.TableChat)][-1].text == "hola"
        link = FakeLink()
        app = TrucoApp(link, shown.names[shown.seat or 0], "es")
        link.push(*welcome(shown.names[0]), p.TableUpdated(table=shown.info),
                  p.Seated(table_id="t1", seat=shown.seat))
