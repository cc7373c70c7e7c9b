"""What was said already, by its frame's origin (server/origins.py): a repeat within the
last few is known, an origin-less frame (one process) is always new, and what is kept stays
bounded."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from server.origins import Origins


@given(st.lists(st.sampled_from(["", "f:1", "f:2", "f:3", "g:1", "g:2"]), max_size=60), st.integers(1, 4))
def test_a_repeat_among_the_last_ones_kept_is_known(origins: list[str], kept: int) -> None:
    said = Origins(kept)
    remembered: list[str] = []  # the model: the last `kept` new origins, oldest first
    for origin in origins:
        new = origin == "" or origin not in remembered
        assert said.first_time(origin) == new, (origin, remembered)
        if origin and new:
            remembered = (remembered + [origin])[-kept:]  # an older one is forgotten: bounded


def test_the_same_words_from_another_frame_are_new() -> None:
    said = Origins(8)
    assert said.first_time("front-a:5") and not said.first_time("front-a:5")
    assert said.first_time("front-a:6") and said.first_time("front-b:5")
    assert said.first_time("") and said.first_time("")
