"""server/ops/logs.py (text, JSON, under the journal) and server/cli/paths.py (where an installed
server keeps its data)."""
from __future__ import annotations

import io
import json
import logging
import re
from pathlib import Path

import pytest

from server.ops import logs
from server.cli.paths import default_paths, state_dir


@pytest.fixture(autouse=True)
def _root_logger_back():  # type: ignore[no-untyped-def]
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in saved:
        root.addHandler(handler)
    root.setLevel(level)


def test_json_lines_carry_the_process_and_the_session() -> None:
    out = io.StringIO()
    was = logs.process_name()
    logs.set_process_name("node-a")
    try:
        logs.setup("INFO", "json", stream=out, env={})
        logging.getLogger("truco-ssh").info("session %s: connected", "ana", extra={"session": "ana"})
        logging.getLogger("truco-ssh").debug("not shown")
    finally:
        logs.set_process_name(was)
    [line] = out.getvalue().splitlines()
    record = json.loads(line)
    assert record["message"] == "session ana: connected" and record["session"] == "ana"
    assert record["process"] == "node-a" and record["level"] == "INFO" and record["logger"] == "truco-ssh"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", record["time"])


def test_text_lines_have_a_time_stamp_except_under_the_journal(tmp_path: Path) -> None:
    out = io.StringIO()
    logs.setup("INFO", stream=out, env={})
    logging.getLogger("x").warning("hello")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \S+ WARNING \S+ x: hello\n", out.getvalue())
    out = io.StringIO()
    # under systemd a file asked for (``host --log-file``) is not written: the journal has it
    logs.setup("INFO", stream=out, filename=tmp_path / "f.log", env={"JOURNAL_STREAM": "8:1"})
    logging.getLogger("x").warning("hello")
    assert re.fullmatch(r"WARNING \S+ x: hello\n", out.getvalue()) and not (tmp_path / "f.log").exists()


def test_an_installed_server_keeps_its_data_in_the_user_data_directory(tmp_path: Path) -> None:
    assert default_paths(checkout=True) == (Path("data"), Path("hostkeys/ssh_host_ed25519_key"))
    home = {"HOME": str(tmp_path)}
    assert default_paths(home, checkout=False) == (
        tmp_path / ".local/share/truco-ssh/data", tmp_path / ".local/share/truco-ssh/hostkeys/ssh_host_ed25519_key")
    assert state_dir({**home, "XDG_DATA_HOME": "/x"}) == Path("/x/truco-ssh")
    assert state_dir({**home, "STATE_DIRECTORY": "/var/lib/truco-ssh:/var/lib/other"}) == Path("/var/lib/truco-ssh")
