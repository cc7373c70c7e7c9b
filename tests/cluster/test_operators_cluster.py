"""Operators in a cluster (issue 34): a ban made through one process's front end holds at
every process's SSH handshake (each keeps the bans from a watched bucket), and ends the
banned player's session on another process."""
from __future__ import annotations

import asyncio
import signal
from typing import Awaitable

import asyncssh
import pytest

import protocol as p
from protocol import moderation as m
from protocol.client import Client, Closed
from server.cli.admin import run_admin
from server.cluster.natsd import NatsServer
from tests.cluster.procs import Proc, start, until

pytestmark = pytest.mark.e2e


async def operated(tmp_path, nats_server: NatsServer, operator: asyncssh.SSHKey) -> Proc:
    """A process of the cluster whose operator holds ``operator``."""
    return await start(tmp_path, nats_server.url, "--operator-key", str(operator.get_fingerprint("sha256")))


async def test_a_ban_made_on_one_process_is_refused_by_another_and_ends_the_session_there(
        tmp_path, nats_server: NatsServer) -> None:
    operator, mallory = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    host, front = await operated(tmp_path, nats_server, operator), await operated(tmp_path, nats_server, operator)
    try:
        bad = await Client.connect("127.0.0.1", front.port, "mallory", client_keys=[mallory])
        online = await run_admin("127.0.0.1", host.port, m.Online(), [operator], known_hosts=None)
        assert isinstance(online, m.OnlineReport) and [line.name for line in online.lines if line.name] == ["mallory"]
        done = await run_admin("127.0.0.1", host.port, m.Restrict(what=m.BAN, on=m.ON_KEY, target="mallory",
                                                                  minutes=30, reason="cheating"),
                               [operator], known_hosts=None)
        assert isinstance(done, m.Done) and "1 sessions ended" in done.text, done
        notice = await bad.wait_for(p.Notice, 10)
        assert notice.code == "banned" and notice.text == "cheating"
        with pytest.raises(Closed):
            await bad.wait_for(p.Pong, 10)
        with pytest.raises(asyncssh.DisconnectError, match="banned from this server until .*: cheating"):
            await Client.connect("127.0.0.1", front.port, "mallory", client_keys=[mallory])
        record = await run_admin("127.0.0.1", front.port, m.ModerationLog(), [operator], known_hosts=None)
        assert isinstance(record, m.LogReport) and [line.action for line in record.lines] == [m.BAN]
        lifted = await run_admin("127.0.0.1", front.port, m.Lift(number=1), [operator], known_hosts=None)
        assert isinstance(lifted, m.Done), lifted
        for _ in range(100):  # the front end's copy forgets it as soon as the bucket says so
            try:
                back = await Client.connect("127.0.0.1", front.port, "mallory", client_keys=[mallory])
            except asyncssh.DisconnectError:
                await asyncio.sleep(0.05)
                continue
            await back.close()
            break
        else:
            raise AssertionError("the lifted ban still holds on the other process")
    finally:
        await asyncio.gather(host.stop(), front.stop())


async def test_a_ban_outlives_its_lobby_host_and_holds_at_a_process_started_after(
        tmp_path, nats_server: NatsServer) -> None:
    operator, mallory = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    host, front = await operated(tmp_path, nats_server, operator), await operated(tmp_path, nats_server, operator)
    late = None
    try:
        for _ in range(400):  # which of the two is the lobby host
            if host.is_host or front.is_host:
                break
            await asyncio.sleep(0.05)
        if front.is_host:
            host, front = front, host
        assert host.is_host
        mallory_fp = str(mallory.get_fingerprint("sha256"))
        done = await run_admin("127.0.0.1", host.port, m.Restrict(what=m.BAN, on=m.ON_KEY, target=mallory_fp,
                                                                  reason="cheating"), [operator], known_hosts=None)
        assert isinstance(done, m.Done), done
        await host.stop(signal.SIGKILL)  # the lobby host dies with the ban just made
        late = await operated(tmp_path, nats_server, operator)
        for proc in (front, late):
            with pytest.raises(asyncssh.DisconnectError, match="banned from this server for good: cheating"):
                await Client.connect("127.0.0.1", proc.port, "mallory", client_keys=[mallory])
        bans = await run_admin("127.0.0.1", late.port, m.ListRestrictions(), [operator], known_hosts=None)
        assert isinstance(bans, m.RestrictionsReport) and [line.target for line in bans.lines] == [mallory_fp]
    finally:
        await asyncio.gather(*(proc.stop() for proc in (host, front, late) if proc is not None))


async def test_every_operator_action_reaches_players_on_another_process_and_is_refused_to_others(
        tmp_path, nats_server: NatsServer) -> None:
    """Through one process, on players connected to the other: a mute, a broadcast, closing their
    table, a report read back and settled, a kick; a player's key gets not_operator for each."""
    operator, ana_key, bob_key = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(3))
    one, other = await operated(tmp_path, nats_server, operator), await operated(tmp_path, nats_server, operator)
    ana = bob = None
    try:
        ana = await Client.connect("127.0.0.1", other.port, "ana", client_keys=[ana_key])
        bob = await Client.connect("127.0.0.1", other.port, "bob", client_keys=[bob_key])

        async def admin(command: p.Command, key: asyncssh.SSHKey = operator) -> p.Event:
            return await run_admin("127.0.0.1", one.port, command, [key], known_hosts=None)

        for command in (m.Online(), m.Kick(name="bob"), m.Broadcast(text="x"), m.Reports(),
                        m.SettleReports(number=1)):
            refused = await admin(command, ana_key)
            assert isinstance(refused, p.Error) and refused.code == "not_operator", refused

        assert isinstance(await admin(m.Restrict(what=m.MUTE, on=m.ON_NAME, target="ana", minutes=10,
                                                 reason="insults")), m.Done)
        await ana.send(p.SendChat(text="still here"))  # (the lobby host holds the mute already)
        error = await ana.wait_for(p.Error, 10)
        assert error.code == "muted" and "insults" in error.message
        told = await admin(m.Broadcast(text="restart at 10:00"))
        assert isinstance(told, m.Done), told
        for player in (ana, bob):
            assert (await player.wait_for(p.Notice, 10)).text == "restart at 10:00"

        await ana.send(p.CreateTable(variant="argentino", players=2, options={}))
        table_id = (await ana.wait_for(p.TableCreated, 10)).table_id
        await bob.send(p.JoinTable(table_id=table_id))
        await bob.wait_for(p.TableUpdate, 10)  # playing
        await bob.send(m.ReportPlayer(name="ana", reason="abuse", text="at the table"))
        assert (await bob.wait_for(p.Notice, 10)).code == "reported"
        reports = await admin(m.Reports())
        assert isinstance(reports, m.ReportsReport) and [r.reported for r in reports.lines] == ["ana"]
        assert reports.lines[0].table_id == table_id
        settled = await admin(m.SettleReports(number=reports.lines[0].number, reason="warned"))
        assert settled == m.Done(action="settle", text="1 report of ana settled"), settled
        assert await admin(m.Reports()) == m.ReportsReport()  # (read back from the stream)
        closed = await admin(m.CloseTable(table_id=table_id, reason="a bug"))
        assert isinstance(closed, m.Done), closed
        for player in (ana, bob):
            assert (await player.wait_for(p.Notice, 10)).code == "table_closed"

        kicked = await admin(m.Kick(name="bob", reason="take a break"))
        assert isinstance(kicked, m.Done), kicked
        assert (await bob.wait_for(p.Notice, 10)).code == "kicked"
        with pytest.raises(Closed):
            await bob.wait_for(p.Pong, 10)
    finally:
        await asyncio.gather(*(c.close() for c in (ana, bob) if c is not None), return_exceptions=True)
        await asyncio.gather(one.stop(), other.stop())


async def test_a_key_named_an_operator_through_one_process_is_one_at_every_process(
        tmp_path, nats_server: NatsServer) -> None:
    """Named through one process's front end, kept in the operators' bucket: both processes
    (one of them not the lobby host, so its copy comes by the bucket's watch) let the key pass
    a ban of its name at their handshake, as an operator; once removed, neither does."""
    operator, ana_key, eve_key = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(3))
    one, other = await operated(tmp_path, nats_server, operator), await operated(tmp_path, nats_server, operator)
    try:
        async def admin(command: p.Command) -> p.Event:
            return await run_admin("127.0.0.1", one.port, command, [operator], known_hosts=None)

        async def lets_in(proc: Proc, key: asyncssh.SSHKey) -> bool:
            try:
                client = await Client.connect("127.0.0.1", proc.port, "ana", client_keys=[key])
            except asyncssh.DisconnectError:
                return False
            await client.close()
            return True

        fingerprint = str(ana_key.get_fingerprint("sha256"))
        assert isinstance(await admin(m.Restrict(what=m.BAN, on=m.ON_NAME, target="ana", minutes=30)), m.Done)
        assert isinstance(await admin(m.NameOperator(key=fingerprint)), m.Done)
        for proc in (one, other):
            await until(lambda: lets_in(proc, ana_key))
            assert not await lets_in(proc, eve_key)  # the ban of the name holds to anyone else
        listed = await run_admin("127.0.0.1", other.port, m.ListOperators(), [ana_key], known_hosts=None)
        assert isinstance(listed, m.OperatorsReport)
        assert (fingerprint, True) in [(line.fingerprint, line.named) for line in listed.lines]

        assert isinstance(await admin(m.NameOperator(key=fingerprint, on=False)), m.Done)
        for proc in (one, other):
            await until(lambda: not_(lets_in(proc, ana_key)))
    finally:
        await asyncio.gather(one.stop(), other.stop())


async def not_(held: Awaitable[bool]) -> bool:
    return not await held
