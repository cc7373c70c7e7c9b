"""The real OpenSSH client in tmux plays a whole hand against a bot."""
from __future__ import annotations

import os
import re
import shlex
import time

import asyncssh

from tests.e2e.helpers import offered_actions, refused
from tests.e2e.test_openssh_tmux import Server, Tmux, _free_port, _ssh, pytestmark  # noqa: F401

ANSWERS = ["Quiero", "Con flor quiero", "Say my points", "Son buenas", "Flor", "Pass"]
HINT = "c to talk to the table"  # the line under the game log, above the status line


def _board(text: str) -> str:
    """The table above the status line: seats, tricks, hand, calls on offer, game log (not
    the status line, whose turn timer counts down by itself)."""
    lines = text.splitlines()
    end = next((i for i, line in enumerate(lines) if HINT in line), len(lines))
    return "\n".join(lines[:end])


def _steady(tmux: Tmux) -> str:
    """The pane once two looks in a row see the same (not a frame half drawn)."""
    text = tmux.screen()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        time.sleep(0.02)
        again = tmux.screen()
        if again == text:
            return text
        text = again
    raise AssertionError(f"the pane never stood still:\n{text}")


def test_openssh_plays_a_whole_hand_against_a_bot(tmp_path):
    key = tmp_path / "id_ed25519"
    asyncssh.generate_private_key("ssh-ed25519").write_private_key(str(key))
    os.chmod(key, 0o600)
    port = _free_port()
    server = Server(tmp_path, port, "server", extra=("--bot-delay", "0.1", "--hand-pause", "1"))
    tmux = Tmux(tmp_path)
    try:
        server.wait_ready()
        tmux.start(["sh", "-c", shlex.join(_ssh(port, key, "-t", "player@127.0.0.1"))])
        tmux.wait_for(lambda t: "Lobby" in t.splitlines()[0] if t else False)
        tmux.keys("n")
        tmux.wait_for(lambda t: "New table" in t and "Ctrl+S Create" in t)  # the form, with its keys
        tmux.keys("C-s")
        tmux.wait_for(lambda t: "Waiting for 1 more player" in t)
        tmux.keys("b")  # a bot takes the free seat: the hand is dealt
        tmux.wait_for(lambda t: "Which bot?" in t)
        tmux.keys("Enter")  # the level dialog: Enter is normal
        # The player's cards, drawn as cards (the hand's title may be drawn a frame before them).
        screen = tmux.wait_for(lambda t: "Hand 1" in t and "╭─────╮" in t)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            screen = _steady(tmux)
            if "Hand over" in screen:
                break
            if "Your move." not in screen:
                time.sleep(0.05)
                continue
            offered = {label: k for k, label in offered_actions(screen)}
            answer = next((offered[a] for a in ANSWERS if a in offered), None)
            # An answer, else the first card: in the Argentine game any card held may be played
            # in one's turn, so a card refused (the status line says why) is refused whatever
            # the card, until the table moves on (the turn timer, at worst, plays for him).
            tmux.keys(answer or "1")
            # The move is taken once the table shows it (the game log tells of it at least).
            board = _board(screen)
            seen = tmux.wait_for(lambda t, b=board, card=answer is None: _board(t) != b or (card and refused(t)),
                                 timeout=40)
            if _board(seen) == board:  # the card was refused: the table waits for something else
                tmux.wait_for(lambda t, b=board: _board(t) != b, timeout=40)
        else:
            raise AssertionError(f"the hand did not end:\n{tmux.screen()}")
        # The hand's points are on the score line, the log says who took them and why.
        assert re.search(r"Hand over: (Us|Them) \d+", screen), screen
        score = screen.splitlines()[1]
        assert re.search(r"(Us|Them)\s+[1-9]", score), score
        tmux.keys("l")
        tmux.wait_for(lambda t: "Leave the table?" in t)
        tmux.keys("y")  # leave the table: back to the lobby
        tmux.wait_for(lambda t: "Lobby" in t.splitlines()[0] if t else False)
    finally:
        tmux.kill()
        server.kill()
