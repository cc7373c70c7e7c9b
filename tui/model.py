"""The lobby as a session knows it: built only from protocol events."""
from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field

import protocol as p


@dataclass
class LobbyModel:
    me: str = ""
    guest: bool = True
    operator: bool = False  # my key is an operator's: the lobby offers the operators' screen
    variants: dict[str, p.VariantInfo] = field(default_factory=dict)
    players: dict[str, p.PlayerInfo] = field(default_factory=dict)
    tables: dict[str, p.TableInfo] = field(default_factory=dict)
    chat: deque[p.ChatLine] = field(default_factory=lambda: deque(maxlen=200))
    table_id: str | None = None  # where I sit or watch
    seat: int | None = None
    codes: dict[str, str] = field(default_factory=dict)  # private tables I created or sit at
    chat_max: int = p.CHAT_MAX
    rating: p.RatingLine | None = None  # my most played rating (key holders)
    last_variant: str = ""  # the game of the last table I sat at (quick play's choice)
    last_players: int = 0  # and its size
    quick_choice: tuple[str, int] | None = None  # the game and size last asked of quick play
    played_most: tuple[str, int] | None = None  # (game, size) of most of my last matches (key holders)

    def apply(self, msg: p.Message) -> None:
        """Fold one event into the model (events not about the lobby are ignored)."""
        if isinstance(msg, p.Welcome):
            self.me, self.guest, self.chat_max, self.operator = msg.name, msg.guest, msg.chat_max, msg.operator
            self.variants = {v.name: v for v in msg.variants}
        elif isinstance(msg, p.LobbySnapshot):
            self.players = {pl.name: pl for pl in msg.players}
            self.tables = {t.table_id: t for t in msg.tables}
            self.chat.clear()
            self.chat.extend(msg.chat)
        elif isinstance(msg, p.PlayerUpdated):
            self.players[msg.player.name] = msg.player
        elif isinstance(msg, p.PlayerLeft):
            self.players.pop(msg.name, None)
        elif isinstance(msg, p.TableUpdated):
            self.tables[msg.table.table_id] = msg.table
        elif isinstance(msg, p.TableRemoved):
            self.tables.pop(msg.table_id, None)
            self.codes.pop(msg.table_id, None)
        elif isinstance(msg, p.TableCreated):
            if msg.code:
                self.codes[msg.table_id] = msg.code
        elif isinstance(msg, p.Seated):
            self.table_id, self.seat = msg.table_id, msg.seat
            if msg.table_id in self.tables and msg.seat is not None:
                self.last_variant = self.tables[msg.table_id].variant
                self.last_players = len(self.tables[msg.table_id].seats)
            if msg.table_id is not None and msg.code:  # a private table: whoever sits can pass it on
                self.codes[msg.table_id] = msg.code
        elif isinstance(msg, p.Chat):
            self.chat.append(msg.line)
        elif isinstance(msg, p.StatsReport):
            self.rating = msg.ratings[0] if msg.ratings else None
            # recent is newest first, and most_common keeps that order on a tie: the latest wins
            counted = Counter((m.variant, m.players) for m in msg.recent).most_common(1)
            self.played_most = counted[0][0] if counted else None

    def board_choice(self) -> tuple[str, int] | None:
        """The leaderboard ``t`` opens on: the game and size of most of my last matches, else
        of my most played rating, else of the last table I sat at in this session."""
        if self.played_most is not None:
            return self.played_most
        if self.rating is not None:
            return self.rating.variant, self.rating.players
        return (self.last_variant, self.last_players) if self.last_variant else None

    def usual_game(self, lang: str) -> tuple[str, int]:
        """The game and size quick play and the new-table form open on: my last quick-play
        choice, else the last table I sat at, else the game of my language (the Brazilian
        one in Portuguese, the Argentine one otherwise) for two."""
        if self.quick_choice is not None:
            return self.quick_choice
        if self.last_variant:
            return self.last_variant, self.last_players
        return ("paulista" if lang == "pt" else "argentino"), 2

    @property
    def my_table(self) -> p.TableInfo | None:
        return self.tables.get(self.table_id or "")

    def sorted_players(self) -> list[p.PlayerInfo]:
        return sorted(self.players.values(), key=lambda pl: (pl.name != self.me, pl.name.casefold()))

    def sorted_tables(self) -> list[p.TableInfo]:
        return sorted(
            self.tables.values(),
            key=lambda t: (t.table_id != self.table_id, t.status != "waiting", t.title.casefold()),
        )
