"""The real OpenSSH client, in a real terminal (tmux), against `truco-ssh serve` in a subprocess."""
from __future__ import annotations

import os
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import asyncssh
import pytest

from tests.ports import free_port

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("ssh") is None, reason="the OpenSSH client (ssh) is not installed"),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

ROOT = Path(__file__).resolve().parents[2]


_free_port = free_port


def _serve_command() -> list[str]:
    script = Path(sys.executable).parent / "truco-ssh"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "server.cli.main"]


class Server:
    """`truco-ssh serve` in a subprocess; its stdout goes to a file we can poll."""

    def __init__(self, tmp: Path, port: int, name: str, extra: tuple[str, ...] = ()) -> None:
        self.out_path = tmp / f"{name}.out"
        self.err_path = tmp / f"{name}.err"
        cmd = _serve_command() + [
            "serve", "--host", "127.0.0.1", "--port", str(port),
            "--data-dir", str(tmp / "data"), "--host-key", str(tmp / "key"), *extra,
        ]
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                         cwd=ROOT)

    @property
    def stdout(self) -> str:
        return self.out_path.read_text(encoding="utf-8", errors="replace")

    def wait_ready(self, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if "Press Ctrl-C" in self.stdout:
                return self.stdout
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"server not ready (exit {self.proc.poll()}):\n{self.stdout}\n"
                             f"{self.err_path.read_text(errors='replace')}")

    def interrupt(self, timeout: float = 8.0) -> int:
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=timeout)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)


class Tmux:
    """A private tmux server (its own socket) with one detached 80x24 session."""

    def __init__(self, tmp: Path) -> None:
        self.socket = f"truco-e2e-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.conf = tmp / "tmux.conf"
        self.conf.write_text("set -g status off\nset -g remain-on-exit on\n")
        self.env = {**os.environ, "LANG": "C.UTF-8", "TERM": "xterm-256color"}
        self.env.pop("TMUX", None)

    def _tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-u", "-L", self.socket, "-f", str(self.conf), *args],
                              capture_output=True, text=True, timeout=10, env=self.env, check=check)

    def start(self, command: list[str]) -> None:
        self._tmux("new-session", "-d", "-s", "t", "-x", "80", "-y", "24", shlex.join(command))

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", "t").stdout

    def keys(self, *keys: str, literal: bool = False) -> None:
        self._tmux("send-keys", "-t", "t", *(["-l"] if literal else []), *keys)

    def wait_for(self, check, timeout: float = 20.0) -> str:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            if check(text):
                return text
            time.sleep(0.05)
        raise AssertionError(f"timed out; tmux pane:\n{text}")

    def kill(self) -> None:
        socket_path = self._tmux("display-message", "-p", "#{socket_path}", check=False).stdout.strip()
        self._tmux("kill-server", check=False)
        if socket_path.endswith(self.socket):  # tmux leaves its socket file behind
            Path(socket_path).unlink(missing_ok=True)


def _ssh(port: int, key: Path, *extra: str) -> list[str]:
    return [
        "ssh", "-F", "/dev/null",
        "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR",
        "-o", "IdentitiesOnly=yes", "-o", "IdentityAgent=none", "-i", str(key),
        "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
        "-p", str(port), *extra,
    ]


def _first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


def _fingerprint_line(stdout: str) -> str:
    lines = [line for line in stdout.splitlines() if line.startswith("Host key fingerprint: ")]
    assert len(lines) == 1, stdout
    return lines[0]


def test_openssh_in_tmux_end_to_end(tmp_path):
    key = tmp_path / "id_ed25519"
    client_key = asyncssh.generate_private_key("ssh-ed25519")
    client_key.write_private_key(str(key))
    os.chmod(key, 0o600)

    port = _free_port()
    server = Server(tmp_path, port, "first")
    tmux = Tmux(tmp_path)
    try:
        first_out = server.wait_ready()
        host_key = tmp_path / "key"
        assert stat.S_IMODE(host_key.stat().st_mode) == 0o600
        fingerprint = _fingerprint_line(first_out)
        assert fingerprint.startswith("Host key fingerprint: SHA256:")

        # An interactive player: the lobby renders in a real 80x24 terminal.
        ssh = shlex.join(_ssh(port, key, "-t", "tester@127.0.0.1"))
        tmux.start(["sh", "-c", f'{ssh}; echo "ssh exited with $?"; sleep 2'])
        lobby = tmux.wait_for(lambda t: "Lobby" in _first_line(t) and "tester" in _first_line(t))
        assert "(guest)" not in lobby.splitlines()[0]  # came in with its key
        assert "Players" in lobby and "Tables" in lobby
        # Typing works through OpenSSH and tmux: chat one line. Each key once the one before
        # shows: c gives the chat the focus (the key bar becomes the chat's), the line is in
        # its input.
        tmux.keys("c")
        tmux.wait_for(lambda t: "Enter Send" in t)
        tmux.keys("hola desde openssh", literal=True)
        tmux.wait_for(lambda t: "hola desde openssh" in t)
        tmux.keys("Enter")
        tmux.wait_for(lambda t: "tester: hola desde openssh" in t)

        # A command is refused: nothing runs.
        ran = subprocess.run(_ssh(port, key, "tester@127.0.0.1", "id"), capture_output=True,
                             text=True, timeout=20, stdin=subprocess.DEVNULL)
        assert ran.returncode != 0, ran
        assert "uid=" not in ran.stdout + ran.stderr
        assert ran.stdout == "", ran.stdout

        # No terminal: one line explaining a terminal is needed.
        no_tty = subprocess.run(_ssh(port, key, "-T", "tester@127.0.0.1"), capture_output=True,
                                text=True, timeout=20, stdin=subprocess.DEVNULL)
        assert no_tty.returncode != 0, no_tty
        assert "terminal" in no_tty.stdout, no_tty
        assert len(no_tty.stdout.strip().splitlines()) == 1, no_tty.stdout
        assert "\x1b" not in no_tty.stdout

        # Ctrl-C: clean exit, players told why.
        assert server.interrupt() == 0, server.stdout + server.err_path.read_text(errors="replace")
        assert "Stopped." in server.stdout
        # The player's ssh ended with status 0 (what it printed is checked, with asyncssh, in
        # test_lobby_ssh.py::test_players_are_told_why_their_session_ended).
        after = tmux.wait_for(lambda t: "ssh exited with" in t, timeout=10)
        assert "ssh exited with 0" in after, after

        # Same host key on the next start.
        second = Server(tmp_path, port, "second")
        try:
            assert _fingerprint_line(second.wait_ready()) == fingerprint
            assert stat.S_IMODE(host_key.stat().st_mode) == 0o600
            assert second.interrupt() == 0
            assert "Stopped." in second.stdout
        finally:
            second.kill()
    finally:
        tmux.kill()
        server.kill()
