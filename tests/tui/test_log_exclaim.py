"""A called bet reads as each language writes an exclamation: Spanish opens it with "¡"
("Beto: ¡Truco!"), and the match-over line agrees with a team name ("¡Partido para Ellos!")."""
from __future__ import annotations

from engine.testing import E, N, W, act, scenario
from tests.tui.kit import EN, ES, PT, log_text, model_for


def test_a_call_is_an_exclamation_in_each_language() -> None:
    state, _ = scenario({}, flor=False)
    state, ev = act(state, (N, "truco"), (W, "quiero"))
    wire = ev
    assert log_text(EN, state, E, wire)[:2] == ["Bot 1: Truco!", "Beto: Quiero!"]
    assert log_text(ES, state, E, wire)[:2] == ["Bot 1: ¡Truco!", "Beto: ¡Quiero!"]
    assert log_text(PT, state, E, wire)[:2] == ["Bot 1: Truco!", "Beto: Quiero!"]


def test_match_over_reads_naturally() -> None:
    assert ES("log.match_over", team="Ellos") == "¡Partido para Ellos!"
    assert PT("log.match_over", team="Dupla 2") == "Partida para Dupla 2!"
    assert EN("log.match_over", team="Them") == "Them win the match!"


def test_shown_cards_do_not_read_as_the_uruguayan_muestra() -> None:
    # "Bot 1 muestra (envido)" reads like the face-up muestra card at an Uruguayan table.
    assert ES("log.shown", who="Bot 1", reason="envido") == "Bot 1 mostró (envido):"


def test_three_players_win_by_name_not_as_this_hand_s_team() -> None:
    """Uruguayan three players score one by one: the log's game and match lines name the
    winner (the match-over dialog does too), never "Them", which was only that hand's side."""
    import random

    import engine

    from server.table.log_events import log_event
    from tui.event_text import log_lines

    rules = engine.get_ruleset("uruguayo", flor=False, target=15)
    rng = random.Random(11)
    state, events = engine.new_match(rules, 3, rng)
    log = list(events)
    while not state.match_over:
        if state.needs_deal:
            state, more = engine.deal(state, rng)
        else:
            state, more = engine.apply(state, rng.choice(engine.all_legal_actions(state)))
        log += more
    winners = [s for s in range(3) if state.games_won[s] >= rules.match_games]
    model = model_for(state, 0, log)
    names = ", ".join(model.name(s) for s in winners)
    lines = [line.plain for line in log_lines(ES, model, [log_event(e) for e in log], french=False)]
    assert lines[-1] == f"¡Partido para {names}!"
    assert lines[-2] == f"¡Chico para {names}!"
    assert not any(word in lines[-1] for word in ("Ellos", "Nosotros"))


def test_an_away_player_s_move_reads_whole_in_portuguese() -> None:
    # "o bot disse Quiero no lugar" stopped short: in whose place? ("em seu lugar")
    assert PT("log.covered_call.away", who="beto", call="Quiero") == \
        "beto está ausente: o bot disse Quiero em seu lugar."
    assert PT("log.covered_play.away", who="ana", card="7E") == "ana está ausente: o bot jogou 7E em seu lugar."


def test_a_wanted_envido_says_the_points_are_being_sung() -> None:
    # "Envido: Envido" said nothing: the envido was wanted, now each says his points.
    assert ES("table.envido_pending", calls="Envido + Real envido") == "A cantar los tantos: Envido + Real envido"
    assert PT("table.envido_pending", calls="Envido") == "Cantando os pontos: Envido"
    assert EN("table.envido_pending", calls="Envido") == "Points to declare: Envido"


def test_a_spectator_of_a_duel_sees_the_players_not_team_numbers() -> None:

    from tui.event_text import team_name

    state, _ = scenario({}, n=2, flor=False)
    model = model_for(state, None)
    assert [team_name(PT, model, t) for t in (0, 1)] == [model.name(0), model.name(1)]
    four, _ = scenario({}, flor=False)
    assert team_name(PT, model_for(four, None), 0) == "Dupla 1"  # real teams keep their names
