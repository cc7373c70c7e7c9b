"""What a server knows of its operators and restrictions when it starts."""
from __future__ import annotations

import asyncio
import logging

from server.config import ServerConfig
from server.moderation.book import Moderation, RestrictionBook
from server.moderation.operators import OPERATORS_FILE, read_operators
from server.store import Store

log = logging.getLogger(__name__)


async def load_moderation(config: ServerConfig, store: Store) -> Moderation:
    """The operators' keys (``DATA_DIR/operators`` and ``--operator-key``; a bad one given on
    the command line is an ``OperatorKeyError``) and the bans and mutes in force."""
    operators = await asyncio.to_thread(read_operators, config.data_dir, config.operator_keys)
    if not operators:
        log.info("no operators: add a key's fingerprint to %s or give --operator-key",
                 config.data_dir / OPERATORS_FILE)
    return Moderation(operators, RestrictionBook(await store.restrictions()))
