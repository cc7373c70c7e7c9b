"""Whose SSH keys are operators': the fingerprints in ``DATA_DIR/operators`` and those given
with ``--operator-key``. A line of the file (or an option's value) is a fingerprint
(``SHA256:...``, as ``ssh-keygen -lf`` prints it) or an OpenSSH public key line (as in
``authorized_keys``; its comment is ignored); ``#`` starts a comment. A guest, who has no
key, is never an operator.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Iterable

import asyncssh

log = logging.getLogger(__name__)

OPERATORS_FILE = "operators"


class OperatorKeyError(ValueError):
    """An operator key that is neither a fingerprint nor a public key."""


def fingerprint_of(text: str) -> str:
    text = text.strip()
    if text.startswith("SHA256:"):
        return text.split()[0]
    try:
        return str(asyncssh.import_public_key(text).get_fingerprint("sha256"))
    except (asyncssh.KeyImportError, ValueError) as exc:
        raise OperatorKeyError(f"not a key fingerprint or an OpenSSH public key: {text[:60]!r}") from exc


def read_operators(data_dir: Path, given: Iterable[str] = ()) -> frozenset[str]:
    """Every operator's fingerprint. ``given``: each a fingerprint, a public key, or the path
    of a public key file. A bad line of the file is logged and skipped (the others hold);
    a bad key given on the command line is an error (``OperatorKeyError``)."""
    found: set[str] = set()
    path = data_dir / OPERATORS_FILE
    if path.exists():
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            try:
                found.add(fingerprint_of(line))
            except OperatorKeyError as exc:
                log.warning("%s line %d: %s (skipped)", path, number, exc)
    found.update(fingerprint_of_key(item) for item in given)
    return frozenset(found)


def fingerprint_of_key(item: str) -> str:
    """The fingerprint of an operator's key as given on the command line: a fingerprint, a
    public key, or the path of a public key file."""
    candidate = Path(item).expanduser()
    if not item.startswith("SHA256:") and candidate.is_file():
        item = candidate.read_text(encoding="utf-8", errors="replace").strip()
    return fingerprint_of(item)
