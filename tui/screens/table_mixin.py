"""What the table screen's mixins (``KeyBarGate`` in table_keys.py, ``SeatChoice`` in
table_seats.py, ``PartnerTalk`` in tui/widgets/table/senas.py) see of the screen they are
mixed into.

For the type checker each derives from :data:`TableMixin`, a table screen whose own parts are
declared here (``TableScreen`` in table.py defines them); at run time ``TableMixin`` is
``object``, so the mixins stay plain classes and the screen's class is as it was.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from abc import abstractmethod

    from rich.text import Text

    import protocol as p
    from tui.calls import CallChoice
    from tui.screens.base import TrucoScreen
    from tui.table_model import TableModel

    class TableScreenParts(TrucoScreen[None]):
        table_id: str

        @property
        @abstractmethod
        def table(self) -> TableModel: ...

        @property
        @abstractmethod
        def _choices(self) -> list[CallChoice]: ...

        @abstractmethod
        def _info(self) -> p.TableInfo | None: ...

        @abstractmethod
        def _say(self, text: Text) -> None: ...

        @abstractmethod
        def _watching(self) -> bool: ...

        @abstractmethod
        def table_key_usable(self, action: str, parameters: tuple[object, ...], typing: bool) -> bool: ...

        @abstractmethod
        def usable_card_keys(self) -> frozenset[int]: ...

    TableMixin = TableScreenParts
else:
    TableMixin = object
