"""The lines that say who did what: the pending-bet line, the special hands, the log (the
piedras of a Venezuelan envite, a move the bot made for a timed-out seat, who took a trick),
in English, Spanish and Portuguese; and the same lines on the running table screen."""
from __future__ import annotations


import engine
import protocol as p

from engine.testing import E, N, S, W, act, scenario
from server.table.log_events import log_event
from tui.bets import pending_bets
from tui.event_text import log_lines
from tui.i18n import Translator

from tests.tui.helpers import screen_text
from tests.tui.kit import EN, ES, PT, NAMES, FakeLink, log_text, model_for, seated_app, table_shown, update_for

def bets_text(tr: Translator, state: engine.State, seat: int | None) -> str:
    return "  ".join(part.text for part in pending_bets(tr, model_for(state, seat)))


def test_the_seat_that_raised_is_named_not_a_player_of_its_team() -> None:
    state, _ = scenario({}, flor=False)
    state, _ = act(state, (N, "truco"), (W, "quiero"), (W, "retruco"))
    # W (seat 2, "Beto") raised; seat 0 ("Ana", his partner) is the one RULES call team 0.
    # The bet is named as the points line names it refused ("retruco not wanted").
    assert bets_text(EN, state, N) == "Retruco from Beto: answer!"
    assert bets_text(ES, state, N) == "Retruco de Beto: ¡a responder!"
    # Beto's side waits for the answer (nobody tells Ana to answer her partner), and so
    # does a spectator.
    assert bets_text(EN, state, E) == bets_text(EN, state, None) == "Retruco from Beto"
    # Beto himself is not told a Beto called it.
    assert bets_text(EN, state, W) == "Retruco (you)"
    assert bets_text(ES, state, W) == "Retruco (vos)"
    assert bets_text(PT, state, W) == "Retruco (você)"
    state, _ = act(state, (N, "quiero"), (S, "vale_cuatro"))
    assert "Vale cuatro from Bot 3" in bets_text(EN, state, None)


def test_envido_line_names_the_bettor_and_the_answer_waits() -> None:
    state, _ = scenario({}, flor=False)
    state, _ = act(state, (S, "envido"), (W, "real_envido"))
    assert bets_text(EN, state, N) == "Envido + Real envido from Beto: answer!"
    assert bets_text(PT, state, E) == "Envido + Real envido de Beto"
    state, _ = act(state, (N, "quiero"))
    assert bets_text(EN, state, N) == "Points to declare: Envido + Real envido"  # wanted: values are said


def test_contraflor_names_its_seat() -> None:
    state, _ = scenario({E: "1c 3c 5c", N: "4o 10o 12o"})
    state, _ = act(state, (E, "flor"), (N, "contraflor"))
    assert "Contraflor from Bot 1: answer!" in bets_text(EN, state, W)


def test_mao_de_onze_says_who_decides_and_is_scored_as_such() -> None:
    hands = {E: "3c Ac 7c", N: "3h Ah 7h", W: "3s As 7s", S: "3d Ad 7d"}
    state, dealt = scenario(hands, variant="paulista", face_up="Qh", scores=(11, 5))
    line = bets_text(EN, state, N)
    assert line == "Mão de onze: Ana, Beto decide: play for 3 or give up 1"
    assert "Truco" not in line and "from" not in line
    assert bets_text(PT, state, N).startswith("Mão de onze: Ana, Beto decidem")
    wire = dealt
    assert "Mão de onze" in log_text(EN, state, N, wire)[0]  # the deal says which hand it is
    state, said = act(state, (E, "quiero"))
    assert bets_text(EN, state, N) == "Mão de onze"
    # Nobody called truco, so nobody answers one: Ana chose to play the hand.
    assert log_text(EN, state, N, said) == ["Ana: Play for 3!"]
    assert log_text(PT, state, N, said) == ["Ana: Jogar!"]
    state, ev = act(state, (E, "play", "3c"), (N, "play", "7h"), (W, "play", "As"),
                    (S, "play", "7d"), (E, "play", "Ac"), (N, "play", "Ah"), (W, "play", "3s"),
                    (S, "play", "Ad"))
    lines = log_text(EN, state, N, ev)
    assert "Them +3 (mão de onze)" in lines
    # Read again later (the next hand is a normal one), the whole hand still says so.
    again = log_text(EN, state, N, [*dealt, *said, *ev])
    assert "Ana: Play for 3!" in again and "Them +3 (mão de onze)" in again
    assert "Eles +3 (mão de onze)" in log_text(PT, state, N, ev)


def test_mao_de_ferro_is_named() -> None:
    hands = {E: "Jc Jh Js", N: "7h 7d 2d", W: "Kc Ks Kd", S: "Ac Ah As"}
    state, _ = scenario(hands, variant="paulista", face_up="Qh", scores=(11, 11))
    assert bets_text(EN, state, E) == "Mão de ferro: everyone plays blind"
    state, ev = act(state, (E, "play_blind"))
    assert log_text(EN, state, E, ev) == ["Ana: J♣"]  # the card, face up now


def test_venezuelan_envite_amount_is_in_the_log_and_the_bets_line() -> None:
    state, _ = scenario({}, n=2, variant="venezolano", face_up="1o")
    seat = next(a.seat for a in engine.all_legal_actions(state) if a.call is engine.Call.ENVIDO_PUNTOS)
    state, ev = act(state, (seat, "envido_puntos", 5))
    wire = ev
    assert log_text(EN, state, 1 - seat, wire) == [f"{NAMES[seat]}: Envido 5 piedras!"]
    assert log_text(ES, state, 1 - seat, wire) == [f"{NAMES[seat]}: ¡Envido 5 piedras!"]
    assert log_text(PT, state, 1 - seat, wire) == [f"{NAMES[seat]}: Envido 5 piedras!"]
    assert f"Envido puntos (5 piedras) from {NAMES[seat]}: answer!" in bets_text(EN, state, 1 - seat)
    state, ev = act(state, (1 - seat, "piedras", 3))
    assert log_text(EN, state, seat, ev) == [f"{NAMES[1 - seat]}: Quiero y 3 piedras más!"]


def test_a_move_the_bot_made_for_a_timed_out_seat_says_so() -> None:
    state, _ = scenario({E: "7e 4b 5c"}, flor=False)
    state, ev = act(state, (E, "play", "7e"))
    wire = [engine.SeatCovered(E, "time"), *ev]
    assert log_text(EN, state, N, wire) == ["Time's up: the bot played 7E for Ana."]
    assert log_text(ES, state, N, wire) == ["Se acabó el tiempo: el bot jugó 7E por Ana."]
    assert log_text(PT, state, N, wire) == ["Acabou o tempo: o bot jogou 7E por Ana."]
    state, ev = act(state, (N, "truco"))
    wire = [engine.SeatCovered(N, "away"), *ev]
    assert log_text(EN, state, E, wire) == ["Bot 1 is away: the bot said Truco for them."]


def test_a_seat_handed_to_a_bot_for_good_says_why_once() -> None:
    state, _ = scenario({}, flor=False)
    assert log_text(EN, state, N, [engine.SeatCovered(W, "left")]) == [
        "Beto left the table: a bot plays their seat to the end of the match."]
    assert log_text(ES, state, N, [engine.SeatCovered(W, "left")]) == [
        "Beto dejó la mesa: un bot juega en su lugar hasta el final del partido."]
    assert log_text(PT, state, N, [engine.SeatCovered(E, "gone")]) == [
        "Ana não voltou a tempo: um bot assume o lugar até o fim da partida."]


def test_a_trick_is_taken_by_a_player() -> None:
    state, _ = scenario({E: "4e 5e 6b", N: "1e 4b 5b", W: "4o 5o 6o", S: "4c 5c 6c"}, flor=False)
    state, ev = act(state, (E, "play", "4e"), (N, "play", "1e"), (W, "play", "4o"), (S, "play", "4c"))
    lines = log_text(EN, state, E, ev)
    assert lines[-1] == "Trick 1: Bot 1 (Them)."


async def test_the_mao_de_onze_decider_is_offered_play_or_give_up() -> None:
    hands = {E: "3c Ac 7c", N: "3h Ah 7h", W: "3s As 7s", S: "3d Ad 7d"}
    state, events = scenario(hands, variant="paulista", face_up="Qh", scores=(5, 11))
    table = p.TableInfo(table_id="t1", title="mesa", variant="paulista", owner="Ana",
                        seats=NAMES[:4], options={}, status="playing")
    link = FakeLink()
    app = await seated_app(link, N, table=table)
    async with table_shown(app, link, update_for(state, N, 9, events, names=NAMES)):
        text = screen_text(app)
        assert "q Play for 3" in text and "n Give up 1" in text
        assert "Mão de onze: Bot 1, Bot 3 decide" in text


async def test_the_table_screen_names_the_seat_that_raised() -> None:
    state, events = scenario({}, flor=False)
    state, more = act(state, (N, "truco"), (W, "quiero"), (W, "retruco"))
    table = p.TableInfo(table_id="t1", title="mesa", variant="argentino", owner="Ana",
                        seats=NAMES[:4], options={"flor": False}, status="playing")
    link = FakeLink()
    app = await seated_app(link, E, table=table)
    async with table_shown(app, link, update_for(state, E, 9, [*events, *more], names=NAMES)):
        bets = app.screen.query_one("#t-bets")
        text = screen_text(app)
        assert "Retruco from Beto" in text and "answer!" not in text  # Ana is Beto's partner
        assert bets.region.height > 0


def test_three_player_log_names_each_hand_s_own_teams() -> None:
    """Uruguayan three players: the mano plays alone, a new split every hand, a score per
    player. A points line names the players of that hand's side (never "Them", which is
    another pair next hand), also in a log read again (a reconnect)."""
    import random

    rules = engine.get_ruleset("uruguayo", flor=False)
    rng = random.Random(7)
    state, events = engine.new_match(rules, 3, rng)
    log = list(events)
    manos = []
    while len(manos) < 3 and not state.match_over:
        if state.needs_deal:
            state, more = engine.deal(state, rng)
        else:
            legal = engine.all_legal_actions(state)
            state, more = engine.apply(state, rng.choice(legal))
        log += more
        manos += [e.mano for e in more if isinstance(e, engine.HandStarted)]
    model = model_for(state, 0, log)
    lines = [line.plain for line in log_lines(EN, model, [log_event(e) for e in log], french=False)]
    # Expected, from the events alone: the players of the side of each points line.
    expected, mano = [], None
    for event in log:
        if isinstance(event, engine.HandStarted):
            mano = event.mano
        if isinstance(event, engine.PointsScored):
            side = [s for s in range(3) if (s == mano) == (event.team == 0)]
            expected.append(" and ".join(model.name(s) for s in side) + f" +{event.points} ")
    got = [line for line in lines if " +" in line and "(" in line]
    assert len(got) == len(expected) >= 2 and len(set(manos)) > 1
    assert all(line.startswith(want) for line, want in zip(got, expected)), (got, expected)


def test_a_pica_pica_duel_says_who_plays_it() -> None:
    """Six players: in a pica-pica hand two seats play each duel; the log names them."""
    import random

    rules = engine.get_ruleset("argentino", flor=False)
    rng = random.Random(3)
    state, log = engine.new_match(rules, 6, rng)
    duels: list[engine.HandStarted] = []
    while len(duels) < 2 and not state.match_over:
        if state.needs_deal:
            state, more = engine.deal(state, rng)
        else:
            plays = [a for a in engine.all_legal_actions(state) if a.call is engine.Call.PLAY]
            state, more = engine.apply(state, rng.choice(plays or engine.all_legal_actions(state)))
        log += more
        duels += [e for e in more if isinstance(e, engine.HandStarted) and len(e.players) == 2]
    assert duels
    lines = log_text(ES, state, 0, log)
    for duel in duels:
        a, b = (NAMES[s] for s in duel.players)
        assert f"Pica-pica, duelo {duel.duel + 1}: {a} contra {b}." in lines
    assert any(line.endswith("Pica-pica") and line.startswith("Mano ") for line in lines)  # the deal


def test_each_pica_pica_duel_closes_with_its_own_points() -> None:
    """A duel's closing line adds up that duel alone (it read like the hand's running total
    before): the same line whether the duels before it are in the log or not."""
    import random

    rules = engine.get_ruleset("argentino", flor=False)
    rng = random.Random(3)
    state, log = engine.new_match(rules, 6, rng)
    while not any(isinstance(e, engine.HandEnded) and duel_of(log, e) > 1 for e in log) and not state.match_over:
        if state.needs_deal:
            state, more = engine.deal(state, rng)
        else:
            state, more = engine.apply(state, rng.choice(engine.all_legal_actions(state)))
        log += more
    whole = log_text(ES, state, 0, log)
    ended = [i for i, e in enumerate(log) if isinstance(e, engine.HandEnded) and duel_of(log, e) > 0]
    assert any(duel_of(log, log[end]) > 1 for end in ended)  # a duel after the first
    for end in ended:
        n = duel_of(log, log[end])
        dealt = max(i for i, e in enumerate(log[:end]) if isinstance(e, engine.HandDealt))
        start = max(i for i, e in enumerate(log[:end]) if isinstance(e, engine.HandStarted))
        alone = log_text(ES, state, 0, [log[dealt], *log[start:end + 1]])
        closing = alone[-1]
        assert closing.startswith(f"Fin del duelo {n}"), alone
        assert closing in whole, (closing, whole)


def duel_of(log: list[engine.Event], ended: engine.Event) -> int:
    """Which duel of a pica-pica hand ``ended`` closes (0: not a pica-pica duel)."""
    at = log.index(ended)
    started = next((e for e in reversed(log[:at]) if isinstance(e, (engine.HandStarted, engine.HandDealt))), None)
    return started.duel + 1 if isinstance(started, engine.HandStarted) and len(started.players) == 2 else 0


def test_a_carta_pasada_is_told_with_its_trick() -> None:
    """Venezuelan, two ties: a third card above one's second has no value (docs/RULES.md 4.6)."""
    hands = {0: "3e 4o 2e", 1: "3b 4e 4b"}
    state, _ = scenario(hands, n=2, variant="venezolano", face_up="1c", flor_declaration="automatic")
    state, _ = act(state, (0, "play", "3e"), (1, "play", "3b"), (0, "play", "4o"), (1, "play", "4e"))
    state, ev = act(state, (0, "play", "2e"), (1, "play", "4b"))
    lines = log_text(EN, state, 1, ev)
    assert "Trick 3: Bot 1 (Us). Carta pasada: Ana." in lines
    assert "Baza 3: Bot 1 (Nosotros). Carta pasada: Ana." in log_text(ES, state, 1, ev)


def _duel_after_a_bet() -> tuple[engine.State, list[engine.Event], set[int]]:
    """A six-player state just as a pica-pica duel (not the first) starts, the events since
    the deal, and the seats that bet in the duels before."""
    import random

    rules = engine.get_ruleset("argentino", flor=False)
    for seed in range(50):
        rng = random.Random(seed)
        state, _ = engine.new_match(rules, 6, rng)
        since_deal: list[engine.Event] = []
        while not state.match_over:
            if state.needs_deal:
                state, more = engine.deal(state, rng)
                since_deal = []
            else:
                legal = engine.all_legal_actions(state)
                bets = [a for a in legal if a.call in (engine.Call.TRUCO, engine.Call.ENVIDO)]
                state, more = engine.apply(state, rng.choice(bets if bets and rng.random() < 0.3 else legal))
            since_deal += more
            if any(isinstance(e, engine.HandStarted) and e.duel > 0 for e in more):
                bettors = {e.seat for e in since_deal if isinstance(e, engine.Acted) and e.call != "play"}
                if bettors:
                    return state, since_deal, bettors
    raise AssertionError("no pica-pica duel after a bet")


async def test_a_new_pica_pica_duel_clears_what_was_said_in_the_last() -> None:
    state, since_deal, bettors = _duel_after_a_bet()
    table = p.TableInfo(table_id="t1", title="mesa", variant="argentino", owner="Ana",
                        seats=NAMES, options={"flor": False}, status="playing")
    link = FakeLink()
    app = await seated_app(link, 0, table=table)
    async with table_shown(app, link, update_for(state, 0, 9, since_deal, names=NAMES)):
        rows = [line.split("│")[0] for line in screen_text(app).splitlines()]
        for seat in bettors:
            row = next(line for line in rows if line.strip(" ▶").startswith(NAMES[seat]))
            # the seat's bubble is empty: only name, team, cards, D/M and "bot" remain
            assert not any(word in row for word in ("Truco", "Envido", "Quiero", "mazo")), row


def test_estar_cantando_says_who_sings_and_who_must_answer_the_privo_y_truco() -> None:
    """Venezuelan: Ana's team needs one point; Bot 1's envite beats hers, so the hand starts
    with his "privo y truco" pending, which nobody said out loud (docs/RULES.md 4.12.1)."""
    state, _ = scenario({0: "4o 5e 6b", 1: "7e 6e 1b"}, n=2, variant="venezolano", face_up="4c",
                        scores=(23, 10), flor_declaration="automatic")
    assert bets_text(EN, state, 1) == "Privo y truco: Ana must answer"
    assert bets_text(ES, state, 0) == "Privo y truco: responde Ana"  # one player: singular verb
    state, _ = act(state, (0, "quiero"))
    assert bets_text(EN, state, 1) == "Estar cantando: Ana"


def test_a_trick_header_names_the_taker_whatever_the_column() -> None:
    from tui.widgets.table.seats import trick_head

    assert trick_head("2nd", "Bot 1", 12) == "2nd Bot 1"
    assert trick_head("2ª", "Bot 1", 7) == "Bot 1"  # the columns run in order: the name says more
    assert trick_head("2ª", "beto_el_largo", 7) == "2ª"  # never a cut name: his card is reversed


def test_a_hand_nobody_raised_is_won_by_the_tricks_not_by_truco() -> None:
    import random

    state, _ = engine.new_match(engine.get_ruleset("paulista"), 2, random.Random(1))
    scored = engine.PointsScored(team=0, points=1, reason="truco", scores=(1, 0))
    raised = engine.PointsScored(team=0, points=3, reason="truco", scores=(3, 0))
    assert log_text(PT, state, 0, [scored, raised]) == ["Nós +1 (rodadas)", "Nós +3 (truco)"]
    assert log_text(EN, state, 0, [scored]) == ["Us +1 (tricks)"]


async def test_the_trick_headers_follow_one_rule_across_the_row() -> None:
    # "2nd Ana" beside a bare "Paula" (whose number did not fit) read as two names in one header.
    state, events = scenario({0: "4c 1e 5o", 1: "7e 4e 6b"}, n=2, dealer=1, flor=False)
    more = act(state, (0, "play", "4c"), (1, "play", "7e"), (1, "play", "4e"), (0, "play", "1e"))
    state, events = more[0], [*events, *more[1]]
    assert engine.view(state, 0).trick_winners[:2] == (1, 0)  # Paula, then Ana
    link = FakeLink()
    app = await seated_app(link)
    update = update_for(state, 0, 3, events, names=("Ana", "Paula"))
    for size in ((60, 20), (80, 24), (200, 50)):
        async with table_shown(app, link, update, size=size) as pilot:
            header = next(line for line in screen_text(pilot.app).splitlines() if "3ª" in line or "3rd" in line)
            assert "Paula" in header and "Ana" in header, header
            assert ("1st" in header) == ("2nd" in header), header
        app = await seated_app(link := FakeLink())


def test_a_refused_raise_is_named_in_the_points_not_called_truco() -> None:
    """No quiero to a retruco: the log said "truco no querido", as if the truco was refused."""
    state, dealt = scenario({}, flor=False)
    state, said = act(state, (N, "truco"), (W, "quiero"), (W, "retruco"), (N, "no_quiero"))
    assert log_text(ES, state, N, [*dealt, *said])[-2:] == [
        "Ellos +2 (retruco no querido)", "Fin de la mano: Ellos 2 (retruco no querido)."]
    assert log_text(EN, state, N, [*dealt, *said])[-2] == "Them +2 (retruco not wanted)"
    state, dealt = scenario({}, variant="paulista", face_up="Qh", n=2)
    state, said = act(state, (0, "truco"), (1, "seis"), (0, "no_quiero"))
    assert log_text(PT, state, 0, [*dealt, *said])[-2:] == ["Eles +3 (seis recusado)",
                                                            "Fim da mão: Eles 3 (seis recusado)."]
    state, dealt = scenario({}, flor=False)
    state, said = act(state, (N, "truco"), (W, "no_quiero"))  # the truco itself: as before
    assert log_text(ES, state, N, [*dealt, *said])[-2] == "Nosotros +1 (truco no querido)"


def test_a_watcher_of_a_duel_reads_the_taker_once() -> None:
    """At two seats a watcher knows each side by its player's name: "Trick 1: Ana.", not
    "Trick 1: Ana (Ana)."; a player still reads his side."""
    state, _ = scenario({0: "4e 5e 6b", 1: "1e 4b 5b"}, n=2, flor=False)
    first = state.turn
    other = 1 - first
    cards = {0: "4e", 1: "1e"}
    state, ev = act(state, (first, "play", cards[first]), (other, "play", cards[other]))
    taker = NAMES[1]  # the ace of espadas
    assert log_text(EN, state, None, ev)[-1] == f"Trick 1: {taker}."
    assert log_text(ES, state, None, ev)[-1] == f"Baza 1: {taker}."
    assert log_text(EN, state, 1, ev)[-1] == f"Trick 1: {taker} (Us)."
    assert log_text(EN, state, 0, ev)[-1] == f"Trick 1: {taker} (Them)."
