"""The lobby chat over the real OpenSSH client in tmux (issue 32): two lines typed in a row
both reach the other players, and nothing else happens (the q of "que tal" neither quits
nor opens anything); quitting then asks first. Waits on screen content only."""
from __future__ import annotations

import os
import shlex
from pathlib import Path

import asyncssh

from tests.e2e.test_openssh_tmux import Server, Tmux, _first_line, _free_port, _ssh, pytestmark  # noqa: F401


def _key(tmp: Path, name: str) -> Path:
    path = tmp / f"id_{name}"
    asyncssh.generate_private_key("ssh-ed25519").write_private_key(str(path))
    os.chmod(path, 0o600)
    return path


def _last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def test_two_chat_lines_in_a_row_reach_the_others_and_nothing_else_happens(tmp_path: Path) -> None:
    port = _free_port()
    server = Server(tmp_path, port, "chat")
    alice, bob = Tmux(tmp_path), Tmux(tmp_path)
    try:
        server.wait_ready()
        for tmux, name in ((alice, "alice"), (bob, "bob")):
            ssh = shlex.join(_ssh(port, _key(tmp_path, name), "-t", f"{name}@127.0.0.1"))
            tmux.start(["sh", "-c", f'{ssh}; echo "ssh exited with $?"; sleep 30'])
        for tmux, name in ((alice, "alice"), (bob, "bob")):
            tmux.wait_for(lambda t, name=name: "Lobby" in _first_line(t) and name in _first_line(t)
                          and "2 online" in _first_line(t))

        alice.keys("c")
        alice.wait_for(lambda t: "Esc Back" in t)  # the chat has the keys
        alice.keys("que tal", literal=True)
        alice.wait_for(lambda t: "que tal" in t)
        alice.keys("Enter")
        bob.wait_for(lambda t: "alice: que tal" in t)
        alice.keys("quiero jugar", literal=True)  # no c again: the chat is still open
        alice.wait_for(lambda t: "quiero jugar" in t)
        alice.keys("Enter")
        seen = bob.wait_for(lambda t: "alice: quiero jugar" in t)
        assert seen.count("alice: que tal") == 1
        screen = alice.wait_for(lambda t: "alice: quiero jugar" in t)
        assert "Lobby" in _first_line(screen)  # still the lobby: no form, no quit, no question
        assert "Esc Back" in screen and "ssh exited" not in screen
        assert "New table" not in screen and "Quit truco-ssh?" not in screen

        alice.keys("Escape")  # back to the lobby's keys
        alice.wait_for(lambda t: "q Quit" in _last_line(t))
        alice.keys("q")
        alice.wait_for(lambda t: "Quit truco-ssh?" in t)
        alice.keys("n")
        alice.wait_for(lambda t: "Quit truco-ssh?" not in t and "q Quit" in _last_line(t))
        alice.keys("q")
        alice.wait_for(lambda t: "Quit truco-ssh?" in t)
        alice.keys("q")  # q twice quits
        alice.wait_for(lambda t: "ssh exited with 0" in t)
        bob.wait_for(lambda t: "1 online" in _first_line(t))
    finally:
        alice.kill()
        bob.kill()
        server.kill()
