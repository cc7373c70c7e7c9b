"""A load-generator client that stops emulating a terminal once its table is playing.

A pyte screen per client made the load generator cost about as much CPU as the server it
measured. Setting a table up needs screens (forms, codes); playing does not: the server
writes only when a screen changes, so "the action reached this player" is the first bytes
after the key press, and "it is my move" / "these answers are offered" are in the text of the
updates themselves (Textual redraws a line it changed as runs of text between cursor moves
and colours). So once playing (``go_cheap``) a client keeps only a few facts from the bytes
it receives, with one regular expression pass per chunk, and no screen.
"""
from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

from harness import ScreenClient  # noqa: E402
from table_bench import ACTION, ANSWERS  # noqa: E402

# What the status line says to the player the game waits for (a flor must be sung first, a
# card laid away), and what it says once it waits for someone else.
MOVE_PROMPTS = ("Your move.", "sing it first.", "Lay one card away")
OTHERS_MOVE = ("Waiting for ", "Next hand coming", "Match over")


def says_my_move(text: str) -> bool:
    return any(prompt in text for prompt in MOVE_PROMPTS)

# A cursor move starts another piece of the screen: a line break in the text kept; any other
# escape sequence (colours, modes, OSC) is dropped.
CURSOR_MOVE = re.compile(r"\x1b\[[0-9;]*[Hf]")
OTHER_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-_])")
RECENT_LIMIT = 16  # chunks kept since the turn began (the offered answers are among them)


def plain_text(data: bytes) -> str:
    text = data.decode("utf-8", "ignore")
    return OTHER_ESCAPES.sub("", CURSOR_MOVE.sub("\n", text))


class CheapClient(ScreenClient):
    """A ScreenClient (pyte) until ``go_cheap``; from then on: byte counts and a few facts."""

    def __init__(self, cols: int = 80, rows: int = 24) -> None:
        super().__init__(cols, rows)
        self.cheap = False
        self.received = 0  # bytes, in both modes
        self.my_turn = False
        self.turn_at = 0.0
        self.recent: list[str] = []  # text of the chunks since the turn began
        self.first_after: float | None = None  # perf_counter of the first chunk after a mark
        self._arrived = asyncio.Event()

    def go_cheap(self) -> None:
        """Stop emulating the terminal; what the screen says now is where the facts start.
        Once cheap, a later stage's call changes nothing (the screen stopped being fed: what
        it says is old news; the facts kept since are current)."""
        if self.cheap:
            return
        text = self.text()
        self.my_turn = says_my_move(text)
        self.turn_at = time.perf_counter()
        self.recent = [text] if self.my_turn else []
        self.cheap = True

    def mark(self) -> None:
        """From now on, note when the next chunk arrives."""
        self.first_after = None
        self._arrived = asyncio.Event()

    async def next_chunk(self, timeout: float) -> float:
        """When the first chunk after ``mark`` arrived (perf_counter); TimeoutError if none did."""
        await asyncio.wait_for(self._arrived.wait(), timeout)
        if self.first_after is None:
            raise asyncio.TimeoutError("the connection closed")
        return self.first_after

    def acted(self) -> None:
        """A key was pressed (taken or refused): what was offered is old news. The turn itself
        ends only when the status line says so (a player who takes a trick leads the next,
        and an unchanged status line is not drawn again)."""
        self.recent = []

    def offered_keys(self) -> list[str]:
        """The keys to try for this move: an offered answer first, then the three cards."""
        offered = {label: key for text in self.recent for line in text.splitlines()
                   for key, label in ACTION.findall(line)}
        answer = next((offered[a] for a in ANSWERS if a in offered), None)
        return ([answer] if answer else []) + ["1", "2", "3"]

    def _seen(self, data: bytes) -> None:
        now = time.perf_counter()
        if self.first_after is None:
            self.first_after = now
            self._arrived.set()
        text = plain_text(data)
        if says_my_move(text) and not self.my_turn:  # a new turn: what was offered before is gone
            self.my_turn, self.turn_at, self.recent = True, now, [text]
        elif any(words in text for words in OTHERS_MOVE):
            self.my_turn, self.recent = False, []
        elif self.my_turn:  # (a refused key keeps the turn: its message joins the rest)
            self.recent.append(text)
            del self.recent[:-RECENT_LIMIT]

    async def _read(self) -> None:
        assert self.process is not None
        try:
            while True:
                data = await self.process.stdout.read(65536)
                if not data:
                    break
                self.received += len(data)
                if self.muted:
                    continue
                if self.cheap:
                    self._seen(data)
                    continue
                arrived = time.perf_counter()
                self.raw += data
                self.stream.feed(data)
                self._fed(arrived)
        finally:
            self.closed.set()
            self._changed.set()
            self._arrived.set()
