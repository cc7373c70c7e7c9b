"""``truco-ssh admin``: an operator's commands to a running server, over SSH.

It speaks the ``truco`` subsystem (docs/PROTOCOL.md) with the operator's key, so it works on
a remote server as on this machine; the server checks the key against its operators
(server/moderation/operators.py) and answers each command, or refuses it with the reason.
Nothing is claimed as a name: the operator does not appear in the lobby.
"""
from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path
from typing import Any

import asyncssh

import protocol as p
from protocol import moderation as m
from protocol.client import Client, Closed
from server.say import ENGLISH
from tui.i18n import Translator
from tui.operator_report import report_lines

log = logging.getLogger(__name__)

ANSWER_WAIT = 15.0  # seconds for the server's answer
DEFAULT_KEYS = ("~/.ssh/id_ed25519", "~/.ssh/id_ecdsa", "~/.ssh/id_rsa")
ANSWERS = (m.Done, m.OnlineReport, m.RestrictionsReport, m.LogReport, m.ReportsReport, m.OperatorsReport, p.Error)


def add_admin_parser(sub: Any, default_port: int, tr: Translator = ENGLISH) -> None:
    """The ``admin`` subcommand and its own commands (``sub``: the CLI's subparsers)."""
    admin = sub.add_parser("admin", help=tr("cli.help.admin"))
    admin.add_argument("--host", default="127.0.0.1", help=tr("cli.help.bot.host"))
    admin.add_argument("--port", type=int, default=default_port, help=tr("cli.help.bot.port"))
    admin.add_argument("--identity", type=Path, help=tr("cli.help.admin.identity"))
    admin.add_argument("--known-hosts", default="~/.ssh/known_hosts", help=tr("cli.help.bot.known_hosts"))
    does = admin.add_subparsers(dest="action", required=True)
    does.add_parser("online", help=tr("cli.help.admin.online"))
    kick = does.add_parser("kick", help=tr("cli.help.admin.kick"))
    kick.add_argument("name")
    kick.add_argument("--reason", default="", help=tr("cli.help.admin.reason"))
    for what, told in ((m.BAN, tr("cli.help.admin.ban")), (m.MUTE, tr("cli.help.admin.mute"))):
        restrict = does.add_parser(what, help=told)
        on = restrict.add_mutually_exclusive_group(required=True)
        on.add_argument("--key", help=tr("cli.help.admin.key"))
        on.add_argument("--name", help=tr("cli.help.admin.name"))
        on.add_argument("--address", help=tr("cli.help.admin.address"))
        restrict.add_argument("--prefix", action="store_true", help=tr("cli.help.admin.prefix"))
        restrict.add_argument("--minutes", type=int, default=0 if what == m.BAN else 60,
                              help=tr("cli.help.admin.minutes"))
        restrict.add_argument("--reason", default="", help=tr("cli.help.admin.reason"))
    close = does.add_parser("close", help=tr("cli.help.admin.close"))
    close.add_argument("table")
    close.add_argument("--reason", default="", help=tr("cli.help.admin.reason"))
    lift = does.add_parser("lift", help=tr("cli.help.admin.lift"))
    lift.add_argument("number", type=int)
    does.add_parser("bans", help=tr("cli.help.admin.bans"))
    broadcast = does.add_parser("broadcast", help=tr("cli.help.admin.broadcast"))
    broadcast.add_argument("text")
    record = does.add_parser("log", help=tr("cli.help.admin.log"))
    record.add_argument("--limit", type=int, default=50)
    reports = does.add_parser("reports", help=tr("cli.help.admin.reports"))
    reports.add_argument("--limit", type=int, default=50)
    does.add_parser("operators", help=tr("cli.help.admin.operators"))
    operator = does.add_parser("operator", help=tr("cli.help.admin.operator"))
    operator.add_argument("change", choices=("add", "remove"))
    operator.add_argument("key", help=tr("cli.help.admin.operator_key"))
    settle = does.add_parser("settle", help=tr("cli.help.admin.settle"))
    settle.add_argument("number", type=int)
    settle.add_argument("--reason", default="", help=tr("cli.help.admin.reason"))


def command_of(args: argparse.Namespace) -> p.Command:
    """The protocol command an ``admin`` command line asks for."""
    action = args.action
    if action == "online":
        return m.Online()
    if action == "kick":
        return m.Kick(name=args.name, reason=args.reason)
    if action in (m.BAN, m.MUTE):
        on = m.ON_KEY if args.key else m.ON_NAME if args.name else m.ON_ADDRESS
        return m.Restrict(what=action, on=on, target=args.key or args.name or args.address,
                          minutes=max(0, min(m.MINUTES_MAX, args.minutes)), reason=args.reason, prefix=args.prefix)
    if action == "lift":
        return m.Lift(number=args.number)
    if action == "close":
        return m.CloseTable(table_id=args.table, reason=args.reason)
    if action == "bans":
        return m.ListRestrictions()
    if action == "broadcast":
        return m.Broadcast(text=args.text)
    if action == "reports":
        return m.Reports(limit=max(1, min(500, args.limit)))
    if action == "operators":
        return m.ListOperators()
    if action == "operator":
        key = Path(args.key).expanduser()
        text = key.read_text(encoding="utf-8").strip() if args.key.endswith(".pub") and key.is_file() else args.key
        return m.NameOperator(key=text[:m.KEY_TEXT_MAX], on=args.change == "add")
    if action == "settle":
        return m.SettleReports(number=max(1, args.number), reason=args.reason)
    return m.ModerationLog(limit=max(1, min(1000, args.limit)))


async def run_admin(host: str, port: int, command: p.Command, keys: list[asyncssh.SSHKey],
                    known_hosts: object) -> p.Event:
    """Send one operator's command and return the server's answer (or its error)."""
    client = await Client.connect(host, port, "admin", client_keys=keys, known_hosts=known_hosts, claim=False)
    try:
        await client.send(command)
        while True:
            event = await client.receive(ANSWER_WAIT)
            if isinstance(event, ANSWERS):
                return event
    finally:
        await client.close()


def admin_main(args: argparse.Namespace) -> int:
    """``truco-ssh admin``: print the answer; 1 with the reason when refused or failed."""
    logging.basicConfig(level=logging.WARNING, stream=sys.__stderr__, format="truco-ssh admin: %(message)s")
    identity = args.identity or next((Path(k).expanduser() for k in DEFAULT_KEYS if Path(k).expanduser().is_file()),
                                     None)
    if identity is None:
        log.error("no SSH key: give --identity FILE (an operator's private key)")
        return 1
    known_hosts = None if args.known_hosts == "none" else str(Path(args.known_hosts).expanduser())
    if known_hosts is not None and not Path(known_hosts).is_file():
        log.error("no known hosts file %s: give --known-hosts FILE with the server's key (or none to accept "
                  "any key)", known_hosts)
        return 1
    try:
        keys = [asyncssh.read_private_key(identity)]
        answer = asyncio.run(run_admin(args.host, args.port, command_of(args), keys, known_hosts))
    except (OSError, asyncssh.Error, asyncssh.KeyImportError, Closed, asyncio.TimeoutError) as exc:
        log.error("%s", exc or type(exc).__name__)
        return 1
    out = sys.__stdout__
    if isinstance(answer, p.Error):
        log.error("refused: %s", answer.message)
        return 1
    if out is not None:
        out.write("\n".join(report_lines(answer, ENGLISH)) + "\n")
    return 0
