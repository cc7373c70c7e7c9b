"""The seats (one row per seat) and the tricks beside them, in line with the seat rows."""
from __future__ import annotations

from typing import NamedTuple

from rich.text import Text

import protocol as p
from tui.cards import card_roles, card_text
from tui.event_text import said_in_hand, team_name
from tui.table_model import TableModel
from tui.widgets.panels import DrawnPanel
from tui.widgets.shared_rows import SharedLRU
from tui.widgets.table.levels import BOT_LEVEL_KEYS
from tui.widgets.table.part import TablePart, drawn_from, french

TRICK_COLUMN = 5  # the narrowest trick column: a card ("10E") and room for a mark
_HEADER = Text(no_wrap=True, overflow="ellipsis")  # the empty row above the seats (never changed)
# Seat rows by what they show, shared by the sessions of the process (the players of a table
# draw the same rows, and a move changes one or two of them). Not to be changed once kept.
SEAT_ROWS: SharedLRU[tuple[object, ...], Text] = SharedLRU(4_000)
TRICK_ROWS: SharedLRU[tuple[object, ...], Text] = SharedLRU(4_000)  # likewise, a seat's row of the tricks


class _Columns(NamedTuple):
    """What every seat's row of one update is drawn with (worked out once per update)."""

    names: list[str]  # the seats' names ("ana *": the viewer's own)
    name_width: int
    teams: list[str]  # the seats' team names (none at a table of two or three)
    team_width: int
    team_of: list[int | None]
    my_team: int | None
    lite: bool
    lang: str


class SeatsPanel(DrawnPanel, TablePart):
    """``#t-seats``: who sits where, whose turn it is, and what each seat last said."""

    def update_from(self, model: TableModel) -> None:
        """One row per seat under a header row (the tricks beside are in line with it):
        names and team names whole; what the seat last said gets the rest of the row.
        When that is too short the row drops its extras (cards left in hand, the bot
        mark) before a call ends in an ellipsis."""
        update = model.update
        assert update is not None
        tr = self.tr
        said = self._last_said(model)
        width = self._inner_size().width or 44
        seats = range(len(update.seats))
        me = model.seat
        names = [s.name + (" *" if i == me else "") for i, s in enumerate(update.seats)]
        name_width = max(len(n) for n in names)
        # Two players: each seat is its own side, the score line names them. Three (the
        # Uruguayan mano alone against the other two): the sides change every hand, so each
        # row says whose side it is in this one, as with four or six.
        team_of = [model.team_of(i) for i in seats]
        sides = len(seats) > 3 or (len(seats) == 3 and len(set(team_of)) == 2)
        names_of_teams = {team: team_name(tr, model, team) for team in set(team_of)} if sides else {}
        teams = [names_of_teams[team] for team in team_of] if names_of_teams else []
        team_width = max(len(t) for t in teams) if teams else 0
        columns = _Columns(names, name_width, teams, team_width, team_of,
                           None if me is None else team_of[me] if me < len(team_of) else None,
                           self.lite, tr.lang)
        for extras in (True, False):
            rows = [self._seat_row(model, seat, extras, columns) for seat in seats]
            if all(row.cell_len + 1 + len(said[seat]) <= width for seat, row in enumerate(rows) if seat in said):
                break
        for seat in said:
            rows[seat] = _with_bubble(rows[seat], said[seat], width)
        self.show_lines([_HEADER, *rows])  # (a header row first)

    def show_waiting(self, info: p.TableInfo | None) -> int:
        """The waiting room's seats (free ones dimmed); returns how many are free."""
        seats = Text()
        free = 0
        if info is not None:
            for i, name in enumerate(info.seats):
                if name is None:
                    free += 1
                seats.append(f" {i + 1}. ")
                seats.append(name or self.tr("table.free_seat"), style="" if name else "dim italic")
                if info.bots and i < len(info.bots) and info.bots[i]:
                    level = info.bot_levels[i] if i < len(info.bot_levels) else ""
                    seats.append(f" ({self._bot_mark(level)})", style="dim")
                if len(info.seats) >= 4:  # partners sit on alternate seats
                    seats.append(f"  {self.tr('table.team_n', n=i % 2 + 1)}", style="dim")
                seats.append("\n")
        self.show(seats)
        return free

    def show_restoring(self, info: p.TableInfo) -> None:
        """A table being restored after a restart: just who sits there."""
        seats = Text()
        for i, name in enumerate(info.seats):
            seats.append(f" {i + 1}. ")
            seats.append(name or "")  # Text: a name is never markup
            seats.append("\n")
        self.show(seats)

    def _seat_row(self, model: TableModel, seat: int, extras: bool, columns: _Columns) -> Text:
        """A row is kept for what it shows (``SEAT_ROWS``): a move changes one or two seats'
        rows (the turn mark, the cards left), and every seat built every row again on every
        action."""
        view = model.view
        update = model.update
        assert update is not None
        info = update.seats[seat]
        names, name_width, teams, team_width, team_of, my_team, lite, lang = columns
        team = team_of[seat]
        mine = team is not None and team == my_team
        hand_sizes = view.hand_sizes
        size = (hand_sizes[seat] if seat < len(hand_sizes) else 0) if extras else -1
        # Between hands the engine already names the next dealer while the mano is still the
        # last hand's: together they read "DM" on one seat, so no roles until the next deal.
        between_hands = view.phase == "deal"
        role = ("D" if view.dealer == seat and not between_hands else " ") + (
            "M" if view.mano == seat and not between_hands else " ")
        key = (seat in update.waiting, names[seat], name_width, teams[seat] if team_width else "", team_width,
               mine, size, role, info.bot, info.level, info.away, lite, lang)

        def make() -> Text:
            row = Text(no_wrap=True, overflow="ellipsis")
            row.append(("> " if lite else "▶ ") if key[0] else "  ", style="bold yellow")
            row.append(f"{names[seat]:<{name_width}}", style="bold green" if mine else "bold")
            if team_width:
                row.append(f" {teams[seat]:<{team_width}}", style="green" if mine else "")
            if extras:
                row.append(" " + (("#" if lite else "■") * size).ljust(3), style="cyan")
            row.append(" " + role, style="dim")
            if info.bot and extras:
                row.append(" " + self._bot_mark(info.level), style="dim")
            elif info.away:
                row.append(" " + self.tr("table.away"), style="red")
            return row

        return SEAT_ROWS.get_or_make(key, make)

    def _bot_mark(self, level: str) -> str:
        """"bot", with the bot's level when the server sent a known one."""
        key = BOT_LEVEL_KEYS.get(level)
        return self.tr("table.bot_with_level", level=self.tr(key)) if key else "bot"

    def _last_said(self, model: TableModel) -> dict[int, str]:
        return said_in_hand(self.tr, model, model.last_hand_events)


class TricksPanel(DrawnPanel, TablePart):
    """``#t-tricks``: the cards of each trick in a column, one row per seat."""

    @drawn_from(lambda part, model: (
        model.view.tricks, model.view.current_trick, model.view.trick_results, model.view.trick_winners,
        model.view.card_marks, model.view.teams, model.view.french, model.seat,
        model.update.seats if model.update is not None else None))
    def update_from(self, model: TableModel) -> None:
        """A trick is won by a player: that card is drawn reversed, and the header names
        the player when the column is wide enough for the whole name."""
        view = model.view
        update = model.update
        assert update is not None
        tricks = [list(t) for t in view.tricks]
        current = view.current_trick
        if current:
            tricks.append(list(current))
        columns = max(3, len(tricks))
        is_french = french(model)
        roles = card_roles(view)  # the special cards of this hand get their star
        results = view.trick_results
        # The engine names the seat that took each trick (None for a parda).
        winners = {i: s for i, s in enumerate(view.trick_winners) if s is not None}
        column = max(TRICK_COLUMN, ((self._inner_size().width or 3 * TRICK_COLUMN) + 1) // columns - 1)
        out = Text(no_wrap=True, overflow="ellipsis")
        numbers = [self.tr(f"table.trick_{i + 1}") for i in range(columns)]
        takers = [self._result_text(model, team, winners.get(i)) for i, team in enumerate(results)]
        # One rule for the whole row: "1ª Hugo" beside a bare "Paula" read as two names.
        numbered = all(len(numbers[i]) + 1 + len(t) <= column for i, t in enumerate(takers))
        for i in range(columns):
            head = numbers[i]
            style = "dim"
            if i < len(takers):
                style = "bold cyan"
                head = trick_head(head, takers[i], column, numbered)
            out.append(f"{head:<{column}} ", style=style)
        lines = [out]
        lite = self.lite
        for seat in range(len(update.seats)):
            cells = []
            for number, trick in enumerate(tricks):
                card = next((c for s, c in trick if s == seat), None)
                cells.append((card, card is not None and winners.get(number) == seat, roles.get(str(card))))
            lines.append(_trick_row(tuple(cells), column, is_french, lite))
        self.show_lines(lines)

    def _result_text(self, model: TableModel, team: int | None, seat: int | None = None) -> str:
        """A trick is taken by a player: his name (the team only for a parda)."""
        return model.name(seat) if seat is not None else team_name(self.tr, model, team)


def _with_bubble(row: Text, said: str, width: int) -> Text:
    """A seat's row with what the seat last said after it, cut to the panel's width (a new
    text: the row itself is kept for later draws)."""
    out = row.copy()
    bubble = Text(said, style="italic yellow")
    bubble.truncate(max(1, width - row.cell_len - 1), overflow="ellipsis")
    out.append(" ")
    out.append_text(bubble)
    return out


def trick_head(number: str, taker: str, column: int, numbered: bool = True) -> str:
    """A decided trick's header names who took it: with its number where both fit (and the
    row is ``numbered``), else the name alone (the columns run in order). A name is never
    cut: past the column the number stays, and the taker's card, drawn reversed in his row,
    says who it is."""
    if numbered and len(number) + 1 + len(taker) <= column:
        return f"{number} {taker}"
    return taker if len(taker) <= column else number


def _trick_row(cells: tuple[tuple[str | None, bool, str | None], ...], column: int, is_french: bool,
               lite: bool) -> Text:
    """A seat's row of the tricks: its card in each (taken: reversed; special: starred), each
    in a column. Kept once per process for what it shows (``TRICK_ROWS``): the players of a
    table draw the same rows, and a card played changes one."""
    def make() -> Text:
        out = Text(no_wrap=True, overflow="ellipsis")
        for card, taken, role in cells:
            cell = _card_cell(card, is_french, lite, role)
            if taken:
                cell.stylize("reverse")
            cell.truncate(column, pad=True)
            out.append_text(cell)
            out.append(" ")
        return out

    return TRICK_ROWS.get_or_make((cells, column, is_french, lite), make)


def _card_cell(card: str | None, is_french: bool, ascii_only: bool = False, role: str | None = None) -> Text:
    if card is None:
        return Text("")
    return card_text(card, french=is_french, ascii_only=ascii_only, role=role)
