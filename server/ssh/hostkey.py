"""The server's ed25519 host key: created once, never regenerated."""
from __future__ import annotations

import os
from pathlib import Path

import asyncssh


def load_or_create_host_key(path: Path) -> asyncssh.SSHKey:
    """Load the host key at ``path``, creating it (mode 0600) on first start.

    The key is written to a temporary file opened with O_EXCL and mode 0600 and
    then renamed, so a crash never leaves a half-written or world-readable key,
    and two servers starting at once cannot both create one.
    """
    if path.exists():
        return asyncssh.read_private_key(str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519", comment="truco-ssh host key")
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(key.export_private_key())
        os.link(tmp, path)  # fails if another process created the key meanwhile
    except FileExistsError:
        return asyncssh.read_private_key(str(path))
    finally:
        tmp.unlink(missing_ok=True)
    path.with_name(path.name + ".pub").write_bytes(key.export_public_key())
    return key


def fingerprint(key: asyncssh.SSHKey) -> str:
    """The SHA256 fingerprint as OpenSSH prints it (``SHA256:...``)."""
    return str(key.get_fingerprint("sha256"))
