"""A one-line chat input that sends each line in the order it was typed."""
from __future__ import annotations

from typing import Any, Callable

from textual import events
from textual.binding import Binding
from textual.widgets import Input

ROUTED = "_chat_routed"  # marks a key this input sent back to the app


class ChatInput(Input):
    """Enter sends the line, Esc leaves it in the field; both give the keys back to the screen,
    or with ``stay`` (the lobby, where people talk) Enter keeps the chat open for the next
    line and only Esc gives the keys back.

    ``home`` is the widget that gets the focus back (the lobby's list of tables), or
    None for a screen that takes the keys itself (the table: ``1`` plays a card).

    ``send`` is called with each line at the moment its Enter is read, not through a
    message: a message bubbles up through the widgets' queues while a key typed after the
    Enter goes back through the app's, and on a loaded server the key came first ("hola⏎2"
    played the card and only then said "hola": 2 of 150 runs with every widget's queue
    giving the loop back between two messages, as on a loaded machine).

    Enter is handled with the keys, not as a binding: Input's Enter is a binding, which
    Textual runs only after the key has bubbled up; keys typed ahead (several in one
    packet on a slow link) would be inserted first, so "uno⏎" would send "uno" plus
    whatever followed. Here the line is taken and the field cleared at the moment
    Enter is read. The bindings below are what the key bar shows while typing.
    """

    BINDINGS = [Binding("enter", "send", "key.send", key_display="Enter"),
                Binding("escape", "leave", "key.chat_back", key_display="Esc")]

    def __init__(self, *, send: Callable[[str], None], home: str | None = None, stay: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._send = send
        self._home = home
        self._stay = stay
        # Keys handed back to the app and not yet routed again by it. Textual gives every
        # key of a packet to the widget focused when the packet is read, so keys typed
        # after Enter ("hola⏎1") reach this input after it gave up the focus: it sends
        # them back to the app, which routes them to whatever has the focus now. While any
        # is on its way every key takes that way, so none overtakes another.
        self._in_flight = 0

    def on_mount(self) -> None:
        self.cursor_blink = False  # no repaint twice a second while the chat has the focus

    async def _on_key(self, event: events.Key) -> None:
        # A key sent back once and routed here by the app is in order: it is typed, unless
        # the focus has moved on again meanwhile (an Enter routed just before it).
        routed = getattr(event, ROUTED, False)
        if self.screen.focused is not self or (self._in_flight and not routed):
            self._send_back(event)
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.action_send()
            return
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            self.action_leave()
            return
        await super()._on_key(event)

    def action_send(self) -> None:
        text, self.value = self.value, ""
        if text.strip():
            self._send(text.strip())
        if not self._stay:
            self.action_leave()

    def action_leave(self) -> None:
        """Back to the screen's keys (set_focus, not focus(): at once, not after a refresh)."""
        home = self.screen.query_one(self._home) if self._home else None
        self.screen.set_focus(home)

    def _send_back(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        self._in_flight += 1
        again = events.Key(event.key, event.character)
        setattr(again, ROUTED, True)  # (Textual's Key takes attributes: its bases have no __slots__)
        self.app.post_message(again)
        self.app.call_later(self._landed)  # runs once the app has routed the key above

    def _landed(self) -> None:
        self._in_flight -= 1
