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

import json
import logging
import os
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vtt_bridge.document.models import WorldState
from vtt_bridge.engine import patch as patches
from vtt_bridge.engine.codec import (
    LARGEST_UNPACKED,
    NotUnpacked,
    is_packed,
    unpacked,
    unpacked_length,
)
from vtt_bridge.engine.history import HISTORY_BYTES, HISTORY_KEPT, Entry, History, JsonOps, sync_entry
from vtt_bridge.errors import StoreBusy, StoreDamaged
from vtt_bridge.rules.common import STORED
from vtt_bridge.store.files import (
    check_file,
    check_files,
    compare_wal,
    make_private_dirs,
    take_lock,
    what_to_do,
)
from vtt_bridge.store.pages import INSERT_PART, LOG, ROLLS, ListPage, Part, PartDamaged, read_page, rows_of
from vtt_bridge.store.rows import (
    DROP_HELD_ROWS,
    FORWARD_OPS,
    INSERT_PLAIN,
    INSERT_RULING,
    INVERSE_OPS,
    KEEP_HELD_CHANGES,
    LOG_STEPS,
    REV_SPAN,
    ROW_AS_UTF8,
    RULING_PAGE,
    WRITE_SNAPSHOT,
    change_checksum,
    checksum,
    keeps_reply,
    snapshot_checksum,
    snapshot_of,
    stored_text,
    unreadable,
)
from vtt_bridge.store.schema import check_version, migrate
from vtt_bridge.store.upgrade import BEFORE_AREAS_BY_TARGET, names_areas, upgraded_rev

UNBIND_FROM = 1 << 20
"""Bytes bound to a statement from which `Store.append` frees SQLite's copy of them (`_unbind`)."""


BEFORE_UNDO = (
    "it was made by vtt-bridge 0.2.0 or earlier (store layout 5 or older), which kept no inverse "
    "of a ruling; change its values back by hand"
)


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


BOUND_AS_IS_BYTES = 4 << 10
"""Bytes of a row's reply or inverse up to which `Store.append` binds it as a bytearray: Python's
sqlite3 binds a bytearray (as an int, a float or a str) as it is, but looks a `bytes` value up in
its adapters first (a registry lookup and two attribute lookups, more than a few kilobytes' copy).
The same blob is bound, and stored the same (`INSERT_RULING`, `INSERT_PLAIN`)."""


def _bound_as_is(value: str | bytes | None) -> str | bytes | bytearray | None:
    """A row's reply or inverse as `Store.append` binds it: short bytes as a bytearray
    (`BOUND_AS_IS_BYTES`), anything else as it is."""
    return bytearray(value) if type(value) is bytes and len(value) <= BOUND_AS_IS_BYTES else value


class Store:
    """The rulings log in one SQLite file. Not thread-safe: one thread at a time uses it (the server's
    event loop, or the store's writer thread while the loop waits: `Bridge.in_store`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []
        """What the opening found and the sidecar must say (a WAL recovery could not read whole)."""
        make_private_dirs(path.parent)
        self._lock = take_lock(path)
        """Held (an advisory lock on the `.lock` file beside the store) until `close`: taken before
        the files are looked at, so a second sidecar is refused before it reads, copies or opens
        anything of the first one's."""
        self._marker = path.with_name(path.name + ".open")
        """Made once the file is open, removed when it is closed: an unclean stop leaves it."""
        unclean = self._marker.exists() and path.exists()
        try:
            wal_copy = check_files(path)
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
            raise StoreDamaged(f"{path} cannot be opened ({exc}): {what_to_do(path)}") from None
        self._db.create_function("vtt_checksum", 4, checksum, deterministic=True)
        self._db.create_function("vtt_change_checksum", 3, change_checksum, deterministic=True)
        self._db.create_function("vtt_snapshot_checksum", 3, snapshot_checksum, deterministic=True)
        self._unreadable_why: Exception | None = None
        """Why `vtt_text` last refused a value (SQLite reports only that the function raised)."""

        def as_text(value: str | bytes) -> str:
            try:
                return stored_text(value)
            except (NotUnpacked, UnicodeDecodeError) as exc:
                self._unreadable_why = exc
                raise

        self._db.create_function("vtt_text", 1, as_text, deterministic=True)
        try:
            # One process owns the file for as long as it runs: no file locking per transaction (six
            # fcntl calls a ruling saved), no shared-memory WAL index, and a second sidecar on the
            # same data folder is refused instead of writing a second history into it.
            self._db.execute("PRAGMA locking_mode=EXCLUSIVE")
            check_version(self._db, path)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
            self._db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
            if wal_copy is not None:
                compare_wal(self._db, path, wal_copy, self.warnings)
            check = self._db.execute("PRAGMA quick_check(1)").fetchone()
            if check is None or check[0] != "ok":
                raise sqlite3.DatabaseError(f"the file fails SQLite's check: {check[0] if check else '?'}")
            migrated = migrate(self._db, path)
        except sqlite3.OperationalError as exc:
            self._db.close()
            self._lock.close()
            if "locked" in str(exc):
                raise StoreBusy(
                    f"{path} is in use by another vtt-bridge (one sidecar per data folder)"
                ) from None
            raise StoreDamaged(f"{path} cannot be read ({exc}): {what_to_do(path)}") from None
        except sqlite3.DatabaseError as exc:
            self._db.close()
            self._lock.close()
            raise StoreDamaged(f"{path} is damaged ({exc}): {what_to_do(path)}") from None
        except BaseException:
            self._db.close()
            self._lock.close()
            raise
        for name in (path, path.with_name(path.name + "-wal")):
            if name.exists():
                os.chmod(name, 0o600)
        os.close(os.open(self._marker, os.O_WRONLY | os.O_CREAT, 0o600))
        self._insert = self._db.cursor()
        """The cursor a ruling's row is inserted through (`append`), kept: `Connection.execute` makes
        a cursor for every statement."""
        self._file = os.open(path, os.O_RDONLY)
        """The store's file, open to tell (`check_file`) whether it is still the one at `path`."""
        self._since_snapshot: dict[str, int] = {}
        self.moved = migrated.moved
        """Rulings moved from an earlier version's log when the file was opened (0: none)."""
        self.upgraded = migrated.upgraded
        """Worlds whose areas were keyed by target when the file was opened (layout 11; 0: none)."""
        self._bases: dict[str, int] = {
            world: n * REV_SPAN for n, world in self._db.execute("SELECT n, world FROM world_keys")
        }

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
        """`StoreGone` when the store's file is no longer the one opened (`files.check_file`)."""
        check_file(self.path, self._file)

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
        parts: Sequence[Part] = (),
    ) -> None:
        """Write one ruling (and, when given, a snapshot of the state after it: the state, or
        `snapshot_of` it, at rev `rev`) in one transaction; `digest`: of the action's payload;
        `kind`, `target`, `inverse`: see `SCHEMA`; `reply` (the result's JSON; not written when
        `keeps_reply` says so) and `inverse`, each as text, as its UTF-8 (stored as text either way)
        or packed (`pack`, stored so: a large ruling's row and snapshot are best packed before the
        store is taken); `parts`: its log and rolls in parts (`pages.packed_parts`), written with an
        action's row in the same transaction (none for a ruling without an action id)."""
        if not 0 <= rev < REV_SPAN:
            raise ValueError(f"rev {rev} is beyond the log's key")
        db = self._db
        # What cannot be read back is not written (the server refuses the ruling, nothing changed): a
        # packed value's text must fit SQLite's own bound on a value (`vtt_text` hands it to SQLite)
        # and `LARGEST_UNPACKED`, as a text value had to fit SQLite's bound to be written at all.
        plain = not (is_packed(reply) or is_packed(inverse))
        if not plain or isinstance(snapshot, bytes):
            for value in (reply, inverse, snapshot):
                if isinstance(value, bytes) and is_packed(value):
                    length = unpacked_length(value)
                    bound = min(LARGEST_UNPACKED, db.getlimit(sqlite3.SQLITE_LIMIT_LENGTH))
                    if length > bound:
                        raise sqlite3.DataError(
                            f"a value of {length} bytes is beyond what the store reads back ({bound})"
                        )
        base = self._world_key(world)  # before the transaction: a number once given stays given
        key = base + rev
        crc = checksum(key, action_id, reply, digest, kind, target, inverse)
        large = len(reply) + len(inverse or "") > UNBIND_FROM
        if action_id is None:
            parts = ()
        if snapshot is None and not parts:
            # One statement in autocommit mode is one transaction: the cheapest durable write. A
            # short value goes as a bytearray (`BOUND_AS_IS_BYTES`); text that is not packed goes
            # through the statement that stores it as text without asking (`INSERT_PLAIN`).
            statement = INSERT_PLAIN if plain else INSERT_RULING
            self._insert.execute(
                statement,
                (
                    key,
                    action_id,
                    _bound_as_is(reply),
                    digest,
                    crc,
                    kind,
                    target,
                    _bound_as_is(inverse),
                ),
            )
            if large:
                self._unbind(statement, (key, *(None,) * 7))
            self._since_snapshot[world] = self._since_snapshot.get(world, 0) + 1
            return
        row = (key, action_id, reply, digest, crc, kind, target, inverse)
        if snapshot is None:  # the row and its parts: one transaction
            db.execute("BEGIN")
            try:
                db.execute(INSERT_RULING, row)
                db.executemany(INSERT_PART, rows_of(key, kind, parts))
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            if large:
                self._unbind(INSERT_RULING, (key, *(None,) * 7))
            self._since_snapshot[world] = self._since_snapshot.get(world, 0) + 1
            return
        db.execute("BEGIN")
        try:
            if keeps_reply(action_id, snapshot=True):
                db.execute(INSERT_RULING, row)
                db.executemany(INSERT_PART, rows_of(key, kind, parts))
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
        self._db.execute(KEEP_HELD_CHANGES, (base + previous, base + rev))
        self._db.execute(DROP_HELD_ROWS, (base + previous, base + rev))

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
            f"{what_to_do(self.path)}"
        )

    def _check(self, world: str, row: tuple[Any, ...]) -> None:
        """`StoreDamaged` when a row of `log` (its columns as `ROW_AS_UTF8` lists them, the reply as
        text or as the bytes stored) fails its checksum: it changed on disk."""
        key, action_id, reply, digest, stored, *more = row
        if checksum(key, action_id, reply, digest, *more) != stored:
            base = self._bases.get(world, 0)
            raise StoreDamaged(
                f"{self.path}: the ruling at rev {key - base} of world {world!r} fails its checksum "
                f"(changed on disk): {what_to_do(self.path)}"
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
        """Steps and rolls `offset` to `offset + limit` of the ruling an action id was answered with,
        or None when the world answered no such action. A paged ruling's (`store.pages`) are read
        from the parts that hold them, each checksummed, nothing else of it read; another's from its
        reply (at most `pages.PAGED_FROM` bytes: its row checksummed, SQLite's JSON functions cut
        the log). `StoreDamaged` naming the ruling when a part or the row fails its checksum, does
        not unpack or parse, or a part is missing."""
        base = self._bases.get(world)
        if base is None:
            return None
        found = self._db.execute(  # its key only: a column after the reply is read through the reply
            "SELECT key FROM log WHERE key >= ? AND key < ? AND action_id = ? ORDER BY key DESC LIMIT 1",
            (base, base + REV_SPAN, action_id),
        ).fetchone()
        if found is None:
            return None
        key = found[0]
        paged = self._paged(world, key, offset, limit)
        if paged is not None:
            log, rolls = paged
            return RulingPage(key - base, log.kind, log.total, rolls.total, log.items, rolls.items)
        row = self._db.execute(f"SELECT {ROW_AS_UTF8} FROM log WHERE key = ?", (key,)).fetchone()
        kind = row[5]
        self._check(world, row)
        with self._read_back(world, key):
            steps, rolls, log_json, dice_json, cut = self._db.execute(
                RULING_PAGE, (key, offset, limit)
            ).fetchone()
        if cut is not None:  # its reply carries a `summary`: the ruling was paged, and its parts are gone
            raise self._part_damaged(world, key, "its parts are missing")
        return RulingPage(
            key - base,
            kind,
            int(steps or 0),
            int(rolls or 0),
            json.loads(log_json),
            json.loads(dice_json),
        )

    def _paged(self, world: str, key: int, offset: int, limit: int) -> tuple[ListPage, ListPage] | None:
        """A paged ruling's log and rolls from `offset` (`limit` of each) and their lengths, read from
        their parts (`pages.read_page`); None for a ruling that is not paged."""
        try:
            log = read_page(self._db, key, LOG, offset, limit)
            rolls = read_page(self._db, key, ROLLS, offset, limit)
        except PartDamaged as exc:
            raise self._part_damaged(world, key, str(exc)) from None
        if log is None and rolls is None:
            return None
        if log is None or rolls is None:
            raise self._part_damaged(
                world, key, f"the parts of its {'log' if log is None else 'rolls'} are missing"
            )
        return log, rolls

    def _part_damaged(self, world: str, key: int, why: str) -> StoreDamaged:
        base = self._bases.get(world, 0)
        return StoreDamaged(
            f"{self.path}: the log of the ruling at rev {key - base} of world {world!r} cannot be read "
            f"back: {why}: {what_to_do(self.path)}"
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
                    f"(changed on disk): {what_to_do(self.path)}"
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
            history=self._history(world, base, base + upgraded_rev(self._db, self.path, world)),
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
                f"{what_to_do(self.path)}"
            ) from None

    def _history(self, world: str, base: int, upgraded: int) -> History:
        """The last rulings of a world for undo (`HISTORY_KEPT`, `HISTORY_BYTES`), which stand undone,
        the message ids of its syncs and upserts, and why its rulings of earlier layouts cannot be
        undone: those without an inverse (`BEFORE_UNDO`), and those up to the key `upgraded` (the
        file's upgrade to layout 11, `store.upgrade`) that changed areas (`BEFORE_AREAS_BY_TARGET`)."""
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
            forward = self._ops(world, FORWARD_OPS, key)
            undo = self._ops(world, INVERSE_OPS, key) if undoable else None
            reason = None if undoable else BEFORE_UNDO if kind is None else f"a {kind} is no ruling"
            if undo is not None and key <= upgraded and (names_areas(forward) or names_areas(undo)):
                undo, reason = None, BEFORE_AREAS_BY_TARGET
            entries.append(
                Entry(
                    action_id,
                    key - base,
                    kind or "ruling",
                    forward,
                    undo,
                    target if action_id is not None else None,
                    reason,
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
                    f"(changed on disk): {what_to_do(self.path)}"
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
            if not unreadable(exc):
                raise
            raise self._not_unpacked(world, key, self._unreadable_why or exc) from None

    def latest(self, world: str, count: int, steps: int, budget: int = LATEST_BYTES) -> list[StoredRuling]:
        """A world's last `count` rulings, oldest first, each with its first `steps` steps, its
        checksum verified. Bounded: one range scan from the end of the world's keys; SQLite's JSON
        functions cut the log, so Python never parses a round's patch; once `budget` characters of
        replies were read, the older rulings come back as headings only (`steps` -1). A paged
        ruling's steps are read from its parts (`store.pages`); one whose parts are damaged comes
        back as a heading, and the damage is added to `warnings`."""
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
            try:
                paged = self._paged(world, key, 0, max(0, steps)) if steps > 0 else None
            except StoreDamaged as exc:  # told on the status page and to a query; the world serves on
                self.warnings.append(str(exc))
                read.append(StoredRuling(key - base, action_id, kind, [], -1))
                continue
            if paged is not None:  # its first steps and their count from its parts: its reply unread
                read.append(StoredRuling(key - base, action_id, kind, paged[0].items, paged[0].total))
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
