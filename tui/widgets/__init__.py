"""Reusable widgets: fixed-size panels, the key bar, the chat input, the tick box, and
(in ``tui.widgets.table``) one widget per part of the table screen."""
