"""A checkbox that reads the same without colour: [x] on, [ ] off."""
from __future__ import annotations

from textual.content import Content
from textual.widgets import Checkbox


class TickBox(Checkbox):
    @property
    def _button(self) -> Content:
        # Textual's stock button differs only by colour, invisible on a monochrome terminal.
        style = self.get_visual_style("toggle--button")
        return Content.assemble(("[x]" if self.value else "[ ]", style))
