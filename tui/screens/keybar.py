"""A one-line list of the keys that work here, translated, cheap to repaint."""
from __future__ import annotations

from rich.text import Text

from tui.screens.panels import Panel


def key_line(pairs: list[tuple[str, str]]) -> Text:
    line = Text(no_wrap=True, overflow="ellipsis")
    for i, (key, label) in enumerate(pairs):
        if i:
            line.append("  ")
        line.append(key, style="reverse bold")
        line.append(" " + label)
    return line


class KeyBar(Panel):
    DEFAULT_CSS = "KeyBar { height: 1; dock: bottom; }"

    def show(self, pairs: list[tuple[str, str]]) -> None:  # type: ignore[override]
        super().show(key_line(pairs))
