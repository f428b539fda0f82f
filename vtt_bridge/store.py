"""The SQLite store: an append-only log of rulings per world, with snapshots, and recovery.

Durability (docs/durability.md): the store runs in WAL mode with `synchronous=NORMAL`. Each ruling
is one committed transaction before it is acknowledged, so a killed process (SIGKILL, a crash)
loses nothing: the commit is in the operating system's cache and the WAL file. No fsync is paid per
ruling; a background checkpoint (every `sync_interval` seconds) fsyncs the WAL, which bounds what a
power loss can cost to the rulings of the last interval.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vtt_bridge import patch as patches
from vtt_bridge.models import WorldState
from vtt_bridge.rules.common import STORED

SCHEMA = """
CREATE TABLE IF NOT EXISTS worlds (
    world TEXT PRIMARY KEY,
    snapshot_rev INTEGER NOT NULL,
    snapshot TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS world_keys (
    n INTEGER PRIMARY KEY,
    world TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS log (
    key INTEGER PRIMARY KEY,
    action_id TEXT,
    reply TEXT NOT NULL
);
"""
"""`log` holds the rulings of every world, each keyed by its world's number (`world_keys`) and its
rev in one integer, `n << 40 | rev` (`REV_SPAN`): the key is the table's rowid, so a ruling is
written into one B-tree (no index beside it), at the end of its world's range. A reply runs from a
kilobyte (`damage`) to megabytes (a 500-token `round`)."""

REV_SPAN = 1 << 40
"""Revs a world can reach in the log's key (a trillion rulings)."""

AUTOCHECKPOINT_PAGES = 16384
"""WAL pages (64 MiB) after which SQLite checkpoints inside a commit. The background checkpoint
(`flush`, every `sync_interval`) does it long before, so a ruling's commit never waits for the disk;
this only bounds the WAL should a burst outrun a second. SQLite's default, 1,000 pages, made one
`damage` in about 400 wait for two fsyncs inside its commit."""

WAL_LIMIT_BYTES = 64 << 20
"""A WAL file a burst grew beyond this is truncated back to it when the WAL restarts."""

SNAPSHOT_EVERY = 1000
"""Rulings between two snapshots of a world (recovery replays at most this many patches)."""


@dataclass(frozen=True)
class Recovered:
    """A world as the store last acknowledged it: its state, every action id it answered, and the
    replies to the most recent of them (older ones are read back on demand: `Store.reply`)."""

    state: WorldState
    replies: dict[str, str]
    answered: set[str]


class StoreBusy(Exception):
    """Another process holds the store (a second sidecar on the same data folder)."""


class Store:
    """The rulings log in one SQLite file. Not thread-safe: the server's event loop owns it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=1.0)
        # One process owns the file for as long as it runs: no file locking per transaction (six
        # fcntl calls a ruling saved), no shared-memory WAL index, and a second sidecar on the same
        # data folder is refused instead of writing a second history into it.
        self._db.execute("PRAGMA locking_mode=EXCLUSIVE")
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(f"PRAGMA wal_autocheckpoint={AUTOCHECKPOINT_PAGES}")
            self._db.execute(f"PRAGMA journal_size_limit={WAL_LIMIT_BYTES}")
            self._db.executescript(SCHEMA)
            moved = self._migrate()
        except sqlite3.OperationalError as exc:
            self._db.close()
            if "locked" in str(exc):
                raise StoreBusy(
                    f"{path} is in use by another vtt-bridge (one sidecar per data folder)"
                ) from None
            raise
        self._since_snapshot: dict[str, int] = {}
        self.moved = moved
        """Rulings moved from an earlier version's log when the file was opened (0: none)."""
        self._bases: dict[str, int] = {
            world: n * REV_SPAN for n, world in self._db.execute("SELECT n, world FROM world_keys")
        }

    def _migrate(self) -> int:
        """Move the log earlier versions kept in table `rulings` (world, rev, action_id, reply, keyed
        by world and rev) into `log`, in one transaction; how many rulings it held."""
        db = self._db
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'rulings'").fetchone() is None:
            return 0
        db.execute("BEGIN")
        try:
            db.execute(
                "INSERT OR IGNORE INTO world_keys (world) SELECT DISTINCT world FROM rulings ORDER BY world"
            )
            moved = db.execute(
                "INSERT INTO log (key, action_id, reply) SELECT k.n * ? + r.rev, r.action_id, r.reply "
                "FROM rulings AS r JOIN world_keys AS k ON k.world = r.world",
                (REV_SPAN,),
            ).rowcount
            db.execute("DROP TABLE rulings")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return moved

    def close(self) -> None:
        """Checkpoint and fsync the WAL, then close the file; closed even when the checkpoint fails
        (the WAL keeps every committed ruling, and the next start reads it)."""
        try:
            self.flush()
        finally:
            self._db.close()

    def flush(self) -> None:
        """Fsync what was committed (a WAL checkpoint): after this a power loss costs nothing."""
        self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def _world_key(self, world: str) -> int:
        """The first key of a world's range in `log` (a world gets its number with its first ruling)."""
        base = self._bases.get(world)
        if base is None:
            cursor = self._db.execute("INSERT INTO world_keys (world) VALUES (?)", (world,))
            assert cursor.lastrowid is not None
            base = self._bases[world] = cursor.lastrowid * REV_SPAN
        return base

    def append(
        self, world: str, rev: int, action_id: str | None, reply: str, snapshot: WorldState | None
    ) -> None:
        """Write one ruling (and, when given, a snapshot of the state after it) in one transaction."""
        if not 0 <= rev < REV_SPAN:
            raise ValueError(f"rev {rev} is beyond the log's key")
        db = self._db
        base = self._world_key(world)  # before the transaction: a number once given stays given
        key = base + rev
        if snapshot is None:
            # One statement in autocommit mode is one transaction: the cheapest durable write.
            db.execute("INSERT INTO log (key, action_id, reply) VALUES (?, ?, ?)", (key, action_id, reply))
            self._since_snapshot[world] = self._since_snapshot.get(world, 0) + 1
            return
        db.execute("BEGIN")
        try:
            if action_id is not None:
                db.execute(
                    "INSERT INTO log (key, action_id, reply) VALUES (?, ?, ?)", (key, action_id, reply)
                )
            self._write_snapshot(world, base, snapshot)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._since_snapshot[world] = 0

    def wants_snapshot(self, world: str) -> bool:
        """Whether the next ruling of this world should carry a snapshot (to bound replay)."""
        return self._since_snapshot.get(world, 0) + 1 >= SNAPSHOT_EVERY

    def _write_snapshot(self, world: str, base: int, state: WorldState) -> None:
        row = self._db.execute("SELECT snapshot_rev FROM worlds WHERE world = ?", (world,)).fetchone()
        previous = -1 if row is None else int(row[0])
        self._db.execute(
            "INSERT INTO worlds (world, snapshot_rev, snapshot) VALUES (?, ?, ?) ON CONFLICT (world) "
            "DO UPDATE SET snapshot_rev = excluded.snapshot_rev, snapshot = excluded.snapshot",
            (world, state.rev, state.model_dump_json()),
        )
        # The rulings the snapshot now holds, but for the actions' (kept for their replies). Those up
        # to the previous snapshot went with it: the range stays that of one interval, however long
        # the world's history.
        self._db.execute(
            "DELETE FROM log WHERE key > ? AND key <= ? AND action_id IS NULL",
            (base + previous, base + state.rev),
        )

    def worlds(self) -> list[str]:
        """Every world the store knows."""
        rows = self._db.execute("SELECT world FROM worlds UNION SELECT world FROM world_keys").fetchall()
        return sorted(row[0] for row in rows)

    def reply(self, world: str, action_id: str) -> str | None:
        """The reply an action id was answered with (a scan of the world's rulings: for a retry of an
        action older than the replies the world keeps in memory, which is rare)."""
        base = self._bases.get(world)
        if base is None:
            return None
        row = self._db.execute(
            "SELECT reply FROM log WHERE key >= ? AND key < ? AND action_id = ? LIMIT 1",
            (base, base + REV_SPAN, action_id),
        ).fetchone()
        return None if row is None else str(row[0])

    def recover(self, world: str, recent: int) -> Recovered:
        """The world at its last acknowledged rev (its snapshot with every later ruling's patch
        applied), every action id it answered, and the replies to the last `recent` actions."""
        row = self._db.execute(
            "SELECT snapshot_rev, snapshot FROM worlds WHERE world = ?", (world,)
        ).fetchone()
        snapshot_rev = -1
        document: dict[str, Any] = WorldState().model_dump(mode="json")
        if row is not None:
            snapshot_rev, document = row[0], json.loads(row[1])
        replayed = 0
        base = self._bases.get(world)
        if base is None:
            self._since_snapshot[world] = 0
            return Recovered(
                state=WorldState.model_validate(document, context=STORED), replies={}, answered=set()
            )
        after, end = base + snapshot_rev + 1, base + REV_SPAN
        for (reply,) in self._db.execute(
            "SELECT reply FROM log WHERE key >= ? AND key < ? ORDER BY key", (after, end)
        ):
            patches.apply(document, json.loads(reply)["patch"])
            replayed += 1
        self._since_snapshot[world] = replayed
        answered = {
            action_id
            for (action_id,) in self._db.execute(
                "SELECT action_id FROM log WHERE key >= ? AND key < ? AND action_id IS NOT NULL",
                (base, end),
            )
        }
        latest = self._db.execute(
            "SELECT action_id, reply FROM log WHERE key >= ? AND key < ? AND action_id IS NOT NULL "
            "ORDER BY key DESC LIMIT ?",
            (base, end, recent),
        ).fetchall()
        replies = {action_id: reply for action_id, reply in reversed(latest)}
        return Recovered(
            state=WorldState.model_validate(document, context=STORED), replies=replies, answered=answered
        )
