"""The store's files beside the database: the lock that keeps a second sidecar out, the checks of the
file before SQLite opens it, the WAL an unclean stop left (copied aside, compared with what recovery
read), the private folders, and the check that the open file is still the one at its path.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
import struct
import time
from pathlib import Path
from typing import BinaryIO

from vtt_bridge.errors import StoreBusy, StoreDamaged, StoreError


class StoreGone(StoreError, OSError):
    """The store's file was deleted or replaced under the running sidecar (`Store.check_file`); an
    `OSError` too, as the checkpoint's other failures of the disk are."""


def what_to_do(path: Path) -> str:
    return f"restore {path.name} from a copy, or move it away to start with an empty store"


def _wal_frames(wal: Path) -> tuple[int, int, int] | None:
    """(frames, commit frames, page size) of a WAL file's current generation, read from its frame
    headers (the salts of the file header); None when it has no valid header."""
    with wal.open("rb") as handle:
        head = handle.read(32)
        if len(head) < 32 or struct.unpack(">I", head[:4])[0] not in (0x377F0682, 0x377F0683):
            return None
        page_size = struct.unpack(">I", head[8:12])[0]
        salts = head[16:24]
        frames = commits = 0
        while True:
            frame = handle.read(24)
            if len(frame) < 24 or frame[8:16] != salts:
                break
            body = handle.read(page_size)
            if len(body) < page_size:
                break
            frames += 1
            if struct.unpack(">I", frame[4:8])[0] != 0:
                commits += 1
    return frames, commits, page_size


def make_private_dirs(folder: Path) -> None:
    """Create `folder` and its missing parents with mode 0700 (whatever the umask)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir()
        os.chmod(made, 0o700)


def take_lock(path: Path) -> BinaryIO:
    """The store's lock file, opened and locked (`StoreBusy` when another process holds it)."""
    lock = open(path.with_name(path.name + ".lock"), "ab")  # noqa: SIM115 (held open)
    try:
        os.chmod(lock.name, 0o600)
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.close()
        raise StoreBusy(f"{path} is in use by another vtt-bridge (one sidecar per data folder)") from None
    except BaseException:
        lock.close()
        raise
    return lock


def check_files(path: Path) -> Path | None:
    """Refuse a file that is no SQLite database (a 0-byte one included); create a new one with
    mode 0600; copy a WAL an unclean stop left aside (the copy's path)."""
    if path.exists():
        if not path.is_file():
            raise StoreDamaged(f"{path} is not a file: move it away to start with an empty store")
        with path.open("rb") as handle:
            head = handle.read(16)
        if not head:
            raise StoreDamaged(f"{path} is empty (0 bytes) where a store was: {what_to_do(path)}")
        if head != b"SQLite format 3\x00":
            raise StoreDamaged(f"{path} is not an SQLite file: {what_to_do(path)}")
    else:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    os.chmod(path, 0o600)
    wal = path.with_name(path.name + "-wal")
    if not wal.exists() or wal.stat().st_size == 0:
        return None
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    copy = path.with_name(f"{path.name}-wal.{stamp}.copy")
    shutil.copyfile(wal, copy)
    os.chmod(copy, 0o600)
    return copy


def compare_wal(db: sqlite3.Connection, path: Path, copy: Path, warnings: list[str]) -> None:
    """After an unclean stop: whether recovery read every transaction the WAL held. When it did
    not (a torn or damaged WAL), say so and keep the copy; otherwise drop the copy."""
    parsed = _wal_frames(copy)
    row = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    read = int(row[1]) if row is not None and int(row[1]) >= 0 else 0
    if parsed is None:
        warnings.append(
            f"the WAL of {path.name} had no valid header after an unclean stop; what it held "
            f"since the last checkpoint may be lost; a copy is kept at {copy}"
        )
        return
    frames, commits, _ = parsed
    if frames > read:
        warnings.append(
            f"the WAL of {path.name} held {frames} frames ({commits} commits) after an unclean "
            f"stop, and recovery could read only {read} of them: rulings after the last one read are "
            f"lost (a torn or damaged WAL); a copy is kept at {copy}"
        )
        return
    copy.unlink()


def check_file(path: Path, descriptor: int) -> None:
    """`StoreGone` when the store's file is no longer the one opened: deleted (the open file has
    no name left, and every ruling written to it is lost when the process ends), replaced, or
    moved away with its folder."""
    try:
        named = os.stat(path)
    except FileNotFoundError:
        named = None
    opened = os.fstat(descriptor)
    if (
        named is not None
        and opened.st_nlink > 0
        and (named.st_dev, named.st_ino)
        == (
            opened.st_dev,
            opened.st_ino,
        )
    ):
        return
    what = "deleted" if opened.st_nlink == 0 else "replaced or moved away"
    raise StoreGone(
        f"the store file {path} was {what} while the sidecar ran: a ruling written now would "
        "be lost when it stops, so none is taken; restore the file from a copy or stop the sidecar "
        "(a restart serves what the file at that path holds)"
    )
