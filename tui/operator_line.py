"""An operator's short command line: a lobby chat line that starts with one of these slash
words is an operator's command, not chat (the server refuses it from anyone else).

    /who                                   who is online, where, key and address
    /kick NAME [REASON]                    disconnect (they may come back)
    /ban [key|name|ip|net] WHO [MIN] [WHY] keep out: a key (SHA256:... or a player's), a name,
                                           an address (or a player's), its /24 or /64 (net);
                                           MIN minutes (none: for good)
    /mute [key|name|ip|net] WHO [MIN] [WHY] no chat and no señas (none: 60 minutes)
    /lift NUMBER                           end a ban or a mute (its number in /bans)
    /bans                                  the bans and mutes in force
    /say TEXT                              a notice to everyone online
    /close TABLE [REASON]                  end a table (its players back in the lobby, no loss)
    /log                                   the operators' last actions
    /reports                               the reports, the most reported players first
    /settle NUMBER [REASON]                a player's reports dealt with: off the queue (theirs
                                           up to that number in /reports)
    /operators                             the operators: by the settings, and named
    /operator add|remove KEY               name a key an operator (every process of a cluster),
                                           or no longer: a fingerprint, a public key, or the
                                           name of a player with a key

and, from anyone:

    /ignore NAME, /unignore NAME           hide (show again) a player's chat and señas
    /chat everyone|partners|nobody         whose chat to see (or todos, compañeros, nadie;
                                           todos, parceiros, ninguém)

    /report NAME REASON [TEXT]             a report for the operators; REASON: abuse, cheating,
                                           leaving, name or other (or the word in Spanish or
                                           Portuguese: insultos, trampa, abandono, nombre...)
"""
from __future__ import annotations

import ipaddress

import protocol as p
from protocol import moderation as m

MUTE_MINUTES = 60
ON_WORDS = {"key": (m.ON_KEY, False), "name": (m.ON_NAME, False), "ip": (m.ON_ADDRESS, False),
            "net": (m.ON_ADDRESS, True)}
USAGE = {
    "who": "/who", "kick": "/kick NAME [REASON]", "ban": "/ban [key|name|ip|net] WHO [MINUTES] [REASON]",
    "mute": "/mute [key|name|ip|net] WHO [MINUTES] [REASON]", "lift": "/lift NUMBER", "bans": "/bans",
    "say": "/say TEXT", "log": "/log", "close": "/close TABLE [REASON]", "reports": "/reports",
    "settle": "/settle NUMBER [REASON]", "operators": "/operators", "operator": "/operator add|remove KEY", "report": "/report NAME REASON [TEXT]",
    "ignore": "/ignore NAME", "unignore": "/unignore NAME", "chat": "/chat everyone|partners|nobody",
}
HEAR_WORDS = {
    **{hear: hear for hear in m.HEAR}, "todos": m.HEAR_EVERYONE, "all": m.HEAR_EVERYONE,
    "compañeros": m.HEAR_PARTNERS, "companeros": m.HEAR_PARTNERS, "parceiros": m.HEAR_PARTNERS,
    "nadie": m.HEAR_NOBODY, "ninguém": m.HEAR_NOBODY, "ninguem": m.HEAR_NOBODY, "none": m.HEAR_NOBODY,
}
# A report's reason as a player may write it, in any of the three languages
REASON_WORDS = {
    **{reason: reason for reason in m.REPORT_REASONS},
    "abuso": "abuse", "insulto": "abuse", "insultos": "abuse", "ofensa": "abuse", "ofensas": "abuse",
    "trampa": "cheating", "trampas": "cheating", "trampo": "cheating", "trapaça": "cheating", "roubo": "cheating",
    "abandono": "leaving", "abandonó": "leaving", "abandonou": "leaving",
    "nombre": "name", "nome": "name", "otro": "other", "otra": "other", "outro": "other", "outra": "other",
}


class Usage(ValueError):
    """A slash command written wrong: the right way to write it is ``str(self)``."""


def operator_command(line: str) -> p.Command | None:
    """The operator's command ``line`` asks for; None: it is chat; ``Usage``: a command
    written wrong."""
    words = line.strip().split()
    if not words or not words[0].startswith("/") or words[0][1:].lower() not in USAGE:
        return None
    verb, rest = words[0][1:].lower(), words[1:]
    try:
        return _command(verb, rest, line.strip().split(None, 1)[1] if rest else "")
    except (IndexError, KeyError, ValueError):
        raise Usage(USAGE[verb]) from None


def _command(verb: str, rest: list[str], text: str) -> p.Command:
    if verb in ("who", "bans", "log", "reports", "operators"):
        return {"who": m.Online(), "bans": m.ListRestrictions(), "log": m.ModerationLog(),
                "reports": m.Reports(), "operators": m.ListOperators()}[verb]
    if verb == "operator":
        change = {"add": True, "remove": False}[rest[0].lower()]
        return m.NameOperator(key=text.split(None, 1)[1], on=change)
    if verb == "chat":
        return m.ChatSetting(hear=HEAR_WORDS[rest[0].lower()])
    if verb in ("ignore", "unignore"):
        return m.Ignore(name=rest[0], on=verb == "ignore")
    if verb == "report":
        return m.ReportPlayer(name=rest[0], reason=REASON_WORDS[rest[1].lower()], text=" ".join(rest[2:]))
    if verb == "kick":
        return m.Kick(name=rest[0], reason=" ".join(rest[1:]))
    if verb == "close":
        return m.CloseTable(table_id=rest[0], reason=" ".join(rest[1:]))
    if verb == "lift":
        return m.Lift(number=int(rest[0]))
    if verb == "settle":
        return m.SettleReports(number=int(rest[0]), reason=" ".join(rest[1:]))
    if verb == "say":
        if not text:
            raise ValueError("nothing to say")
        return m.Broadcast(text=text)
    return _restrict(verb, rest)


def _restrict(what: str, rest: list[str]) -> m.Restrict:
    if rest[0].lower() in ON_WORDS:
        (on, prefix), rest = ON_WORDS[rest[0].lower()], rest[1:]
    else:
        on, prefix = _kind_of(rest[0]), False
    target, rest = rest[0], rest[1:]
    minutes = MUTE_MINUTES if what == m.MUTE else 0
    if rest and rest[0].isdigit():
        minutes, rest = int(rest[0]), rest[1:]
    return m.Restrict(what=what, on=on, target=target, minutes=min(minutes, m.MINUTES_MAX), reason=" ".join(rest),
                      prefix=prefix)


def _kind_of(target: str) -> str:
    """What a bare target names: a key's fingerprint, an address or network, else a name."""
    if target.startswith("SHA256:"):
        return m.ON_KEY
    try:
        ipaddress.ip_network(target, strict=False)
    except ValueError:
        return m.ON_NAME
    return m.ON_ADDRESS
