"""The same words again while they are shown make no new toast (a refused flood's errors
used to make and drop widgets by the thousand); other words still replace them, and the
same words come back once the first has gone (tui/app.py notify_text)."""
from __future__ import annotations

from textual.widgets._toast import Toast

import protocol as p
from tests.tui.helpers import toasts
from tests.tui.kit import lobby_with


async def test_a_repeated_error_keeps_its_toast_and_new_words_replace_it() -> None:
    app, link = lobby_with()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await pilot.pause(0.2)
        link.push(p.Error(code="chat_rate", message="you are chatting too fast"))
        await pilot.pause(0.2)
        first = list(app.screen.query(Toast))
        for _ in range(20):
            link.push(p.Error(code="chat_rate", message="you are chatting too fast"))
        await pilot.pause(0.2)
        assert len(first) == 1 and list(app.screen.query(Toast)) == first  # the same toast, no new one
        link.push(p.Error(code="no_table", message="that table is gone"))
        await pilot.pause(0.2)
        assert len(toasts(app)) == 1 and toasts(app) != [str(first[0].render())]
