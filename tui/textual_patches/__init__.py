"""Every change this project makes to the pinned Textual, installed by one explicit call.

Textual is pinned exactly (``textual==8.2.8`` in pyproject.toml) because the patches below
replace private parts of it. Nothing is patched on import: the server start-up
(``server.cli.main.serve``) and the test setup (tests/conftest.py) call :func:`install` once,
before any App is built. :func:`install` refuses (``RuntimeError``) to patch any other
Textual version, since a private name that moved would be patched wrongly or silently
not at all; calling it again is harmless.

One module per patch, each saying why and what upstream Textual would need to drop it:

* ``cursor_moves``: ``ChopsUpdate.render_segments`` takes its cursor-move escapes from a
  table of positions (not a Rich ``Control`` made for every span written).
* ``colour_depth``: ``Strip.render`` renders per session colour system (256/16/no colour)
  without writing to Textual's and Rich's shared escape caches, each style set once where
  it changes (12-17 % fewer bytes before compression).
* ``lazy_strips``: ``Strip`` creates its seven small caches on first use, not at creation.
* ``acyclic_strips``: ``Strip.divide`` and ``crop_extend`` do not keep the strip itself in
  its own cache (a reference cycle that only the garbage collector freed).
* ``shared_css``: ``Stylesheet._parse_rules`` shares parsed rule sets across all the
  sessions' Apps in the process.
* ``partial_rows``: ``Compositor._render_chops`` renders, in a partial update, only the
  rows it writes (not every line of every widget in the box around the changes).
* ``hidden_overflow``: ``Widget._size_updated`` does not ask for a second layout of the
  screen for a widget that cannot scroll (overflow hidden on both axes).
* ``first_resume``: ``Screen._on_screen_resume`` does not re-apply the stylesheet to a
  screen shown for the first time (mounting just applied it); after a suspend it does.
* ``same_size_layout``: ``Screen._screen_resized`` does not lay out again a screen whose last
  layout was at the size of the Resize (each new screen's first layout resizes itself).
* ``early_breakpoints``: ``Screen._post_register`` gives a screen its breakpoint classes
  before it is styled, not on the first Resize (which styled the whole screen again).
* ``mount_refresh_once``: ``AwaitMount`` asks for its parent's layout once, though ``mount``
  schedules it and its caller awaits it too (a second layout of every new screen).
* ``quiet_toasts``: ``ToastRack.show`` with no notifications leaves a hidden, empty rack
  alone (it wrote ``display = False`` again, a layout of every new screen).
* ``screen_virtual_size``: ``Screen._size_updated`` takes a screen's new virtual size
  without asking for a second layout (its scrollbars ask for their own).
* ``layout_done``: a full ``Screen._refresh_layout`` fulfils the layout requests made before
  it (the pending flag and older ``Layout`` messages), not a second layout right after.
* ``styles_cache_colours``: ``StylesCache.get_inner_outer`` caches its two styles by the two
  colours, not with the widget's cache in every key (which kept up to 1024 caches of closed
  sessions' widgets, and their lines, alive).
* ``component_nodes``: ``Stylesheet._process_component_classes`` styles the same virtual
  node per component class of a widget each time (it made new ones at every styling: a
  cycle of garbage per node that only the garbage collector freed).
* ``fair_turns``: ``MessagePump._get_message`` lets the event loop run the others after a
  pump has handled its queue for a few milliseconds (a backlog was handled in one run).
* ``matched_rules``: ``Stylesheet.apply`` keeps the rules matched for a kind of place in the
  DOM (the path's types, ids, classes and the pseudo-classes that matter) for every session
  in the process, instead of matching every selector again for every node styled.
* ``paced_repaint``: ``Screen._on_idle`` puts a repaint off while its App's pace says so (a
  server session over its input budget: a flooder's screen stops filling the event loop).
* ``quiet_input_size``: ``Input._watch_value`` sets a fixed-size field's virtual size without
  asking for a layout of the screen (every key typed laid the screen out again).
* ``quiet_log_size``: ``RichLog`` takes a fixed-size log's new virtual size (a line written)
  without asking for a layout of the screen (every lobby chat line laid the lobby out again),
  and so does a fixed-size ``DataTable`` (a row added: every table opened or closed laid out
  the lobby of every session showing the list).
* ``covered_screens``: ``Screen._compositor_refresh`` of a screen under an opaque one does
  not repaint the screen on top (a seated player's lobby sent the whole table again).
* ``key_parse_cache``: ``XTermParser._parse_extended_key`` caches a key sequence's parse by
  the sequence alone, its events made with no sender (every key held its parser, and so
  kept up to 1024 closed sessions' Apps alive).
* ``acyclic_lru``: ``LRUCache.clear`` and ``discard`` empty the links they drop (a cleared
  cache left its ring of links, and every value in it, for the garbage collector).

Code that only *uses* private Textual APIs (no patching) does so through
``tui/textual_private.py``, which lists every private name it touches (and those the
project's subclasses of Textual classes override); :func:`install` checks them all with
``textual_private.check`` before patching anything. The tests read the rendered screen
through it too (``textual_private.screen_rows``: Textual has no public way to read the lines
a screen draws without a real terminal), in tests/tui/helpers.py.
"""
from __future__ import annotations

from importlib.metadata import version

from tui import textual_private
from tui.textual_patches import (
    acyclic_lru, acyclic_strips, colour_depth, component_nodes, covered_screens, cursor_moves, early_breakpoints, fair_turns, first_resume,
    hidden_overflow, key_parse_cache,
    layout_done, lazy_strips, matched_rules, mount_refresh_once, paced_repaint, partial_rows, quiet_input_size, quiet_log_size,
    quiet_toasts, same_size_layout, screen_virtual_size, shared_css, styles_cache_colours,
)

#: The only Textual version these patches were written and checked against.
PINNED_TEXTUAL = textual_private.PINNED_TEXTUAL

_PATCHES = (colour_depth, lazy_strips, acyclic_strips, shared_css, partial_rows, hidden_overflow,
            first_resume, same_size_layout, early_breakpoints, mount_refresh_once, quiet_toasts,
            screen_virtual_size, layout_done, cursor_moves, paced_repaint, styles_cache_colours,
            component_nodes, fair_turns, matched_rules, quiet_input_size, covered_screens, quiet_log_size,
            key_parse_cache, acyclic_lru)
_installed = False


def install(textual_version: str | None = None) -> None:
    """Apply every patch, once. ``textual_version`` is the installed one unless given
    (the tests give another to check the refusal); any but :data:`PINNED_TEXTUAL` raises
    ``RuntimeError`` before anything is changed."""
    global _installed
    found = version("textual") if textual_version is None else textual_version
    if found != PINNED_TEXTUAL:
        raise RuntimeError(
            f"tui.textual_patches is written for Textual {PINNED_TEXTUAL}, not {found}: "
            "it replaces private parts of Textual. Install the pinned version "
            f"(pip install textual=={PINNED_TEXTUAL}) or re-check every patch in "
            "tui/textual_patches/ against the new version and update PINNED_TEXTUAL."
        )
    textual_private.check(found)  # every private name used outside the patches is there
    if _installed:
        return
    for patch in _PATCHES:
        patch.install()
    _installed = True


def installed() -> bool:
    """Whether :func:`install` has run in this process."""
    return _installed
