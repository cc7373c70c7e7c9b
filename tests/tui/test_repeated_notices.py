"""The same words again while they are shown make no new toast (a refused flood's errors
used to make and drop widgets by the thousand); other words still replace them, and the
same words come back once the first has gone (tui/app.py notify_text)."""
from __future__ import annotations

from textual.widgets._toast import Toast

import protocol as p
from tests.tui.helpers import screen_text, toasts, until
from tests.tui.kit import lobby_with


async def test_a_repeated_error_keeps_its_toast_and_new_words_replace_it() -> None:
    app, link = lobby_with()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: "Lobby" in screen_text(app), "the lobby")
        link.push(p.Error(code="chat_rate", message="you are chatting too fast"))
        await until(pilot, lambda: len(app.screen.query(Toast)) == 1, "the first toast")
        first = list(app.screen.query(Toast))
        for _ in range(20):
            link.push(p.Error(code="chat_rate", message="you are chatting too fast"))
        await until(pilot, lambda: link.queued == 0, "the repeats read")
        await pilot.pause()
        assert len(first) == 1 and list(app.screen.query(Toast)) == first  # the same toast, no new one
        link.push(p.Error(code="no_table", message="that table is gone"))
        await until(pilot, lambda: len(toasts(app)) == 1 and toasts(app) != [str(first[0].render())],
                    "the new words in place of the old", seen=lambda: repr(toasts(app)))
