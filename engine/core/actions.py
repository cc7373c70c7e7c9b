"""Player actions and the chance action (a deal), with their wire form.

Wire form (msgpack-friendly): `{"seat": 0, "call": "play", "card": "7o"}`; the "card" key
is present only for "play", "discard" and "las_que_pintan"; "amount" (a number of
piedras) only for the calls of `AMOUNT_CALLS` ("envido_puntos", "piedras"). A deal:
`{"deal": [["1e", "7o", "3c"], ...], "face_up": None}`.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.core.calls import AMOUNT_CALLS, Call
from engine.core.cards import Card, card_from_wire

_CALLS = {c.value: c for c in Call}


@dataclass(frozen=True, slots=True)
class Action:
    seat: int
    call: Call
    card: Card | None = None
    amount: int | None = None  # piedras of ENVIDO_PUNTOS / PIEDRAS (Venezuelan envite)

    def to_wire(self) -> dict[str, object]:
        wire: dict[str, object] = {"seat": self.seat, "call": self.call.value}
        if self.card is not None:
            wire["card"] = str(self.card)
        if self.amount is not None:
            wire["amount"] = self.amount
        return wire

    def __str__(self) -> str:
        if self.amount is not None:
            return f"seat {self.seat}: {self.call.value} {self.amount}"
        if self.card is not None:
            return f"seat {self.seat}: {self.call.value} {self.card}"
        return f"seat {self.seat}: {self.call.value}"


@dataclass(frozen=True, slots=True)
class Deal:
    """Chance: the cards each seat receives (index = seat), and the face-up card if any."""

    hands: tuple[tuple[Card, ...], ...]
    face_up: Card | None = None

    def to_wire(self) -> dict[str, object]:
        return {
            "deal": [[str(c) for c in hand] for hand in self.hands],
            "face_up": None if self.face_up is None else str(self.face_up),
        }


_INTERNED: dict[tuple[int, int, Card | None, int | None], Action] = {}
_BARE: dict[int, Action] = {}


def action(seat: int, call: Call, card: Card | None = None, amount: int | None = None) -> Action:
    """A shared Action instance: legal-action lists are rebuilt on every step, and a dict
    lookup is much cheaper than a frozen dataclass constructor. The key holds the call's
    id (members are singletons): hashing an Enum member runs Enum.__hash__ in Python."""
    if card is None and amount is None and 0 <= seat < 64:
        # A bare call (most of the list): one int key, id * 64 + seat, unique for the
        # seats below 64 it is used for.
        bare = (id(call) << 6) + seat
        found = _BARE.get(bare)
        if found is None:
            found = _BARE[bare] = Action(seat, call)
        return found
    key = (seat, id(call), card, amount)
    found = _INTERNED.get(key)
    if found is None:
        found = _INTERNED[key] = Action(seat, call, card, amount)
    return found


_PLAYS: list[list[Action | None]] = []


def play_action(seat: int, card: Card) -> Action:
    """The shared Action playing `card`, found by the card's code (a list index: playing a
    card is the most listed action of all)."""
    while len(_PLAYS) <= seat:
        _PLAYS.append([None] * 128)  # card codes are below 8 suits * 13
    found = _PLAYS[seat][card.code]
    if found is None:
        found = _PLAYS[seat][card.code] = action(seat, Call.PLAY, card)
    return found


def _int(value: object, key: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{key!r} must be an integer")
    return value


def action_from_wire(d: object, deck: str | None = None) -> Action:
    """The Action of a wire dict; ValueError on anything malformed (never KeyError).
    `deck` is the table's `rules.card_notation` (needed for French cards like "7c")."""
    if not isinstance(d, dict):
        raise ValueError("an action must be a map")
    extra = set(d) - {"seat", "call", "card", "amount"}
    if extra:
        raise ValueError(f"unknown action fields: {sorted(map(str, extra))}")
    return action_from_fields(d.get("seat"), d.get("call"), d.get("card"), d.get("amount"), deck)


def action_from_fields(seat: object, name: object, card_value: object = None, amount: object = None,
                       deck: str | None = None) -> Action:
    """The Action of its fields as a command carries them (a seat, a call's wire name, a card
    in the table's notation, an amount); ValueError on anything malformed."""
    seat = _int(seat, "seat")
    if not 0 <= seat < 16:
        raise ValueError("seat out of range")
    if not isinstance(name, str) or name not in _CALLS:
        raise ValueError(f"unknown call {name!r}")
    call = _CALLS[name]
    if call in AMOUNT_CALLS:
        if card_value is not None:
            raise ValueError(f"the call {name!r} takes no card")
        count = _int(amount, "amount")
        if not 0 < count < 1000:
            raise ValueError("amount out of range")
        return Action(seat, call, None, count)
    if amount is not None:
        raise ValueError(f"the call {name!r} takes no amount")
    if call is Call.PLAY or call is Call.DISCARD or call is Call.LAS_QUE_PINTAN:
        return Action(seat, call, card_from_wire(card_value, deck))
    if card_value is not None:
        raise ValueError(f"the call {name!r} takes no card")
    return Action(seat, call)


def deal_from_wire(d: object, deck: str | None = None) -> Deal:
    if not isinstance(d, dict) or not isinstance(d.get("deal"), list):
        raise ValueError("a deal must be a map with a 'deal' list")
    hands_raw = d["deal"]
    assert isinstance(hands_raw, list)
    hands = []
    for hand in hands_raw:
        if not isinstance(hand, list):
            raise ValueError("each dealt hand must be a list of cards")
        hands.append(tuple(card_from_wire(c, deck) for c in hand))
    face_up_raw = d.get("face_up")
    face_up = None if face_up_raw is None else card_from_wire(face_up_raw, deck)
    return Deal(tuple(hands), face_up)
