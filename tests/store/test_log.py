"""The SQLite store on its own: the log's layout, and files written by earlier versions."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vtt_bridge.document.models import settled
from vtt_bridge.engine.codec import frame
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World
from vtt_bridge.errors import StoreDamaged
from vtt_bridge.server import heap
from vtt_bridge.server.commit import dumps
from vtt_bridge.store.log import Store
from vtt_bridge.store.rows import INSERT_RULING, checksum
from vtt_bridge.store.schema import REV_SPAN

EARLIER_LOG = """
CREATE TABLE rulings (
    world TEXT NOT NULL,
    rev INTEGER NOT NULL,
    action_id TEXT,
    reply TEXT NOT NULL,
    PRIMARY KEY (world, rev)
)"""
EARLIER_LOGS = {"before 2026-11-29": EARLIER_LOG + " WITHOUT ROWID;", "2026-11-29": EARLIER_LOG + ";"}
"""The rulings table as earlier versions created it."""


def rule_and_store(store: Store, world: World) -> None:
    """A sync and three damage actions, each written before it is committed, as the server does."""
    state = {"actors": {"hero": {"name": "Hero", "health": {"max": 9}}}, "tokens": {"t": {"actor": "hero"}}}
    pending = world.prepare_sync({"state": state})
    reply = dumps(pending.result)
    store.append(world.id, pending.result["rev"], None, reply, settled(pending.state))
    world.commit(pending, reply)
    for i in range(3):
        hit = {"kind": "damage", "target": "hero", "instances": [{"amount": 1, "grade": "L"}]}
        action = world.prepare_action(f"a{i}", hit, SeededRoller(1))
        assert not isinstance(action, bytes)
        reply = dumps(action.result)
        store.append(world.id, action.result["rev"], f"a{i}", reply, None)
        world.commit(action, reply)


def tables(path: Path) -> dict[str, str]:
    db = sqlite3.connect(path)
    try:
        return {
            name: sql for name, sql in db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
        }
    finally:
        db.close()


def test_a_ruling_is_one_row_in_one_btree_keyed_by_world_and_rev(tmp_path: Path) -> None:
    """No index beside the log: a ruling writes one B-tree, at the end of its world's range."""
    path = tmp_path / "vtt-bridge.sqlite3"
    store = Store(path)
    rule_and_store(store, World("w"))
    rule_and_store(store, World("v"))
    store.close()
    db = sqlite3.connect(path)
    try:
        assert (
            db.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'log'").fetchall()
            == []
        )
        keys = dict(db.execute("SELECT world, n FROM world_keys"))
        rows = db.execute("SELECT key, action_id FROM log ORDER BY key").fetchall()
    finally:
        db.close()
    assert keys == {"w": 1, "v": 2}
    # the sync (rev 1) has no action id and is held by the snapshot; the actions' replies are kept
    assert rows == [(n * REV_SPAN + rev, f"a{rev - 2}") for n in (1, 2) for rev in (2, 3, 4)]
    assert "WITHOUT ROWID" not in tables(path)["log"]


def test_a_rev_beyond_the_key_is_refused(tmp_path: Path) -> None:
    store = Store(tmp_path / "vtt-bridge.sqlite3")
    try:
        with pytest.raises(ValueError, match="beyond"):
            store.append("w", REV_SPAN, "a", "{}", None)
    finally:
        store.close()


@pytest.mark.parametrize("version", sorted(EARLIER_LOGS))
def test_a_store_file_of_an_earlier_version_is_moved_into_the_keyed_log(tmp_path: Path, version: str) -> None:
    """Written by an earlier version (its own statements, below), read and written by this one."""
    path = tmp_path / "vtt-bridge.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(EARLIER_LOGS[version])
    db.execute(
        "CREATE TABLE worlds (world TEXT PRIMARY KEY, snapshot_rev INTEGER NOT NULL, snapshot TEXT NOT NULL)"
    )
    earlier = World("w")
    pending = earlier.prepare_sync(
        {
            "state": {
                "actors": {"hero": {"name": "Hero", "health": {"max": 9}}},
                "tokens": {"t": {"actor": "hero"}},
            }
        }
    )
    snapshot = settled(pending.state).model_dump_json()
    db.execute("INSERT INTO worlds VALUES ('w', 1, ?)", (snapshot,))
    earlier.commit(pending, dumps(pending.result))
    for i in range(3):
        hit = {"kind": "damage", "target": "hero", "instances": [{"amount": 1, "grade": "L"}]}
        action = earlier.prepare_action(f"a{i}", hit, SeededRoller(1))
        assert not isinstance(action, bytes)
        reply = dumps(action.result)
        db.execute("INSERT INTO rulings VALUES ('w', ?, ?, ?)", (action.result["rev"], f"a{i}", reply))
        earlier.commit(action, reply)
    db.execute(
        "INSERT INTO rulings VALUES ('other', 1, 'o1', ?)", (dumps({"rev": 1, "patch": [], "log": []}),)
    )
    db.close()

    store = Store(path)
    try:
        assert store.moved == 4
        assert store.worlds() == ["other", "w"]
        recovered = store.recover("w", recent=10)
        assert recovered.state.model_dump(mode="json") == earlier.state.model_dump(mode="json")
        assert recovered.answered == {"a0", "a1", "a2"}
        assert recovered.replies == dict(earlier.replies)
        assert store.reply("w", "a0") == (earlier.replies["a0"], None)  # no digest before layout 5
        assert store.recover("other", recent=10).answered == {"o1"}
        # and the moved world goes on from where it was
        world = World("w", recovered.state, recovered.replies, recovered.answered)
        hit = {"kind": "damage", "target": "hero", "instances": [{"amount": 1, "grade": "L"}]}
        action = world.prepare_action("a3", hit, SeededRoller(1))
        assert not isinstance(action, bytes)
        store.append("w", action.result["rev"], "a3", dumps(action.result), None)
        world.commit(action, dumps(action.result))
    finally:
        store.close()
    assert "rulings" not in tables(path)
    again = Store(path)
    try:
        assert again.moved == 0
        recovered = again.recover("w", recent=10)
        assert recovered.state.model_dump(mode="json") == world.state.model_dump(mode="json")
        assert recovered.answered == {"a0", "a1", "a2", "a3"}
    finally:
        again.close()


def test_a_commit_never_checkpoints_the_background_flush_does(tmp_path: Path) -> None:
    """A ruling's commit does not wait for the disk: SQLite's automatic checkpoint (two fsyncs inside
    the commit that crosses 1,000 WAL pages, by default) is left to the background `flush`."""
    store = Store(tmp_path / "vtt-bridge.sqlite3")
    try:
        reply = dumps({"rev": 0, "patch": [], "log": [{"rule": "HEALTH-2", "text": "x" * 3000}]})
        for rev in range(1, 1501):  # a page or more each: well past 1,000 pages
            store.append("w", rev, f"a{rev}", reply, None)
        wal = tmp_path / "vtt-bridge.sqlite3-wal"
        assert wal.stat().st_size > 1500 * 4096  # every frame since the start: the WAL never restarted
        store.flush()  # what the server runs every second
        busy, frames, done = store._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        assert busy == 0 and frames >= 1500 and done == frames  # all of it checkpointed
    finally:
        store.close()


def test_latest_reads_a_worlds_last_rulings_oldest_first_their_steps_cut_and_bounded(tmp_path: Path) -> None:
    """`Store.latest` (the status page after a restart): the last `count` rulings of one world only,
    each with its first steps and how many it had; past the byte budget, headings without steps."""
    store = Store(tmp_path / "vtt-bridge.sqlite3")
    try:
        rule_and_store(store, World("w"))
        rule_and_store(store, World("v"))
        assert store.latest("nowhere", 5, 10) == []
        assert store.latest("w", 0, 10) == []
        full = store.latest("w", 10, 1000)
        assert [(r.rev, r.action_id) for r in full] == [(2, "a0"), (3, "a1"), (4, "a2")]
        assert all(r.steps == len(r.log) > 1 for r in full)
        cut = store.latest("w", 2, 1)
        assert [(r.rev, r.action_id) for r in cut] == [(3, "a1"), (4, "a2")]
        assert [r.steps for r in cut] == [full[1].steps, full[2].steps]
        assert [r.log for r in cut] == [full[1].log[:1], full[2].log[:1]]
        # a budget of one character: the newest ruling is read, the older ones are headings only
        bounded = store.latest("w", 3, 10, budget=1)
        assert [(r.rev, r.steps, r.log) for r in bounded][:2] == [(2, -1, []), (3, -1, [])]
        assert bounded[2].log == full[2].log
    finally:
        store.close()


def test_latest_verifies_each_rulings_checksum(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    store = Store(path)
    rule_and_store(store, World("w"))
    store.close()
    db = sqlite3.connect(path)
    db.execute("UPDATE log SET reply = replace(reply, 'HEALTH', 'HEALTX') WHERE action_id = 'a2'")
    db.commit()
    db.close()
    damaged = Store(path)
    try:
        with pytest.raises(StoreDamaged, match="fails its checksum"):
            damaged.latest("w", 1, 10)
    finally:
        damaged.close()


def test_a_reply_written_as_utf8_is_stored_as_the_text_it_is(tmp_path: Path) -> None:
    """The server hands the store a ruling's reply as its UTF-8 (orjson's bytes, never decoded): it
    is stored as TEXT (not a blob), its checksum is the text's, and it reads back (as UTF-8, for
    retries), through recovery and through SQLite's own JSON functions, as the same reply."""
    path = tmp_path / "vtt-bridge.sqlite3"
    world = World("w")
    store = Store(path)
    try:
        pending = world.prepare_sync({"state": {"actors": {"hero": {"name": "Hërö", "health": {"max": 9}}}}})
        store.append("w", 1, None, dumps(pending.result), settled(pending.state))
        world.commit(pending, dumps(pending.result))
        hit = {"kind": "damage", "target": "hero", "instances": [{"amount": 1, "grade": "L"}]}
        action = world.prepare_action("a0", hit, SeededRoller(1))
        assert not isinstance(action, bytes)
        data = dumps(action.result).encode()
        assert "→".encode() in data  # text beyond ASCII: a str of it takes 2 bytes a character
        store.append("w", action.result["rev"], "a0", data, None, action.digest)
        world.commit(action, data)
        assert world.replies["a0"] is data
        assert store.reply("w", "a0") == (data, action.digest)
        assert store.latest("w", 1, 100)[0].log == action.result["log"]
    finally:
        store.close()
    db = sqlite3.connect(path)
    try:
        assert db.execute("SELECT typeof(reply) FROM log WHERE action_id = 'a0'").fetchall() == [("text",)]
    finally:
        db.close()
    reopened = Store(path)
    try:
        recovered = reopened.recover("w", 10)
        assert recovered.replies == {"a0": data}
        assert recovered.state == world.state
    finally:
        reopened.close()


def _rss_bytes() -> int:
    """This process's resident memory, after the allocator gave its free pages back."""
    heap.release_freed_memory()
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_a_large_rulings_reply_is_not_held_by_the_store_once_written(tmp_path: Path) -> None:
    """SQLite keeps a copy of what a cached statement was last bound to, and Python's sqlite3 never
    clears it: after a round's append its reply and inverse (tens of MB) stayed in the store's
    memory until the next ruling. `Store.append` frees them (`_unbind`) and writes nothing more:
    the ruling reads back whole, the next one is written as ever."""
    store = Store(tmp_path / "vtt-bridge.sqlite3")
    try:
        reply = b'{"rev":1,"patch":[],"log":["' + b"x" * (48 << 20) + b'"],"rolls":[]}'
        inverse = "[" + ",".join(["{}"] * (8 << 20)) + "]"
        written, inverse_chars = len(reply) + len(inverse), len(inverse)
        before = _rss_bytes()
        store.append("w", 1, "round", reply, None, "d1", kind="round", inverse=inverse)
        assert _rss_bytes() - before < written // 4  # not a copy of either
        assert store.reply("w", "round") == (reply, "d1")
        del reply, inverse
        store.append("w", 2, "hit", b'{"rev":2}', None, "d2", kind="damage", inverse="[]")
        rows = store._db.execute("SELECT key % ?, action_id, length(inverse) FROM log", (REV_SPAN,))
        assert rows.fetchall() == [(1, "round", inverse_chars), (2, "hit", 2)]
    finally:
        store.close()


def test_a_large_snapshot_is_not_held_by_the_store_once_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same for a snapshot's text (a 1,000-token world's is megabytes), at every size here
    (`UNBIND_FROM` 0): every ruling and snapshot written reads back as the world it was."""
    monkeypatch.setattr("vtt_bridge.store.log.UNBIND_FROM", 0)
    path = tmp_path / "vtt-bridge.sqlite3"
    world = World("w")
    store = Store(path)
    try:
        rule_and_store(store, world)
        pending = world.prepare_sync({"state": {"actors": {"hero": {"name": "Again", "health": {"max": 4}}}}})
        store.append("w", pending.result["rev"], None, dumps(pending.result), settled(pending.state))
        world.commit(pending, dumps(pending.result))
    finally:
        store.close()
    reopened = Store(path)
    try:
        recovered = reopened.recover("w", 10)
        assert recovered.state == world.state and recovered.answered == {"a0", "a1", "a2"}
    finally:
        reopened.close()


@settings(max_examples=200, deadline=None)
@given(
    st.integers(min_value=0, max_value=2**50),
    st.none() | st.text(max_size=8),
    st.text(),
    st.none() | st.text(max_size=8),
    st.none() | st.text(max_size=8),
    st.none() | st.text(max_size=8),
    st.none() | st.text(),
)
def test_a_rows_checksum_is_the_same_whether_reply_and_inverse_come_as_text_or_utf8(
    key: int,
    action_id: str | None,
    reply: str,
    digest: str | None,
    kind: str | None,
    target: str | None,
    inverse: str | None,
) -> None:
    """`checksum` runs the CRC on from field to field: the value layout 6 wrote over the joined text
    of kind, target and inverse, whether the reply and the inverse come as text or as their UTF-8."""
    head = f"{key}\0{action_id or ''}\0{digest or ''}\0".encode()
    expected = zlib.crc32(reply.encode(), zlib.crc32(head))
    if not (kind is None and target is None and inverse is None):
        expected = zlib.crc32(f"{kind or ''}\0{target or ''}\0{inverse or ''}".encode(), expected)
    as_bytes = None if inverse is None else inverse.encode()
    assert checksum(key, action_id, reply, digest, kind, target, inverse) == expected
    assert checksum(key, action_id, reply.encode(), digest, kind, target, as_bytes) == expected


@pytest.mark.parametrize("form", ["text", "utf8", "long utf8", "packed", "no inverse"])
def test_a_row_is_stored_as_the_statement_that_looks_for_the_packed_mark_stores_it(
    tmp_path: Path, form: str
) -> None:
    """`Store.append` writes a row whose reply and inverse are not packed through `INSERT_PLAIN`, and
    binds a short one as a bytearray: each column holds what `INSERT_RULING` stores for the same
    values, of the same type (text, or a packed value's blob), and the row reads back checksummed."""
    reply_text = '{"rev":1,"log":["Zoë 战士"],"patch":[]}'
    inverse_text = '[{"op":"replace","path":"/a","value":"ë"}]'
    values: dict[str, tuple[str | bytes, str | bytes | None]] = {
        "text": (reply_text, inverse_text),
        "utf8": (reply_text.encode(), inverse_text.encode()),
        "long utf8": (reply_text.encode() + b" " * 5000, inverse_text.encode() + b" " * 5000),
        "packed": (frame(reply_text.encode()), frame(inverse_text.encode())),
        "no inverse": (reply_text.encode(), None),
    }
    reply, inverse = values[form]
    stored = tmp_path / "store.sqlite3"
    store = Store(stored)
    try:
        store.append("w", 1, "a1", reply, None, "d1", "damage", None, inverse)
        assert store.reply("w", "a1") is not None
    finally:
        store.close()
    columns = (
        "key, action_id, typeof(reply), CAST(reply AS BLOB), digest, checksum, kind, target, "
        "typeof(inverse), CAST(inverse AS BLOB)"
    )
    db = sqlite3.connect(stored)
    try:
        (row,) = db.execute(f"SELECT {columns} FROM log").fetchall()
        db.execute("DELETE FROM log")
        key = REV_SPAN + 1
        db.execute(
            INSERT_RULING,
            (
                key,
                "a1",
                reply,
                "d1",
                checksum(key, "a1", reply, "d1", "damage", None, inverse),
                "damage",
                None,
                inverse,
            ),
        )
        (expected,) = db.execute(f"SELECT {columns} FROM log").fetchall()
    finally:
        db.close()
    assert row == expected
    assert row[2] == ("blob" if form == "packed" else "text")


@pytest.mark.parametrize("size", [10, 30_000, 100_000])
def test_a_rows_reply_and_inverse_are_stored_as_the_text_of_their_bytes(tmp_path: Path, size: int) -> None:
    """A row's reply and inverse, given as UTF-8 (or as bytes that are not UTF-8), through the
    store's kept cursor: each is stored as TEXT of the very bytes given, its checksum verified when
    read back."""
    path = tmp_path / "vtt-bridge.sqlite3"
    reply = b'{"rev":1,"log":["' + "Zoë 战士 ".encode() * (size // 16) + b'"]}'
    inverse = b'[{"op":"replace","path":"/a","value":"' + "ë".encode() * (size // 4) + b'"}]'
    not_utf8 = b'{"rev":2,"x":"\xff"}'
    store = Store(path)
    try:
        store.append("w", 1, "a1", reply, None, "d1", "damage", None, inverse)
        store.append("w", 2, "a2", not_utf8, None, "d2", "damage", None, inverse)
        assert store.reply("w", "a1") == (reply, "d1")
        assert store.reply("w", "a2") == (not_utf8, "d2")
    finally:
        store.close()
    db = sqlite3.connect(path)
    try:
        rows = db.execute(
            "SELECT typeof(reply), CAST(reply AS BLOB), typeof(inverse), CAST(inverse AS BLOB) FROM log "
            "ORDER BY key"
        ).fetchall()
    finally:
        db.close()
    assert rows == [("text", reply, "text", inverse), ("text", not_utf8, "text", inverse)]
