"""A lobby hub that only records what a ``HostGateway`` posts to it (tests of the gateway
without a lobby)."""
from __future__ import annotations


class RecordingHub:
    def __init__(self) -> None:
        self.posted: list[object] = []

    def post(self, message: object) -> None:
        self.posted.append(message)

    def watch_presence(self, _presence: object) -> None:
        pass
