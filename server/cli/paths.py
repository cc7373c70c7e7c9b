"""Where ``serve`` and ``host`` keep their database and host key unless told: a git checkout
keeps them in ./data and ./hostkeys as always (``make serve``); an installed command (pipx,
a wheel) in the user's data directory, or systemd's ``StateDirectory`` when a unit gives one."""
from __future__ import annotations

import os
from importlib import metadata
from pathlib import Path

PACKAGE = "truco-ssh"
HOST_KEY_NAME = "ssh_host_ed25519_key"
# The checkout this module runs from, if it is one (an editable install included).
_CHECKOUT = Path(__file__).resolve().parents[2]


def from_checkout() -> bool:
    return (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "server").is_dir()


def state_dir(env: dict[str, str] | None = None) -> Path:
    """The data directory of an installed server: $STATE_DIRECTORY (systemd's, the first if
    several), else $XDG_DATA_HOME/truco-ssh, else ~/.local/share/truco-ssh."""
    env = dict(os.environ) if env is None else env
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    base = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME") or Path.home()) / ".local" / "share")
    return Path(base) / PACKAGE


def default_paths(env: dict[str, str] | None = None, checkout: bool | None = None) -> tuple[Path, Path]:
    """(data directory, host key) when no flag or setting names them."""
    if from_checkout() if checkout is None else checkout:
        return Path("data"), Path("hostkeys") / HOST_KEY_NAME
    root = state_dir(env)
    return root / "data", root / "hostkeys" / HOST_KEY_NAME


def version() -> str:
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "0+unknown"
