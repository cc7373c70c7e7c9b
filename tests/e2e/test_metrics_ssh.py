"""``--metrics``: a scrape of /metrics during a played game shows the figures move."""
from __future__ import annotations

import asyncio
import urllib.request

import asyncssh
import pytest
from prometheus_client.parser import text_string_to_metric_families

import protocol as p
from protocol.client import Client
from server.cluster.natsd import free_port
from tests.e2e.harness import running_server
from tests.e2e.programs import close_all, connect, play, table_of

pytestmark = pytest.mark.e2e


def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


async def scrape_until(url: str, want, timeout: float = 20.0):  # type: ignore[no-untyped-def]
    """Scrapes until one satisfies ``want`` (the gauges are sampled once a second): that one."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        figures = await asyncio.to_thread(scrape, url)
        if want(figures) or loop.time() > deadline:
            return figures
        await asyncio.sleep(0.05)


def value(figures, name: str, **labels: str) -> float:  # type: ignore[no-untyped-def]
    return figures.get((name, tuple(sorted(labels.items()))), 0.0)


async def test_a_scrape_during_a_game_shows_sessions_tables_actions_and_refusals(tmp_path):
    address = f"127.0.0.1:{free_port()}"
    url = f"http://{address}/metrics"
    async with running_server(tmp_path, metrics=address, bot_delay=0.05, hand_pause=0.0,
                              max_connections_per_ip=1) as srv:
        before = await asyncio.to_thread(scrape, url)
        [ana] = await connect(srv.port, "ana")
        try:
            await ana.wait_for(p.LobbySnapshot)
            table_id = await table_of(ana, 2, options={"target": 15})
            await ana.send(p.AddBot(table_id=table_id))
            await play(ana, table_id, lambda u: u.seq >= 12)
            with pytest.raises((asyncssh.Error, OSError)):  # a second connection from the same address
                await Client.connect("127.0.0.1", srv.port, "beto")
            during = await scrape_until(url, lambda f: value(f, "truco_sessions") >= 1 and value(
                f, "truco_tables", variant="argentino", status="playing") >= 1)
        finally:
            await close_all([ana])
    assert value(during, "truco_sessions") == 1 and value(during, "truco_players") == 1
    assert value(during, "truco_tables", variant="argentino", status="playing") == 1
    moved = value(during, "truco_actions_total", variant="argentino") - value(
        before, "truco_actions_total", variant="argentino")
    assert moved >= 3  # ana's and the bot's plays and calls
    assert value(during, "truco_press_to_update_seconds_count") > value(before, "truco_press_to_update_seconds_count")
    assert value(during, "truco_event_loop_lag_seconds_count") >= 1
    assert value(during, "truco_refused_connections_total", reason="per_ip") == value(
        before, "truco_refused_connections_total", reason="per_ip") + 1
    names = [dict(labels)["name"] for name, labels in during if name == "truco_process_info"]
    assert names and all(names)  # the process's name, as the log gives it
