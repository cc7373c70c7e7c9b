"""Cards as players see them: rank and suit, told apart with and without colour.

Cards travel in the engine's text notation ("1e", "12c"; "Ac", "7h" on the French
deck). Suits get a letter (always) and a colour (when the terminal has colour), so
they are distinguishable on monochrome and plain-ASCII terminals alike.
"""
from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

SPANISH_SUITS = {"e": ("E", "blue"), "b": ("B", "green"), "o": ("O", "yellow"), "c": ("C", "red")}
FRENCH_SUITS = {"c": ("♣", "green"), "h": ("♥", "red"), "s": ("♠", "blue"), "d": ("♦", "yellow")}
FRENCH_ASCII = {"c": "C", "h": "H", "s": "S", "d": "D"}
FRENCH_RANKS = set("AKQJ")


@dataclass(frozen=True)
class CardFace:
    rank: str
    suit_mark: str
    color: str


def is_french(card: str) -> bool:
    return card[:-1] in FRENCH_RANKS or (card[-1] in "hsd")


def card_face(card: str, *, french: bool | None = None, ascii_only: bool = False) -> CardFace:
    """How one card looks; ``french`` comes from the table's deck (guessed if None)."""
    rank, suit = card[:-1], card[-1]
    if french is None:
        french = is_french(card)
    if french:
        mark, color = FRENCH_SUITS.get(suit, ("?", "white"))
        if ascii_only:
            mark = FRENCH_ASCII.get(suit, "?")
    else:
        mark, color = SPANISH_SUITS.get(suit, ("?", "white"))
    return CardFace(rank, mark, color)


def card_text(card: str, *, french: bool | None = None, ascii_only: bool = False) -> Text:
    """A card inline, e.g. ``7E`` (``7♥`` on the French deck)."""
    face = card_face(card, french=french, ascii_only=ascii_only)
    return Text(f"{face.rank}{face.suit_mark}", style=f"bold {face.color}")


def card_box(card: str | None, label: str, *, french: bool | None = None, ascii_only: bool = False,
             selected: bool = False) -> list[Text]:
    """A card drawn in 4 lines of 7 columns, with its key label under it."""
    if ascii_only:
        top, mid_l, mid_r, bottom = "+-----+", "|", "|", "+-----+"
    else:
        top, mid_l, mid_r, bottom = "╭─────╮", "│", "│", "╰─────╯"
    if card is None:
        lines = [Text(top), Text(f"{mid_l}     {mid_r}"), Text(f"{mid_l}     {mid_r}"), Text(bottom)]
    else:
        face = card_face(card, french=french, ascii_only=ascii_only)
        style = f"bold {face.color}"
        first = Text(mid_l)
        first.append(f"{face.rank:<2}{face.suit_mark:>3}", style=style)
        first.append(mid_r)
        second = Text(mid_l)
        second.append(f"{face.suit_mark:<3}{face.rank:>2}", style=style)
        second.append(mid_r)
        lines = [Text(top), first, second, Text(bottom)]
    lines.append(Text(f"{label:^7}", style="reverse bold" if selected else "bold"))
    return lines
