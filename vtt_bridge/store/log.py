"""The SQLite store: an append-only log of rulings per world, with snapshots, and recovery.

Durability (docs/durability.md): the store runs in WAL mode with `synchronous=NORMAL`. Each ruling
is one committed transaction before it is acknowledged, so a killed process (SIGKILL, a crash)
loses nothing: the commit is in the operating system's cache and the WAL file. No fsync is paid per
ruling; a background checkpoint (every `sync_interval` seconds) fsyncs the WAL, which bounds what a
power loss can cost to the rulings of the last interval.

Damage is never silent (docs/durability.md): a file of another program or of a newer layout, a
0-byte, truncated or malformed file, and a ruling whose checksum fails stop the start with
`StoreDamaged`, one line naming the file and what to do; a WAL left by an unclean stop is copied
aside before the file is opened, and kept when recovery could not read all of it.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import sqlite3
import struct
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from vtt_bridge import __version__
from vtt_bridge.document.models import WorldState
from vtt_bridge.engine import patch as patches
from vtt_bridge.engine.codec import (
    LARGEST_UNPACKED,
    PACKED_MARK,
    NotUnpacked,
    frame,
    is_packed,
    unpacked,
    unpacked_length,
)
from vtt_bridge.engine.history import HISTORY_BYTES, HISTORY_KEPT, Entry, History, JsonOps, sync_entry
from vtt_bridge.errors import StoreBusy, StoreDamaged, StoreError
from vtt_bridge.rules.common import STORED

APPLICATION_ID = 0x56545442
"""`PRAGMA application_id` of a vtt-bridge store ("VTTB")."""

LAYOUT = 9
"""`PRAGMA user_version`: the layout of the file this version writes. Earlier layouts (user_version
0, told apart by their tables): 1 `rulings` WITHOUT ROWID with an index on action ids, 2 without the
index, 3 `rulings` as a rowid table, 4 `log` keyed by world number and rev. 5 adds each ruling's
payload digest and checksum (NOT NULL: a version that does not write them cannot add a ruling).
6 adds each ruling's kind, the ruling an undo or redo names (or a sync's or upsert's message id) and
its inverse, for undo; rows of earlier layouts have none of them, and cannot be undone. 7 writes
the snapshots' and replies' visibility pairs as codes (`a`, `u`: `document.models.LOCATE_CODES`),
which a version before it cannot read; it reads layout 6's state names as they are. 8 stores a
reply, an inverse or a snapshot of more than `PACK_FROM` bytes packed (`pack`: a BLOB, a Zstandard
frame), which a version before it cannot read; it reads the text rows of earlier layouts as they are.
9 adds each snapshot's checksum (`snapshot_checksum`, verified whenever a world is recovered); the
snapshots of earlier layouts get theirs when the file is opened."""

LAYOUTS_OF_VERSIONS = {4: "0.1.0", 5: "0.2.0", 6: "0.3.0", 7: "0.4.0", 8: "0.5.0", 9: "0.6.0"}
"""The package version that wrote each layout (for the message refusing a newer file)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS worlds (
    world TEXT PRIMARY KEY,
    snapshot_rev INTEGER NOT NULL,
    snapshot TEXT NOT NULL,
    checksum INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS world_keys (
    n INTEGER PRIMARY KEY,
    world TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS log (
    key INTEGER PRIMARY KEY,
    action_id TEXT,
    reply TEXT NOT NULL,
    digest TEXT,
    checksum INTEGER NOT NULL,
    kind TEXT,
    target TEXT,
    inverse TEXT
);
CREATE TABLE IF NOT EXISTS changes (
    key INTEGER PRIMARY KEY,
    message_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    checksum INTEGER NOT NULL
);
"""
"""`log` holds the rulings of every world, each keyed by its world's number (`world_keys`) and its
rev in one integer, `n << 40 | rev` (`REV_SPAN`): the key is the table's rowid, so a ruling is
written into one B-tree (no index beside it), at the end of its world's range. A reply runs from a
kilobyte (`damage`) to megabytes (a 500-token `round`). `digest`: of the action's payload (retries
must match it); `checksum`: `checksum()` of the row, verified whenever a ruling is read back;
`kind`, `target`, `inverse` (layout 6): the action's kind, the id of the ruling an undo or redo names
(for a sync or upsert: its message id), and the JSON ops that undo the ruling.

`changes` keeps the message id and kind of every sync and upsert, keyed as `log` is, for the rows a
snapshot drops from `log` (a sync's own row is never written: its snapshot holds it), so an undo of
one is refused as no ruling after any restart; `checksum`: `change_checksum()` of the row."""

CHANGES_TABLE = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS changes") :]
"""The table a file of layout 6 written before it gets when it is opened (nothing else changes: a
version that does not know it leaves it alone)."""

PACK_FROM = 1 << 20
"""Bytes of a reply, an inverse or a snapshot (its UTF-8) beyond which `pack` compresses it: the
store's one connection is held while a row is written and checkpointed, and every other world's
ruling waits for it (docs/benchmarks.md, "The store's large rows packed")."""


def _stored_value(param: int) -> str:
    """SQL for a reply or inverse bound as parameter `param`: packed bytes stay a BLOB; text, or UTF-8
    bound as a blob, is stored as the text it is (a NULL stays NULL)."""
    mark = PACKED_MARK.hex().upper()
    return f"CASE WHEN substr(?{param}, 1, 4) = X'{mark}' THEN ?{param} ELSE CAST(?{param} AS TEXT) END"


INSERT_RULING = (
    "INSERT INTO log (key, action_id, reply, digest, checksum, kind, target, inverse) "
    f"VALUES (?1, ?2, {_stored_value(3)}, ?4, ?5, ?6, ?7, {_stored_value(8)})"
)
"""The reply and the inverse may come as text, as their UTF-8 (bytes, bound as blobs) or packed
(`pack`); see `_stored_value`."""


def pack(data: bytes) -> bytes:
    """A reply's, an inverse's or a snapshot's UTF-8 as `Store.append` best takes it: longer than `PACK_FROM`,
    compressed (`engine.codec.frame`: it starts with `PACKED_MARK`); else as it is. Pure and
    thread-safe: call it before the store is taken (Zstandard lets go of the interpreter meanwhile)."""
    if len(data) <= PACK_FROM:
        return data
    return frame(data)


def keeps_reply(action_id: str | None, snapshot: bool) -> bool:
    """Whether `Store.append` writes a ruling's row, its reply: always, but for a ruling without an
    action id that carries a snapshot (a sync: its snapshot holds it)."""
    return action_id is not None or not snapshot


def snapshot_of(state: WorldState) -> bytes:
    """A snapshot as `Store.append` best takes it: the state's JSON, packed when large (`pack`).
    Pure and thread-safe: a 1,000-token world's is dumped and packed before the store is taken."""
    return pack(state.model_dump_json().encode())


class StoreGone(StoreError, OSError):
    """The store's file was deleted or replaced under the running sidecar (`Store.check_file`); an
    `OSError` too, as the checkpoint's other failures of the disk are."""


def _unreadable(error: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused a stored value itself: `vtt_text` failed on it (`NotUnpacked`), or
    it is no JSON."""
    return str(error) in ("user-defined function raised exception", "malformed JSON")


def _as_text(value: str | bytes) -> str:  # raises NotUnpacked, which SQLite reports as its own error
    """`vtt_text`: a packed value's JSON text, for SQLite's JSON functions (`_text_of`)."""
    return unpacked(value).decode() if isinstance(value, bytes) else value


def _text_of(column: str) -> str:
    """SQL for a column of `log` (the reply or the inverse) as JSON text: a text row read as it is,
    a packed one (the only BLOBs) unpacked by `vtt_text`."""
    return f"(CASE WHEN typeof({column}) = 'blob' THEN vtt_text({column}) ELSE {column} END)"


WRITE_SNAPSHOT = (
    f"INSERT INTO worlds (world, snapshot_rev, snapshot, checksum) VALUES (?1, ?2, {_stored_value(3)}, ?4) "
    "ON CONFLICT (world) DO UPDATE SET snapshot_rev = excluded.snapshot_rev, snapshot = excluded.snapshot, "
    "checksum = excluded.checksum"
)
"""A world's snapshot, as text, its UTF-8 or packed (`snapshot_of`), and its `snapshot_checksum`."""

UNBIND_FROM = 1 << 20
"""Bytes bound to a statement from which `Store.append` frees SQLite's copy of them (`_unbind`)."""


BEFORE_UNDO = (
    "it was made by vtt-bridge 0.2.0 or earlier (store layout 5 or older), which kept no inverse "
    "of a ruling; change its values back by hand"
)

REV_SPAN = 1 << 40
"""Revs a world can reach in the log's key (a trillion rulings)."""

AUTOCHECKPOINT_PAGES = 16384
"""WAL pages (64 MiB) after which SQLite checkpoints inside a commit. The background checkpoint
(`flush`, every `sync_interval`) does it long before, so a ruling's commit never waits for the disk;
this only bounds the WAL should a burst outrun a second."""

WAL_LIMIT_BYTES = 64 << 20
"""A WAL file a burst grew beyond this is truncated back to it when the WAL restarts."""

LATEST_BYTES = 32 << 20
"""Replies `Store.latest` reads back at most, per call (the newest first); older rulings of the
count come back as headings without steps."""

SNAPSHOT_EVERY = 1000
"""Rulings between two snapshots of a world (recovery replays at most this many patches)."""

log = logging.getLogger("vtt_bridge")


def checksum(
    key: int,
    action_id: str | None,
    reply: str | bytes,
    digest: str | None,
    kind: str | None = None,
    target: str | None = None,
    inverse: str | bytes | None = None,
) -> int:
    """CRC-32 of a stored ruling's fields: a row changed on disk fails it. Without the fields of
    layout 6 it is layout 5's (so rows migrated keep theirs). The reply and the inverse count as the
    bytes stored: their UTF-8, however they come, or their packed bytes (`pack`; the CRC runs on
    from one field to the next: the same value as over the joined text, without a copy of a round's
    megabytes)."""
    head = f"{key}\0{action_id or ''}\0{digest or ''}\0".encode()
    crc = zlib.crc32(reply if isinstance(reply, bytes) else reply.encode(), zlib.crc32(head))
    if kind is None and target is None and inverse is None:
        return crc
    crc = zlib.crc32(f"{kind or ''}\0{target or ''}\0".encode(), crc)
    if inverse is None:
        return crc
    return zlib.crc32(inverse if isinstance(inverse, bytes) else inverse.encode(), crc)


def snapshot_checksum(world: str, rev: int, snapshot: str | bytes) -> int:
    """CRC-32 of a world's snapshot row: its world, rev and the snapshot's bytes as stored (the text's
    UTF-8, or the packed bytes). A snapshot changed on disk fails it."""
    head = zlib.crc32(f"{world}\0{rev}\0".encode())
    return zlib.crc32(snapshot if isinstance(snapshot, bytes) else snapshot.encode(), head)


def change_checksum(key: int, message_id: str, kind: str) -> int:
    """CRC-32 of a row of `changes`."""
    return zlib.crc32(f"{key}\0{message_id}\0{kind}".encode())


ROW_AS_UTF8 = "key, action_id, CAST(reply AS BLOB), digest, checksum, kind, target, inverse"
"""A row of `log` as `_check` verifies it, its reply read as its UTF-8 (no str made and encoded
again)."""

FORWARD_OPS = (
    f"SELECT op.value FROM log, json_each({_text_of('log.reply')}, '$.patch') AS op WHERE log.key = ? "
    "AND json_extract(op.value, '$.path') IS NOT '/rev' ORDER BY op.key"
)
"""The JSON of each op of a stored ruling's patch but the rev's (what undo keeps of it), read from
its row: a reply bound as a parameter would stay with the cached statement (a round's megabytes)."""

INVERSE_OPS = (
    f"SELECT op.value FROM log, json_each({_text_of('log.inverse')}) AS op WHERE log.key = ? ORDER BY op.key"
)
"""The JSON of each op of a stored ruling's inverse, read from its row."""

LOG_STEPS = (
    f"WITH ruling AS MATERIALIZED (SELECT {_text_of('log.reply')} AS reply FROM log WHERE key = ?2) "
    "SELECT json_array_length(reply, '$.log'), (SELECT json_group_array(json(value)) FROM "
    "(SELECT value FROM json_each(ruling.reply, '$.log') ORDER BY key LIMIT ?1)) FROM ruling"
)
"""How many steps a stored ruling's log has, and the first ?1 of them, read from its row ?2 (unpacked
once when packed)."""


RULING_PAGE = (
    f"WITH ruling AS MATERIALIZED (SELECT {_text_of('log.reply')} AS reply FROM log WHERE key = ?1) "
    "SELECT json_array_length(reply, '$.log'), json_array_length(reply, '$.rolls'), "
    "(SELECT json_group_array(json(value)) FROM "
    "(SELECT value FROM json_each(ruling.reply, '$.log') ORDER BY key LIMIT ?3 OFFSET ?2)), "
    "(SELECT json_group_array(json(value)) FROM "
    "(SELECT value FROM json_each(ruling.reply, '$.rolls') ORDER BY key LIMIT ?3 OFFSET ?2)) FROM ruling"
)
"""How many steps and rolls a stored ruling has, and ?3 of each from the ?2nd, read from its row ?1
(unpacked once when packed)."""


@dataclass(frozen=True)
class RulingPage:
    """A page of one stored ruling's log and rolls (`Store.ruling_page`)."""

    rev: int
    kind: str | None
    steps: int
    """How many steps its log has."""
    rolls: int
    """How many rolls it made."""
    log: list[Any]
    """Its steps from the page's offset, in order."""
    dice: list[Any]
    """Its rolls from the page's offset, in order."""


@dataclass(frozen=True)
class Recovered:
    """A world as the store last acknowledged it: its state, every action id it answered, and the
    replies to the most recent of them (older and larger ones are read back on demand: `Store.reply`)."""

    state: WorldState
    replies: dict[str, bytes]
    """Action id -> its reply's UTF-8, for the last actions (`Store.recover`'s bounds)."""
    answered: set[str]
    digests: dict[str, str] = field(default_factory=dict)
    """Action id -> its payload's digest (ids of earlier layouts have none)."""
    history: History = field(default_factory=History)
    """The last rulings for undo, which stand undone, and the ids of earlier layouts' rulings."""


@dataclass(frozen=True)
class StoredRuling:
    """A ruling read back for the status page (`Store.latest`): its rev, action id and kind (None
    for a row of layout 5 or older), its first steps, and how many it had (-1: not read back)."""

    rev: int
    action_id: str | None
    kind: str | None
    log: list[dict[str, Any]]
    steps: int


def _what_to_do(path: Path) -> str:
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


def _make_private_dirs(folder: Path) -> None:
    """Create `folder` and its missing parents with mode 0700 (whatever the umask)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir()
        os.chmod(made, 0o700)


class Store:
    """The rulings log in one SQLite file. Not thread-safe: one thread at a time uses it (the server's
    event loop, or the store's writer thread while the loop waits: `Bridge.in_store`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []
        """What the opening found and the sidecar must say (a WAL recovery could not read whole)."""
        _make_private_dirs(path.parent)
        self._lock = self._take_lock()
        """Held (an advisory lock on the `.lock` file beside the store) until `close`: taken before
        the files are looked at, so a second sidecar is refused before it reads, copies or opens
        anything of the first one's."""
        self._marker = path.with_name(path.name + ".open")
        """Made once the file is open, removed when it is closed: an unclean stop leaves it."""
        unclean = self._marker.exists() and path.exists()
        try:
            wal_copy = self._check_files()
        except BaseException:
            self._lock.close()
            raise
        if unclean and not path.with_name(path.name + "-wal").exists():
            self.warnings.append(
                f"the WAL of {path.name} is missing after an unclean stop: the rulings committed since "
                "the last checkpoint (about a second's) are lost, if there were any"
            )
        try:
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=1.0)
        except sqlite3.Error as exc:
            self._lock.close()
            raise StoreDamaged(f"{path} cannot be opened ({exc}): {_what_to_do(path)}") from None
        self._db.create_function("vtt_checksum", 4, checksum, deterministic=True)
        self._db.create_function("vtt_change_checksum", 3, change_checksum, deterministic=True)
        self._db.create_function("vtt_snapshot_checksum", 3, snapshot_checksum, deterministic=True)
        self._unreadable_why: Exception | None = None
        """Why `vtt_text` last refused a value (SQLite reports only that the function raised)."""

        def as_text(value: str | bytes) -> str:
            try:
                return _as_text(value)
            except (NotUnpacked, UnicodeDecodeError) as exc:
                self._unreadable_why = exc
                raise

        self._db.create_function("vtt_text", 1, as_text, deterministic=True)
        try:
            # One process owns the file for as long as it runs: no file locking per transaction (six
            # fcntl calls a ruling saved), no shared-memory WAL index, and a second sidecar on the
            # same data folder is refused instead of writing a second history into it.
            self._db.execute("PRAGMA locking_mode=EXCLUSIVE")
            self._check_version()
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
            self._db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
            if wal_copy is not None:
                self._compare_wal(wal_copy)
            check = self._db.execute("PRAGMA quick_check(1)").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"the file fails SQLite's check: {check[0] if check else '?'}")
            moved = self._migrate()
        except sqlite3.OperationalError as exc:
            self._db.close()
            self._lock.close()
            if "locked" in str(exc):
                raise StoreBusy(
                    f"{path} is in use by another vtt-bridge (one sidecar per data folder)"
                ) from None
            raise StoreDamaged(f"{path} cannot be read ({exc}): {_what_to_do(path)}") from None
        except sqlite3.DatabaseError as exc:
            self._db.close()
            self._lock.close()
            raise StoreDamaged(f"{path} is damaged ({exc}): {_what_to_do(path)}") from None
        except BaseException:
            self._db.close()
            self._lock.close()
            raise
        for name in (path, path.with_name(path.name + "-wal")):
            if name.exists():
                os.chmod(name, 0o600)
        os.close(os.open(self._marker, os.O_WRONLY | os.O_CREAT, 0o600))
        self._file = os.open(path, os.O_RDONLY)
        """The store's file, open to tell (`check_file`) whether it is still the one at `path`."""
        self._since_snapshot: dict[str, int] = {}
        self.moved = moved
        """Rulings moved from an earlier version's log when the file was opened (0: none)."""
        self._bases: dict[str, int] = {
            world: n * REV_SPAN for n, world in self._db.execute("SELECT n, world FROM world_keys")
        }

    def _take_lock(self) -> BinaryIO:
        """The store's lock file, opened and locked (`StoreBusy` when another process holds it)."""
        lock = open(self.path.with_name(self.path.name + ".lock"), "ab")  # noqa: SIM115 (held open)
        try:
            os.chmod(lock.name, 0o600)
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise StoreBusy(
                f"{self.path} is in use by another vtt-bridge (one sidecar per data folder)"
            ) from None
        except BaseException:
            lock.close()
            raise
        return lock

    def _check_files(self) -> Path | None:
        """Refuse a file that is no SQLite database (a 0-byte one included); create a new one with
        mode 0600; copy a WAL an unclean stop left aside (the copy's path)."""
        path = self.path
        if path.exists():
            if not path.is_file():
                raise StoreDamaged(f"{path} is not a file: move it away to start with an empty store")
            with path.open("rb") as handle:
                head = handle.read(16)
            if not head:
                raise StoreDamaged(f"{path} is empty (0 bytes) where a store was: {_what_to_do(path)}")
            if head != b"SQLite format 3\x00":
                raise StoreDamaged(f"{path} is not an SQLite file: {_what_to_do(path)}")
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

    def _check_version(self) -> None:
        """Refuse (before anything is written) a file of another program or of a newer layout."""
        app_id = self._db.execute("PRAGMA application_id").fetchone()[0]
        layout = self._db.execute("PRAGMA user_version").fetchone()[0]
        if app_id not in (0, APPLICATION_ID):
            raise StoreDamaged(
                f"{self.path} is an SQLite file of another program (application id {app_id:#x}): "
                "point --data-dir at vtt-bridge's own folder"
            )
        if layout > LAYOUT:
            newer = LAYOUTS_OF_VERSIONS.get(layout, "a newer version")
            raise StoreDamaged(
                f"{self.path} has layout {layout} (vtt-bridge {newer} or later); this vtt-bridge "
                f"{__version__} reads layouts up to {LAYOUT}: upgrade vtt-bridge (nothing was written)"
            )

    def _compare_wal(self, copy: Path) -> None:
        """After an unclean stop: whether recovery read every transaction the WAL held. When it did
        not (a torn or damaged WAL), say so and keep the copy; otherwise drop the copy."""
        parsed = _wal_frames(copy)
        row = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        read = int(row[1]) if row is not None and int(row[1]) >= 0 else 0
        if parsed is None:
            self.warnings.append(
                f"the WAL of {self.path.name} had no valid header after an unclean stop; what it held "
                f"since the last checkpoint may be lost; a copy is kept at {copy}"
            )
            return
        frames, commits, _ = parsed
        if frames > read:
            self.warnings.append(
                f"the WAL of {self.path.name} held {frames} frames ({commits} commits) after an unclean "
                f"stop, and recovery could read only {read} of them: rulings after the last one read are "
                f"lost (a torn or damaged WAL); a copy is kept at {copy}"
            )
            return
        copy.unlink()

    def _migrate(self) -> int:
        """Bring a file of an earlier layout (`LAYOUT`) to this one in one transaction; how many
        rulings it moved from an earlier `rulings` table. Idempotent: a file at this layout is left
        as it is, and an interrupted migration is rolled back whole."""
        db = self._db
        if db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT:
            db.execute(CHANGES_TABLE)
            return 0
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        moved = 0
        db.execute("BEGIN IMMEDIATE")
        try:
            if "worlds" in tables and "checksum" not in {
                row[1] for row in db.execute("PRAGMA table_info(worlds)")
            }:
                db.execute("ALTER TABLE worlds RENAME TO worlds_layout8")  # rebuilt with the checksum
            if "log" in tables:
                columns = {row[1] for row in db.execute("PRAGMA table_info(log)")}
                if "checksum" not in columns:  # layout 4: rebuilt with digest and checksum
                    db.execute("ALTER TABLE log RENAME TO log_layout4")
                elif "inverse" not in columns:  # layout 5: the columns of undo (empty: not undoable)
                    for column in ("kind", "target", "inverse"):
                        db.execute(f"ALTER TABLE log ADD COLUMN {column} TEXT")
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            if "log_layout4" in {n for (n,) in db.execute("SELECT name FROM sqlite_master")}:
                db.execute(
                    "INSERT INTO log (key, action_id, reply, digest, checksum) "
                    "SELECT key, action_id, reply, NULL, vtt_checksum(key, action_id, reply, NULL) "
                    "FROM log_layout4"
                )
                db.execute("DROP TABLE log_layout4")
            if "worlds_layout8" in {n for (n,) in db.execute("SELECT name FROM sqlite_master")}:
                db.execute(
                    "INSERT INTO worlds (world, snapshot_rev, snapshot, checksum) SELECT world, "
                    "snapshot_rev, snapshot, vtt_snapshot_checksum(world, snapshot_rev, snapshot) "
                    "FROM worlds_layout8"
                )
                db.execute("DROP TABLE worlds_layout8")
            if "rulings" in tables:
                moved = self._move_rulings()
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            db.execute(f"PRAGMA user_version={LAYOUT}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return moved

    def _move_rulings(self) -> int:
        """Move the log layouts 1-3 kept in table `rulings` (world, rev, action_id, reply, keyed by
        world and rev) into `log`. A ruling already in `log` with the same reply is the same ruling;
        one with another reply is a second history, and the file is refused."""
        db = self._db
        db.execute(
            "INSERT OR IGNORE INTO world_keys (world) SELECT DISTINCT world FROM rulings ORDER BY world"
        )
        clashes = db.execute(
            "SELECT count(*) FROM rulings AS r JOIN world_keys AS k ON k.world = r.world "
            "JOIN log AS l ON l.key = k.n * ? + r.rev WHERE l.reply != r.reply",
            (REV_SPAN,),
        ).fetchone()[0]
        if clashes:
            raise StoreDamaged(
                f"{self.path} holds two histories ({clashes} rulings of an earlier version's table "
                f"differ from this version's at the same rev): {_what_to_do(self.path)}"
            )
        moved = db.execute(
            "INSERT OR IGNORE INTO log (key, action_id, reply, digest, checksum) "
            "SELECT k.n * ? + r.rev, r.action_id, r.reply, NULL, "
            "vtt_checksum(k.n * ? + r.rev, r.action_id, r.reply, NULL) "
            "FROM rulings AS r JOIN world_keys AS k ON k.world = r.world",
            (REV_SPAN, REV_SPAN),
        ).rowcount
        db.execute("DROP TABLE rulings")
        return int(moved)

    def close(self) -> None:
        """Checkpoint and fsync the WAL, then close the file; closed even when the checkpoint fails
        (the WAL keeps every committed ruling, and the next start reads it)."""
        try:
            try:
                self.flush()
            finally:
                self._db.close()
            self._marker.unlink(missing_ok=True)
        finally:
            os.close(self._file)
            self._lock.close()

    def flush(self) -> None:
        """Fsync what was committed (a WAL checkpoint): after this a power loss costs nothing.
        `StoreGone` (nothing checkpointed) when the file was deleted or replaced meanwhile."""
        self.check_file()
        self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def check_file(self) -> None:
        """`StoreGone` when the store's file is no longer the one opened: deleted (the open file has
        no name left, and every ruling written to it is lost when the process ends), replaced, or
        moved away with its folder."""
        try:
            named = os.stat(self.path)
        except FileNotFoundError:
            named = None
        opened = os.fstat(self._file)
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
            f"the store file {self.path} was {what} while the sidecar ran: a ruling written now would "
            "be lost when it stops, so none is taken; restore the file from a copy or stop the sidecar "
            "(a restart serves what the file at that path holds)"
        )

    def _world_key(self, world: str) -> int:
        """The first key of a world's range in `log` (a world gets its number with its first ruling)."""
        base = self._bases.get(world)
        if base is None:
            cursor = self._db.execute("INSERT INTO world_keys (world) VALUES (?)", (world,))
            assert cursor.lastrowid is not None
            base = self._bases[world] = cursor.lastrowid * REV_SPAN
        return base

    def append(
        self,
        world: str,
        rev: int,
        action_id: str | None,
        reply: str | bytes,
        snapshot: WorldState | bytes | None,
        digest: str | None = None,
        kind: str | None = None,
        target: str | None = None,
        inverse: str | bytes | None = None,
    ) -> None:
        """Write one ruling (and, when given, a snapshot of the state after it: the state, or
        `snapshot_of` it, at rev `rev`) in one transaction; `digest`: of the action's payload;
        `kind`, `target`, `inverse`: see `SCHEMA`; `reply` (the result's JSON; not written when
        `keeps_reply` says so) and `inverse`, each as text, as its UTF-8 (stored as text either way)
        or packed (`pack`, stored so: a large ruling's row and snapshot are best packed before the
        store is taken)."""
        if not 0 <= rev < REV_SPAN:
            raise ValueError(f"rev {rev} is beyond the log's key")
        db = self._db
        # What cannot be read back is not written (the server refuses the ruling, nothing changed): a
        # packed value's text must fit SQLite's own bound on a value (`vtt_text` hands it to SQLite)
        # and `LARGEST_UNPACKED`, as a text value had to fit SQLite's bound to be written at all.
        bound = min(LARGEST_UNPACKED, db.getlimit(sqlite3.SQLITE_LIMIT_LENGTH))
        for value in (reply, inverse, snapshot):
            length = unpacked_length(value) if isinstance(value, bytes) and is_packed(value) else 0
            if length > bound:
                raise sqlite3.DataError(
                    f"a value of {length} bytes is beyond what the store reads back ({bound})"
                )
        base = self._world_key(world)  # before the transaction: a number once given stays given
        key = base + rev
        row = (
            key,
            action_id,
            reply,
            digest,
            checksum(key, action_id, reply, digest, kind, target, inverse),
            kind,
            target,
            inverse,
        )
        large = len(reply) + len(inverse or "") > UNBIND_FROM
        if snapshot is None:
            # One statement in autocommit mode is one transaction: the cheapest durable write.
            db.execute(INSERT_RULING, row)
            if large:
                self._unbind(INSERT_RULING, (key, *(None,) * 7))
            self._since_snapshot[world] = self._since_snapshot.get(world, 0) + 1
            return
        db.execute("BEGIN")
        try:
            if keeps_reply(action_id, snapshot=True):
                db.execute(INSERT_RULING, row)
                if large:
                    self._unbind(INSERT_RULING, (key, *(None,) * 7))
            elif target is not None and kind is not None:  # a sync's (or upsert's) id, in `changes`
                db.execute(
                    "INSERT OR REPLACE INTO changes (key, message_id, kind, checksum) VALUES (?, ?, ?, ?)",
                    (key, target, kind, change_checksum(key, target, kind)),
                )
            self._write_snapshot(world, base, rev, snapshot)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._since_snapshot[world] = 0

    def _unbind(self, statement: str, refused: tuple[Any, ...]) -> None:
        """Free SQLite's copy of the values `statement` was last bound to: a cached statement keeps
        them until it is bound again (Python's sqlite3 never clears a binding), a round's reply and
        inverse, tens of MB, until the next ruling. Bound again to `refused`, a row the table refuses
        (a key taken, NULLs where it holds none): nothing is written."""
        try:
            self._db.execute(statement, refused)
        except sqlite3.IntegrityError:
            return
        raise AssertionError(f"the store took a row it must refuse: {statement}")  # a changed schema

    def wants_snapshot(self, world: str) -> bool:
        """Whether the next ruling of this world should carry a snapshot (to bound replay)."""
        return self._since_snapshot.get(world, 0) + 1 >= SNAPSHOT_EVERY

    def _write_snapshot(self, world: str, base: int, rev: int, state: WorldState | bytes) -> None:
        row = self._db.execute("SELECT snapshot_rev FROM worlds WHERE world = ?", (world,)).fetchone()
        previous = -1 if row is None else int(row[0])
        if isinstance(state, WorldState):
            if state.rev != rev:
                raise ValueError(f"a snapshot at rev {state.rev} given with the ruling at rev {rev}")
            snapshot = snapshot_of(state)
        else:
            snapshot = state
        self._db.execute(WRITE_SNAPSHOT, (world, rev, snapshot, snapshot_checksum(world, rev, snapshot)))
        if len(snapshot) > UNBIND_FROM:
            self._unbind(WRITE_SNAPSHOT, (None, None, None, None))
        # The rulings the snapshot now holds, but for the actions' (kept for their replies). Those up
        # to the previous snapshot went with it: the range stays that of one interval, however long
        # the world's history. The message ids and kinds of the syncs and upserts among them stay,
        # in `changes`.
        self._db.execute(
            "INSERT OR REPLACE INTO changes (key, message_id, kind, checksum) "
            "SELECT key, target, kind, vtt_change_checksum(key, target, kind) FROM log "
            "WHERE key > ? AND key <= ? AND action_id IS NULL AND target IS NOT NULL AND kind IS NOT NULL",
            (base + previous, base + rev),
        )
        self._db.execute(
            "DELETE FROM log WHERE key > ? AND key <= ? AND action_id IS NULL",
            (base + previous, base + rev),
        )

    def worlds(self) -> list[str]:
        """Every world the store knows."""
        rows = self._db.execute("SELECT world FROM worlds UNION SELECT world FROM world_keys").fetchall()
        return sorted(row[0] for row in rows)

    def _verified(self, world: str, row: tuple[Any, ...]) -> bytes:
        """A ruling's reply's UTF-8 (its row as `ROW_AS_UTF8` lists it), unpacked, after its
        checksum: `StoreDamaged` when the row changed on disk."""
        self._check(world, row)
        return self._reply(world, row)

    def _reply(self, world: str, row: tuple[Any, ...]) -> bytes:
        """A ruling's reply's UTF-8 (its row as `ROW_AS_UTF8` lists it, checksummed), unpacked."""
        try:
            return unpacked(bytes(row[2]))
        except NotUnpacked as exc:  # packed bytes that hold their checksum yet do not unpack
            raise self._not_unpacked(world, row[0], exc) from None

    def _length(self, world: str, row: tuple[Any, ...]) -> int:
        """How many bytes a ruling's reply (its row as `ROW_AS_UTF8` lists it, checksummed) unpacks
        to, from a packed one's header: `StoreDamaged` when the header names none or too many."""
        try:
            return unpacked_length(bytes(row[2]))
        except NotUnpacked as exc:
            raise self._not_unpacked(world, row[0], exc) from None

    def _not_unpacked(self, world: str, key: int, why: Exception) -> StoreDamaged:
        base = self._bases.get(world, 0)
        return StoreDamaged(
            f"{self.path}: the ruling at rev {key - base} of world {world!r} cannot be read back ({why}): "
            f"{_what_to_do(self.path)}"
        )

    def _check(self, world: str, row: tuple[Any, ...]) -> None:
        """`StoreDamaged` when a row of `log` (its columns as `ROW_AS_UTF8` lists them, the reply as
        text or as the bytes stored) fails its checksum: it changed on disk."""
        key, action_id, reply, digest, stored, *more = row
        if checksum(key, action_id, reply, digest, *more) != stored:
            base = self._bases.get(world, 0)
            raise StoreDamaged(
                f"{self.path}: the ruling at rev {key - base} of world {world!r} fails its checksum "
                f"(changed on disk): {_what_to_do(self.path)}"
            )

    def _row_of_action(self, world: str, action_id: str) -> Any:
        """The newest stored row (`ROW_AS_UTF8`) of the world's ruling an action id was answered
        with, or None: a scan of the world's rulings from the newest."""
        base = self._bases.get(world)
        if base is None:
            return None
        return self._db.execute(
            f"SELECT {ROW_AS_UTF8} FROM log WHERE key >= ? AND key < ? AND action_id = ? "
            "ORDER BY key DESC LIMIT 1",
            (base, base + REV_SPAN, action_id),
        ).fetchone()

    def reply(self, world: str, action_id: str) -> tuple[bytes, str | None] | None:
        """The reply an action id was answered with (its UTF-8, read as such), and its payload's
        digest: a scan of the world's rulings from the newest (for a retry of an action whose reply
        the world does not keep in memory: an old one, or a large one just answered)."""
        row = self._row_of_action(world, action_id)
        if row is None:
            return None
        return self._verified(world, row), row[3]

    def ruling_page(self, world: str, action_id: str, offset: int, limit: int) -> RulingPage | None:
        """Steps and rolls `offset` to `offset + limit` of the ruling an action id was answered with
        (its row checksummed; SQLite's JSON functions cut the log, so Python parses the page alone),
        or None when the world answered no such action."""
        row = self._row_of_action(world, action_id)
        if row is None:
            return None
        self._check(world, row)
        key = row[0]
        with self._read_back(world, key):
            steps, rolls, log, dice = self._db.execute(RULING_PAGE, (key, offset, limit)).fetchone()
        return RulingPage(
            key - self._bases[world],
            row[5],
            int(steps or 0),
            int(rolls or 0),
            json.loads(log),
            json.loads(dice),
        )

    def recover(
        self, world: str, recent: int, budget: int = LATEST_BYTES, largest: int | None = None
    ) -> Recovered:
        """The world at its last acknowledged rev (its snapshot with every later ruling's patch
        applied, each ruling's checksum verified), every action id it answered with its payload's
        digest, and the replies to the last of the `recent` latest actions whose replies fit
        `budget` bytes, but for those larger than `largest` (as `World.commit` keeps them; each
        read counts against the budget, so a history of big rounds is not read back whole)."""
        row = self._db.execute(
            "SELECT snapshot_rev, snapshot, checksum FROM worlds WHERE world = ?", (world,)
        ).fetchone()
        snapshot_rev = -1
        document: dict[str, Any] = WorldState().model_dump(mode="json")
        if row is not None:
            snapshot_rev, document = row[0], self._snapshot_document(world, row[1])
            if snapshot_checksum(world, snapshot_rev, row[1]) != row[2]:
                raise StoreDamaged(
                    f"{self.path}: the snapshot of world {world!r} (rev {snapshot_rev}) fails its checksum "
                    f"(changed on disk): {_what_to_do(self.path)}"
                )
            document.setdefault("areas", {})  # a snapshot written before areas were kept (DET-4)
        replayed = 0
        base = self._bases.get(world)
        if base is None:
            self._since_snapshot[world] = 0
            return Recovered(
                state=WorldState.model_validate(document, context=STORED), replies={}, answered=set()
            )
        after, end = base + snapshot_rev + 1, base + REV_SPAN
        for stored in self._db.execute(
            f"SELECT {ROW_AS_UTF8} FROM log WHERE key >= ? AND key < ? ORDER BY key", (after, end)
        ):
            patches.apply(document, json.loads(self._verified(world, stored))["patch"])
            replayed += 1
        self._since_snapshot[world] = replayed
        digests: dict[str, str] = {}
        answered: set[str] = set()
        for action_id, digest in self._db.execute(
            "SELECT action_id, digest FROM log WHERE key >= ? AND key < ? AND action_id IS NOT NULL",
            (base, end),
        ):
            answered.add(action_id)
            if digest is not None:
                digests[action_id] = digest
        latest: list[tuple[str, bytes]] = []
        read = 0
        for stored in self._db.execute(
            f"SELECT {ROW_AS_UTF8} FROM log WHERE key >= ? AND key < ? AND action_id IS NOT NULL "
            "ORDER BY key DESC LIMIT ?",
            (base, end, recent),
        ):
            self._check(world, stored)
            length = self._length(world, stored)
            read += length
            if read > budget and latest:
                break
            if largest is None or length <= largest:
                latest.append((stored[1], self._reply(world, stored)))
        replies = dict(reversed(latest))
        return Recovered(
            state=WorldState.model_validate(document, context=STORED),
            replies=replies,
            answered=answered,
            digests=digests,
            history=self._history(world, base),
        )

    def _snapshot_document(self, world: str, stored: str | bytes) -> Any:
        """A world's snapshot as stored, parsed (unpacked when packed: `snapshot_of`; a BLOB is always
        packed, a smaller snapshot is text): `StoreDamaged` when it does not unpack or parse."""
        try:
            if isinstance(stored, bytes) and not is_packed(stored):
                raise NotUnpacked("a BLOB that is no Zstandard frame")
            return json.loads(unpacked(stored) if isinstance(stored, bytes) else stored)
        except (NotUnpacked, ValueError) as exc:  # ValueError: JSONDecodeError, UnicodeDecodeError
            raise StoreDamaged(
                f"{self.path}: the snapshot of world {world!r} cannot be read back ({exc}): "
                f"{_what_to_do(self.path)}"
            ) from None

    def _history(self, world: str, base: int) -> History:
        """The last rulings of a world for undo (`HISTORY_KEPT`, `HISTORY_BYTES`), which stand undone,
        the message ids of its syncs and upserts, and why its rulings of earlier layouts cannot be
        undone."""
        end = base + REV_SPAN
        entries: list[Entry] = []
        size = 0
        for row in self._db.execute(
            f"SELECT {ROW_AS_UTF8} FROM log WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT ?",
            (base, end, HISTORY_KEPT),
        ):
            self._check(world, row)
            key, action_id, kind, target, inverse = row[0], row[1], row[5], row[6], row[7]
            weight = 0 if action_id is None else self._length(world, row)  # as `World.commit` counts it
            size += weight
            if size > HISTORY_BYTES and entries:
                break
            undoable = action_id is not None and inverse is not None
            entries.append(
                Entry(
                    action_id,
                    key - base,
                    kind or "ruling",
                    self._ops(world, FORWARD_OPS, key),
                    self._ops(world, INVERSE_OPS, key) if undoable else None,
                    target if action_id is not None else None,
                    None if undoable else BEFORE_UNDO if kind is None else f"a {kind} is no ruling",
                    weight,
                )
            )
        entries.reverse()
        oldest = entries[0].rev if len(entries) >= HISTORY_KEPT else -1
        undone: dict[str, str] = {}
        changes: dict[str, str] = {}
        old: dict[str, str] = {}
        syncs: list[Entry] = []
        for key, message_id, kind, stored in self._db.execute(
            "SELECT key, message_id, kind, checksum FROM changes WHERE key >= ? AND key < ? ORDER BY key",
            (base, end),
        ):  # the syncs and upserts before the snapshot (those after it are still in `log`)
            if change_checksum(key, message_id, kind) != stored:
                raise StoreDamaged(
                    f"{self.path}: the {kind} at rev {key - base} of world {world!r} fails its checksum "
                    f"(changed on disk): {_what_to_do(self.path)}"
                )
            changes[message_id] = kind
            if kind == "sync" and key - base > oldest:  # kept in memory for the conflicts it causes
                syncs.append(sync_entry(key - base))
        for action_id, kind, target in self._db.execute(
            "SELECT action_id, kind, target FROM log WHERE key >= ? AND key < ? "
            "AND (kind IS NULL OR kind IN ('undo', 'redo', 'sync', 'upsert')) ORDER BY key",
            (base, end),
        ):
            if kind is None:
                if action_id is not None:
                    old[action_id] = BEFORE_UNDO
            elif kind == "undo" and action_id is not None and target is not None:
                undone[target] = action_id
            elif kind == "redo" and target is not None:
                undone.pop(target, None)
            elif action_id is None and target is not None:
                changes[target] = kind
        if syncs:
            entries = sorted([*entries, *syncs], key=lambda entry: entry.rev)
        return History(entries, undone, changes, old)

    def _ops(self, world: str, query: str, key: int) -> JsonOps:
        """A ruling's ops read back for undo (`FORWARD_OPS` from its reply, `INVERSE_OPS`; `key`: its
        row, checksummed already), in the form undo keeps them once a ruling is acknowledged
        (`history.packed_ops`): gathered into parts op by op as SQLite's JSON functions cut them (no
        Python object per value), packed. `StoreDamaged` when its row does not unpack or parse."""
        with self._read_back(world, key):
            return JsonOps.of_json(value for (value,) in self._db.execute(query, (key,))).packed()

    @contextmanager
    def _read_back(self, world: str, key: int) -> Iterator[None]:
        """Around SQLite's JSON functions over a stored row (`key`): `StoreDamaged` naming why, when
        SQLite refuses the row's value itself (it does not unpack, `vtt_text`, or is no JSON)."""
        self._unreadable_why = None
        try:
            yield
        except sqlite3.OperationalError as exc:
            if not _unreadable(exc):
                raise
            raise self._not_unpacked(world, key, self._unreadable_why or exc) from None

    def latest(self, world: str, count: int, steps: int, budget: int = LATEST_BYTES) -> list[StoredRuling]:
        """A world's last `count` rulings, oldest first, each with its first `steps` steps, its
        checksum verified. Bounded: one range scan from the end of the world's keys; SQLite's JSON
        functions cut the log, so Python never parses a round's patch; once `budget` characters of
        replies were read, the older rulings come back as headings only (`steps` -1)."""
        base = self._bases.get(world)
        if base is None or count <= 0:
            return []
        heads = self._db.execute(
            "SELECT key, action_id, kind FROM log WHERE key >= ? AND key < ? ORDER BY key DESC LIMIT ?",
            (base, base + REV_SPAN, count),
        ).fetchall()
        read: list[StoredRuling] = []
        spent = 0
        for key, action_id, kind in heads:
            if spent >= budget:
                read.append(StoredRuling(key - base, action_id, kind, [], -1))
                continue
            row = self._db.execute(f"SELECT {ROW_AS_UTF8} FROM log WHERE key = ?", (key,)).fetchone()
            self._check(world, row)
            spent += self._length(world, row)  # from a packed reply's header: unpacked once, below
            # from the row, not the reply bound again: the cached statement would keep it
            with self._read_back(world, key):
                total, shown = self._db.execute(LOG_STEPS, (max(0, steps), key)).fetchone()
            read.append(StoredRuling(key - base, action_id, kind, json.loads(shown), int(total or 0)))
        read.reverse()
        return read
