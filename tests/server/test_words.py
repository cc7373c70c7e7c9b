"""Reserved words: a table chat line that is exactly a legal call makes it (table option)."""
from __future__ import annotations

import asyncio

import pytest

import engine
import protocol as p
from server.table import Occupant, TableActor
from server.table import messages as tm
from server.table.words import reserved_action, said_call
from tests.server.test_table import FAST, Viewers, until


@pytest.mark.parametrize("text, variant, call", [
    ("¡Truco!", "argentino", "truco"), ("Quiero", "argentino", "quiero"), ("NO QUIERO.", "uruguayo", "no_quiero"),
    ("quiero retruco", "argentino", "retruco"), ("Vale cuatro!!", "argentino", "vale_cuatro"),
    ("real envido", "argentino", "real_envido"), ("me voy al mazo", "argentino", "mazo"),
    ("seis", "paulista", "seis"), ("Desce!", "paulista", "quiero"), ("corro", "paulista", "no_quiero"),
    ("nove", "paulista", "nueve"), ("quiero ir al baño", "argentino", None), ("jaja truco", "argentino", None),
    ("desce", "argentino", None), ("play", "argentino", None), ("", "argentino", None),
])
def test_whole_lines_name_calls(text: str, variant: str, call: str | None) -> None:
    assert said_call(text, variant) == call


@pytest.mark.parametrize("text, variant, seat, call", [
    ("quiero retruco", "argentino", 1, "retruco"),  # "Quiero, retruco": the raise (AR-21)
    ("¡Quiero, retruco!", "uruguayo", 1, "retruco"),
    ("retruco", "argentino", 1, None),  # a bare "Retruco" to a pending truco (AR-22)
    ("Retruco!", "uruguayo", 1, None),
    ("quiero y retruco", "venezolano", 1, "retruco"),
    ("retruco", "venezolano", 1, None),
    ("seis", "paulista", 1, "seis"),  # the Brazilian counter-raise is the bare word
    ("quiero retruco", "argentino", 0, None),  # the caller's own team has nothing to answer
])
def test_a_raise_answers_a_pending_truco_only_with_its_quiero(text: str, variant: str, seat: int,
                                                               call: str | None) -> None:
    from engine.testing import act, scenario
    state, _ = scenario({}, n=2, variant=variant, **({"flor": False} if variant != "paulista" else {}))
    state, _ = act(state, (state.turn, "truco"))
    said = reserved_action(text, state, (state.truco_seat + seat) % 2, variant)
    assert (said and said.call.value) == call


def acted(viewers: Viewers, conn: int) -> list[str]:
    return [e.call for u in viewers.updates(conn) for e in u.events if isinstance(e, p.Acted)]


async def started(options: dict) -> tuple[Viewers, TableActor, int]:
    viewers = Viewers()
    actor = TableActor("t", "argentino", {"flor": False, **options}, [Occupant("ana", 1), Occupant("beto", 2)],
                       viewers.send, pace=FAST, seed=3)
    actor.viewers[9] = None
    actor.start()
    await until(lambda: viewers.updates(1))
    assert actor.state is not None
    mano = engine.view(actor.state, 0).turn
    return viewers, actor, mano


async def test_said_calls_count_when_the_option_is_on_and_the_call_is_legal() -> None:
    viewers, actor, mano = await started({"reserved_words": True})
    other = 1 - mano
    actor.post(tm.Chat(9, "mirón", "truco"))  # a spectator calls nothing
    actor.post(tm.Chat(other + 1, "x", "quiero"))  # nothing to accept yet
    actor.post(tm.Chat(mano + 1, "x", "quiero ir al baño"))
    actor.post(tm.Chat(mano + 1, "x", "¡Truco!"))
    await until(lambda: "truco" in acted(viewers, 1))
    actor.post(tm.Chat(other + 1, "x", "Quiero"))
    await until(lambda: "quiero" in acted(viewers, 1))
    await asyncio.sleep(0.02)
    assert acted(viewers, 1) == ["truco", "quiero"]
    # Every line is still chat that everybody at the table reads.
    said = [m.line.text for m in viewers.frames[9] if isinstance(m, p.Chat)]
    assert said == ["truco", "quiero", "quiero ir al baño", "¡Truco!", "Quiero"]
    await actor.stop()


async def test_said_calls_are_only_chat_when_the_option_is_off() -> None:
    viewers, actor, mano = await started({})
    actor.post(tm.Chat(mano + 1, "x", "truco"))
    await until(lambda: any(isinstance(m, p.Chat) for m in viewers.frames.get(2, [])))
    await asyncio.sleep(0.05)
    assert acted(viewers, 1) == []
    await actor.stop()
