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

SCHEMA = """
CREATE TABLE IF NOT EXISTS worlds (
    world TEXT PRIMARY KEY,
    snapshot_rev INTEGER NOT NULL,
    snapshot TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS rulings (
    world TEXT NOT NULL,
    rev INTEGER NOT NULL,
    action_id TEXT,
    reply TEXT NOT NULL,
    PRIMARY KEY (world, rev)
);
"""
"""`rulings` is a rowid table with its key in an index: a reply runs from a kilobyte (`damage`) to
megabytes (a 500-token `round`), and SQLite keeps WITHOUT ROWID tables for rows under about a
twentieth of a page (a 5 KB `move` reply is written 25% faster so). A file made by an earlier
version keeps its WITHOUT ROWID table, which the same statements read and write."""

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
            self._db.executescript(SCHEMA)
        except sqlite3.OperationalError as exc:
            self._db.close()
            if "locked" in str(exc):
                raise StoreBusy(
                    f"{path} is in use by another vtt-bridge (one sidecar per data folder)"
                ) from None
            raise
        self._since_snapshot: dict[str, int] = {}

    def close(self) -> None:
        """Checkpoint and fsync the WAL, then close the file."""
        self.flush()
        self._db.close()

    def flush(self) -> None:
        """Fsync what was committed (a WAL checkpoint): after this a power loss costs nothing."""
        self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def append(
        self, world: str, rev: int, action_id: str | None, reply: str, snapshot: WorldState | None
    ) -> None:
        """Write one ruling (and, when given, a snapshot of the state after it) in one transaction."""
        db = self._db
        if snapshot is None:
            # One statement in autocommit mode is one transaction: the cheapest durable write.
            db.execute(
                "INSERT INTO rulings (world, rev, action_id, reply) VALUES (?, ?, ?, ?)",
                (world, rev, action_id, reply),
            )
            self._since_snapshot[world] = self._since_snapshot.get(world, 0) + 1
            return
        db.execute("BEGIN")
        try:
            if action_id is not None:
                db.execute(
                    "INSERT INTO rulings (world, rev, action_id, reply) VALUES (?, ?, ?, ?)",
                    (world, rev, action_id, reply),
                )
            self._write_snapshot(world, snapshot)
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        self._since_snapshot[world] = 0

    def wants_snapshot(self, world: str) -> bool:
        """Whether the next ruling of this world should carry a snapshot (to bound replay)."""
        return self._since_snapshot.get(world, 0) + 1 >= SNAPSHOT_EVERY

    def _write_snapshot(self, world: str, state: WorldState) -> None:
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
            "DELETE FROM rulings WHERE world = ? AND rev > ? AND rev <= ? AND action_id IS NULL",
            (world, previous, state.rev),
        )

    def worlds(self) -> list[str]:
        """Every world the store knows."""
        rows = self._db.execute(
            "SELECT world FROM worlds UNION SELECT DISTINCT world FROM rulings"
        ).fetchall()
        return sorted(row[0] for row in rows)

    def reply(self, world: str, action_id: str) -> str | None:
        """The reply an action id was answered with (a scan of the world's rulings: for a retry of an
        action older than the replies the world keeps in memory, which is rare)."""
        row = self._db.execute(
            "SELECT reply FROM rulings WHERE world = ? AND action_id = ? LIMIT 1", (world, action_id)
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
        for (reply,) in self._db.execute(
            "SELECT reply FROM rulings WHERE world = ? AND rev > ? ORDER BY rev", (world, snapshot_rev)
        ):
            patches.apply(document, json.loads(reply)["patch"])
            replayed += 1
        self._since_snapshot[world] = replayed
        answered = {
            action_id
            for (action_id,) in self._db.execute(
                "SELECT action_id FROM rulings WHERE world = ? AND action_id IS NOT NULL", (world,)
            )
        }
        latest = self._db.execute(
            "SELECT action_id, reply FROM rulings WHERE world = ? AND action_id IS NOT NULL "
            "ORDER BY rev DESC LIMIT ?",
            (world, recent),
        ).fetchall()
        replies = {action_id: reply for action_id, reply in reversed(latest)}
        return Recovered(state=WorldState.model_validate(document), replies=replies, answered=answered)
