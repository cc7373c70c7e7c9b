"""What `truco-ssh serve`, `host` and `find` print is in the terminal's language (LC_ALL,
LC_MESSAGES or LANG: es*, pt*, else English), from the players' locale files. `find` in
Spanish and Portuguese: tests/server/test_mdns.py."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.test_crash_restart import free_port
from tests.e2e.test_host_ssh import LINK, PtyProcess

pytestmark = pytest.mark.e2e

EXE = Path(sys.executable).parent / "truco-ssh"


def env_for(lang: str) -> dict[str, str]:
    env = dict(os.environ, LANG=lang)
    env.pop("LC_ALL", None)
    env.pop("LC_MESSAGES", None)
    return env


@pytest.mark.parametrize("lang, says", [
    ("es_AR.UTF-8", ("truco-ssh escuchando en 127.0.0.1:", "Huella de la clave del servidor: SHA256:",
                     "Los jugadores se conectan con (NOMBRE es su nombre de jugador):", "NOMBRE@127.0.0.1",
                     "Ctrl-C para pararlo.", "Apagando: avisándoles a los jugadores…", "Detenido.")),
    ("pt_BR.UTF-8", ("truco-ssh ouvindo em 127.0.0.1:", "Impressão digital da chave do servidor: SHA256:",
                     "Os jogadores entram com (NOME é o seu nome de jogador):", "NOME@127.0.0.1",
                     "Ctrl-C para parar.", "Desligando: avisando os jogadores…", "Parado.")),
])
def test_serve_speaks_the_terminals_language(tmp_path: Path, lang: str, says: tuple[str, ...]) -> None:
    port = free_port()
    out_file = tmp_path / "out.txt"
    with out_file.open("w") as out:
        proc = subprocess.Popen(
            [str(EXE), "serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(tmp_path / "d"),
             "--host-key", str(tmp_path / "key")], stdout=out, stderr=subprocess.STDOUT, env=env_for(lang))
        try:
            deadline = time.monotonic() + 30
            while says[4] not in out_file.read_text(encoding="utf-8"):
                assert proc.poll() is None and time.monotonic() < deadline, out_file.read_text(encoding="utf-8")
                time.sleep(0.05)
            proc.send_signal(signal.SIGINT)
            assert proc.wait(30) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    text = out_file.read_text(encoding="utf-8")
    for line in says:
        assert line in text, (line, text)
    assert "listening" not in text and "Stopped." not in text


async def test_host_speaks_spanish_in_a_spanish_terminal(tmp_path: Path) -> None:
    port = free_port()
    host = PtyProcess([str(EXE), "host", "--host", "127.0.0.1", "--port", str(port),
                       "--data-dir", str(tmp_path / "data"), "--host-key", str(tmp_path / "key"),
                       "--players", "4"], lang="es_AR.UTF-8")
    try:
        await host.wait_for(lambda: "Apretá Enter para sentarte (Ctrl-C cierra la mesa)." in host.text())
        out = host.text()
        link = LINK.search(out)
        assert link is not None, out
        code = link.group(2)
        assert f"Escaneá con una app de SSH del celular: ssh://{code}@127.0.0.1:{port}" in out
        assert f"Mesa privada de truco Argentino para 4; te sentás como hostess. Código: {code}" in out
        assert "Tus amigos entran con:\r\n  (no hay ninguna dirección de red: solo desde esta máquina)" in out
        # Ctrl-C before taking the seat (the pty is not the process's controlling terminal
        # here, so the signal a terminal would send is sent directly): everything ends.
        os.killpg(host.proc.pid, signal.SIGINT)
        await host.wait_for(lambda: host.proc.poll() is not None, timeout=15)
        assert "Detenido." in host.text()
    finally:
        host.close()


async def test_host_in_portuguese_refuses_an_unknown_option_in_portuguese(tmp_path: Path) -> None:
    ran = await asyncio.to_thread(
        subprocess.run, [str(EXE), "host", "--port", str(free_port()), "--data-dir", str(tmp_path / "d")],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30, env=env_for("pt_BR.UTF-8"))
    assert ran.returncode == 2
    assert "o truco-ssh host precisa de um terminal: você joga nele" in ran.stderr
    host = PtyProcess([str(EXE), "host", "--port", str(free_port()), "--data-dir", str(tmp_path / "d"),
                       "-o", "cor=azul"], lang="pt_BR.UTF-8")
    try:
        await host.wait_for(lambda: host.proc.poll() is not None, timeout=20)
        assert host.proc.returncode == 2
        assert "truco-ssh host: o argentino não tem a opção cor=azul" in host.text()
    finally:
        host.close()

