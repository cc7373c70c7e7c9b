"""A server process collects garbage less often (server/ops/gc_tuning.py): the young
generation every YOUNG allocations, start-up's objects frozen; cycles are still collected.
Run in a fresh interpreter: the collector's settings are the whole process's."""
from __future__ import annotations

import subprocess
import sys

_CHECK = """
import gc
from server.cli import main as cli
from server.ops import gc_tuning
assert gc.get_threshold()[0] == 700 and gc.get_freeze_count() == 0, "tuned on import"
tuned = []
def tune():
    tuned.append(1)
    gc_tuning_tune()
gc_tuning_tune, gc_tuning.tune = gc_tuning.tune, tune
def run(coro):
    coro.close()
cli.asyncio.run = run  # main() as far as starting the server, without starting it
assert cli.main(["serve", "--port", "0"]) == 0 and tuned == [1], tuned
assert gc.get_threshold() == (gc_tuning.YOUNG, 10, 10), gc.get_threshold()
assert gc.get_freeze_count() > 10_000, gc.get_freeze_count()
class Node:
    pass
a, b = Node(), Node()
a.other, b.other = b, a  # a cycle made after the freeze: still garbage collected
import weakref
gone = weakref.ref(a)
del a, b
gc.collect()
assert gone() is None, "a cycle survived"
print("ok")
"""


def test_a_server_process_is_tuned_and_still_collects_cycles() -> None:
    done = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr
