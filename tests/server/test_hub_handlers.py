"""One handler per command in the hub. (The server's import layers, cycles and module sizes
are checked with the rest of the project's: tests/test_architecture.py.)"""
from __future__ import annotations

import protocol as p
from server.config import ServerConfig
from server.lobby import Hub
from server.variants import validate_options, variant_infos


def test_every_command_has_exactly_one_handler_in_the_hub() -> None:
    def commands(cls: type[p.Command]) -> set[type[p.Command]]:
        found = set()
        for sub in cls.__subclasses__():
            found |= {sub} | commands(sub)
        return found

    hub = Hub(ServerConfig(), variant_infos(), validate_options)
    assert set(hub.handlers) == commands(p.Command)
