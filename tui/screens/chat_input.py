"""A one-line chat input that sends each line in the order it was typed."""
from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widgets import Input


class ChatInput(Input):
    """Enter is handled with the keys, not as a binding.

    Input's Enter is a binding, which Textual runs only after the key has bubbled
    up; keys typed ahead (several lines in one packet on a slow link) are inserted
    first, so "uno⏎dos⏎" would send "unodos" twice. Here the line is taken and the
    field cleared at the moment Enter is read.
    """

    class Send(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def on_mount(self) -> None:
        self.cursor_blink = False  # no repaint twice a second while the chat has the focus

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            text, self.value = self.value, ""
            if text.strip():
                self.post_message(self.Send(text.strip()))
            return
        await super()._on_key(event)
