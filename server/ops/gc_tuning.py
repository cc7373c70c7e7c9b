"""The garbage collector tuned for a process that holds many sessions' screens.

CPython's default thresholds (700, 10, 10) run a young-generation collection every 700
new container objects. A terminal seat allocates tens of thousands of them per update
(Rich texts, strips, segments, Textual messages), nearly all freed at once by reference
counting, so the collector ran hundreds of times a second for nothing; and because it
ran so often, objects that were still alive for a few milliseconds were promoted, which
brought on full collections of the whole heap (every session's widgets): about 0.1 to
0.3 s each, a pause every player felt, and a tenth of the server's CPU at 25 tables.
Measured with tests/bench/load_bench.py and a ``gc.callbacks`` timer (docs/DEVELOPMENT.md).

Here the young generation is collected every :data:`YOUNG` allocations, and everything
alive when the server starts (modules, classes, parsed stylesheets: never garbage) is
frozen out of every collection. Cycles still go: later, and in fewer passes.
"""
from __future__ import annotations

import gc

#: New container objects between two young-generation collections (CPython's is 700).
YOUNG = 20_000


def tune() -> None:
    """Once, at the start of a server process, before any session (an idempotent call)."""
    gc.collect()  # what start-up left as garbage goes before the rest is frozen
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG, older, oldest)
