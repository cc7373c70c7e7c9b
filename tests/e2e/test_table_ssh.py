"""Playing at a table over real SSH: every action typed as keys, screens read with pyte (a
spectator's terminal watching a program play: the second test)."""
from __future__ import annotations

import asyncio
import re
import sys
import time
from typing import Callable

import pytest

import protocol as p
from tests.e2e import programs
from tests.e2e.harness import ScreenClient, running_server
from tests.e2e.helpers import KEY_CTRL_S, close_all, lobby_client, offered_actions, refused, start_game

pytestmark = pytest.mark.e2e

FAST = dict(bot_delay=0.05, hand_pause=0.1)
MATCH_OVER = re.compile(r"win the match!")
# What a cautious player answers when a card cannot be played: accept, say the tantos,
# sing the flor; never a raise or the mazo unless nothing else is offered.
ANSWER_ORDER = ["Quiero", "Con flor quiero", "Say my points", "Son buenas", "Flor", "Pass"]
AVOID = {"Me voy al mazo"}


async def keys(client: ScreenClient, *sequence: str) -> None:
    """Type keys one by one, as a person does: each moves the focus, opens or closes a list,
    and the next goes once its redraw has arrived."""
    for key in sequence:
        await client.press(key)


TAB, ENTER, UP, DOWN = "\t", "\r", "\x1b[A", "\x1b[B"


async def open_table(owner: ScreenClient, players: int, *, short: bool = False) -> None:
    """n, then the form by keyboard: player count, and with ``short`` a single game to 15."""
    owner.send("n")
    await owner.wait_for("New table")
    await keys(owner, TAB)  # focus: players
    if players != 2:
        await keys(owner, ENTER, *[DOWN] * {4: 1, 6: 2}[players], ENTER)
        await owner.wait_for(lambda s: re.search(rf"Players\s+{players} players", s) is not None)
    if short:
        # title, private, timer, then the first option: points (every Tab stop is a control)
        await keys(owner, TAB, TAB, TAB, TAB, ENTER, DOWN, ENTER)
        await owner.wait_for(lambda s: re.search(r"Points to win a game\s+15", s) is not None)
        await keys(owner, TAB, ENTER, UP, ENTER)
        await owner.wait_for(lambda s: re.search(r"Games to win the match\s+1\b", s) is not None)
    owner.send(KEY_CTRL_S)
    await owner.wait_for("Waiting for")


async def join_first_table(client: ScreenClient) -> None:
    await client.wait_for(lambda s: "waiting" in s)
    client.send("j")
    await client.wait_for(lambda s: "Choose your seat" in s or "Waiting for" in s or "Every seat is taken" in s
                          or "Your move" in s or "Hand 1" in s)
    if "Choose your seat" in client.text():  # a table with partners: the first free seat (Enter)
        client.send(ENTER)
        await client.wait_for(lambda s: "Waiting for" in s or "Every seat is taken" in s)


def my_move(text: str) -> bool:
    """The status line says so, or (when it shows why a key was refused instead, as "You
    have a flor: sing it first.") the turn mark is on this player's own row, as a person
    reads it."""
    return "Your move." in text or any(line.startswith("▶ ") and " * " in line for line in text.splitlines())


def match_over(text: str) -> bool:
    return MATCH_OVER.search(text) is not None


async def play_like_a_person(client: ScreenClient, deadline: float,
                             done: Callable[[str], bool] = match_over) -> str:
    """Act whenever the screen says it is this player's move, until ``done`` holds (by
    default: the match is over).

    Answers first (quiero, say the tantos, son buenas, flor, pass), otherwise a card:
    the keys a player reads off the screen. Returns the final screen.
    """
    while time.monotonic() < deadline:
        text = client.text()
        if done(text):
            return text
        if my_move(text):
            pairs = offered_actions(text)
            offered = {label: key for key, label in pairs}
            answer = next((offered[a] for a in ANSWER_ORDER if a in offered), None)
            if answer is not None:
                client.send(answer)
            else:
                for digit in "123":
                    client.send(digit)
                    await asyncio.sleep(0.05)
                    if not refused(client.text()):
                        break
                else:  # no card playable and no answer: take any offered call
                    fallback = [k for k, label in pairs if label not in AVOID] or [k for k, _ in pairs]
                    if fallback:
                        client.send(fallback[0])
            await asyncio.sleep(0.08)
        else:
            await asyncio.sleep(0.02)
    raise AssertionError(f"not done in time; screen:\n{client.text()}")


@pytest.mark.slow
async def test_four_players_play_a_whole_game_through_keystrokes(tmp_path) -> None:
    async with running_server(tmp_path, **FAST) as server:
        names = ["ana", "beto", "carla", "dani"]
        clients = [await lobby_client(server.port, n) for n in names]
        try:
            await open_table(clients[0], 4, short=True)
            for c in clients[1:]:
                await join_first_table(c)
            await start_game(clients[0])  # a waiting room: its creator starts it
            for c in clients:
                await c.wait_for("Hand 1", 10)
            deadline = time.monotonic() + 120
            try:
                finals = await asyncio.gather(*(play_like_a_person(c, deadline) for c in clients))
            except AssertionError:
                for c in clients:  # every screen, for whoever reads the failure
                    sys.stderr.write(c.text() + "\n\n")
                raise
            # Everyone saw the same final score (partners as "Us", the others as "Them").
            # Everyone sees the same result: partners (ana+carla, beto+dani) the same words,
            # opponents the mirror image.
            results = [re.search(r"(Us|Them) win the match!", t) for t in finals]
            assert all(results), finals
            winners = [r.group(1) for r in results if r]
            assert winners[0] == winners[2] and winners[1] == winners[3] and winners[0] != winners[1]
            scores = [dict(re.findall(r"(Us|Them) (\d+)", t.split("Final score:")[1].splitlines()[0]))
                      for t in finals]
            assert scores[0] == scores[2] and scores[1] == scores[3]
            assert scores[0]["Us"] == scores[1]["Them"] and scores[0]["Them"] == scores[1]["Us"]
            assert max(int(v) for v in scores[0].values()) >= 15
        finally:
            await close_all(*clients)


async def test_two_player_game_against_a_bot_and_a_spectator_joining_mid_hand(tmp_path) -> None:
    """ana plays the bot as a program on the `truco` subsystem (a player at the keys: the
    test above); eve watches from a terminal."""
    async with running_server(tmp_path, **FAST) as server:
        ana, = await programs.connect(server.port, "ana")
        eve = await lobby_client(server.port, "eve")
        try:
            table_id = await programs.table_of(ana, 2, options={"target": 15, "match_games": 1})
            await ana.send(p.AddBot(table_id=table_id))  # a bot in the free seat: the game starts
            await programs.update(ana, programs.dealt, peek=True)
            # The spectator arrives while the hand is under way.
            await eve.wait_for("playing")
            eve.send("w")
            await eve.wait_for("watching")
            watched = eve.text()
            assert "╭─────╮" not in watched  # a spectator is shown no cards of anyone's hand
            final = await programs.play_until_over(ana, table_id, timeout=180)
            assert final.view.winner is not None
            await eve.wait_for("win the match", 10)
            assert "╭─────╮" not in eve.text()
        finally:
            await close_all(eve)
            await ana.close()
