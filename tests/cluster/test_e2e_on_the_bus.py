"""The same end-to-end tests, against a cluster of one (``serve --nats`` and a nats-server):
the in-process bus and the NATS one answer players alike. ``tests/e2e/harness.py`` starts
the cluster when ``TRUCO_TEST_BUS=nats``; any e2e test can be run so:
``TRUCO_TEST_BUS=nats pytest tests/e2e``. A few, quick ones run here in every ``make test``."""
from __future__ import annotations

import pytest

from tests.e2e import test_lobby_ssh, test_operators_ssh, test_reconnect_ssh

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def on_the_bus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRUCO_TEST_BUS", "nats")


test_chat_and_a_table = test_lobby_ssh.test_two_players_see_each_other_chat_and_fill_a_table
test_a_key_reserves_its_name = test_lobby_ssh.test_key_reserves_name_and_guests_cannot_take_it
test_a_second_login_replaces_the_first = test_lobby_ssh.test_same_key_again_replaces_the_old_session
test_stopping_ends_every_session_cleanly = test_lobby_ssh.test_server_stop_ends_every_session_cleanly
test_a_dropped_player_comes_back = test_reconnect_ssh.test_a_dropped_player_comes_back_to_the_same_cards_and_turn
test_an_operator_bans_a_key_for_good = (
    test_operators_ssh
    .test_only_an_operators_key_is_answered_and_a_banned_key_is_refused_at_the_handshake_even_after_a_restart)
test_an_operator_mutes_tells_and_kicks = (
    test_operators_ssh.test_a_muted_player_cannot_chat_the_others_hear_the_operators_and_a_kicked_terminal_is_told)
test_players_report_and_the_operator_reads_the_queue = (
    test_operators_ssh.test_players_report_with_the_evidence_and_the_operator_sees_the_most_reported_first)
test_an_ignored_player_is_not_heard_and_the_list_is_kept = (
    test_operators_ssh
    .test_an_ignored_player_is_not_heard_nor_seated_with_by_quick_play_and_the_list_is_kept_for_a_key)
test_a_chat_setting_is_kept_for_a_key = (
    test_operators_ssh.test_a_player_who_hears_nobody_sees_only_their_own_lines_and_it_is_kept_for_their_key)
test_an_operator_closes_a_table = (
    test_operators_ssh.test_an_operator_closes_a_table_its_players_are_back_in_the_lobby_and_nobody_lost)
