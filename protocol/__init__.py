"""The msgpack event protocol between sessions and the hub/tables.

Sessions never share objects with the hub: every exchange is an encoded frame
(``encode``/``decode``); stream transports add a 4-byte length prefix
(``FrameReader``/``frame``).
"""
from protocol.codec import (
    MAX_FRAME,
    PROTOCOL_VERSION,
    Decoder,
    FrameReader,
    decode,
    encode,
    frame,
    with_length,
)
from protocol.errors import ProtocolError
from protocol.log_events import *  # noqa: F401,F403  (the log's records, one per kind of event)
from protocol.messages import *  # noqa: F401,F403  (the message classes are the API)
from protocol.history import *  # noqa: F401,F403  (finished games: they join MESSAGE_TYPES)
from protocol.stats import *  # noqa: F401,F403  (ratings and stats: they join MESSAGE_TYPES)
from protocol.seating import *  # noqa: F401,F403  (the waiting room's start: it joins MESSAGE_TYPES)
from protocol.moderation import *  # noqa: F401,F403  (operators' commands: they join MESSAGE_TYPES)
from protocol import history, log_events, messages, moderation, seating, stats  # (imported above, in order)
from protocol.deal_proof import AddEntropy, DealRecord, DealSeal, DealsProof, ProveDeals  # they join MESSAGE_TYPES
from protocol.table_view import BetWorth, CardMark, LegalCall, TableView, TrucoStep

__all__ = [
    "AddEntropy",
    "BetWorth",
    "DealRecord",
    "DealSeal",
    "DealsProof",
    "ProveDeals",
    "CardMark",
    "LegalCall",
    "TableView",
    "TrucoStep",
    "MAX_FRAME",
    "PROTOCOL_VERSION",
    "Decoder",
    "FrameReader",
    "ProtocolError",
    "decode",
    "encode",
    "frame",
    "with_length",
]
# The star-imported names, in a form a type checker follows (`import protocol as p; p.Seated`).
__all__ += log_events.__all__
__all__ += messages.__all__
__all__ += history.__all__
__all__ += stats.__all__
__all__ += seating.__all__
__all__ += moderation.__all__
