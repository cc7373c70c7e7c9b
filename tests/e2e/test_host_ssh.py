"""`truco-ssh host` as a person runs it: in a terminal (a pty here), a friend joining over
real SSH with the printed deep link, the host playing in the same terminal, Ctrl-C ending it."""
from __future__ import annotations

import asyncio
import fcntl
import os
import re
import signal
import struct
import subprocess
import sys
import termios
from pathlib import Path

import asyncssh
import pyte
import pytest

from tests.e2e.harness import ScreenClient
from tests.e2e.helpers import lobby_client
from tests.e2e.test_crash_restart import free_port

pytestmark = pytest.mark.e2e

COLS, ROWS = 100, 45
LINK = re.compile(r"ssh -p (\d+) ([A-Z0-9]{6})@127\.0\.0\.1")


class PtyProcess:
    """A command on a pseudo-terminal; its output read into a pyte screen and kept raw."""

    def __init__(self, args: list[str], lang: str = "en_US.UTF-8") -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", LANG=lang, USER="hostess")
        env.pop("LC_ALL", None)
        env.pop("LC_MESSAGES", None)
        self.proc = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env,
                                     start_new_session=True, close_fds=True)
        os.close(slave)
        self.master = master
        self.raw = bytearray()
        self.screen = pyte.Screen(COLS, ROWS)
        self.stream = pyte.ByteStream(self.screen)
        asyncio.get_running_loop().add_reader(master, self._read)

    def _read(self) -> None:
        try:
            data = os.read(self.master, 65536)
        except OSError:
            data = b""
        if not data:
            asyncio.get_running_loop().remove_reader(self.master)
            return
        self.raw += data
        self.stream.feed(data)

    def text(self) -> str:
        return bytes(self.raw).decode("utf-8", "replace")

    def screen_text(self) -> str:
        return "\n".join(self.screen.display)

    def send(self, data: bytes) -> None:
        os.write(self.master, data)

    async def wait_for(self, check, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
        deadline = asyncio.get_running_loop().time() + timeout
        while not check():
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"timed out; screen:\n{self.screen_text()}\nraw tail:\n{self.text()[-2000:]}")
            await asyncio.sleep(0.05)

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.master)
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.master)


async def test_host_prints_link_and_qr_a_friend_joins_and_ctrl_c_ends_it(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "truco-ssh"
    port = free_port()
    host = PtyProcess([str(exe), "host", "--host", "127.0.0.1", "--port", str(port),
                       "--data-dir", str(tmp_path / "data"), "--host-key", str(tmp_path / "key"),
                       "--players", "4", "-o", "target=15", "--bot-delay", "0"])
    friend, keyed = ScreenClient(), ScreenClient()
    key = asyncssh.generate_private_key("ssh-ed25519")
    try:
        await host.wait_for(lambda: "Press Enter to take your seat" in host.text())
        out = host.text()
        link = LINK.search(out)
        assert link is not None and int(link.group(1)) == port, out
        code = link.group(2)
        assert f"ssh://{code}@127.0.0.1:{port}" in out
        qr = [line for line in out.splitlines() if "█" in line]
        assert len(qr) >= 15 and len({len(line.strip()) for line in qr}) == 1  # a square of blocks

        await friend.connect(port, code.lower())  # the deep link (typed in lower case)
        await friend.wait_for("joining the private table with code " + code)
        friend.send("beto\r")  # a guest chooses the name the table shows
        await friend.wait_for(lambda t: "1. hostess" in t and "2. beto" in t)  # the seats so far

        first = await lobby_client(port, "carla", client_keys=[key])  # carla's key keeps her name
        await first.close()
        await keyed.connect(port, code, client_keys=[key])
        await keyed.wait_for(lambda t: "2. beto" in t and "3. carla" in t)  # no name to choose

        host.send(b"\r")  # the host's seat, in the same terminal
        await host.wait_for(lambda: "1. hostess" in host.screen_text() and "3. carla" in host.screen_text())
        host.send(b"b")  # the host owns the table: a bot takes the last seat
        await host.wait_for(lambda: "Which bot?" in host.screen_text())
        host.send(b"\r")  # the level dialog: Enter is normal
        await host.wait_for(lambda: "4. Bot 1" in host.screen_text() and "Enter Start" in host.screen_text())
        assert "Hand 1" not in host.screen_text()  # a waiting room: nobody deals before the host starts
        host.send(b"m")  # beto to be the host's partner: seats 2 and 3 swap
        await host.wait_for(lambda: "Which seat moves?" in host.screen_text())
        host.send(b"2")
        await host.wait_for(lambda: "Swap seat 2 (beto) with which seat?" in host.screen_text())
        host.send(b"3")
        await friend.wait_for(lambda t: "2. carla" in t and "3. beto" in t)
        await host.wait_for(lambda: "3. beto" in host.screen_text())
        host.send(b"\r")  # Enter: the host starts the game
        await host.wait_for(lambda: "Hand 1" in host.screen_text())
        await friend.wait_for("Hand 1")
        host.send(b"\x03")  # Ctrl-C ends the table and the server for everyone: it asks first
        await host.wait_for(lambda: "End your table and the server?" in host.screen_text())
        host.send(b"y")
        await host.wait_for(lambda: host.proc.poll() is not None, timeout=15)
        assert host.proc.returncode == 0
        assert "Stopped." in host.text()
        await asyncio.wait_for(friend.closed.wait(), 10)
        assert "shutting down" in bytes(friend.raw).decode("utf-8", "replace").lower()
    finally:
        await friend.close()
        await keyed.close()
        host.close()


async def test_host_without_a_terminal_says_so(tmp_path: Path) -> None:
    exe = Path(sys.executable).parent / "truco-ssh"
    ran = await asyncio.to_thread(
        subprocess.run, [str(exe), "host", "--port", str(free_port()), "--data-dir", str(tmp_path / "d")],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert ran.returncode == 2
    assert "needs a terminal" in ran.stderr
