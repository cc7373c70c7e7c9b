"""What a server knows of its operators and restrictions when it starts."""
from __future__ import annotations

import asyncio
import logging

from server.config import ServerConfig
from server.moderation.book import Moderation, ModerationRecords, RestrictionBook
from server.moderation.operators import OPERATORS_FILE, read_operators
from server.moderation.restrictions import Restriction

log = logging.getLogger(__name__)


async def load_moderation(config: ServerConfig, in_force: list[Restriction], records: ModerationRecords
                          ) -> Moderation:
    """The operators' keys (``DATA_DIR/operators`` and ``--operator-key``, a bad one given on
    the command line being an ``OperatorKeyError``; and those operators named, in the store),
    the bans and mutes ``in_force`` and where they are kept."""
    operators = await asyncio.to_thread(read_operators, config.data_dir, config.operator_keys)
    named = await records.named_operators()
    if not operators and not named:
        log.info("no operators: add a key's fingerprint to %s or give --operator-key",
                 config.data_dir / OPERATORS_FILE)
    return Moderation(operators, RestrictionBook(in_force), records=records, named=named)
