"""The SQLite store on its own: the log table's layout, and a file written by an earlier version."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from vtt_bridge.models import settled
from vtt_bridge.rules.dice import SeededRoller
from vtt_bridge.server import dumps
from vtt_bridge.store import Store
from vtt_bridge.world import World

EARLIER_LOG = """
CREATE TABLE rulings (
    world TEXT NOT NULL,
    rev INTEGER NOT NULL,
    action_id TEXT,
    reply TEXT NOT NULL,
    PRIMARY KEY (world, rev)
) WITHOUT ROWID;
"""
"""The rulings table as the versions before 2026-11-29 created it."""


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
        assert not isinstance(action, str)
        reply = dumps(action.result)
        store.append(world.id, action.result["rev"], f"a{i}", reply, None)
        world.commit(action, reply)


def log_table_sql(path: Path) -> str:
    db = sqlite3.connect(path)
    try:
        (sql,) = db.execute("SELECT sql FROM sqlite_master WHERE name = 'rulings'").fetchone()
        return str(sql)
    finally:
        db.close()


def test_a_new_store_keeps_its_log_in_a_rowid_table(tmp_path: Path) -> None:
    """Replies run to megabytes: SQLite keeps WITHOUT ROWID for rows under a twentieth of a page."""
    path = tmp_path / "vtt-bridge.sqlite3"
    store = Store(path)
    rule_and_store(store, World("w"))
    store.close()
    assert "WITHOUT ROWID" not in log_table_sql(path)


def test_a_store_file_of_an_earlier_version_is_read_and_written_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(EARLIER_LOG)
    db.close()
    store = Store(path)
    world = World("w")
    rule_and_store(store, world)
    store.close()
    again = Store(path)
    try:
        recovered = again.recover("w", recent=10)
        assert recovered.state.model_dump(mode="json") == world.state.model_dump(mode="json")
        assert recovered.answered == {"a0", "a1", "a2"}
        assert recovered.replies == dict(world.replies)
        assert again.reply("w", "a0") == world.replies["a0"]
    finally:
        again.close()
    assert "WITHOUT ROWID" in log_table_sql(path)
