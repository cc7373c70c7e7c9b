"""ssh-audit against the running server: no weak algorithm offered, strict kex advertised."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.test_openssh_tmux import Server, _free_port

pytestmark = pytest.mark.e2e

AUDIT = shutil.which("ssh-audit") or str(Path(sys.executable).parent / "ssh-audit")


def _notes(section: list[dict]) -> list[tuple[str, str, str]]:
    found = []
    for entry in section:
        for level, texts in (entry.get("notes") or {}).items():
            for text in texts:
                found.append((entry.get("algorithm", ""), level, text))
    return found


def _audit(tmp_path: Path, *extra: str) -> dict:
    port = _free_port()
    server = Server(tmp_path, port, "audit", extra)
    try:
        server.wait_ready()
        ran = subprocess.run([AUDIT, "-j", "-p", str(port), "127.0.0.1"], capture_output=True,
                             text=True, timeout=60, stdin=subprocess.DEVNULL)
        return json.loads(ran.stdout)
    finally:
        server.kill()


def _check(report: dict) -> list[str]:
    failures = [n for part in ("kex", "key", "enc", "mac") for n in _notes(report.get(part, []))
                if n[1] == "fail"]
    assert failures == [], failures
    assert report.get("cves") == []
    assert report["banner"]["software"] is None or "asyncssh" not in str(report["banner"]).lower()
    kex = [entry["algorithm"] for entry in report["kex"]]
    assert "kex-strict-s-v00@openssh.com" in kex  # the Terrapin counter-measure
    return kex


def test_ssh_audit_finds_no_failure(tmp_path):
    """The server answers a client's KEXINIT listing only that client's picks
    (server/ssh/kexinit.py), so ssh-audit sees the algorithms its own list chose: none weak.
    Without compression the server sends its KEXINIT at once, every configured algorithm in
    it: none weak either, the post-quantum hybrid first."""
    (tmp_path / "picks").mkdir()
    (tmp_path / "full").mkdir()
    kex = _check(_audit(tmp_path / "picks"))
    assert len([alg for alg in kex if not alg.startswith(("ext-info", "kex-strict"))]) == 1
    kex = _check(_audit(tmp_path / "full", "--no-compression"))
    assert kex[0] == "mlkem768x25519-sha256"  # post-quantum hybrid listed first
