"""Store layout 11 (vtt-bridge 0.8.0): a file of layout 10 or older opens with every world's areas
keyed by target, in one transaction, and nothing of the earlier layout is ever applied to a world of
this one: a ruling made before that changed areas cannot be undone, before and after a restart.

`layout_10_session.json` is a file vtt-bridge 0.7.0 wrote, table by table (its rows, checksums and
all): three worlds of `tests/server/test_areas.py`'s scene (three watchers who locate two invisible
hiders approximately, and a plain token). World `w`: synced (its snapshot, rev 1, holds six areas),
then moves that redraw areas (`m1`, `m6`: cells replaced), a `damage` (`hit`), upserts that drop a
watcher's whole row (`up-2`), add a row (`up-3`, `up-5`), remove cells (`up-4`) and add them
(`up-6`), and an undo of `m1` (`u-m1`). World `v`: synced, a move written with a snapshot (rev 2),
a move after it. World `x`: synced only.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonpatch
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import TOKEN
from tests.store.test_undo_store import store_ruling
from vtt_bridge import __version__
from vtt_bridge.engine.codec import frame
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World
from vtt_bridge.errors import StoreDamaged
from vtt_bridge.server.bridge import Bridge, Config
from vtt_bridge.store.log import Store
from vtt_bridge.store.rows import REV_SPAN, checksum, snapshot_checksum
from vtt_bridge.store.schema import LAYOUT, LAYOUTS_OF_VERSIONS
from vtt_bridge.store.upgrade import areas_by_target

SESSION = json.loads(Path(__file__).with_name("layout_10_session.json").read_text(encoding="utf-8"))
WORLDS = ("v", "w", "x")
HIT = {"kind": "damage", "target": "ap", "instances": [{"amount": 1, "grade": "L"}]}
M2 = {"kind": "move", "token": "w0", "x": 7000, "y": 5000}


def layout_10_file(path: Path) -> None:
    """The file 0.7.0 wrote for the session: its tables, rows and pragmas as they were."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    for statement in SESSION["schema"]:
        db.execute(statement)
    for table in ("world_keys", "worlds", "log", "pages", "changes"):
        for row in SESSION[table]:
            db.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(row))})", row)
    db.execute(f"PRAGMA application_id={SESSION['application_id']}")
    db.execute(f"PRAGMA user_version={SESSION['user_version']}")
    db.close()


def old_documents() -> dict[str, dict[str, Any]]:
    """Each world of the session as 0.7.0 recovers it: its snapshot, every later row's patch applied."""
    numbers = {world: n for n, world in SESSION["world_keys"]}
    documents = {}
    for world, snapshot_rev, snapshot, _ in SESSION["worlds"]:
        document = json.loads(snapshot)
        base = numbers[world] * REV_SPAN
        for row in SESSION["log"]:
            if base + snapshot_rev < row[0] < base + REV_SPAN:
                jsonpatch.apply_patch(document, json.loads(row[2])["patch"], in_place=True)
        documents[world] = document
    return documents


def transposed_by_hand(areas: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The areas keyed target -> observer, built pair by pair (as the test's own reading of layout 11)."""
    pairs = sorted((target, observer) for observer, row in areas.items() for target in row)
    out: dict[str, dict[str, Any]] = {}
    for target, observer in pairs:
        out.setdefault(target, {})[observer] = areas[observer][target]
    return out


def user_version(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("PRAGMA user_version").fetchone()[0])
    finally:
        db.close()


def tables(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """The rows of every table of a file (read without the store, as they are on disk)."""
    db = sqlite3.connect(path)
    try:
        names = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: db.execute(f"SELECT * FROM {name} ORDER BY 1, 2").fetchall() for name in sorted(names)}
    finally:
        db.close()


def reopened(path: Path, world_id: str = "w") -> tuple[Store, World]:
    store = Store(path)
    recovered = store.recover(world_id, recent=100)
    world = World(
        world_id,
        recovered.state,
        recovered.replies,
        recovered.answered,
        100,
        recovered.digests,
        recovered.history,
    )
    return store, world


@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "c", "d"]),
        st.dictionaries(st.sampled_from(["a", "b", "c", "d", "e"]), st.tuples(st.integers(), st.integers())),
    )
)
def test_det_4_areas_by_target_holds_the_same_pairs_keyed_by_target(areas: dict[str, Any]) -> None:
    by_target = areas_by_target(areas)
    assert by_target == transposed_by_hand(areas)
    assert all(by_target.values()), "no target without an area gets a row"
    assert areas_by_target(by_target) == {observer: row for observer, row in areas.items() if row}


def test_a_layout_10_file_opens_with_every_area_keyed_by_target(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    layout_10_file(path)
    old = old_documents()
    assert {t for row in old["w"]["areas"].values() for t in row} == {"i0", "i1"}
    assert set(old["w"]["areas"]) == {"w0", "w1", "w2", "p0"}, "the session left four observers' rows"
    for opened in range(2):  # opened again: migrated once, nothing changes
        store = Store(path)
        try:
            assert store._db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT == 11
            assert store.upgraded == (3 if opened == 0 else 0)
            for world in WORLDS:
                state = store.recover(world, 100).state
                document = state.model_dump(mode="json")
                assert document["areas"] == transposed_by_hand(old[world]["areas"])
                assert {**document, "areas": None} == {
                    **state.model_validate(old[world]).model_dump(mode="json"),
                    "areas": None,
                }
            rows = store._db.execute("SELECT world, snapshot_rev FROM worlds ORDER BY world").fetchall()
            assert rows == [("v", 3), ("w", 15), ("x", 1)], "each world's snapshot at its last rev"
            # the upserts' rows the snapshot holds are dropped, their ids kept for undo's refusal
            assert store._db.execute("SELECT count(*) FROM log WHERE action_id IS NULL").fetchone() == (0,)
            kinds = dict(store._db.execute("SELECT message_id, kind FROM changes").fetchall())
            assert kinds == {"sync-1": "sync", "sync-v": "sync", "sync-x": "sync"} | {
                f"up-{n}": "upsert" for n in range(1, 7)
            }
        finally:
            store.close()
    assert sorted(old["w"]["areas"]["w0"]) == ["i0", "i1"]
    by_target = transposed_by_hand(old["w"]["areas"])
    assert {target: sorted(row) for target, row in by_target.items()} == {
        "i0": ["p0", "w0", "w1", "w2"],
        "i1": ["p0", "w0", "w1", "w2"],
    }


def test_the_upgraded_world_rules_restarts_and_reads_back_the_same(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    layout_10_file(path)
    store, world = reopened(path)
    try:
        move = world.prepare_action(
            "m7", {"kind": "move", "token": "i0", "x": 2600, "y": 900}, SeededRoller(4)
        )
        store_ruling(store, world, move)
        store_ruling(store, world, world.prepare_action("hit-2", HIT, SeededRoller(5)))
        assert world.state.rev == 17
        document = world.state.model_dump(mode="json")
        approximate = {
            (target, observer)
            for observer, row in document["visibility"].items()
            for target, code in row.items()
            if code == "a"
        }
        drawn = {(target, observer) for target, row in document["areas"].items() for observer in row}
        assert drawn == approximate and {target for target, _ in drawn} == {"i0", "i1"}
        for target, row in document["areas"].items():  # each area holds its target (DET-4)
            token = document["tokens"][target]
            for x, y, r in row.values():
                assert (token["x"] - x) ** 2 + (token["y"] - y) ** 2 <= r**2
    finally:
        store.close()
    store, again = reopened(path)
    try:
        assert again.state == world.state
        assert again.state.model_dump(mode="json") == world.state.model_dump(mode="json")
    finally:
        store.close()


def test_a_ruling_made_before_that_changed_areas_is_not_undoable_naming_the_version(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    layout_10_file(path)
    for restart in range(2):  # after the migration, and after a restart
        store, world = reopened(path)
        try:
            for mode, action in (("undo", "m1"), ("undo", "m6"), ("undo", "u-m1"), ("redo", "m1")):
                with pytest.raises(RequestError) as refused:
                    world.prepare_action(
                        f"{mode}-{action}-{restart}", {"kind": mode, "action": action}, SeededRoller(1)
                    )
                assert refused.value.code == "not_undoable", (mode, action)
                assert "vtt-bridge 0.7.0 or earlier" in refused.value.message
                assert "0.8.0 keeps by target" in refused.value.message
            with pytest.raises(RequestError) as refused:
                world.prepare_action(f"u-up-{restart}", {"kind": "undo", "action": "up-2"}, SeededRoller(1))
            assert refused.value.code == "invalid" and "upsert, not a ruling" in refused.value.message
        finally:
            store.close()


def test_a_ruling_made_before_that_changed_no_area_is_undone_as_before(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    layout_10_file(path)
    store, world = reopened(path)
    try:
        synced = json.loads(dict((row[0], row[2]) for row in SESSION["worlds"])["w"])["actors"]["ap"][
            "health"
        ]
        hurt = world.state.model_dump(mode="json")["actors"]["ap"]["health"]
        store_ruling(
            store, world, world.prepare_action("u-hit", {"kind": "undo", "action": "hit"}, SeededRoller(1))
        )
        assert world.state.model_dump(mode="json")["actors"]["ap"]["health"] == synced != hurt
    finally:
        store.close()
    store, again = reopened(path)
    try:
        assert again.state == world.state
        with pytest.raises(RequestError, match="already undone"):
            again.prepare_action("u-hit-2", {"kind": "undo", "action": "hit"}, SeededRoller(1))
    finally:
        store.close()


def test_a_retry_of_a_ruling_made_before_answers_its_stored_reply_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    layout_10_file(path)
    store, world = reopened(path)
    try:
        stored = store.reply("w", "m2")
        assert stored is not None
        replayed = world.prepare_action("m2", M2, SeededRoller(9))
        assert isinstance(replayed, bytes)
        answer = json.loads(replayed)
        assert answer["replayed"] is True and answer["rev"] == 3
        assert answer["patch"] == json.loads(stored[0])["patch"]
        assert world.state.rev == 15
    finally:
        store.close()


KILLED_AS_THE_AREAS_ARE_WRITTEN = """
import os, signal, sys
from pathlib import Path

def kill_once_written(frame, event, arg):
    if event == "return" and frame.f_code.co_name == "upgrade_areas":
        os.kill(os.getpid(), signal.SIGKILL)

sys.setprofile(kill_once_written)
from vtt_bridge.store.log import Store
Store(Path(sys.argv[1]))
"""
"""The real store opened in a process killed (SIGKILL) as the migration has rewritten every world
(`store.upgrade.upgrade_areas` returns), its transaction not yet committed."""


def test_a_migration_killed_before_its_commit_leaves_layout_10_and_runs_again(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    layout_10_file(path)
    before = tables(path)
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_AS_THE_AREAS_ARE_WRITTEN, str(path)],
        cwd=Path(__file__).parents[2],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    assert user_version(path) == 10 and tables(path) == before
    store = Store(path)
    try:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] == LAYOUT
        areas = store.recover("w", 10).state.model_dump(mode="json")["areas"]
        assert areas == transposed_by_hand(old_documents()["w"]["areas"])
    finally:
        store.close()


MOVED_TO = "UPDATE log SET reply = replace(reply, ?, ?) WHERE action_id = 'm6'"
"""A byte of move `m6`'s stored reply changed on disk (and changed back)."""


def test_a_damaged_row_of_an_old_file_refuses_it_whole_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    layout_10_file(path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(MOVED_TO, ('"value":1200.0', '"value":1201.0'))
    db.close()
    before = tables(path)
    with pytest.raises(StoreDamaged, match="the ruling at rev 13 of world 'w' fails its checksum"):
        Store(path)
    # world `v` was rewritten before `w` failed: rolled back with the rest
    assert user_version(path) == 10 and tables(path) == before
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(MOVED_TO, ('"value":1201.0', '"value":1200.0'))
    db.close()
    store = Store(path)
    try:
        assert store._db.execute("SELECT world, snapshot_rev FROM worlds ORDER BY world").fetchall()[0] == (
            "v",
            3,
        )
    finally:
        store.close()


def test_a_file_of_layout_12_is_refused_naming_the_versions(tmp_path: Path) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 12")
    db.commit()
    db.close()
    with pytest.raises(StoreDamaged) as refused:
        Store(path)
    message = str(refused.value)
    assert "layout 12 (written by a vtt-bridge later than 0.8.0)" in message
    assert f"this vtt-bridge {__version__} reads layouts up to 11" in message
    assert __version__ == LAYOUTS_OF_VERSIONS[11] == "0.8.0"


def test_the_record_of_a_worlds_upgrade_changed_on_disk_is_told(tmp_path: Path) -> None:
    """Moved back, more rulings would be undone with the old paths: it is checksummed like any row."""
    path = tmp_path / "vtt-bridge.sqlite3"
    layout_10_file(path)
    Store(path).close()
    db = sqlite3.connect(path, isolation_level=None)
    assert db.execute("SELECT world, layout, rev FROM upgrades ORDER BY world").fetchall() == [
        ("v", 11, 3),
        ("w", 11, 15),
        ("x", 11, 1),
    ]
    db.execute("UPDATE upgrades SET rev = 1 WHERE world = 'w'")
    db.close()
    store = Store(path)
    try:
        with pytest.raises(StoreDamaged, match="world 'w''s upgrade to store layout 11 fails its checksum"):
            store.recover("w", 10)
        store.recover("v", 10)  # the other worlds are served
    finally:
        store.close()


def test_the_sidecar_says_once_that_it_upgraded_the_worlds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    layout_10_file(tmp_path / "vtt-bridge.sqlite3")
    for opened in range(2):
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="vtt_bridge"):
            Bridge(Config(data_dir=tmp_path, token=TOKEN)).close()
        said = [r.getMessage() for r in caplog.records if "layout 11" in r.getMessage()]
        if opened == 0:
            assert said == [
                "upgraded the store's 3 worlds to layout 11 (the areas keyed by target): their rulings "
                "made before that changed areas can no longer be undone"
            ]
            assert caplog.records[-1].levelno == logging.WARNING
        else:
            assert said == []


def test_the_sidecar_names_one_upgraded_world_in_the_singular(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "vtt-bridge.sqlite3"
    layout_10_file(path)
    db = sqlite3.connect(path, isolation_level=None)
    for number, world in SESSION["world_keys"]:
        if world != "w":  # the session's other worlds taken out of the old file whole
            keys = (number * REV_SPAN, (number + 1) * REV_SPAN)
            for table in ("log", "changes", "pages"):
                db.execute(f"DELETE FROM {table} WHERE key >= ? AND key < ?", keys)
            db.execute("DELETE FROM worlds WHERE world = ?", (world,))
    db.close()
    with caplog.at_level(logging.INFO, logger="vtt_bridge"):
        Bridge(Config(data_dir=tmp_path, token=TOKEN)).close()
    assert [r.getMessage() for r in caplog.records if "layout 11" in r.getMessage()] == [
        "upgraded the store's 1 world to layout 11 (the areas keyed by target): their rulings "
        "made before that changed areas can no longer be undone"
    ]


def test_a_packed_row_and_a_packed_snapshot_of_an_old_file_are_read_back_and_upgraded(tmp_path: Path) -> None:
    """0.5.0 to 0.7.0 stored a large reply and snapshot packed (a Zstandard frame): here a move's row
    and world `v`'s snapshot, packed as those versions pack them, their checksums made to fit."""
    path = tmp_path / "vtt-bridge.sqlite3"
    layout_10_file(path)
    db = sqlite3.connect(path, isolation_level=None)
    key, action_id, reply, digest, _, kind, target, inverse = db.execute(
        "SELECT * FROM log WHERE action_id = 'm6'"
    ).fetchone()
    packed = frame(reply.encode())
    db.execute(
        "UPDATE log SET reply = ?, checksum = ? WHERE key = ?",
        (packed, checksum(key, action_id, packed, digest, kind, target, inverse), key),
    )
    rev, snapshot = db.execute("SELECT snapshot_rev, snapshot FROM worlds WHERE world = 'v'").fetchone()
    packed = frame(snapshot.encode())
    db.execute(
        "UPDATE worlds SET snapshot = ?, checksum = ? WHERE world = 'v'",
        (packed, snapshot_checksum("v", rev, packed)),
    )
    db.close()
    old = old_documents()
    store = Store(path)
    try:
        for world in WORLDS:
            areas = store.recover(world, 10).state.model_dump(mode="json")["areas"]
            assert areas == transposed_by_hand(old[world]["areas"])
    finally:
        store.close()
