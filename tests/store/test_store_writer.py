"""The store's writer thread (`Bridge.in_store`): a large ruling's commit and the checkpoints run off
the event loop, one store operation at a time, and a ruling is acknowledged only once committed."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import orjson
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import Connect, damage, world_state
from vtt_bridge.cli.app import checkpoint
from vtt_bridge.engine import history
from vtt_bridge.server import commit as commit_module
from vtt_bridge.server import queries
from vtt_bridge.server.bridge import BRIDGE
from vtt_bridge.store import rows as store_module

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=7) | st.dictionaries(st.text(max_size=5), inner, max_size=5),
    max_leaves=40,
)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_dumps_in_turns_writes_the_same_text_as_one_dump(value: Any) -> None:
    """Long lists (here: longer than 2) are dumped a chunk at a time, an object's values one at a
    time, the pieces joined once; the text is `dumps`' own."""
    original = commit_module.DUMP_CHUNK
    commit_module.DUMP_CHUNK = 2
    try:
        in_turns = commit_module._dumped_in_turns(value).decode()
        assert in_turns == commit_module.dumps(value)
        assert orjson.loads(in_turns) == orjson.loads(orjson.dumps(value))
    finally:
        commit_module.DUMP_CHUNK = original


async def test_a_large_ruling_is_committed_in_the_writer_thread_and_acknowledged_after_it(
    server: TestClient[web.Request, web.Application], connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync (it carries a snapshot) is written in the store's thread, a `damage` on the loop. While
    the thread's commit is held (a slow disk, here held until the test lets it go), the loop answers
    another world's queries; the sync's result comes only once its commit has returned, and a damage
    of another world waits for the store meanwhile, then is written."""
    store = server.app[BRIDGE].store
    real = store.append
    writes: list[tuple[str, int, float]] = []
    writing, let_go = threading.Event(), threading.Event()

    def append(world: str, rev: int, *args: Any, **kwargs: Any) -> None:
        if world == "big":
            writing.set()
            let_go.wait(30)
        real(world, rev, *args, **kwargs)
        writes.append((threading.current_thread().name, rev, time.monotonic()))

    monkeypatch.setattr(store, "append", append)
    other = await connect("small")
    assert (await other.request("sync", {"state": world_state()}))["type"] == "result"
    big = await connect("big")
    sync_id = await big.send("sync", {"state": world_state(actors=50)})
    assert await asyncio.to_thread(writing.wait, 30)  # the sync's commit is under way in the thread
    # answered while that commit is still held: the loop does not wait for the store's thread
    assert (await other.state())["rev"] == 1
    assert len(writes) == 1 and not let_go.is_set()
    let_go.set()
    reply = await big.receive()
    acked = time.monotonic()
    assert reply["type"] == "result" and reply["re"] == sync_id
    assert (await other.action(damage(amount=1, grade="B")))["type"] == "result"
    threads = [name for name, _, _ in writes]
    assert threads[0].startswith("vtt-bridge-store") and threads[1].startswith("vtt-bridge-store")
    assert threads[2] == threading.current_thread().name  # the damage: on the loop
    assert writes[1][2] <= acked  # acknowledged after the commit returned


async def test_the_checkpoint_runs_in_the_writer_thread(
    server: TestClient[web.Request, web.Application], connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = server.app[BRIDGE].store
    real = store.flush
    threads: list[str] = []

    def flush() -> None:
        threads.append(threading.current_thread().name)
        real()

    monkeypatch.setattr(store, "flush", flush)
    peer = await connect("w1")
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    assert (await peer.action(damage(amount=1, grade="B")))["type"] == "result"
    for _ in range(1500):  # (30 s: a bound against a hang only)
        if threads:
            break
        await asyncio.sleep(0.02)
    assert threads and all(name.startswith("vtt-bridge-store") for name in threads)


async def test_a_large_rulings_row_is_made_before_the_store_is_taken(
    server: TestClient[web.Request, web.Application], connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ops and inverse of a ruling written in the store's thread are dumped, and the inverse and
    the reply packed (`store.pack`), in workers (not on the event loop) before the store's lock is
    taken (a round's are tens of MB): the lock, which every other world's ruling waits for, is held
    for the write alone. Every ruling takes that path here, and is packed."""
    bridge = server.app[BRIDGE]
    real_ops, real_append, real_pack = history.stored_ops, bridge.store.append, store_module.pack
    seen: list[tuple[str, str, bool]] = []

    def stored_ops(entry: Any, *more: Any) -> Any:
        seen.append(("ops", threading.current_thread().name, bridge.store_lock.locked()))
        return real_ops(entry, *more)

    def pack(data: bytes) -> bytes:
        seen.append(("pack", threading.current_thread().name, bridge.store_lock.locked()))
        return real_pack(data)

    def append(*args: Any, **kwargs: Any) -> None:
        seen.append(("append", threading.current_thread().name, bridge.store_lock.locked()))
        real_append(*args, **kwargs)

    monkeypatch.setattr(commit_module, "STORE_THREAD_BYTES", 0)
    monkeypatch.setattr(commit_module, "stored_ops", stored_ops)
    monkeypatch.setattr(commit_module, "pack", pack)
    monkeypatch.setattr(store_module, "PACK_FROM", 0)
    monkeypatch.setattr(bridge.store, "append", append)
    peer = await connect("w1")
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    # the sync's write checkpointed here: the background checkpoint (which takes the store) has
    # nothing to do until the damage's own row is written, so a lock seen held is the ruling's
    await checkpoint(bridge)
    seen.clear()
    assert (await peer.action(damage(amount=1, grade="B"), "hit"))["type"] == "result"
    assert sorted(what for what, _, _ in seen[:3]) == ["ops", "pack", "pack"] and seen[3][0] == "append"
    for _, made_in, locked in seen[:3]:
        assert not locked and not made_in.startswith("vtt-bridge-store"), "made with the store taken"
        assert made_in != threading.main_thread().name, "made on the event loop, not in a worker"
    _, written_in, held = seen[3]
    assert held and written_in.startswith("vtt-bridge-store")
    (reply, inverse) = bridge.store._db.execute(
        "SELECT typeof(reply), typeof(inverse) FROM log WHERE action_id = 'hit'"
    ).fetchone()
    assert (reply, inverse) == ("blob", "blob")
    assert bridge.store.reply("w1", "hit") == (
        bridge.worlds["w1"].replies["hit"],
        bridge.worlds["w1"].digests["hit"],
    )
    undo = await peer.action({"kind": "undo", "action": "hit"})
    assert undo["type"] == "result", undo


async def test_a_syncs_snapshot_is_dumped_and_packed_before_the_store_is_taken(
    server: TestClient[web.Request, web.Application], connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sync's snapshot (a 1,000-token world's JSON is 5-7 MB, 130-180 ms to dump) is dumped and
    packed (`store.snapshot_of`) in a worker before the store's lock is taken; its reply, which the
    store does not keep (`store.keeps_reply`), is not packed at all. The world recovers from it."""
    bridge = server.app[BRIDGE]
    real_snapshot, real_pack = store_module.snapshot_of, store_module.pack
    seen: list[tuple[str, str, bool]] = []

    def snapshot_of(state: Any) -> bytes:
        seen.append(("snapshot", threading.current_thread().name, bridge.store_lock.locked()))
        return real_snapshot(state)

    def pack(data: bytes) -> bytes:
        seen.append(("pack", threading.current_thread().name, bridge.store_lock.locked()))
        return real_pack(data)

    monkeypatch.setattr(commit_module, "snapshot_of", snapshot_of)
    monkeypatch.setattr(commit_module, "pack", pack)
    monkeypatch.setattr(store_module, "PACK_FROM", 100)
    peer = await connect("w1")
    assert (await peer.request("sync", {"state": world_state(20)}))["type"] == "result"
    assert [what for what, _, _ in seen] == ["snapshot"]
    (_, made_in, locked) = seen[0]
    assert (
        not locked and made_in != threading.main_thread().name and not made_in.startswith("vtt-bridge-store")
    )
    (kind,) = bridge.store._db.execute("SELECT typeof(snapshot) FROM worlds WHERE world = 'w1'").fetchone()
    assert kind == "blob"
    assert bridge.store.recover("w1", 1).state == bridge.worlds["w1"].state


async def test_a_big_worlds_state_query_is_answered_from_a_worker_with_the_world_locked(
    server: TestClient[web.Request, web.Application], connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `state` query of a world of more than `OFFLOAD_TOKENS` tokens (3 here; a 1,000-token world's
    state is tens of MB of JSON) is dumped in a worker, with the world's lock held so that no ruling
    commits meanwhile, and answers what it answers on the event loop: the state document."""
    bridge = server.app[BRIDGE]
    real = queries.query_dumped
    seen: list[tuple[str, bool]] = []

    def query_dumped(world: Any, payload: dict[str, Any]) -> bytes:
        seen.append((threading.current_thread().name, bridge.lock(world.id).locked()))
        return real(world, payload)

    monkeypatch.setattr(queries, "query_dumped", query_dumped)
    monkeypatch.setattr(queries, "OFFLOAD_TOKENS", 3)
    small, big = await connect("small"), await connect("big")
    assert (await small.request("sync", {"state": world_state(2)}))["type"] == "result"
    assert (await big.request("sync", {"state": world_state(6)}))["type"] == "result"
    assert (await small.action(damage(amount=1, grade="B"), "hit"))["type"] == "result"
    assert (await small.state()) == bridge.worlds["small"].state.model_dump(mode="json") and not seen
    assert (await big.state()) == bridge.worlds["big"].state.model_dump(mode="json")
    [(thread, locked)] = seen
    assert thread != threading.main_thread().name and locked


@settings(max_examples=100, deadline=None)
@given(json_values, st.text(min_size=1, max_size=20), st.none() | st.text(min_size=1, max_size=20))
def test_a_long_rulings_result_is_sent_as_the_same_text(value: Any, msg_id: str, re: str | None) -> None:
    """A long ruling's result goes out as UTF-8 made in the worker: its envelope's parts joined are
    `envelope`'s text, encoded."""
    data = orjson.dumps(value)
    expected = commit_module.envelope("result", data.decode(), msg_id, re).encode()
    assert b"".join(commit_module.envelope_parts("result", data, msg_id, re)) == expected


async def test_a_damage_written_at_once_or_after_its_turn_at_the_store_answers_and_stores_the_same(
    server: TestClient[web.Request, web.Application], connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small ruling is written in the very turn it is ruled while nothing holds or waits for the
    store (`Bridge.store_idle`: the store's lock is not taken), else once its turn at the store
    comes (`Bridge.in_store`, the lock held): the same reply, the same stored row, the same state."""
    bridge = server.app[BRIDGE]
    real = bridge.store.append
    written: list[tuple[str, bool]] = []

    def append(world: str, *args: Any, **kwargs: Any) -> None:
        written.append((world, bridge.store_lock.locked()))
        real(world, *args, **kwargs)

    monkeypatch.setattr(bridge.store, "append", append)
    at_once, waited = await connect("at-once"), await connect("waited")
    for peer in (at_once, waited):
        assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    await checkpoint(bridge)  # nothing left to checkpoint: the store stays idle until the next ruling
    written.clear()
    first = await at_once.action(damage(amount=3, grade="B"), "hit")
    assert written == [("at-once", False)] and bridge.store_idle()
    holding, let_go = threading.Event(), threading.Event()

    def hold() -> None:
        holding.set()
        let_go.wait(30)

    held = asyncio.ensure_future(bridge.in_store(hold, off_loop=True))
    assert await asyncio.to_thread(holding.wait, 30)
    assert not bridge.store_idle()
    sent = await waited.send("action", damage(amount=3, grade="B"), "hit")
    while bridge._store_turns < 2:  # the damage waits for its turn at the store
        await asyncio.sleep(0.01)
    assert written == [("at-once", False)]
    let_go.set()
    await held
    second = await waited.receive()
    assert second["re"] == sent and written == [("at-once", False), ("waited", True)]
    assert first["payload"] == second["payload"]
    assert bridge.store.reply("at-once", "hit") == bridge.store.reply("waited", "hit")
    assert bridge.worlds["at-once"].replies["hit"] == bridge.worlds["waited"].replies["hit"]
    assert await at_once.state() == await waited.state()
