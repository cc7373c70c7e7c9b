"""`truco-ssh ... --help` and argparse's own messages speak the terminal's language (LC_ALL,
LC_MESSAGES, LANG), as the rest of the command line does; English stays as it was."""
from __future__ import annotations

import argparse
import gettext
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from server.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = [[], ["serve"], ["host"], ["find"], ["bot"], ["options"], ["config"], ["config", "example"]]
LOCALES = {"es": "es_AR.UTF-8", "pt": "pt_BR.UTF-8"}

# What is literal in a help text, in every language: option strings, metavars (upper case),
# NAME=VALUE examples, choice sets, the program and its commands, paths, numbers, quoted values.
LITERAL = re.compile(r"truco-ssh(?: (?:serve|host|find|bot|options|config(?: example)?)\b)?|(?<!\w)-{1,2}[\w-]+|[\w.]+=\S+|\{[^}]*\}|\b[A-Z][A-Z0-9_]+\b"
                     r"|\S*/\S*|\d+(\.\d+)*|'[^']*'")


def prose(line: str) -> list[str]:
    """The words of a help line once the literal parts are gone (none: a line of options)."""
    return re.findall(r"[A-Za-z][a-z]+", LITERAL.sub(" ", line))


def untranslated(english: str, translated: str) -> list[str]:
    """Lines of ``translated`` that still say an English help line, or three words running of one."""
    english_lines = {" ".join(prose(line)) for line in english.splitlines() if len(prose(line)) >= 2}
    trigrams = {tuple(words[i:i + 3]) for line in english.splitlines()
                for words in [prose(line)] for i in range(len(words) - 2)}
    found = []
    for line in translated.splitlines():
        words = prose(line)
        if (len(words) >= 2 and " ".join(words) in english_lines) or any(
                tuple(words[i:i + 3]) in trigrams for i in range(len(words) - 2)):
            found.append(line)
    return found


def run(argv: list[str], lang: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``truco-ssh <argv>`` under ``LANG=lang``: exit status, stdout, stderr."""
    for var in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", lang)
    monkeypatch.setenv("COLUMNS", "100")  # argparse wraps to the terminal: the same in every run
    with pytest.raises(SystemExit) as exited:
        main(argv)
    out, err = capsys.readouterr()
    code = exited.value.code
    return code if isinstance(code, int) else 1, out, err


@pytest.mark.parametrize("lang", sorted(LOCALES))
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "truco-ssh")
def test_help_has_no_english_sentence_left(command: list[str], lang: str, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, english, _ = run([*command, "--help"], "C.UTF-8", monkeypatch, capsys)
    assert code == 0 and english.startswith("usage: ")
    code, translated, _ = run([*command, "--help"], LOCALES[lang], monkeypatch, capsys)
    assert code == 0 and translated.startswith("uso: ")
    left = untranslated(english, translated)
    assert not left, f"{lang}: {' '.join(command)} --help still says in English:\n" + "\n".join(left)
    # argparse's headings are one word or two: said in the language too
    assert not re.search(r"^(options|positional arguments|usage):", translated, re.M)
    # Options and metavars are the same words in every language.
    assert re.findall(r"--[\w-]+", translated) == re.findall(r"--[\w-]+", english)


def test_the_check_finds_english_where_there_is_some(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    _, english, _ = run(["serve", "--help"], "C.UTF-8", monkeypatch, capsys)
    _, spanish, _ = run(["serve", "--help"], LOCALES["es"], monkeypatch, capsys)
    assert len(untranslated(english, english)) > 20
    # one help line left in English among the Spanish ones
    mixed = spanish.replace("puerto TCP (por defecto 2222)", "TCP port (default 2222)")
    assert untranslated(english, mixed) == ["  --port PORT           TCP port (default 2222)"]
    assert untranslated(english, "  -h, --help  show this help and exit") != []  # three words of one


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "truco-ssh")
def test_english_help_is_unchanged(command: list[str], monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    _, english, _ = run([*command, "--help"], "C.UTF-8", monkeypatch, capsys)
    # argparse on its own (its gettext untouched) with the English catalog's help
    with pytest.raises(SystemExit):
        build_parser().parse_args([*command, "--help"])
    assert english == capsys.readouterr().out
    assert re.search(r"options:\n  -h, --help +show this help message and exit\n", english)


def test_english_words_of_the_help_as_they_were(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    _, serve, _ = run(["serve", "--help"], "C.UTF-8", monkeypatch, capsys)
    assert "address to listen on (default 0.0.0.0)" in serve
    assert "cluster (docs/CLUSTER.md):" in serve
    _, bot, _ = run(["bot", "--help"], "C.UTF-8", monkeypatch, capsys)
    assert "positional arguments:\n  name" in bot and "the bot's name at the table (its SSH username)" in bot


@pytest.mark.parametrize("argv, lang, expected", [
    (["serve", "--port", "x"], "es", "truco-ssh serve: error: argumento --port: valor inválido para int: 'x'"),
    (["serve", "--port", "x"], "pt", "truco-ssh serve: erro: argumento --port: valor inválido para int: 'x'"),
    (["serve", "--frob"], "es", "truco-ssh: error: argumentos desconocidos: --frob"),
    (["bot"], "es", "truco-ssh bot: error: faltan estos argumentos: name"),
    (["bot"], "pt", "truco-ssh bot: erro: faltam estes argumentos: name"),
    (["nope"], "pt", "truco-ssh: erro: argumento {serve,bot,admin,verify,options,find,host,config}: opção inválida: 'nope' "
                     "(escolha entre 'serve', 'bot', 'admin', 'verify', 'options', 'find', 'host', 'config')"),
    ([], "es", "truco-ssh: error: faltan estos argumentos: {serve,bot,admin,verify,options,find,host,config}"),
    (["host", "--variant", "chinchon"], "es", "argumento --variant: opción inválida: 'chinchon' (elegí entre"),
    (["serve", "--port"], "pt", "argumento --port: falta um valor"),
])
def test_a_bad_command_line_is_told_in_the_terminal_language(
        argv: list[str], lang: str, expected: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(argv, LOCALES[lang], monkeypatch, capsys)
    assert code == 2
    assert err.startswith("uso: ") and expected in err, err


def test_a_bad_command_line_in_english(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["serve", "--frob"], "C.UTF-8", monkeypatch, capsys)
    assert code == 2 and "truco-ssh: error: unrecognized arguments: --frob" in err
    _, _, err = run(["bot"], "C.UTF-8", monkeypatch, capsys)
    assert "truco-ssh bot: error: the following arguments are required: name" in err


def test_lc_all_wins_and_argparse_gets_its_gettext_back(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LC_ALL", "pt_BR.UTF-8")
    monkeypatch.setenv("LANG", "es_AR.UTF-8")
    with pytest.raises(SystemExit):
        main(["find", "--help"])
    assert "quanto tempo escutar" in capsys.readouterr().out
    assert argparse._ is gettext.gettext and argparse.ngettext is gettext.ngettext  # type: ignore[attr-defined]


def test_the_installed_command_speaks_portuguese() -> None:
    """The real program, as an operator runs it: ``LANG=pt_BR.UTF-8 truco-ssh host --help``."""
    env = {**os.environ, "LANG": "pt_BR.UTF-8", "COLUMNS": "100", "PYTHONPATH": str(ROOT)}
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    done = subprocess.run([sys.executable, "-m", "server.cli.main", "host", "--help"], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # no library's warnings on the operator's terminal (server/__init__.py)
    assert done.stdout.startswith("uso: truco-ssh host")
    assert "seu nome de jogador (padrão: seu usuário do sistema)" in done.stdout
    assert "opções:" in done.stdout and "options:" not in done.stdout
