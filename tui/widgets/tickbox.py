"""A checkbox that reads the same without colour: [x] on, [ ] off."""
from __future__ import annotations

from typing import cast

from textual.content import Content
from textual.css.styles import RulesMap
from textual.geometry import Size
from textual.widgets import Checkbox


class TickBox(Checkbox):
    @property
    def _button(self) -> Content:
        # Textual's stock button differs only by colour, invisible on a monochrome terminal.
        style = self.get_visual_style("toggle--button")
        return Content.assemble(("[x]" if self.value else "[ ]", style))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Textual's toggle is always one line; a long label on a narrow terminal then lost
        # its end. With ``text-wrap: wrap`` (the New-table form) it takes the lines it needs.
        # (Textual's own Widget.get_content_height hands its styles as the rules too)
        return max(1, self.render().get_height(cast(RulesMap, self.styles), width))
