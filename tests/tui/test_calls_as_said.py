"""Calls as players say them (issue 32): "¡Quiero retruco!" in one breath from the raise key,
a closing line that adds the hand up, and a refused bet named the same everywhere."""
from __future__ import annotations

import random
from typing import Any

import pytest

import engine
import protocol as p
from engine.testing import E, N, W, act, scenario
from tests.tui.helpers import screen_text, until
from tests.tui.test_keys import key_bar
from tests.tui.kit import EN, ES, PT, FakeLink, ShowTable, TrucoCalled, log_text, seated_app, table_shown, update_for
from tui.i18n import Translator
from tui.widgets.table.talk import TableLog


def _log(app: Any) -> list[str]:
    return [line.plain for line in app.screen.query_one("#t-log", TableLog).lines]


# ---------------------------------------------------------------- the raise key answers


async def test_the_raise_key_says_quiero_retruco_to_a_pending_truco(
        link: FakeLink, show_table: ShowTable, truco_called: TrucoCalled) -> None:
    state, events, mano = truco_called
    async with show_table(state, 1 - mano, events, seq=4) as pilot:
        text = screen_text(pilot.app)
        assert "t Quiero retruco" in text and "q Quiero" in text and "n No quiero" in text
        assert "quiero first" not in text.lower()
        await pilot.press("t")
        await until(pilot, lambda: any(isinstance(m, p.TableAction) for m in link.sent), "an action sent")
        sent = [m for m in link.sent if isinstance(m, p.TableAction)]
        assert [m.call for m in sent] == ["retruco"]  # one action: no card can come in between


@pytest.mark.parametrize("tr, said", [(EN, "beto: Quiero retruco!"), (ES, "beto: ¡Quiero retruco!"),
                                      (PT, "beto: Quiero retruco!")])
def test_the_log_reads_quiero_retruco_once(tr: Translator, said: str) -> None:
    state, dealt = scenario({}, n=2, flor=False)
    state, events = act(state, (0, "truco"), (1, "retruco"))
    lines = log_text(tr, state, 0, [*dealt, *events])
    assert lines[-1] == said.replace("beto", "Bot 1")
    assert sum("Quiero" in line for line in lines) == 1  # no "Quiero!" before it


# ---------------------------------------------------------------- the closing line adds up


def test_the_hand_over_line_gives_each_sides_total_and_its_parts() -> None:
    """Envido 2 and a refused truco 1: the hand gave 3, not "1 to Us (truco not wanted)"."""
    state, dealt = scenario({0: "7e 6e 4b", 1: "1o 2c 3b"}, n=2, flor=False)
    state, said = act(state, (0, "envido"), (1, "quiero"), (0, "declare_envido"), (1, "son_buenas"),
                      (0, "truco"), (1, "no_quiero"))
    events = [*dealt, *said]
    assert log_text(EN, state, 0, events)[-1] == "Hand over: Us 3 (envido 2, truco not wanted 1)."
    assert log_text(EN, state, 1, events)[-1] == "Hand over: Them 3 (envido 2, truco not wanted 1)."
    assert log_text(ES, state, 0, events)[-1] == "Fin de la mano: Nosotros 3 (envido 2, truco no querido 1)."
    assert log_text(PT, state, 0, events)[-1] == "Fim da mão: Nós 3 (envido 2, truco recusado 1)."


def test_both_sides_scoring_in_one_hand_are_both_told() -> None:
    """A flor for one side (3) and a refused retruco for the other (2): each its own total,
    the hand's winner first; the refused call named as it was said."""
    flor = "1e 5e 6e"
    state, dealt = scenario({N: flor})
    state, said = act(state, (N, "flor"), (E, "truco"), (N, "retruco"), (W, "no_quiero"))
    events = [*dealt, *said]
    assert log_text(EN, state, E, events)[-1] == "Hand over: Them 5 (flor 3, retruco not wanted 2)."
    state, dealt = scenario({N: flor})
    state, said = act(state, (N, "flor"), (E, "truco"), (N, "no_quiero"))
    events = [*dealt, *said]
    assert log_text(ES, state, N, events)[-1] == "Fin de la mano: Ellos 1 (truco no querido); Nosotros 3 (flor)."
    assert log_text(PT, state, E, events)[-1] == "Fim da mão: Nós 1 (truco recusado); Eles 3 (flor)."


# ---------------------------------------------------------------- one name for one thing


@pytest.mark.parametrize("lang, refused, closing", [
    ("en", "vale cuatro not wanted", "Hand over: Them 3 (vale cuatro not wanted)."),
    ("es", "vale cuatro no querido", "Fin de la mano: Ellos 3 (vale cuatro no querido)."),
    ("pt", "vale cuatro recusado", "Fim da mão: Eles 3 (vale cuatro recusado)."),
])
async def test_a_refused_bet_has_one_name_when_the_log_comes_update_by_update(
        lang: str, refused: str, closing: str) -> None:
    """The raises in one update and the refusal in the next: the log named the refused bet
    "truco" (it forgot the hand's earlier update) where the bets line said "vale cuatro"."""
    state, dealt = scenario({}, n=2, flor=False)
    raised, bets = act(state, (1, "truco"), (0, "retruco"), (1, "vale_cuatro"))
    over, refusal = act(raised, (0, "no_quiero"))
    link = FakeLink()
    app = await seated_app(link, 0)
    app.tr = Translator(lang)
    async with table_shown(app, link, update_for(raised, 0, 3, [*dealt, *bets]), size=(200, 50)) as pilot:
        link.push(update_for(over, 0, 4, refusal, waiting=()))
        await until(pilot, lambda: closing in _log(pilot.app), "the closing line")
        log = _log(pilot.app)
        assert refused in log[-2] and log[-1] == closing
        # The bets line (the hand's summary), the points line and the closing line.
        await until(pilot, lambda: screen_text(pilot.app).count(refused) >= 3, "the bets line")
        text = screen_text(pilot.app)
        assert Translator(lang)("reason.truco_declined") not in text


# ---------------------------------------------------------------- scores and sides


def _uy_three(seed: int = 4) -> tuple[Any, list[Any]]:
    return engine.new_match(engine.get_ruleset("uruguayo", senas="fair"), 3, random.Random(seed))


@pytest.mark.parametrize("lang, alone", [("en", "{m} plays alone against {a} and {b}."),
                                         ("es", "{m} juega solo contra {a} y {b}."),
                                         ("pt", "{m} joga sozinho contra {a} e {b}.")])
async def test_three_players_the_screen_says_who_plays_with_whom(lang: str, alone: str) -> None:
    """The Uruguayan three-player game: the mano alone against the other two, new sides every
    hand. The log says so at the deal, each seat row says its side, and only the pair has
    a partner to signal to and talk with (S, C)."""
    state, events = _uy_three()
    started = next(e for e in events if isinstance(e, engine.HandStarted))
    mano = started.mano
    a, b = (s for s in started.players if s != mano)
    names = ("ana", "beto", "carla")
    tr = Translator(lang)
    us, them = tr("table.us"), tr("table.them")
    for seat in (mano, a):
        link = FakeLink()
        app = await seated_app(link, seat, table=p.TableInfo(
            table_id="t1", title="mesa", variant="uruguayo", owner="ana", seats=names,
            options={"senas": "fair"}, status="playing"))
        app.tr = tr
        async with table_shown(app, link, update_for(state, seat, 3, events, names=names),
                               size=(80, 24)) as pilot:
            said = alone.format(m=names[mano], a=names[a], b=names[b])
            await until(pilot, lambda: said in _log(pilot.app), "the hand's sides in the log")
            rows = screen_text(pilot.app).splitlines()
            side = {s: next(line for line in rows if line[2:].startswith(names[s] + " ")) for s in range(3)}
            for s in range(3):  # each seat row: Us with me this hand, Them against me
                together = (s == mano) == (seat == mano)
                assert (us if together else them) in side[s], side[s]
            bar = "\n".join(rows[-2:])
            partner_keys = (f"S {tr('key.sena')}", f"C {tr('key.partner_chat')}")
            if seat == mano:  # nobody to signal to or talk with in private
                assert not any(key in bar for key in partner_keys), bar
            else:
                assert all(key in bar for key in partner_keys), bar


@pytest.mark.parametrize("variant, scores, shown", [
    ("uruguayo", (31, 12), ("31/30", "12/30")),  # past the target: still "/30"
    ("paulista", (12, 4), ("12/12", "4/12")),
])
async def test_scores_past_the_target_keep_it(variant: str, scores: tuple[int, int],
                                              shown: tuple[str, str]) -> None:
    state, events = scenario({}, n=2, variant=variant, scores=scores)
    link = FakeLink()
    app = await seated_app(link, 0, table=p.TableInfo(table_id="t1", title="mesa", variant=variant, owner="ana",
                                                      seats=("ana", "beto"), options={}, status="playing"))
    async with table_shown(app, link, update_for(state, 0, 3, events), size=(80, 24)) as pilot:
        score_line = next(line for line in screen_text(pilot.app).splitlines() if " Us " in line)
        assert shown[0] in score_line and shown[1] in score_line, score_line


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
async def test_the_solo_manos_card_keys_say_lay_away_before_he_plays(lang: str) -> None:
    """Holding four cards, the Uruguayan mano's card keys lay one away ("1-4 Lay away"), not
    play it; once it is laid away they play ("1-3 Card")."""
    state, events = _uy_three()
    mano = next(e for e in events if isinstance(e, engine.HandStarted)).mano
    names = ("ana", "beto", "carla")
    tr = Translator(lang)
    link = FakeLink()
    app = await seated_app(link, mano, table=p.TableInfo(
        table_id="t1", title="mesa", variant="uruguayo", owner="ana", seats=names,
        options={"senas": "fair"}, status="playing"))
    app.tr = tr
    async with table_shown(app, link, update_for(state, mano, 3, events, names=names), size=(80, 24)) as pilot:
        lay_away = f"1-4 {tr('call.discard')}"
        await until(pilot, lambda: lay_away in key_bar(pilot.app), "the lay-away keys",
                    seen=lambda: key_bar(pilot.app))
        discard = next(a for a in engine.legal_actions(state, mano) if a.call.value == "discard")
        state, more = engine.apply(state, discard)
        rng = random.Random(1)
        while not any(a.call.value == "play" for a in engine.legal_actions(state, mano)):  # the others first
            seat = next(s for s in range(3) if engine.legal_actions(state, s))
            plays = [a for a in engine.legal_actions(state, seat) if a.call.value == "play"]
            state, after = engine.apply(state, rng.choice(plays or engine.legal_actions(state, seat)))
            more += after
        link.push(update_for(state, mano, 4, more, names=names))
        play = f"1-3 {tr('key.play')}"
        await until(pilot, lambda: play in key_bar(pilot.app), "the card keys play again",
                    seen=lambda: key_bar(pilot.app))
