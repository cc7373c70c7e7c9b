"""``truco-ssh host``: a private table on the LAN in one command.

The server starts as ``serve`` would; then the host, as a protocol client of the hub like
any session, claims a name and opens a private table with the options given; the join
code becomes deep links (``ssh -p PORT CODE@ADDRESS``, one per LAN address) and a QR code
(``ssh://CODE@ADDRESS:PORT``, the URI phone SSH apps open) printed on the terminal. The
host then plays in the same terminal: a Textual app on the local terminal, fed the frames
received so far and then the same link. Ctrl-C (or quitting the app) ends the table and
the server.
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import asyncssh

import engine
import protocol as p
from protocol.text import usable_name
from server.lobby import Hub
from server.lan.netinfo import lan_addresses, ssh_command
from server.say import ENGLISH, Phrase, Said
from tui.i18n import Translator, language_from_env

SETUP_WAIT = 10.0  # seconds the hub may take to answer the host's first commands
LOCAL_KEYS = ("id_ed25519.pub", "id_ecdsa.pub", "id_rsa.pub")


class HostError(Said):
    """The table could not be opened (the message says why, for the operator)."""


class OptionError(Said, ValueError):
    """A table option given on the command line that the variant does not take."""


@dataclass(frozen=True)
class TablePlan:
    name: str
    variant: str
    players: int
    options: dict[str, p.OptionValue]
    title: str = ""
    turn_timer: int | None = None


# -- the command line ------------------------------------------------------------------

def add_table_arguments(parser: argparse.ArgumentParser, tr: Translator = ENGLISH) -> None:
    parser.add_argument("--name", default="", help=tr("cli.help.host.name"))
    parser.add_argument("--variant", default="argentino",
                        choices=[v.name for v in engine.variant_catalog() if v.implemented],
                        help=tr("cli.help.host.variant"))
    parser.add_argument("--players", type=int, default=2, help=tr("cli.help.host.players"))
    parser.add_argument("--title", default="", help=tr("cli.help.host.title"))
    parser.add_argument("--turn-timer", type=int, default=None,
                        help=tr("cli.help.host.turn_timer"))
    parser.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE",
                        help=tr("cli.help.host.option"))


def parse_option(variant: str, text: str) -> tuple[str, p.OptionValue]:
    """``name=value`` as the option's type (on/off for switches); ValueError if unknown."""
    name, sep, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    catalog = {v.name: v for v in engine.variant_catalog()}[variant]
    option = next((o for o in catalog.options if o.name == name), None)
    if not sep or option is None:
        known = ", ".join(o.name for o in catalog.options)
        raise OptionError("cli.host.unknown_option", option=text, variant=variant, known=known)
    if option.kind == "bool":
        if raw.lower() not in ("on", "off", "true", "false", "yes", "no", "1", "0"):
            raise OptionError("cli.host.option_on_off", name=name, value=raw)
        return name, raw.lower() in ("on", "true", "yes", "1")
    if isinstance(option.default, int):
        try:
            return name, int(raw)
        except ValueError:
            raise OptionError("cli.host.option_number", name=name, value=raw) from None
    return name, raw


def plan_from_args(args: argparse.Namespace) -> TablePlan:
    name = args.name or os.environ.get("USER", "") or "host"
    if not usable_name(name):
        name = "host"  # e.g. root: a system account is no player name
    options = dict(parse_option(args.variant, text) for text in args.option)
    return TablePlan(name=name, variant=args.variant, players=args.players, options=options,
                     title=args.title, turn_timer=args.turn_timer)


def local_key_fingerprint(home: Path | None = None) -> str | None:
    """The host's own SSH key, so that the seat is theirs as when they ssh in (their name
    and rating): the first of ~/.ssh/id_*.pub, or None (a guest)."""
    folder = (home or Path.home()) / ".ssh"
    for filename in LOCAL_KEYS:
        try:
            key = asyncssh.read_public_key(folder / filename)
        except (OSError, asyncssh.KeyImportError, ValueError):
            continue
        return str(key.get_fingerprint("sha256"))
    return None


# -- opening the table -------------------------------------------------------------------

class ReplayLink:
    """The host's hub link for its app: the frames the setup already read come first."""

    def __init__(self, frames: list[bytes], link: object) -> None:
        self._frames = collections.deque(frames)
        self._link = link

    def send(self, data: bytes) -> None:
        self._link.send(data)  # type: ignore[attr-defined]

    async def receive(self) -> bytes | None:
        if self._frames:
            return self._frames.popleft()
        return await self._link.receive()  # type: ignore[attr-defined,no-any-return]

    def close(self) -> None:
        self._link.close()  # type: ignore[attr-defined]

    @property
    def queued(self) -> int:
        return len(self._frames) + self._link.queued  # type: ignore[attr-defined,no-any-return]


async def _next(link: object, frames: list[bytes]) -> p.Message:
    data = await asyncio.wait_for(link.receive(), SETUP_WAIT)  # type: ignore[attr-defined]
    if data is None:
        raise HostError("cli.host.hung_up")
    frames.append(data)
    return p.decode(data)


async def open_table(hub: Hub, plan: TablePlan, fingerprint: str | None,
                     lang: str) -> tuple[ReplayLink, str, str]:
    """Claim the host's name and open the table; (the link for the app, code, name)."""
    link = hub.connect("127.0.0.1", plan.name, fingerprint)
    frames: list[bytes] = []
    name = plan.name
    link.send(p.encode(p.ClaimName(name=name, lang=lang)))
    while True:
        msg = await _next(link, frames)
        if isinstance(msg, p.Welcome):
            name = msg.name
            break
        if isinstance(msg, p.NameRefused):
            if not msg.suggestion or msg.suggestion == name:
                link.close()
                raise HostError("cli.host.name_refused", reason=Phrase(f"name.reason.{msg.reason}", name=name))
            name = msg.suggestion  # e.g. taken by a player online: the server's suggestion
            frames.clear()
            link.send(p.encode(p.ClaimName(name=name, lang=lang)))
    link.send(p.encode(p.CreateTable(
        variant=plan.variant, players=plan.players, options=plan.options, private=True,
        title=plan.title, turn_timer=plan.turn_timer, owner_starts=True)))  # partners chosen first
    code = ""
    while True:
        msg = await _next(link, frames)
        if isinstance(msg, p.Error):
            link.close()
            known = ENGLISH.has_default(f"error.{msg.code}")  # the server's words, in the terminal's language
            raise HostError("cli.host.cannot_open", reason=Phrase(f"error.{msg.code}") if known else msg.message)
        if isinstance(msg, p.TableCreated):
            code = msg.code
        if isinstance(msg, p.Seated) and msg.table_id is not None:
            return ReplayLink(frames, link), code, name


# -- what the host sees --------------------------------------------------------------------

def uri(code: str, address: str, port: int) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"ssh://{code}@{host}:{port}"


def qr_text(link: str) -> str:
    out = io.StringIO()
    # A quiet zone of 2 modules (the standard asks 4; phone cameras read 2): with the links
    # under it the whole invitation fits a 24-line terminal.
    import segno  # (only `truco-ssh host` draws one: not imported at every server's start)

    segno.make(link, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue().rstrip("\n")


def join_commands(code: str, addresses: list[str], port: int) -> tuple[str, ...]:
    """The ssh lines that seat a friend at the table (at ``addresses``, else on this machine
    alone), as the invitation prints them; the host's table screen shows them too."""
    return tuple(ssh_command(address, port, code) for address in addresses or ["127.0.0.1"])


def invitation(code: str, bind_host: str, port: int, plan: TablePlan, name: str,
               tr: Translator = ENGLISH) -> list[str]:
    """The lines printed for the host: a QR code first, then the links (last, so that they
    stay on a 24-line terminal under the code)."""
    addresses = lan_addresses(bind_host)
    local_only = not addresses
    link = uri(code, addresses[0] if addresses else "127.0.0.1", port)
    variant = tr(f"variant.{plan.variant}") if tr.has_default(f"variant.{plan.variant}") else plan.variant
    lines = [qr_text(link), tr("cli.host.scan", link=link), "",
             tr("cli.host.table", variant=variant, n=plan.players, name=name, code=code),
             tr("cli.host.friends_join")]
    if local_only:  # a line of its own: beside the heading it wrapped mid-word at 80 columns
        lines.append(f"  {tr('cli.this_machine_only')}")
    lines += [f"  {command}" for command in join_commands(code, addresses, port)]
    return lines


async def wait_for_enter() -> None:
    """Until a line (Enter) arrives on stdin, without a thread: the loop watches the fd."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()
    fd = sys.stdin.fileno()

    def readable() -> None:
        data = os.read(fd, 1024)
        if (not data or b"\n" in data or b"\r" in data) and not done.done():
            done.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await done
    finally:
        loop.remove_reader(fd)


async def play_host(hub: Hub, port: int, bind_host: str, plan: TablePlan,
                    say: Callable[[str], None], server_fingerprint: str) -> None:
    """Open the table, print the invitation, then the host's seat in this terminal.

    The host's identity is their own SSH key if they have one (as when they ssh in), else
    the server's host key: only whoever holds its private key (the host, on this machine)
    can ever sign with it, so the name is reserved and the matches rated as for any key."""
    from tui.app import TrucoApp

    lang = language_from_env(dict(os.environ))
    fingerprint = await asyncio.to_thread(local_key_fingerprint) or server_fingerprint
    link, code, name = await open_table(hub, plan, fingerprint, lang)
    tr = Translator(lang)
    for line in invitation(code, bind_host, port, plan, name, tr):
        say(line)
    say(tr("cli.host.press_enter"))
    await wait_for_enter()
    app = TrucoApp(link, name, lang, local=True)
    app.join_commands = {code: join_commands(code, lan_addresses(bind_host), port)}
    try:
        await app.run_async()
    finally:
        link.close()
