"""A ruling's log and rolls in parts of their own (store layout 10, `store.pages`): a page is read
from the parts that hold it, in order, across a reopen; a part changed on disk or missing is a clear
`StoreDamaged` for the pages that need it and nothing else; a file of layout 9 gets its rulings'
parts once, when it is opened, its rows left as they were."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.detection_scenes import guard_among_hiders
from vtt_bridge.document.models import settled
from vtt_bridge.engine.codec import is_packed, unpacked
from vtt_bridge.engine.history import stored_ops
from vtt_bridge.engine.protocol import LOG_SHOWN, ROLLS_SHOWN
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import Pending, World
from vtt_bridge.errors import StoreDamaged
from vtt_bridge.server.commit import dumped_result, dumps
from vtt_bridge.store.log import Store
from vtt_bridge.store.pages import LOG, PAGED_FROM, ROLLS, packed_parts
from vtt_bridge.store.rows import ROW_AS_UTF8, checksum, pack, snapshot_of
from vtt_bridge.store.schema import LAYOUT

HIDERS = guard_among_hiders([f"h{i}" for i in range(200)], 100, 10)
PART_ITEMS = 16
"""Steps a part holds in these tests (`pages.PART_ITEMS`, set by `small_parts`): the round's ~100
steps in several parts."""


@pytest.fixture(autouse=True)
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("vtt_bridge.store.pages.PART_ITEMS", PART_ITEMS)


HIT = {"kind": "damage", "target": "guard", "instances": [{"amount": 1, "grade": "B"}]}


def _written(store: Store, world: World, pending: Pending | bytes, snapshot: bool = False) -> dict[str, Any]:
    """Write, then commit, as the server does (`server.commit`: the reply cut, its log and rolls in
    parts; `snapshot`: with a snapshot, as every `SNAPSHOT_EVERY`th ruling is); the whole result."""
    assert isinstance(pending, Pending) and pending.entry is not None
    dumped = dumped_result(pending.result)
    kept = stored_ops(pending.entry)
    store.append(
        world.id,
        pending.result["rev"],
        pending.action_id,
        pack(dumped.data),
        snapshot_of(settled(pending.state)) if pending.snapshot or snapshot else None,
        pending.digest,
        kind=pending.entry.kind,
        target=pending.message_id if pending.entry.action_id is None else pending.entry.target,
        inverse=None if kept is None else pack(kept[1].data()),
        parts=packed_parts(dumped.parts or []),
    )
    world.commit(pending, dumped.data, kept)
    return pending.result


def _session(path: Path, snapshot: bool = False) -> dict[str, dict[str, Any]]:
    """A synced world of 200 hiders, a round (its log and rolls paged; `snapshot`: written with a
    snapshot), a damage (not paged); the whole results by action id, as JSON values."""
    store = Store(path)
    world = World("w")
    try:
        _written(store, world, world.prepare_sync({"state": HIDERS}, "sync-1"))
        actions: list[tuple[str, dict[str, Any]]] = [("round-2", {"kind": "round", "round": 2}), ("hit", HIT)]
        done = {
            action: _written(
                store, world, world.prepare_action(action, payload, SeededRoller(7)), snapshot and n == 0
            )
            for n, (action, payload) in enumerate(actions)
        }
    finally:
        store.close()
    return {action: orjson.loads(dumps(result)) for action, result in done.items()}


def _every_page(store: Store, action: str, limit: int) -> tuple[list[Any], list[Any]]:
    log: list[Any] = []
    rolls: list[Any] = []
    offset = 0
    while True:
        page = store.ruling_page("w", action, offset, limit)
        assert page is not None
        assert len(page.log) == max(0, min(limit, page.steps - offset))
        assert len(page.dice) == max(0, min(limit, page.rolls - offset))
        log += page.log
        rolls += page.dice
        offset += limit
        if offset >= max(page.steps, page.rolls):
            return log, rolls


@pytest.mark.parametrize("snapshot", [False, True], ids=["alone", "with a snapshot"])
def test_a_paged_ruling_reads_every_step_and_roll_in_order_across_a_reopen(
    tmp_path: Path, snapshot: bool
) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    whole = _session(path, snapshot)
    rounds = whole["round-2"]
    assert len(rounds["log"]) > 2 * PART_ITEMS and len(rounds["rolls"]) > ROLLS_SHOWN
    store = Store(path)
    try:
        for limit in (1, 7, PART_ITEMS, PART_ITEMS + 1, 1000):
            assert _every_page(store, "round-2", limit) == (rounds["log"], rounds["rolls"])
            assert _every_page(store, "hit", limit) == (whole["hit"]["log"], whole["hit"]["rolls"])
        beyond = store.ruling_page("w", "round-2", 10**6, 5)
        assert beyond is not None and (beyond.log, beyond.dice) == ([], [])
        assert (beyond.steps, beyond.rolls, beyond.rev, beyond.kind) == (
            len(rounds["log"]),
            len(rounds["rolls"]),
            2,
            "round",
        )
        assert store.ruling_page("w", "never", 0, 5) is None
        # the stored reply carries what a client was sent of them; the parts hold all of them
        (reply,) = store._db.execute("SELECT vtt_text(reply) FROM log WHERE action_id = 'round-2'").fetchone()
        stored = orjson.loads(reply)
        assert stored["log"] == rounds["log"][:LOG_SHOWN] and stored["rolls"] == rounds["rolls"][:ROLLS_SHOWN]
        assert stored["summary"]["steps"] == len(rounds["log"]) and stored["patch"] == rounds["patch"]
        (unpaged,) = store._db.execute("SELECT count(*) FROM pages WHERE key % 1099511627776 = 3").fetchone()
        assert unpaged == 0, "a damage's short reply keeps its log itself"
        # the status page's steps after a restart are read from the parts too
        [*_, latest_round, latest_hit] = store.latest("w", 3, 100)
        assert latest_round.log == rounds["log"][:100] and latest_round.steps == len(rounds["log"])
        assert latest_hit.log == whole["hit"]["log"]
    finally:
        store.close()


def _damage(path: Path, sql: str, *args: Any) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(sql, args)
    db.close()


def test_a_page_reads_its_own_parts_and_a_damaged_or_missing_part_is_told(tmp_path: Path) -> None:
    """A part changed on disk fails the pages that hold its steps and no other (a page reads nothing
    but its own parts); a part gone fails the pages it held and the ones past it."""
    path = tmp_path / "vtt-bridge.sqlite3"
    whole = _session(path)["round-2"]
    steps = len(whole["log"])
    last = (steps - 1) // PART_ITEMS * PART_ITEMS
    # the last part of the log, one byte changed on disk
    _damage(
        path,
        "UPDATE pages SET data = CAST(substr(data, 1, 40) || 'x' || substr(data, 42) AS BLOB) "
        "WHERE list = ? AND first = ?",
        LOG,
        last,
    )
    store = Store(path)  # recovery reads no parts: the world comes back
    try:
        first = store.ruling_page("w", "round-2", 0, PART_ITEMS)
        assert first is not None and first.log == whole["log"][:PART_ITEMS]
        with pytest.raises(
            StoreDamaged, match=f"rev 2 of world 'w'.*part from item {last} fails its checksum"
        ):
            store.ruling_page("w", "round-2", last - 1, 2)
    finally:
        store.close()
    _damage(path, "DELETE FROM pages WHERE list = ? AND first = ?", LOG, PART_ITEMS)
    store = Store(path)
    try:
        assert store.ruling_page("w", "round-2", 3, 10) is not None
        for offset in (PART_ITEMS + 3, PART_ITEMS - 3, 2 * PART_ITEMS - 1):
            with pytest.raises(StoreDamaged, match=f"its part from item {PART_ITEMS} .*is missing"):
                store.ruling_page("w", "round-2", offset, 10)
        assert store.ruling_page("w", "round-2", 2 * PART_ITEMS, 10) is not None
    finally:
        store.close()
    _damage(path, "DELETE FROM pages WHERE list = ? AND first = ?", LOG, last)
    store = Store(path)
    try:
        with pytest.raises(StoreDamaged, match=f"its part from item {last} of {steps} is missing"):
            store.ruling_page("w", "round-2", steps + 5, 10)
    finally:
        store.close()
    for sql, why in (
        ("DELETE FROM pages WHERE list = 1", "the parts of its rolls are missing"),
        ("DELETE FROM pages", "its parts are missing"),  # its reply says it was paged: its `summary`
    ):
        _damage(path, sql)
        store = Store(path)
        try:
            with pytest.raises(StoreDamaged, match=why):
                store.ruling_page("w", "round-2", 0, 10)
            hit = store.ruling_page("w", "hit", 0, 10)  # a ruling that is not paged reads its reply
            assert hit is not None and hit.steps > 0
        finally:
            store.close()


def as_layout_9(path: Path) -> int:
    """Make a file written at layout 10 the file vtt-bridge 0.6.0 (layout 9) would have written for
    the same rulings: each paged action's reply whole again (its log and rolls from its parts, no
    `summary`), packed as it packed, its checksum made again; no `pages`. How many were paged."""
    db = sqlite3.connect(path, isolation_level=None)
    paged = db.execute("SELECT DISTINCT key FROM pages ORDER BY key").fetchall()
    for (key,) in paged:
        row = db.execute(f"SELECT {ROW_AS_UTF8} FROM log WHERE key = ?", (key,)).fetchone()
        stored_key, action_id, reply, digest, _, kind, target, inverse = row
        value = orjson.loads(unpacked(bytes(reply)))
        for name, which in (("log", LOG), ("rolls", ROLLS)):
            items: list[Any] = []
            for (data,) in db.execute(
                "SELECT data FROM pages WHERE key = ? AND list = ? ORDER BY first", (key, which)
            ):
                items += orjson.loads(unpacked(bytes(data)))
            value[name] = items
        value.pop("summary", None)
        whole = pack(orjson.dumps(value))
        db.execute(
            "UPDATE log SET reply = ?, checksum = ? WHERE key = ?",
            (
                whole if is_packed(whole) else whole.decode(),
                checksum(stored_key, action_id, whole, digest, kind, target, inverse),
                key,
            ),
        )
    db.execute("DROP TABLE pages")
    db.execute("PRAGMA user_version = 9")
    db.close()
    return len(paged)


def test_a_layout_9_file_gets_its_parts_once_when_opened_and_a_damaged_row_none(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    whole = _session(path)
    assert as_layout_9(path) == 1
    for _ in range(2):  # migrated once: opened again, nothing changes
        store = Store(path)
        try:
            assert store._db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT == 11
            for action in ("round-2", "hit"):
                wanted = (whole[action]["log"], whole[action]["rolls"])
                assert _every_page(store, action, 100) == wanted
            (parts,) = store._db.execute("SELECT count(*) FROM pages").fetchone()
            rounds = whole["round-2"]
            assert parts == -(-len(rounds["log"]) // PART_ITEMS) + -(-len(rounds["rolls"]) // PART_ITEMS)
            # its row is the one 0.6.0 wrote: the whole reply, and the world recovers from it
            (length,) = store._db.execute(
                "SELECT length(vtt_text(reply)) FROM log WHERE action_id = 'round-2'"
            ).fetchone()
            assert length > PAGED_FROM
            assert store.recover("w", 10).state.scene is not None
        finally:
            store.close()


def test_a_layout_9_row_that_fails_its_checksum_is_migrated_without_parts_and_told_when_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    _session(path, snapshot=True)  # a snapshot holds the round: no replay reads its row (layout 11)
    as_layout_9(path)
    _damage(path, "UPDATE log SET checksum = checksum + 1 WHERE action_id = 'round-2'")
    store = Store(path)
    try:
        assert store._db.execute("SELECT count(*) FROM pages").fetchone()[0] == 0
        with pytest.raises(StoreDamaged, match="rev 2 of world 'w' fails its checksum"):
            store.ruling_page("w", "round-2", 0, 10)
    finally:
        store.close()
