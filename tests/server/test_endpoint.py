"""The server over a real websocket on loopback: the handshake, the envelope, every error code."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sqlite3
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from tests.conftest import TOKEN, Connect, Peer, damage, world_state
from vtt_bridge import actions
from vtt_bridge.actions import registry
from vtt_bridge.cli.app import create_app
from vtt_bridge.server.bridge import BRIDGE, Config
from vtt_bridge.server.endpoint import origin_allowed
from vtt_bridge.store.schema import REV_SPAN


async def synced(connect: Connect, world: str = "w1", **kwargs: Any) -> Peer:
    peer = await connect(world, **kwargs)
    reply = await peer.request("sync", {"state": world_state()})
    assert reply["type"] == "result", reply
    return peer


async def assert_unchanged_and_serving(peer: Peer, rev: int) -> None:
    """Nothing changed, and the connection still serves the next message."""
    state = await peer.state()
    assert state["rev"] == rev


async def welcomed(client: TestClient[web.Request, web.Application], world: str = "w1") -> Peer:
    """A websocket to a server started by the test itself, welcomed into `world`."""
    peer = Peer(await client.ws_connect("/ws"))
    hello = {"token": TOKEN, "world": world, "client": {"name": "pytest"}}
    assert (await peer.request("hello", hello))["type"] == "welcome"
    return peer


async def test_hello_welcomes_with_protocol_world_and_rev(connect: Connect) -> None:
    peer = await connect(hello=False)
    reply = await peer.request(
        "hello", {"token": TOKEN, "world": "w9", "client": {"name": "t", "version": "1"}}
    )
    assert reply["type"] == "welcome"
    assert reply["payload"]["protocol"] == 1
    assert reply["payload"]["world"] == "w9"
    assert reply["payload"]["rev"] == 0


async def test_sync_replies_result_with_patch_from_empty_and_derived_fields(connect: Connect) -> None:
    peer = await connect()
    reply = await peer.request("sync", {"state": world_state()})
    payload = reply["payload"]
    assert reply["type"] == "result"
    assert payload["rev"] == 1
    assert payload["patch"][0] == {"op": "test", "path": "/rev", "value": 0}
    assert payload["patch"][-1] == {"op": "replace", "path": "/rev", "value": 1}
    actors = next(op for op in payload["patch"] if op["path"] == "/actors")["value"]
    assert actors["actor0"]["status"] == "unharmed"
    state = await peer.state()
    assert state["rev"] == 1
    assert set(state["actors"]) == {"actor0", "actor1"}


async def test_damage_action_result_patch_applies_to_the_document(connect: Connect) -> None:
    import jsonpatch

    peer = await synced(connect)
    before = await peer.state()
    reply = await peer.action(damage(amount=3, grade="L"))
    assert reply["type"] == "result", reply
    payload = reply["payload"]
    assert payload["rev"] == 2
    after = jsonpatch.apply_patch(before, payload["patch"])
    assert after == await peer.state()
    assert after["actors"]["actor0"]["health"]["lethal"] == 3
    assert after["actors"]["actor0"]["status"] == "lightly"
    assert any(step["rule"] == "HEALTH-2" for step in payload["log"])
    assert all(op["op"] in {"test", "add", "remove", "replace"} for op in payload["patch"])


async def test_other_clients_of_the_world_get_the_patch_pushed(connect: Connect) -> None:
    gm = await synced(connect)
    other = await connect("w1")
    elsewhere = await connect("w2")
    reply = await gm.action(damage())
    pushed = await other.receive()
    assert pushed["type"] == "patch"
    assert pushed["payload"]["rev"] == reply["payload"]["rev"]
    assert pushed["payload"]["patch"] == reply["payload"]["patch"]
    # a client of another world gets nothing: its next reply is the answer to its own query
    state = await elsewhere.state()
    assert state["rev"] == 0


async def test_a_retried_action_id_returns_the_same_result_and_changes_nothing(connect: Connect) -> None:
    peer = await synced(connect)
    first = await peer.action(damage(), msg_id="retry-me")
    again = await peer.action(damage(), msg_id="retry-me")
    assert again["payload"] == {"replayed": True, **first["payload"]}
    state = await peer.state()
    assert state["rev"] == 2
    assert state["actors"]["actor0"]["health"]["lethal"] == 2


async def test_an_action_id_answered_long_ago_returns_its_reply_from_the_store(config: Config) -> None:
    """A world keeps the replies of its last few actions in memory (3 here) and every action id it
    answered; an older retry is answered from the store, before and after a restart, and changes
    nothing."""
    small = dataclasses.replace(config, recent_replies=3)
    first: dict[str, Any] = {}
    for restart in range(2):
        client = TestClient(TestServer(create_app(small), host="127.0.0.1"))
        await client.start_server()
        try:
            peer = await welcomed(client)
            if restart == 0:
                assert (await peer.request("sync", {"state": world_state(max_health=20)}))["type"] == "result"
                for i in range(6):
                    first[f"hit-{i}"] = (await peer.action(damage(amount=1), msg_id=f"hit-{i}"))["payload"]
            world = client.app[BRIDGE].worlds["w1"]
            assert list(world.replies) == ["hit-3", "hit-4", "hit-5"]
            assert {f"hit-{i}" for i in range(6)} <= world.answered
            before = await peer.state()
            for i in (0, 4):
                again = await peer.action(damage(amount=1), msg_id=f"hit-{i}")
                assert again["payload"] == {"replayed": True, **first[f"hit-{i}"]}
            assert await peer.state() == before
            assert before["rev"] == 7 and before["actors"]["actor0"]["health"]["lethal"] == 6
            await peer.ws.close()
        finally:
            await client.close()


async def test_periodic_snapshots_keep_every_ruling_and_every_action_reply_across_a_restart(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A snapshot every 2 rulings (`store.SNAPSHOT_EVERY`, 1,000 in use): after moves, damage and
    upserts the restarted server has the very same document, every action id still gets its reply,
    and the rulings without an action id (upserts) before the last snapshot are gone from the log."""
    from vtt_bridge.store import log as store_module

    monkeypatch.setattr(store_module, "SNAPSHOT_EVERY", 2)
    state = world_state(actors=4)
    for i in range(3):
        state["actors"][f"actor{i}"]["humanoid"] = False
        state["actors"][f"actor{i}"]["detection"] = [{"name": "sight", "sense": "sight", "range": 30}]
    replies: dict[str, dict[str, Any]] = {}
    sent: dict[str, dict[str, Any]] = {}
    documents = []
    for restart in range(2):
        client = TestClient(TestServer(create_app(config), host="127.0.0.1"))
        await client.start_server()
        try:
            peer = await welcomed(client)
            if restart == 0:
                assert (await peer.request("sync", {"state": state}))["type"] == "result"
                for i in range(14):  # the last, a move, takes the last snapshot
                    if i % 3 == 0:
                        reply = await peer.request("upsert", {"path": "/scene/round", "value": i})
                    elif i % 3 == 1:
                        far = 9000 * (1 - (i // 3) % 2)  # beyond the others' sight, and back
                        move = {"kind": "move", "token": "token0", "x": far, "y": 0}
                        sent[f"a{i}"] = move
                        reply = replies[f"a{i}"] = await peer.action(move, msg_id=f"a{i}")
                    else:
                        sent[f"a{i}"] = damage(amount=1)
                        reply = replies[f"a{i}"] = await peer.action(damage(amount=1), msg_id=f"a{i}")
                    assert reply["type"] == "result", reply
            documents.append(await peer.state())
            for action_id, first in replies.items():
                again = await peer.action(sent[action_id], msg_id=action_id)
                assert again["payload"] == {"replayed": True, **first["payload"]}
            assert await peer.state() == documents[-1]
            db = client.app[BRIDGE].store._db
            (snapshot_rev,) = db.execute("SELECT snapshot_rev FROM worlds WHERE world = 'w1'").fetchone()
            kept = db.execute(
                "SELECT key - n * ?, action_id FROM log JOIN world_keys "
                "ON key >= n * ? AND key < (n + 1) * ? WHERE world = 'w1' ORDER BY key",
                (REV_SPAN, REV_SPAN, REV_SPAN),
            ).fetchall()
            assert snapshot_rev == 15
            assert all(action_id is not None for rev, action_id in kept if rev <= snapshot_rev)
            assert {action_id for _, action_id in kept if action_id} == set(replies)
            await peer.ws.close()
        finally:
            await client.close()
    assert documents[0] == documents[1] and documents[0]["rev"] == 15


async def test_upsert_sets_a_field_and_refuses_derived_ones(connect: Connect) -> None:
    peer = await synced(connect)
    reply = await peer.request("upsert", {"path": "/actors/actor0/health/max", "value": 9})
    assert reply["type"] == "result", reply
    assert {"op": "replace", "path": "/actors/actor0/health/max", "value": 9} in reply["payload"]["patch"]
    for derived in ("status", "woundPenalty"):
        refused = await peer.request("upsert", {"path": f"/actors/actor0/{derived}", "value": 3})
        assert refused["payload"]["code"] == "invalid", refused
    await assert_unchanged_and_serving(peer, 2)


# --- one test per error code -----------------------------------------------------------------


async def test_error_unauthorized_wrong_token_closes_with_4401(connect: Connect) -> None:
    peer = await connect(hello=False)
    reply = await peer.request("hello", {"token": "wrong", "world": "w1", "client": {"name": "x"}})
    assert reply["type"] == "error"
    assert reply["payload"]["code"] == "unauthorized"
    msg = await peer.ws.receive(timeout=5)
    assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    assert peer.ws.close_code == 4401


async def test_error_unauthorized_anything_before_hello(connect: Connect) -> None:
    peer = await connect(hello=False)
    reply = await peer.request("query", {"kind": "state"})
    assert reply["payload"]["code"] == "unauthorized"
    await peer.ws.receive(timeout=5)
    assert peer.ws.close_code == 4401


async def test_unauthorized_client_does_not_disturb_others(connect: Connect) -> None:
    peer = await synced(connect)
    intruder = await connect(hello=False)
    await intruder.request("hello", {"token": "nope", "world": "w1", "client": {"name": "x"}})
    await assert_unchanged_and_serving(peer, 1)


@pytest.mark.parametrize(
    "frame",
    [
        pytest.param("{not json", id="malformed JSON"),
        pytest.param("[1, 2]", id="a non-object"),
        pytest.param('"hello"', id="a bare string"),
        pytest.param(json.dumps({"v": 1, "id": "x", "type": "teleport", "payload": {}}), id="unknown type"),
        pytest.param(json.dumps({"v": 2, "id": "x", "type": "query", "payload": {}}), id="wrong version"),
        pytest.param(json.dumps({"v": 1, "type": "query", "payload": {}}), id="no id"),
        pytest.param(
            json.dumps({"v": 1, "id": "x", "type": "query", "payload": []}), id="payload not an object"
        ),
        pytest.param('{"v": 1, "id": "x", "type": "query", "payload": {"kind": NaN}}', id="NaN literal"),
        pytest.param(
            json.dumps({"v": 1, "id": "x", "type": "action", "payload": {"kind": "fly"}}), id="unknown kind"
        ),
        pytest.param(
            json.dumps({"v": 1, "id": "x", "type": "query", "payload": {"kind": "x"}}), id="unknown query"
        ),
    ],
)
async def test_error_bad_request(connect: Connect, frame: str) -> None:
    peer = await synced(connect)
    await peer.ws.send_str(frame)
    reply = await peer.receive()
    assert reply["type"] == "error"
    assert reply["payload"]["code"] == "bad_request", reply
    await assert_unchanged_and_serving(peer, 1)


async def test_error_bad_request_keeps_the_request_id_when_there_is_one(connect: Connect) -> None:
    peer = await synced(connect)
    reply = await peer.request("teleport", {})
    assert reply["re"] is not None
    assert reply["payload"]["code"] == "bad_request"


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        pytest.param(damage(amount=-3), ["instances", 0, "amount"], id="negative damage"),
        pytest.param(damage(amount=10**30), ["instances", 0, "amount"], id="10^30 damage"),
        pytest.param(damage(amount="3"), ["instances", 0, "amount"], id="a string for an integer"),
        pytest.param(damage(amount=3.5), ["instances", 0, "amount"], id="a fraction for an integer"),
        pytest.param(damage(grade="X"), ["instances", 0, "grade"], id="unknown grade"),
        pytest.param({"kind": "damage", "target": 5, "instances": []}, ["target"], id="target not a string"),
        pytest.param(
            {"kind": "damage", "instances": [{"amount": 1, "grade": "L"}]}, ["target"], id="missing target"
        ),
    ],
)
async def test_error_invalid_action_names_the_field(
    connect: Connect, payload: dict[str, Any], path: list[Any]
) -> None:
    peer = await synced(connect)
    reply = await peer.action(payload)
    assert reply["type"] == "error"
    assert reply["payload"]["code"] == "invalid", reply
    assert any(detail["path"][: len(path)] == path for detail in reply["payload"]["details"]), reply
    await assert_unchanged_and_serving(peer, 1)


async def test_error_invalid_lists_the_allowed_values_once(connect: Connect) -> None:
    peer = await synced(connect)
    reply = await peer.action(damage(grade="X"))
    (detail,) = reply["payload"]["details"]
    assert detail["path"] == ["instances", 0, "grade"]
    assert detail["message"].count("'B', 'L' or 'A'") == 1, detail


@pytest.mark.parametrize(
    "state",
    [
        pytest.param({"actors": {"a": {"health": {"max": -3}}}}, id="a track of -3"),
        pytest.param({"actors": {"a": {"health": {"max": 2, "lethal": 3}}}}, id="more damage than boxes"),
        pytest.param(
            {"actors": {"a": {"health": {"max": 7}}}, "tokens": {"t": {"actor": "b"}}},
            id="token without actor",
        ),
        pytest.param({"actors": {"a": {"speed": "fast"}}}, id="wrong type"),
        pytest.param({"actors": {"a": {"wings": True}}}, id="unknown field"),
    ],
)
async def test_error_invalid_sync_changes_nothing(connect: Connect, state: dict[str, Any]) -> None:
    peer = await synced(connect)
    reply = await peer.request("sync", {"state": state})
    assert reply["payload"]["code"] == "invalid", reply
    assert reply["payload"]["details"]
    await assert_unchanged_and_serving(peer, 1)


async def test_error_not_found_unknown_actor(connect: Connect) -> None:
    peer = await synced(connect)
    reply = await peer.action(damage(target="nobody"))
    assert reply["payload"]["code"] == "not_found", reply
    await assert_unchanged_and_serving(peer, 1)


@pytest.mark.parametrize("path", ["/tokens/a~1b", "/actors/x~0y", "/tokens/" + "z" * 201, "/actors/"])
async def test_error_invalid_upsert_of_an_id_sync_would_refuse(connect: Connect, path: str) -> None:
    """An id with '/' or '~' (escaped in the pointer) or over 200 characters: the document could not
    be read back from the store with it, so it is refused like a sync would refuse it."""
    peer = await synced(connect)
    value = {"actor": "actor0"} if path.startswith("/tokens") else {"name": "N"}
    reply = await peer.request("upsert", {"path": path, "value": value})
    assert reply["payload"]["code"] == "invalid", reply
    await assert_unchanged_and_serving(peer, 1)


async def test_error_not_found_unknown_token_on_upsert(connect: Connect) -> None:
    peer = await synced(connect)
    reply = await peer.request("upsert", {"path": "/tokens/nope/x", "value": 5})
    assert reply["payload"]["code"] == "not_found", reply
    await assert_unchanged_and_serving(peer, 1)


async def test_error_stale_when_expect_rev_is_behind(connect: Connect) -> None:
    peer = await synced(connect)
    reply = await peer.action({**damage(), "expectRev": 0})
    assert reply["payload"]["code"] == "stale"
    assert reply["payload"]["rev"] == 1
    await assert_unchanged_and_serving(peer, 1)
    ok = await peer.action({**damage(), "expectRev": 1})
    assert ok["payload"]["rev"] == 2


async def test_error_too_large_frame_closes_and_others_go_on(connect: Connect, config: Config) -> None:
    other = await synced(connect)
    peer = await connect()
    await peer.ws.send_str(
        json.dumps({"v": 1, "id": "big", "type": "query", "payload": {"pad": "x" * config.max_frame}})
    )
    reply = await peer.receive()
    assert reply["payload"]["code"] == "too_large"
    await peer.ws.receive(timeout=5)
    assert peer.ws.close_code == 1009
    await assert_unchanged_and_serving(other, 1)


async def test_error_rate_limited(tmp_path: Any) -> None:
    config = Config(data_dir=tmp_path, token=TOKEN, rate_limit=1.0, rate_burst=3.0)
    async with TestClient(TestServer(create_app(config), host="127.0.0.1")) as client:
        peer = Peer(await client.ws_connect("/ws"))
        await peer.request("hello", {"token": TOKEN, "world": "w", "client": {"name": "t"}})
        codes = [(await peer.request("query", {"kind": "state"}))["type"] for _ in range(4)]
        assert codes[:2] == ["result", "result"]
        assert codes[-1] == "error"
        # the limited message still got its one reply, with the code
        await peer.send("query", {"kind": "state"})
        reply = await peer.receive()
        assert reply["payload"]["code"] == "rate_limited"


async def test_error_internal_changes_nothing_and_serves_on(
    connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    peer = await synced(connect)

    def broken(state: Any, action: Any, ctx: actions.Context) -> actions.Ruling:
        raise RuntimeError("a bug in a handler")

    model, _ = registry.HANDLERS["damage"]
    monkeypatch.setitem(registry.HANDLERS, "damage", (model, broken))
    reply = await peer.action(damage())
    assert reply["payload"]["code"] == "internal"
    monkeypatch.undo()
    await assert_unchanged_and_serving(peer, 1)


async def test_the_store_is_checkpointed_after_rulings_and_again_after_a_failed_checkpoint(
    server: TestClient[web.Request, web.Application],
    connect: Connect,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The background checkpoint (every `sync_interval`, 0.05 s here) runs once something was
    written; a disk error does not end it: it says so and tries again (fault injected at the store)."""
    peer = await synced(connect)
    store = server.app[BRIDGE].store
    real_flush = store.flush
    calls: list[str] = []

    def flush() -> None:
        if not calls:
            calls.append("failed")
            raise sqlite3.OperationalError("disk I/O error")
        calls.append("done")
        real_flush()

    monkeypatch.setattr(store, "flush", flush)
    assert (await peer.action(damage()))["type"] == "result"
    for _ in range(3000):  # (30 s: a bound against a hang only)
        if "done" in calls:
            break
        await asyncio.sleep(0.01)
    assert calls == ["failed", "done"]
    assert "could not checkpoint the store (disk I/O error)" in caplog.text
    await asyncio.sleep(0.2)  # nothing written since: nothing more to checkpoint
    assert calls == ["failed", "done"]
    busy, frames, done = store._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    assert (busy, done) == (0, frames)  # the flush had checkpointed every frame already
    await assert_unchanged_and_serving(peer, 2)


async def test_a_checkpoint_that_fails_on_shutdown_still_closes_and_loses_nothing(
    config: Config, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The last checkpoint fails (fault injected at the store): the sidecar still shuts down, says
    so, and the next start finds every acknowledged ruling in the WAL."""
    client = TestClient(
        TestServer(create_app(dataclasses.replace(config, sync_interval=3600.0)), host="127.0.0.1")
    )
    await client.start_server()
    try:
        peer = await welcomed(client)
        assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
        assert (await peer.action(damage(amount=3)))["type"] == "result"
        document = await peer.state()
        store = client.app[BRIDGE].store

        def failing_flush() -> None:
            raise sqlite3.OperationalError("disk I/O error")

        monkeypatch.setattr(store, "flush", failing_flush)
        await peer.ws.close()
    finally:
        await client.close()
    assert "could not checkpoint the store on shutdown (disk I/O error)" in caplog.text
    client = TestClient(TestServer(create_app(config), host="127.0.0.1"))
    await client.start_server()
    try:
        peer = await welcomed(client)
        assert await peer.state() == document
        await peer.ws.close()
    finally:
        await client.close()


async def test_a_foreign_browser_origin_is_refused_at_the_handshake(
    server: TestClient[web.Request, web.Application],
) -> None:
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await server.ws_connect("/ws", headers={"Origin": "https://evil.example"})
    assert refused.value.status == 403


async def test_an_allowed_browser_origin_connects(connect: Connect) -> None:
    peer = await connect(headers={"Origin": "http://localhost:30000"})
    assert (await peer.state())["rev"] == 0


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        ("http://localhost:30000", True),
        ("http://localhost", True),
        ("http://127.0.0.1:8080", True),
        ("https://localhost:443", True),
        ("https://127.0.0.1:30000", False),
        ("http://localhost.evil.example", False),
        ("http://localhost:30000.evil", False),
        ("null", False),
        ("https://my.forge-vtt.com", False),
    ],
)
def test_origin_patterns(origin: str, allowed: bool) -> None:
    patterns = ("http://localhost:*", "http://127.0.0.1:*", "https://localhost:*")
    assert origin_allowed(origin, patterns) is allowed


def test_allow_origin_adds_an_exact_origin() -> None:
    assert origin_allowed("https://my.forge-vtt.com", ("https://my.forge-vtt.com",))


async def test_a_sync_larger_than_a_frame_goes_in_parts_and_rules_once(connect: Connect) -> None:
    peer = await connect()
    whole = world_state(actors=3)
    first = {"scene": whole["scene"], "actors": {"actor0": whole["actors"]["actor0"]}, "tokens": {}}
    second = {"actors": {"actor1": whole["actors"]["actor1"], "actor2": whole["actors"]["actor2"]}}
    last = {"tokens": whole["tokens"]}
    for part in (first, second):
        reply = await peer.request("sync", {"state": part, "more": True})
        assert reply["type"] == "result"
        assert reply["payload"]["rev"] == 0 and reply["payload"]["patch"] == []
    reply = await peer.request("sync", {"state": last})
    assert reply["payload"]["rev"] == 1
    state = await peer.state()
    assert set(state["actors"]) == {"actor0", "actor1", "actor2"}
    assert set(state["tokens"]) == {"token0", "token1", "token2"}
    assert state["scene"]["id"] == "scene1"


async def test_move_patch_carries_only_changed_visibility_cells(connect: Connect) -> None:
    peer = await connect()
    state = world_state(actors=3)
    state["actors"]["actor2"]["antiDetection"] = [{"name": "invisibility", "essence": "magical", "rank": "C"}]
    reply = await peer.request("sync", {"state": state})
    assert reply["type"] == "result", reply
    before = await peer.state()
    assert before["visibility"]["token0"]["token2"] != "pinpointed"
    assert "token1" not in before["visibility"]["token0"]  # sparse: an absent pair is pinpointed
    moved = await peer.action({"kind": "move", "token": "token1", "x": 5000, "y": 5000})
    assert moved["type"] == "result", moved
    for op in moved["payload"]["patch"][1:-1]:
        assert op["path"].startswith(("/tokens/token1", "/visibility/")), op
        if op["path"].startswith("/visibility/"):
            assert op.get("value") != "pinpointed", op  # a pair that becomes pinpointed is removed
    explained = await peer.request("query", {"kind": "explain", "observer": "token0", "target": "token2"})
    assert explained["type"] == "result", explained
    assert any(step["rule"].startswith("DET-") for step in explained["payload"]["log"])


async def test_a_ruling_the_store_cannot_write_is_refused_and_changes_nothing(
    connect: Connect, server: TestClient[web.Request, web.Application]
) -> None:
    """A real SQLite refusal (the connection made read-only) in the middle of a move: the world keeps
    its document, visibility rows included (a move writes its cells into them only once stored), and
    the same action id is ruled on afresh once the store can write again."""
    import jsonpatch

    peer = await connect()
    state = world_state(actors=4)
    for dog in ("actor0", "actor1", "actor2"):  # sight to 30 m: a token 9000 px (135 m) away is lost
        state["actors"][dog]["humanoid"] = False
        state["actors"][dog]["detection"] = [{"name": "sight", "sense": "sight", "range": 30}]
    assert (await peer.request("sync", {"state": state}))["type"] == "result"
    before = await peer.state()
    store = server.app[BRIDGE].store
    move = {"kind": "move", "token": "token3", "x": 9000, "y": 9000}
    store._db.execute("PRAGMA query_only = 1")
    refused = await peer.action(move, msg_id="mv-1")
    assert refused["type"] == "error" and refused["payload"]["code"] == "storage", refused
    assert "readonly" in refused["payload"]["message"] or "read-only" in refused["payload"]["message"]
    assert await peer.state() == before
    store._db.execute("PRAGMA query_only = 0")
    ruled = await peer.action(move, msg_id="mv-1")
    assert ruled["type"] == "result", ruled
    cells = [op for op in ruled["payload"]["patch"] if op["path"].startswith("/visibility/")]
    assert cells, "the move changed who locates token1"
    assert jsonpatch.apply_patch(before, ruled["payload"]["patch"]) == await peer.state()


# --- liveness: pings ------------------------------------------------------------------------------


@pytest.fixture
async def quick_pings(config: Config) -> AsyncIterator[TestClient[web.Request, web.Application]]:
    """The server with a 0.2 s ping interval."""
    client = TestClient(TestServer(create_app(dataclasses.replace(config, heartbeat=0.2)), host="127.0.0.1"))
    await client.start_server()
    try:
        yield client
    finally:
        await client.close()


async def test_a_peer_that_never_answers_pings_is_closed(
    quick_pings: TestClient[web.Request, web.Application],
) -> None:
    ws = await quick_pings.ws_connect("/ws", autoping=False)
    kinds = []
    while True:
        msg = await ws.receive(timeout=5)  # never answering the pings it gets
        kinds.append(msg.type)
        if msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
            break
    assert aiohttp.WSMsgType.PING in kinds and kinds[-1] in (
        aiohttp.WSMsgType.CLOSE,
        aiohttp.WSMsgType.CLOSED,
    )


async def test_a_quiet_peer_that_answers_pings_stays_connected_and_its_pings_get_pongs(start: Any) -> None:
    """A peer that says nothing but answers the server's pings (by hand here, to count them) is still
    connected after the third; a ping of its own gets a pong. Counted in pings, not seconds: the 1 s
    interval leaves each pong half of it (aiohttp's wait), room for a loaded machine's pauses."""
    server = await start(heartbeat=1.0)
    raw: aiohttp.ClientWebSocketResponse = await server.ws_connect("/ws", autoping=False)
    for _ in range(3):
        msg = await raw.receive(timeout=10)  # (10 s: a bound against a hang only)
        assert msg.type == aiohttp.WSMsgType.PING, msg
        await raw.pong(msg.data)
    assert not raw.closed

    async def answered() -> aiohttp.WSMessage:
        """The next frame that is not the server's ping (each one answered meanwhile)."""
        while (msg := await raw.receive(timeout=10)).type == aiohttp.WSMsgType.PING:
            await raw.pong(msg.data)
        return msg

    await raw.ping(b"are you there")
    msg = await answered()
    assert msg.type == aiohttp.WSMsgType.PONG and msg.data == b"are you there"
    hello = {"token": TOKEN, "world": "w1", "client": {"name": "after"}}
    await raw.send_str(json.dumps({"v": 1, "id": "h", "type": "hello", "payload": hello}))
    assert json.loads((await answered()).data)["type"] == "welcome"
