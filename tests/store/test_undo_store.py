"""Undo across the store: each ruling's inverse is written with it, undone rulings stay undone after
a restart, and a file of layout 5 is migrated to layout 6 (its rulings cannot be undone, and say why)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.detection_scenes import guard_among_hiders
from vtt_bridge.document.models import settled
from vtt_bridge.engine.history import PACKED_FROM, JsonOps, packed_ops, stored_ops
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import Pending, World
from vtt_bridge.errors import StoreDamaged
from vtt_bridge.server.commit import dumps
from vtt_bridge.store.log import Store
from vtt_bridge.store.rows import checksum
from vtt_bridge.store.schema import APPLICATION_ID, LAYOUT

HIT = {"kind": "damage", "target": "hero", "instances": [{"amount": 2, "grade": "L"}]}
STATE = {"actors": {"hero": {"name": "Hero", "health": {"max": 9}}}, "tokens": {"t": {"actor": "hero"}}}

LAYOUT_5 = """
CREATE TABLE worlds (world TEXT PRIMARY KEY, snapshot_rev INTEGER NOT NULL, snapshot TEXT NOT NULL);
CREATE TABLE world_keys (n INTEGER PRIMARY KEY, world TEXT NOT NULL UNIQUE);
CREATE TABLE log (key INTEGER PRIMARY KEY, action_id TEXT, reply TEXT NOT NULL, digest TEXT,
    checksum INTEGER NOT NULL);
"""
"""The statements of vtt-bridge 0.2.0 (store layout 5)."""


def store_ruling(store: Store, world: World, pending: Pending | bytes) -> None:
    """Write, then commit, as the server does (`server._store`)."""
    assert not isinstance(pending, bytes)
    reply = dumps(pending.result)
    entry = pending.entry
    assert entry is not None
    kept = stored_ops(entry)
    inverse = None if kept is None else kept[1].data().decode()
    store.append(
        world.id,
        pending.result["rev"],
        pending.action_id,
        reply,
        settled(pending.state) if pending.snapshot else None,
        pending.digest,
        kind=entry.kind,
        target=pending.message_id if entry.action_id is None else entry.target,
        inverse=inverse,
    )
    world.commit(pending, reply, kept)


def reopened(path: Path) -> tuple[Store, World]:
    store = Store(path)
    recovered = store.recover("w", recent=10)
    world = World(
        "w", recovered.state, recovered.replies, recovered.answered, 10, recovered.digests, recovered.history
    )
    return store, world


def test_an_undone_ruling_stays_undone_after_a_restart_and_can_be_redone(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    store_ruling(store, world, world.prepare_sync({"state": STATE}, "sync-1"))
    start = world.state.model_dump(mode="json")
    store_ruling(store, world, world.prepare_action("hit", HIT, SeededRoller(1)))
    store_ruling(store, world, world.prepare_upsert({"path": "/actors/hero/name", "value": "H"}, "up-1"))
    store_ruling(store, world, world.prepare_action("u", {"kind": "undo", "action": "hit"}, SeededRoller(1)))
    store.close()
    store, again = reopened(path)
    try:
        assert again.state == world.state
        assert again.state.actors["hero"].health == settled(world.state).actors["hero"].health
        with pytest.raises(RequestError, match="already undone"):
            again.prepare_action("u2", {"kind": "undo", "action": "hit"}, SeededRoller(1))
        with pytest.raises(RequestError, match="upsert, not a ruling"):
            again.prepare_action("u3", {"kind": "undo", "action": "up-1"}, SeededRoller(1))
        store_ruling(
            store, again, again.prepare_action("r", {"kind": "redo", "action": "hit"}, SeededRoller(1))
        )
        store_ruling(
            store, again, again.prepare_action("u4", {"kind": "undo", "action": "hit"}, SeededRoller(1))
        )
        document = again.state.model_dump(mode="json")
        assert document["actors"]["hero"]["health"] == start["actors"]["hero"]["health"]
    finally:
        store.close()


def test_a_file_of_layout_5_is_migrated_and_its_rulings_say_why_they_cannot_be_undone(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    earlier = World("w")
    pending = earlier.prepare_sync({"state": STATE})
    earlier.commit(pending, dumps(pending.result))
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(LAYOUT_5)
    db.execute("INSERT INTO world_keys VALUES (1, 'w')")
    db.execute("INSERT INTO worlds VALUES ('w', 1, ?)", (settled(earlier.state).model_dump_json(),))
    base = 1 << 40
    for i in range(2):
        action = earlier.prepare_action(f"old{i}", HIT, SeededRoller(1))
        assert not isinstance(action, bytes)
        reply = dumps(action.result)
        key = base + action.result["rev"]
        db.execute(
            "INSERT INTO log VALUES (?, ?, ?, NULL, ?)",
            (key, f"old{i}", reply, checksum(key, f"old{i}", reply, None)),
        )
        earlier.commit(action, reply)
    db.execute(f"PRAGMA application_id={APPLICATION_ID}")
    db.execute("PRAGMA user_version=5")
    db.close()

    store, world = reopened(path)
    try:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT == 11
        assert world.state == earlier.state
        with pytest.raises(RequestError) as caught:
            world.prepare_action("u", {"kind": "undo", "action": "old1"}, SeededRoller(1))
        assert caught.value.code == "not_undoable" and "0.2.0 or earlier" in caught.value.message
        store_ruling(store, world, world.prepare_action("new", HIT, SeededRoller(1)))
        store_ruling(
            store, world, world.prepare_action("u", {"kind": "undo", "action": "new"}, SeededRoller(1))
        )
        assert (
            world.state.model_dump(mode="json")["actors"] == earlier.state.model_dump(mode="json")["actors"]
        )
    finally:
        store.close()
    store, world = reopened(path)  # and after a restart: the old rows' checksums still hold
    try:
        with pytest.raises(RequestError) as caught:
            world.prepare_action("u9", {"kind": "undo", "action": "old0"}, SeededRoller(1))
        assert caught.value.code == "not_undoable"
        with pytest.raises(RequestError, match="already undone"):
            world.prepare_action("u9", {"kind": "undo", "action": "new"}, SeededRoller(1))
    finally:
        store.close()


def test_the_ids_of_syncs_and_upserts_stay_no_rulings_after_a_restart(tmp_path: Path) -> None:
    """A sync's row is its snapshot, and a snapshot drops the upserts' rows before it: their message
    ids and kinds stay in `changes`, so an undo of one is `invalid` (not a ruling) after a restart,
    never `not_found`."""
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    store_ruling(store, world, world.prepare_sync({"state": STATE}, "sync-1"))
    store_ruling(store, world, world.prepare_upsert({"path": "/actors/hero/name", "value": "H"}, "up-1"))
    store_ruling(store, world, world.prepare_sync({"state": STATE}, "sync-2"))  # drops up-1's row
    store_ruling(store, world, world.prepare_upsert({"path": "/actors/hero/name", "value": "I"}, "up-2"))
    store_ruling(store, world, world.prepare_action("hit", HIT, SeededRoller(1)))
    assert store._db.execute("SELECT count(*) FROM log WHERE kind = 'upsert'").fetchone()[0] == 1
    store.close()
    store, again = reopened(path)
    try:
        for message_id, kind in (
            ("sync-1", "sync"),
            ("up-1", "upsert"),
            ("sync-2", "sync"),
            ("up-2", "upsert"),
        ):
            with pytest.raises(RequestError) as caught:
                again.prepare_action("u", {"kind": "undo", "action": message_id}, SeededRoller(1))
            assert caught.value.code == "invalid", (message_id, caught.value.message)
            assert f"a {kind}, not a ruling" in caught.value.message
        with pytest.raises(RequestError) as caught:
            again.prepare_action("u", {"kind": "undo", "action": "never-sent"}, SeededRoller(1))
        assert caught.value.code == "not_found"
        store_ruling(
            store, again, again.prepare_action("u", {"kind": "undo", "action": "hit"}, SeededRoller(1))
        )
    finally:
        store.close()


def test_a_changed_row_of_changes_fails_its_checksum(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    store_ruling(store, world, world.prepare_sync({"state": STATE}, "sync-1"))
    store.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE changes SET kind = 'upsert'")
    db.close()
    with pytest.raises(StoreDamaged, match="fails its checksum"):
        reopened(path)


def test_a_layout_6_file_without_changes_gets_the_table_when_opened(tmp_path: Path) -> None:
    """A file written by 0.3.0 (layout 6, no `changes`): opened as it is, the table added, its syncs
    and upserts from now on kept."""
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    store_ruling(store, world, world.prepare_sync({"state": STATE}, "sync-1"))
    store_ruling(store, world, world.prepare_action("hit", HIT, SeededRoller(1)))
    store.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DROP TABLE changes")
    db.close()
    store, again = reopened(path)
    try:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT
        with pytest.raises(RequestError) as caught:  # 0.3.0 kept no id of a sync
            again.prepare_action("u", {"kind": "undo", "action": "sync-1"}, SeededRoller(1))
        assert caught.value.code == "not_found"
        store_ruling(store, again, again.prepare_sync({"state": STATE}, "sync-2"))
    finally:
        store.close()
    store, again = reopened(path)
    try:
        with pytest.raises(RequestError, match="a sync, not a ruling"):
            again.prepare_action("u", {"kind": "undo", "action": "sync-2"}, SeededRoller(1))
    finally:
        store.close()


def test_a_conflict_names_the_sync_that_caused_it_before_and_after_a_restart(tmp_path: Path) -> None:
    """A sync that changed a value a ruling set is named in the undo's `conflict` (action null,
    kind sync, its rev), also after a restart, where its row is its snapshot."""
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    store_ruling(store, world, world.prepare_sync({"state": STATE}, "sync-1"))
    store_ruling(store, world, world.prepare_action("hit", HIT, SeededRoller(1)))
    healed = {**STATE, "actors": {"hero": {"name": "Hero", "health": {"max": 9, "lethal": 1}}}}
    store_ruling(store, world, world.prepare_sync({"state": healed}, "sync-2"))
    sync_rev = world.rev

    def refusal(w: World) -> RequestError:
        with pytest.raises(RequestError) as caught:
            w.prepare_action("u", {"kind": "undo", "action": "hit"}, SeededRoller(1))
        assert caught.value.code == "conflict"
        return caught.value

    before = refusal(world).payload()
    store.close()
    store, again = reopened(path)
    try:
        after = refusal(again).payload()
        assert after == before
        named = {(r.get("action"), r["kind"], r["rev"]) for d in after["details"] for r in d["rulings"]}
        assert named == {(None, "sync", sync_rev)}
        assert "sync (rev" in after["message"]
    finally:
        store.close()


def test_a_layout_6_file_with_state_names_reads_back_and_is_written_with_codes(tmp_path: Path) -> None:
    """0.3.0 (layout 6) wrote each visibility pair's state name; 0.4.0 and later read them as they
    are, bring the file to the current layout and write codes from then on (the old reply kept for a
    retry included)."""
    path = tmp_path / "vtt-bridge.sqlite3"
    ghost = {"name": "Ghost", "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}]}
    state = {
        "actors": {"hero": {"name": "Hero"}, "ghost": ghost},
        "tokens": {"t": {"actor": "hero"}, "g": {"actor": "ghost", "x": 200, "y": 0}},
    }
    store, world = reopened(path)
    store_ruling(store, world, world.prepare_sync({"state": state}, "sync-1"))
    assert world.state.model_dump(mode="json")["visibility"] == {"t": {"g": "u"}, "g": {}}
    before = world.state
    store.close()
    db = sqlite3.connect(path, isolation_level=None)
    (snapshot,) = db.execute("SELECT snapshot FROM worlds").fetchone()
    assert '"g":"u"' in snapshot
    db.execute("UPDATE worlds SET snapshot = ?", (snapshot.replace('"g":"u"', '"g":"unlocated"'),))
    db.execute("ALTER TABLE worlds DROP COLUMN checksum")  # layout 6 kept none (layout 9 adds it)
    db.execute("PRAGMA user_version=6")
    db.close()
    store, again = reopened(path)
    try:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT == 11
        assert again.state.visibility == before.visibility
        store_ruling(store, again, again.prepare_sync({"state": state}, "sync-2"))
    finally:
        store.close()
    db = sqlite3.connect(path, isolation_level=None)
    (snapshot,) = db.execute("SELECT snapshot FROM worlds").fetchone()
    db.close()
    assert '"g":"u"' in snapshot and "unlocated" not in snapshot


def test_the_rulings_kept_for_undo_are_bounded_by_their_replies_bytes_alike_before_and_after_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`HISTORY_BYTES`: a world keeps for undo only the newest rulings whose replies fit the bound
    (a 1,000-token round's reply is megabytes, its ops and inverse in memory several times that);
    an older one is `not_undoable` and says why, and the store reads back the very same ones."""
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    store_ruling(store, world, world.prepare_sync({"state": STATE}, "sync-1"))
    sizes = []
    for i in range(6):
        pending = world.prepare_action(f"hit{i}", HIT, SeededRoller(i))
        assert not isinstance(pending, bytes)
        sizes.append(len(dumps(pending.result).encode()))
        store_ruling(store, world, pending)
    store.close()
    budget = sum(sizes[-3:]) + 1  # room for the last three replies, not four
    monkeypatch.setattr("vtt_bridge.engine.history.HISTORY_BYTES", budget)
    monkeypatch.setattr("vtt_bridge.store.log.HISTORY_BYTES", budget)
    store, again = reopened(path)
    try:
        assert sorted(again.history.by_id) == ["hit3", "hit4", "hit5"]
        assert again.history.size == sum(sizes[-3:])
        with pytest.raises(RequestError) as caught:
            again.prepare_action("u", {"kind": "undo", "action": "hit2"}, SeededRoller(1))
        assert caught.value.code == "not_undoable" and "older than the rulings this world keeps" in str(
            caught.value.message
        )
        pending = again.prepare_action("hit6", HIT, SeededRoller(9))
        assert not isinstance(pending, bytes)
        sizes.append(len(dumps(pending.result).encode()))
        store_ruling(store, again, pending)  # drops the oldest that no longer fit
        fit: list[str] = []
        total = 0
        for i in range(6, -1, -1):  # the newest first, while their replies fit
            total += sizes[i]
            if total > budget and fit:
                break
            fit.append(f"hit{i}")
        assert "hit3" not in fit and len(fit) >= 2
        assert sorted(again.history.by_id) == sorted(fit)
        kept = sorted(again.history.by_id)
    finally:
        store.close()
    store, restarted = reopened(path)
    try:
        assert sorted(restarted.history.by_id) == kept  # the same bound read back from the file
        store_ruling(
            store,
            restarted,
            restarted.prepare_action("u", {"kind": "undo", "action": "hit6"}, SeededRoller(1)),
        )
    finally:
        store.close()


def test_the_newest_ruling_stays_undoable_however_large_its_reply(monkeypatch: pytest.MonkeyPatch) -> None:
    """`HISTORY_BYTES` never drops the last ruling: a round larger than the bound can be undone."""
    monkeypatch.setattr("vtt_bridge.engine.history.HISTORY_BYTES", 10)
    world = World("w")
    pending = world.prepare_sync({"state": STATE})
    world.commit(pending, dumps(pending.result))
    for i in range(2):
        action = world.prepare_action(f"hit{i}", HIT, SeededRoller(1))
        assert not isinstance(action, bytes)
        world.commit(action, dumps(action.result))
    assert list(world.history.by_id) == ["hit1"]
    undo = world.prepare_action("u", {"kind": "undo", "action": "hit1"}, SeededRoller(1))
    assert not isinstance(undo, bytes)
    world.commit(undo, dumps(undo.result))
    assert world.state.actors["hero"].health.lethal == 2


def test_undo_keeps_a_stored_rulings_ops_as_their_json_and_decodes_the_same_ops(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`JsonOps`: committed with its ops and inverse as JSON in parts (as the server's store write
    makes them), a ruling's ops decode to the very ops it made, part by part, and undo works; the
    text the store writes is the inverse's one JSON array."""
    monkeypatch.setattr("vtt_bridge.engine.history.OPS_CHUNK", 1)  # a part per op: several parts
    world = World("w")
    pending = world.prepare_sync({"state": STATE})
    world.commit(pending, dumps(pending.result))
    hit = world.prepare_action("hit", HIT, SeededRoller(1))
    assert not isinstance(hit, bytes) and hit.entry is not None and hit.entry.inverse is not None
    forward, inverse = hit.entry.forward, hit.entry.inverse
    assert len(tuple(forward)) >= 2
    kept = stored_ops(hit.entry)
    assert kept is not None
    assert len(kept[0]._parts) >= 2
    assert json.loads(kept[1].data()) == list(inverse) and json.loads(JsonOps.of([]).data()) == []
    world.commit(hit, dumps(hit.result), kept)
    entry = world.history.by_id["hit"]
    assert entry.forward is kept[0] and entry.inverse is kept[1]
    assert entry.forward.ops() == forward and entry.inverse.ops() == inverse
    assert entry.forward == forward and entry.size == len(dumps(hit.result).encode())
    undo = world.prepare_action("u", {"kind": "undo", "action": "hit"}, SeededRoller(1))
    assert not isinstance(undo, bytes)
    world.commit(undo, dumps(undo.result))
    assert world.state.actors["hero"].health.lethal == 0


def crowd_in_combat(hiders: int = 40) -> World:
    """A world synced with a guard among `hiders` invisible hiders in round 1: a round's ops and
    inverse (every one contests the others) are tens of kilobytes of JSON."""
    world = World("w")
    world.commit(
        world.prepare_sync({"state": guard_among_hiders([f"h{i}" for i in range(hiders)], 100, 10)}), ""
    )
    return world


def kept_round(world: World, number: int) -> tuple[Pending, tuple[JsonOps, JsonOps]]:
    """Combat round `number` committed as the server commits it (`stored_ops`), not yet packed."""
    pending = world.prepare_action(f"r{number}", {"kind": "round", "round": number}, SeededRoller(number))
    assert not isinstance(pending, bytes) and pending.entry is not None
    kept = stored_ops(pending.entry)
    assert kept is not None
    world.commit(pending, dumps(pending.result), kept)
    return pending, kept


def test_a_rounds_ops_packed_for_undo_are_the_same_ops_in_a_tenth_of_the_bytes_and_undo_alike() -> None:
    """`packed_ops`: a round's ops and inverse, packed (a part at a time), decode to the very ops
    and write the same JSON in a tenth of the bytes or less; `History.repack` keeps them so only
    where the entry still holds what was packed; the undo of the packed round is byte for byte the
    undo of the plain one. Ops of at most `PACKED_FROM` bytes (round 2's inverse, which removes
    the rows it added; a damage's) stay plain."""
    plain, packed = crowd_in_combat(), crowd_in_combat()
    for number in (2, 3):
        kept_round(plain, number)
        pending, kept = kept_round(packed, number)
        packs = packed_ops(kept)
        for ops, plain_ops in zip(packs, kept, strict=True):
            assert ops.is_packed == (plain_ops.nbytes > PACKED_FROM)
            assert ops.nbytes * 10 <= plain_ops.nbytes if ops.is_packed else ops is plain_ops
            assert ops.ops() == plain_ops.ops() and ops.data() == plain_ops.data()
        assert packs[0].is_packed and packs[1].is_packed == (number == 3)
        rev = pending.result["rev"]
        assert packed.history.repack(rev, kept, packs)
        entry = packed.history.by_id[f"r{number}"]
        assert entry.forward is packs[0] and entry.inverse is packs[1]
        assert entry.size == len(dumps(pending.result).encode())
        assert not packed.history.repack(rev, kept, packs)  # it holds the packed ones now
    assert not packed.history.repack(rev - 1, kept, packs)  # another ruling's entry is left alone
    undo = {"kind": "undo", "action": "r3"}
    replies = []
    for world in (plain, packed):
        undone = world.prepare_action("u", undo, SeededRoller(1))
        assert not isinstance(undone, bytes)
        replies.append(dumps(undone.result))
    assert replies[0] == replies[1]
    hit = {"kind": "damage", "target": "guard", "instances": [{"amount": 1, "grade": "B"}]}
    small = packed.prepare_action("hit", hit, SeededRoller(1))
    assert not isinstance(small, bytes) and small.entry is not None
    kept_small = stored_ops(small.entry)
    assert kept_small is not None and packed_ops(kept_small) == kept_small


def test_the_history_read_back_at_a_restart_is_packed_and_undoes_as_before(tmp_path: Path) -> None:
    """The store reads a world's rulings back for undo in the form they are kept once acknowledged:
    a round's ops and inverse packed (gathered from SQLite's JSON op by op), the same ops; the
    undo of the round after the restart is the undo before it."""
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    state = guard_among_hiders([f"h{i}" for i in range(40)], 100, 10)
    store_ruling(store, world, world.prepare_sync({"state": state}, "sync-1"))
    for number in (2, 3):
        store_ruling(
            store,
            world,
            world.prepare_action(f"r{number}", {"kind": "round", "round": number}, SeededRoller(number)),
        )
    before = {rev: (tuple(e.forward), tuple(e.inverse or ())) for rev, e in world.history.by_rev.items()}
    undo = world.prepare_action("u", {"kind": "undo", "action": "r3"}, SeededRoller(1))
    assert not isinstance(undo, bytes)
    store.close()
    store, again = reopened(path)
    try:
        entry = again.history.by_id["r3"]
        assert isinstance(entry.forward, JsonOps) and isinstance(entry.inverse, JsonOps)
        assert entry.forward.is_packed and entry.inverse.is_packed
        assert entry.forward.nbytes * 10 < len(entry.forward.data())
        assert {
            rev: (tuple(e.forward), tuple(e.inverse or ())) for rev, e in again.history.by_rev.items()
        } == before
        undone = again.prepare_action("u", {"kind": "undo", "action": "r3"}, SeededRoller(1))
        assert not isinstance(undone, bytes)
        # the same ops (a document read back lists its rows of results in another order)
        assert sorted(map(dumps, undone.result["patch"])) == sorted(map(dumps, undo.result["patch"]))
        assert undone.state == undo.state
    finally:
        store.close()


def test_the_replies_read_back_at_a_restart_leave_out_the_large_ones_and_stop_at_the_budget(
    tmp_path: Path,
) -> None:
    """`Store.recover`: the replies of the newest actions, but for those above `largest` (as
    `World.commit` keeps them), and no more read than `budget` bytes; every id stays answered, and
    the reply of any of them is read back on demand, newest first, as the bytes it was sent."""
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    store_ruling(store, world, world.prepare_sync({"state": STATE}, "sync-1"))
    sent = {}
    for i in range(6):
        pending = world.prepare_action(f"hit{i}", HIT, SeededRoller(i))
        assert not isinstance(pending, bytes)
        sent[f"hit{i}"] = dumps(pending.result).encode()
        store_ruling(store, world, pending)
    size = len(sent["hit5"])
    try:
        everything = store.recover("w", recent=10)
        assert everything.replies == sent
        some = store.recover("w", recent=10, budget=3 * size, largest=size - 1)
        small = {key for key, reply in sent.items() if len(reply) < size}
        assert set(some.replies) == {f"hit{i}" for i in (3, 4, 5)} & small
        assert some.answered == everything.answered >= set(sent)
        assert all(store.reply("w", key) == (reply, world.digests[key]) for key, reply in sent.items())
    finally:
        store.close()
