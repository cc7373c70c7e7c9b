"""Snapshots of the table screen of each variant at 80x24 (pytest-textual-snapshot).

A snapshot is the SVG of the whole terminal, committed under __snapshots__/. A layout
change shows up here as a failure with a side-by-side report (snapshot_report.html);
when the change is meant, look at the report, then accept it with
    python -m pytest tests/tui/test_table_snapshots.py --snapshot-update
The screens are deterministic: seeded engine games (tests/tui/table_states.py), fixed
names, no turn timer, no clock on screen.
"""
from __future__ import annotations

from typing import Any

import pytest

import protocol as p
from tui.app import TrucoApp

from tests.tui.table_states import longest_calls
from tests.tui.kit import FakeLink, welcome

VARIANTS = [("argentino", 4), ("uruguayo", 2), ("paulista", 2), ("venezolano", 2)]


@pytest.mark.parametrize("variant, players", VARIANTS)
def test_table_screen_snapshot(variant: str, players: int, snap_compare: Any) -> None:
    shown = longest_calls(variant, players, "en")
    link = FakeLink()
    me = shown.names[shown.seat or 0]
    app = TrucoApp(link, me, "en")
    link.push(*welcome(me), p.TableUpdated(table=shown.info), p.Seated(table_id="t1", seat=shown.seat))

    async def run_before(pilot: Any) -> None:
        await pilot.pause(0.1)
        link.push(shown.update(), p.Chat(line=p.ChatLine(sender=shown.names[1], text="good luck, have fun",
                                                         ts=0, table_id="t1")))
        await pilot.pause(0.3)

    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
