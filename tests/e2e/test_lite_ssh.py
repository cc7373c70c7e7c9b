"""Lite mode and small repaints, seen from a real SSH client: colours, card glyphs,
mouse tracking, and the bytes one card costs a player who watches it being played."""
from __future__ import annotations

import asyncio
import time
import re

import pytest

from tests.e2e.harness import ScreenClient, quiet, running_server
from tests.e2e.helpers import add_bot, close_all, everything_drawn, in_lobby_as, lobby_client

pytestmark = pytest.mark.e2e

SGR = re.compile(rb"\x1b\[([0-9;:]*)m")
MOUSE_ON = b"\x1b[?1000h"
ENTER, DOWN, TAB, CTRL_S = "\r", "\x1b[B", "\t", "\x13"


def colour_params(raw: bytes) -> set[int]:
    """Every SGR parameter that sets a colour (foreground, background, 8/16/256/truecolor)."""
    found: set[int] = set()
    for match in SGR.finditer(raw):
        params = [int(x) for x in re.split(rb"[;:]", match.group(1)) if x]
        i = 0
        while i < len(params):
            n = params[i]
            if n in (38, 48):
                found.add(n)
                i += 5 if i + 1 < len(params) and params[i + 1] == 2 else 3
                continue
            if 30 <= n <= 37 or 40 <= n <= 47 or 90 <= n <= 97 or 100 <= n <= 107:
                found.add(n)
            i += 1
    return found


async def table_against_a_bot(client: ScreenClient) -> None:
    """A 2-player table with the turn timer off, the other seat a bot; waits for the deal."""
    client.send("n")
    await client.wait_for("New table")
    for key in (TAB, TAB, TAB, TAB, ENTER, DOWN, ENTER, CTRL_S):  # turn timer: off
        await client.press(key)  # each key's redraw before the next (a list opens, closes)
    await client.wait_for("Waiting for")
    await add_bot(client)
    await client.wait_for("Hand 1", 10)


@pytest.mark.parametrize("term,env", [("xterm-256color", {"NO_COLOR": "1"}), ("dumb", {}),
                                      ("vt100", {})])
async def test_no_colour_when_the_client_asks_for_none(tmp_path, term, env):
    async with running_server(tmp_path, bot_delay=0.05) as srv:
        client = ScreenClient()
        await asyncio.wait_for(client.connect(srv.port, "ana", term_type=term, env=env), 10)
        await client.wait_for(in_lobby_as("ana"), 10)
        try:
            if term != "xterm-256color":  # a terminal without colour starts in lite mode
                await table_against_a_bot(client)
                await client.wait_for("+-----+")
            await everything_drawn(client)
            if term != "xterm-256color":
                assert "+-----+" in client.text() and "╭" not in client.text()
                assert MOUSE_ON not in client.raw
            assert colour_params(bytes(client.raw)) == set()
            assert SGR.search(client.raw)  # still bold/reverse: it is drawn, just without colour
        finally:
            await client.close()


async def test_colour_and_mouse_by_default(tmp_path):
    """The counterpart: the same checks do see colour and mouse tracking normally."""
    async with running_server(tmp_path) as srv:
        client = await lobby_client(srv.port, "ana")
        try:
            assert colour_params(bytes(client.raw)) & {38, 48}
            assert MOUSE_ON in client.raw
        finally:
            await client.close()


async def test_server_lite_default_and_ascii_cards(tmp_path):
    async with running_server(tmp_path, lite=True, bot_delay=0.05) as srv:
        client = await lobby_client(srv.port, "ana", env={"COLORTERM": "truecolor"})
        try:
            await table_against_a_bot(client)
            await client.wait_for("+-----+")
            await everything_drawn(client)
            text = client.text()
            assert "+-----+" in text and "╭" not in text and "╰" not in text
            assert MOUSE_ON not in client.raw
            assert not colour_params(bytes(client.raw)) & {38, 48}  # 16 colours at most
            assert colour_params(bytes(client.raw))  # ...but colours
        finally:
            await client.close()


async def test_lite_toggle_in_the_lobby(tmp_path):
    async with running_server(tmp_path) as srv:
        client = await lobby_client(srv.port, "ana")
        try:
            assert MOUSE_ON in client.raw
            # Byte marks: a paint seen on the screen may still be arriving (a frame is written
            # in more than one packet, with no end-of-frame mark to wait for), so
            # everything_drawn() cannot say where one paint's bytes end; quiet() can.
            await quiet(client)  # the lobby's first paints have all arrived
            mark = len(client.raw)
            client.send("L")
            await client.wait_for("Lite mode on")
            await quiet(client)
            after = bytes(client.raw[mark:])
            assert b"\x1b[?1000l" in after  # mouse tracking switched off
            assert colour_params(after) and not colour_params(after) & {38, 48}
            mark = len(client.raw)
            client.send("L")
            await client.wait_for("Lite mode off")
            await quiet(client)
            assert MOUSE_ON in bytes(client.raw[mark:])
        finally:
            await client.close()


async def test_a_card_played_costs_the_other_player_little(tmp_path):
    """One card played at a 2-player table: the opponent's screen changes by a few hundred
    bytes (uncompressed), not a repaint of the screen (~9 KB)."""
    async with running_server(tmp_path, hand_pause=30.0) as srv:
        ana = await lobby_client(srv.port, "ana")
        beto = await lobby_client(srv.port, "beto")
        try:
            ana.send("n")
            await ana.wait_for("New table")
            for key in (TAB, TAB, TAB, TAB, ENTER, DOWN, ENTER, CTRL_S):  # turn timer: off
                await ana.press(key)  # each key's redraw before the next (a list opens, closes)
            await ana.wait_for("Waiting for")
            await beto.wait_for("waiting")
            beto.send("j")
            await ana.wait_for("Hand 1")
            await beto.wait_for("Hand 1")
            await quiet(ana, beto)  # first paints done
            costs = []
            deadline = time.monotonic() + 30
            while len(costs) < 2 and time.monotonic() < deadline:  # one card each
                mover = next((c for c in (ana, beto) if "Your move." in c.text()), None)
                if mover is None:
                    await asyncio.sleep(0.05)
                    continue
                other = beto if mover is ana else ana
                calls = mover.text()  # the labels below are found only in the calls on offer
                # The deal decides what comes first: a flor to sing, a bet to answer.
                answer = next((key for key, label in (("o", "o Flor"), ("q", "q Con flor quiero"), ("q", "q Quiero"),
                                                      ("e", "e Say my points"), ("s", "s Son buenas"))
                               if label in calls), None)
                if answer is not None:
                    before = other.text()
                    mover.send(answer)
                    await other.wait_for(lambda t, b=before: t != b, 5)
                    await quiet(ana, beto)
                    continue
                before, mark = other.text(), len(other.raw)
                mover.send("1")
                await other.wait_for(lambda t, b=before: t != b, 5)
                await quiet(ana, beto)  # everything this action caused has arrived
                costs.append(len(other.raw) - mark)
            assert len(costs) == 2, "two cards were not played in time"
            # Measured 1.3-2.8 KB raw depending on what else the card changes (the calls on
            # offer, the trick's winner); a repaint of the screen is 9-17 KB.
            assert all(0 < c < 4096 for c in costs), costs
        finally:
            await close_all(ana, beto)
