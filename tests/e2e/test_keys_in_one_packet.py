"""Keys that arrive together (a slow link sends a few in one packet) are handled in the
order they were typed: an editing key (Home, Backspace, Ctrl+U...) before the letters
after it. Textual runs a key binding's action after letters queued with it, so the server
hands its App one editing key at a time (server/input_gate.py)."""
from __future__ import annotations

import pytest

from tests.e2e.harness import ScreenClient, running_server

pytestmark = pytest.mark.e2e


def name_input(client: ScreenClient) -> str:
    """The text in the choose-name screen's input (its middle row, between the ▊ ▎ edges)."""
    row = next(line for line in client.text().splitlines()
               if "▊" in line and "▔" not in line and "▁" not in line)
    return row.split("▊", 1)[1].rsplit("▎", 1)[0].strip()


async def test_editing_keys_and_letters_in_one_packet_keep_their_order(tmp_path) -> None:
    async with running_server(tmp_path) as srv:
        client = ScreenClient()
        await client.connect(srv.port, "[bad]x")
        try:
            await client.wait_for("Choose your name")
            await client.wait_for(lambda _: name_input(client) == "badx")  # the suggestion
            for packet, then in (("\x15abc", "abc"),  # Ctrl+U clears, then the letters
                                 ("\x1b[Hz", "zabc"),  # Home, then a letter at the start
                                 ("\x7fV", "Vabc"),  # Backspace (of the z), then a letter
                                 ("\x1b[F\x7f\x7fQ", "VaQ"),  # End, two Backspaces, a letter
                                 ("\x17Y", "Y")):  # Ctrl+W: the word before the cursor, then Y
                client.send(packet)  # one write: one SSH packet
                await client.wait_for(lambda _, want=then: name_input(client) == want, 15)
        finally:
            await client.close()
