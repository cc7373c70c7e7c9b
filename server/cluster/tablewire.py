"""A table's messages and seats in their bus form, both ways (``protocol/bus.py``): what the
lobby host's proxy (``proxy``) sends a table's owner (``owner``) and what comes back."""
from __future__ import annotations

import protocol as p
from protocol.bus import ORIGIN_MAX, SeatRecord, TableCall
from server.table import Occupant
from server.table import messages as tm

# The table messages the lobby sends on a connection's behalf (the others are the actor's own)
LobbyCall = (tm.Act | tm.Chat | tm.Entropy | tm.Sena | tm.Watch | tm.Leave | tm.Rematch | tm.Away | tm.Rejoin
             | tm.Release | tm.Stop)


def seat_record(o: Occupant) -> SeatRecord:
    return SeatRecord(name=o.name[:p.NAME_MAX], conn_id=o.conn_id, bot=o.bot, away=o.away,
                      fingerprint=o.fingerprint, resume=o.resume[:16], was_human=o.was_human,
                      level=o.level[:16], entropy=o.entropy[:64])


def occupant(r: SeatRecord) -> Occupant:
    o = Occupant(name=r.name, conn_id=r.conn_id, bot=r.bot, away=r.away, fingerprint=r.fingerprint,
                 resume=r.resume, level=r.level, entropy=r.entropy)
    o.was_human = r.was_human
    return o


def follow(o: Occupant, r: SeatRecord) -> None:
    """What only the table changes of a seat (a new match gives a departed person's seat to a
    bot of its own: ``Occupant.replaced_by_bot``), copied to the lobby's occupant; who is
    connected where stays the lobby's (it tells the table)."""
    o.name, o.was_human, o.fingerprint, o.resume, o.level = r.name, r.was_human, r.fingerprint, r.resume, r.level
    o.entropy = r.entropy


def to_call(table_id: str, message: LobbyCall, front: str) -> TableCall:
    """``message`` for the table's subject (``front``: where the connection it names is)."""
    base = TableCall(table_id=table_id, kind="stop")
    match message:
        case tm.Stop(deserted=False):
            return TableCall(table_id=table_id, kind="close")
        case tm.Act(conn_id, cmd):
            return TableCall(table_id=table_id, kind="act", conn_id=conn_id, front=front, call=cmd.call,
                             card=cmd.card, cid=cmd.cid, amount=cmd.amount)
        case tm.Chat(conn_id, sender, text, partners, origin):
            return TableCall(table_id=table_id, kind="chat", conn_id=conn_id, front=front,
                             sender=sender[:p.NAME_MAX], text=text[:p.CHAT_MAX * 4], partners=partners,
                             origin=origin[:ORIGIN_MAX])
        case tm.Entropy(conn_id, entropy):
            return TableCall(table_id=table_id, kind="entropy", conn_id=conn_id, front=front, text=entropy[:64])
        case tm.Sena(conn_id, sena, origin):
            return TableCall(table_id=table_id, kind="sena", conn_id=conn_id, front=front, sena=sena[:p.SENA_MAX],
                             origin=origin[:ORIGIN_MAX])
        case tm.Watch(conn_id) | tm.Leave(conn_id) | tm.Rematch(conn_id) | tm.Away(conn_id):
            kind = type(message).__name__.lower()
            return TableCall(table_id=table_id, kind=kind, conn_id=conn_id, front=front)
        case tm.Rejoin(conn_id, seat):
            return TableCall(table_id=table_id, kind="rejoin", conn_id=conn_id, front=front, seat=seat)
        case tm.Release(seat):
            return TableCall(table_id=table_id, kind="release", seat=seat)
    return base


def from_call(call: TableCall) -> LobbyCall | None:
    """The table message a call stands for (None: not one, or a field it needs is missing)."""
    conn, kind = call.conn_id, call.kind
    if kind in ("stop", "close"):
        return tm.Stop(deserted=kind == "stop")
    if kind == "release":
        return tm.Release(call.seat) if call.seat is not None else None
    if conn is None:
        return None
    match kind:
        case "act":
            return tm.Act(conn, p.TableAction(table_id=call.table_id, call=call.call, card=call.card,
                                              cid=call.cid, amount=call.amount))
        case "chat":
            return tm.Chat(conn, call.sender, call.text, call.partners, call.origin)
        case "sena":
            return tm.Sena(conn, call.sena, call.origin)
        case "entropy":
            return tm.Entropy(conn, call.text)
        case "watch":
            return tm.Watch(conn)
        case "leave":
            return tm.Leave(conn)
        case "rematch":
            return tm.Rematch(conn)
        case "away":
            return tm.Away(conn)
        case "rejoin":
            return tm.Rejoin(conn, call.seat) if call.seat is not None else None
    return None
