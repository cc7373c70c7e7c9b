"""Every private part of Textual the TUI touches, outside the patches, in one place, checked
at start-up.

Textual has no public way to do what a few modules need: draw a screen's dirty widgets at
once, after a batch of the server's frames (tui/draw_now.py); mark a few rows of a panel
dirty in its screen without a message round trip, and set a Static's content without
rendering it (tui/widgets/panels.py); style a panel's rows with its own ``StylesCache``
(tui/widgets/shared_rows.py); share the ANSI-to-truecolour line filters between sessions
(tui/shared_filters.py); parse a channel's input bytes (tui/driver.py). Each of those goes
through a function here, and no other module of ``tui/`` but the patches
(``tui/textual_patches/``, which replace private methods and keep their own list) names a
private attribute of a Textual object or imports a private Textual module
(tests/tui/test_textual_private.py reads them all).

A few of the project's subclasses of Textual classes override or use an inherited private
member where they are: :data:`SUBCLASS_NAMES` lists them, so that they are checked too.

:func:`check` (run by ``tui.textual_patches.install`` at start-up) refuses a Textual this was
not written for (pyproject.toml pins the same version) or one that lacks any name listed
here, rather than fail on a player's screen later.
"""
from __future__ import annotations

import importlib.util
import inspect
from functools import cache
from importlib.metadata import version
from typing import Any, Sequence

from rich.terminal_theme import TerminalTheme
from textual._styles_cache import StylesCache
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.color import Color
from textual.content import Content
from textual.driver import Driver
from textual.filter import ANSIToTruecolor, LineFilter
from textual.geometry import Offset, Region
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import VisualType
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Static

__all__ = ["PINNED_TEXTUAL", "PRIVATE_NAMES", "SUBCLASS_NAMES", "StylesCache", "XTermParser", "check"]

#: The only Textual version this module (and tui/textual_patches) was written for.
PINNED_TEXTUAL = "8.2.8"  # pyproject.toml: textual==8.2.8

# (where, name): every private name the functions below use, for the check and the test.
PRIVATE_NAMES: tuple[tuple[str, str], ...] = (
    ("textual", "_styles_cache"), ("textual", "_xterm_parser"),
    ("App", "_batch_count"), ("App", "_filters"),
    ("Screen", "_dirty_widgets"), ("Screen", "_on_timer_update"), ("Screen", "_compositor"),
    ("Widget", "_repaint_required"), ("Widget", "_layout_required"),
    ("Widget", "_styles_cache"), ("Widget", "_layout_cache"), ("Widget", "_dirty_regions"),
    ("Widget", "_repaint_regions"), ("Widget", "_set_dirty"), ("Widget", "_rich_style_cache"),
    ("Widget", "_border_title"), ("Widget", "_border_subtitle"),
    ("Widget", "_get_title_style_information"), ("Widget", "_get_subtitle_style_information"),
    ("Static", "_Static__content"), ("Static", "_Static__visual"),
    ("StylesCache", "_cache"), ("StylesCache", "_simple_strip"),
    ("ANSIToTruecolor", "_terminal_theme"),
    ("XTermParser", "_timeout_time"),
    ("MessagePump", "_message_queue"),
)

# (base, name): private members of a Textual class that a subclass of it in tui/ overrides
# or uses as its own (``self._app`` in a Driver), where that subclass is.
SUBCLASS_NAMES: tuple[tuple[str, str], ...] = (
    ("App", "_watch_ansi_color"), ("App", "_refresh_truecolor_filter"),  # tui/app.py
    ("Input", "_on_key"),  # tui/widgets/chat_input.py
    ("Checkbox", "_button"),  # tui/widgets/tickbox.py
    ("Driver", "_app"), ("Driver", "_mouse"), ("Driver", "_size"),  # tui/driver.py
)

_CLASSES: dict[str, type] = {
    "App": App, "Screen": Screen, "Widget": Widget, "Static": Static, "Input": Input, "Checkbox": Checkbox,
    "Driver": Driver, "StylesCache": StylesCache, "ANSIToTruecolor": ANSIToTruecolor,
    "XTermParser": XTermParser, "MessagePump": MessagePump,
}


def check(installed: str | None = None) -> None:
    """Raise RuntimeError unless the installed Textual (or ``installed``) is the pinned one
    and has every private name listed here."""
    found = version("textual") if installed is None else installed
    if found != PINNED_TEXTUAL:
        raise RuntimeError(
            f"tui/textual_private.py is written for Textual {PINNED_TEXTUAL}, not {found}: it uses "
            f"private parts of Textual. Install the pinned version (pip install textual=={PINNED_TEXTUAL}) "
            "or re-check every function there against the new version and update PINNED_TEXTUAL.")
    missing = [f"{where}.{name}" for where, name in (*PRIVATE_NAMES, *SUBCLASS_NAMES) if not _has(where, name)]
    if missing:
        raise RuntimeError(f"Textual {found} lacks what tui/textual_private.py lists: {missing}")


def _has(where: str, name: str) -> bool:
    if where == "textual":  # a private module
        return importlib.util.find_spec(f"textual.{name}") is not None
    cls = _CLASSES[where]
    # Attributes set in __init__ are not on the class: read them from its source.
    return hasattr(cls, name) or any(f"self.{_unmangled(klass, name)}" in _init_source(klass)
                                     for klass in cls.__mro__ if klass.__module__.startswith("textual"))


def _unmangled(klass: type, name: str) -> str:
    """``_Static__content`` as written in Static's source (``__content``)."""
    prefix = f"_{klass.__name__}__"
    return name[len(prefix) - 2:] if name.startswith(prefix) else name


@cache
def _init_source(klass: type) -> str:
    init = vars(klass).get("__init__")
    try:
        return inspect.getsource(init) if init is not None else ""
    except (OSError, TypeError):
        return ""


# -- drawing a screen now (tui/draw_now.py) ------------------------------------------------------

def batching(app: App[Any]) -> bool:
    """Whether ``app`` is inside ``batch_update`` (its screens must not be drawn now)."""
    return bool(app._batch_count)


def needs_draw(screen: Screen[Any]) -> bool:
    """Whether ``screen`` has dirty widgets, or a repaint or a layout to do."""
    return bool(screen._dirty_widgets or screen._repaint_required or screen._layout_required)


def has_dirty_widgets(screen: Screen[Any]) -> bool:
    return bool(screen._dirty_widgets)


def draw_screen_now(screen: Screen[Any]) -> None:
    """Draw ``screen`` as its update timer does (``Screen._on_timer_update``)."""
    screen._on_timer_update()


# -- a panel's rows and content (tui/widgets/panels.py) ----------------------------------------

def screen_rows(screen: Screen[Any]) -> list[Strip]:
    """The rows of the terminal as ``screen`` draws them now, top to bottom (the tests read
    what an App shows through this: Textual has no public way without a terminal)."""
    return list(screen._compositor.render_strips())


def in_compositor(screen: Screen[Any], widget: Widget) -> bool:
    """Whether ``screen``'s last layout placed ``widget``."""
    return widget in screen._compositor


def set_rows_dirty(widget: Widget, screen: Screen[Any], regions: Sequence[Region], offset: Offset | None) -> None:
    """``widget.refresh(*regions)`` with ``screen`` told at once: ``Widget._set_dirty`` (the
    regions moved by ``offset``, the content's place, or by the widget's own content offset
    if None), and the widget added to the screen's dirty widgets, as the screen's Update
    handler does."""
    widget._layout_cache.clear()
    if offset is not None:
        moved = [region.translate(offset) for region in regions]
        widget._dirty_regions.update(moved)
        widget._repaint_regions.update(moved)
        widget._styles_cache.set_dirty(*moved)
    else:
        widget._set_dirty(*regions)
    widget.clear_cached_dimensions()
    widget._rich_style_cache.clear()
    screen._dirty_widgets.add(widget)


def static_content(static: Static) -> VisualType | None:
    """What a Static was last given to show (``Static.content`` without Textual's property)."""
    content: VisualType | None = static._Static__content  # type: ignore[attr-defined]
    return content


def set_static_content(static: Static, content: VisualType | None, *, forget_visual: bool) -> None:
    """Give a Static ``content`` without rendering it (``Static.update`` renders it at once);
    ``forget_visual``: the rendering it had is dropped, to be made from ``content`` when read."""
    static._Static__content = content  # type: ignore[attr-defined]
    if forget_visual:
        static._Static__visual = None  # type: ignore[attr-defined]


def set_styles_cache(widget: Widget, styles_cache: StylesCache) -> None:
    """Make ``styles_cache`` the one that styles ``widget``'s rows (a fresh one: at creation)."""
    widget._styles_cache = styles_cache


# -- styled rows (tui/widgets/shared_rows.py) ----------------------------------------------------

#: A border title or subtitle as ``StylesCache.render`` takes it.
Title = tuple[Content, Color, Color, VisualStyle]


def border_titles(widget: Widget, base_background: Color) -> tuple[Title | None, Title | None]:
    """The border title and subtitle as ``StylesCache.render_widget`` hands them on."""
    title, subtitle = widget._border_title, widget._border_subtitle
    return (None if title is None else (title, *widget._get_title_style_information(base_background)),
            None if subtitle is None else (subtitle, *widget._get_subtitle_style_information(base_background)))


def forget_simple_strip(styles_cache: StylesCache) -> None:
    """Drop the row ``styles_cache`` keeps for a widget of one plain row (as ``render_widget``
    does before it renders)."""
    styles_cache._simple_strip = None


def cached_row(styles_cache: StylesCache, y: int) -> Strip | None:
    """Row ``y`` as ``styles_cache`` last styled it (before the line filters), if it keeps it."""
    return styles_cache._cache.get(y)


# -- line filters (tui/shared_filters.py) ----------------------------------------------------------

def line_filters(app: App[Any]) -> list[LineFilter]:
    """``app``'s own list of line filters (changed in place)."""
    return app._filters


def filter_theme(line_filter: ANSIToTruecolor) -> TerminalTheme:
    """The terminal theme an ANSI-to-truecolour filter maps colours with."""
    return line_filter._terminal_theme


# -- input bytes (tui/driver.py) -------------------------------------------------------------------

def parser_waiting(parser: XTermParser) -> bool:
    """Whether ``parser`` holds bytes that become keys only after a pause (a lone ESC)."""
    return parser._timeout_time is not None


# -- message queues (for server/session/shell.py) ----------------------------------------------------

def has_queued_messages(pump: MessagePump) -> bool:
    """Whether ``pump`` (an App, a screen, a widget) has messages waiting to be handled."""
    return not pump._message_queue.empty()
