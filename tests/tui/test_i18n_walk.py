"""A walk of every screen in Spanish and Portuguese, as a player would go through them:
nothing English may be on any of them.

The detector looks for the English of en.json wherever a language says something else: whole
phrases of it (a fragment between placeholders and line ends, two words or more) and its
English-only words (a word of en.json that the language's catalog never uses, so a wrapped
or cut sentence is caught too). Textual's own English (the Ctrl+C notice) is on the list.
``test_the_walk_catches_a_dropped_translation`` removes one translation at a time and
checks that the walk then fails: the detector is tested, not trusted.
"""
from __future__ import annotations

import contextlib
import json
import random
import re
from collections.abc import AsyncIterator, Callable, Iterator
from functools import cache
from typing import Any

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Select

import engine
import protocol as p
from server.table.table_view import table_view
import tui.i18n
from engine import resolve_options
from server.lobby.history import replay_records, split_hands
from server.table.log_events import log_events
from server.variants import variant_infos
from tui.app import TrucoApp
from tui.calls import assign_keys
from tui.i18n import LOCALES
from tui.screens.choose_name import ChooseNameScreen
from tui.screens.history import HistoryScreen, ReplayScreen
from tui.screens.new_table import NewTableScreen
from tui.screens.table import MatchOverScreen, TableScreen

from tests.tui.helpers import screen_text, select_prompts
from tests.tui.kit import FakeLink

SIZE = (160, 50)  # room for whole sentences: the words check covers what a smaller screen cuts
NAMES = ("ana", "beto", "carla", "dani", "eva", "fede")
WORD = re.compile(r"[A-Za-zÀ-ÿ']{3,}")
# Textual's own English, which is not in en.json (the app replaces it).
TEXTUAL_ENGLISH = ("Do you want to quit", "to quit the app", "Search for commands", "Saved screenshot")


def _catalog(lang: str) -> dict[str, str]:
    return dict(json.loads((LOCALES / f"{lang}.json").read_text(encoding="utf-8")))


@cache
def english_of(lang: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """English-only words and phrases for a language: what en.json says where it does not."""
    en, mine = _catalog("en"), _catalog(lang)
    own_words = {w.lower() for text in mine.values() for w in WORD.findall(text)}
    words = {w.lower() for text in en.values() for w in WORD.findall(text)} - own_words
    phrases = set(TEXTUAL_ENGLISH)
    own_text = "\n".join(mine.values())
    for key, text in en.items():
        if mine.get(key) == text:
            continue
        for fragment in re.split(r"\{[^}]*\}|\n", text):
            fragment = " ".join(fragment.split()).strip(" .:;,()!?\"'-")
            if len(fragment) >= 10 and " " in fragment and fragment not in own_text:
                phrases.add(fragment)
    return frozenset(words), tuple(sorted(phrases))


def english_on(text: str, lang: str) -> list[str]:
    """The English found in ``text`` (a screen of a session in ``lang``)."""
    words, phrases = english_of(lang)
    flat = " ".join(text.split())
    found = [phrase for phrase in phrases if phrase in flat]
    found += sorted({w for w in WORD.findall(text) if w.lower() in words})
    return found


class Walk:
    """Collects what each screen showed; fails at the end with every English leak found."""

    def __init__(self, app: TrucoApp, lang: str) -> None:
        self.app, self.lang = app, lang
        self.leaks: list[str] = []
        self.seen: list[str] = []

    def check(self, where: str, extra: str = "") -> str:
        text = screen_text(self.app) + "\n" + extra
        self.seen.append(where)
        leaks = english_on(text, self.lang)
        if leaks:
            self.leaks.append(f"{where}: {leaks}\n{text}")
        return text

    async def check_scrolled(self, where: str, pilot: Any) -> None:
        """Check a dialog, then again with each of its scrolling parts at its end."""
        self.check(where)
        for scroll in self.app.screen.query(VerticalScroll):
            scroll.scroll_end(animate=False, immediate=True)
        await settle(pilot, 0.1)
        self.check(where + ", scrolled to the end")

    def assert_clean(self) -> None:
        assert not self.leaks, "English on a screen:\n" + "\n\n".join(self.leaks)


async def settle(pilot: Any, delay: float) -> None:
    """A pause, then until the screen has handled its messages: a busy machine is slower, and a
    check made too early would miss what it should see."""
    await pilot.pause(delay)
    await pilot.pause()


@contextlib.asynccontextmanager
async def walking(lang: str, username: str = "ana") -> AsyncIterator[tuple[Walk, FakeLink, Any]]:
    link = FakeLink()
    app = TrucoApp(link, username, lang)
    if username == "ana":
        link.push(p.Welcome(name="ana", guest=True, variants=variant_infos()),
                  p.LobbySnapshot(players=(p.PlayerInfo(name="ana"), p.PlayerInfo(name="beto", table_id="t3")),
                                  tables=LOBBY_TABLES, chat=(p.ChatLine(sender="beto", text="hola", ts=0),)))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot, 0.1)
        yield Walk(app, lang), link, pilot


def _table(table_id: str, variant: str, players: int, status: str = "waiting", **options: Any) -> p.TableInfo:
    return p.TableInfo(table_id=table_id, title=f"mesa {table_id}", variant=variant, owner="beto",
                       seats=("beto",) + (None,) * (players - 1), options=resolve_options(variant, options),
                       status=status)


# Tables whose changed options the lobby's status line lists: every kind of value.
LOBBY_TABLES = (
    _table("t1", "argentino", 4, flor=False, truco_timing="own_turn", mazo="two_player",
           envido_max_replies="a", maldon="mano"),
    _table("t2", "uruguayo", 3, envido_max_replies="b", mazo="off"),
    _table("t3", "paulista", 4, "playing", deck="french40", forfeit_scope="hand"),
    _table("t4", "venezolano", 2, "full", flor_declaration="automatic", hasta_igualar_level="two",
           las_que_pintan_figure="two", late_raises=False),
)


# ---------------------------------------------------------------- the lobby and its dialogs


async def walk_lobby(lang: str) -> Walk:
    async with walking(lang) as (walk, link, pilot):
        walk.check("lobby")
        for n in range(len(LOBBY_TABLES)):  # each table described in the status line
            await pilot.press("down" if n else "home")
            await settle(pilot, 0.15)
            walk.check(f"lobby, table {n + 1} selected")
        for key, where in (("question_mark", "lobby help"), ("k", "join-by-code prompt"),
                           ("r", "resume prompt"), ("p", "quick play chooser")):
            await pilot.press(key)
            await settle(pilot, 0.1)
            await walk.check_scrolled(where, pilot)
            await pilot.press("escape")
            await settle(pilot, 0.05)
        await pilot.press("L")
        await settle(pilot, 0.1)
        walk.check("lite mode on")
        await pilot.press("L")
        await settle(pilot, 0.1)
        walk.check("lite mode off")
        await pilot.press("ctrl+c")
        await settle(pilot, 0.1)
        walk.check("Ctrl+C notice")
        link.push(p.TableCreated(table_id="t9", code="K7M2QX"))
        await settle(pilot, 0.1)
        walk.check("private table created")
        for code in sorted(server_error_codes()):
            link.push(p.Error(code=code, message="an English sentence from the server"))
            await settle(pilot, 0.05)
            walk.check(f"error {code}")
        link.push(p.Notice(code="idle"))
        await settle(pilot, 0.05)
        walk.check("idle notice")
        link.push(p.Seated(table_id="t1", seat=1), p.TableUpdated(table=LOBBY_TABLES[0]))
        await settle(pilot, 0.2)
        walk.check("waiting room")
        await pilot.press("escape")
    return walk


def server_error_codes() -> set[str]:
    from tests.tui.i18n_keys import dynamic_keys

    return dynamic_keys()["error."]


# ---------------------------------------------------------------- the New-table form


def _choices_and_tips(screen: NewTableScreen) -> str:
    """What the form's drop-downs offer and its tooltips say (shown on demand)."""
    out = []
    for select in screen.query(Select):
        out += select_prompts(select)
    for widget in screen.query(".option"):
        if widget.tooltip:
            out.append(str(widget.tooltip))
    return "\n".join(out)


async def form_shows(pilot: Any, screen: NewTableScreen, info: p.VariantInfo) -> None:
    """Wait until the form has laid out the options of ``info`` (a slow machine takes longer)."""
    wanted = {f"opt-{o.name}" for o in info.options}
    for _ in range(100):
        await settle(pilot, 0.05)
        shown = {w.id for w in screen.query(".option")}
        if shown == wanted and all(w.size.width > 0 for w in screen.query(".option")):
            await settle(pilot, 0.05)
            return
    raise AssertionError(f"the form never showed the options of {info.name}")


async def walk_form(lang: str, variants: tuple[str, ...] | None = None) -> Walk:
    async with walking(lang) as (walk, link, pilot):
        await pilot.press("n")
        await settle(pilot, 0.2)
        screen = walk.app.screen
        assert isinstance(screen, NewTableScreen)
        for info in variant_infos():
            if variants is not None and info.name not in variants:
                continue
            screen.query_one("#variant", Select).value = info.name
            await form_shows(pilot, screen, info)
            walk.check(f"new-table form, {info.name}", _choices_and_tips(screen))
        await pilot.press("escape")
    return walk


# ---------------------------------------------------------------- the table of each variant


def _update(state: engine.State, seat: int, seq: int, events: list[p.LogEvent]) -> p.TableUpdate:
    view = engine.view(state, seat)
    return p.TableUpdate(table_id="tv", seq=seq, seat=seat,
                         seats=tuple(p.SeatInfo(name=n, bot=i == 1) for i, n in enumerate(NAMES[:state.n])),
                         view=table_view(view), events=tuple(events), waiting=tuple(view.awaiting))


def _projected(events: list[engine.Event], seat: int) -> list[p.LogEvent]:
    return log_events(events, seat)


def moments(variant: str, players: int, seed: int, **options: Any) -> Iterator[tuple[str, engine.State, list[p.LogEvent]]]:
    """A random match seen from seat 0, with the events since the last moment: each new kind of
    situation (a bet waiting for seat 0, an envido, a flor, a ley, the hand's end, the match's end)."""
    rules = engine.get_ruleset(variant, **options)
    rng = random.Random(seed)
    state, events = engine.new_match(rules, players, rng)
    pending: list[p.LogEvent] = _projected(events, 0)
    shown: set[str] = set()
    for _ in range(20_000):
        view = engine.view(state, 0)
        wire = view.to_wire()
        kinds = []
        if wire.get("truco_pending") and view.legal:
            kinds.append(f"truco {wire['truco_pending']} waits for seat 0")
        if wire.get("envido_status") in ("betting", "declaring") and view.legal:
            kinds.append(f"envido {wire.get('envido_status')} {len(wire.get('envido_calls') or [])}")
        if wire.get("flor_status") not in (None, "none", "done", "closed"):
            kinds.append(f"flor {wire.get('flor_status')}")
        if wire.get("ley_seats"):
            kinds.append("a ley")
        if any(a.call.value not in ("play",) for a in view.legal):
            kinds.append("calls " + " ".join(sorted({a.call.value for a in view.legal})))
        if wire.get("phase") == "deal":
            kinds.append("hand over")
        if state.match_over:
            kinds.append("match over")
        new = [k for k in kinds if k not in shown]
        if new:
            shown.update(new)
            yield ", ".join(new), state, pending
            pending = []
        if state.match_over:
            return
        legal = [a for s in range(players) for a in engine.legal_actions(state, s)]
        calls = [a for a in legal if a.call is not engine.Call.PLAY]
        action = rng.choice(calls if calls and rng.random() < 0.5 else legal)
        state, events = engine.advance(state, action, rng)
        pending += _projected(events, 0)


TABLE_GAMES = (
    ("argentino", 4, {"flor": True, "reales": True, "maldon": "any", "target": 15, "match_games": 1}),
    ("argentino", 2, {"flor": False, "target": 15, "match_games": 1}),
    ("uruguayo", 3, {"target": 15, "match_games": 1}),
    ("paulista", 2, {"match_games": 1}),
    ("venezolano", 2, {"target": 12, "match_games": 1}),
    ("venezolano", 4, {"target": 12, "match_games": 1, "flor_declaration": "automatic"}),
)


async def walk_table(lang: str, variant: str, players: int, options: dict[str, Any], seed: int = 1) -> Walk:
    info = p.TableInfo(table_id="tv", title="mesa", variant=variant, owner="ana",
                       seats=NAMES[:players], options=resolve_options(variant, options),
                       status="playing", turn_timer=30)
    async with walking(lang) as (walk, link, pilot):
        link.push(p.TableUpdated(table=info), p.Seated(table_id="tv", seat=0))
        await settle(pilot, 0.2)
        seq = 0
        helped = asked = False
        for label, state, events in moments(variant, players, seed, **options):
            seq += 1
            link.push(_update(state, 0, seq, events))
            await settle(pilot, 0.15)
            while not isinstance(walk.app.screen, (TableScreen, MatchOverScreen)):
                await pilot.press("escape")  # a dialog left open (e.g. how many piedras)
                await settle(pilot, 0.05)
            walk.check(f"{variant} {players}p: {label}")
            view = engine.view(state, 0)
            if view.legal and not helped and isinstance(walk.app.screen, TableScreen):
                helped = True
                await pilot.press("question_mark")
                await settle(pilot, 0.1)
                await walk.check_scrolled(f"{variant} table help", pilot)
                await pilot.press("escape")
                await pilot.press("l")
                await settle(pilot, 0.1)
                walk.check(f"{variant} leave?")
                await pilot.press("n")
                await pilot.press("9")  # no such card: the status line says why
                await settle(pilot, 0.05)
                walk.check(f"{variant} a card that cannot be played")
            amounts = [a for a in view.legal if a.amount is not None]
            if amounts and not asked and isinstance(walk.app.screen, TableScreen):
                asked = True
                calls = []
                for a in view.legal:
                    if a.call.value not in ("play", "discard") and a.call.value not in calls:
                        calls.append(a.call.value)
                key = next(c.key for c in assign_keys(calls) if c.call == amounts[0].call.value)
                await pilot.press(key)
                await settle(pilot, 0.1)
                walk.check(f"{variant}: how many?")
                await pilot.press("escape")
        await settle(pilot, 0.2)
        if isinstance(walk.app.screen, MatchOverScreen):
            walk.check(f"{variant} match over")
            await pilot.press("escape")
            await settle(pilot, 0.05)
        walk.check(f"{variant} the table after the match")
    return walk


# ---------------------------------------------------------------- history, replay, choosing a name


async def walk_history(lang: str) -> Walk:
    rules = engine.get_ruleset("venezolano", match_games=1)
    rng = random.Random(4)
    state, events = engine.new_match(rules, 2, rng)
    log = [e.to_wire() for e in events]
    while len(split_hands(log)) < 2:
        state, events = engine.advance(state, rng.choice(engine.all_legal_actions(state)), rng)
        log.extend(e.to_wire() for e in events)
    game = p.GameSummary(table_id="t9", match_no=1, variant="venezolano", title="la revancha",
                         seats=("ana", "beto"), scores=(24, 12), winner=0, hands=2, finished_at=1_700_000_000)
    async with walking(lang) as (walk, link, pilot):
        await pilot.press("h")
        await settle(pilot, 0.1)
        assert isinstance(walk.app.screen, HistoryScreen)
        walk.check("my games, loading")
        link.push(p.GamesList(games=()))
        await settle(pilot, 0.1)
        walk.check("my games, none yet")
        link.push(p.GamesList(games=(game,)))
        await settle(pilot, 0.1)
        walk.check("my games")
        await pilot.press("enter")
        await settle(pilot, 0.1)
        assert isinstance(walk.app.screen, ReplayScreen)
        link.push(p.ReplayStep(game=game, hand=1, events=tuple(replay_records(split_hands(log)[0], 'spanish')), hands=2))
        await settle(pilot, 0.2)
        walk.check("replay")
    return walk


async def walk_choose_name(lang: str) -> Walk:
    async with walking(lang, username="root") as (walk, link, pilot):
        assert isinstance(walk.app.screen, ChooseNameScreen)
        walk.check("choose a name")
        from tests.tui.i18n_keys import dynamic_keys

        for reason in sorted(dynamic_keys()["name.reason."]):
            link.push(p.NameRefused(name="ana", reason=reason, suggestion="ana2"))
            await settle(pilot, 0.1)
            walk.check(f"name refused: {reason}")
        walk.app.screen.query_one("#name-input").value = "a b"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await settle(pilot, 0.1)
        walk.check("an invalid name typed")
    return walk


# ---------------------------------------------------------------- the tests

LANGS = ("es", "pt")


@pytest.mark.parametrize("lang", LANGS)
async def test_lobby_and_its_dialogs_and_toasts_have_no_english(lang: str) -> None:
    walk = await walk_lobby(lang)
    walk.assert_clean()
    assert len(walk.seen) > 20


@pytest.mark.parametrize("lang", LANGS)
async def test_new_table_form_has_no_english_in_any_variant(lang: str) -> None:
    walk = await walk_form(lang)
    walk.assert_clean()
    assert len(walk.seen) == len(variant_infos())


# Every variant in both languages; a variant with two tables here has one in each language
# (the screens of its two sizes share their words; each 5-6 s of CPU).
def _table_walks() -> list[tuple[str, str, int, dict[str, Any]]]:
    walks = []
    for game in TABLE_GAMES:
        same = [g for g in TABLE_GAMES if g[0] == game[0]]
        langs = LANGS if len(same) == 1 else (LANGS[same.index(game) % len(LANGS)],)
        walks += [(lang, *game) for lang in langs]
    return walks


TABLE_WALKS = _table_walks()


@pytest.mark.parametrize(("lang", "variant", "players", "options"), TABLE_WALKS,
                         ids=[f"{v}-{n}p-{lang}" for lang, v, n, _ in TABLE_WALKS])
async def test_table_of_every_variant_has_no_english(lang: str, variant: str, players: int,
                                                     options: dict[str, Any]) -> None:
    walk = await walk_table(lang, variant, players, options)
    walk.assert_clean()
    assert any("truco" in where for where in walk.seen), walk.seen  # a bet waited for this seat
    assert any("match over" in where for where in walk.seen), walk.seen


@pytest.mark.parametrize("lang", LANGS)
async def test_history_and_replay_have_no_english(lang: str) -> None:
    (await walk_history(lang)).assert_clean()


@pytest.mark.parametrize("lang", LANGS)
async def test_choose_name_has_no_english(lang: str) -> None:
    (await walk_choose_name(lang)).assert_clean()


# ---------------------------------------------------------------- the detector is a real one

Walker = Callable[[str], Any]
DROPS: list[tuple[str, str, Walker]] = [
    ("pt", "error.table_full", walk_lobby),  # a toast
    ("es", "option.truco_timing", lambda lang: walk_form(lang, ("argentino",))),
    ("pt", "call.declare_envido", lambda lang: walk_table(lang, "argentino", 2, TABLE_GAMES[1][2])),
    ("es", "history.empty", walk_history),
    ("pt", "name.rules", walk_choose_name),
]


@pytest.mark.parametrize(("lang", "key", "walker"), DROPS, ids=[f"{lang}-{key}" for lang, key, _ in DROPS])
async def test_the_walk_catches_a_dropped_translation(monkeypatch: pytest.MonkeyPatch, lang: str, key: str,
                                                      walker: Walker) -> None:
    real = tui.i18n._catalog

    def without(code: str) -> dict[str, str]:
        catalog = dict(real(code))
        if code == lang:
            del catalog[key]
        return catalog

    monkeypatch.setattr(tui.i18n, "_catalog", without)
    walk = await walker(lang)
    english = _catalog("en")[key]
    assert walk.leaks, f"dropping {lang} {key} ({english!r}) went unnoticed"


# ---------------------------------------------------------------- nothing cut in the form


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
async def test_every_option_label_and_value_fits_the_form_at_80x24(lang: str) -> None:
    link = FakeLink()
    app = TrucoApp(link, "ana", lang)
    link.push(p.Welcome(name="ana", guest=True, variants=variant_infos()),
              p.LobbySnapshot(players=(p.PlayerInfo(name="ana"),), tables=(), chat=()))
    cut: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        await pilot.press("n")
        await pilot.pause(0.2)
        screen = app.screen
        assert isinstance(screen, NewTableScreen)
        for info in variant_infos():
            screen.query_one("#variant", Select).value = info.name
            await form_shows(pilot, screen, info)
            for select in screen.query(Select).filter(".option"):
                room = select.content_region.width - 3  # the arrow and its margin
                cut += [f"{info.name} {select.id}: {prompt!r} > {room}"
                        for prompt in select_prompts(select) if len(prompt) > room]
            for label in screen.query(".form-label.wide"):
                text = str(label.render())
                room = label.content_region.width
                if len(text) > room:
                    cut.append(f"{info.name} label {text!r} > {room}")
            room = screen.query_one("#options").scrollable_content_region.width
            for box in screen.query(".option").exclude("Select"):  # the tick boxes: "[x] " + label
                if len(str(box.label)) + 4 > room:
                    cut.append(f"{info.name} {box.id}: {str(box.label)!r} > {room - 4}")
    assert not cut, cut
