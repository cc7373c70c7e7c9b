"""A widget's styles cache is not kept alive by the cache of two colours
(tui/textual_patches/styles_cache_colours.py): a closed app leaves no StylesCache behind,
and the styles are Textual's."""
from __future__ import annotations

import asyncio
import gc

from textual.color import Color
from textual.style import Style

from tui.app import TrucoApp
from tui.textual_private import StylesCache
from tui.textual_patches import styles_cache_colours

from tests.tui.kit import FakeLink, welcome


def _alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, StylesCache))


def test_the_styles_are_textuals() -> None:
    base, own = Color(10, 20, 30), Color(200, 100, 50, 0.5)
    assert StylesCache().get_inner_outer(base, own) == (Style(background=base + own), Style(background=base))
    assert StylesCache.get_inner_outer is styles_cache_colours._get_inner_outer


async def _lobby_session(name: str, before: int) -> None:
    link = FakeLink()
    app = TrucoApp(link, name, "en")
    async with app.run_test(size=(80, 24)) as pilot:
        link.push(*welcome(name))
        await pilot.pause()
        assert _alive() > before  # the lobby's widgets have theirs


async def test_a_closed_app_leaves_no_styles_cache_behind() -> None:
    before = _alive()
    for name in ("ana", "beto", "carla"):
        # In a task of its own, as each server session runs in a context of its own: the
        # context's active app (Textual's) goes with it.
        await asyncio.create_task(_lobby_session(name, before))
    # Without the patch every cache a colour lookup saw stays (up to 1024 of them: 31 after
    # three such sessions). One may stay for a while: the screen Textual last drew in the
    # test's own context (its visible_screen_stack context variable) keeps its own.
    assert _alive() - before <= 1
