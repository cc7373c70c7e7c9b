"""`truco-ssh host` and `find` on the command line: table options, names, the invitation."""
from __future__ import annotations

import pytest

from server.cli.main import build_parser, config_from_args
from server.lan.host import TablePlan, invitation, parse_option, plan_from_args, uri


def test_table_options_take_their_types_and_unknown_ones_are_refused() -> None:
    assert parse_option("argentino", "target=15") == ("target", 15)
    assert parse_option("argentino", "flor=off") == ("flor", False)
    with pytest.raises(ValueError, match="unknown option"):
        parse_option("argentino", "colour=red")
    with pytest.raises(ValueError, match="on or off"):
        parse_option("argentino", "flor=maybe")
    with pytest.raises(ValueError, match="number"):
        parse_option("argentino", "target=lots")


def test_host_arguments_make_a_plan_and_a_server_config(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("USER", "root")  # a system account is no player name
    args = build_parser().parse_args(["host", "--players", "4", "-o", "target=15", "--no-mdns",
                                      "--port", "2300"])
    plan = plan_from_args(args)
    assert plan == TablePlan(name="host", variant="argentino", players=4, options={"target": 15})
    config = config_from_args(args)
    assert config.port == 2300 and config.mdns is False and config.host == "0.0.0.0"
    monkeypatch.setenv("USER", "ana")
    assert plan_from_args(build_parser().parse_args(["host"])).name == "ana"
    assert config_from_args(build_parser().parse_args(["serve"])).mdns is True


def test_the_invitation_has_a_link_per_address_and_a_qr_code_of_the_uri() -> None:
    plan = TablePlan(name="ana", variant="argentino", players=4, options={})
    lines = invitation("K7M2QX", "127.0.0.1", 2222, plan, "ana")
    assert "  ssh -p 2222 K7M2QX@127.0.0.1" in lines
    assert any("this machine only" in line for line in lines)  # loopback: no LAN address
    assert f"Scan with a phone SSH app: {uri('K7M2QX', '127.0.0.1', 2222)}" in lines
    assert lines[-1] == "  ssh -p 2222 K7M2QX@127.0.0.1"  # last: on screen under the QR code
    blocks = [line for line in "\n".join(lines).splitlines() if line and set(line) <= set("█▀▄ ")]
    assert len(blocks) >= 10 and len({len(line) for line in blocks}) <= 2
    assert uri("ABCDEF", "fe80::1", 2222) == "ssh://ABCDEF@[fe80::1]:2222"


def test_the_hosts_errors_are_said_in_the_terminals_language() -> None:
    from server.lan.host import HostError, OptionError
    from server.say import Phrase
    from tui.i18n import Translator

    with pytest.raises(OptionError) as refused:
        parse_option("argentino", "flor=quizas")
    assert str(refused.value) == "flor is on or off, not quizas"  # the log's English
    assert refused.value.said(Translator("es")) == "flor va en on u off, no quizas"
    assert refused.value.said(Translator("pt")) == "flor é on ou off, não quizas"
    taken = HostError("cli.host.name_refused", reason=Phrase("name.reason.taken", name="ana"))
    assert taken.said(Translator("es")) == 'Ya hay alguien conectado como "ana". Elegí otro nombre. (con --name elegís otro)'
    assert str(taken).startswith('Someone called "ana" is already online.')
