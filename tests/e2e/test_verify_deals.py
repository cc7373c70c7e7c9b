"""`truco-ssh verify` over real SSH (issue 34): a key holder plays a whole match against a
bot, then a separate process, with the same key, fetches the proof of its deals and replays
every one of them; the commitment the player was sent before the first deal matches, a
saved proof checks offline, and a tampered one is refused with the deal that fails (the
command once; the rest through the functions it runs)."""
from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import asyncssh
import pytest

import protocol as p
from protocol import deal_proof
from protocol.client import Client
from server.cli.remote_bot import Plan, RemoteBot
from server.cli.verify import fetch_proof, read_proof
from tests.e2e.harness import running_server

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parents[2]
FAST = {"bot_delay": 0.0, "hand_pause": 0.0}


async def verify(port: int, *args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli.main", "verify", "--port", str(port), "--known-hosts", "none", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), "LANG": "en_US.UTF-8"})
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_truco_ssh_verify_replays_every_deal_of_a_match_and_catches_a_tampered_proof(tmp_path: Path) -> None:
    key = asyncssh.generate_private_key("ssh-ed25519")
    key_file = tmp_path / "id_ed25519"
    key.write_private_key(str(key_file))
    os.chmod(key_file, 0o600)
    async with running_server(tmp_path, **FAST) as srv:
        async with await Client.connect("127.0.0.1", srv.port, "ana", client_keys=[key]) as client:
            await client.wait_for(p.LobbySnapshot)
            await client.send(p.CreateTable(variant="argentino", players=2, options={"target": 15}))
            table_id = (await client.wait_for(p.TableCreated)).table_id
            await client.send(p.AddBot(table_id=table_id))
            sealed = await client.wait_for(p.DealSeal)  # before the first deal: no secret yet
            assert sealed.secret == "" and len(sealed.commitment) == 64
            assert await asyncio.wait_for(RemoteBot(client, Plan(wait=True)).run(), 120) == 1

        saved = tmp_path / "proof.json"
        code, out, err = await verify(srv.port, "--identity", str(key_file), "--table", table_id, "--match", "1",
                                      "--commitment", sealed.commitment[:16], "--save", str(saved))
        assert code == 0, (out, err)
        assert "deals came from the secret the server committed to" in out
        assert "It is the commitment you noted." in out
        proof = json.loads(saved.read_text())
        assert proof["commitment"] == sealed.commitment and len(proof["deals"]) >= 2

        # Someone else's key has no proof of ana's match.
        refused = await fetch_proof("127.0.0.1", srv.port, table_id, 1,
                                    [asyncssh.generate_private_key("ssh-ed25519")], None)
        assert isinstance(refused, p.Error) and refused.message == "no such game among yours"

    # Offline, from the saved file (as `verify --proof` reads it): it holds; with one card moved
    # between two hands it does not, and the deal is named.
    assert deal_proof.check(read_proof(saved), sealed.commitment).holds
    hands = proof["deals"][1]["hands"]
    hands[0][0], hands[1][0] = hands[1][0], hands[0][0]
    saved.write_text(json.dumps(proof))
    verdict = deal_proof.check(read_proof(saved), sealed.commitment)
    assert verdict.problems == (deal_proof.Problem("hands", 2),)
    assert "deal 2: the hands are not the ones the secret deals" in str(verdict.problems[0])
