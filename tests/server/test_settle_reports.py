"""Operators settle a player's reports once dealt with (issue 34): that player's reports up to
the entry's number leave the queue, later ones start a new entry, and it is recorded and kept
across a restart of the store."""
from __future__ import annotations

from pathlib import Path

from server.moderation.reports import Report, queue
from server.store import Store


def _report(reported: str, key: str, by: str) -> Report:
    return Report(0, 1_700_000_000.0, reported, key, "203.0.113.9", "abuse", "", by, f"SHA256:{by}", "198.51.100.1",
                  None, (), ())


async def test_settling_takes_one_players_reports_up_to_the_number_off_the_queue_and_survives_a_restart(
        tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        first = await store.add_report(_report("mallory", "SHA256:mal", "ana"))
        guest = await store.add_report(_report("Eve", "", "ana"))  # a guest: known by her name
        second = await store.add_report(_report("mallory", "SHA256:mal", "bob"))
        assert await store.settle_reports(10_000, "SHA256:op", "") == []  # no such report
        settled = await store.settle_reports(second, "SHA256:op", "muted a day")
        assert [r.number for r in settled] == [first, second]
        assert [r.number for r in await store.latest_reports()] == [guest]
        assert await store.settle_reports(second, "SHA256:op", "") == []  # settled already

        later = await store.add_report(_report("mallory", "SHA256:mal", "carla"))
        again = await store.add_report(_report("eve", "", "bob"))  # the same guest's name, written otherwise
        last = await store.add_report(_report("mallory", "SHA256:mal", "dora"))
        lines = queue(await store.latest_reports(), 10)
        assert [(line.reported, line.number, line.reporters) for line in lines] == [
            ("mallory", last, 2), ("eve", again, 2)]
        assert [r.number for r in await store.settle_reports(again, "SHA256:op", "a name change")] == [guest, again]
        assert [r.number for r in await store.settle_reports(later, "SHA256:op", "")] == [later]  # not past it
    finally:
        await store.close()

    store = Store(tmp_path / "db.sqlite3")
    await store.open()
    try:
        assert [r.number for r in await store.latest_reports()] == [last]
        log = await store.moderation_log(10)
        assert [(action, target, reason) for _, _, action, target, reason in log] == [
            ("settle", f"mallory #{later}", ""), ("settle", f"eve #{again}", "a name change"),
            ("settle", f"mallory #{second}", "muted a day")]
    finally:
        await store.close()
