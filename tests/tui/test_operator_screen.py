"""Pilot tests of the operators' screen (issue 34): only an operator's lobby offers it; its
lists show what the server answers; the keys act on the selected line (with a reason asked
first), the command line takes the slash commands, and a carried-out action asks again."""
from __future__ import annotations

import time

import protocol as p
from protocol import moderation as m
from tui.screens.operators import OperatorScreen, minutes_and_reason
from tui.screens.prompt import PromptScreen

from tests.tui.helpers import screen_text, toasts, until
from tests.tui.kit import FakeLink, TrucoApp, variant_infos

ONLINE = m.OnlineReport(lines=(
    m.OnlineLine(conn_id=1, name="op", fingerprint="SHA256:operatorkeyoperatorkey", address="127.0.0.1", operator=True),
    m.OnlineLine(conn_id=2, name="mallory", fingerprint="SHA256:mallorymallorymallory", address="10.0.0.9",
                 table_id="t1", seat=1),
    m.OnlineLine(conn_id=3, name="[b]guest[/b]", address="10.0.0.7"),
))


def lobby(operator: bool, lang: str = "en") -> tuple[TrucoApp, FakeLink]:
    link = FakeLink()
    app = TrucoApp(link, "op", lang)
    link.push(p.Welcome(name="op", guest=False, variants=tuple(variant_infos()), operator=operator),
              p.LobbySnapshot(players=(p.PlayerInfo(name="op"),), tables=(), chat=()))
    return app, link


async def test_only_an_operators_lobby_offers_the_screen() -> None:
    app, _ = lobby(operator=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "Lobby" in screen_text(app), "the lobby")
        assert "Operators" not in screen_text(app)
        await pilot.press("O")
        await pilot.pause()
        assert not isinstance(app.screen, OperatorScreen)


async def test_the_operator_kicks_and_bans_from_the_list_and_types_a_command() -> None:
    app, link = lobby(operator=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: "O Operators" in screen_text(app), "the lobby's key for the screen")
        await pilot.press("O")
        await until(pilot, lambda: isinstance(app.screen, OperatorScreen), "the operators' screen")
        assert link.sent[-1] == m.Online()
        link.push(ONLINE)
        await until(pilot, lambda: "mallory" in screen_text(app), "the online list")
        text = screen_text(app)
        assert "mallory" in text and "SHA256:malloryma…" in text and "t1, seat 2" in text
        assert "[b]guest[/b]" in text  # a name as written, never markup

        await pilot.press("down")  # mallory
        await pilot.press("k")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), "the reason asked")
        await pilot.press(*"spam")
        await pilot.press("enter")
        await until(pilot, lambda: link.sent[-1] == m.Kick(name="mallory", reason="spam"), "the kick")
        link.push(m.Done(action="kick", text="mallory disconnected"))
        await until(pilot, lambda: link.sent[-1] == m.Online(), "the list asked again after the action")

        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), "the ban's prompt")
        await pilot.press("escape")  # changed their mind: nothing is sent
        await until(pilot, lambda: isinstance(app.screen, OperatorScreen), "back at the list")
        assert link.sent[-1] == m.Online()
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), "the ban's prompt again")
        await pilot.press(*"1440 cheating")
        await pilot.press("enter")
        banned = m.Restrict(what=m.BAN, on=m.ON_KEY, target="SHA256:mallorymallorymallory", minutes=1440,
                            reason="cheating")
        await until(pilot, lambda: link.sent[-1] == banned, "the ban", seen=lambda: repr(link.sent[-1]))

        await pilot.press("down")  # the guest: banned by address
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen), "the mute's prompt")
        await pilot.press("enter")
        muted = m.Restrict(what=m.MUTE, on=m.ON_ADDRESS, target="10.0.0.7", minutes=60, reason="")
        await until(pilot, lambda: link.sent[-1] == muted, "the mute", seen=lambda: repr(link.sent[-1]))

        await pilot.press("colon")
        await pilot.press(*"say back in 5 minutes")
        await pilot.press("enter")
        await until(pilot, lambda: link.sent[-1] == m.Broadcast(text="back in 5 minutes"), "the broadcast")

        await pilot.press("2")
        await until(pilot, lambda: link.sent[-1] == m.ListRestrictions(), "the list of bans asked")
        link.push(m.RestrictionsReport(lines=(m.RestrictionLine(number=7, what="ban", on="key",
                                                                 target="SHA256:mallorymallorymallory", reason="cheating"),)))
        await until(pilot, lambda: "cheating" in screen_text(app), "the list of bans")
        await pilot.press("u")
        await until(pilot, lambda: link.sent[-1] == m.Lift(number=7), "the lift")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, OperatorScreen), "back in the lobby")


async def test_the_reports_list_opens_a_reports_evidence_in_spanish() -> None:
    app, link = lobby(operator=True, lang="es")
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: "Salón" in screen_text(app), "the lobby")
        await pilot.press("O")
        await until(pilot, lambda: isinstance(app.screen, OperatorScreen), "the operators' screen")
        await pilot.press("3")
        await until(pilot, lambda: link.sent[-1] == m.Reports(limit=200), "the reports asked")
        link.push(m.ReportsReport(lines=(m.ReportLine(number=4, reported="mallory", reason="abuse", by="ana",
                                                      reporters=2, evidence=("[table] mallory: idiota",)),)))
        await until(pilot, lambda: "mallory" in screen_text(app), "the reports list")
        assert "denuncias" in screen_text(app) and "mallory" in screen_text(app)
        await pilot.press("enter")
        await until(pilot, lambda: "[table] mallory: idiota" in screen_text(app), "the evidence",
                    seen=lambda: screen_text(app))


async def test_a_report_is_settled_with_what_was_done_and_the_list_asked_again_in_portuguese() -> None:
    app, link = lobby(operator=True, lang="pt")
    async with app.run_test(size=(60, 20)) as pilot:
        await until(pilot, lambda: "Saguão" in screen_text(app), "the lobby", seen=lambda: screen_text(app))
        await pilot.press("O")
        await until(pilot, lambda: isinstance(app.screen, OperatorScreen), "the operators' screen")
        await pilot.press("s")  # not on the online list: nothing happens
        await pilot.press("3")
        await until(pilot, lambda: link.sent[-1] == m.Reports(limit=200), "the reports asked")
        assert not any(isinstance(sent, m.SettleReports) for sent in link.sent)
        link.push(m.ReportsReport(lines=(m.ReportLine(number=9, reported="mallory", reason="abuse", by="ana",
                                                      reporters=3),)))
        await until(pilot, lambda: "ofensas" in screen_text(app), "the report, its reason in her words",
                    seen=lambda: screen_text(app))
        assert "s resolver" in screen_text(app) and "último" in screen_text(app)
        await pilot.press("s")
        await until(pilot, lambda: isinstance(app.screen, PromptScreen)
                    and "Dar por resolvidas as denúncias de mallory" in screen_text(app)
                    and "(até a #9)? Elas saem da fila." in screen_text(app),
                    "what was done, asked", seen=lambda: screen_text(app))
        await pilot.press(*"silenciada 1 dia")
        await pilot.press("enter")
        await until(pilot, lambda: link.sent[-1] == m.SettleReports(number=9, reason="silenciada 1 dia"), "settled",
                    seen=lambda: link.sent[-1])
        link.push(m.Done(action="settle", text="3 reports of mallory settled"))
        await until(pilot, lambda: link.sent[-1] == m.Reports(limit=200), "the queue asked again")
        await pilot.press("colon", *"operators", "enter")  # the list of operators: a dialog, here too
        await until(pilot, lambda: link.sent[-1] == m.ListOperators(), "the operators asked")
        link.push(m.OperatorsReport(lines=(m.OperatorLine(fingerprint="SHA256:opkey"),
                                           m.OperatorLine(fingerprint="SHA256:anakey", named=True, by="SHA256:opkey",
                                                          at=1_800_000_000))))
        await until(pilot, lambda: "nomeado por SHA256:opkey" in screen_text(app), "the operators shown",
                    seen=lambda: screen_text(app))
        assert "a configuração" in screen_text(app)


async def test_a_muted_player_is_told_until_when_in_her_language() -> None:
    app, link = lobby(operator=False, lang="es")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await until(pilot, lambda: "Salón" in screen_text(app), "the lobby")
        until_unix = int(time.time()) + 1800
        link.push(p.Error(code="muted", message="you are muted until ...", reason=str(until_unix)))
        said = time.strftime("%H:%M UTC", time.gmtime(until_unix))
        await until(pilot, lambda: any(f"Estás silenciado hasta las {said}" in t for t in toasts(app)),
                    "until when", seen=lambda: str(toasts(app)))
        link.push(p.Error(code="muted", message="you are muted for good", reason="0"))
        await until(pilot, lambda: any("silenciado para siempre" in t for t in toasts(app)), "for good",
                    seen=lambda: str(toasts(app)))


def test_minutes_then_a_reason() -> None:
    assert minutes_and_reason("30 spam in chat", 60) == (30, "spam in chat")
    assert minutes_and_reason("spam", 60) == (60, "spam")
    assert minutes_and_reason("", 0) == (0, "")


async def test_a_wide_terminal_shows_whole_keys() -> None:
    app, link = lobby(operator=True)
    async with app.run_test(size=(200, 50)) as pilot:
        await until(pilot, lambda: "O Operators" in screen_text(app), "the lobby's key for the screen")
        await pilot.press("O")
        await until(pilot, lambda: isinstance(app.screen, OperatorScreen), "the operators' screen")
        link.push(ONLINE)
        await until(pilot, lambda: "mallory" in screen_text(app), "the online list")
        assert "SHA256:mallorymallorymallory " in screen_text(app)
