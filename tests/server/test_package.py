"""The package as an operator installs it (a wheel, as pipx does): built without setuptools'
deprecation warnings, with everything read at run time inside, and runs from anywhere with
its data in the user's data directory."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    source = out / "src"  # a copy: the build leaves nothing in the checkout
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "data", "hostkeys", "build", "*.egg-info", "__pycache__", ".*cache", ".hypothesis"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(source)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "deprecated" not in done.stdout + done.stderr, (done.stdout + done.stderr)[-3000:]
    [built] = out.glob("truco_ssh-*.whl")
    return built


def test_the_wheel_holds_what_is_read_at_run_time(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("tui/truco.tcss", "tui/locales/en.json", "tui/locales/es.json", "tui/locales/pt.json",
                   "engine/DECISIONS.md", "server/cli/main.py", "protocol/__init__.py"):
        assert needed in names, needed
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "License-Expression: MIT" in text and "Requires-Dist: prometheus-client" in text


def test_the_installed_command_runs_outside_the_checkout(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    bin_dir = env_dir / "bin"
    python = bin_dir / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # The dependencies from this test's environment (its path only: not its editable install).
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                    "--no-index", str(wheel)], check=True, capture_output=True, timeout=300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XDG_DATA_HOME", "STATE_DIRECTORY")}
    env.update(HOME=str(tmp_path / "home"), LANG="C.UTF-8")
    version = subprocess.run([str(bin_dir / "truco-ssh"), "--version"], cwd=elsewhere, env=env,
                             capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout.startswith("truco-ssh 0."), version.stderr
    where = subprocess.run([str(python), "-c", "import server; print(server.__file__)"], cwd=elsewhere,
                           env=env, capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(site)), where  # the wheel's code, not the checkout's
    server = subprocess.Popen([str(bin_dir / "truco-ssh"), "serve", "--host", "127.0.0.1", "--port", "0",
                               "--no-mdns"], cwd=elsewhere, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        for line in server.stdout:
            if "listening on 127.0.0.1:" in line:
                break
        else:
            pytest.fail(f"no ready line: {server.stderr.read() if server.stderr else ''}")
        data = tmp_path / "home" / ".local" / "share" / "truco-ssh"
        assert (data / "hostkeys" / "ssh_host_ed25519_key").is_file()
        assert (data / "data" / "truco.sqlite3").is_file()
        assert list(elsewhere.iterdir()) == []  # nothing written where it was started
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
