"""With TRUCO_TRACE_ACTIONS set, a move made over SSH leaves its whole path in the trace,
step after step, and the report lines it up (server/ops/action_trace.py,
tests/bench/trace_report.py)."""
from __future__ import annotations

import asyncio
import time
from pathlib import Path

from server.ops import action_trace
from tests.bench import trace_report
from tests.e2e.harness import quiet, running_server
from tests.e2e.helpers import lobby_client
from tests.e2e.test_lite_ssh import table_against_a_bot

ANSWERS = (("o", "o Flor"), ("q", "q Con flor quiero"), ("q", "q Quiero"), ("e", "e Say my points"), ("s", "s Son buenas"))


async def test_a_card_played_leaves_its_path_in_the_trace(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    assert action_trace.start_from_env({action_trace.ENV: str(trace)}) == trace
    try:
        async with running_server(tmp_path, bot_delay=0.05, hand_pause=30.0) as srv:
            ana = await lobby_client(srv.port, "ana")
            try:
                await table_against_a_bot(ana)
                deadline = time.monotonic() + 30
                moved = 0
                while moved < 2:  # a call answered or a card played, twice
                    assert time.monotonic() < deadline, ana.text()
                    if "Your move." not in (text := ana.text()):
                        await asyncio.sleep(0.05)
                        continue
                    key = next((k for k, label in ANSWERS if label in text), "1")
                    ana.send(key)
                    await ana.wait_for(lambda t, b=text: t != b, 10)
                    moved += 1
                # The change seen may have been the end of an earlier frame: the last move's
                # own frame is written (and traced) before the session closes.
                await quiet(ana)
            finally:
                await ana.close()
    finally:
        action_trace.stop()
    paths = trace_report.paths(action_trace.read(trace))
    assert paths, "no action found in the trace"
    for path in paths:
        steps = [path.steps[name] for name in trace_report.ORDER]  # every step is there
        assert steps == sorted(steps), path
        ((sent, written),) = path.viewers.values()  # ana's own screen
        assert path.steps["logged"] <= sent <= written
    assert set(trace_report.summary(paths)) >= {"input->hub", "act->applied", "sent->written"}
    assert "seq" in trace_report.describe(paths[0])
