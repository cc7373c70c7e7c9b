"""The protocol's names are spelt out in ``__all__`` so a type checker sees them
(``import protocol as p; p.Seated``): every registered message and log event is there."""
from __future__ import annotations

import protocol
from protocol.log_events import LOG_EVENT_TYPES


def test_every_message_and_log_event_is_exported_by_name() -> None:
    registered = {cls.__name__ for cls in (*protocol.MESSAGE_TYPES.values(), *LOG_EVENT_TYPES.values())}
    assert registered - set(protocol.__all__) == set()
    assert all(getattr(protocol, name) is not None for name in protocol.__all__)


def test_no_name_is_exported_twice() -> None:
    assert len(protocol.__all__) == len(set(protocol.__all__))
