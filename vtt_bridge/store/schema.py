"""The store's file layout: its tables (`SCHEMA`), its layout number and the versions that wrote each
one, the check that refuses a file of another program or of a newer layout, and the migration of a
file of an earlier layout, in one transaction.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, NamedTuple

from vtt_bridge import __version__
from vtt_bridge.errors import StoreDamaged
from vtt_bridge.store.files import what_to_do
from vtt_bridge.store.pages import page_earlier_rulings
from vtt_bridge.store.rows import REV_SPAN as REV_SPAN  # the log's key, named here as it was
from vtt_bridge.store.rows import ROW_AS_UTF8, checksum
from vtt_bridge.store.upgrade import AREAS_BY_TARGET, upgrade_areas

APPLICATION_ID = 0x56545442
"""`PRAGMA application_id` of a vtt-bridge store ("VTTB")."""


LAYOUT = AREAS_BY_TARGET
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
snapshots of earlier layouts get theirs when the file is opened. 10 keeps an action's log and rolls in
parts of their own (`pages`, `store.pages`) when they are longer than a reply carries (or the reply
is large), and that reply then with the first steps and rolls only; the actions' rulings of earlier
layouts get their parts when the file is opened (their replies stay as they are). 11 keeps each world's
areas by target (`store.upgrade`): every world of an earlier layout is rebuilt and written as a
snapshot at its last rev with its areas transposed when the file is opened, and its rulings up to
then that changed areas (their last revs kept in `upgrades`) cannot be undone."""


LAYOUTS_OF_VERSIONS = {
    4: "0.1.0",
    5: "0.2.0",
    6: "0.3.0",
    7: "0.4.0",
    8: "0.5.0",
    9: "0.6.0",
    10: "0.7.0",
    11: "0.8.0",
}
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
CREATE TABLE IF NOT EXISTS pages (
    key INTEGER NOT NULL,
    list INTEGER NOT NULL,
    first INTEGER NOT NULL,
    count INTEGER NOT NULL,
    total INTEGER NOT NULL,
    kind TEXT,
    data BLOB NOT NULL,
    checksum INTEGER NOT NULL,
    PRIMARY KEY (key, list, first)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS upgrades (
    world TEXT NOT NULL,
    layout INTEGER NOT NULL,
    rev INTEGER NOT NULL,
    checksum INTEGER NOT NULL,
    PRIMARY KEY (world, layout)
) WITHOUT ROWID;
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

`pages` (layout 10) keeps the log and rolls of an action's ruling that `store.pages.paged` pages,
in runs (`store.pages.Part`), keyed by the ruling's key in `log`, the list (0 its log, 1 its rolls)
and the run's first index: a page reads its runs alone. `checksum`: `part_checksum()` of the row.

`changes` keeps the message id and kind of every sync and upsert, keyed as `log` is, for the rows a
snapshot drops from `log` (a sync's own row is never written: its snapshot holds it), so an undo of
one is refused as no ruling after any restart; `checksum`: `change_checksum()` of the row.

`upgrades` (layout 11) keeps, for each world of a file upgraded to a layout, its last rev then: its
rulings up to it were made by an earlier layout (`store.upgrade`); `checksum`: `upgrade_checksum()`
of the row."""


CHANGES_TABLE = SCHEMA[SCHEMA.index("CREATE TABLE IF NOT EXISTS changes") :]
"""The table a file of layout 6 written before it gets when it is opened (nothing else changes: a
version that does not know it leaves it alone)."""


ROW_OF_KEY = f"SELECT {ROW_AS_UTF8} FROM log WHERE key = ?"
"""One row of `log` as its checksum is verified (`rows.ROW_AS_UTF8`)."""


def _checked_fields(row: tuple[object, ...]) -> tuple[Any, ...]:
    """The fields of a row of `log` (`ROW_OF_KEY`) that `checksum` covers, in its order."""
    key, action_id, reply, digest, _, kind, target, inverse = row
    return key, action_id, reply, digest, kind, target, inverse


def check_version(db: sqlite3.Connection, path: Path) -> None:
    """Refuse (before anything is written) a file of another program or of a newer layout."""
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    layout = db.execute("PRAGMA user_version").fetchone()[0]
    if app_id not in (0, APPLICATION_ID):
        raise StoreDamaged(
            f"{path} is an SQLite file of another program (application id {app_id:#x}): "
            "point --data-dir at vtt-bridge's own folder"
        )
    if layout > LAYOUT:
        newer = LAYOUTS_OF_VERSIONS.get(layout)
        written = (
            f"vtt-bridge {newer} or later" if newer else f"written by a vtt-bridge later than {__version__}"
        )
        raise StoreDamaged(
            f"{path} has layout {layout} ({written}); this vtt-bridge "
            f"{__version__} reads layouts up to {LAYOUT}: upgrade vtt-bridge (nothing was written)"
        )


class Migrated(NamedTuple):
    """What `migrate` did to a file of an earlier layout (zeros: nothing)."""

    moved: int
    """Rulings moved from an earlier `rulings` table."""
    upgraded: int
    """Worlds whose areas it keyed by target (`store.upgrade`)."""


def migrate(db: sqlite3.Connection, path: Path) -> Migrated:
    """Bring a file of an earlier layout (`LAYOUT`) to this one in one transaction. Idempotent: a
    file at this layout is left as it is, and an interrupted migration is rolled back whole."""
    if db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT:
        db.execute(CHANGES_TABLE)
        return Migrated(0, 0)
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
            moved = _move_rulings(db, path)
        page_earlier_rulings(db, ROW_OF_KEY, lambda row: checksum(*_checked_fields(row)) == row[4])
        upgraded = upgrade_areas(db, path)
        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        db.execute(f"PRAGMA user_version={LAYOUT}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return Migrated(moved, upgraded)


def _move_rulings(db: sqlite3.Connection, path: Path) -> int:
    """Move the log layouts 1-3 kept in table `rulings` (world, rev, action_id, reply, keyed by
    world and rev) into `log`. A ruling already in `log` with the same reply is the same ruling;
    one with another reply is a second history, and the file is refused."""
    db.execute("INSERT OR IGNORE INTO world_keys (world) SELECT DISTINCT world FROM rulings ORDER BY world")
    clashes = db.execute(
        "SELECT count(*) FROM rulings AS r JOIN world_keys AS k ON k.world = r.world "
        "JOIN log AS l ON l.key = k.n * ? + r.rev WHERE l.reply != r.reply",
        (REV_SPAN,),
    ).fetchone()[0]
    if clashes:
        raise StoreDamaged(
            f"{path} holds two histories ({clashes} rulings of an earlier version's table "
            f"differ from this version's at the same rev): {what_to_do(path)}"
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
