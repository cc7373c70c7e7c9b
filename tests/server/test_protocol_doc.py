"""docs/PROTOCOL.md is generated from protocol/ and cannot drift (issue 17)."""
from __future__ import annotations

import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import protocol as p
from server.cli.protocol_doc import protocol_markdown

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "PROTOCOL.md"


def test_the_protocol_document_is_what_the_generator_makes_now() -> None:
    assert DOC.read_text(encoding="utf-8") == protocol_markdown(), (
        "docs/PROTOCOL.md is out of date: run `python -m server.cli.protocol_doc > docs/PROTOCOL.md`")


def test_every_message_and_field_is_documented() -> None:
    text = protocol_markdown()
    for kind, cls in p.MESSAGE_TYPES.items():
        assert f"### `{kind}` ({cls.__name__})" in text
        section = text.split(f"### `{kind}` ({cls.__name__})", 1)[1].split("\n### ", 1)[0]
        for name in (f.name for f in dataclasses.fields(cls)):
            assert f"| `{name}` |" in section, (kind, name)
    assert f"Protocol version **{p.PROTOCOL_VERSION}**" in text


def test_the_generator_runs_as_a_script() -> None:
    ran = subprocess.run([sys.executable, "-m", "server.cli.protocol_doc"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout == DOC.read_text(encoding="utf-8")


def test_the_readme_lists_every_option_of_truco_ssh_bot() -> None:
    import contextlib
    import io

    import pytest

    from server.cli.main import build_parser

    shown = io.StringIO()  # what `truco-ssh bot --help` prints: every option it takes
    with contextlib.redirect_stdout(shown), pytest.raises(SystemExit):
        build_parser().parse_args(["bot", "--help"])
    flags = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", shown.getvalue())) - {"--help", "--log-level"}
    assert {"--host", "--port", "--level", "--seed"} <= flags
    guide = (ROOT / "docs" / "PROGRAMS.md").read_text(encoding="utf-8")
    table = guide.split("`truco-ssh bot` is a bot", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"`(--[a-z-]+)`", table))
    assert documented == flags


def test_the_example_script_speaks_the_protocol_version() -> None:
    script = (ROOT / "docs" / "ssh_player.py").read_text(encoding="utf-8")
    found = re.search(r"^VERSION = (\d+)", script, re.M)
    assert found is not None
    assert int(found.group(1)) == p.PROTOCOL_VERSION, (
        "docs/ssh_player.py speaks another protocol version: update it (and the fields it reads)")
