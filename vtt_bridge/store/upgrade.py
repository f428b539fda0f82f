"""Store layout 11: each world's areas (DET-4 on the map) keyed by target, `target -> observer ->
[x, y, r]`, where layout 10 and before kept them by observer, `observer -> target -> [x, y, r]`.

Opening a file of an earlier layout rebuilds each world's document as that layout reads it (its
snapshot, every later ruling's patch applied, each row's checksum verified), transposes its areas
(`areas_by_target`) and writes it as the world's snapshot at its last rev, inside the migration's
one transaction (`schema.migrate`): no ruling of the earlier layout is replayed again, and no patch
or inverse of it is ever applied to a document of this one. Each world's last rev then is kept in
`upgrades` (`upgrade_checksum`), and a ruling at or before it that changed areas cannot be undone
(`BEFORE_AREAS_BY_TARGET`, `names_areas`): its ops name them the earlier way. One that changed no
area (a `damage`) is undone as before: its paths are the same in both layouts.
"""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import orjson

from vtt_bridge.document.models import WorldState
from vtt_bridge.engine import patch as patches
from vtt_bridge.engine.codec import NotUnpacked, is_packed, unpacked
from vtt_bridge.engine.history import JsonOps
from vtt_bridge.errors import StoreDamaged
from vtt_bridge.store.files import what_to_do
from vtt_bridge.store.rows import (
    DROP_HELD_ROWS,
    KEEP_HELD_CHANGES,
    REV_SPAN,
    ROW_AS_UTF8,
    WRITE_SNAPSHOT,
    checksum,
    pack,
    snapshot_checksum,
)

AREAS_BY_TARGET = 11
"""The layout from which the areas are keyed by target (the key of its rows in `upgrades`)."""

BEFORE_AREAS_BY_TARGET = (
    "it was made by vtt-bridge 0.7.0 or earlier (store layout 10 or older) and changed areas of "
    "approximate targets, which that version kept by observer and 0.8.0 keeps by target; change its "
    "values back by hand"
)
"""Why a ruling made before the file was upgraded to layout 11 that changed areas cannot be undone."""

AREAS_PATH = b'"path":"/areas'
"""How an op on the areas starts its path in the JSON SQLite's JSON functions and orjson write (no
space after the colon; a string value that held these characters would hold its quotes escaped)."""

Area = TypeVar("Area")


def areas_by_target(areas: Mapping[str, Mapping[str, Area]]) -> dict[str, dict[str, Area]]:
    """Areas keyed observer -> target -> area (layout 10 and before) keyed target -> observer ->
    area (layout 11): the same pairs, each area the same value; no target without an area gets a
    row. Targets in the order they first appear, each row's observers in the earlier order."""
    out: dict[str, dict[str, Area]] = {}
    for observer, row in areas.items():
        for target, area in row.items():
            out.setdefault(target, {})[observer] = area
    return out


def names_areas(ops: JsonOps) -> bool:
    """Whether ops as the store reads them back (`Store._ops`: minified JSON) change an area."""
    return AREAS_PATH in ops.data()


def upgrade_checksum(world: str, layout: int, rev: int) -> int:
    """CRC-32 of a row of `upgrades`: a row changed on disk fails it."""
    return zlib.crc32(f"{world}\0{layout}\0{rev}".encode())


def upgraded_rev(db: sqlite3.Connection, path: Path, world: str) -> int:
    """The world's last rev when its file was upgraded to layout 11 (-1: it was made at layout 11
    or later): its rulings up to it cannot be undone. `StoreDamaged` when the row fails its checksum."""
    row = db.execute(
        "SELECT rev, checksum FROM upgrades WHERE world = ? AND layout = ?", (world, AREAS_BY_TARGET)
    ).fetchone()
    if row is None:
        return -1
    if upgrade_checksum(world, AREAS_BY_TARGET, row[0]) != row[1]:
        raise StoreDamaged(
            f"{path}: the record of world {world!r}'s upgrade to store layout {AREAS_BY_TARGET} fails its "
            f"checksum (changed on disk): {what_to_do(path)}"
        )
    return int(row[0])


def upgrade_areas(db: sqlite3.Connection, path: Path) -> int:
    """Key every world's areas by target (see the module's docstring), inside the migration's
    transaction; how many worlds were rewritten. `StoreDamaged` (and the caller rolls back) when a
    snapshot or a ruling fails its checksum, does not unpack or parse, or a patch does not apply."""
    done = 0
    numbers = dict(db.execute("SELECT world, n FROM world_keys").fetchall())
    worlds = sorted({world for (world,) in db.execute("SELECT world FROM worlds")} | set(numbers))
    for world in worlds:
        n = numbers.get(world)
        rebuilt = _rebuilt(db, path, world, None if n is None else int(n) * REV_SPAN)
        if rebuilt is None:
            continue
        previous, rev, document = rebuilt
        areas = document.get("areas", {})
        if not isinstance(areas, dict) or not all(isinstance(row, dict) for row in areas.values()):
            raise StoreDamaged(
                f"{path}: the areas of world {world!r} at rev {rev} are no map of rows: {what_to_do(path)}"
            )
        document["areas"] = areas_by_target(areas)
        snapshot = pack(orjson.dumps(document))
        db.execute(WRITE_SNAPSHOT, (world, rev, snapshot, snapshot_checksum(world, rev, snapshot)))
        if n is not None:  # the rows the snapshot now holds, as `Store.append` drops them
            base = int(n) * REV_SPAN
            db.execute(KEEP_HELD_CHANGES, (base + previous, base + rev))
            db.execute(DROP_HELD_ROWS, (base + previous, base + rev))
        db.execute(
            "INSERT OR REPLACE INTO upgrades (world, layout, rev, checksum) VALUES (?, ?, ?, ?)",
            (world, AREAS_BY_TARGET, rev, upgrade_checksum(world, AREAS_BY_TARGET, rev)),
        )
        done += 1
    return done


def _rebuilt(
    db: sqlite3.Connection, path: Path, world: str, base: int | None
) -> tuple[int, int, dict[str, Any]] | None:
    """A world's document at its last rev as an earlier layout reads it: (its snapshot's rev, or -1,
    its last rev, the document); None when the file holds nothing of it."""
    row = db.execute(
        "SELECT snapshot_rev, snapshot, checksum FROM worlds WHERE world = ?", (world,)
    ).fetchone()
    previous = rev = -1
    document: Any = WorldState().model_dump(mode="json")
    if row is not None:
        previous = rev = int(row[0])
        if snapshot_checksum(world, rev, row[1]) != row[2]:
            raise StoreDamaged(
                f"{path}: the snapshot of world {world!r} (rev {rev}) fails its checksum "
                f"(changed on disk): {what_to_do(path)}"
            )
        if isinstance(row[1], bytes) and not is_packed(row[1]):  # a BLOB is always packed
            raise StoreDamaged(
                f"{path}: the snapshot of world {world!r} (rev {rev}) cannot be read back (a BLOB that "
                f"is no Zstandard frame): {what_to_do(path)}"
            )
        document = _parsed(path, f"the snapshot of world {world!r} (rev {rev})", row[1])
        if not isinstance(document, dict):
            raise StoreDamaged(f"{path}: the snapshot of world {world!r} is no document: {what_to_do(path)}")
        document.setdefault("areas", {})  # a snapshot written before areas were kept (DET-4)
    if base is not None:
        for stored in db.execute(
            f"SELECT {ROW_AS_UTF8} FROM log WHERE key > ? AND key < ? ORDER BY key",
            (base + previous, base + REV_SPAN),
        ).fetchall():
            key, action_id, reply, digest, stored_sum, *more = stored
            rev = key - base
            if checksum(key, action_id, reply, digest, *more) != stored_sum:
                raise StoreDamaged(
                    f"{path}: the ruling at rev {rev} of world {world!r} fails its checksum "
                    f"(changed on disk): {what_to_do(path)}"
                )
            ruling = _parsed(path, f"the ruling at rev {rev} of world {world!r}", bytes(reply))
            try:
                patches.apply(document, ruling["patch"])
            except (*patches.PatchConflict, KeyError, TypeError) as exc:
                raise StoreDamaged(
                    f"{path}: the ruling at rev {rev} of world {world!r} does not apply to the world "
                    f"before it ({exc}): {what_to_do(path)}"
                ) from None
    if rev < 0:
        return None
    return previous, rev, document


def _parsed(path: Path, what: str, stored: str | bytes) -> Any:
    """A stored snapshot or reply (text, its UTF-8, or packed), parsed: `StoreDamaged` naming `what`
    when it does not unpack or parse."""
    try:
        if isinstance(stored, str):
            return orjson.loads(stored)
        return orjson.loads(unpacked(stored) if is_packed(stored) else stored)
    except (NotUnpacked, orjson.JSONDecodeError) as exc:
        raise StoreDamaged(f"{path}: {what} cannot be read back ({exc}): {what_to_do(path)}") from None
