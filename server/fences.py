"""The check every fence around a library's private parts makes at start-up
(server/asyncssh_private.py, server/cluster/nats_private.py): the installed version is the
one the fence was written for, and every private name it uses is there."""
from __future__ import annotations

from importlib.metadata import version
from typing import Callable, Iterable


def check_fence(package: str, fence: str, pinned: str, names: Iterable[tuple[str, str]],
                has: Callable[[str, str], bool], installed: str | None = None) -> None:
    """Raise RuntimeError unless ``package`` (or the version ``installed``) starts with
    ``pinned`` and ``has(where, name)`` holds for every one of ``names``."""
    found = version(package) if installed is None else installed
    if not found.startswith(pinned):
        raise RuntimeError(
            f"{fence} is written for {package} {pinned}x, not {found}: it uses private parts of "
            f"{package}. Install the pinned version (pip install -e .) or re-check every function "
            "there against the new version and update its pinned version.")
    missing = [f"{where}.{name}" for where, name in names if not has(where, name)]
    if missing:
        raise RuntimeError(f"{package} {found} lacks what {fence} uses: {missing}")
