"""Lobby chat in cluster mode: every line the lobby host sends is also published on the
``truco.chat`` subject, whose stream (``TRUCO_CHAT``) keeps the last ``CHAT_HISTORY`` lines,
so a new lobby host starts with the chat as it was (in one process the chat lives in
memory only, as before: ``Hub(chat_log=None)``). A value that does not decode is skipped.
"""
from __future__ import annotations

import asyncio
import logging

from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy, DiscardPolicy, StorageType, StreamConfig
from nats.js.errors import NotFoundError

import protocol as p
from protocol.bus import ORIGIN_MAX, LobbyChatLine
from server.cluster.bus import Bus
from server.lobby.state import CHAT_HISTORY

log = logging.getLogger(__name__)

CHAT_STREAM = "TRUCO_CHAT"
CHAT_SUBJECT = "truco.chat"


class ChatLog:
    """The lobby chat's last lines, kept by JetStream for whichever process hosts the lobby."""

    def __init__(self, bus: Bus) -> None:
        self._bus = bus

    async def open(self) -> None:
        try:
            await self._bus.js.stream_info(CHAT_STREAM)
            return
        except NotFoundError:
            pass
        await self._bus.js.add_stream(StreamConfig(
            name=CHAT_STREAM, subjects=[CHAT_SUBJECT], storage=StorageType.FILE,
            num_replicas=self._bus.options.replicas, max_msgs=CHAT_HISTORY, discard=DiscardPolicy.OLD,
        ))

    def said(self, line: p.ChatLine, origin: str) -> "asyncio.Future[None]":
        """Keep a line the lobby sent, with its frame's origin (the lobby does not wait for it)."""
        value = p.encode(LobbyChatLine(sender=line.sender, text=line.text, ts=line.ts, system=line.system,
                                       origin=origin[:ORIGIN_MAX]))

        async def publish() -> None:
            await self._bus.js.publish(CHAT_SUBJECT, value, stream=CHAT_STREAM)

        return asyncio.ensure_future(publish())

    async def history(self) -> list[tuple[p.ChatLine, str]]:
        """The lines kept and their origins, oldest first (what could be read: the lobby
        starts anyway)."""
        lines: list[tuple[p.ChatLine, str]] = []
        try:
            await self._read(lines)
        except Exception:
            log.exception("chat: the lobby chat's last lines could not be read")
        return lines[-CHAT_HISTORY:]

    async def _read(self, lines: list[tuple[p.ChatLine, str]]) -> None:
        js = self._bus.js
        last = (await js.stream_info(CHAT_STREAM)).state.last_seq
        if not last:
            return
        sub = await js.pull_subscribe(CHAT_SUBJECT, stream=CHAT_STREAM, config=ConsumerConfig(
            ack_policy=AckPolicy.NONE, deliver_policy=DeliverPolicy.ALL, inactive_threshold=30.0))
        try:
            seen = 0
            while seen < last:
                for msg in await sub.fetch(CHAT_HISTORY, timeout=5.0):
                    seen = msg.metadata.sequence.stream
                    said = self._bus.decode(msg)
                    if isinstance(said, LobbyChatLine):
                        lines.append((p.ChatLine(sender=said.sender, text=said.text, ts=said.ts,
                                                 system=said.system), said.origin))
                    elif said is not None:
                        self._bus.dropped += 1
                        log.warning("chat: a %s in the chat stream skipped", said.TYPE)
        finally:
            await sub.unsubscribe()
