"""A front end's messages to the lobby host go over NATS, which delivers each at most once:
over a channel that loses, repeats and (on a reconnect) cuts messages, the front end's
numbering and resending (``Unconfirmed``) and the host's taking in turn (``InTurn``) give
the host every message exactly once, in the order sent, whatever is lost when."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from server.cluster.held_input import InTurn, Unconfirmed

FRONT = "front-1"
# What the channel does to each message sent: delivered, lost, or delivered twice
FATES = st.lists(st.sampled_from(["ok", "ok", "ok", "lost", "twice"]), max_size=400)


def _run(messages: int, fates: list[str], acks_lost: list[bool]) -> list[bytes]:
    """The front end sends ``messages``, a few at a time; whenever nothing new is confirmed it
    sends everything unconfirmed again (as its timer does). What the host took, in order."""
    sent, host, taken = Unconfirmed(), InTurn(), []
    fate, ack = iter(fates), iter(acks_lost)
    to_send = [f"m{i}".encode() for i in range(messages)]

    def publish(headers: dict[str, str], data: bytes) -> None:
        for _ in range({"ok": 1, "lost": 0, "twice": 2}[next(fate, "ok")]):
            verdict = host.check(FRONT, int(headers["Truco-In"]), int(headers["Truco-Low"]))
            if verdict:
                taken.append(data)

    for _round in range(10 * messages + 10):
        for data in to_send[:3]:  # new messages, numbered as sent
            headers = {"Truco-In": str(sent.number({}, data))}
            publish({**headers, "Truco-Low": str(sent.low())}, data)
        del to_send[:3]
        if not next(ack, False):  # the host's confirmation of how far it took
            sent.confirmed(host.took.get(FRONT, 0))
        if not to_send and not len(sent):
            break
        for headers, data in sent.again():  # the resend, oldest first
            publish({**headers, "Truco-Low": str(sent.low())}, data)
    return taken


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 40), FATES, st.lists(st.booleans(), max_size=200))
def test_every_message_reaches_the_host_once_in_order(messages: int, fates: list[str], acks_lost: list[bool]) -> None:
    assert _run(messages, fates, acks_lost) == [f"m{i}".encode() for i in range(messages)]


def test_a_host_that_forgot_a_front_end_takes_it_up_where_its_unconfirmed_messages_start() -> None:
    """A host that judged a front end gone forgets how far it came; the front end's next
    messages, numbered on, are taken once everything before them is confirmed or sent again."""
    host = InTurn()
    assert [host.check(FRONT, n, 1) for n in (1, 2, 3)] == [True, True, True]
    host.took.pop(FRONT)
    assert host.check(FRONT, 5, 4) is None  # 4 unconfirmed and not seen: a gap
    assert host.check(FRONT, 4, 4) is True and host.check(FRONT, 5, 4) is True
    assert host.check(FRONT, 5, 4) is False  # a repeat
    assert host.check(FRONT, 9, 9) is True  # nothing before it unconfirmed
