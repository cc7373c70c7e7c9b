"""An operator's slash commands in the lobby chat (tui/operator_line.py)."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from protocol import moderation as m
from tui.operator_line import USAGE, Usage, operator_command


@pytest.mark.parametrize("line, command", [
    ("/who", m.Online()),
    ("/bans", m.ListRestrictions()),
    ("/LOG", m.ModerationLog()),
    ("/kick bob take a break", m.Kick(name="bob", reason="take a break")),
    ("/ban mallory", m.Restrict(what=m.BAN, on=m.ON_NAME, target="mallory")),
    ("/ban mallory 30 cheating again", m.Restrict(what=m.BAN, on=m.ON_NAME, target="mallory", minutes=30,
                                                   reason="cheating again")),
    ("/ban key mallory cheating", m.Restrict(what=m.BAN, on=m.ON_KEY, target="mallory", reason="cheating")),
    ("/ban net mallory 60", m.Restrict(what=m.BAN, on=m.ON_ADDRESS, target="mallory", minutes=60, prefix=True)),
    ("/ban 203.0.113.0/24", m.Restrict(what=m.BAN, on=m.ON_ADDRESS, target="203.0.113.0/24")),
    ("/ban SHA256:abc", m.Restrict(what=m.BAN, on=m.ON_KEY, target="SHA256:abc")),
    ("/mute ana", m.Restrict(what=m.MUTE, on=m.ON_NAME, target="ana", minutes=60)),
    ("/mute ip ana 5 spam", m.Restrict(what=m.MUTE, on=m.ON_ADDRESS, target="ana", minutes=5, reason="spam")),
    ("/lift 3", m.Lift(number=3)),
    ("/say  restart at 10:00 ", m.Broadcast(text="restart at 10:00")),
    ("/reports", m.Reports()),
    ("/settle 12", m.SettleReports(number=12)),
    ("/operators", m.ListOperators()),
    ("/operator add bob", m.NameOperator(key="bob")),
    ("/operator remove SHA256:abc", m.NameOperator(key="SHA256:abc", on=False)),
    ("/operator add ssh-ed25519 AAAAC3Nz bob@laptop", m.NameOperator(key="ssh-ed25519 AAAAC3Nz bob@laptop")),
    ("/settle 12 muted for a day", m.SettleReports(number=12, reason="muted for a day")),
    ("/close t7 a bug", m.CloseTable(table_id="t7", reason="a bug")),
    ("/ignore mallory", m.Ignore(name="mallory")),
    ("/unignore mallory", m.Ignore(name="mallory", on=False)),
    ("/chat nobody", m.ChatSetting(hear="nobody")),
    ("/chat compañeros", m.ChatSetting(hear="partners")),
    ("/chat Todos", m.ChatSetting(hear="everyone")),
    ("/report mallory cheating saw my cards", m.ReportPlayer(name="mallory", reason="cheating",
                                                            text="saw my cards")),
    ("/report mallory Trampa", m.ReportPlayer(name="mallory", reason="cheating")),
    ("/report mallory ofensa", m.ReportPlayer(name="mallory", reason="abuse")),
])
def test_a_slash_line_is_the_operators_command(line, command):
    assert operator_command(line) == command


@pytest.mark.parametrize("line", ["hola", "/shrug", "/ whatever", "", "a /kick b"])
def test_anything_else_is_chat(line):
    assert operator_command(line) is None


@pytest.mark.parametrize("line, usage", [("/kick", "kick"), ("/lift x", "lift"), ("/ban", "ban"),
                                         ("/say", "say"), ("/mute net", "mute"), ("/report eve", "report"),
                                         ("/report eve because", "report"),
                                         ("/chat loud", "chat")])
def test_a_command_written_wrong_says_how_to_write_it(line, usage):
    with pytest.raises(Usage, match="^" + USAGE[usage].replace("[", r"\[").replace("|", r"\|") + "$"):
        operator_command(line)


@given(st.text(max_size=300))
def test_no_line_breaks_the_parser(line):
    try:
        command = operator_command(line)
    except Usage:
        return
    # (the line takes a player's own commands too: /chat, /ignore, /report)
    assert command is None or type(command) in m.OPERATOR_COMMANDS + (m.ChatSetting, m.Ignore, m.ReportPlayer)


@pytest.mark.parametrize("line", ["/IGNORE 0", "/chat nobody", "/report ana abuse x"])
def test_a_players_own_commands_parse_on_the_same_line(line: str) -> None:
    assert type(operator_command(line)) in (m.ChatSetting, m.Ignore, m.ReportPlayer)


@pytest.mark.parametrize("lang", ["en", "es", "pt"])
def test_the_help_tells_players_the_chat_commands_in_words_the_line_takes(lang):
    """The lobby's help names /ignore, /unignore, /chat and /report, and every reason and
    setting it suggests in that language is one the command line understands."""
    from tui.i18n import Translator

    body = Translator(lang)("help.body")
    for word in ("/ignore", "/unignore", "/chat", "/report"):
        assert word in body
    said = body[body.index("/report"):]
    reasons = said[said.index(":", said.index("(")) + 1:said.index(")", said.index("("))]
    words = [w.strip(" .") for w in reasons.replace(" or ", ",").replace(" u ", ",").replace(" ou ", ",").split(",")]
    assert len(words) == 5 and all(operator_command(f"/report x {w}") is not None for w in words), words
    chat = body[body.index("/chat"):].split(" ")[1:5]  # "/chat everyone, partners or nobody"
    settings = [w.strip(",") for w in chat if w not in ("or", "o", "ou")][:3]
    assert {operator_command(f"/chat {w}") for w in settings} == {
        m.ChatSetting(hear=m.HEAR_EVERYONE), m.ChatSetting(hear=m.HEAR_PARTNERS), m.ChatSetting(hear=m.HEAR_NOBODY)}
