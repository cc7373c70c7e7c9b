"""Helpers shared by the end-to-end tests: reading the lobby screen, typing like a person."""
from __future__ import annotations

import asyncio
import re

from tests.e2e.harness import ScreenClient

KEY_CTRL_S = "\x13"
KEY_ESC = "\x1b"
KEY_ENTER = "\r"


def title_of(text: str) -> str:
    """The lobby's title bar (first screen line)."""
    return text.splitlines()[0] if text else ""


def lobby_word(text: str) -> str:
    """The first word of the title bar after the app name: "Lobby", "Salón"..."""
    m = re.match(r"\s*truco-ssh\s+(\S+) · ", title_of(text))
    return m.group(1) if m else ""


def in_lobby_as(name: str, *, lobby_word: str = "Lobby"):
    """Predicate: the title bar shows the lobby for player ``name``."""
    # "·" separates the parts; a terminal without UTF-8 gets "-" (server/session/ascii_out.py).
    pattern = re.compile(rf"{re.escape(lobby_word)} [·-] {re.escape(name)}( \(|\s[·-])")

    def check(text: str) -> bool:
        return bool(pattern.search(title_of(text)))

    check.__name__ = f"in_lobby_as({name!r})"
    return check


def _input_row(client: ScreenClient) -> int:
    """The chat input sits just above the key bar, which takes one or two rows (it breaks
    between keys where they do not fit) and keeps a row it needed before, empty, below its
    keys: the bar's rows with keys start at the left edge, the input's not."""
    rows = client.lines()
    row = len(rows) - 1
    while row > 0 and not rows[row].strip():  # a row the key bar keeps empty
        row -= 1
    while row > 0 and rows[row][:1].strip():
        row -= 1
    return row


def _input_bg(client: ScreenClient) -> str:
    # Near the left end: toasts (e.g. "chatting too fast") cover the middle and the right for
    # seconds. (A cursor drawn there shows the chat is focused just as well.)
    return client.screen.buffer[_input_row(client)][2].bg


def input_line(client: ScreenClient) -> str:
    return client.lines()[_input_row(client)]


def chat_focused(client: ScreenClient) -> bool:
    """The chat input has the focus: it is drawn in another colour than when the tables have it."""
    return _input_bg(client) != client.unfocused_input_bg  # type: ignore[attr-defined]


async def lobby_client(port: int, name: str, **kwargs) -> ScreenClient:
    """A connected client that has reached the lobby as ``name`` (the tables have the focus)."""
    lobby_word = kwargs.pop("lobby_word", "Lobby")
    client = ScreenClient()
    try:
        await asyncio.wait_for(client.connect(port, name, **kwargs), 10)
        await client.wait_for(in_lobby_as(name, lobby_word=lobby_word), 10)
        await client.wait_for(lambda _: _input_bg(client) != "default", 10)
        client.unfocused_input_bg = _input_bg(client)  # type: ignore[attr-defined]
    except BaseException:
        await client.close()
        raise
    return client


async def focus_chat(client: ScreenClient) -> None:
    """Press c and wait until the chat input visibly has the focus (as a person would)."""
    client.send("c")
    await client.wait_for(lambda _: chat_focused(client), 10)


async def say(client: ScreenClient, text: str | bytes) -> None:
    """Chat one line the way a person does: c (unless already in the chat), the text, Enter,
    then Esc to give the keys back to the lobby (the lobby's chat stays open after Enter, so
    that a second line can follow). Once the chat has visibly let go, the line was sent."""
    if not chat_focused(client):
        await focus_chat(client)
    client.send(text)
    client.send(KEY_ENTER)
    await press_escape(client)


def chat_area(text: str) -> str:
    """The chat log part of the lobby screen (below the lists, above the input)."""
    lines = text.splitlines()
    start = max((i for i, line in enumerate(lines) if line.startswith("────")), default=0)
    return "\n".join(lines[start + 1:-2])


async def close_all(*clients: ScreenClient) -> None:
    await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)


PLAYERS_WIDTH = 22  # tui/truco.tcss: #players-pane { width: 22 }


def _main_lines(text: str) -> list[str]:
    """The lines of the two bordered panes (players | tables), between status and chat."""
    lines = text.splitlines()
    end = next((i for i, line in enumerate(lines) if line.startswith("────")), len(lines))
    return lines[2:end]


def players_pane(text: str) -> str:
    return "\n".join(line[:PLAYERS_WIDTH] for line in _main_lines(text))


def tables_pane(text: str) -> str:
    return "\n".join(line[PLAYERS_WIDTH:] for line in _main_lines(text))


def table_seats(text: str, title: str) -> str | None:
    """The Seats cell ("1/2") of the table row titled ``title``, or None if no such row."""
    row = re.compile(rf"^│\s*(?:> )?{re.escape(title)}\s+\S+\s+(\d+/\d+)\s")
    for line in tables_pane(text).splitlines():
        m = row.match(line)
        if m:
            return m.group(1)
    return None


async def press_escape(client: ScreenClient) -> None:
    """Esc: from the chat back to the tables, seen on the screen. A lone ESC only becomes the
    Escape key after the parser's escape delay (ESC + the next key would be Alt+key), so its
    effect is awaited. With the tables focused Esc shows nothing: c gives the chat the focus
    first. Either way, the server has handled everything sent before once this returns."""
    if not chat_focused(client):
        await focus_chat(client)
    client.send(KEY_ESC)
    await client.wait_for(lambda _: not chat_focused(client), 15)


async def everything_drawn(client: ScreenClient) -> None:
    """Every paint the server had to send has arrived: the help (?) opens and closes, and
    those paints come after whatever the keys sent before caused (one ordered stream, one
    app handling its messages in order). For checks that something was never sent; not
    for byte counts: the last paint seen may still be arriving (no end-of-frame mark)."""
    def open_(text: str) -> bool:  # its title: "truco-ssh — help" ("-" in lite mode)
        return "truco-ssh — help" in text or "truco-ssh - help" in text

    client.send("?")
    await client.wait_for(open_, 15)
    client.send(KEY_ESC)
    await client.wait_for(lambda t: not open_(t), 15)


def refused(text: str) -> bool:
    """The status line says a card key was refused: any of the English refusal sentences."""
    return any(start in text for start in _REFUSAL_STARTS)


def _refusal_starts() -> tuple[str, ...]:
    import json
    from pathlib import Path

    catalog = json.loads((Path(__file__).parents[2] / "tui" / "locales" / "en.json").read_text("utf-8"))
    texts = [v for k, v in catalog.items() if k.startswith("refusal.") or k == "table.cannot_play"]
    return tuple(t.split("{")[0][:24] for t in texts if t.split("{")[0][:24])


_REFUSAL_STARTS = _refusal_starts()


ACTION = re.compile(r"(?:^|\s)([a-zA-Z]) ([A-Z][A-Za-z ]*?)(?=\s{2,}|\s*$)")


def offered_actions(text: str) -> list[tuple[str, str]]:
    """(key, label) pairs of the action panel, right of the player's cards."""
    lines = text.splitlines()
    # The hand row starts under the full-width rule below the seats (the bets line may wrap).
    rule = next((i for i, line in enumerate(lines) if line.startswith("─" * 40)), 0)
    hand = next((i for i in range(rule + 1, len(lines)) if lines[i].startswith(("╭", "+-"))), rule + 2)
    return [pair for line in lines[hand:hand + 5] for pair in ACTION.findall(line[24:])]


async def start_game(owner: ScreenClient) -> None:
    """The creator's Enter in a full waiting room (a table with partners), once the key bar
    offers it."""
    await owner.wait_for(lambda t: "Enter Start" in t, 15)
    owner.send("\r")


async def add_bot(client: ScreenClient) -> None:
    """b at a table, then the level dialog's 2 (normal) once it is on screen."""
    from tui.i18n import Translator

    titles = [Translator(lang)("table.bot_level_title") for lang in ("en", "es", "pt")]
    client.send("b")
    await client.wait_for(lambda t: any(title in t for title in titles), 10)
    client.send("2")
