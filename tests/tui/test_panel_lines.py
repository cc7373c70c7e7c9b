"""Panel.show_lines compares the lines before re-making them: the same lines again leave
the panel as it was (nothing re-made, nothing repainted), and any change (text, spans, or
only a line's base style) is shown, with the base style as a span as before."""
from __future__ import annotations

from rich.text import Span, Text

from tui.widgets.panels import Panel


def test_same_lines_keep_the_content_and_a_changed_style_is_shown() -> None:
    panel = Panel()
    panel.show_lines([Text("a", style="bold"), Text("b")])
    first = panel.content
    assert isinstance(first, Text) and first.plain == "a\nb" and first.spans == [Span(0, 1, "bold")]
    panel.show_lines([Text("a", style="bold"), Text("b")])  # equal, new objects
    assert panel.content is first  # not made again
    panel.show_lines([Text("a", style="red"), Text("b")])  # only the base style differs
    assert isinstance(panel.content, Text) and panel.content.spans == [Span(0, 1, "red")]
    spanned = Text("b")
    spanned.stylize("green", 0, 1)
    panel.show_lines([Text("a", style="red"), spanned])  # only a span differs
    assert isinstance(panel.content, Text) and panel.content.spans == [Span(0, 1, "red"), Span(2, 3, "green")]
