"""Table benchmark: time from one player's key press to the change on the other player's
screen, and server CPU per action, over real SSH on 127.0.0.1.

Two asyncssh clients with PTYs (screens read with pyte) sit at a 2-player Argentine table
with no turn timer; whoever the game waits for acts (a card, or an answer), and the other
client's screen is watched until it changes. Run: `python tests/bench/table_bench.py`.
"""
from __future__ import annotations

import argparse
import asyncio
import re
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

from harness import ScreenClient  # noqa: E402
from session_bench import ServerProcess, connect_to_lobby, cpu_seconds  # noqa: E402

ACTION = re.compile(r"(?:^|\s)([a-zA-Z]) ([A-Z][A-Za-z ]*?)(?=\s{2,}|\s*$)")
ANSWERS = ["Quiero", "Con flor quiero", "Say my points", "Son buenas", "Flor", "Pass"]
TAB, ENTER, DOWN, CTRL_S = "\t", "\r", "\x1b[B", "\x13"


async def keys(client: ScreenClient, *sequence: str) -> None:
    for key in sequence:
        client.send(key)
        await asyncio.sleep(0.15)


def choose_key(text: str) -> list[str]:
    # The offered calls sit right of the player's cards: the rows from the cards' top edge,
    # found under the full-width rule below the seats (fixed rows missed the first row of
    # a 4-player table, and with it a dealt "o Flor": the table then stalled).
    lines = text.splitlines()
    rule = next((i for i, line in enumerate(lines) if line.startswith("─" * 40)), 0)
    top = next((i for i in range(rule + 1, len(lines)) if lines[i].startswith(("╭", "+-"))), rule + 2)
    offered = {label: k for line in lines[top:top + 5] for k, label in ACTION.findall(line[24:])}
    answer = next((offered[a] for a in ANSWERS if a in offered), None)
    return [answer] if answer else ["1", "2", "3"]


async def measure(actions: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(Path(tmp), "--hand-pause", "0.3")
        try:
            ana, _ = await connect_to_lobby(server.port, "ana")
            beto, _ = await connect_to_lobby(server.port, "beto")
            await keys(ana, "n")
            await ana.wait_for("New table")
            await keys(ana, TAB, TAB, TAB, TAB, ENTER, DOWN, ENTER, CTRL_S)  # turn timer: off
            await ana.wait_for("Waiting for")
            await beto.wait_for("waiting")
            await keys(beto, "j")
            await ana.wait_for("Hand 1")
            await beto.wait_for("Hand 1")
            players = {"ana": ana, "beto": beto}
            latencies: list[float] = []
            cpu_before = cpu_seconds(server.proc.pid)
            deadline = time.monotonic() + 300
            while len(latencies) < actions and time.monotonic() < deadline:
                mover = next((c for c in players.values() if "Your move." in c.text()), None)
                if mover is None or "win the match" in mover.text():
                    await asyncio.sleep(0.01)
                    if any("win the match" in c.text() for c in players.values()):
                        break
                    continue
                other = beto if mover is ana else ana
                for key in choose_key(mover.text()):
                    before = other.text()
                    start = time.perf_counter()
                    mover.send(key)
                    try:
                        await other.wait_for(lambda t, b=before: t != b, timeout=2.0)
                    except AssertionError:
                        continue  # that key was not a legal move: no change for the other player
                    latencies.append(time.perf_counter() - start)
                    break
                await asyncio.sleep(0.35)  # past the hand pause and the mover's own repaint
            cpu = cpu_seconds(server.proc.pid) - cpu_before
            await ana.close()
            await beto.close()
        finally:
            server.stop()
    latencies.sort()
    return {
        "actions": float(len(latencies)),
        "press_to_other_screen_median_ms": statistics.median(latencies) * 1000,
        "press_to_other_screen_p99_ms": latencies[int(0.99 * (len(latencies) - 1))] * 1000,
        "press_to_other_screen_max_ms": latencies[-1] * 1000,
        "server_cpu_per_action_ms": cpu / max(1, len(latencies)) * 1000,
    }


def run(actions: int = 100) -> dict[str, float]:
    return asyncio.run(measure(actions))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--actions", type=int, default=100)
    for key, value in run(parser.parse_args().actions).items():
        print(f"{key:34s} {value:10.2f}")
