"""docs/PROTOCOL.md, generated from protocol/ (and the server's limits and error codes).

    python -m server.cli.protocol_doc > docs/PROTOCOL.md

Every message, record and field comes from the dataclasses in protocol/messages.py (their
type hints and limits), the error codes from the server's sources, the limits from the
codec and the server's defaults, the transcript from real messages encoded by the codec.
tests/server/test_protocol_doc.py regenerates it and compares, so it cannot drift.
"""
from __future__ import annotations

import dataclasses
import json
import random
import re
import sys
import types
import typing
from pathlib import Path
from typing import Any, Union

import msgpack

import engine
import protocol as p
from protocol import checks, codec, schema
from server.config import ServerConfig
from server.link import OUTBOX_LIMIT
from server.table.actor import RECENT_CIDS
from server.lobby.hub import BAD_FRAMES_BEFORE_DROP
from server.session.program import SUBSYSTEM
from server.variants import variant_infos

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "server"
# A session's error: the state's error method with a code and a message; a message not a
# literal (the engine's reason, an exception's text) is shown as "(the reason)".
_ERROR_CALL = re.compile(r'error\(\s*\w+,\s*"(\w+)",\s*(?:(f?)"([^"]*)"|\w)')
_ERROR_MESSAGE = re.compile(r'Error\(code="(\w+)",\s*message=(f?)"([^"]*)"')
_NOTICE = re.compile(r'Notice\(code="(\w+)"')


# -- types and limits ----------------------------------------------------------------

def _anchor(cls: type) -> str:
    return cls.__name__.lower()


def _type(hint: Any) -> str:
    if hint is Any:
        return "any"
    if hint is str:
        return "string"
    if hint is int:
        return "integer"
    if hint is bool:
        return "boolean"
    if hint is float:
        return "number"
    if hint is type(None):
        return "null"
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(_type(a) for a in typing.get_args(hint))
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return f"list of {_type(args[0])}"
        return "list [" + ", ".join(_type(a) for a in args) + "]"
    if origin is dict:
        key, value = typing.get_args(hint)
        return "map (free-form)" if value is Any else f"map of {_type(key)} to {_type(value)}"
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return f"[{hint.__name__}](#{_anchor(hint)})"
    return str(hint)


def _records(hint: Any) -> list[type]:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return [hint]
    return [r for a in typing.get_args(hint) for r in _records(a)]


def _limits(hint: Any, lim: schema.Limits) -> str:
    parts = []
    text = _type(hint)
    default = schema.Limits()
    if "string" in text and lim.max_len != default.max_len:
        parts.append(f"at most {lim.max_len} characters")
    elif "string" in text:
        parts.append(f"at most {default.max_len} characters")
    if ("integer" in text or "number" in text) and (lim.lo, lim.hi) != (default.lo, default.hi):
        parts.append(f"{lim.lo} to {lim.hi}")
    if text.startswith(("list", "map")):
        parts.append(f"at most {lim.max_items} items")
    return "; ".join(parts)


def _plain(value: Any) -> str:
    return json.dumps(schema.to_plain(value), ensure_ascii=False)


def _fields_table(cls: type) -> list[str]:
    hints = typing.get_type_hints(cls)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    if not fields:
        return ["No fields."]
    lines = ["| field | type | default | limits |", "|---|---|---|---|"]
    for f in fields:
        lim = f.metadata.get("limits", schema.Limits())
        default = "required" if f.default is dataclasses.MISSING else f"`{_plain(f.default)}`"
        lines.append(f"| `{f.name}` | {_type(hints[f.name])} | {default} | {_limits(hints[f.name], lim)} |")
    return lines


def _doc(cls: type) -> str:
    text = cls.__doc__ or ""
    if text.startswith(f"{cls.__name__}("):  # the dataclass's generated signature
        return ""
    return " ".join(text.split())


def _message_section(cls: type[p.Message]) -> list[str]:
    doc = _doc(cls)
    return [f"### `{cls.TYPE}` ({cls.__name__})", "", *([doc, ""] if doc else []), *_fields_table(cls), ""]


def _all_records() -> list[type]:
    seen: list[type] = []
    todo = [r for cls in p.MESSAGE_TYPES.values() for h in typing.get_type_hints(cls).values()
            for r in _records(h)]
    while todo:
        rec = todo.pop(0)
        if rec in seen:
            continue
        seen.append(rec)
        todo += [r for h in typing.get_type_hints(rec).values() for r in _records(h)]
    return seen


# -- errors and notices, from the server's sources -----------------------------------------

def _codes() -> tuple[dict[str, str], list[str]]:
    errors: dict[str, str] = {}
    notices: set[str] = {"shutdown"}  # the shutdown's code is passed in (cli/main.py)
    for path in sorted(SERVER.rglob("*.py")):
        if path.name in ("protocol_doc.py", "remote_bot.py"):  # (server/cli/) they only read them
            continue
        source = path.read_text(encoding="utf-8")
        for pattern in (_ERROR_CALL, _ERROR_MESSAGE):
            for code, is_f, message in pattern.findall(source):
                text = re.sub(r"\{[^}]*\}", "…", message) if is_f else message
                # Several texts, or one not written out: the code's message varies.
                errors[code] = text if errors.get(code, text) == text else ""
        notices.update(_NOTICE.findall(source))
    notices.discard("reason")
    return dict(sorted(errors.items())), sorted(notices | {"idle"})


# -- the transcript --------------------------------------------------------------------------

def _short(value: Any, depth: int = 0) -> Any:
    """Long lists and deep maps cut down, so one line stays readable."""
    if isinstance(value, list):
        items = [_short(v, depth + 1) for v in value[:3]]
        return items + ([f"… {len(value) - 3} more"] if len(value) > 3 else [])
    if isinstance(value, dict):
        if depth >= 2 and len(value) > 6:
            return {k: _short(v, depth + 1) for k, v in list(value.items())[:4]} | {"…": f"{len(value) - 4} more"}
        return {k: _short(v, depth + 1) for k, v in value.items()}
    return value


def _line(direction: str, message: p.Message, short: bool = True) -> str:
    data = p.encode(message)
    body = msgpack.unpackb(data, raw=False)
    shown = json.dumps(_short(body) if short else body, ensure_ascii=False)
    return f"{direction} {4 + len(data):>5} B  {shown}"


def _view_field(view: engine.View) -> Any:
    """A view as ``TableUpdate.view`` takes it: the wire map, or the typed record built from it."""
    hint = typing.get_type_hints(p.TableUpdate)["view"]
    wire = view.to_wire()
    return wire if typing.get_origin(hint) is dict else checks.from_plain(hint, wire)


def _transcript() -> list[str]:
    table = "t1a2b3c"
    rules = engine.get_ruleset("argentino", target=15)
    state, _ = engine.new_match(rules, 2, random.Random(17))
    view = engine.view(state, 0)
    move = next(a for a in view.legal if a.call is engine.Call.PLAY)
    try:
        engine.apply(state, engine.Action(0, engine.Call.VALE_CUATRO))
        raise AssertionError("vale cuatro before any truco was accepted")
    except engine.IllegalAction as exc:
        refusal = p.Error(code="illegal", message=str(exc.reason), reason=exc.code)
    first = variant_infos()[0]
    info = p.TableInfo(table_id=table, title="ana's table", variant="argentino", owner="ana",
                       seats=("ana", None), options={"target": 15})
    steps: list[tuple[str, p.Message]] = [
        ("C>", p.ClaimName(name="ana", lang="es")),
        ("<S", p.Welcome(name="ana", guest=True,
                         variants=(dataclasses.replace(first, options=first.options[:1]),))),
        ("<S", p.LobbySnapshot(players=(p.PlayerInfo(name="ana"),), tables=(), chat=())),
        ("C>", p.CreateTable(variant="argentino", players=2, options={"target": 15})),
        ("<S", p.TableCreated(table_id=table)),
        ("<S", p.Seated(table_id=table, seat=0)),
        ("<S", p.TableUpdated(table=info)),
        ("C>", p.AddBot(table_id=table)),
        ("<S", p.TableUpdated(table=dataclasses.replace(info, seats=("ana", "Bot 1"), bots=(False, True),
                                                         status="playing"))),
        ("<S", p.TableUpdate(table_id=table, seq=2, seat=0,
                             seats=(p.SeatInfo(name="ana"), p.SeatInfo(name="Bot 1", bot=True)),
                             view=_view_field(view), waiting=tuple(view.awaiting))),
        ("C>", p.TableAction(table_id=table, call=move.call.value, card=str(move.card), cid=1)),
        ("C>", p.TableAction(table_id=table, call="vale_cuatro", cid=2)),
        ("<S", refusal),
        ("C>", p.TableChat(table_id=table, text="buena mano")),
        ("<S", p.Chat(line=p.ChatLine(sender="ana", text="buena mano", ts=1767225600, table_id=table))),
        ("C>", p.LeaveTable(table_id=table)),
        ("<S", p.Seated()),
    ]
    ping = p.frame(p.Ping(n=1))
    return [
        "A session, as the client sees it (`C>` sent by the client, `<S` by the server; the size",
        "is the whole frame, prefix included; the msgpack maps are shown as JSON, long lists and",
        "the view cut short with `…`; the `welcome` shown lists one variant with one option, the",
        "real one lists them all). The `act` frames carry the view's own legal actions:",
        "",
        "```",
        *(_line(d, m) for d, m in steps),
        "```",
        "",
        f"The `ping` command `{json.dumps(msgpack.unpackb(ping[4:], raw=False))}` as bytes on the wire:",
        "",
        "```",
        " ".join(f"{b:02x}" for b in ping),
        "```",
    ]


# -- the document ----------------------------------------------------------------------------

def _view_section() -> list[str]:
    """The table view's fields while the protocol carries it as a free-form map."""
    hint = typing.get_type_hints(p.TableUpdate)["view"]
    if typing.get_origin(hint) is not dict:
        return []  # a typed record: documented with the others
    hints = typing.get_type_hints(engine.View)

    def wire(h: Any) -> str:
        text = _type(h)
        for rec in _records(h):
            if rec is engine.Card:
                shown = "card"
            elif rec is engine.Action:
                shown = "action"
            else:
                shown = f"map {{{', '.join(f.name for f in dataclasses.fields(rec))}}}"
            text = text.replace(f"[{rec.__name__}](#{_anchor(rec)})", shown)
        return text

    lines = ["## The table view", "",
             "`table_update.view` is the engine's view for that viewer (`engine.View.to_wire()`;",
             "`engine.view_from_wire` reads it back). Cards are text (`1e`, `12c`; `Ac` on the",
             "28-card deck, `card_notation` says which); an action is a map `{\"seat\", \"call\",",
             "\"card\"?, \"amount\"?}`, and `legal` lists exactly the actions this seat may send now",
             "(`act` with the same `call`, `card` and `amount`).", "",
             "| field | type |", "|---|---|"]
    for f in dataclasses.fields(engine.View):
        lines.append(f"| `{f.name}` | {wire(hints[f.name])} |")
    return lines + [""]


def protocol_markdown() -> str:
    cfg = ServerConfig()
    errors, notices = _codes()
    commands = [c for c in p.MESSAGE_TYPES.values() if issubclass(c, p.Command)]
    events = [c for c in p.MESSAGE_TYPES.values() if issubclass(c, p.Event)]
    unpack = codec._UNPACK_LIMITS
    out = [
        "# The truco-ssh protocol",
        "",
        "<!-- Generated by `python -m server.cli.protocol_doc > docs/PROTOCOL.md` from protocol/;",
        "     tests/server/test_protocol_doc.py fails when it is out of date. Do not edit by hand. -->",
        "",
        f"Protocol version **{p.PROTOCOL_VERSION}**. Programs (bots, tools, other clients) play through the",
        f"`{SUBSYSTEM}` SSH subsystem: `ssh -s -p 2222 NAME@host {SUBSYSTEM}`. The connection is",
        "authenticated, named and limited exactly like a terminal session (the SSH username is the",
        "name to claim; a public key reserves it); every other subsystem, and `exec`, are refused.",
        "The Python client in `protocol/client.py` and `truco-ssh bot` use it; `docs/ssh_player.py`",
        "plays a whole game with the OpenSSH client and msgpack alone.",
        "",
        "## Frames",
        "",
        "Both directions carry frames: a 4-byte big-endian length, then that many bytes of",
        "[msgpack](https://msgpack.org): one map with string keys, the envelope `v` (the protocol",
        "version) and `t` (the message type), and the message's fields. The first command must be",
        "`claim_name` (or `ping`); the server answers `welcome` and a `lobby` snapshot, or",
        "`name_refused`. Commands go from client to server, events from server to client; the",
        "server never sends a command and refuses one sent to it as an event. Closing the input",
        "(end of file) ends the session; a seat at a running table is held for the player as when",
        "a terminal disconnects (`resume` and the same key take it back).",
        "",
        f"`act` carries `cid`, the client's command id: a table remembers the last {RECENT_CIDS} ids",
        "of each seat, across connections, and ignores a repeat without an answer, so resending",
        "after a doubt is safe. Ids must therefore differ from those of the seat's earlier",
        "connections (`protocol/client.py` starts from the clock in milliseconds).",
        "",
        "## Versioning and compatibility",
        "",
        "- Every frame carries `v`; a frame of another version is refused with `bad_frame`.",
        "- New fields are added at the end of a message with a default; a reader ignores fields it",
        "  does not know, so older clients keep working. A missing field takes its default.",
        "- A change of meaning, a removed field or a new required field bumps the version.",
        "- New message types and new error or notice codes may appear within a version: clients",
        "  ignore events they do not know.",
        "- The view's fields (below) follow the same rule: new fields may appear.",
        "",
        "## Limits",
        "",
        "| what | limit |", "|---|---|",
        f"| one frame (the length prefix's value) | {codec.MAX_FRAME} bytes; more ends the session (the stream cannot resynchronise) |",
        f"| strings, lists, maps inside a frame | {unpack['max_array_len']} items per list or map; no binary or extension types; map keys are strings |",
        f"| nesting of free-form maps (views, events) | {schema.MAX_DEPTH} levels |",
        "| each field | the limits in its table below; a value outside is a `bad_frame` |",
        f"| commands | {cfg.commands_per_second:g} a second, bursts of {cfg.commands_burst}; more are dropped with one `rate_limited` error a second |",
        f"| chat lines | {cfg.chat_per_second:g} a second, bursts of {cfg.chat_burst}; every connection of one address together {cfg.chat_per_address_per_second:g} a second, bursts of {cfg.chat_address_burst}; {cfg.chat_max_len} characters after cleaning |",
        f"| bytes sent by the client | {cfg.input_bytes_per_second:g} a second, bursts of {cfg.input_burst}; more ends the session (`rate_limited`) |",
        f"| malformed frames | {BAD_FRAMES_BEFORE_DROP} end the session |",
        f"| events not yet read by the client | {OUTBOX_LIMIT} frames queued, or {cfg.output_limit} bytes unsent, or {cfg.stalled_reader_timeout:g} s without reading: the session ends |",
        f"| idle in the lobby | {cfg.lobby_idle_timeout:g} s without a byte from the client: a `notice` `idle`, then the session ends |",
        "",
        "Names, chat and titles are cleaned by the server (control, format and private-use",
        "characters dropped, lengths capped) and must be shown as plain text, never as markup.",
        "",
        "## Errors and notices",
        "",
        "A refused command gets an `error` event with a `code` (below) and an English `message`;",
        "for `illegal` the `reason` is the engine's code for why. Only the session that sent the",
        "command sees it; nothing else changes. `notice` events carry a `code` the client says in",
        "its player's language: " + ", ".join(f"`{n}`" for n in notices) + ".",
        "",
        "| code | message |", "|---|---|",
        *(f"| `{code}` | {message or '(the reason)'} |" for code, message in errors.items()),
        "",
        "## A session",
        "",
        *_transcript(),
        "",
        "## Commands (client to server)",
        "",
    ]
    for cls in commands:
        out += _message_section(cls)
    out += ["## Events (server to client)", ""]
    for event in events:
        out += _message_section(event)
    out += ["## Records", "",
            "Maps inside messages. The log's events (`table_update.events` and `history`,",
            "`replay_step.events`) are records of several kinds in one list: each carries its kind",
            f"as `{schema.TAG}` (named below). The server sends only these kinds: a new kind of",
            "event bumps the protocol version (a reader refuses a kind it does not know).", ""]
    for rec in _all_records():
        doc = _doc(rec)
        tag = schema.tag_of(rec)
        kind = [f"`{schema.TAG}`: `\"{tag}\"`.", ""] if tag else []
        out += [f"### {rec.__name__}", "", *kind, *([doc, ""] if doc else []), *_fields_table(rec), ""]
    out += _view_section()
    return "\n".join(out).rstrip() + "\n"


def main() -> int:
    sys.stdout.write(protocol_markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
