"""Undo and redo over the wire: a damage, a round with stage-three results, a move, and across a
SIGKILL and restart of the sidecar."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import os
import signal
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import jsonpatch
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from tests.conftest import Connect, Peer, world_state
from tests.detection_scenes import guard_among_hiders
from tests.server.test_crash import _hello, free_port, sidecar
from vtt_bridge.document.models import WorldState, sparse_visibility
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.engine.history import JsonOps
from vtt_bridge.rules.common import STORED
from vtt_bridge.server.bridge import BRIDGE

HIDER = {
    "name": "Hider",
    "attributes": {"DEX": 2},
    "skills": {"stealth": 1},
    "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}],
}
SCENE = {
    "scene": {"id": "s", "round": 1},
    "actors": {
        "guard": {"name": "Guard", "attributes": {"PER": 3}, "skills": {"investigation": 2}},
        "assassin": HIDER,
        "shade": {**HIDER, "name": "Shade"},
    },
    "tokens": {
        "guard": {"actor": "guard", "x": 0},
        "assassin": {"actor": "assassin", "x": 200},
        "shade": {"actor": "shade", "x": 300},
    },
}
WIN = {"observer": [8, 8, 1, 1, 1], "target": [8] + [1] * 12}


def without_rev(state: dict[str, Any]) -> dict[str, Any]:
    """A copy of the document, rev aside."""
    return copy.deepcopy({key: value for key, value in state.items() if key != "rev"})


def recomputed(state: dict[str, Any]) -> dict[str, Any]:
    """A full recompute of the document's visibility, in the document's sparse form."""
    model = WorldState.model_validate(state, context=STORED)
    return sparse_visibility(VisibilityIndex().recompute_visibility(model))


async def ruled(peer: Peer, payload: dict[str, Any], msg_id: str, document: dict[str, Any]) -> dict[str, Any]:
    """One action that must be accepted; its patch applied to the client's copy of the document."""
    reply = await peer.action(payload, msg_id)
    assert reply["type"] == "result", reply
    jsonpatch.apply_patch(document, reply["payload"]["patch"], in_place=True)
    result: dict[str, Any] = reply["payload"]
    return result


async def test_an_undo_of_damage_over_the_wire_restores_health_and_is_idempotent(connect: Connect) -> None:
    peer = await connect()
    await peer.request("sync", {"state": world_state()})
    document = await peer.state()
    before = without_rev(document)
    hit = {"kind": "damage", "target": "actor0", "instances": [{"amount": 3, "grade": "L"}]}
    await ruled(peer, hit, "hit", document)
    undo = {"kind": "undo", "action": "hit"}
    result = await ruled(peer, undo, "undo-hit", document)
    assert result["log"][0]["rule"] == "UNDO"
    assert result["log"][0]["data"] == {"key": "UNDO.undone", "action": "hit", "kind": "damage", "rev": 2}
    assert without_rev(document) == before == without_rev(await peer.state())
    again = await peer.action(undo, "undo-hit")
    assert again["payload"]["replayed"] is True and again["payload"]["rev"] == result["rev"]
    twice = await peer.action(undo, "undo-hit-2")
    assert twice["type"] == "error" and twice["payload"]["code"] == "invalid"
    assert "already undone" in twice["payload"]["message"]
    assert await peer.state() == document  # refused: nothing changed
    # an undo of the undo is a redo: the damage stands again, the step says so
    redone = await ruled(peer, {"kind": "undo", "action": "undo-hit"}, "undo-undo-hit", document)
    assert redone["log"][0]["data"] == {"key": "UNDO.redone", "action": "hit", "kind": "damage", "rev": 2}
    assert document["actors"]["actor0"]["health"]["lethal"] == 3
    unknown = await peer.action({"kind": "undo", "action": "nobody"})
    assert unknown["payload"]["code"] == "not_found"
    sync_id = await peer.send("upsert", {"path": "/actors/actor0/name", "value": "Renamed"}, "rename")
    assert (await peer.receive())["re"] == sync_id
    upsert = await peer.action({"kind": "undo", "action": "rename"})
    assert upsert["payload"]["code"] == "invalid" and "not a ruling" in upsert["payload"]["message"]


async def test_an_undo_of_a_round_restores_its_stage_three_results_and_the_visibility_they_caused(
    connect: Connect,
) -> None:
    peer = await connect(contests=True)  # it keeps `contests`, as the sidecar's document does
    await peer.request("sync", {"state": SCENE})
    document = await peer.state()
    await ruled(
        peer, {"kind": "contest", "observer": "guard", "target": "assassin", "dice": WIN}, "c1", document
    )
    before = without_rev(document)
    assert before["contests"]
    round_result = await ruled(peer, {"kind": "round", "round": 2}, "r2", document)
    assert without_rev(document) != before
    assert any(op["path"].startswith("/contests") for op in round_result["patch"])
    await ruled(peer, {"kind": "undo", "action": "r2"}, "u-r2", document)
    assert without_rev(document) == before
    state = await peer.state()
    assert without_rev(state) == before and state["scene"]["round"] == 1
    assert state["visibility"] == recomputed(state)


async def test_an_undo_of_a_move_leaves_the_matrix_a_full_recompute_gives(connect: Connect) -> None:
    peer = await connect()
    await peer.request("sync", {"state": SCENE})
    document = await peer.state()
    before = without_rev(document)
    await ruled(peer, {"kind": "move", "token": "assassin", "x": 5000, "y": 5000}, "m1", document)
    await ruled(peer, {"kind": "undo", "action": "m1"}, "u-m1", document)
    state = await peer.state()
    assert without_rev(state) == before == without_rev(document)
    assert state["visibility"] == recomputed(state)
    await ruled(peer, {"kind": "redo", "action": "m1"}, "re-m1", document)
    state = await peer.state()
    assert state["tokens"]["assassin"]["x"] == 5000 and state["visibility"] == recomputed(state)
    # a later move of the same token: undoing the first is a conflict naming the later one
    await ruled(peer, {"kind": "move", "token": "assassin", "x": 100, "y": 0}, "m2", document)
    conflict = await peer.action({"kind": "undo", "action": "m1"})
    assert conflict["payload"]["code"] == "conflict", conflict
    named = [ruling for detail in conflict["payload"]["details"] for ruling in detail["rulings"]]
    assert {"action": "m2", "kind": "move", "rev": state["rev"] + 1} in named
    assert await peer.state() == document  # the conflict changed nothing


async def request(ws: aiohttp.ClientWebSocketResponse, msg_id: str, type_: str, payload: Any) -> Any:
    """One envelope to a sidecar in a process of its own, and its answer (30 s at most)."""
    await ws.send_str(json.dumps({"v": 1, "id": msg_id, "type": type_, "payload": payload}))
    return json.loads((await ws.receive(timeout=30)).data)


async def every_page(ws: aiohttp.ClientWebSocketResponse, action: str) -> tuple[list[Any], list[Any]]:
    """Every step and roll of a ruling, read with `query {kind: "ruling"}` a page of 1,000 at a time."""
    log: list[Any] = []
    rolls: list[Any] = []
    for offset in range(0, 10**7, 1000):
        query = {"kind": "ruling", "action": action, "offset": offset, "limit": 1000}
        page = (await request(ws, f"page-{offset}", "query", query))["payload"]
        log += page["log"]
        rolls += page["rolls"]
        if offset + 1000 >= max(page["data"]["steps"], page["data"]["rolls"]):
            break
    return log, rolls


@contextlib.asynccontextmanager
async def welcomed_ws(port: int) -> AsyncIterator[aiohttp.ClientWebSocketResponse]:
    """A websocket to the sidecar on `port`, welcomed into world "w" (no bound on its messages)."""
    async with (
        aiohttp.ClientSession() as session,
        session.ws_connect(f"http://127.0.0.1:{port}/ws", max_msg_size=0) as ws,
    ):
        await _hello(ws, "w")
        yield ws


async def test_an_undo_survives_a_sigkill_and_restart(tmp_path: Path) -> None:
    port = free_port()
    hit = {"kind": "damage", "target": "actor0", "instances": [{"amount": 2, "grade": "L"}]}

    with sidecar(tmp_path, port) as process:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
        ):
            await _hello(ws, "w")
            await request(ws, "s", "sync", {"state": world_state()})
            before = (await request(ws, "q", "query", {"kind": "state"}))["payload"]["state"]
            assert (await request(ws, "hit", "action", hit))["type"] == "result"
            undone = await request(ws, "u", "action", {"kind": "undo", "action": "hit"})
            assert undone["type"] == "result"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    with sidecar(tmp_path, port):
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
        ):
            await _hello(ws, "w")
            state = (await request(ws, "q", "query", {"kind": "state"}))["payload"]["state"]
            assert without_rev(state) == without_rev(before) and state["rev"] == undone["payload"]["rev"]
            replay = await request(ws, "u", "action", {"kind": "undo", "action": "hit"})
            assert replay["payload"]["replayed"] is True
            twice = await request(ws, "u2", "action", {"kind": "undo", "action": "hit"})
            assert twice["payload"]["code"] == "invalid"
            redone = await request(ws, "r", "action", {"kind": "redo", "action": "hit"})
            assert redone["type"] == "result", redone
            await asyncio.sleep(0)


async def test_a_packed_round_survives_a_sigkill_and_answers_its_retry_and_its_undo_after_the_restart(
    tmp_path: Path,
) -> None:
    """A round whose reply is larger than `store.PACK_FROM` (a guard among 200 hiders: 2 MB) is
    stored packed; SIGKILL after its acknowledgement and a damage: after the restart its retry is
    answered with the same reply (read back from the packed row), and its undo restores the world
    as it was before it; after another SIGKILL its redo (the undo's packed inverse read back) the
    world as the round left it."""
    port = free_port()
    hit = {"kind": "damage", "target": "guard", "instances": [{"amount": 1, "grade": "B"}]}
    state = guard_among_hiders([f"h{i}" for i in range(200)], 100, 10)

    with sidecar(tmp_path, port) as process:
        async with welcomed_ws(port) as ws:
            assert (await request(ws, "s", "sync", {"state": state}))["type"] == "result"
            before = (await request(ws, "q", "query", {"kind": "state"}))["payload"]["state"]
            ruled = await request(ws, "r2", "action", {"kind": "round", "round": 2})
            # the client's copy is cut (its log, no `/contests`); the store keeps the whole, packed
            assert ruled["type"] == "result" and "summary" in ruled["payload"]
            after_round = (await request(ws, "q2", "query", {"kind": "state"}))["payload"]["state"]
            assert (await request(ws, "hit", "action", hit))["type"] == "result"
            paged = await every_page(ws, "r2")
            summary = ruled["payload"]["summary"]
            assert (len(paged[0]), len(paged[1])) == (summary["steps"], summary["rolls"])
            assert paged[0][: len(ruled["payload"]["log"])] == ruled["payload"]["log"]
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    with sidecar(tmp_path, port) as process:
        async with welcomed_ws(port) as ws:
            # its log's parts were written with its row: every page reads as before the kill
            assert await every_page(ws, "r2") == paged
            again = await request(ws, "r2", "action", {"kind": "round", "round": 2})
            assert again["payload"] == {"replayed": True, **ruled["payload"]}
            assert (await request(ws, "u-hit", "action", {"kind": "undo", "action": "hit"}))[
                "type"
            ] == "result"
            undone = await request(ws, "u-r2", "action", {"kind": "undo", "action": "r2"})
            assert undone["type"] == "result", undone
            after = (await request(ws, "q", "query", {"kind": "state"}))["payload"]["state"]
            assert without_rev(after) == without_rev(before)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    with sidecar(tmp_path, port) as process:  # the undo's packed inverse (the round's ops) read back
        async with welcomed_ws(port) as ws:
            redone = await request(ws, "re-r2", "action", {"kind": "redo", "action": "r2"})
            assert redone["type"] == "result", redone
            again_after = (await request(ws, "q", "query", {"kind": "state"}))["payload"]["state"]
            assert without_rev(again_after) == without_rev(after_round)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    db = sqlite3.connect(tmp_path / "vtt-bridge.sqlite3")
    try:
        stored = {
            action_id: (reply, inverse)
            for action_id, reply, inverse in db.execute(
                "SELECT action_id, typeof(reply), typeof(inverse) FROM log WHERE action_id IS NOT NULL"
            )
        }
    finally:
        db.close()
    assert stored == {  # the round's reply and the undo's inverse (the round's ops) packed
        "r2": ("blob", "text"),
        "hit": ("text", "text"),
        "u-hit": ("text", "text"),
        "u-r2": ("text", "blob"),
        "re-r2": ("blob", "text"),
    }


async def test_undo_across_a_restart_and_a_sigkill_refuses_sync_and_upsert_ids_and_undoes_each_ruling(
    tmp_path: Path,
) -> None:
    """The sidecar stopped cleanly, then killed (SIGKILL) and started again: the ids of a sync and of
    an upsert (their rows dropped by later snapshots) still answer `invalid` (no ruling), an unknown
    id `not_found`; a round with stage-three results, a move and a damage made before the kill are
    undone after it, each restoring what it changed (the visibility equal to a full recompute)."""
    port = free_port()

    async def state(ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
        document: dict[str, Any] = (await request(ws, "q", "query", {"kind": "state"}))["payload"]["state"]
        return document

    async def refusals(ws: aiohttp.ClientWebSocketResponse) -> None:
        for message_id, kind in (("sync-1", "sync"), ("rename", "upsert"), ("sync-2", "sync")):
            refused = await request(ws, f"u-{message_id}", "action", {"kind": "undo", "action": message_id})
            assert refused["type"] == "error", refused
            assert refused["payload"]["code"] == "invalid", refused
            assert f"a {kind}, not a ruling" in refused["payload"]["message"]
        unknown = await request(ws, "u-nobody", "action", {"kind": "undo", "action": "nobody"})
        assert unknown["payload"]["code"] == "not_found"

    rename = {"path": "/actors/guard/name", "value": "Watch"}
    with sidecar(tmp_path, port) as process:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
        ):
            await _hello(ws, "w")
            assert (await request(ws, "sync-1", "sync", {"state": SCENE}))["type"] == "result"
            assert (await request(ws, "rename", "upsert", rename))["type"] == "result"
            assert (await request(ws, "sync-2", "sync", {"state": SCENE}))["type"] == "result"  # a snapshot
            contest = {"kind": "contest", "observer": "guard", "target": "assassin", "dice": WIN}
            assert (await request(ws, "c1", "action", contest))["type"] == "result"
            before_round = await state(ws)
            assert before_round["contests"]
            assert (await request(ws, "r2", "action", {"kind": "round", "round": 2}))["type"] == "result"
            before_move = await state(ws)
            move = {"kind": "move", "token": "shade", "x": 4000, "y": 4000}
            assert (await request(ws, "m1", "action", move))["type"] == "result"
            before_hit = await state(ws)
            hit = {"kind": "damage", "target": "guard", "instances": [{"amount": 3, "grade": "L"}]}
            assert (await request(ws, "hit", "action", hit))["type"] == "result"
            await refusals(ws)
        process.send_signal(signal.SIGTERM)  # a clean stop: the WAL checkpointed, the file closed
        assert process.wait(timeout=20) == 0
    with sidecar(tmp_path, port) as process:
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
        ):
            await _hello(ws, "w")
            await refusals(ws)
            undone = await request(ws, "u-hit", "action", {"kind": "undo", "action": "hit"})
            assert undone["type"] == "result", undone
            assert undone["payload"]["log"][0]["data"] == {
                "key": "UNDO.undone",
                "action": "hit",
                "kind": "damage",
                "rev": before_hit["rev"] + 1,
            }
            assert without_rev(await state(ws)) == without_rev(before_hit)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    with sidecar(tmp_path, port):
        async with (
            aiohttp.ClientSession() as session,
            session.ws_connect(f"http://127.0.0.1:{port}/ws") as ws,
        ):
            await _hello(ws, "w")
            await refusals(ws)
            assert without_rev(await state(ws)) == without_rev(before_hit)
            twice = await request(ws, "u-hit-2", "action", {"kind": "undo", "action": "hit"})
            assert twice["payload"]["code"] == "invalid" and "already undone" in twice["payload"]["message"]
            assert (await request(ws, "u-m1", "action", {"kind": "undo", "action": "m1"}))["type"] == "result"
            after_move = await state(ws)
            assert without_rev(after_move) == without_rev(before_move)
            assert after_move["visibility"] == recomputed(after_move)
            assert (await request(ws, "u-r2", "action", {"kind": "undo", "action": "r2"}))["type"] == "result"
            after_round = await state(ws)
            assert without_rev(after_round) == without_rev(before_round)
            assert after_round["scene"]["round"] == 1 and after_round["contests"] == before_round["contests"]
            assert after_round["visibility"] == recomputed(after_round)


async def test_a_pushed_ruling_names_its_action_id_and_kind_so_another_client_can_undo_it(
    connect: Connect,
) -> None:
    """A ruling pushed to the world's other clients carries its `action` id, `kind` and dice: the
    client that did not make it can undo it, and the undo is pushed back naming the ruling undone."""
    gm = await connect()
    await gm.request("sync", {"state": world_state()})
    other = await connect()
    roll = {"kind": "roll", "actor": "actor0", "pool": 3}
    made = await gm.action(roll, "roll-1")
    assert made["type"] == "result", made
    pushed = await other.receive()
    assert pushed["type"] == "patch"
    assert pushed["payload"]["action"] == "roll-1" and pushed["payload"]["kind"] == "roll"
    assert pushed["payload"]["rolls"] == made["payload"]["rolls"] != []
    hit = {"kind": "damage", "target": "actor0", "instances": [{"amount": 3, "grade": "L"}]}
    await gm.action(hit, "gm-hit")
    pushed = await other.receive()
    assert (pushed["payload"]["action"], pushed["payload"]["kind"]) == ("gm-hit", "damage")
    undone = await other.action({"kind": "undo", "action": pushed["payload"]["action"]}, "other-undo")
    assert undone["type"] == "result", undone
    back = await gm.receive()
    assert back["type"] == "patch" and back["payload"]["kind"] == "undo"
    assert back["payload"]["action"] == "other-undo"
    assert back["payload"]["log"][0]["data"] == {
        "key": "UNDO.undone",
        "action": "gm-hit",
        "kind": "damage",
        "rev": pushed["payload"]["rev"],
    }
    await gm.send("upsert", {"path": "/actors/actor0/name", "value": "Renamed"}, "rename")
    await gm.receive()
    pushed = await other.receive()
    assert pushed["payload"]["kind"] == "upsert" and "action" not in pushed["payload"]


async def test_a_conflict_caused_by_a_sync_names_it_without_an_action_id(connect: Connect) -> None:
    """A sync set Health back to what the VTT holds: the undo of the damage before it is a
    `conflict` naming the sync (kind and rev, no action id), and the frame fits the schema."""
    peer = await connect()
    await peer.request("sync", {"state": world_state()})
    hit = {"kind": "damage", "target": "actor0", "instances": [{"amount": 3, "grade": "L"}]}
    assert (await peer.action(hit, "hit"))["type"] == "result"
    synced = await peer.request("sync", {"state": world_state()}, "resync")
    refused = await peer.action({"kind": "undo", "action": "hit"})
    assert refused["payload"]["code"] == "conflict", refused
    named = [ruling for detail in refused["payload"]["details"] for ruling in detail["rulings"]]
    assert {"kind": "sync", "rev": synced["payload"]["rev"]} in named
    assert f"sync (rev {synced['payload']['rev']})" in refused["payload"]["message"]


async def test_a_redo_refused_by_a_conflict_names_the_later_ruling_to_undo_first(connect: Connect) -> None:
    """damage `hit`, undo it, damage `hit2`: the redo of `hit` is a `conflict` whose details name
    `hit2` at the Health path both set, whose message says to undo `hit2` first, and that changes
    nothing."""
    peer = await connect()
    await peer.request("sync", {"state": world_state()})
    document = await peer.state()
    hit = {"kind": "damage", "target": "actor0", "instances": [{"amount": 3, "grade": "L"}]}
    await ruled(peer, hit, "hit", document)
    await ruled(peer, {"kind": "undo", "action": "hit"}, "undo-hit", document)
    hit2 = await ruled(peer, {**hit, "instances": [{"amount": 1, "grade": "L"}]}, "hit2", document)
    refused = await peer.action({"kind": "redo", "action": "hit"}, "redo-hit")
    assert refused["type"] == "error" and refused["payload"]["code"] == "conflict", refused
    details = refused["payload"]["details"]
    assert ["actors", "actor0", "health", "lethal"] in [detail["path"] for detail in details]
    later = {"action": "hit2", "kind": "damage", "rev": hit2["rev"]}
    assert all(later in detail["rulings"] for detail in details), details
    message = refused["payload"]["message"]
    assert f"undo these first: damage 'hit2' (rev {hit2['rev']})" in message, message
    assert "redo these first" not in message
    assert await peer.state() == document  # refused: nothing changed, rev included


async def test_a_large_round_is_packed_for_undo_once_answered_and_its_retry_is_read_from_the_store(
    server: TestClient[web.Request, web.Application], connect: Connect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round whose reply is larger than `LARGEST_KEPT_REPLY` (10 kB here; a big scene's is tens of
    MB) is not kept for retries: a retry is answered from the store, read in the store's thread,
    the same reply marked `replayed`. Its ops and inverse are packed for undo after it is answered
    (`server._pack_later`), and its undo restores the document before it."""
    monkeypatch.setattr("vtt_bridge.engine.world.LARGEST_KEPT_REPLY", 10_000)
    bridge = server.app[BRIDGE]
    threads: list[str] = []
    reply = bridge.store.reply

    def read(world: str, action_id: str) -> tuple[bytes, str | None] | None:
        threads.append(threading.current_thread().name)
        return reply(world, action_id)

    monkeypatch.setattr(bridge.store, "reply", read)
    peer = await connect(contests=True)
    state = guard_among_hiders([f"h{i}" for i in range(40)], 100, 10)
    assert (await peer.request("sync", {"state": state}))["type"] == "result"
    document = await peer.state()
    await ruled(peer, {"kind": "round", "round": 2}, "r2", document)
    after_round_2 = without_rev(document)
    first = await ruled(peer, {"kind": "round", "round": 3}, "r3", document)
    world = bridge.worlds["w1"]
    stored = reply("w1", "r3")
    assert "r3" not in world.replies and stored is not None and len(stored[0]) > 10_000
    entry = world.history.by_id["r3"]
    for _ in range(3000):  # (30 s: a bound against a hang only)
        if isinstance(entry.forward, JsonOps) and entry.forward.is_packed:
            break
        await asyncio.sleep(0.01)
        entry = world.history.by_id["r3"]
    assert isinstance(entry.forward, JsonOps) and isinstance(entry.inverse, JsonOps)
    assert entry.forward.is_packed and entry.inverse.is_packed
    again = await peer.action({"kind": "round", "round": 3}, "r3")
    assert again["payload"] == {"replayed": True, **first}
    assert threads and all(name.startswith("vtt-bridge-store") for name in threads)
    assert await peer.state() == document  # the retry changed nothing
    await ruled(peer, {"kind": "undo", "action": "r3"}, "u3", document)
    assert without_rev(document) == after_round_2 == without_rev(await peer.state())
