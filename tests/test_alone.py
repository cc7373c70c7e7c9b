"""The lock that lets a test measure time with no other test running (tests/alone.py)."""
from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

from tests import alone


def _worker(folder: Path, index: int, log: "multiprocessing.Queue[tuple[str, bool, float]]") -> None:
    for turn in range(15):
        is_alone = index == 0 and turn == 4
        with alone.running(folder, is_alone):
            log.put(("start", is_alone, time.monotonic()))
            time.sleep(0.2 if is_alone else 0.01)  # a test's body: the time is the point here
            log.put(("end", is_alone, time.monotonic()))


def test_an_alone_test_runs_while_no_other_test_does(tmp_path: Path) -> None:
    log: "multiprocessing.Queue[tuple[str, bool, float]]" = multiprocessing.Queue()
    workers = [multiprocessing.Process(target=_worker, args=(tmp_path, i, log)) for i in range(4)]
    for w in workers:
        w.start()
    events = sorted((log.get(timeout=60) for _ in range(4 * 15 * 2)), key=lambda e: e[2])
    for w in workers:
        w.join(timeout=60)
    began = next(at for kind, is_alone, at in events if kind == "start" and is_alone)
    ended = next(at for kind, is_alone, at in events if kind == "end" and is_alone)
    others_before = [kind for kind, is_alone, at in events if at < began and not is_alone]
    assert others_before.count("start") == others_before.count("end")  # none under way when it began
    assert not [e for e in events if began < e[2] < ended and not e[1]]  # none began or ended meanwhile
    assert sum(kind == "start" for kind, _, _ in events) == 60  # and everybody got their turns


def test_without_xdist_nothing_is_locked() -> None:
    class Config:  # what pytest's config looks like to tests/alone.py without xdist
        pass

    assert alone.lock_folder(Config()) is None
    with alone.running(None, True):
        pass
