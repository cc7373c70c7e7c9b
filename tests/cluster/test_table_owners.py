"""Tables owned by any process of a cluster: a table runs on the process of its first player,
not on the lobby host; when that process is killed (SIGKILL) mid-hand, another process
takes the table's lease, rebuilds it from its stream at exactly the acknowledged state, the
player connected elsewhere plays on without reconnecting, and the other gets the seat back."""
from __future__ import annotations

import asyncio
import re
import signal
import time

import asyncssh
import pytest

import protocol as p
from protocol.bus import TableCall, decode_bus
from server.cluster.bus import settle
from server.cluster.natsd import NatsServer
from server.cluster.tablewire import from_call, to_call
from server.table import messages as tm
from tests.cluster.procs import RESTORED, Proc, logged_state, until
from tests.e2e.helpers import close_all, lobby_client, offered_actions, refused
from tests.e2e.test_reconnect_ssh import back, cards, status
from tests.e2e.test_table_ssh import join_first_table, open_table, play_like_a_person

RUNS_ON = re.compile(r"table (\S+) runs on (\S+)")


def hand_two(text: str) -> bool:
    return re.search(r"\bHand 2\b", text) is not None


def test_every_message_the_lobby_sends_a_table_crosses_the_bus_unchanged() -> None:
    act = p.TableAction(table_id="t1", call="play", card="1e", cid=7, amount=None)
    messages = [tm.Act(5, act), tm.Chat(5, "ana", "hola", True), tm.Sena(5, "ojo"), tm.Watch(6),
                tm.Leave(6), tm.Rematch(5), tm.Away(5), tm.Rejoin(9, 1), tm.Release(1), tm.Stop()]
    for message in messages:
        call = decode_bus(p.encode(to_call("t1", message, "front-a")))
        assert isinstance(call, TableCall) and call.table_id == "t1"
        assert from_call(call) == message
    # A call that lacks what its kind needs, or names no kind, is nothing
    assert from_call(TableCall(table_id="t1", kind="act")) is None
    assert from_call(TableCall(table_id="t1", kind="rejoin", conn_id=3)) is None
    assert from_call(TableCall(table_id="t1", kind="explode", conn_id=3)) is None


async def _junk_on_the_table_subjects(url: str, table_id: str, procs: list[Proc]) -> None:
    """Malformed and foreign messages on every subject of the tables: logged and dropped by
    whoever reads them; no process ends, and the table plays on (the test goes on with it)."""
    import nats

    from protocol.bus import TableOwn, TableStatus
    from server.cluster.bus import TABLE_NEWS, owner_subject, table_subject

    hostile = await nats.connect(url)
    try:
        junk = [b"", b"\xc1", b"x" * 70_000, p.encode(p.Ping(n=1)),
                p.encode(TableOwn(table_id=table_id, variant="argentino", options={}))[:-2],
                p.encode(TableCall(table_id="tother", kind="stop")),  # another table's, on this one's
                p.encode(TableCall(table_id=table_id, kind="explode", conn_id=1))]
        subjects = [table_subject(table_id), TABLE_NEWS, *(owner_subject(proc.owner) for proc in procs)]
        for subject in subjects:
            for data in junk:
                await hostile.publish(subject, data)
        # A status from a process that does not run the table changes nothing
        await hostile.publish(TABLE_NEWS, p.encode(TableStatus(table_id=table_id, owner="nobody", finished=True)))
        await settle(hostile)
        # Every piece of junk was read and dropped by someone (each says so in its log).
        await until(lambda: sum(len([line for line in proc.lines if "dropped" in line]) for proc in procs)
                    >= len(junk))
    finally:
        await hostile.close()
    assert all(proc.process.returncode is None for proc in procs)
    assert sum(len([line for line in proc.lines if "dropped" in line]) for proc in procs) >= len(junk)
    assert not any("Traceback" in line for proc in procs for line in proc.lines)


async def _wait_line(procs: list[Proc], pattern: re.Pattern[str], timeout: float = 20.0
                     ) -> tuple[Proc, re.Match[str]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in procs:
            found = proc.saw(pattern)
            if found:
                return proc, found[-1]
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {pattern.pattern!r} from " + ", ".join(p.owner for p in procs))


@pytest.mark.e2e
async def test_the_owner_of_a_table_killed_mid_hand_another_process_resumes_it(
        nats_server: NatsServer, cluster: list[Proc]) -> None:
    p1, p2, p3 = cluster
    keys = {n: asyncssh.generate_private_key("ssh-ed25519") for n in ("ana", "beto")}
    ana = await lobby_client(p2.port, "ana", client_keys=[keys["ana"]])
    beto = await lobby_client(p3.port, "beto", client_keys=[keys["beto"]])
    clients = [ana, beto]
    try:
        await open_table(ana, 2)
        await join_first_table(beto)
        for c in clients:
            await c.wait_for(lambda s: status(s) != "" and "╭─────╮" in s, 10)
        # The table runs on ana's process, not on the lobby host
        _, placed = await _wait_line([p1], RUNS_ON)
        table_id = placed.group(1)
        assert placed.group(2) == p2.owner and p1.is_host
        await _junk_on_the_table_subjects(nats_server.url, table_id, cluster)
        mover = next(c for c in clients if status(c.text()) == "Your move.")
        flor = [key for key, label in offered_actions(mover.text()) if label == "Flor"]
        before = cards(mover.text())
        if flor:  # a dealt flor is sung before any card: singing it puts the hand under way
            mover.send(flor[0])
            await mover.wait_for(lambda s: not any(label == "Flor" for _, label in offered_actions(s)), 15)
        for digit in "" if flor else "123":  # one card played: the hand is under way
            shown = mover.text()
            mover.send(digit)
            # played (the cards change), or refused (the status line says why)
            await mover.wait_for(lambda s: cards(s) != before or (refused(s) and s != shown), 15)
            if cards(mover.text()) != before:
                break
        other = beto if mover is ana else ana

        def one_to_move() -> bool:
            """Both screens show the state after the move: one player to move, the other
            waiting for him (after a card, the mover waits)."""
            after = [status(mover.text()), status(other.text())]
            one = after.count("Your move.") == 1 and sum(s.startswith("Waiting for") for s in after) == 1
            return one and (flor or after[0] != "Your move.")

        await until(one_to_move)
        seen = {"ana": cards(ana.text()), "beto": cards(beto.text())}
        turns = {"ana": status(ana.text()), "beto": status(beto.text())}
        p1.lines.clear()
        await p2.stop(signal.SIGKILL)  # the table's owner, with ana's connection, mid-hand
        logged = await logged_state(nats_server.url)  # what JetStream acknowledged to it
        # Another process rebuilds the table at exactly the state its log replays to
        owner, restored = await _wait_line([p1, p3], RESTORED, 30)
        assert restored.group(1) == table_id
        assert (int(restored.group(2)), int(restored.group(3)), restored.group(4)) == logged[table_id]
        _, moved = await _wait_line([p1], re.compile(rf"table {table_id} runs on (\S+)"))
        assert moved.group(1) == owner.owner != p2.owner
        assert not p3.is_host and p1.process.returncode is None  # the lobby stayed where it was
        # Beto never reconnected: his table comes back to his screen as it was
        await beto.wait_for(lambda s: cards(s) == seen["beto"] and "ana" in s, 15)
        # Ana connects again (to the lobby host's process) and gets her seat back
        await ana.close()
        ana = await back(p1.port, "ana", [keys["ana"]], seen["ana"])
        clients = [ana, beto]
        await beto.wait_for(lambda s: status(s) == turns["beto"], 15)
        assert status(ana.text()) == turns["ana"]
        deadline = time.monotonic() + 90
        await asyncio.gather(play_like_a_person(ana, deadline, hand_two), play_like_a_person(beto, deadline, hand_two))
    finally:
        await close_all(*clients)
