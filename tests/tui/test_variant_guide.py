"""Pilot tests: every variant explained at the table. Special cards are marked in the hand
and in the trick grid, the face-up card is labelled (muestra, vira), `?` explains this hand from the view,
scores use malas/buenas only where they apply, and refusals say their real reason."""
from __future__ import annotations

from pathlib import Path

import engine
import protocol as p
from tui.widgets.hanging import HangingText
from tui.app import TrucoApp
from tui.screens.help import HelpScreen
from tui.screens.table import TableScreen

from engine.testing import act, scenario
from tests.tui.helpers import screen_text, toasts, until
from tests.tui.kit import table_shown, update_for, variant_app


def help_text(app: TrucoApp) -> str:
    """The help dialog's text, with its line breaks and indents as single spaces."""
    assert isinstance(app.screen, HelpScreen)
    body = app.screen.query_one("VerticalScroll").query_one(HangingText)
    return " ".join(body.text.split())


def uruguayan_state() -> engine.State:
    # Muestra 6b: the piezas are 2b 4b 5b 11b 10b. Seat 0 (mano) holds the 2b.
    state, _ = scenario({0: "2b 7o 1c", 1: "3e 12o 6c"}, n=2, variant="uruguayo", face_up="6b",
                        flor=False)
    return state


async def test_piezas_are_starred_in_the_hand_and_the_grid_and_the_muestra_is_labelled() -> None:
    state = uruguayan_state()
    app, link = await variant_app(state, 0, "uruguayo")
    async with table_shown(app, link, update_for(state, 0, 3)) as pilot:
        text = screen_text(app)
        assert "Muestra: 6B" in text  # the face-up card, named as the variant names it
        assert text.count("╭★────╮") == 1  # only the 2b is a pieza
        state, events = act(state, (0, "play", "2b"))
        link.push(update_for(state, 0, 4, events))
        await until(pilot, lambda: "2B★" in str(app.screen.query_one("#t-tricks").render()), "the pieza in the grid")
        grid = str(app.screen.query_one("#t-tricks").render())
        assert "2B★" in grid


async def test_lite_mode_marks_special_cards_in_ascii() -> None:
    state = uruguayan_state()
    state, events = act(state, (0, "play", "2b"), (1, "play", "3e"))
    app, link = await variant_app(state, 0, "uruguayo", lite=True)
    async with table_shown(app, link, update_for(state, 0, 3, events)):
        text = screen_text(app)
        assert "2B*" in text and "★" not in text
        assert "Muestra: 6B" in text


async def test_perico_and_perica_are_told_apart() -> None:
    state, _ = scenario({0: "11c 10c 1o", 1: "3e 12o 6b"}, n=2, variant="venezolano", face_up="4c",
                        flor=False, flor_declaration="automatic")
    app, link = await variant_app(state, 0, "venezolano")
    async with table_shown(app, link, update_for(state, 0, 3)) as pilot:
        text = screen_text(app)
        assert "╭★★───╮" in text and "╭★────╮" in text  # perico, perica
        assert "Vira: 4C" in text
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen) and bool(app.screen.query(HangingText)), "the help")
        body = help_text(app)
        assert "Perico ★★: 11C (30)" in body and "Perica ★: 10C (29)" in body
        assert "11C★★ > 10C★ > 1E > 1B > 7E > 7O > 3E 3B 3O 3C" in body
        assert "Your envido: 59" in body  # La Reservada


async def test_manilhas_are_starred_and_the_help_ranks_them_first() -> None:
    hands = {0: "Kc 2h 3s", 1: "Ah 7c Qd"}
    state, _ = scenario(hands, n=2, variant="paulista", face_up="Jd")  # the manilha is K
    app, link = await variant_app(state, 0, "paulista", lang="pt")
    async with table_shown(app, link, update_for(state, 0, 3)) as pilot:
        assert "╭★────╮" in screen_text(app) and "Vira: J♦" in screen_text(app)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen) and bool(app.screen.query(HangingText)), "the help")
        body = help_text(app)
        assert "Manilhas ★: K♣, K♥, K♠, K♦" in body
        assert "K♣★ > K♥★ > K♠★ > K♦★ > 3♣ 3♥ 3♠ 3♦ > 2♣ 2♥ 2♠ 2♦ > A♣ A♥ A♠ A♦ > J♣ J♥ J♠ >" in body
        assert "Neste jogo não tem envido nem flor" in body
        assert "Truco: 3 se aceitar, 1 se não" in body and "Doze: 12 se aceitar, 9 se não" in body
        assert "README" not in body


async def test_help_says_what_the_pending_envido_is_worth_and_how_this_hand_counts() -> None:
    state, _ = scenario({0: "7e 6e 1o", 1: "4c 5b 12o"}, n=2, flor=False)
    state, events = act(state, (0, "envido"), (1, "real_envido"))
    for lang, worth, own in (("en", "Envido + Real envido: 5 if wanted, 2 if not", "Your envido: 33 (7E 6E)"),
                             ("es", "Envido + Real envido: 5 si se quiere, 2 si no", "Tu envido: 33 (7E 6E)")):
        app, link = await variant_app(state, 0, "argentino", lang=lang)
        async with table_shown(app, link, update_for(state, 0, 3, events)) as pilot:
            await pilot.press("question_mark")
            await until(pilot, lambda: isinstance(app.screen, HelpScreen) and bool(app.screen.query(HangingText)), "the help")
            body = help_text(app)
            assert worth in body and own in body
            assert "1E > 1B > 7E > 7O > 3E 3B 3O 3C > 2E 2B 2O 2C > 1O 1C > 12E" in body
            assert "malas" in body and "buenas" in body  # the Argentine game to 30


async def test_scores_use_malas_and_buenas_only_in_the_argentine_game_to_30() -> None:
    state, _ = scenario({}, n=2, scores=(1, 16), flor=False)
    app, link = await variant_app(state, 0, "argentino", lang="es")
    async with table_shown(app, link, update_for(state, 0, 3)):
        score = str(app.screen.query_one("#t-score").render())
        assert "1 (1 mala)" in score and "16 (1 buena)" in score
    state, _ = scenario({}, n=2, scores=(1, 16), target=15, flor=False)
    app, link = await variant_app(state, 0, "argentino")
    async with table_shown(app, link, update_for(state, 0, 3)):
        score = str(app.screen.query_one("#t-score").render())
        assert "mala" not in score and "buena" not in score and "1/15" in score


async def test_after_a_brazilian_parda_a_weaker_card_says_play_your_strongest() -> None:
    hands = {0: "3c 7c Kc", 1: "3h Ah 7h"}
    state, _ = scenario(hands, n=2, variant="paulista", face_up="Jd")  # the manilha is K
    state, events = act(state, (0, "play", "3c"), (1, "play", "3h"))
    assert state.trick_results == (-1,)
    for lang, words in (("en", "The first trick was parda: play your strongest card."),
                        ("pt", "A primeira cangou: jogue sua carta mais forte.")):
        app, link = await variant_app(state, 0, "paulista", lang=lang)
        async with table_shown(app, link, update_for(state, 0, 3, events)) as pilot:
            own = [str(c) for c in engine.view(state, 0).own_cards]
            await pilot.press(str(own.index("7c") + 1))
            await until(pilot, lambda: words in screen_text(app), "the reason said")
            assert not [m for m in link.sent if isinstance(m, p.TableAction)]
            assert words in screen_text(app)


async def test_refusals_say_why_a_bet_blocks_the_cards() -> None:
    state, _ = scenario({0: "7e 6e 1o", 1: "4c 5b 12o"}, n=2, flor=False)
    state, events = act(state, (0, "truco"))
    app, link = await variant_app(state, 0, "argentino", lang="es")
    async with table_shown(app, link, update_for(state, 0, 3, events)) as pilot:
        await pilot.press("1")
        await until(pilot, lambda: "El truco de tu equipo espera respuesta." in screen_text(app), "the reason said")
        assert "El truco de tu equipo espera respuesta." in screen_text(app)
        await pilot.press("q")  # quiero is not this seat's to say: the key says why
        await until(pilot, lambda: "No hay nada que contestar." in screen_text(app), "the reason said")
        assert "No hay nada que contestar." in screen_text(app)
        await pilot.press("t")
        await until(pilot, lambda: "El truco de tu equipo espera respuesta." in screen_text(app), "the reason said again")
        assert "El truco de tu equipo espera respuesta." in screen_text(app)
        assert not [m for m in link.sent if isinstance(m, p.TableAction)]
    app, link = await variant_app(state, 1, "argentino")
    async with table_shown(app, link, update_for(state, 1, 3, events)) as pilot:
        await pilot.press("2")
        await until(pilot, lambda: "Answer the truco first" in screen_text(app), "the reason said")
        assert "Answer the truco first" in screen_text(app)


async def test_a_refused_action_from_the_server_is_said_in_the_players_language() -> None:
    state, _ = scenario({0: "7e 6e 1o", 1: "4c 5b 12o"}, n=2, flor=False)
    app, link = await variant_app(state, 0, "argentino", lang="pt")
    async with table_shown(app, link, update_for(state, 0, 3), notifications=True) as pilot:
        assert isinstance(app.screen, TableScreen)
        link.push(p.Error(code="illegal", message="your team's truco call is waiting for an answer",
                          reason="truco_waiting"))
        await until(pilot, lambda: bool(toasts(app)), "the refusal shown")
        assert toasts(app) == ["O truco da sua dupla está esperando resposta."]


def test_every_refusal_the_engine_gives_is_worded_in_every_language() -> None:
    import json
    import re

    root = Path(__file__).parents[2]
    codes = set()
    for source in (root / "engine").rglob("*.py"):  # the engine is in packages (issue 14)
        codes |= set(re.findall(r'Reason\("([a-z_]+)"', source.read_text(encoding="utf-8")))
    assert {"highest_card", "not_your_turn", "truco_answer", "envido_first_trick"} <= codes
    for lang in ("en", "es", "pt"):
        catalog = json.loads((root / "tui" / "locales" / f"{lang}.json").read_text(encoding="utf-8"))
        missing = sorted(c for c in codes if f"refusal.{c}" not in catalog)
        assert not missing, (lang, missing)


async def test_card_keys_without_a_card_to_press_say_why() -> None:
    # Mão de ferro (both teams on 11): the cards go down unseen, with their own key.
    state, _ = scenario({0: "Ac 2c 3c", 1: "Ah 2h 3h"}, n=2, variant="paulista", face_up="7d",
                        scores=(11, 11))
    assert state.deal_kind.value == "blind"
    app, link = await variant_app(state, 0, "paulista")
    async with table_shown(app, link, update_for(state, 0, 3)) as pilot:
        await pilot.press("1")
        await until(pilot, lambda: "Mão de ferro: your cards go down unseen" in screen_text(app), "the reason said")
        assert "Mão de ferro: your cards go down unseen, with the j key." in screen_text(app)
    app, link = await variant_app(state, None, "paulista", lang="es")  # type: ignore[arg-type]
    async with table_shown(app, link, update_for(state, None, 3)) as pilot:
        await pilot.press("1")
        await until(pilot, lambda: "Estás mirando esta mesa" in screen_text(app), "the reason said")
        assert "Estás mirando esta mesa: los que miran no juegan." in screen_text(app)


async def test_las_que_pintan_with_a_card_it_cannot_take_says_why() -> None:
    state, _ = scenario({0: "12o 5b 6c", 1: "3e 7o 4b"}, n=2, variant="venezolano", face_up="4c",
                        flor=False, flor_declaration="automatic")
    pintan = {str(a.card) for a in engine.legal_actions(state, 0) if a.call is engine.Call.LAS_QUE_PINTAN}
    assert "5b" in pintan and "12o" not in pintan  # a figure does not open it (OP-VE-8)
    app, link = await variant_app(state, 0, "venezolano")
    async with table_shown(app, link, update_for(state, 0, 3)) as pilot:
        await pilot.press("k")
        await pilot.press("1")  # the 12o
        await until(pilot, lambda: "Las que pintan: not possible now" in screen_text(app), "the reason said")
        assert "Las que pintan: not possible now, or not with that card." in screen_text(app)
        assert not [m for m in link.sent if isinstance(m, p.TableAction)]
