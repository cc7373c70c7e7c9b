"""Bans and mutes, and whose keys are operators' (server/moderation/): what each holds to."""
from __future__ import annotations

import ipaddress
import time

import asyncssh
import pytest
from hypothesis import given, strategies as st

import protocol as p
from protocol import moderation as m
from server.moderation.book import Moderation, RestrictionBook
from server.moderation.reports import TableLine, table_evidence, Report, evidence, queue
from server.moderation.operators import OPERATORS_FILE, OperatorKeyError, fingerprint_of_key, read_operators
from server.moderation.restrictions import BadTarget, Restriction, address_in, network


def _ban(on: str, target: str, until: float = 0.0, what: str = m.BAN, number: int = 1) -> Restriction:
    return Restriction(number, what, on, target, until, "spam", "SHA256:op", 0.0)


def test_an_address_widens_to_its_household_network_and_a_network_stays_itself():
    assert network("203.0.113.77") == "203.0.113.77/32"
    assert network("203.0.113.77", prefix=True) == "203.0.113.0/24"
    assert network("2001:db8:1:2:3:4:5:6", prefix=True) == "2001:db8:1:2::/64"
    assert network("10.0.0.0/8", prefix=True) == "10.0.0.0/8"  # wider already
    with pytest.raises(BadTarget):
        network("not-an-address")


@given(st.ip_addresses())
def test_every_address_is_in_its_own_widened_network(address):
    assert address_in(str(address), network(str(address), prefix=True))
    assert address_in(str(address), network(str(address)))


def test_an_ipv4_client_on_a_dual_stack_socket_is_matched_by_its_ipv4_ban():
    assert address_in("::ffff:203.0.113.5", "203.0.113.0/24")
    assert not address_in("203.0.114.5", "203.0.113.0/24")
    assert not address_in("2001:db8::1", "203.0.113.0/24")
    assert not address_in("garbage", "203.0.113.0/24")


def test_a_ban_holds_to_its_key_name_or_address_only():
    key, name, net = _ban(m.ON_KEY, "SHA256:abc"), _ban(m.ON_NAME, "ana"), _ban(m.ON_ADDRESS, "198.51.100.0/24")
    assert key.holds_to("SHA256:abc", None, "1.2.3.4") and not key.holds_to(None, "ana", "1.2.3.4")
    assert name.holds_to(None, "ana", "1.2.3.4") and not name.holds_to("SHA256:abc", "bob", "1.2.3.4")
    assert net.holds_to(None, None, "198.51.100.200") and not net.holds_to(None, None, "198.51.101.1")


def test_the_book_forgets_what_ran_out_and_tells_a_ban_from_a_mute():
    now = time.time()
    book = RestrictionBook([_ban(m.ON_NAME, "ana", until=now - 1, number=1),
                            _ban(m.ON_NAME, "bob", until=now + 60, number=2),
                            _ban(m.ON_NAME, "eve", what=m.MUTE, number=3)])
    assert book.banned(None, "ana", "1.1.1.1") is None  # ran out
    assert book.banned(None, "bob", "1.1.1.1") is not None
    assert book.banned(None, "eve", "1.1.1.1") is None and book.muted(None, "eve", "1.1.1.1") is not None
    assert [r.number for r in book.in_force()] == [2, 3]
    assert book.lift(2) is not None and book.banned(None, "bob", "1.1.1.1") is None


def test_what_a_banned_player_is_told_says_until_when_and_why():
    assert _ban(m.ON_NAME, "ana").told() == "banned from this server for good: spam"
    muted = Restriction(1, m.MUTE, m.ON_NAME, "ana", 86400.0, "", "", 0.0)
    assert muted.told() == "muted until 1970-01-02 00:00 UTC"


def test_operators_are_read_from_the_file_and_the_command_line_and_a_guest_is_never_one(tmp_path, caplog):
    one, two, three = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(3))
    fp = [str(k.get_fingerprint("sha256")) for k in (one, two, three)]
    (tmp_path / OPERATORS_FILE).write_text(
        f"# the operators\n{fp[0]}\n{two.export_public_key().decode().strip()} someone@laptop\nnonsense\n")
    pub = tmp_path / "three.pub"
    pub.write_bytes(three.export_public_key())
    operators = read_operators(tmp_path, [str(pub)])
    assert operators == frozenset(fp)
    assert "line 4" in caplog.text  # the bad line is said, and skipped
    moderation = Moderation(operators)
    assert moderation.is_operator(fp[1]) and not moderation.is_operator(None)
    with pytest.raises(OperatorKeyError):
        fingerprint_of_key("ssh-ed25519 not-base64")
    assert read_operators(tmp_path / "none") == frozenset()


def test_a_restriction_line_fits_the_protocol():
    line = _ban(m.ON_ADDRESS, str(ipaddress.ip_network("2001:db8::/64")), until=1e9).line()
    assert line.until == 1_000_000_000 and line.target == "2001:db8::/64"


def _report(number: int, reported: str, by: str, at: float, by_key: str = "", reported_key: str = "") -> Report:
    return Report(number, at, reported, reported_key, "203.0.113.9", "abuse", "", by, by_key, "198.51.100.1",
                  None, (), ())


def test_the_queue_puts_the_player_reported_by_the_most_distinct_people_first():
    reports = [
        _report(1, "eve", "ana", 10.0), _report(2, "eve", "ana", 11.0),  # one person twice: one reporter
        _report(3, "Mallory", "ana", 5.0), _report(4, "mallory", "bob", 6.0, by_key="SHA256:bob"),
        _report(5, "mallory", "carla", 7.0),
    ]
    lines = queue(reports, 10)
    assert [(line.reported, line.reporters, line.number) for line in lines] == [("mallory", 3, 5), ("eve", 1, 2)]
    assert [line.reported for line in queue(reports, 1)] == ["mallory"]


LINE = st.builds(lambda sender, text, system: p.ChatLine(sender=sender, text=text, ts=0, system=system),
                 st.sampled_from(["ana", "ANA", "bob", "mallory", "eve", "Mallory"]), st.text(max_size=20),
                 st.booleans())


@given(st.lists(LINE, max_size=60))
def test_a_reports_evidence_holds_only_the_two_players_own_lobby_lines(chat):
    said = evidence(chat, "ana", "mallory")
    assert len(said) <= m.EVIDENCE_LINES
    mine = [f"{line.sender}: {line.text}" for line in chat
            if not line.system and line.sender.lower() in ("ana", "mallory")]
    assert list(said) == mine[-m.EVIDENCE_LINES:]


NAMES = ["ana", "bob", "mallory", "eve"]  # seats 0-3: ana and mallory partners, bob and eve
TABLE_LINE = st.builds(TableLine, st.sampled_from(NAMES + ["Mallory", "ANA"]), st.text(max_size=20), st.booleans())


@given(st.lists(TABLE_LINE, max_size=80), st.sampled_from(NAMES), st.sampled_from(NAMES))
def test_a_reports_table_evidence_holds_only_what_the_two_said_where_the_reporter_could_hear_it(
        lines, reporter, reported):
    said = table_evidence(lines, NAMES, reporter, reported, "(table t1, match 1, log event 9)")
    partners = reporter != reported and NAMES.index(reporter) % 2 == NAMES.index(reported) % 2
    heard = [f"[{'partners' if line.partners else 'table'}] {line.sender}: {line.text}" for line in lines
             if line.sender.lower() in (reporter, reported) and (partners or not line.partners)]
    assert said == ("(table t1, match 1, log event 9)", *heard[-(m.EVIDENCE_LINES - 1):])
    # Another pair's partner-only words never: here, an opponent's words to its partner.
    if not partners:
        assert not any(line.startswith("[partners]") for line in said)
