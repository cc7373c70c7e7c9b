"""The lobby end to end: real SSH clients with PTYs, their screens read with pyte."""
from __future__ import annotations

import asyncio

import asyncssh
import pytest

from tests.e2e.harness import ScreenClient, running_server
from tests.e2e.helpers import (
    KEY_CTRL_S, KEY_ENTER, chat_area, close_all, in_lobby_as, lobby_client, players_pane,
    lobby_word, press_escape, say, table_seats, title_of,
)

pytestmark = pytest.mark.e2e


# -- 1. two players: presence, chat, a table ------------------------------------------------

async def test_two_players_see_each_other_chat_and_fill_a_table(tmp_path):
    async with running_server(tmp_path) as srv:
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
        try:
            await ana.wait_for(lambda t: "beto" in players_pane(t))
            await beto.wait_for(lambda t: "ana" in players_pane(t))
            assert "2 online" in title_of(beto.text())

            await say(ana, "hola beto, todo bien?")
            await beto.wait_for(lambda t: "ana: hola beto, todo bien?" in chat_area(t))
            await ana.wait_for(lambda t: "ana: hola beto, todo bien?" in chat_area(t))

            await press_escape(ana)  # from the chat input back to the tables
            ana.send("n")
            await ana.wait_for("New table")
            ana.send(KEY_CTRL_S)  # create with the defaults: Argentine, 2 players
            # The creator sits at the new table and sees it waiting for a player ...
            await ana.wait_for(lambda t: "New table" not in t and "Waiting for 1 more player" in t)
            # ... which the others see in the lobby, one seat of two taken.
            await beto.wait_for(lambda t: table_seats(t, "ana") == "1/2")

            beto.send("j")  # the only table is the selected row: the game starts
            await beto.wait_for("Hand 1")
            await ana.wait_for("Hand 1")
            for client in (ana, beto):
                text = client.text()
                assert "ana *" in text or "beto *" in text  # each sees itself marked at the table
        finally:
            await close_all(ana, beto)


# -- 2. hostile text is shown literally and harmlessly --------------------------------------

MARKUP_NAME = "[@click=app.quit]x[/]"


def _find(client: ScreenClient, needle: str) -> tuple[int, int] | None:
    for y, line in enumerate(client.text().splitlines()):
        x = line.find(needle)
        if x >= 0:
            return x, y
    return None


def _click(client: ScreenClient, x: int, y: int) -> None:
    """A left click (SGR mouse report, 1-based) at screen cell x, y (0-based)."""
    client.send(f"\x1b[<0;{x + 1};{y + 1}M\x1b[<0;{x + 1};{y + 1}m")


def _input_is(text: str, value: str) -> bool:
    """The name input's row holds ``value`` and nothing else."""
    return any(line.strip(" │▊▎") == value for line in text.splitlines())


async def test_markup_username_gets_choose_name_screen_and_is_shown_literally(tmp_path):
    async with running_server(tmp_path) as srv:
        client = ScreenClient()
        await client.connect(srv.port, MARKUP_NAME)
        try:
            text = await client.wait_for("Choose your name")
            assert f'"{MARKUP_NAME}" cannot be used' in text
            where = _find(client, MARKUP_NAME)
            assert where is not None
            _click(client, where[0] + MARKUP_NAME.index("x"), where[1])
            # A key typed after the click and its echo: the click has been handled by then.
            client.send("\x1b[F")  # End: the suggestion is selected, a letter would replace it
            client.send("z")
            # (on a loaded machine the click's focus can land after the End key and select the
            # suggestion again, so the z replaced it: either way the session goes on)
            text = await client.wait_for(lambda t: "clickapp.quitxz" in t or _input_is(t, "z"), 15)
            assert not client.closed.is_set(), "clicking the shown name ended the session"
            if "clickapp.quitxz" in text:
                client.send("\x7f")
                await client.wait_for(lambda t: "clickapp.quitxz" not in t, 15)
                # The suggestion (the name without its bad characters) is in the input: Enter takes it.
                assert "clickapp.quitx" in client.text()
            else:
                client.send("\x7fclickapp.quitx")
                await client.wait_for(lambda t: _input_is(t, "clickapp.quitx"), 15)
            client.send(KEY_ENTER)
            await client.wait_for(in_lobby_as("clickapp.quitx"))
        finally:
            await client.close()


async def test_markup_in_chat_is_shown_literally_to_others(tmp_path):
    async with running_server(tmp_path) as srv:
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
        try:
            for line in (MARKUP_NAME, "[/", "[red]rojo"):
                await say(ana, line)
                await beto.wait_for(lambda t, line=line: f"ana: {line}" in chat_area(t))
                await press_escape(ana)
            # "[red]" did not colour anything: the word after it has beto's default colour.
            x, y = _find(beto, "[red]rojo")
            rojo = [beto.screen.buffer[y][x + 5 + i] for i in range(4)]
            assert "".join(c.data for c in rojo) == "rojo"
            assert all(c.fg != "red" for c in rojo), [c.fg for c in rojo]
            # Clicking the would-be link does nothing either.
            x, y = _find(beto, f"ana: {MARKUP_NAME}")
            _click(beto, x + len("ana: [@click=app.quit]"), y)
            await press_escape(beto)  # the click has been handled by then
            assert not beto.closed.is_set(), "clicking a chat line ended the session"
            await say(ana, "still here?")
            await beto.wait_for(lambda t: "ana: still here?" in chat_area(t))
        finally:
            await close_all(ana, beto)


HOSTILE_PIECES = {
    "osc52": "\x1b]52;c;SGVsbG8=\x07",
    "clear": "\x1b[2J",
    "c1_csi": "\x9b",
    "bidi": "\u202e",
    "zero_width": "\u200b",
}


@pytest.mark.parametrize("how", ["typed", "pasted", "pasted_without_esc"])
async def test_escape_sequences_in_chat_never_reach_other_terminals(tmp_path, how):
    """Control bytes typed (or pasted) into the chat: the other player's terminal gets only
    the visible words, never ESC/OSC 52/C1/bidi/zero-width."""
    line = ("abc" + HOSTILE_PIECES["osc52"] + "def" + HOSTILE_PIECES["clear"] + "ghi"
            + HOSTILE_PIECES["c1_csi"] + "jkl" + HOSTILE_PIECES["bidi"] + "mno"
            + HOSTILE_PIECES["zero_width"] + "pqr")
    if how == "pasted_without_esc":
        # Textual's parser stops a paste at the first ESC; without one, the other controls
        # reach the chat input as they are, and only the server's cleaning stands in the way.
        line = "abc\x07def\x9bghi\u202ejkl\u200bmno\u2066pqr"
    async with running_server(tmp_path) as srv:
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
        try:
            raw_before = len(beto.raw)
            if how == "typed":
                await say(ana, line)
            else:
                await say(ana, "\x1b[200~" + line + "\x1b[201~")
            # Whatever the sender's terminal parser kept, the line starts and ends visibly.
            shown = await beto.wait_for(lambda t: "ana: " in chat_area(t) and "pqr" in chat_area(t))
            # Everything the line caused has reached beto once a later line has.
            await say(ana, "marker")
            await beto.wait_for(lambda t: "ana: marker" in chat_area(t), 15)
            received = bytes(beto.raw[raw_before:]).decode("utf-8", "replace")
            for name, piece in HOSTILE_PIECES.items():
                assert piece not in received, f"{name} reached the other terminal"
            # No OSC at all (OSC 52 would write the viewer's clipboard), no BEL, no C1 CSI.
            # (The base64 text itself may arrive as harmless visible characters: the sender's
            # terminal parser turns the unknown sequence into the keys "^", "]", "5", "2"...)
            assert "\x1b]" not in received
            assert "\x07" not in received
            assert "\x9b" not in received
            assert "\u2066" not in received
            # The visible remainder of the line is there, in order.
            chat = chat_area(shown)
            visible = chat[chat.index("ana: "):]
            words = ("abc", "def", "ghi", "jkl", "mno", "pqr")
            for word in words:
                assert word in visible, chat
            if how == "typed":  # (Textual's parser reorders a paste that contains ESC)
                order = [visible.index(word) for word in words]
                assert order == sorted(order), chat
            # beto's app is alive and still drawing.
            await press_escape(ana)
            await say(ana, "after")
            await beto.wait_for(lambda t: "ana: after" in chat_area(t))
        finally:
            await close_all(ana, beto)


# -- 3. identity: names reserved by SSH key -------------------------------------------------

async def test_key_reserves_name_and_guests_cannot_take_it(tmp_path):
    alice_key = asyncssh.generate_private_key("ssh-ed25519")
    other_key = asyncssh.generate_private_key("ssh-ed25519")
    async with running_server(tmp_path) as srv:
        alice = await lobby_client(srv.port, "alice", client_keys=[alice_key])
        assert "(guest)" not in title_of(alice.text())
        await alice.close()

        for who, keys in (("a guest", None), ("another key", [other_key])):
            impostor = ScreenClient()
            await impostor.connect(srv.port, "alice", client_keys=keys)
            try:
                text = await impostor.wait_for("Choose your name")
                assert "belongs to another player's SSH key" in text, who
                assert "alice2" in text, f"{who}: no suggested name on screen"
                assert "Lobby" not in title_of(text)
            finally:
                await impostor.close()

        again = await lobby_client(srv.port, "alice", client_keys=[alice_key])
        assert "(guest)" not in title_of(again.text())
        await again.close()


async def test_name_online_as_guest_is_refused_to_another_guest(tmp_path):
    async with running_server(tmp_path) as srv:
        first = await lobby_client(srv.port, "carla")
        second = ScreenClient()
        await second.connect(srv.port, "carla")
        try:
            text = await second.wait_for("Choose your name")
            assert "already online" in text
            assert "carla2" in text
            # The first session is untouched (and answers keys after the refusal).
            await press_escape(first)
            assert not first.closed.is_set()
            assert in_lobby_as("carla")(first.text())
        finally:
            await close_all(first, second)


# -- 6. language ----------------------------------------------------------------------------

async def test_spanish_from_lang_and_g_switches_to_english(tmp_path):
    from tui.i18n import LANGUAGES

    async with running_server(tmp_path) as srv:
        client = await lobby_client(srv.port, "dora", env={"LANG": "es_AR.UTF-8"}, lobby_word="Salón")
        try:
            assert "Lobby" not in title_of(client.text())
            assert "Pick a table" not in client.text()
            # g moves to the next language; with English and Spanish only, that is English.
            for _ in range(len(LANGUAGES) - 1):
                word = lobby_word(client.text())
                client.send("g")
                text = await client.wait_for(lambda t, word=word: lobby_word(t) not in ("", word))
                if lobby_word(text) == "Lobby":
                    break
            await client.wait_for(in_lobby_as("dora", lobby_word="Lobby"))
            assert "Pick a table" in client.text()
        finally:
            await client.close()


async def test_same_key_again_replaces_the_old_session(tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with running_server(tmp_path) as srv:
        old = await lobby_client(srv.port, "erik", client_keys=[key])
        new = await lobby_client(srv.port, "erik", client_keys=[key])
        try:
            await asyncio.wait_for(old.closed.wait(), 10)
            assert old.process.exit_status == 0
            await press_escape(new)
            assert not new.closed.is_set()
            assert "1 online" in title_of(new.text())
        finally:
            await close_all(old, new)


# -- shutdown -------------------------------------------------------------------------------

async def test_server_stop_ends_every_session_cleanly(tmp_path):
    async with running_server(tmp_path) as srv:
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
    try:
        for client in (ana, beto):
            await asyncio.wait_for(client.closed.wait(), 5)
            assert client.process.exit_status == 0
            # The terminal is given back: alternate screen left, mouse off, cursor shown.
            tail = bytes(client.raw[-200:])
            assert b"\x1b[?1049l" in tail and b"\x1b[?1000l" in tail and b"\x1b[?25h" in tail
    finally:
        await close_all(ana, beto)


@pytest.mark.parametrize("why", ["shutdown", "replaced"])
async def test_players_are_told_why_their_session_ended(tmp_path, why):
    key = asyncssh.generate_private_key("ssh-ed25519")
    expected = {"shutdown": "The server is shutting down", "replaced": "You logged in again"}[why]
    async with running_server(tmp_path) as srv:
        ana = await lobby_client(srv.port, "ana", client_keys=[key])
        again = None
        if why == "replaced":
            again = await lobby_client(srv.port, "ana", client_keys=[key])
            await asyncio.wait_for(ana.closed.wait(), 10)
    try:
        await asyncio.wait_for(ana.closed.wait(), 5)
        # The app leaves the alternate screen, then the session prints one line for the shell.
        raw = bytes(ana.raw).decode("utf-8", "replace")
        after_app = raw[raw.rfind("\x1b[?1049l"):]
        assert f"truco-ssh: {expected}" in after_app, after_app[-300:]
    finally:
        await close_all(*(c for c in (ana, again) if c is not None))
