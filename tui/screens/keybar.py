"""A one-line list of the keys that work here, translated, cheap to repaint."""
from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


def key_line(pairs: list[tuple[str, str]]) -> Text:
    line = Text(no_wrap=True, overflow="ellipsis")
    for i, (key, label) in enumerate(pairs):
        if i:
            line.append("  ")
        line.append(key, style="reverse bold")
        line.append(" " + label)
    return line


class KeyBar(Static):
    DEFAULT_CSS = "KeyBar { height: 1; dock: bottom; }"

    def show(self, pairs: list[tuple[str, str]]) -> None:
        self.update(key_line(pairs))
