"""The store's large rows packed (layout 8): a reply or an inverse over `store.PACK_FROM` bytes is
written compressed, as a BLOB, and every read gives back what a text row gives: the retry's bytes,
recovery, undo after a restart, the status page's steps; a packed row changed on disk is refused."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.detection_scenes import guard_among_hiders
from tests.store.test_undo_store import reopened
from vtt_bridge.document.models import settled
from vtt_bridge.engine.codec import PACKED_MARK, NotUnpacked, is_packed, unpacked, unpacked_length
from vtt_bridge.engine.history import stored_ops
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import Pending, World
from vtt_bridge.errors import StoreDamaged
from vtt_bridge.server.commit import dumps
from vtt_bridge.store.log import Store
from vtt_bridge.store.rows import checksum, keeps_reply, pack, snapshot_of
from vtt_bridge.store.schema import LAYOUT

HIT = {"kind": "damage", "target": "h0", "instances": [{"amount": 2, "grade": "L"}]}


def store_ruling(store: Store, world: World, pending: Pending | bytes) -> bytes:
    """Write, then commit, as the server does (`server._store`: the reply, the inverse and the
    snapshot packed before the store is taken); the reply's UTF-8."""
    assert not isinstance(pending, bytes)
    reply = dumps(pending.result).encode()
    entry = pending.entry
    assert entry is not None
    kept = stored_ops(entry)
    store.append(
        world.id,
        pending.result["rev"],
        pending.action_id,
        pack(reply),
        snapshot_of(settled(pending.state)) if pending.snapshot else None,
        pending.digest,
        kind=entry.kind,
        target=pending.message_id if entry.action_id is None else entry.target,
        inverse=None if kept is None else pack(kept[1].data()),
    )
    world.commit(pending, reply, kept)
    return reply


def hiders_world(store: Store, world: World) -> None:
    """A guard among 30 hiders, synced: a round contests every pair."""
    state = guard_among_hiders([f"h{i}" for i in range(30)], 100, 10)
    store_ruling(store, world, world.prepare_sync({"state": state}, "sync-1"))


def stored_round(path: Path) -> World:
    """A store at `path` with the hiders' world synced and its round 2 (id "r2") stored, closed."""
    store, world = reopened(path)
    hiders_world(store, world)
    store_ruling(store, world, world.prepare_action("r2", {"kind": "round", "round": 2}, SeededRoller(1)))
    store.close()
    return world


def kinds(path: Path) -> list[tuple[str | None, str, str | None]]:
    """Each stored ruling's action id and the types its reply and inverse are stored as."""
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT action_id, typeof(reply), typeof(inverse) FROM log ORDER BY key").fetchall()
    finally:
        db.close()


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300), st.integers(0, 300), st.sampled_from([b"{", b"["]))
def test_pack_keeps_a_short_value_and_packs_a_long_one_that_unpacks_to_the_same_bytes(
    monkeypatch: pytest.MonkeyPatch, body: bytes, padding: int, opening: bytes
) -> None:
    monkeypatch.setattr("vtt_bridge.store.rows.PACK_FROM", 100)
    data = opening + body + b" " * padding
    packed = pack(data)
    if len(data) <= 100:
        assert packed is data and not is_packed(packed)
    else:
        assert packed[:4] == PACKED_MARK and is_packed(packed) and packed != data
    assert unpacked(packed) == data and not is_packed(data)


def test_a_large_rulings_reply_and_inverse_are_stored_packed_and_read_back_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every reply and inverse over 1 kB packed here (a big scene's round: tens of MB): stored as
    BLOBs, their checksum over the stored bytes; the retry's reply, the status page's steps, the
    state recovered, the replies kept and an undo after a restart are those of the rulings made."""
    monkeypatch.setattr("vtt_bridge.store.rows.PACK_FROM", 1000)
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    hiders_world(store, world)
    before_round = world.state.model_dump(mode="json")  # a dump: sealing the next state writes into its rows
    ruled = world.prepare_action("r2", {"kind": "round", "round": 2}, SeededRoller(1))
    assert not isinstance(ruled, bytes)
    round_reply = store_ruling(store, world, ruled)
    hit_reply = store_ruling(store, world, world.prepare_action("hit", HIT, SeededRoller(2)))
    assert len(round_reply) > 1000 >= len(hit_reply)
    assert store.reply("w", "r2") == (round_reply, world.digests["r2"])
    assert store.reply("w", "hit") == (hit_reply, world.digests["hit"])
    steps = store.latest("w", 2, 3)
    assert [(s.action_id, s.kind) for s in steps] == [("r2", "round"), ("hit", "damage")]
    assert steps[0].log == ruled.result["log"][:3] and steps[0].steps == len(ruled.result["log"]) > 3
    store.close()
    assert kinds(path) == [("r2", "blob", "blob"), ("hit", "text", "text")]
    store, again = reopened(path)
    try:
        assert again.state == world.state
        assert again.replies == {"r2": round_reply, "hit": hit_reply}
        assert store.latest("w", 2, 3) == steps
        undo = again.prepare_action("u-hit", {"kind": "undo", "action": "hit"}, SeededRoller(3))
        store_ruling(store, again, undo)
        undo = again.prepare_action("u-r2", {"kind": "undo", "action": "r2"}, SeededRoller(3))
        store_ruling(store, again, undo)
        after_undo = again.state.model_dump(mode="json")
        assert {**after_undo, "rev": 0} == {**before_round, "rev": 0}
    finally:
        store.close()


def test_a_file_of_layout_7_keeps_its_text_rows_and_adds_packed_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """0.4.0 (layout 7) stored every reply and inverse as text: the file is brought to layout 8 when
    opened, its text rows read as they were, and the packed rows written after them beside them. Its
    round changed areas, which 0.8.0 keeps by target (layout 11): it is no longer undone."""
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    hiders_world(store, world)
    synced = world.state.model_dump(mode="json")
    old_round = store_ruling(
        store, world, world.prepare_action("r2", {"kind": "round", "round": 2}, SeededRoller(1))
    )
    store.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA user_version=7")
    db.close()
    monkeypatch.setattr("vtt_bridge.store.rows.PACK_FROM", 1000)
    store, again = reopened(path)
    try:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT == 11
        after_r2 = again.state.model_dump(mode="json")
        new_round = store_ruling(
            store, again, again.prepare_action("r3", {"kind": "round", "round": 3}, SeededRoller(2))
        )
    finally:
        store.close()
    assert kinds(path) == [("r2", "text", "text"), ("r3", "blob", "blob")]
    store, third = reopened(path)
    try:
        assert third.state == again.state
        assert store.reply("w", "r2") == (old_round, again.digests["r2"])
        assert store.reply("w", "r3") == (new_round, again.digests["r3"])
        undo = third.prepare_action("u-r3", {"kind": "undo", "action": "r3"}, SeededRoller(3))
        store_ruling(store, third, undo)  # packed, undone after the restart
        # the areas aside: this file is this version's own numbered 7, and the upgrade to layout 11
        # transposes what it holds (a file 0.7.0 wrote: tests/store/test_upgrade.py)
        assert {**third.state.model_dump(mode="json"), "rev": 0, "areas": 0} == {
            **after_r2,
            "rev": 0,
            "areas": 0,
        }
        with pytest.raises(RequestError) as refused:
            third.prepare_action("u-r2", {"kind": "undo", "action": "r2"}, SeededRoller(3))
        assert refused.value.code == "not_undoable" and "0.7.0 or earlier" in refused.value.message
        assert synced["areas"] == {} != after_r2["areas"]
    finally:
        store.close()


def _rewrite(path: Path, action_id: str, change: bytes, fix_checksum: bool) -> None:
    """Replace a stored ruling's packed reply with `change` (its checksum made to fit when asked)."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        row = db.execute(
            "SELECT key, action_id, digest, kind, target, inverse FROM log WHERE action_id = ?", (action_id,)
        ).fetchone()
        key, _, digest, kind, target, inverse = row
        crc = checksum(key, action_id, change, digest, kind, target, inverse)
        db.execute("UPDATE log SET reply = ? WHERE key = ?", (change, key))
        if fix_checksum:
            db.execute("UPDATE log SET checksum = ? WHERE key = ?", (crc, key))
    finally:
        db.close()


@pytest.mark.parametrize(
    ("fix_checksum", "message"), [(False, "fails its checksum"), (True, "cannot be read back")]
)
def test_a_packed_row_changed_on_disk_is_refused_naming_world_and_rev(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fix_checksum: bool, message: str
) -> None:
    """A byte of a packed reply changed: its checksum (over the stored bytes) fails; changed with a
    checksum to fit, it no longer unpacks (the frame's own checksum): either way the start stops,
    naming the world and rev."""
    monkeypatch.setattr("vtt_bridge.store.rows.PACK_FROM", 1000)
    path = tmp_path / "vtt-bridge.sqlite3"
    world = stored_round(path)
    rev = world.state.rev
    db = sqlite3.connect(path)
    (stored,) = db.execute("SELECT reply FROM log WHERE action_id = 'r2'").fetchone()
    db.close()
    assert is_packed(stored)
    _rewrite(path, "r2", stored[:40] + bytes([stored[40] ^ 0xFF]) + stored[41:], fix_checksum)
    with pytest.raises(StoreDamaged, match=f"rev {rev} of world 'w' {message}"):
        reopened(path)


def test_a_packed_reply_too_large_to_keep_is_measured_from_its_header_and_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recovery keeps the replies up to `largest` bytes for retries, and undo's history counts each
    reply's length: a packed one's is read from its frame's header (`unpacked_length`, nothing
    unpacked); one too large to keep is not kept (its retry is read back from the store)."""
    monkeypatch.setattr("vtt_bridge.store.rows.PACK_FROM", 1000)
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    hiders_world(store, world)
    round_reply = store_ruling(
        store, world, world.prepare_action("r2", {"kind": "round", "round": 2}, SeededRoller(1))
    )
    hit_reply = store_ruling(store, world, world.prepare_action("hit", HIT, SeededRoller(2)))
    store.close()
    assert unpacked_length(pack(round_reply)) == len(round_reply) and unpacked_length(hit_reply) == len(
        hit_reply
    )
    store = Store(path)
    try:
        recovered = store.recover("w", 10, largest=len(round_reply) - 1)
        assert recovered.replies == {"hit": hit_reply} and "r2" in recovered.answered
        assert recovered.history.by_id["r2"].size == world.history.by_id["r2"].size == len(round_reply)
        assert store.reply("w", "r2") == (round_reply, world.digests["r2"])
    finally:
        store.close()


@pytest.mark.parametrize(
    "claim",
    [b"", bytes([0x00, 0x58]), bytes([0x20, 0x00]), b"cut", b"more"],
    ids=["no header", "no content size", "an empty frame cut short", "cut short", "running on"],
)
def test_packed_bytes_that_name_no_length_or_do_not_unpack_to_it_are_refused(
    monkeypatch: pytest.MonkeyPatch, claim: bytes
) -> None:
    """A header cut short or naming no content size, and a frame whose end is missing, are
    `NotUnpacked` (never a reply of another length, nor an allocation of what a header claims)."""
    monkeypatch.setattr("vtt_bridge.store.rows.PACK_FROM", 100)
    whole = pack(b"{" + b" " * 2000 + b"}")
    assert unpacked(whole) == b"{" + b" " * 2000 + b"}"
    value = {b"cut": whole[:-1], b"more": whole + whole}.get(claim, PACKED_MARK + claim)
    with pytest.raises(NotUnpacked):
        unpacked(value)


def test_a_header_naming_more_than_the_largest_unpacked_value_is_refused_from_the_header() -> None:
    """`LARGEST_UNPACKED`: a frame header naming 2 GiB is refused as it is read, before anything is
    allocated or unpacked."""
    with pytest.raises(NotUnpacked, match="2147483648"):
        unpacked_length(PACKED_MARK + bytes([0xA0]) + (1 << 31).to_bytes(4, "little"))


def test_a_large_snapshot_is_stored_packed_and_a_world_recovers_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot over `PACK_FROM` (a 1,000-token world's is 5-7 MB) is stored packed
    (`snapshot_of`): the world recovers from it as it was; one that does not unpack stops the start
    naming the world."""
    monkeypatch.setattr("vtt_bridge.store.rows.PACK_FROM", 1000)
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    hiders_world(store, world)
    synced = world.state.model_dump(mode="json")
    store_ruling(store, world, world.prepare_action("r2", {"kind": "round", "round": 2}, SeededRoller(1)))
    assert not keeps_reply(None, snapshot=True) and keeps_reply("r2", snapshot=True)
    store.close()
    db = sqlite3.connect(path, isolation_level=None)
    (kind, stored) = db.execute("SELECT typeof(snapshot), snapshot FROM worlds").fetchone()
    db.close()
    assert kind == "blob" and is_packed(stored) and json.loads(unpacked(stored)) == synced
    store, again = reopened(path)
    try:
        assert again.state == world.state
    finally:
        store.close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE worlds SET snapshot = ?", (PACKED_MARK + b"no frame",))
    db.close()
    with pytest.raises(StoreDamaged, match="the snapshot of world 'w' cannot be read back"):
        reopened(path)


def test_a_packed_inverse_that_holds_its_checksum_yet_does_not_unpack_is_refused_saying_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A packed inverse is read only by SQLite (`vtt_text`, for undo's history): one changed with a
    checksum to fit stops the start naming the world, the rev and the frame's own complaint."""
    monkeypatch.setattr("vtt_bridge.store.rows.PACK_FROM", 100)
    path = tmp_path / "vtt-bridge.sqlite3"
    world = stored_round(path)
    rev = world.state.rev
    db = sqlite3.connect(path, isolation_level=None)
    try:
        key, reply, digest, kind, target, inverse = db.execute(
            "SELECT key, CAST(reply AS BLOB), digest, kind, target, inverse FROM log WHERE action_id = 'r2'"
        ).fetchone()
        assert is_packed(inverse)
        changed = inverse[:40] + bytes([inverse[40] ^ 0xFF]) + inverse[41:]
        db.execute(
            "UPDATE log SET inverse = ?, checksum = ? WHERE key = ?",
            (changed, checksum(key, "r2", reply, digest, kind, target, changed), key),
        )
    finally:
        db.close()
    with pytest.raises(StoreDamaged, match=rf"rev {rev} of world 'w' cannot be read back \(.*[Cc]orrupt"):
        reopened(path)


def test_a_packed_value_the_store_could_not_read_back_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A packed reply whose text is beyond SQLite's bound on a value (`SQLITE_LIMIT_LENGTH`, 1e9
    bytes; lowered here) would be acknowledged and then stop every start: it is refused instead, as
    the same reply as text always was, and nothing is written."""
    monkeypatch.setattr("vtt_bridge.store.rows.PACK_FROM", 100)
    store = Store(tmp_path / "vtt-bridge.sqlite3")
    try:
        store._db.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 100_000)
        big = b'{"rev":1,"patch":[],"log":[' + b",".join(b"{}" for _ in range(100_000)) + b'],"rolls":[]}'
        assert is_packed(pack(big))
        for value in (big, pack(big)):
            with pytest.raises(sqlite3.DataError):
                store.append("w", 1, "r1", value, None, "d", kind="round", inverse="[]")
        assert store.reply("w", "r1") is None
    finally:
        store.close()


@pytest.mark.parametrize("change", ["magic", "truncated text"])
def test_a_snapshot_changed_on_disk_stops_the_start_in_one_line_naming_the_world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    """A packed snapshot whose first byte changed is a BLOB that is no frame, a text one cut short is
    no JSON: either stops the start with `StoreDamaged` naming the world (not a parse error, nor one
    the command line takes for the token file's)."""
    monkeypatch.setattr("vtt_bridge.store.rows.PACK_FROM", 1000 if change == "magic" else 1 << 30)
    path = tmp_path / "vtt-bridge.sqlite3"
    store, world = reopened(path)
    hiders_world(store, world)
    store.close()
    db = sqlite3.connect(path, isolation_level=None)
    (stored,) = db.execute("SELECT snapshot FROM worlds").fetchone()
    changed = bytes([stored[0] ^ 1]) + stored[1:] if change == "magic" else stored[:-3]
    db.execute("UPDATE worlds SET snapshot = ?", (changed,))
    db.close()
    with pytest.raises(StoreDamaged, match="the snapshot of world 'w' cannot be read back"):
        reopened(path)
