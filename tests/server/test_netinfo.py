"""The connect lines ``truco-ssh serve`` prints: the player's name goes before the @."""
from __future__ import annotations

from pathlib import Path

from server.lan.netinfo import connect_lines, ssh_command

README = Path(__file__).resolve().parents[2] / "README.md"


def test_each_address_gets_a_line_with_the_name_before_the_at() -> None:
    lines = connect_lines(["192.168.1.20", "10.0.0.5"], 2222)
    assert lines == [
        "Players connect with (NAME is your player name):",
        "  ssh -p 2222 NAME@192.168.1.20",
        "  ssh -p 2222 NAME@10.0.0.5",
    ]


def test_no_address_offers_this_machine_only() -> None:
    lines = connect_lines([], 2300)
    assert lines[0] == "Players connect with (NAME is your player name):"
    assert lines[1].startswith("  ssh -p 2300 NAME@127.0.0.1 ")
    assert "this machine only" in lines[1]


def test_ipv6_hosts_are_bracketed_and_port_22_is_left_out() -> None:
    assert ssh_command("fd00::7", 2222) == "ssh -p 2222 NAME@[fd00::7]"
    assert ssh_command("example.org", 22) == "ssh NAME@example.org"
    assert ssh_command("example.org", 22, "ana") == "ssh ana@example.org"


def test_the_readme_quick_start_shows_the_lines_as_printed() -> None:
    text = README.read_text(encoding="utf-8")
    for line in connect_lines(["192.168.1.20"], 2222):
        assert line in text
