"""A ruling's log and rolls kept in parts of their own (store layout 10), so that a page of them
(`query {kind: "ruling"}`) reads the parts it holds and nothing else: not the ruling's reply, not
the other parts.

A paged ruling (an action's whose log or rolls are longer than a reply carries, `LOG_SHOWN` and
`ROLLS_SHOWN`, or whose reply is larger than `PAGED_FROM`) has, in table `pages`, each of its two
lists (`LOG`, `ROLLS`) as runs of `PART_ITEMS` items: each row one run's JSON array, packed when
long (`PACK_PART_FROM`), with the run's first index, its length, the list's whole length (so a part
missing at the end is told), the ruling's kind (a page reads nothing of its row in `log`, where the
kind comes after the reply's megabytes) and a CRC-32 of them all (`part_checksum`). An empty list
has one empty part, so that a paged ruling always has parts of both lists. Its reply in `log` keeps
what a client was sent of them (the first steps and rolls and their `summary`) and the whole patch.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import orjson

from vtt_bridge.engine.codec import NotUnpacked, frame, is_packed, unpacked
from vtt_bridge.engine.protocol import LOG_SHOWN, ROLLS_SHOWN
from vtt_bridge.errors import StoreError
from vtt_bridge.store.rows import crc32

LOG = 0
ROLLS = 1
"""Which list a part holds (column `list` of `pages`)."""

LISTS = (("log", LOG), ("rolls", ROLLS))
"""A result's keys of the two paged lists, with their codes."""

PART_ITEMS = 256
"""Steps (or rolls) a part holds (the last one of a list fewer): a page of the module's 500 reads two
or three parts; longer parts pack little better (docs/benchmarks.md)."""

PACK_PART_FROM = 1 << 10
"""Bytes of a part's JSON from which it is stored packed (a Zstandard frame, `engine.codec.frame`)."""

PAGED_FROM = 64 << 10
"""Bytes of a reply beyond which an action's ruling is paged even when its log and rolls are short:
a page of a ruling that is not paged reads its whole reply, at most this much."""


class Part(NamedTuple):
    """One run of a ruling's log or rolls: which list, its first index, how many items, the
    list's whole length, and its JSON array's UTF-8 (packed or not, as `packed_parts` leaves it)."""

    which: int
    first: int
    length: int
    total: int
    data: bytes


def parts_of(result: dict[str, Any], dump: Callable[[list[Any]], bytes]) -> list[Part]:
    """A result's log and rolls as parts, each run dumped by `dump` (its JSON array's UTF-8), not
    packed; an empty or missing list as one empty part."""
    made: list[Part] = []
    for key, which in LISTS:
        items = result.get(key)
        items = items if isinstance(items, list) else []
        total = len(items)
        if not items:
            made.append(Part(which, 0, 0, 0, b"[]"))
        for first in range(0, total, PART_ITEMS):
            run = items[first : first + PART_ITEMS]
            made.append(Part(which, first, len(run), total, dump(run)))
    return made


def packed_parts(parts: Sequence[Part]) -> list[Part]:
    """The parts as the store writes them: a part's JSON of `PACK_PART_FROM` bytes or more packed.
    Pure and thread-safe: a round's are packed in a worker before the store is taken."""
    return [
        part._replace(data=frame(part.data)) if len(part.data) >= PACK_PART_FROM else part for part in parts
    ]


def part_checksum(
    key: int, which: int, first: int, count: int, total: int, kind: str | None, data: bytes
) -> int:
    """CRC-32 of a row of `pages`: the ruling's key, the list, the run's place, the list's length, the
    ruling's kind, and the part's bytes as stored. A part changed on disk fails it."""
    head = f"{key}\0{which}\0{first}\0{count}\0{total}\0{kind or ''}\0".encode()
    return crc32(data, crc32(head))


INSERT_PART = (
    "INSERT INTO pages (key, list, first, count, total, kind, data, checksum) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)

PartRow = tuple[int, int, int, int, int, str | None, bytes, int]


def rows_of(key: int, kind: str | None, parts: Sequence[Part]) -> Iterator[PartRow]:
    """The rows of `pages` a ruling's parts (`packed_parts`) are written as (`kind`: the ruling's)."""
    for which, first, length, total, data in parts:
        checked = part_checksum(key, which, first, length, total, kind, data)
        yield key, which, first, length, total, kind, data, checked


PAGE_PARTS = (
    "SELECT first, count, total, kind, data, checksum FROM pages WHERE key = ?1 AND list = ?2 AND first >= "
    "coalesce((SELECT first FROM pages WHERE key = ?1 AND list = ?2 AND first <= ?3 ORDER BY first DESC "
    "LIMIT 1), 0) AND first < ?3 + ?4 ORDER BY first"
)
"""The parts of one list of a ruling (?1, ?2) that hold its items ?3 to ?3 + ?4 - 1: from the one its
item ?3 is in (or the last one, past the end) on, two seeks in the primary key."""


class PartDamaged(StoreError):
    """A ruling's part fails its checksum, does not unpack or parse, or is missing (`Store` says
    which file and ruling: `StoreDamaged`)."""


class ListPage(NamedTuple):
    """A page of one list of a paged ruling: the list's length, its items in the page, and the
    ruling's kind (what its parts say)."""

    total: int
    items: list[Any]
    kind: str | None


def page_of(
    key: int, which: int, rows: list[tuple[int, int, int, str | None, bytes, int]], offset: int, limit: int
) -> ListPage | None:
    """A list's length and its items `offset` to `offset + limit - 1`, from the rows `PAGE_PARTS`
    read (None: the ruling is not paged), each verified: `PartDamaged` when one fails its checksum,
    does not unpack or parse, or when they do not hold the whole range (a part missing)."""
    if not rows:
        return None
    total, kind = rows[0][2], rows[0][3]
    end = min(offset + limit, total)
    items: list[Any] = []
    at = rows[0][0] if rows[0][0] <= offset else -1  # else the part that holds `offset` is missing
    for first, count, whole, named, data, stored in rows:
        data = bytes(data)
        if part_checksum(key, which, first, count, whole, named, data) != stored:
            raise PartDamaged(f"its part from item {first} fails its checksum (changed on disk)")
        if whole != total or named != kind or first != at:
            raise PartDamaged(f"its part from item {max(at, 0)} is missing")
        at = first + count
        if first + count <= offset or first >= end:
            continue
        try:
            run = orjson.loads(unpacked(data) if is_packed(data) else data)
        except (NotUnpacked, orjson.JSONDecodeError) as exc:
            raise PartDamaged(f"its part from item {first} cannot be read back ({exc})") from None
        if not isinstance(run, list) or len(run) != count:
            raise PartDamaged(f"its part from item {first} holds no {count} items")
        items += run[max(0, offset - first) : end - first]
    if at < end or (offset >= total and at != total):
        raise PartDamaged(f"its part from item {at} of {total} is missing")
    return ListPage(total, items, kind)


def read_page(db: sqlite3.Connection, key: int, which: int, offset: int, limit: int) -> ListPage | None:
    """`page_of` the parts `PAGE_PARTS` reads."""
    return page_of(key, which, db.execute(PAGE_PARTS, (key, which, offset, limit)).fetchall(), offset, limit)


_UNPAGED = (
    "SELECT key FROM log WHERE action_id IS NOT NULL "
    "AND NOT EXISTS (SELECT 1 FROM pages WHERE pages.key = log.key AND pages.list = 0) AND ("
    "typeof(reply) = 'blob' OR length(CAST(reply AS BLOB)) > ?1 OR (json_valid(reply) AND "
    "(json_array_length(reply, '$.log') > ?2 OR json_array_length(reply, '$.rolls') > ?3))) ORDER BY key"
)
"""The keys of the actions' rulings of an earlier layout that are paged (a packed reply is always
larger than `PAGED_FROM`)."""


def page_earlier_rulings(
    db: sqlite3.Connection, row_query: str, verified: Callable[[tuple[Any, ...]], bool]
) -> int:
    """Write the parts (`pages`) of every action's ruling of an earlier layout that is paged,
    from its stored reply (which keeps its whole log and rolls, as it was: an acknowledged row is
    not rewritten), one ruling at a time; inside the migration's transaction. A row that fails its
    checksum (`verified`), does not unpack or is no JSON object is left without parts: a page of it
    reads its reply, and its damage is told then, as before. How many rulings were paged."""
    done = 0
    for (key,) in db.execute(_UNPAGED, (PAGED_FROM, LOG_SHOWN, ROLLS_SHOWN)).fetchall():
        row = db.execute(row_query, (key,)).fetchone()
        if row is None or not verified(row):
            continue
        try:
            value = orjson.loads(unpacked(bytes(row[2])))
        except (NotUnpacked, orjson.JSONDecodeError):
            continue
        if not isinstance(value, dict):
            continue
        db.executemany(INSERT_PART, rows_of(key, row[5], packed_parts(parts_of(value, orjson.dumps))))
        done += 1
    return done
