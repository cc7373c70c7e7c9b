"""Señas survive a restart: a seña seen by a seat is part of that seat's game, so the señas of
the hand being played are stored with the table's log (with the seats that saw each one) and
a restored table shows every seat the same ones, and no seat one it did not see; bots read
the same partners' señas after the restart, so the match goes on as it would have."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import engine
from server.store import Store, TableRecord
from server.table import Occupant, Pace, TableActor
from server.table import messages as tm
from tests.server.test_senas import senas_seen
from tests.server.test_table import FAST, Viewers, bots, until

PEOPLE = ["ana", "beto", "caro", "dani"]  # seats 0 and 2 against 1 and 3


def people() -> list[Occupant]:
    return [Occupant(name, seat + 1) for seat, name in enumerate(PEOPLE)]


def seen_by(viewers: Viewers, conn: int) -> list[tuple[int, str, tuple[int, ...], bool]]:
    return [(e.seat, e.sena, e.to, e.caught) for e in senas_seen(viewers, conn)]


async def test_each_seat_sees_the_same_senas_after_a_restart_and_none_it_did_not_see(tmp_path: Path) -> None:
    options = {"senas": "fair", "flor": False}
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        await store.create_table(TableRecord("t", "x", "argentino", options, "ana", False, "", 0,
                                             [o.to_record() for o in people()], "seed-3"))
        before = Viewers()
        first = TableActor("t", "argentino", options, people(), before.send, pace=FAST, seed="seed-3",
                           store=store)
        first.start()
        await until(lambda: all(before.updates(seat + 1) for seat in range(4)))
        signs = ["tres", "ancho_espadas", "nada", "dos", "siete_oros", "envido"]
        for code in signs:  # every seat signals a few times: some opponent catches some
            for seat in range(4):
                first.post(tm.Sena(seat + 1, code))
        await until(lambda: len(senas_seen(before, 1)) >= len(signs) * 2)
        await first.stop()
        made = first.talk.made
        assert len(made) == len(signs) * 4
        saw = {seat: seen_by(before, seat + 1) for seat in range(4)}
        catches = sum(caught for seen in saw.values() for *_, caught in seen)
        assert catches > 0, "no catch with this seed: pick another to test them"

        (record,) = await store.restart_tables()
        assert len(record.senas) == len(made)
        after = Viewers()
        restored = TableActor("t", "argentino", options, people(), after.send, pace=FAST, seed="seed-3",
                              store=store)
        restored.restore(record.events, record.snapshot, senas=record.senas)
        assert restored.state == first.state
        restored.start()
        for seat in range(4):
            restored.post(tm.Rejoin(10 + seat, seat))  # each player back on a new connection
        await until(lambda: all(after.updates(10 + seat) for seat in range(4)))
        for seat in range(4):
            # The same señas, in the same order, marked caught as they were; nothing more.
            assert seen_by(after, 10 + seat) == saw[seat], seat
        # A bot in a partner's seat would read the same señas as before.
        assert restored.talk.partner_senas(restored.state, 2) == first.talk.partner_senas(first.state, 2)
        await restored.stop()
        await store.close_table("t")  # a closed table keeps no señas
        assert not sqlite3.connect(tmp_path / "db.sqlite3").execute("SELECT COUNT(*) FROM senas").fetchone()[0]
    finally:
        await store.close()


async def test_a_new_hand_forgets_the_stored_senas_of_the_last_one(tmp_path: Path) -> None:
    options = {"senas": "private", "flor": False, "target": 15, "match_games": 1}
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        seats = [Occupant("ana", 1), *bots(4)[1:]]
        await store.create_table(TableRecord("t", "x", "argentino", options, "ana", False, "", 0,
                                             [o.to_record() for o in seats], "seed-4"))
        viewers = Viewers()
        actor = TableActor("t", "argentino", options, seats, viewers.send,
                           pace=Pace(bot_delay=0, hand_pause=0), seed="seed-4", store=store)
        actor.start()
        await until(lambda: viewers.updates(1))
        assert actor.state is not None
        first_hand = actor.state.deal_no
        actor.post(tm.Sena(1, "ancho_espadas"))
        await until(lambda: any(e.sena == "ancho_espadas" for e in senas_seen(viewers, 1)))
        # Ana's seat is played by the bot from here: the hand ends and the next one is dealt.
        actor.post(tm.Leave(1))
        await until(lambda: actor.state is not None and (actor.state.deal_no > first_hand or actor.finished),
                    timeout=30)
        await actor.stop()
        (record,) = await store.restart_tables()
        assert all((r.match_no, r.deal_no) != (1, first_hand) for r in record.senas)
        assert all(r.deal_no == actor.state.deal_no for r in record.senas)
    finally:
        await store.close()


async def test_with_senas_a_restarted_table_plays_on_as_it_would_have(tmp_path: Path) -> None:
    """Bots signal at every deal and read their partners' señas: after a restart in the
    middle of a hand they read the same ones, so the log is the one of a table never
    stopped."""
    options = {"match_games": 1, "target": 15, "senas": "fair"}
    fast = Pace(bot_delay=0, hand_pause=0)
    straight = TableActor("a", "argentino", options, bots(4), Viewers().send, pace=fast, seed="fixed")
    straight.start()
    await until(lambda: straight.finished, timeout=60)
    await straight.stop()
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        await store.create_table(TableRecord("b", "x", "argentino", options, "o", False, "", 0,
                                             [o.to_record() for o in bots(4)], "fixed"))
        first = TableActor("b", "argentino", options, bots(4), Viewers().send, pace=fast, seed="fixed",
                           store=store)
        first.start()
        await until(lambda: first.seq >= 60 or first.finished)
        await first.stop()
        assert not first.finished and first.talk.made
        (record,) = await store.restart_tables()
        assert [(r.seat, r.sena) for r in record.senas] == first.talk.made
        restored = TableActor("b", "argentino", options, bots(4), Viewers().send, pace=fast,
                              seed="fixed", store=store)
        restored.restore(record.events, record.snapshot, senas=record.senas)
        restored.start()
        await until(lambda: restored.finished, timeout=60)
        await restored.stop()
        (whole,) = await store.open_tables()
        assert [engine.event_from_wire(r.data) for r in whole.events] == straight.events
    finally:
        await store.close()

