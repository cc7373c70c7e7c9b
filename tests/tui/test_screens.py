"""Pilot tests of the screens, fed with protocol events through a fake link."""
from __future__ import annotations


import pytest
from textual.widgets import Checkbox, DataTable, Input, OptionList, Select

import protocol as p
from tui.app import TrucoApp
from tui.screens.choose_name import ChooseNameScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.new_table import NewTableScreen

from tests.tui.helpers import screen_text, until
from tests.tui.kit import FakeLink, Lobby, lobby_app, welcome

HOSTILE = "[@click=app.quit]x[/]"


def hostile_shown(app: TrucoApp) -> bool:
    """The lobby lists the hostile player, table and chat line (the lists may be redrawn later)."""
    players = app.screen.query_one("#players", OptionList)
    return ("[/" in [str(players.get_option_at_index(i).prompt) for i in range(players.option_count)]
            and "t1" in app.screen.query_one("#tables", DataTable).rows
            and any(HOSTILE in strip.text for strip in app.screen.query_one("#chat-log").lines))


async def test_lobby_fits_80x24_and_shows_keys(lobby: Lobby) -> None:
    app, link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and "Quit" in screen_text(app), "the lobby drawn")
        assert isinstance(app.screen, LobbyScreen)
        assert link.sent[0] == p.ClaimName(name="ana", lang="en")
        for widget_id in ("#title-bar", "#players", "#tables", "#chat-log", "#chat-input", "#keys"):
            region = app.screen.query_one(widget_id).region
            assert region.width > 0 and region.height > 0
            assert region.right <= 80 and region.bottom <= 24, widget_id
        shot = screen_text(app)
        assert "New" in shot and "Join" in shot and "Quit" in shot


async def test_hostile_names_and_chat_render_literally(lobby: Lobby) -> None:
    app, link = lobby
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        link.push(
            p.PlayerUpdated(player=p.PlayerInfo(name="[/")),
            p.Chat(line=p.ChatLine(sender="[/", text=HOSTILE, ts=0)),
            p.TableUpdated(table=p.TableInfo(table_id="t1", title=HOSTILE, variant="argentino",
                                             owner="[/", seats=("[/", None), options={"target": 30})),
        )
        await until(pilot, lambda: hostile_shown(app), "the hostile names listed")
        players = app.screen.query_one("#players", OptionList)
        assert "[/" in [str(players.get_option_at_index(i).prompt) for i in range(players.option_count)]
        table = app.screen.query_one("#tables", DataTable)
        assert str(table.get_row("t1")[0]) == HOSTILE
        log_lines = [strip.text for strip in app.screen.query_one("#chat-log").lines]
        assert any(HOSTILE in line for line in log_lines)
        assert app.is_running  # nothing was clicked or quit by markup


async def test_unusable_username_asks_for_a_name() -> None:
    link = FakeLink()
    app = TrucoApp(link, "root", "en")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChooseNameScreen), "the name asked")
        assert isinstance(app.screen, ChooseNameScreen)
        assert link.sent == []  # nothing claimed for "root"
        await pilot.press("ctrl+u", *"[/", "enter")
        assert link.sent == []  # refused locally
        await pilot.press("ctrl+u", *"Ana", "enter")
        assert link.sent == [p.ClaimName(name="Ana", lang="en")]
        link.push(p.NameRefused(name="Ana", reason="taken", suggestion="Ana2"))
        await until(pilot, lambda: app.screen.query_one("#name-input", Input).value == "Ana2", "the suggestion")
        assert app.screen.query_one("#name-input", Input).value == "Ana2"
        assert "already online" in screen_text(app)
        link.push(*welcome("Ana2"))
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        assert isinstance(app.screen, LobbyScreen)


async def test_new_table_form_is_built_from_variant_data(lobby: Lobby) -> None:
    app, link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NewTableScreen) and bool(app.screen.query("#opt-flor")),
                    "the new table form")
        form = app.screen
        assert form.query_one("#opt-flor", Checkbox).value is True
        assert form.query_one("#opt-target", Select).value == 30
        # Switch to a variant the TUI has never heard of: its option appears, at its default.
        form.query_one("#variant", Select).value = "invented"
        await until(pilot, lambda: bool(form.query("#opt-made_up"))
                    and form.query_one("#opt-made_up", Select).value == "b", "the invented variant's option")
        assert not form.query("#opt-flor")
        players = form.query_one("#players", Select)
        assert players.value == 3
        form.query_one("#opt-made_up", Select).value = "c"
        players.value = 5
        await pilot.press("ctrl+s")
        await until(pilot, lambda: any(isinstance(m, p.CreateTable) for m in link.sent) and isinstance(app.screen, LobbyScreen),
                    "the table asked for, the form closed")
        assert link.sent[-1] == p.CreateTable(variant="invented", players=5, options={"made_up": "c"},
                                             private=False, title="", owner_starts=True)
        assert isinstance(app.screen, LobbyScreen)


async def test_new_table_form_sends_changed_options(lobby: Lobby) -> None:
    app, link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NewTableScreen) and bool(app.screen.query("#opt-flor")), "the new table form")
        form = app.screen
        form.query_one("#opt-flor", Checkbox).value = False
        form.query_one("#opt-target", Select).value = 15
        form.query_one("#private", Checkbox).value = True
        form.query_one("#title", Input).value = "mesa"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: any(isinstance(m, p.CreateTable) for m in link.sent), "the table asked for")
        assert link.sent[-1] == p.CreateTable(variant="argentino", players=2,
                                             options={"target": 15, "flor": False}, private=True, title="mesa")


async def test_form_escape_cancels(lobby: Lobby) -> None:
    app, link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NewTableScreen) and bool(app.screen.query("#opt-flor")), "the new table form")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the form closed")
        await pilot.pause()  # (what it chose is handed on next)
        assert isinstance(app.screen, LobbyScreen)
        assert not any(isinstance(m, p.CreateTable) for m in link.sent)


async def test_chat_key_focuses_input_at_once_and_sends(lobby: Lobby) -> None:
    app, link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.press("c", *"hola", "enter")  # no pause between "c" and the text
        assert link.sent[-1] == p.SendChat(text="hola")
        await pilot.press("escape", "j")
        assert isinstance(app.focused, DataTable)


async def test_language_switch_and_spanish_start() -> None:
    app, link = await lobby_app(lang="es")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "Salir" in screen_text(app), "the lobby in Spanish")
        assert "Salón" in screen_text(app)
        assert "Salir" in screen_text(app)  # the whole key bar fits in 80 columns
        await pilot.press("g")
        await until(pilot, lambda: "Saguão" in screen_text(app), "the lobby in Portuguese")
        assert "Saguão" in screen_text(app)
        await pilot.press("g")
        await until(pilot, lambda: "Lobby" in screen_text(app), "the lobby in English")
        shot = screen_text(app)
        assert "Lobby" in shot and "Salón" not in shot


@pytest.mark.parametrize("size", [(20, 10), (300, 100), (80, 24), (40, 12)])
async def test_lobby_survives_any_clamped_size(size: tuple[int, int], lobby: Lobby) -> None:
    app, link = lobby
    async with app.run_test(size=size) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        await pilot.resize_terminal(*size)
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen) and app.screen.size == app.size, "the lobby at its size")
        assert isinstance(app.screen, LobbyScreen)


async def test_server_hang_up_ends_the_app(lobby: Lobby) -> None:
    app, link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        link.push(p.Notice(code="shutdown"))
        # Said on the screen first (issue 13: the notice was never seen), then the app ends.
        await until(pilot, lambda: "The server is shutting down" in screen_text(app), "the notice shown")
        assert app.return_value is None
        await until(pilot, lambda: app.return_value is not None, "the app ended", timeout=15.0)
    assert app.return_value == "shutdown"


async def test_lobby_describes_the_selected_table_with_its_changed_options(lobby: Lobby) -> None:
    app, link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        link.push(p.TableUpdated(table=p.TableInfo(
            table_id="t1", title="la mesa", variant="argentino", owner="beto", seats=("beto", None),
            options={"target": 15, "flor": True}, turn_timer=30)))
        await until(pilot, lambda: "la mesa" in screen_text(app).splitlines()[1], "the table described")
        status = screen_text(app).splitlines()[1]
        assert "la mesa" in status and "Points to win a game: 15" in status and "30 s per move" in status
        assert "Flor" not in status  # unchanged options are not listed


@pytest.mark.parametrize("length, quoted", [(30, "a" * 30 + '"'), (40, "a" * 31 + '…"')])
async def test_a_too_long_username_is_told_it_is_too_long(length: int, quoted: str) -> None:
    """Quoted whole up to 32 characters; a longer one is cut where the quote says so."""
    link = FakeLink()
    app = TrucoApp(link, "a" * length, "es")
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ChooseNameScreen), "the name prompt")
        said = dialog_words(app)
        assert "demasiado largo" in said and "16 caracteres como máximo" in said, said
        assert '"' + quoted in said.replace(" ", ""), said
        assert "cuenta del sistema" not in said
        assert link.sent == []


async def test_a_chat_line_is_in_sight_as_soon_as_it_is_written_even_with_the_log_full(lobby: Lobby) -> None:
    """A line to a lobby chat log already full is at the bottom, scrolled into sight, when it
    is written: not one refresh later (RichLog's own auto-scroll waits for one, and the
    line reached the players' terminals a frame late)."""
    app, _link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        log = screen.query_one("#chat-log")
        for n in range(12):
            screen.server_changed(p.Chat(line=p.ChatLine(sender="beto", text=f"line {n}", ts=0)))
            assert log.scroll_offset.y == log.max_scroll_y, n
        assert log.max_scroll_y > 0  # the log was full, and scrolled
        await pilot.pause()
        assert "line 11" in screen_text(app)


async def test_a_long_chat_line_wraps_to_the_log_at_60_columns_and_again_after_a_resize(lobby: Lobby) -> None:
    """All of a long line is in sight at 60x20, wrapped to the chat log's width (RichLog wraps
    to 78 columns unless told: the middle was cut off, behind a sideways scrollbar), and
    wrapped again when the terminal narrows."""
    app, link = lobby
    words = "hola a todos esta es una linea bastante larga para ver si se desplaza bien FIN".split()
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        link.push(p.Chat(line=p.ChatLine(sender="beto", text=" ".join(words), ts=0)))
        log = app.screen.query_one("#chat-log")
        for size in ((100, 30), (60, 20)):
            await pilot.resize_terminal(*size)
            await until(pilot, lambda: "FIN" in screen_text(app) and not log.show_horizontal_scrollbar,
                        f"the line wrapped at {size}")
            assert log.virtual_size.width <= log.scrollable_content_region.width
            shown = screen_text(app)
            assert all(word in shown for word in words), shown


def dialog_words(app: TrucoApp) -> str:
    """The screen's words in one line, the dialog's borders left out (a sentence wraps)."""
    return " ".join(screen_text(app).replace("│", " ").split())


@pytest.mark.parametrize("lang, guest, plain", [
    ("en", "you play as a guest", "Pick another name, or connect with that key."),
    ("es", "jugás como invitado", "Elegí otro nombre o conectate con esa clave."),
    ("pt", "você joga como convidado", "Escolha outro nome ou conecte com essa chave.")])
async def test_a_login_name_of_another_key_says_the_player_is_a_guest(lang: str, guest: str, plain: str) -> None:
    """Connected with a key as a name another key holds: the server did not use the key
    (server/ssh/server.py), so a name picked now is a guest's, and the screen says so and
    how to keep a name with one's key; a name typed in the form and refused so is told
    the plain way (the connection may have its key). All of it in view at 60x20."""
    link = FakeLink()
    app = TrucoApp(link, "ana", lang)
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: bool(link.sent), "the login name claimed")
        link.push(p.NameRefused(name="ana", reason="reserved_key", suggestion="ana2"))
        await until(pilot, lambda: isinstance(app.screen, ChooseNameScreen) and guest in dialog_words(app),
                    "the name asked, as a guest")
        shown = dialog_words(app)
        assert "ssh" in shown and "@host" in shown, shown
        assert app.screen.query_one("#name-input", Input).region.bottom <= 20
        await pilot.press("ctrl+u", *"bob", "enter")
        link.push(p.NameRefused(name="bob", reason="reserved_key", suggestion="bob2"))
        await until(pilot, lambda: plain in dialog_words(app), "the typed name's refusal")
        assert guest not in dialog_words(app)


@pytest.mark.parametrize("lang, last, expected", [("en", None, "argentino"), ("pt", None, "paulista"),
                                                  ("es", "uruguayo", "uruguayo")])
async def test_the_new_table_form_opens_on_my_game(lang: str, last: str | None, expected: str) -> None:
    """As quick play does: the game of the last table sat at, else the language's."""
    from tests.tui.kit import in_lobby_after, lobby_last_at

    app, link = lobby_last_at(last, lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await in_lobby_after(pilot, app, link, last)  # (I sat at a table of that game, then left)
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, NewTableScreen) and bool(app.screen.query("#variant")),
                    "the new table form")
        assert app.screen.query_one("#variant", Select).value == expected
