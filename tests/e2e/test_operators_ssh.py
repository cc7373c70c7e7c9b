"""Operators over real SSH (issue 34): an operator's key kicks, mutes, bans, lifts and tells
everyone, with ``truco-ssh admin``'s own code; every other key is refused; a ban holds at the
SSH handshake, with the reason the client shows, and across a restart."""
from __future__ import annotations

import asyncio

import asyncssh
import pytest

import protocol as p
from protocol import moderation as m
from protocol.client import Client, Closed
from server.cli.admin import run_admin
from server.say import ENGLISH
from tui.operator_report import report_lines
from tests.e2e.harness import running_server
from tests.e2e.helpers import KEY_ENTER, KEY_ESC, focus_chat, lobby_client, players_pane, say

pytestmark = pytest.mark.e2e


def _key() -> asyncssh.SSHKey:
    return asyncssh.generate_private_key("ssh-ed25519")


def _fingerprint(key: asyncssh.SSHKey) -> str:
    return str(key.get_fingerprint("sha256"))


async def _admin(port: int, operator: asyncssh.SSHKey, command: p.Command) -> p.Event:
    return await run_admin("127.0.0.1", port, command, [operator], known_hosts=None)


async def _ended_with(client: Client, code: str) -> p.Notice:
    notice = await client.wait_for(p.Notice, 10)
    assert notice.code == code
    with pytest.raises(Closed):
        await client.wait_for(p.Pong, 10)  # nothing more: the server hung up
    return notice


async def test_only_an_operators_key_is_answered_and_a_banned_key_is_refused_at_the_handshake_even_after_a_restart(
        tmp_path):
    operator, mallory = _key(), _key()
    overrides = dict(operator_keys=(_fingerprint(operator),), bot_delay=0.0, hand_pause=0.0)
    async with running_server(tmp_path, **overrides) as srv:
        refused = await run_admin("127.0.0.1", srv.port, m.Online(), [mallory], known_hosts=None)
        assert isinstance(refused, p.Error) and refused.code == "not_operator"
        bad = await Client.connect("127.0.0.1", srv.port, "mallory", client_keys=[mallory])
        await bad.send(m.Restrict(what=m.BAN, on=m.ON_NAME, target="anyone"))
        assert (await bad.wait_for(p.Error)).code == "not_operator"
        online = await _admin(srv.port, operator, m.Online())
        assert isinstance(online, m.OnlineReport)
        assert [(line.name, line.fingerprint, line.address) for line in online.lines if line.name] == [
            ("mallory", _fingerprint(mallory), "127.0.0.1")]
        done = await _admin(srv.port, operator, m.Restrict(what=m.BAN, on=m.ON_KEY, target="Mallory",
                                                           reason="cheating"))
        assert isinstance(done, m.Done) and "1 sessions ended" in done.text, done
        notice = await _ended_with(bad, "banned")
        assert notice.text == "cheating"  # the operator's words; how long: at the handshake
        with pytest.raises(asyncssh.DisconnectError, match="banned from this server for good: cheating"):
            await Client.connect("127.0.0.1", srv.port, "another-name", client_keys=[mallory])
    async with running_server(tmp_path, **overrides) as srv:  # the same data directory
        with pytest.raises(asyncssh.DisconnectError, match="cheating"):
            await Client.connect("127.0.0.1", srv.port, "mallory", client_keys=[mallory])
        bans = await _admin(srv.port, operator, m.ListRestrictions())
        assert isinstance(bans, m.RestrictionsReport)
        assert [(b.number, b.what, b.on, b.target) for b in bans.lines] == [
            (1, m.BAN, m.ON_KEY, _fingerprint(mallory))]
        assert isinstance(await _admin(srv.port, operator, m.Lift(number=1)), m.Done)
        again = await _admin(srv.port, operator, m.Lift(number=1))
        assert isinstance(again, p.Error) and again.code == "no_restriction"
        async with await Client.connect("127.0.0.1", srv.port, "mallory", client_keys=[mallory]) as back:
            assert back.welcome is not None
        record = await _admin(srv.port, operator, m.ModerationLog())
        assert isinstance(record, m.LogReport)
        assert [line.action for line in record.lines] == ["lift", m.BAN]
        assert all(line.by == _fingerprint(operator) for line in record.lines)


async def test_an_address_ban_keeps_guests_out_but_never_the_operator(tmp_path):
    operator = _key()
    async with running_server(tmp_path, operator_keys=(_fingerprint(operator),)) as srv:
        done = await _admin(srv.port, operator, m.Restrict(what=m.BAN, on=m.ON_ADDRESS, target="127.0.0.9",
                                                           prefix=True, minutes=5, reason="flooding"))
        assert isinstance(done, m.Done) and "127.0.0.0/24" in done.text
        with pytest.raises(asyncssh.DisconnectError, match=r"banned from this server until .* UTC: flooding"):
            await Client.connect("127.0.0.1", srv.port, "carla")
        assert isinstance(await _admin(srv.port, operator, m.ListRestrictions()), m.RestrictionsReport)
        assert isinstance(await _admin(srv.port, operator, m.Lift(number=1)), m.Done)
        async with await Client.connect("127.0.0.1", srv.port, "carla") as carla:
            assert carla.welcome is not None


async def test_a_muted_player_cannot_chat_the_others_hear_the_operators_and_a_kicked_terminal_is_told(tmp_path):
    operator, bob_key = _key(), _key()
    async with running_server(tmp_path, operator_keys=(_fingerprint(operator),)) as srv:
        ana = await Client.connect("127.0.0.1", srv.port, "ana")
        bob = await lobby_client(srv.port, "bob", client_keys=[bob_key])
        try:
            done = await _admin(srv.port, operator, m.Restrict(what=m.MUTE, on=m.ON_NAME, target="ANA",
                                                               minutes=10, reason="insults"))
            assert isinstance(done, m.Done), done
            await ana.send(p.SendChat(text="still here"))
            error = await ana.wait_for(p.Error)
            assert error.code == "muted" and "insults" in error.message
            online = await _admin(srv.port, operator, m.Online())
            assert isinstance(online, m.OnlineReport)
            assert {line.name: line.muted for line in online.lines if line.name} == {"ana": True, "bob": False}
            assert any("muted" in line for line in report_lines(online, ENGLISH))
            told = await _admin(srv.port, operator, m.Broadcast(text="restart at 10:00"))
            assert isinstance(told, m.Done) and told.text == "told 2 players"
            assert (await ana.wait_for(p.Notice)).text == "restart at 10:00"
            await bob.wait_for("From the server's operators: restart")
            kicked = await _admin(srv.port, operator, m.Kick(name="bob", reason="take a break"))
            assert isinstance(kicked, m.Done)
            await bob.wait_for("An operator of this server disconnected you.")
            await asyncio.wait_for(bob.closed.wait(), 10)
            assert "take a break" in bob.raw.decode(errors="replace")
            missing = await _admin(srv.port, operator, m.Kick(name="bob"))
            assert isinstance(missing, p.Error) and missing.code == "not_online"
        finally:
            await ana.close()
            await bob.close()


async def test_an_operator_at_a_terminal_sees_who_is_online_and_mutes_with_a_slash_command(tmp_path):
    operator = _key()
    async with running_server(tmp_path, operator_keys=(_fingerprint(operator),)) as srv:
        ana = await Client.connect("127.0.0.1", srv.port, "ana")
        op = await lobby_client(srv.port, "olga", client_keys=[operator])
        try:
            await focus_chat(op)
            op.send("/who" + KEY_ENTER)
            shown = await op.wait_for(lambda text: "Operators" in text and "ana" in text and "127.0.0.1" in text)
            assert "2 online" in shown and "operator" in shown
            op.send(KEY_ESC)  # the report closes; the chat keeps the keys
            await op.wait_for(lambda text: "Operators" not in text and "ana" in players_pane(text))
            await say(op, "/mute ana 10 insults")
            notice = await ana.wait_for(p.Notice)
            assert notice.code == "muted" and notice.text == "insults"
            await op.wait_for("number 1: name ana muted until")
            await say(op, "/kick")
            await op.wait_for("Write it so: /kick NAME [REASON]")
            await say(op, "hello everyone")  # chat as usual: the operator is never muted
            line = await ana.wait_for(p.Chat)
            assert (line.line.sender, line.line.text) == ("olga", "hello everyone")
        finally:
            await ana.close()
            await op.close()


async def test_players_report_with_the_evidence_and_the_operator_sees_the_most_reported_first(tmp_path):
    operator, bob_key = _key(), _key()
    async with running_server(tmp_path, operator_keys=(_fingerprint(operator),)) as srv:
        mallory = await Client.connect("127.0.0.1", srv.port, "mallory")
        ana = await Client.connect("127.0.0.1", srv.port, "ana")
        bob = await lobby_client(srv.port, "bob", client_keys=[bob_key], env={"LANG": "es_AR.UTF-8"},
                                 lobby_word="Salón")
        try:
            await mallory.send(p.SendChat(text="you are all idiots"))
            await ana.wait_for(p.Chat)
            await ana.send(p.SendChat(text="please stop"))
            await mallory.wait_for(p.Chat)
            await ana.send(m.ReportPlayer(name="Mallory", reason="abuse", text="insults"))
            assert (await ana.wait_for(p.Notice)).code == "reported"
            await say(bob, "/report mallory insultos siempre igual")  # the reason in Spanish
            await bob.wait_for("tu denuncia les llegó")
            await ana.send(m.ReportPlayer(name="ana", reason="abuse"))
            assert (await ana.wait_for(p.Error)).code == "bad_target"  # not oneself
            queue = await _admin(srv.port, operator, m.Reports())
            assert isinstance(queue, m.ReportsReport) and len(queue.lines) == 1, queue
            line = queue.lines[0]
            assert (line.reported, line.reporters, line.by, line.reason, line.text) == (
                "mallory", 2, "bob", "abuse", "siempre igual")
            assert line.evidence == ("mallory: you are all idiots",)  # bob said nothing; ana's lines are hers
            assert any("reported by 2" in text for text in report_lines(queue, ENGLISH))

            # dealt with: settled, off the queue; a later report starts a new entry, counted afresh
            await mallory.send(m.SettleReports(number=line.number))
            assert (await mallory.wait_for(p.Error)).code == "not_operator"
            settled = await _admin(srv.port, operator, m.SettleReports(number=line.number, reason="muted a day"))
            assert settled == m.Done(action="settle", text="2 reports of mallory settled")
            assert await _admin(srv.port, operator, m.Reports()) == m.ReportsReport()
            again = await _admin(srv.port, operator, m.SettleReports(number=line.number))
            assert isinstance(again, p.Error) and again.code == "no_such_report"
            await ana.send(m.ReportPlayer(name="mallory", reason="name"))
            assert (await ana.wait_for(p.Notice)).code == "reported"
            fresh = await _admin(srv.port, operator, m.Reports())
            assert isinstance(fresh, m.ReportsReport)
            assert [(r.reported, r.reporters, r.reason) for r in fresh.lines] == [("mallory", 1, "name")]
            record = await _admin(srv.port, operator, m.ModerationLog())
            assert isinstance(record, m.LogReport)
            assert (record.lines[0].action, record.lines[0].target, record.lines[0].reason) == (
                "settle", f"mallory #{line.number}", "muted a day")
        finally:
            await mallory.close()
            await ana.close()
            await bob.close()


async def test_an_ignored_player_is_not_heard_nor_seated_with_by_quick_play_and_the_list_is_kept_for_a_key(tmp_path):
    ana_key = _key()
    async with running_server(tmp_path) as srv:
        mallory = await Client.connect("127.0.0.1", srv.port, "mallory")
        carla = await Client.connect("127.0.0.1", srv.port, "carla")
        ana = await lobby_client(srv.port, "ana", client_keys=[ana_key])
        try:
            await say(ana, "/ignore mallory")
            await ana.wait_for("You ignore: mallory.")
            await mallory.send(p.SendChat(text="spam spam spam"))
            await carla.wait_for(p.Chat)  # said, and heard by the others
            await carla.send(p.SendChat(text="hola a todos"))
            await ana.wait_for("hola a todos")
            assert "spam spam" not in ana.text()
            await mallory.send(p.QuickPlay(variant="argentino"))
            mallorys = (await mallory.wait_for(p.Seated)).table_id
            await ana.close()
            ana = await Client.connect("127.0.0.1", srv.port, "ana", client_keys=[ana_key])
            assert (await ana.wait_for(p.Listening)).ignored == ("mallory",)  # kept for her key
            await ana.send(p.QuickPlay(variant="argentino"))
            assert (await ana.wait_for(p.Seated)).table_id != mallorys  # a table of her own
            await carla.send(p.QuickPlay(variant="argentino"))
            assert (await carla.wait_for(p.Seated)).table_id == mallorys  # (the closest to starting)
            await ana.send(p.Ignore(name="Mallory", on=False))
            assert (await ana.wait_for(p.Listening)).ignored == ()
            await ana.send(p.ChatSetting(hear="nobody"))
            assert (await ana.wait_for(p.Listening)).hear == "nobody"
        finally:
            await asyncio.gather(mallory.close(), carla.close(), ana.close())


async def test_a_player_who_hears_nobody_sees_only_their_own_lines_and_it_is_kept_for_their_key(tmp_path):
    bea_key = _key()
    async with running_server(tmp_path) as srv:
        carla = await Client.connect("127.0.0.1", srv.port, "carla")
        bea = await lobby_client(srv.port, "bea", client_keys=[bea_key], env={"LANG": "pt_BR.UTF-8"},
                                 lobby_word="Saguão")
        try:
            await say(bea, "/chat ninguém")
            await bea.wait_for("Você não vê o chat de ninguém")
            await carla.send(p.SendChat(text="alguém aí?"))
            await say(bea, "eu mesma")
            await bea.wait_for("eu mesma")
            assert "alguém aí" not in bea.text()
            await bea.close()
            bea = await lobby_client(srv.port, "bea", client_keys=[bea_key], env={"LANG": "pt_BR.UTF-8"},
                                     lobby_word="Saguão")
            await bea.wait_for("Você não vê o chat de ninguém")  # kept for her key
            assert "alguém aí" not in bea.text()  # not in the lobby's chat history either
            await say(bea, "/chat todos")
            await bea.wait_for("Você vê o chat de todos")
            await carla.send(p.SendChat(text="oi bea"))
            await bea.wait_for("oi bea")
        finally:
            await asyncio.gather(carla.close(), bea.close())


async def _back_in_a_lobby_without(player: Client, table_id: str) -> None:
    """Until ``player`` is in the lobby (``Seated`` nowhere) and its lobby lists no ``table_id``
    (a cluster's front end may send its copy of the list before the table's removal reached it,
    then the removal as news)."""
    seated, listed = False, {table_id}
    async with asyncio.timeout(10):
        while not seated or table_id in listed:
            event = await player.receive()
            if isinstance(event, p.Seated):
                seated = event.table_id is None
            elif isinstance(event, p.LobbySnapshot):
                listed = {t.table_id for t in event.tables}
            elif isinstance(event, p.TableRemoved):
                listed.discard(event.table_id)


async def test_an_operator_closes_a_table_its_players_are_back_in_the_lobby_and_nobody_lost(tmp_path):
    operator, ana_key, bob_key = _key(), _key(), _key()
    async with running_server(tmp_path, operator_keys=(_fingerprint(operator),), bot_delay=0.0) as srv:
        ana = await Client.connect("127.0.0.1", srv.port, "ana", client_keys=[ana_key])
        bob = await Client.connect("127.0.0.1", srv.port, "bob", client_keys=[bob_key])
        try:
            await ana.send(p.CreateTable(variant="argentino", players=2, options={}))
            table_id = (await ana.wait_for(p.TableCreated)).table_id
            await bob.send(p.JoinTable(table_id=table_id))
            await bob.wait_for(p.TableUpdate)  # playing
            done = await _admin(srv.port, operator, m.CloseTable(table_id=table_id, reason="a bug"))
            assert isinstance(done, m.Done) and "2 sessions told" in done.text, done
            for player in (ana, bob):
                notice = await player.wait_for(p.Notice)
                assert (notice.code, notice.text) == ("table_closed", "a bug")
                await _back_in_a_lobby_without(player, table_id)
            await ana.send(p.MyStats())
            stats = await ana.wait_for(p.StatsReport)
            assert stats.games == 0 and not any(match.abandoned for match in stats.recent)  # nobody's loss
            missing = await _admin(srv.port, operator, m.CloseTable(table_id=table_id))
            assert isinstance(missing, p.Error) and missing.code == "no_table"
        finally:
            await asyncio.gather(ana.close(), bob.close())


async def test_an_operator_names_another_operator_who_stays_one_after_a_restart_until_removed(tmp_path):
    """Over SSH with ``truco-ssh admin``'s code: bob's key, named by its player's name, is an
    operator from then on and after a restart; a key of the settings cannot be removed so; bob,
    removed, is refused again."""
    operator, bob_key = _key(), _key()
    overrides = dict(operator_keys=(_fingerprint(operator),))
    async with running_server(tmp_path, **overrides) as srv:
        async with await Client.connect("127.0.0.1", srv.port, "bob", client_keys=[bob_key]) as bob:
            await bob.send(m.NameOperator(key="bob"))  # not an operator yet: may not name himself
            assert (await bob.wait_for(p.Error)).code == "not_operator"
            named = await _admin(srv.port, operator, m.NameOperator(key="Bob"))
            assert named == m.Done(action="operator", text=f"{_fingerprint(bob_key)} is an operator now"), named
        assert isinstance(await _admin(srv.port, bob_key, m.Online()), m.OnlineReport)
        unknown = await _admin(srv.port, bob_key, m.NameOperator(key="nobody-here"))
        assert isinstance(unknown, p.Error) and unknown.code == "bad_key", unknown
        kept = await _admin(srv.port, bob_key, m.NameOperator(key=_fingerprint(operator), on=False))
        assert isinstance(kept, p.Error) and kept.code == "in_settings", kept
    async with running_server(tmp_path, **overrides) as srv:  # the same data directory
        listed = await _admin(srv.port, bob_key, m.ListOperators())
        assert isinstance(listed, m.OperatorsReport)
        assert [(line.fingerprint, line.named, line.by) for line in listed.lines] == [
            (_fingerprint(operator), False, ""), (_fingerprint(bob_key), True, _fingerprint(operator))]
        assert any("named by" in text for text in report_lines(listed, ENGLISH))
        removed = await _admin(srv.port, operator, m.NameOperator(key=_fingerprint(bob_key), on=False))
        assert isinstance(removed, m.Done) and "no longer" in removed.text
        refused = await _admin(srv.port, bob_key, m.Online())
        assert isinstance(refused, p.Error) and refused.code == "not_operator"
        record = await _admin(srv.port, operator, m.ModerationLog())
        assert isinstance(record, m.LogReport)
        assert [(line.action, line.target) for line in record.lines] == [
            ("unoperator", _fingerprint(bob_key)), ("operator", _fingerprint(bob_key))]
