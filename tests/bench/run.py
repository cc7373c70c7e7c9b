"""`make bench`: every benchmark, printed as a table and written to bench-results/latest.json."""
from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

import engine_bench  # noqa: E402
import log_bench  # noqa: E402
import session_bench  # noqa: E402
import table_bench  # noqa: E402


def main() -> None:
    results: dict[str, object] = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "machine": f"{platform.machine()} {platform.python_version()}",
    }
    print("== engine: random legal hands, one core ==")
    engine = engine_bench.run()
    results["engine"] = engine
    for size, figures in engine.items():
        print(f"  {size}: " + ", ".join(f"{k} {v:,.0f}" for k, v in figures.items()))
    print("== event log: SQLite writer, and the latency it adds per action ==")
    log_figures = log_bench.run()
    results["event_log"] = log_figures
    for key, value in log_figures.items():
        print(f"  {key:44s} {value:12.3f}")
    print("== sessions: 20 SSH sessions in the lobby ==")
    sessions = session_bench.run(20)
    results["sessions"] = sessions
    for key, value in sessions.items():
        print(f"  {key:32s} {value:10.2f}")
    print("== table: 2 players over SSH, 100 actions ==")
    table = table_bench.run(100)
    results["table"] = table
    for key, value in table.items():
        print(f"  {key:34s} {value:10.2f}")
    out = HERE.parents[1] / "bench-results"
    out.mkdir(exist_ok=True)
    (out / "latest.json").write_text(json.dumps(results, indent=2))
    print(f"written to {out / 'latest.json'}")


if __name__ == "__main__":
    main()
