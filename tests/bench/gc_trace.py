"""The server under a bench, with every garbage collection timed, and what the slow ones freed.

Run in place of ``truco-ssh`` (the benches do when ``TRUCO_BENCH_GC=PATH`` is set:
tests/bench/session_bench.py): ``python tests/bench/gc_trace.py PATH serve ...``. Each
collection's generation, pause and objects freed go to PATH as JSON lines; a collection of
the middle or oldest generation also lists the types of the objects it freed, the largest
counts first (the objects of those generations are listed before it and after it, which
takes time of its own: the figures are for finding what the garbage is, not for timing
the server). With ``TRUCO_BENCH_GC_TIMES=1`` nothing is listed: every collection is only
timed, and the server runs as it would without the trace.
"""
from __future__ import annotations

import gc
import json
import os
import sys
import time
from collections import Counter
from typing import Any, TextIO

TYPES_SHOWN = 25


class Trace:
    def __init__(self, out: TextIO, list_freed: bool = True) -> None:
        self._out = out
        self._list_freed = list_freed
        self._started = 0.0
        self._before: dict[int, type] = {}

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        generation = info["generation"]
        if phase == "start":
            self._before = {}
            if generation >= 1 and self._list_freed:
                for gen in range(generation + 1):
                    self._before.update((id(o), type(o)) for o in gc.get_objects(gen))
            self._started = time.perf_counter()
            return
        pause = time.perf_counter() - self._started
        record: dict[str, Any] = {"t": round(time.monotonic(), 3), "gen": generation,
                                  "ms": round(pause * 1000, 2), "collected": info["collected"]}
        if self._before:
            after = {id(o) for gen in range(3) for o in gc.get_objects(gen)}  # (survivors move up)
            freed = Counter(t.__module__ + "." + t.__qualname__
                            for i, t in self._before.items() if i not in after)
            record["freed"] = freed.most_common(TYPES_SHOWN)
            self._before = {}
        self._out.write(json.dumps(record) + "\n")
        self._out.flush()


def main() -> None:
    path, args = sys.argv[1], sys.argv[2:]
    out = open(path, "w", encoding="utf-8")  # (open for the process's life)
    gc.callbacks.append(Trace(out, list_freed=os.environ.get("TRUCO_BENCH_GC_TIMES") != "1"))
    from server.cli.main import main as truco_main
    sys.exit(truco_main(args))


if __name__ == "__main__":
    main()
