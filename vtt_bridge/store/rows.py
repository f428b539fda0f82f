"""A stored row's codec: how a ruling's reply, inverse and snapshot are written (as text, or packed
when large), the checksums that tell a row changed on disk, and the SQL that reads a stored row's
JSON back through SQLite's JSON functions (a packed value unpacked by `vtt_text`).
"""

from __future__ import annotations

import sqlite3

from isal import isal_zlib

from vtt_bridge.document.models import WorldState
from vtt_bridge.engine.codec import (
    PACKED_MARK,
    frame,
    unpacked,
)

crc32 = isal_zlib.crc32
"""`crc32(data, value=0)`: CRC-32 as `zlib.crc32` gives it (the same polynomial and value, so a row
written by any version reads back the same), computed by ISA-L, which folds many bytes a step where
zlib reads a table (docs/benchmarks.md): every checksum the store writes and verifies."""


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


INSERT_PLAIN = (
    "INSERT INTO log (key, action_id, reply, digest, checksum, kind, target, inverse) "
    "VALUES (?1, ?2, CAST(?3 AS TEXT), ?4, ?5, ?6, ?7, CAST(?8 AS TEXT))"
)
"""`INSERT_RULING` for a row whose reply and inverse are not packed (`codec.is_packed` says so of
neither): each is stored as the text it is, as `_stored_value` stores it, without SQLite looking
for the mark."""


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


def unreadable(error: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused a stored value itself: `vtt_text` failed on it (`NotUnpacked`), or
    it is no JSON."""
    return str(error) in ("user-defined function raised exception", "malformed JSON")


def stored_text(value: str | bytes) -> str:  # raises NotUnpacked, which SQLite reports as its own error
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


REV_SPAN = 1 << 40
"""Revs a world can reach in the log's key (a trillion rulings): a ruling's key is its world's number
times this, plus its rev."""


KEEP_HELD_CHANGES = (
    "INSERT OR REPLACE INTO changes (key, message_id, kind, checksum) "
    "SELECT key, target, kind, vtt_change_checksum(key, target, kind) FROM log "
    "WHERE key > ? AND key <= ? AND action_id IS NULL AND target IS NOT NULL AND kind IS NOT NULL"
)
"""When a snapshot is written: the message ids and kinds of the syncs and upserts in a range of keys
(after the previous snapshot, up to the new one) copied into `changes`, before `DROP_HELD_ROWS`."""


DROP_HELD_ROWS = "DELETE FROM log WHERE key > ? AND key <= ? AND action_id IS NULL"
"""When a snapshot is written: the rulings it holds in a range of keys dropped, but for the actions'
(kept for their replies)."""


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
    crc = crc32(reply if isinstance(reply, bytes) else reply.encode(), crc32(head))
    if kind is None and target is None and inverse is None:
        return crc
    crc = crc32(f"{kind or ''}\0{target or ''}\0".encode(), crc)
    if inverse is None:
        return crc
    return crc32(inverse if isinstance(inverse, bytes) else inverse.encode(), crc)


def snapshot_checksum(world: str, rev: int, snapshot: str | bytes) -> int:
    """CRC-32 of a world's snapshot row: its world, rev and the snapshot's bytes as stored (the text's
    UTF-8, or the packed bytes). A snapshot changed on disk fails it."""
    head = crc32(f"{world}\0{rev}\0".encode())
    return crc32(snapshot if isinstance(snapshot, bytes) else snapshot.encode(), head)


def change_checksum(key: int, message_id: str, kind: str) -> int:
    """CRC-32 of a row of `changes`."""
    return crc32(f"{key}\0{message_id}\0{kind}".encode())


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
    "(SELECT value FROM json_each(ruling.reply, '$.rolls') ORDER BY key LIMIT ?3 OFFSET ?2)), "
    "json_type(reply, '$.summary') FROM ruling"
)
"""How many steps and rolls a stored ruling has, and ?3 of each from the ?2nd, read from its row ?1
(unpacked once when packed), and whether its reply carries a `summary` (then it was paged)."""
