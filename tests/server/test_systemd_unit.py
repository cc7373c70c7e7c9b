"""contrib/systemd: the unit and its cluster drop-in pass ``systemd-analyze verify`` with no
warning, and keep the hardening the docs promise."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "contrib" / "systemd" / "truco-ssh.service"
DROP_IN = ROOT / "contrib" / "systemd" / "truco-ssh-cluster.conf"
SHIPPED_PATH = "/usr/local/bin/truco-ssh"
# systemd-analyze checks that ExecStart's program exists: this test's own `truco-ssh`.
INSTALLED = Path(sys.executable).parent / "truco-ssh"


def verify(tmp_path: Path, drop_in: str | None = None) -> subprocess.CompletedProcess[str]:
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed (apt-get install systemd)")
    if not INSTALLED.exists():
        pytest.skip(f"no installed truco-ssh next to {sys.executable}")
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text().replace(SHIPPED_PATH, str(INSTALLED)))
    if drop_in is not None:
        (tmp_path / f"{UNIT.name}.d").mkdir()
        (tmp_path / f"{UNIT.name}.d" / "cluster.conf").write_text(drop_in.replace(SHIPPED_PATH, str(INSTALLED)))
    return subprocess.run(["systemd-analyze", "verify", "--man=no", str(unit)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


def test_the_unit_verifies_without_a_warning(tmp_path: Path) -> None:
    done = verify(tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stderr


@pytest.mark.parametrize("variant", ["--workers", "--nats"])
def test_the_cluster_drop_in_verifies_in_both_variants(tmp_path: Path, variant: str) -> None:
    text = DROP_IN.read_text()
    if variant == "--nats":  # the operator keeps (b): (a) commented out, (b) not
        text = "\n".join(("#" + line if "--workers auto" in line else line.removeprefix("#"))
                         if line.startswith(("ExecStart=/", "#ExecStart=/")) else line
                         for line in text.splitlines())
    assert sum(line.startswith("ExecStart=/") and variant in line for line in text.splitlines()) == 1
    done = verify(tmp_path, text)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_a_misspelt_key_is_caught(tmp_path: Path) -> None:
    """The check above can fail: systemd-analyze warns of an unknown key."""
    done = verify(tmp_path, "[Service]\nNoNewPrivilege=yes\n")
    assert "Unknown key 'NoNewPrivilege'" in done.stderr


def test_the_unit_is_hardened() -> None:
    keys = {line.partition("=")[0]: line.partition("=")[2] for line in UNIT.read_text().splitlines()
            if "=" in line and not line.startswith("#")}
    assert keys["DynamicUser"] == "yes" and keys["StateDirectory"] == "truco-ssh"
    assert keys["ProtectSystem"] == "strict" and keys["NoNewPrivileges"] == "yes"
    assert keys["CapabilityBoundingSet"] == "" and keys["AmbientCapabilities"] == ""
    assert keys["KillSignal"] == "SIGTERM"
    assert "--config /etc/truco-ssh/truco-ssh.toml" in keys["ExecStart"]
