"""The shared secret kept in the data folder (`token`, mode 0600)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def load_or_create_token(data_dir: Path) -> str:
    """The token kept in the data folder; made once with a secure random source. Created with
    `O_EXCL` (call it holding the store's lock): of two starts at once only one writes it, and the
    other reads what the first wrote."""
    path = data_dir / "token"
    if path.exists():
        token = path.read_text(encoding="utf-8").strip()
        if token:
            return token
        path.unlink()  # an empty file an interrupted start left
    token = secrets.token_urlsafe(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="utf-8").strip()
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(token + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.chmod(path, 0o600)
    return token
