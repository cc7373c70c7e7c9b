"""One Textual app per SSH session; it talks to the server only through protocol frames."""
from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import Protocol

from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual import events
from textual.app import App
from textual.notifications import SeverityLevel

import protocol as p
from protocol import deal_proof
from protocol import moderation as m
from tui.operator_line import Usage, operator_command
from tui.operator_report import report_lines
from tui.proof_text import proof_lines
from protocol.text import name_key, usable_name, valid_name
from tui.draw_now import draw_now, drawn_later
from tui.held_keys import HeldKeys
from tui.i18n import Translator, next_language
from tui.model import LobbyModel
from tui.screens.base import TrucoScreen
from tui.shared_filters import share_filters, unshare_filters
from tui.table_model import TableModel

log = logging.getLogger(__name__)
# Notices after which the server hangs up (a kick and a ban say the operator's words too)
SESSION_ENDING = ("shutdown", "replaced", "kicked", "banned")


SEALS_KEPT = 500  # matches whose commitment a session remembers

class FrameLink(Protocol):
    """The session's connection to the hub: encoded frames both ways."""

    def send(self, data: bytes) -> None: ...

    async def receive(self) -> bytes | None: ...

    def close(self) -> None: ...

    @property
    def queued(self) -> int: ...  # frames waiting that ``receive`` returns at once


class TrucoApp(App[str]):  # (exit result: the reason the session ends, if any)
    CSS_PATH = "truco.tcss"
    TITLE = "truco-ssh"
    ENABLE_COMMAND_PALETTE = False
    # Keys are listed by each screen's own key bar; nothing here may quit by surprise:
    # Ctrl+Q asks first (in the host's terminal it ends the table and the server).
    BINDINGS = [("ctrl+q", "quit", "")]
    draw_follows = False  # handling frames from the hub: draw_now draws after them

    def __init__(
        self, link: FrameLink, username: str, lang: str = "en", *, driver_class: type | None = None,
        local: bool = False,
    ) -> None:
        super().__init__(driver_class=driver_class)
        share_filters(self)
        # The host's own seat in its terminal (`truco-ssh host`): the name is already claimed
        # (the frames so far come through the link again) and Ctrl-C ends the table.
        self.local = local
        self.link = link
        self.frames = p.Decoder()  # this session's frames, each decoded knowing the last
        self.username = username
        self.farewell_detail = ""  # the words of the notice that ends the session, if any
        self.ignored: set[str] = set()  # name keys whose chat and señas are not shown (m.Listening)
        self.hear = m.HEAR_EVERYONE  # whose chat is shown (m.Listening)
        self.tr = Translator(lang)
        self.model = LobbyModel()
        self.tables: dict[str, TableModel] = {}
        # (table, match) -> the commitment this session was sent before the match's first
        # deal: what a proof asked for later must match (tui/proof_text.py)
        self.seals: dict[tuple[str, int], str] = {}
        self._shown: tuple[str, str] = ("", "")  # the notification on screen (notify_text)
        self._shown_until = 0.0
        self.animation_level = "none"  # slow links: nothing repaints by itself
        self.lite = False  # 16 colours or none, ASCII cards, no mouse (set by the session)
        # The host's terminal: its table's code -> the whole ssh lines that seat a friend
        # there, as `truco-ssh host` printed them (a session knows no address to give).
        self.join_commands: dict[str, tuple[str, ...]] = {}
        self.held_keys = HeldKeys(self)  # keys typed while the next screen is on its way

    # Textual switches its filter on and off (ANSI colour) or makes a new one (theme) in
    # place: here a shared one is put in its place instead (tui/shared_filters.py).
    def _watch_ansi_color(self, ansi_color: bool | None) -> None:
        unshare_filters(self)  # Textual switches the filter it finds: not the shared one
        super()._watch_ansi_color(ansi_color)
        share_filters(self)

    def _refresh_truecolor_filter(self, theme: TerminalTheme) -> None:
        super()._refresh_truecolor_filter(theme)
        share_filters(self)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded and self.held_keys.take(event):
            return  # (tui/held_keys.py)
        await super().on_event(event)

    # -- lifecycle ---------------------------------------------------------------
    def on_mount(self) -> None:
        self.set_class(self.lite, "-lite")  # ASCII borders (truco.tcss)
        self.run_worker(self._read_hub(), name="hub-reader", exclusive=False)
        if self.local:
            pass
        elif usable_name(self.username):
            self.send(p.ClaimName(name=self.username, lang=self.tr.lang))
        else:
            from tui.screens.choose_name import ChooseNameScreen

            # Too long, and nothing else wrong with it (else: a system account, or its characters).
            too_long = len(self.username) > p.NAME_MAX and valid_name(self.username[:p.NAME_MAX])
            self.push_screen(ChooseNameScreen(self.username, "too_long" if too_long else "", ""))

    async def _read_hub(self) -> None:
        while True:
            data = await self.link.receive()
            if data is None:
                self.exit(result="disconnected")
                return
            try:
                message: p.Message | None = self.frames.decode(data)
            except p.ProtocolError:
                log.exception("undecodable frame from the hub")
                message = None
            if message is not None:
                self.draw_follows = True  # (tui/draw_now.py: panels need not prompt the screen)
                try:
                    self.on_server_message(message)
                except Exception:  # a drawing bug must not end the player's session
                    log.exception("failed to show %s", message.TYPE)
                if isinstance(message, p.Notice) and message.code in SESSION_ENDING:
                    drawn_later(self)
                    return  # the reason is set; the hang-up that follows must not replace it
            if not self.link.queued:  # the last of the frames that came together
                draw_now(self)
                drawn_later(self)

    def send(self, command: p.Command) -> None:
        self.link.send(p.encode(command))

    def speak(self, text: str, chat: p.Command) -> None:
        """A chat line (``chat``: the lobby's or a table's), or a slash command: a report, an
        ignore, an operator's (tui/operator_line.py)."""
        try:
            command = operator_command(text)
        except Usage as usage:
            self.notify_text(self.tr("operator.usage", usage=str(usage)), severity="error", timeout=10)
            return
        self.send(command or chat)

    def _hidden(self, msg: p.Message) -> bool:
        """A chat line or a seña of someone this player ignores, or a chat line their chat
        setting leaves out (``m.Listening``): never shown. Their own lines always are."""
        if isinstance(msg, p.Chat):
            line = msg.line
            if line.system or line.sender == self.model.me:
                return False
            if name_key(line.sender) in self.ignored or self.hear == m.HEAR_NOBODY:
                return True
            return self.hear == m.HEAR_PARTNERS and not self._partner(line.table_id, line.sender)
        if isinstance(msg, p.SenaSeen) and msg.table_id in self.tables:
            return name_key(self.tables[msg.table_id].name(msg.seat)) in self.ignored
        return False

    def _partner(self, table_id: str | None, name: str) -> bool:
        """``name`` plays on this player's team at ``table_id``."""
        model = self.tables.get(table_id or "")
        if model is None or model.update is None or model.update.seat is None:
            return False
        mine = model.team_of(model.update.seat)
        return any(seat.name == name and model.team_of(n) == mine for n, seat in enumerate(model.update.seats))

    # -- events from the server ----------------------------------------------------
    def table_model(self, table_id: str) -> TableModel:
        model = self.tables.get(table_id)
        if model is None:
            model = self.tables[table_id] = TableModel(table_id)
        return model

    def on_server_message(self, msg: p.Message) -> None:
        filtering = bool(self.ignored) or self.hear != m.HEAR_EVERYONE
        if filtering and self._hidden(msg):
            return
        if isinstance(msg, p.LobbySnapshot) and filtering:
            msg = replace(msg, chat=tuple(line for line in msg.chat if not self._hidden(p.Chat(line=line))))
        if isinstance(msg, m.Listening):
            self.ignored = {name_key(name) for name in msg.ignored}
            self.hear = msg.hear if msg.hear in m.HEAR else m.HEAR_EVERYONE
            kept = [line for line in self.model.chat if not self._hidden(p.Chat(line=line))]
            self.model.chat.clear()  # (the lobby redraws its chat from it: LobbyScreen.server_changed)
            self.model.chat.extend(kept)
            said = self.tr("ignore.list", names=", ".join(msg.ignored)) if msg.ignored else self.tr("ignore.nobody")
            self.notify_text(f"{said}\n{self.tr(f'hear.{self.hear}')}", timeout=6)
        was_at = self.model.table_id
        self.model.apply(msg)
        if isinstance(msg, p.TableUpdate):
            self.table_model(msg.table_id).apply(msg)
        elif isinstance(msg, p.Chat) and msg.line.table_id is not None:
            self.table_model(msg.line.table_id).chat.append(msg.line)
        elif isinstance(msg, p.SenaSeen):
            self.table_model(msg.table_id).senas.append(msg)
        elif isinstance(msg, p.DealSeal):
            self.table_model(msg.table_id).seal = msg
            if len(self.seals) < SEALS_KEPT:  # the first one seen is the one that counts
                self.seals.setdefault((msg.table_id, msg.match_no), msg.commitment)
        elif isinstance(msg, p.Seated):
            self._follow_seat(was_at, msg.table_id)
        if isinstance(msg, p.Welcome):
            self._enter_lobby()
        elif isinstance(msg, p.NameRefused):
            from tui.screens.choose_name import ChooseNameScreen

            if isinstance(self.screen, ChooseNameScreen):
                self.screen.refused(msg)
            else:
                self.push_screen(ChooseNameScreen(msg.name, msg.reason, msg.suggestion))
        elif isinstance(msg, p.Error):
            self.held_keys.release()  # (a refused leave: no lobby is coming for them)
            self.notify_text(self._error_text(msg), severity="error")
        elif isinstance(msg, m.Done):  # an operator's command was carried out
            self.notify_text(msg.text, timeout=10)
        elif isinstance(msg, p.DealsProof):  # asked for in My games: checked here, shown whole
            self._show_proof(msg)
        elif isinstance(msg, (m.OnlineReport, m.RestrictionsReport, m.LogReport, m.ReportsReport, m.OperatorsReport)):
            from tui.screens.help import HelpScreen
            from tui.screens.operators import OperatorScreen

            # (on the operators' screen, its lists show them; the operators, in a dialog anywhere)
            if not isinstance(self.screen, OperatorScreen) or isinstance(msg, m.OperatorsReport):
                self.push_screen(HelpScreen("\n".join(report_lines(msg, self.tr, whole_keys=False)),
                                            self.tr("operator.title")))
        elif isinstance(msg, p.Notice):
            if msg.code in SESSION_ENDING:
                self.farewell(msg.code, msg.text)
            elif msg.code == "operators":  # an operator's words to everyone: shown as written
                self.notify_text(self.tr("notice.operators", text=msg.text), severity="warning", timeout=20)
            elif msg.code == "left_rated":  # "<wait now> <wait after another>", in minutes
                wait, after = (int(n) if n.isdigit() else 0 for n in (msg.text.split() + ["0", "0"])[:2])
                said = (self.tr("notice.left_rated", wait=wait, next=after) if wait
                        else self.tr("notice.left_rated_first", next=after))
                self.notify_text(said, severity="warning", timeout=20)
            elif msg.code == "muted":  # with the operator's reason, as they wrote it
                said = self.tr("notice.muted") + (f" ({msg.text})" if msg.text else "")
                self.notify_text(said, severity="warning", timeout=20)
            else:  # (with an operator's reason, as they wrote it, if any)
                said = self.tr(f"notice.{msg.code}") + (f" ({msg.text})" if msg.text else "")
                self.notify_text(said, severity="warning", timeout=10)
        # Every screen that shows server data redraws the parts this event touched
        # (a table under a help dialog keeps its log; the lobby defers while hidden).
        # A direct call, not a posted Message: draw_now (tui/draw_now.py) draws right after this batch.
        for screen in list(self.screen_stack):
            if isinstance(screen, TrucoScreen):
                screen.server_changed(msg)

    def _show_proof(self, proof: p.DealsProof) -> None:
        from tui.screens.help import HelpScreen

        seen = self.seals.get((proof.table_id, proof.match_no))
        verdict = deal_proof.check(proof, seen_commitment=seen or "")
        self.push_screen(HelpScreen("\n".join(proof_lines(self.tr, proof, verdict, seen)), self.tr("proof.title")))

    def _follow_seat(self, was_at: str | None, table_id: str | None) -> None:
        """Sitting down or watching opens the table; leaving it returns to the lobby."""
        from tui.screens.lobby import LobbyScreen
        from tui.screens.table import TableScreen

        if was_at is not None and was_at != table_id:
            self.tables.pop(was_at, None)
            while not isinstance(self.screen, LobbyScreen) and len(self.screen_stack) > 1:
                self.pop_screen()
            if table_id is None:
                self.held_keys.release()  # typed since the leave was confirmed: the lobby's
        if table_id is not None and not (isinstance(self.screen, TableScreen) and self.screen.table_id == table_id):
            while not isinstance(self.screen, LobbyScreen) and len(self.screen_stack) > 1:
                self.pop_screen()
            self.push_screen(TableScreen(table_id))

    def farewell(self, code: str, detail: str = "") -> None:
        """The session ends (``notice.<code>`` says why, ``detail`` in the server's or an
        operator's words): say it on the screen, for a moment, then exit (the session then
        prints the same reason on the terminal the player returns to)."""
        from tui.screens.farewell import SHOWN_FOR, FarewellScreen

        self.farewell_detail = detail
        self.clear_notifications()
        reason = self.tr(f"notice.{code}") + (f"\n{detail}" if detail else "")
        self.push_screen(FarewellScreen(reason, self.tr("notice.closing")))
        self.set_timer(SHOWN_FOR, lambda: self.exit(result=code))

    def _enter_lobby(self) -> None:
        from tui.screens.lobby import LobbyScreen

        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(LobbyScreen())

    def _error_text(self, msg: p.Error) -> str:
        """An error in the player's language: a refused action says the engine's reason."""
        if msg.code == "illegal" and msg.reason:
            from tui.refusals import refusal_text

            model = self.tables.get(self.model.table_id or "")
            return refusal_text(self.tr, msg.reason, model)
        if msg.code == "leaver_wait" and msg.reason.isdigit():
            return self.tr("error.leaver_wait", minutes=int(msg.reason))
        if msg.code == "muted" and msg.reason.isdigit():  # until when (0: for good)
            until = int(msg.reason)
            if not until:
                return self.tr("error.muted_for_good")
            shape = "%H:%M UTC" if until - time.time() < 20 * 3600 else "%Y-%m-%d %H:%M UTC"
            return self.tr("error.muted_until", when=time.strftime(shape, time.gmtime(until)))
        key = f"error.{msg.code}"
        return str(self.tr(key)) if self.tr.has(key) or self.tr.has_default(key) else msg.message

    # -- helpers for screens ---------------------------------------------------------
    def notify_text(self, text: str, *, severity: SeverityLevel = "information", timeout: float = 4) -> None:
        """A notification whose text is never parsed as markup; it replaces the previous one.
        The same words again while they are still shown change nothing: each toast is a few
        widgets made and dropped, and a session refused over and over (a flood's "too fast")
        left so many behind that the collector's full passes held every player for 0.1-0.3 s."""
        now = time.monotonic()
        if self._shown == (text, severity) and now < self._shown_until:
            return
        self._shown, self._shown_until = (text, severity), now + timeout / 2
        self.clear_notifications()
        self.notify(text, severity=severity, timeout=timeout, markup=False)

    def switch_language(self) -> None:
        self.tr = Translator(next_language(self.tr.lang))
        if isinstance(self.screen, TrucoScreen):
            self.screen.relabel()
        self.notify_text(self.tr("lobby.language_set"))

    def action_help_quit(self) -> None:
        """Ctrl+C: Textual's own "Press ctrl+q to quit" notice, in the player's language;
        in the host's own terminal it ends the table, as in any command, once confirmed."""
        if self.local:
            self.ask_to_quit(again="ctrl+c")
            return
        self.notify_text(self.tr("help.ctrl_c"), severity="warning")

    async def action_quit(self) -> None:
        """Ctrl+Q: asked first, as the lobby's q."""
        self.ask_to_quit(again="ctrl+q")

    def ask_to_quit(self, again: str = "") -> None:
        """Quit once the player says yes; ``again`` (the key that asked) pressed once more
        says yes too. In the host's terminal quitting ends the table and the server for
        everyone, and the question says so."""
        from tui.screens.confirm import ConfirmScreen

        if isinstance(self.screen, ConfirmScreen) and self.screen.id == "ask-quit":
            self.screen.dismiss(True)  # asked again (Ctrl+Q twice)
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        question = self.tr("quit.confirm_host" if self.local else "quit.confirm")
        screen = ConfirmScreen(question, again)
        screen.id = "ask-quit"
        self.push_screen(screen, answered)

    def toggle_lite(self) -> None:
        """Lite mode on/off for this session; the session changes colours and mouse."""
        self.lite = not self.lite
        self.set_class(self.lite, "-lite")
        link = getattr(self, "terminal_link", None)
        if link is not None:
            link.set_lite(self.lite)
        self.refresh(repaint=True, layout=True)
        self.screen.refresh(repaint=True, layout=True)
        self.notify_text(self.tr("lobby.lite_on" if self.lite else "lobby.lite_off"))

    def plain(self, text: str, style: str = "") -> Text:
        return Text(text, style=style, no_wrap=True, overflow="ellipsis")
