"""One ANSI-to-truecolour line filter per terminal theme, shared by every session's App.

Textual gives each App its own ``ANSIToTruecolor`` filter, and a filtered line is cached
on the line under the filter object: two sessions filtering the same line each made and
kept their own copy, and their conversions shared one small cache (1024 entries for the
whole process, keyed by filter) that a few dozen sessions kept overflowing. Styled rows
are shared between sessions (tui/widgets/shared_rows.py) only where their filters are the
same objects, so the filter is shared too. A filter is never changed once shared: a
session switching ANSI colour on or off, or its theme, gets another shared filter.
"""
from __future__ import annotations

from typing import Any

from rich.terminal_theme import TerminalTheme
from textual.app import App
from textual.filter import ANSIToTruecolor

from tui.textual_private import filter_theme, line_filters

# (id of the theme, enabled) -> (the theme, kept alive so its id is not reused; the filter)
_FILTERS: dict[tuple[int, bool], tuple[TerminalTheme, ANSIToTruecolor]] = {}
FILTERS_MAX = 64  # themes are a handful of module constants; a bound all the same


def truecolor_filter(theme: TerminalTheme, enabled: bool) -> ANSIToTruecolor:
    """The process's filter for ``theme`` (enabled or not)."""
    key = (id(theme), enabled)
    found = _FILTERS.get(key)
    if found is None or found[0] is not theme:
        if len(_FILTERS) >= FILTERS_MAX:
            _FILTERS.clear()
        found = _FILTERS[key] = (theme, ANSIToTruecolor(theme, enabled=enabled))
    return found[1]


def share_filters(app: App[Any]) -> None:
    """Put the shared filter in place of ``app``'s own ANSI-to-truecolour filter (after the
    App is built, and after anything that replaced or switched it)."""
    filters = line_filters(app)
    for index, line_filter in enumerate(filters):
        if isinstance(line_filter, ANSIToTruecolor):
            filters[index] = truecolor_filter(filter_theme(line_filter), line_filter.enabled)


def unshare_filters(app: App[Any]) -> None:
    """Give ``app`` copies of its shared filters, for Textual to switch in place."""
    filters = line_filters(app)
    for index, line_filter in enumerate(filters):
        if isinstance(line_filter, ANSIToTruecolor):
            filters[index] = ANSIToTruecolor(filter_theme(line_filter), enabled=line_filter.enabled)
