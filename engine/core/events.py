"""Events: what happened, in order, as the table log stores them.

Every event is public except `HandDealt`, which carries every seat's cards;
`project_event(event, seat_or_None)` gives the copy one viewer may see (other seats' cards
replaced by None). Cards become public through `Acted` (a card played face up) and
`CardsShown` (cards proving an envido or flor at the end of a hand).

Wire form: a dict with "type" (the event's `kind`) and one key per field; cards as text,
tuples as lists, None kept. `event_from_wire` reverses it and raises ValueError on bad input.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
import types
import typing
from collections.abc import Callable
from enum import StrEnum
from typing import Any, ClassVar

from engine.core.cards import Card, card_from_wire


class Scoring(StrEnum):
    """Why points were scored (PointsScored, PointsWithheld) or a hand ended (HandEnded).
    A str enum: the wire and the log carry the plain value ("envido"), so an event read
    back from the log equals the one the rules produced."""

    TRUCO = "truco"
    TRUCO_DECLINED = "truco_declined"
    ELEVEN_DECLINED = "eleven_declined"
    MAO_DE_ONZE = "mao_de_onze"
    MAO_DE_FERRO = "mao_de_ferro"
    MAZO = "mazo"
    PASAR = "pasar"
    THREE_TIES = "three_ties"
    TRICKS = "tricks"
    GAME_OVER = "game_over"
    MALDON = "maldon"
    ENVIDO = "envido"
    ENVIDO_DECLINED = "envido_declined"
    FLOR = "flor"
    FLOR_ACHICO = "flor_achico"
    CONTRAFLOR = "contraflor"
    CONTRAFLOR_AL_RESTO = "contraflor_al_resto"
    FLOR_ENVITE = "flor_envite"
    FLOR_ENVITE_DECLINED = "flor_envite_declined"
    CANTANDO_ENVITE = "cantando_envite"
    CANTANDO_FLOR = "cantando_flor"
    CON_LEY_DECLINED = "con_ley_declined"
    RESERVADA = "reservada"


def _enc(value: Any) -> Any:
    if isinstance(value, Scoring):
        return value.value  # plain text on the wire and in the log
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, tuple):
        return [_enc(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Event:
    kind: ClassVar[str] = "event"

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"type": self.kind}
        for f in fields(self):
            wire[f.name] = _enc(getattr(self, f.name))
        return wire

    @property
    def public(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class MatchStarted(Event):
    kind: ClassVar[str] = "match_started"
    variant: str
    options: tuple[tuple[str, bool | int | str], ...]
    n_players: int
    first_dealer: int
    # What the players added to the match's deal secret (hex), in seat order: the shuffles
    # draw from both (protocol/deal_proof.py). Left out of the wire form while empty.
    entropy: tuple[str, ...] = ()

    def to_wire(self) -> dict[str, Any]:
        wire = Event.to_wire(self)
        wire["options"] = dict(self.options)
        if not self.entropy:
            del wire["entropy"]
        return wire


@dataclass(frozen=True, slots=True)
class HandDealt(Event):
    """A deal: `hands[seat]` is that seat's cards, or None where hidden from the viewer."""

    kind: ClassVar[str] = "hand_dealt"
    deal_no: int
    dealer: int
    deal_kind: str
    hands: tuple[tuple[Card, ...] | None, ...]
    face_up: Card | None

    @property
    def public(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class HandStarted(Event):
    kind: ClassVar[str] = "hand_started"
    mano: int
    players: tuple[int, ...]
    duel: int


@dataclass(frozen=True, slots=True)
class Acted(Event):
    """A player's action; `value` is the envido value a DECLARE_ENVIDO makes public."""

    kind: ClassVar[str] = "acted"
    seat: int
    call: str
    card: Card | None = None
    value: int | None = None


@dataclass(frozen=True, slots=True)
class TrickEnded(Event):
    kind: ClassVar[str] = "trick_ended"
    number: int
    winner_team: int | None  # None: parda
    next_leader: int


@dataclass(frozen=True, slots=True)
class PointsScored(Event):
    kind: ClassVar[str] = "points_scored"
    team: int
    points: int
    reason: str
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PointsWithheld(Event):
    """Points a team won but may not collect (Venezuelan hidden flor, V-F3 void envite):
    `rule` names the rule of docs/RULES.md 4.9 that applied (V-F3, V-F9, V-F10, V-R5, ...)."""

    kind: ClassVar[str] = "points_withheld"
    team: int
    points: int
    reason: str
    rule: str


@dataclass(frozen=True, slots=True)
class FlorAnswered(Event):
    """The answer to "pido flor" (Venezuelan, 001 L48): whether the team that called the truco
    holds a flor (the engine says it truthfully; a flor still declarable is thereby declared)."""

    kind: ClassVar[str] = "flor_answered"
    team: int
    holds: bool


@dataclass(frozen=True, slots=True)
class CardsShown(Event):
    kind: ClassVar[str] = "cards_shown"
    seat: int
    cards: tuple[Card, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    kind: ClassVar[str] = "hand_ended"
    winner_team: int | None  # None when the game ended during the hand
    points: int
    reason: str
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    kind: ClassVar[str] = "game_ended"
    winner_team: int
    scores: tuple[int, ...]
    games_won: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    kind: ClassVar[str] = "match_ended"
    winner_team: int
    games_won: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeatCovered(Event):
    """The table's bot makes the next action for `seat`: its turn timer ran out
    (reason "time") or its player is away ("away"). Not a rule event: the server logs it
    just before that action's own events, so every viewer's log says who really chose the
    move, and `replay` passes over it."""

    kind: ClassVar[str] = "seat_covered"
    seat: int
    reason: str


EVENT_TYPES: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        MatchStarted, HandDealt, HandStarted, Acted, TrickEnded, PointsScored,
        PointsWithheld, FlorAnswered, CardsShown, HandEnded, GameEnded, MatchEnded,
        SeatCovered,
    )
}


def project_event(event: Event, seat: int | None) -> Event | None:
    """The event as `seat` (None: a spectator) may see it; None if nothing of it is visible."""
    if isinstance(event, HandDealt):
        # A blind hand (Brazilian double eleven) is hidden from its own holder too.
        blind = event.deal_kind == "blind"
        hands = tuple(h if i == seat and not blind else None for i, h in enumerate(event.hands))
        return HandDealt(event.deal_no, event.dealer, event.deal_kind, hands, event.face_up)
    if isinstance(event, Acted) and event.call == "discard" and event.seat != seat:
        return Acted(event.seat, event.call)  # the laid-away card stays face down
    return event


def _int(v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"expected an integer, got {v!r}")
    return v


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"expected a string, got {v!r}")
    return v


def _bool(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError(f"expected true or false, got {v!r}")
    return v


def _list(v: Any) -> list[Any]:
    if not isinstance(v, list):
        raise ValueError(f"expected a list, got {v!r}")
    return v


def _options(v: Any) -> tuple[tuple[str, bool | int | str], ...]:
    if not isinstance(v, dict):
        raise ValueError("options must be a map")
    out = []
    for key, value in v.items():
        if not isinstance(key, str) or not isinstance(value, (bool, int, str)):
            raise ValueError("bad option entry")
        out.append((key, value))
    return tuple(sorted(out))


Decoder = Callable[[Any, "str | None"], Any]


def _decoder(hint: Any) -> Decoder:
    """How a value of type `hint` decodes from the wire, read from the type itself (as
    protocol/schema.py does for messages). Each decoder takes (value, deck): the deck
    resolves card tokens both decks share ("7c")."""
    if hint is bool:
        return lambda v, deck: _bool(v)
    if hint is int:
        return lambda v, deck: _int(v)
    if hint is str:
        return lambda v, deck: _str(v)
    if hint is Card:
        return card_from_wire
    args = typing.get_args(hint)
    if isinstance(hint, types.UnionType) and type(None) in args:
        (inner,) = [a for a in args if a is not type(None)]
        decode = _decoder(inner)
        return lambda v, deck: None if v is None else decode(v, deck)
    if typing.get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = args[0]
        if typing.get_origin(item) is tuple and typing.get_args(item)[0] is str:
            return lambda v, deck: _options(v)  # (name, value) pairs travel as a map
        decode = _decoder(item)
        return lambda v, deck: tuple(decode(x, deck) for x in _list(v))
    raise TypeError(f"no wire decoder for {hint!r}")


def _field_decoders(cls: type[Event]) -> tuple[tuple[str, Decoder], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((f.name, _decoder(hints[f.name])) for f in fields(cls))


def _optional(cls: type[Event]) -> frozenset[str]:
    """The fields a wire dict may leave out (they have a default: ``MatchStarted.entropy``)."""
    return frozenset(f.name for f in fields(cls) if f.default is not MISSING)


def event_from_wire(d: object, deck: str | None = None) -> Event:
    """The Event of a wire dict. `deck` is the table's `rules.card_notation`; without it a
    French card that looks Spanish ("7c") is read as Spanish."""
    if not isinstance(d, dict):
        raise ValueError("an event must be a map")
    cls = EVENT_TYPES.get(d.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise ValueError(f"unknown event type {d.get('type')!r}")
    decoders, optional = _DECODERS[cls], _OPTIONAL[cls]
    known = sum(1 for name, _ in decoders if name in d)
    if len(d) != known + 1 or any(name not in d and name not in optional for name, _ in decoders):
        raise ValueError(f"event {cls.kind!r} needs exactly the fields {[n for n, _ in decoders]}")
    return cls(**{name: decode(d[name], deck) for name, decode in decoders if name in d})


_DECODERS = {cls: _field_decoders(cls) for cls in EVENT_TYPES.values()}
_OPTIONAL = {cls: _optional(cls) for cls in EVENT_TYPES.values()}
