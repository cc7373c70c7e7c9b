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


def test_ssh_audit_finds_no_failure(tmp_path):
    port = _free_port()
    server = Server(tmp_path, port, "audit")
    try:
        server.wait_ready()
        ran = subprocess.run([AUDIT, "-j", "-p", str(port), "127.0.0.1"], capture_output=True,
                             text=True, timeout=60, stdin=subprocess.DEVNULL)
        report = json.loads(ran.stdout)
    finally:
        server.kill()
    failures = [n for part in ("kex", "key", "enc", "mac") for n in _notes(report.get(part, []))
                if n[1] == "fail"]
    assert failures == [], failures
    assert report.get("cves") == []
    kex = [entry["algorithm"] for entry in report["kex"]]
    assert "kex-strict-s-v00@openssh.com" in kex  # the Terrapin counter-measure
    assert kex[0] == "mlkem768x25519-sha256"  # post-quantum hybrid preferred
    assert report["banner"]["software"] is None or "asyncssh" not in str(report["banner"]).lower()
