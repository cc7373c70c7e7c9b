"""A log (or a data table) of a fixed size takes a new line without a layout of the whole screen.

Textual 8.2.8's ``RichLog.write`` sets the log's ``virtual_size`` (its lines' width and
count, for its own scrolling) after every line, and ``virtual_size`` is a reactive declared
``layout=True``: every lobby chat line laid out the whole lobby again in every session that
showed it, about 5 ms of CPU per session per line (Pilot, four lobbies), most of it that
layout; a lobby of a hundred players paid half a second of the server's event loop for one
line. A log whose size the screen gives it (no ``auto`` width or height: the lobby's chat,
the history screen's record) keeps its place whatever it holds: what its virtual size moves
is its own scrollbars and how far it scrolls. So here such a log takes its new virtual size
quietly (``set_reactive``), updates its scrollbars as a layout would (``_scroll_update``:
one that appears or goes still asks for a layout, through its own ``layout=True``
reactive), and asks for a repaint. A log sized by its content, or not laid out yet, is left
as it was. ``DataTable`` sets its virtual size the same way with every row added or
removed: the lobby's list of tables, a fixed-size table, laid the whole lobby out again in
every session showing it whenever a table opened or closed, and a new session's lobby a
second time for its first rows. It gets the same descriptor.

Patched: ``textual.widgets.RichLog.virtual_size`` and ``DataTable.virtual_size`` (a descriptor over ``Widget``'s reactive:
reading is the reactive's; a quiet set as above, any other the reactive's). Upstream would
need: ``RichLog`` setting its virtual size with ``layout`` only for auto dimensions, as
``quiet_input_size`` says of ``Input``. tests/tui/test_quiet_log_size.py checks both sides.
"""
from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widget import Widget
from textual.widgets import DataTable, RichLog

_installed = False


class QuietVirtualSize:
    """``virtual_size`` of ``owner`` (a ``RichLog``, a ``DataTable``): ``Widget.virtual_size``
    set without a layout where the widget's size does not depend on it."""

    def __init__(self, reactive: Reactive[Size], owner: type[Widget]) -> None:
        self.reactive = reactive
        self.owner = owner

    def __get__(self, obj: Widget | None, objtype: type | None = None) -> Any:
        return self.reactive.__get__(obj, objtype or self.owner)

    def __set__(self, obj: Widget, value: Size) -> None:
        if (obj.is_mounted and obj.outer_size.width and not obj.styles.auto_dimensions
                and value != self.reactive.__get__(obj, type(obj))):
            obj.set_reactive(self.reactive, value)
            obj._scroll_update(value)
            obj.refresh()
        else:
            self.reactive.__set__(obj, value)


def install() -> None:
    """Put the descriptor on ``RichLog`` and ``DataTable``; a second call changes nothing."""
    global _installed
    if _installed:
        return
    reactive = Widget.__dict__["virtual_size"]
    assert isinstance(reactive, Reactive)
    RichLog.virtual_size = QuietVirtualSize(reactive, RichLog)  # type: ignore[assignment]
    DataTable.virtual_size = QuietVirtualSize(reactive, DataTable)  # type: ignore[assignment]
    _installed = True
