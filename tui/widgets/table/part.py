"""What every part of the table shares: the player's language and the lite (ASCII) mode,
and drawing a part again only when what it is drawn from changed."""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Callable, TypeVar, cast

from tui.table_model import TableModel

if TYPE_CHECKING:
    from textual.widget import Widget

    from tui.app import TrucoApp
    from tui.i18n import Translator

    _Widget = Widget  # (the Textual widget this is mixed into; at run time a plain class)
else:
    _Widget = object

Update = TypeVar("Update", bound=Callable[..., None])


class TablePart(_Widget):
    """Mixed into each table widget: ``tr`` and ``lite`` come from the app."""

    _drawn_from: tuple[object, object] | None = None

    @property
    def tr(self) -> Translator:
        return cast("TrucoApp", self.app).tr  # (a table's parts are only ever in the Truco app)

    @property
    def lite(self) -> bool:
        """Lite mode: cards in plain ASCII."""
        return bool(getattr(self.app, "lite", False))


def drawn_from(inputs: Callable[..., tuple[object, ...]]) -> Callable[[Update], Update]:
    """``update_from`` does nothing when ``inputs(part, model, ...)`` (everything the part
    reads besides the language, lite mode and its width) are what it last drew, and the
    panel still shows what it drew then (nothing else, a waiting room or a restore, was
    shown since). Every seat's every part was built on every action, and most parts of
    most seats had not changed (the score, the title, the tricks on a call)."""
    def decorate(update_from: Update) -> Update:
        @functools.wraps(update_from)
        def update(part: Any, model: TableModel, *args: object) -> None:
            key = (part.tr.lang, part.lite, part.outer_size.width, inputs(part, model, *args))
            if part._drawn_from is not None and part._drawn_from[0] == key and part._drawn_from[1] is part._shown:
                return
            update_from(part, model, *args)
            part._drawn_from = (key, part._shown)

        return update  # type: ignore[return-value]

    return decorate


def french(model: TableModel) -> bool:
    return model.view.french
