"""The Textual patches are installed by one explicit call, only under the pinned Textual,
and a second call is harmless (tui/textual_patches/)."""
from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import pytest
from rich.segment import Segment
from textual._compositor import Compositor
from textual.css.stylesheet import Stylesheet
from textual.strip import Strip
from textual.screen import Screen
from textual.widget import AwaitMount, Widget
from textual.widgets import DataTable, RichLog
from textual.widgets._toast import ToastRack

from tui import textual_patches
from tui.textual_patches import (
    colour_depth, covered_screens, early_breakpoints, quiet_log_size, first_resume, hidden_overflow, layout_done, lazy_strips, mount_refresh_once,
    partial_rows, quiet_toasts, same_size_layout, screen_virtual_size, shared_css,
)


def _patched_state() -> tuple[object, ...]:
    return (Strip.render, Strip.__init__, Stylesheet._parse_rules, Compositor._render_chops,
            Compositor.render_partial_update, Widget._size_updated, Screen._on_screen_resume,
            Screen._on_screen_suspend, Screen._screen_resized, Screen._post_register, AwaitMount.__await__, ToastRack.show, Widget._on_mount,
            Screen._refresh_layout, Screen._on_layout, Screen.__dict__.get("_size_updated"),
            *(Strip.__dict__[name] for name in lazy_strips.CACHE_SIZES))


def test_the_pin_is_the_installed_textual() -> None:
    assert version("textual") == textual_patches.PINNED_TEXTUAL


def test_installed_once_by_the_test_setup_with_every_patch_in_place() -> None:
    assert textual_patches.installed()
    assert Strip.render is colour_depth._render
    assert Stylesheet._parse_rules is shared_css._parse_rules
    assert Compositor._render_chops is partial_rows._render_chops
    assert Compositor.render_partial_update is partial_rows.render_partial_update
    assert Widget._size_updated is hidden_overflow._size_updated
    assert Screen._on_screen_resume is first_resume._on_screen_resume
    assert Screen._on_screen_suspend is first_resume._on_screen_suspend
    assert Screen._screen_resized is same_size_layout._screen_resized
    assert Screen._post_register is early_breakpoints._post_register
    assert AwaitMount.__await__ is mount_refresh_once.__await__
    assert ToastRack.show is quiet_toasts.show and Widget._on_mount is quiet_toasts._on_mount
    assert Screen._refresh_layout is layout_done._refresh_layout and Screen._on_layout is layout_done._on_layout
    assert Screen._compositor_refresh is covered_screens._compositor_refresh
    assert isinstance(RichLog.__dict__["virtual_size"], quiet_log_size.QuietVirtualSize)
    assert isinstance(DataTable.__dict__["virtual_size"], quiet_log_size.QuietVirtualSize)
    assert Screen.__dict__["_size_updated"] is screen_virtual_size._size_updated
    assert all(isinstance(Strip.__dict__[name], property) for name in lazy_strips.CACHE_SIZES)


def test_installing_twice_changes_nothing() -> None:
    before = _patched_state()
    textual_patches.install()
    textual_patches.install()
    assert _patched_state() == before
    for patch in (colour_depth, lazy_strips, shared_css, partial_rows, hidden_overflow, first_resume,
                  same_size_layout, early_breakpoints, mount_refresh_once, quiet_toasts, screen_virtual_size,
                  layout_done):  # each patch on its own, too
        patch.install()
    assert _patched_state() == before
    strip = Strip([Segment("hola mundo")], 10)
    assert strip.crop(0, 4).text == "hola" and strip.crop(0, 4) is strip.crop(0, 4)


def test_another_textual_version_is_refused_with_nothing_changed() -> None:
    before = _patched_state()
    with pytest.raises(RuntimeError, match=r"Textual 8\.2\.8, not 9\.0\.0"):
        textual_patches.install("9.0.0")
    assert _patched_state() == before


_FRESH = """
from textual.css.stylesheet import Stylesheet
from textual.strip import Strip
from textual._compositor import Compositor
from textual.widget import AwaitMount, Widget
from textual.widgets._toast import ToastRack
from textual.screen import Screen
stock = (Strip.render, Strip.__init__, Stylesheet._parse_rules, Compositor._render_chops, Widget._size_updated,
         Screen._on_screen_resume)
import server.cli.main, server.session.shell, tui.app, tui.driver  # everything that builds or runs an App
from tui import textual_patches
assert not textual_patches.installed(), "patched on import"
assert (Strip.render, Strip.__init__, Stylesheet._parse_rules, Compositor._render_chops,
        Widget._size_updated, Screen._on_screen_resume) == stock, "patched on import"
try:
    textual_patches.install("8.3.0")
except RuntimeError:
    pass
else:
    raise SystemExit("another version was accepted")
assert (Strip.render, Strip.__init__, Stylesheet._parse_rules, Compositor._render_chops,
        Widget._size_updated, Screen._on_screen_resume) == stock, "patched before refusing"
textual_patches.install()
assert Strip.render is not stock[0] and Stylesheet._parse_rules is not stock[2]
assert Compositor._render_chops is not stock[3] and Widget._size_updated is not stock[4]
assert Screen._on_screen_resume is not stock[5]
print("ok")
"""


def test_nothing_is_patched_on_import_and_a_refusal_patches_nothing() -> None:
    """In a fresh interpreter: importing the server and the TUI leaves Textual stock; only
    the explicit call patches it."""
    done = subprocess.run([sys.executable, "-c", _FRESH], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
