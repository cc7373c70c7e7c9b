"""``truco-ssh verify``: check that every deal of one of your finished matches came from the
secret the server committed to before the first deal (protocol/deal_proof.py,
docs/FAIRNESS.md).

It asks the server for the proof over the ``truco`` subsystem with your key (the server
gives the proof of your own matches only), or reads one saved with ``--save``, and replays
every deal itself. ``--commitment`` compares with the commitment you noted at the table.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Any

import asyncssh
import msgpack

import protocol as p
from protocol import deal_proof
from protocol.client import Client, Closed
from protocol.schema import to_plain
from server.cli.admin import ANSWER_WAIT, DEFAULT_KEYS
from tui.i18n import Translator
from tui.proof_text import proof_lines

log = logging.getLogger(__name__)


def add_verify_parser(sub: Any, default_port: int, tr: Translator) -> None:
    verify = sub.add_parser("verify", help=tr("cli.help.verify"))
    verify.add_argument("--table", help=tr("cli.help.verify.table"))
    verify.add_argument("--match", type=int, default=1, help=tr("cli.help.verify.match"))
    verify.add_argument("--commitment", default="", help=tr("cli.help.verify.commitment"))
    verify.add_argument("--proof", type=Path, help=tr("cli.help.verify.proof"))
    verify.add_argument("--save", type=Path, help=tr("cli.help.verify.save"))
    verify.add_argument("--host", default="127.0.0.1", help=tr("cli.help.bot.host"))
    verify.add_argument("--port", type=int, default=default_port, help=tr("cli.help.bot.port"))
    verify.add_argument("--identity", type=Path, help=tr("cli.help.verify.identity"))
    verify.add_argument("--known-hosts", default="~/.ssh/known_hosts", help=tr("cli.help.bot.known_hosts"))


async def fetch_proof(host: str, port: int, table_id: str, match_no: int, keys: list[asyncssh.SSHKey],
                      known_hosts: object) -> p.Event:
    client = await Client.connect(host, port, "verify", client_keys=keys, known_hosts=known_hosts, claim=False)
    try:
        await client.send(p.ProveDeals(table_id=table_id, match_no=match_no))
        while True:
            event = await client.receive(ANSWER_WAIT)
            if isinstance(event, (p.DealsProof, p.Error)):
                return event
    finally:
        await client.close()


def proof_json(proof: p.DealsProof) -> str:
    return json.dumps({"t": proof.TYPE, "v": p.PROTOCOL_VERSION, **to_plain(proof)}, indent=1)


def read_proof(path: Path) -> p.DealsProof:
    """A saved proof, validated as the protocol validates a frame (ProtocolError, ValueError)."""
    message = p.decode(msgpack.packb(json.loads(path.read_text())))
    if not isinstance(message, p.DealsProof):
        raise ValueError(f"{path} holds a {message.TYPE}, not a proof of deals")
    return message


def verify_main(args: argparse.Namespace, tr: Translator) -> int:
    """0: every deal holds; 1: a deal does not, or the proof could not be had (said why)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.__stderr__, format="truco-ssh verify: %(message)s")
    try:
        if args.proof is not None:
            proof = read_proof(args.proof)
        else:
            if not args.table:
                log.error("give --table TABLE (and --match N), or --proof FILE")
                return 1
            identity = args.identity or next(
                (Path(k).expanduser() for k in DEFAULT_KEYS if Path(k).expanduser().is_file()), None)
            if identity is None:
                log.error("no SSH key: give --identity FILE (the key you played with)")
                return 1
            known_hosts = None if args.known_hosts == "none" else str(Path(args.known_hosts).expanduser())
            answer = asyncio.run(fetch_proof(args.host, args.port, args.table, args.match,
                                             [asyncssh.read_private_key(identity)], known_hosts))
            if isinstance(answer, p.Error):
                log.error("%s", answer.message)
                return 1
            assert isinstance(answer, p.DealsProof)
            proof = answer
        if args.save is not None:
            args.save.write_text(proof_json(proof) + "\n")
    except (OSError, ValueError, p.ProtocolError, asyncssh.Error, asyncssh.KeyImportError, Closed,
            asyncio.TimeoutError) as exc:
        log.error("%s", exc or type(exc).__name__)
        return 1
    verdict = deal_proof.check(proof, seen_commitment=args.commitment.strip().lower())
    out = sys.__stdout__
    if out is not None:
        noted = args.commitment.strip().lower() or None
        out.write("\n".join(proof_lines(tr, proof, verdict, noted, noted=True)) + "\n")
    return 0 if verdict.holds else 1
