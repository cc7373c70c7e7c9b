"""Cards as players see them: rank and suit, told apart with and without colour.

Cards travel in the engine's text notation ("1e", "12c"; "Ac", "7h" on the French
deck). Suits get a letter (always) and a colour (when the terminal has colour), so
they are distinguishable on monochrome and plain-ASCII terminals alike.
"""
from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from protocol import TableView

SPANISH_SUITS = {"e": ("E", "blue"), "b": ("B", "green"), "o": ("O", "yellow"), "c": ("C", "red")}
FRENCH_SUITS = {"c": ("♣", "green"), "h": ("♥", "red"), "s": ("♠", "blue"), "d": ("♦", "yellow")}
FRENCH_ASCII = {"c": "C", "h": "H", "s": "S", "d": "D"}
FRENCH_RANKS = set("AKQJ")
# Special cards of a face-up game (piezas, manilhas, perico and perica) carry a star; the
# perico, the strongest card of its game, two. Plain ASCII has the same marks in asterisks.
MARKS = {"pieza": "★", "manilha": "★", "perico": "★★", "perica": "★"}


def mark_text(role: str | None, ascii_only: bool = False) -> str:
    """The marker of a special card's role ("" for an ordinary card)."""
    mark = MARKS.get(role or "", "")
    return mark.replace("★", "*") if ascii_only else mark


def card_roles(view: TableView) -> dict[str, str]:
    """card -> role for the special cards of this hand, from the view's ``card_marks``."""
    return {mark.card: mark.role for mark in view.card_marks if mark.card and mark.role}


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


def card_text(card: str, *, french: bool | None = None, ascii_only: bool = False,
              role: str | None = None) -> Text:
    """A card inline, e.g. ``7E`` (``7♥`` on the French deck); a special card (``role``)
    gets its star, ``11E★★``."""
    face = card_face(card, french=french, ascii_only=ascii_only)
    text = Text(f"{face.rank}{face.suit_mark}", style=f"bold {face.color}")
    if role:
        text.append(mark_text(role, ascii_only), style="bold magenta")
    return text


CARD_SIZES = {"small": 8, "normal": 8, "large": 12}  # each size's width with the gap after it


def card_box(card: str | None, label: str, *, french: bool | None = None, ascii_only: bool = False,
             selected: bool = False, role: str | None = None, size: str = "normal") -> list[Text]:
    """A card drawn in 4 lines of 7 columns, with its key label under it; a special card
    (``role``) has its star in the top border: ``╭★★───╮``. ``size`` "small" (a short
    terminal) is 3 lines, the label in the bottom border; "large" (a big one) 7 lines of 11
    with the suit in the middle, and the label under it."""
    inner = 9 if size == "large" else 5
    if ascii_only:
        top, side, bottom = "+" + "-" * inner + "+", "|", "+" + "-" * inner + "+"
    else:
        top, side, bottom = "╭" + "─" * inner + "╮", "│", "╰" + "─" * inner + "╯"
    label_style = "reverse bold" if selected else "bold"
    top_line = Text(top)
    mark = mark_text(role, ascii_only)
    if mark:
        top_line = Text(top[0])
        top_line.append(mark, style="bold magenta")
        top_line.append(top[1:][len(mark):])

    def row(content: str = "", style: str = "") -> Text:
        line = Text(side)
        line.append(f"{content:<{inner}}", style=style)
        line.append(side)
        return line

    if card is None:
        face_rows = [row() for _ in range({"small": 1, "large": 5}.get(size, 2))]
    else:
        face = card_face(card, french=french, ascii_only=ascii_only)
        style = f"bold {face.color}"
        first = row(f"{face.rank:<2}{face.suit_mark:>{inner - 2}}", style)
        second = row(f"{face.suit_mark:<{inner - 2}}{face.rank:>2}", style)
        if size == "small":
            face_rows = [first]
        elif size == "large":
            face_rows = [first, row(), row(f"{face.suit_mark:^{inner}}", style), row(), second]
        else:
            face_rows = [first, second]
    if size == "small":  # the key in the bottom border: "╰──1──╯"
        last = Text(bottom[0] + bottom[1] * 2)
        last.append(f"{label:^{inner - 4}}", style=label_style)
        last.append(bottom[1] * 2 + bottom[-1])
        return [top_line, *face_rows, last]
    return [top_line, *face_rows, Text(bottom), Text(f"{label:^{inner + 2}}", style=label_style)]
