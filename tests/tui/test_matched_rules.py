"""Rules matched once per kind of place serve every node and session alike, and are exactly
what Textual itself matches (tui/textual_patches/matched_rules.py)."""
from __future__ import annotations

from typing import Any

import pytest
from textual.dom import DOMNode

from tests.tui.helpers import until
from tests.tui.kit import FakeLink, Lobby, seated_app, table_shown, two_player_state, update_for
from tui.app import TrucoApp
from tui.screens.lobby import LobbyScreen
from tui.textual_patches import matched_rules


def _styled_as_textual_would(app: TrucoApp) -> list[str]:
    """The nodes of the screen (and their component nodes) whose rules differ from what
    Textual's own ``apply`` gives them now."""
    assert matched_rules._original is not None
    wrong = []
    nodes: list[DOMNode] = list(app.screen.walk_children(with_self=True))
    nodes += [virtual for node in list(nodes) for virtual in node.__dict__.get("_truco_component_nodes", {}).values()]
    for node in nodes:
        had = node.styles.base.get_rules()
        matched_rules._original(app.stylesheet, node)
        if node.styles.base.get_rules() != had:
            wrong.append(f"{type(node).__name__}#{node.id} {sorted(node.classes)} {sorted(node.pseudo_classes)}")
    return wrong


async def test_the_lobby_is_styled_as_textual_would_through_focus_moves_and_a_resize(lobby: Lobby) -> None:
    app, _link = lobby
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
        assert _styled_as_textual_would(app) == []
        await pilot.press("c")  # the chat field takes the focus
        await pilot.pause()
        assert _styled_as_textual_would(app) == []
        await pilot.press("tab", "tab")
        await pilot.pause()
        assert _styled_as_textual_would(app) == []
        await pilot.resize_terminal(60, 20)  # another breakpoint class on the screen
        await pilot.pause()
        assert _styled_as_textual_would(app) == []


async def test_a_table_is_styled_as_textual_would_and_a_second_session_matches_almost_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    matched = 0
    original = matched_rules._original
    assert original is not None

    def counting(*args: Any, **kwargs: Any) -> None:
        nonlocal matched
        matched += 1
        original(*args, **kwargs)

    styled = []
    for _session in range(2):
        link = FakeLink()
        app = await seated_app(link, 0)
        monkeypatch.setattr(matched_rules, "_original", counting)
        matched = 0
        _, state, events = two_player_state()
        async with table_shown(app, link, update_for(state, 0, 3, events)) as pilot:
            await pilot.pause()
            monkeypatch.setattr(matched_rules, "_original", original)
            assert _styled_as_textual_would(app) == []
            styled.append((matched, len(list(app.screen.walk_children(with_self=True)))))
            await pilot.resize_terminal(130, 20)  # -wide and -short: rules of the screen's descendants
            await pilot.pause()
            assert _styled_as_textual_would(app) == []
    (_first, _), (second, nodes) = styled
    assert second < nodes / 10, styled  # the second session's screen came from the first's matches
