"""The lobby's list of players: who arrives or leaves moves its scrollbar, never the screen.

Textual 8.2.8 declares ``Widget.virtual_size`` (how much there is to scroll through) a
``layout=True`` reactive, so an ``OptionList`` whose number of lines changed asks for a layout
of its whole screen. The lobby's players change whenever someone arrives or leaves, on every
lobby screen at once: with 60 people in the lobby, each arrival cost each of the others a full
layout of their screen. This list takes its size from the layout (``1fr``), never from what it
holds, so its virtual size only matters to its scrollbar, which ``OptionList`` works out itself
as its lines change (``_update_lines`` calls ``_scroll_update``); a scrollbar that appears or
goes sets its own reactive, which asks for the layout it needs. So here the virtual size is
declared without ``layout``. (The tables' ``DataTable`` needs the layout to place its
scrollbar, and lays the screen out only when the number of tables changes.)
"""
from __future__ import annotations

from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import OptionList


class PlayerList(OptionList):
    """The lobby's players, one line each."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)
