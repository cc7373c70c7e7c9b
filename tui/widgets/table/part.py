"""What every part of the table shares: the player's language and the lite (ASCII) mode."""
from __future__ import annotations

from typing import Any

from tui.table_model import TableModel


class TablePart:
    """Mixed into each table widget: ``tr`` and ``lite`` come from the app."""

    app: Any  # (the Textual widget this is mixed into)

    @property
    def tr(self):  # type: ignore[no-untyped-def]
        return self.app.tr

    @property
    def lite(self) -> bool:
        """Lite mode: cards in plain ASCII."""
        return bool(getattr(self.app, "lite", False))


def french(model: TableModel) -> bool:
    return model.view.french
