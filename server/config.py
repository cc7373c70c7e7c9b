"""Everything an operator can tune, with the defaults docs/OPERATING.md documents."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


NEW_PLAYER_MINUTES = 10.0  # `truco-ssh serve`'s default


@dataclass(frozen=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = 2222
    data_dir: Path = Path("data")
    host_key: Path = Path("hostkeys/ssh_host_ed25519_key")
    # Connection limits
    max_connections_per_ip: int = 8
    max_sessions: int = 500
    max_unauthenticated: int = 64
    connections_per_minute_per_ip: float = 20.0  # new connections, with bursts of the same size
    login_timeout: float = 15.0
    keepalive_interval: float = 30.0
    keepalive_count_max: int = 3
    compression: bool = True  # zlib to clients that can inflate it (bounded the other way)
    lite: bool = False  # sessions start in lite mode: 16 colours, ASCII cards, no mouse
    mdns: bool = True  # advertise on the LAN (DNS-SD), unless bound to the loopback
    mdns_name: str = ""  # the advertised name ("" : truco-ssh on <hostname>)
    # Session limits
    chat_per_second: float = 1.0
    chat_burst: int = 5
    # Every connection from one address together (a household behind one router still chats
    # freely; eight flooding connections say no more than two)
    chat_per_address_per_second: float = 2.0
    chat_address_burst: int = 8
    chat_max_len: int = 200
    # Slow chat for new names (spam from throwaway names): for a guest's first minutes online
    # and a key's first minutes after it first claimed a name (0: none), a chat line (lobby
    # or table) every so many seconds, a few at once. `truco-ssh serve` has it on
    # (NEW_PLAYER_MINUTES); a server built in code, as the tests build theirs, has it off.
    new_player_minutes: float = 0.0
    new_player_chat_every: float = 5.0
    new_player_chat_burst: int = 3
    commands_per_second: float = 20.0
    commands_burst: int = 40
    min_cols: int = 20
    max_cols: int = 300
    min_rows: int = 10
    max_rows: int = 100
    output_high_water: int = 256 * 1024  # unsent bytes before frames are dropped
    output_limit: int = 1024 * 1024  # unsent bytes at which a client that stopped reading is dropped
    stalled_reader_timeout: float = 120.0  # seconds a paused (not reading) client may stay
    input_bytes_per_second: float = 4096.0  # typing and pasting; more is dropped
    input_burst: int = 32 * 1024
    # Server CPU a session's input may cost (keys, pastes, resizes; server/session/input_gate.py):
    # seconds per second, at most input_cpu_burst saved up; past it input is paused, then dropped.
    input_cpu_per_second: float = 0.08
    # What all the sessions from one address may spend together (a household behind one
    # NAT types far less; eight flooding connections from one address had 8 % each).
    input_cpu_per_address_per_second: float = 0.08  # what one session may: more connections buy nothing
    input_cpu_burst: float = 1.5
    # However much is saved up, one address's input takes at most this share of the event
    # loop (seconds per second, input_cpu_peak_burst at once): eight connections spending
    # their burst at full speed held everyone else's moves 0.6-0.9 s.
    input_cpu_peak_per_second: float = 0.25
    input_cpu_peak_burst: float = 0.05
    input_window: int = 64 * 1024  # SSH channel window: what a paused client may still send
    max_env_vars: int = 32  # environment variables a client may send
    lobby_idle_timeout: float = 1800.0  # seconds without a key press in the lobby
    # Table pace
    bot_delay: float = 0.9  # seconds a bot takes to move
    hand_pause: float = 3.0  # seconds between the end of a hand and the next deal
    # Persistence and reconnecting
    seat_hold: float = 300.0  # seconds a dropped player's seat is held for them
    away_grace: float = 15.0  # seconds the table waits on an away player before a bot covers
    demo_bot_tables: int = 0  # bot-only tables that play on for ever (operators, tests)
    quick_fill_wait: float = 20.0  # seconds a quick-play table waits for people before bots sit
    log_digests: bool = False  # log a digest of each restored table's state (tests compare it)
    metrics: str = ""  # ADDR:PORT of /metrics for Prometheus ("": none; server/ops/metrics.py)
    # Operators' keys besides those in DATA_DIR/operators: fingerprints, public keys or their
    # files (server/moderation/operators.py)
    operator_keys: tuple[str, ...] = ()
    bus_port: int = 0  # the port of the nats-server `--workers` starts on 127.0.0.1 (0: a free one)

    def clamp_size(self, cols: int, rows: int) -> tuple[int, int]:
        """A terminal size any client may claim, brought into the supported range."""
        cols = cols or 80
        rows = rows or 24
        return (
            max(self.min_cols, min(self.max_cols, cols)),
            max(self.min_rows, min(self.max_rows, rows)),
        )
