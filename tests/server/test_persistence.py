"""The table actor with its event log: append before send, restore == replay, idempotent retries."""
from __future__ import annotations

import asyncio
from pathlib import Path

import engine
import protocol as p
from server.store import EventRow, Store
from server.table import Occupant, Pace, TableActor, state_digest
from server.table import messages as tm
from tests.server.test_table import Viewers, bots, until

FAST = Pace(bot_delay=0, hand_pause=0)
OPTIONS = {"match_games": 1, "target": 15}


class GateStore:
    """A store whose appends wait for the test to let them through."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.committed = 0  # highest sequence number committed
        self.appends = 0

    async def append(self, table_id: str, rows: list[EventRow], **_: object) -> None:
        await self.gate.wait()
        self.appends += 1
        self.committed = rows[-1].seq

    async def finish_game(self, game, players) -> None:  # type: ignore[no-untyped-def]
        return None


async def test_no_viewer_sees_an_event_before_it_is_in_the_log() -> None:
    store = GateStore()
    sent: list[tuple[int, int]] = []  # (seq shown, seq committed) at each send

    def send(conn_id: int, frame: bytes) -> None:
        message = p.decode(frame)
        if isinstance(message, p.TableUpdate):
            sent.append((message.seq, store.committed))

    seats = [Occupant("ana", 1)] + bots(1)
    actor = TableActor("t", "argentino", OPTIONS, seats, send, pace=FAST, seed=5, store=store)  # type: ignore[arg-type]
    actor.start()
    await until(lambda: actor.seq > 0)
    assert sent == []  # the match started, but nothing is shown yet: its append waits
    store.gate.set()
    await until(lambda: len(sent) > 0)
    actor.post(tm.Leave(1))  # a bot plays on: many more appends and updates
    await until(lambda: actor.finished)
    await actor.stop()
    assert store.appends > 5
    assert all(shown <= committed for shown, committed in sent), sent[:5]


class BreakingStore(GateStore):
    """A store that takes a few appends, then cannot write any more (its disk, its NATS)."""

    def __init__(self, good: int) -> None:
        super().__init__()
        self.gate.set()
        self.good = good

    async def append(self, table_id: str, rows: list[EventRow], **kw: object) -> None:
        if self.appends >= self.good:
            raise OSError("the log cannot be written")
        await super().append(table_id, rows, **kw)


async def test_the_logged_number_stays_at_the_log_when_an_append_fails() -> None:
    # A cluster owner stamps each frame with it (server/cluster/table_seq.py): the storage
    # error must not carry a number above what the table's next owner restores.
    store = BreakingStore(good=3)
    stamps: list[tuple[str, int]] = []  # (frame, logged number) at each send
    actor: TableActor

    def send(conn_id: int, frame: bytes) -> None:
        stamps.append((type(p.decode(frame)).__name__, actor.logged_seq))

    actor = TableActor("t", "argentino", OPTIONS, [Occupant("ana", 1)] + bots(1), send, pace=FAST, seed=5,
                       store=store)  # type: ignore[arg-type]
    actor.post(tm.Watch(9))  # a spectator, who sees it to the end
    actor.start()
    actor.post(tm.Leave(1))  # a bot plays on until an append fails
    await until(lambda: actor.failed)
    await actor.stop()
    assert store.appends == 3 and actor.logged_seq == store.committed < actor.seq
    assert ("Error", store.committed) in stamps
    assert all(logged <= store.committed for _, logged in stamps)


async def run_until(actor: TableActor, seq: int) -> None:
    actor.start()
    await until(lambda: actor.seq >= seq or actor.finished)
    await actor.stop()


async def test_a_restored_table_equals_the_replay_and_plays_on_exactly_as_without_the_stop(tmp_path: Path) -> None:
    from server.store import TableRecord

    seed = "fixed-seed"
    # A: one uninterrupted game.
    straight = TableActor("a", "argentino", OPTIONS, bots(4), Viewers().send, pace=FAST, seed=seed)
    straight.start()
    await until(lambda: straight.finished)
    await straight.stop()
    # B: the same table, logged, stopped after 60 events; C: restored from B's log.
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        await store.create_table(TableRecord("b", "x", "argentino", OPTIONS, "o", False, "", 0,
                                             [o.to_record() for o in bots(4)], seed))
        first = TableActor("b", "argentino", OPTIONS, bots(4), Viewers().send, pace=FAST, seed=seed,
                           store=store)
        await run_until(first, 60)
        assert not first.finished
        (record,) = await store.open_tables()
        assert [r.seq for r in record.events] == list(range(1, first.seq + 1))
        restored = TableActor("b", "argentino", OPTIONS, bots(4), Viewers().send, pace=FAST,
                              seed=record.seed, store=store)
        restored.restore(record.events, senas=record.senas)  # the bots' señas of the hand
        rules = engine.get_ruleset("argentino", **OPTIONS)
        events = [engine.event_from_wire(r.data) for r in record.events]
        assert restored.state == first.state == engine.replay(rules, 4, events)
        assert state_digest(restored.state, 4) == state_digest(first.state, 4)
        assert restored.seq == first.seq
        restored.start()
        await until(lambda: restored.finished)
        await restored.stop()
        (record,) = await store.open_tables()
        logged = [engine.event_from_wire(r.data) for r in record.events]
        assert [r.seq for r in record.events] == list(range(1, len(logged) + 1))
        # Deals and bot choices are keyed by (seed, seq): the stop changed nothing.
        assert logged == straight.events
        assert restored.state == straight.state
        games = await store.my_games(None, "nobody")
        assert games == []  # bots only: nobody's game
    finally:
        await store.close()


async def test_a_retried_command_does_not_act_twice_even_after_a_restart(tmp_path: Path) -> None:
    from server.store import TableRecord

    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        seats = [Occupant("ana", 1), Occupant("beto", 2)]
        await store.create_table(TableRecord("t", "x", "argentino", OPTIONS, "ana", False, "", 0,
                                             [o.to_record() for o in seats], "s"))
        viewers = Viewers()
        actor = TableActor("t", "argentino", {"match_games": 1, "target": 15, "flor": False}, seats,
                           viewers.send, pace=FAST, seed="s", store=store)
        actor.start()
        await until(lambda: viewers.updates(1) and viewers.updates(2))
        seat = viewers.updates(1)[-1].view.turn
        conn = seat + 1
        card = viewers.updates(conn)[-1].view.own_cards[0]
        command = p.TableAction(table_id="t", call="play", card=card, cid=4242)
        actor.post(tm.Act(conn, command))
        await until(lambda: actor.seq > 0 and any(
            isinstance(e, p.Acted) for u in viewers.updates(conn) for e in u.events))
        await actor.stop()
        seq = actor.seq

        (record,) = await store.open_tables()
        assert any(r.cid == 4242 and r.seat == seat for r in record.events)
        again = Viewers()
        fresh_seats = [Occupant.from_record(d) for d in record.seats]
        restored = TableActor("t", "argentino", {"match_games": 1, "target": 15, "flor": False},
                              fresh_seats, again.send, pace=FAST, seed=record.seed, store=store)
        restored.restore(record.events)
        restored.start()
        restored.post(tm.Rejoin(9, seat))  # the player is back on a new connection
        await until(lambda: again.updates(9))
        assert again.updates(9)[-1].seq == seq
        restored.post(tm.Act(9, command))  # the client retries: it never saw the answer
        await asyncio.sleep(0.05)
        assert restored.seq == seq and not again.errors(9)
        await restored.stop()
    finally:
        await store.close()


async def test_the_first_dealer_moves_on_with_each_match_also_across_a_restore(tmp_path: Path) -> None:
    """A rematch deals first from the seat after the last match's first dealer (the mano
    alternates); the match start is logged, so a restored table replays it and moves on."""
    from server.store import TableRecord

    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        await store.create_table(TableRecord("d", "x", "argentino", OPTIONS, "o", False, "", 0,
                                             [o.to_record() for o in bots(2)], "seed", demo=True))
        first = TableActor("d", "argentino", OPTIONS, bots(2), Viewers().send, pace=FAST, seed="seed",
                           store=store, auto_rematch=True)
        first.start()
        await until(lambda: first.match_no == 2 and len(first.events) > 10)
        await first.stop()
        (record,) = await store.open_tables()
        starts = [engine.event_from_wire(r.data) for r in record.events if r.data["type"] == "match_started"]
        assert [s.first_dealer for s in starts] == [starts[0].first_dealer, 1 - starts[0].first_dealer]
        restored = TableActor("d", "argentino", OPTIONS, bots(2), Viewers().send, pace=FAST, seed="seed",
                              store=store, auto_rematch=True)
        restored.restore(record.events)
        assert restored.state == first.state
        restored.start()
        await until(lambda: restored.match_no == 3)
        await restored.stop()
        third = restored.events[0]
        assert isinstance(third, engine.MatchStarted) and third.first_dealer == starts[0].first_dealer
    finally:
        await store.close()
