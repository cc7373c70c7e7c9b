"""Slow link: a throttling TCP proxy on 127.0.0.1 (9600 bit/s each way, 300 ms round trip)
between one asyncssh client and the server: the time to reach the lobby (and OpenSSH's, in
tmux, through the same link), and from an opponent's key press to the change being fully
drawn on that client's screen (the last byte of the update received).
Run: `python tests/bench/slowlink_bench.py`.
"""
from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Bench files are run as scripts (`python tests/bench/run.py`, the Makefile's bench target;
# load_bench also starts itself as a worker script, restart_bench can time another checkout):
# Python puts only this folder on sys.path then, so the lines below add what it imports.
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "tests" / "e2e"))

from load_bench import Recorder, keys  # noqa: E402
from session_bench import ServerProcess, connect_to_lobby, openssh_connect_seconds  # noqa: E402
from table_bench import choose_key  # noqa: E402

TAB, ENTER, DOWN, CTRL_S = "\t", "\r", "\x1b[B", "\x13"


class ThrottlingProxy:
    """bits_per_second each way, rtt/2 latency each way, on 127.0.0.1."""

    def __init__(self, target_port: int, bits_per_second: int = 9600, rtt: float = 0.3) -> None:
        self.target_port = target_port
        self.rate = bits_per_second / 8.0
        self.delay = rtt / 2
        self.server: asyncio.base_events.Server | None = None
        self.port = 0

    async def start(self) -> "ThrottlingProxy":
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
            await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer),
                                 return_exceptions=True)
        except asyncio.CancelledError:
            pass  # the bench is over: a connection still open is simply dropped

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        loop = asyncio.get_running_loop()
        free_at = 0.0
        try:
            while True:
                data = await reader.read(512)
                if not data:
                    break
                now = loop.time()
                free_at = max(now, free_at) + len(data) / self.rate  # serialisation
                loop.call_at(free_at + self.delay, writer.write, data)  # then propagation
        finally:
            await asyncio.sleep(max(0.0, free_at + self.delay - loop.time()) + 0.01)
            writer.close()

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


async def measure(actions: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp), "--hand-pause", "1.0")
        proxy = await ThrottlingProxy(server.port).start()
        try:
            ana, _ = await connect_to_lobby(server.port, "ana")  # a fast link
            t0 = time.perf_counter()
            beto, _ = await connect_to_lobby(proxy.port, "beto")  # 9600 bit/s, 300 ms
            connect_slow = time.perf_counter() - t0
            # The client most players use, through the same link (in tmux; None without them).
            openssh = await asyncio.to_thread(openssh_connect_seconds, proxy.port)
            rec = Recorder(beto)
            stamps: list[float] = []
            feed = beto.stream.feed

            def stamped(data: bytes) -> None:
                stamps.append(time.perf_counter())
                feed(data)

            beto.stream.feed = stamped  # type: ignore[method-assign]
            ana.send("n")
            await ana.wait_for("New table", 20)
            await asyncio.sleep(0.2)
            await keys(ana, TAB, TAB, TAB, TAB, ENTER, DOWN, ENTER, CTRL_S)  # turn timer: off
            await ana.wait_for("Waiting for", 20)
            await beto.wait_for("waiting", 30)
            beto.send("j")
            await beto.wait_for("Hand 1", 60)
            await asyncio.sleep(3.0)  # the first paint has drained
            times: list[float] = []
            deadline = time.monotonic() + 120
            while len(times) < actions and time.monotonic() < deadline:
                text = ana.text()
                if "Your move." not in text:
                    if "Your move." in beto.text():
                        beto.send(choose_key(beto.text())[0])
                        await asyncio.sleep(3.0)
                    else:
                        await asyncio.sleep(0.2)
                    continue
                before = beto.text()
                stamps.clear()
                start = time.perf_counter()
                ana.send(choose_key(text)[0])
                try:
                    await beto.wait_for(lambda t: t != before, 10)
                except AssertionError:
                    await asyncio.sleep(1.0)
                    continue
                while stamps and time.perf_counter() - stamps[-1] < 1.0:  # until it is quiet
                    await asyncio.sleep(0.05)
                times.append(stamps[-1] - start)
                await asyncio.sleep(0.5)
            await ana.close()
            await beto.close()
            del rec
        finally:
            proxy.close()
            server.stop()
    return {
        "slow_connect_to_lobby_ms": connect_slow * 1000,
        "slow_connect_to_lobby_openssh_ms": openssh * 1000 if openssh is not None else float("nan"),
        "opponent_action_fully_drawn_median_ms": statistics.median(times) * 1000 if times else float("nan"),
        "opponent_action_fully_drawn_max_ms": max(times) * 1000 if times else float("nan"),
        "actions": float(len(times)),
    }


def run(actions: int = 6) -> dict[str, float]:
    return asyncio.run(measure(actions))


if __name__ == "__main__":
    for key, value in run().items():
        print(f"{key:40s} {value:10.2f}")
