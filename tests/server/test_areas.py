"""DET-4 on the map over the wire: every approximate pair's area (`state.areas`), against the real
server, store and websocket: an area for exactly the approximate pairs, each holding its target;
stable while the target stays inside, drawn again when it leaves; a move's patch names only the
areas that changed; undo restores them; a seeded world draws the same areas; a restart keeps them;
a ruling refused (by the store, or mid-batch) leaves them as they were."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import jsonpatch
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient

from tests.conftest import Client, Connect, Peer, welcomed
from vtt_bridge.server.bridge import BRIDGE
from vtt_bridge.store import log as store_log

SEE_INVISIBLE_C = [
    {"name": "sight", "sense": "sight"},
    {"name": "see invisibility", "sense": "sight", "essence": "magical", "rank": "C"},
]
"""Ordinary sight plus a means of Rank C against invisibility: an invisible target of Rank C is
approximate to it (DET-7, equal Ranks)."""
INVISIBLE_C = [{"name": "invisibility", "essence": "magical", "rank": "C"}]


def scene_state(squares: int | None = None) -> dict[str, Any]:
    """Three watchers (w0..w2) who locate the invisible i0 and i1 approximately, and a plain p0
    whom everyone pinpoints and who cannot locate the invisible ones at all."""
    actors: dict[str, Any] = {}
    tokens: dict[str, Any] = {}
    for n in range(3):
        actors[f"aw{n}"] = {"name": f"Watcher {n}", "detection": SEE_INVISIBLE_C}
        tokens[f"w{n}"] = {"actor": f"aw{n}", "x": 100 * n, "y": 0}
    for n in range(2):
        actors[f"ai{n}"] = {"name": f"Hider {n}", "antiDetection": INVISIBLE_C}
        tokens[f"i{n}"] = {"actor": f"ai{n}", "x": 1000 + 400 * n, "y": 500}
    actors["ap"] = {"name": "Plain"}
    tokens["p0"] = {"actor": "ap", "x": 0, "y": 900}
    state: dict[str, Any] = {
        "scene": {"id": "s1", "round": 1, "gridSize": 100, "width": 8000, "height": 6000},
        "actors": actors,
        "tokens": tokens,
    }
    if squares is not None:
        state["settings"] = {"approximateSquares": squares}
    return state


async def synced(peer: Peer, squares: int | None = None) -> dict[str, Any]:
    reply = await peer.request("sync", {"state": scene_state(squares)})
    assert reply["type"] == "result", reply
    return await peer.state()


async def ok(peer: Peer, payload: dict[str, Any], msg_id: str | None = None) -> dict[str, Any]:
    reply = await peer.action(payload, msg_id)
    assert reply["type"] == "result", reply
    result: dict[str, Any] = reply["payload"]
    return result


def approximate_pairs(state: dict[str, Any]) -> set[tuple[str, str]]:
    return {(o, t) for o, row in state["visibility"].items() for t, code in row.items() if code == "a"}


def area_pairs(state: dict[str, Any]) -> set[tuple[str, str]]:
    """(observer, target) of every area: the areas are keyed by target, then observer."""
    return {(o, t) for t, row in state["areas"].items() for o in row}


def inside(area: list[float], token: dict[str, Any]) -> bool:
    return math.hypot(token["x"] - area[0], token["y"] - area[1]) <= area[2]


def check_invariant(state: dict[str, Any]) -> None:
    """An area for exactly the approximate pairs, each of the world's radius, holding its target."""
    assert area_pairs(state) == approximate_pairs(state)
    radius = state["settings"]["approximateSquares"] * state["scene"]["gridSize"]
    for o, t in area_pairs(state):
        area = state["areas"][t][o]
        assert area[2] == radius, (o, t, area)
        assert inside(area, state["tokens"][t]), (o, t, area, state["tokens"][t])


def area_ops(patch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [op for op in patch if op["path"].startswith("/areas")]


async def test_DET_4_every_approximate_pair_has_an_area_holding_its_target_and_no_other_pair_has_one(
    connect: Connect,
) -> None:
    peer = await connect()
    state = await synced(peer)
    pairs = approximate_pairs(state)
    assert pairs == {(f"w{n}", f"i{m}") for n in range(3) for m in range(2)}  # the scene is what it says
    check_invariant(state)
    assert ("p0", "i0") not in area_pairs(state)  # unlocated: no area
    assert ("w0", "p0") not in area_pairs(state)  # pinpointed: no area
    # the target is not at the middle of its areas: six draws, none centred on it
    assert all(
        state["areas"][t][o][:2] != [state["tokens"][t]["x"], state["tokens"][t]["y"]] for o, t in pairs
    )
    # a pin makes a pair approximate: it gets an area (p0's first: its row is added whole); a pin
    # to pinpointed takes one away (one of i0's three: only that area goes)
    result = await ok(
        peer,
        {"kind": "pinLocate", "target": "p0", "observer": "w0", "state": "approximate", "until": "scene"},
    )
    ops = area_ops(result["patch"])
    assert [(op["op"], op["path"], list(op["value"])) for op in ops] == [("add", "/areas/p0", ["w0"])]
    result = await ok(
        peer, {"kind": "pinLocate", "target": "i0", "observer": "w1", "state": "pinpointed", "until": "scene"}
    )
    assert area_ops(result["patch"]) == [{"op": "remove", "path": "/areas/i0/w1"}]
    check_invariant(await peer.state())


async def test_DET_4_an_area_stays_while_its_target_moves_inside_and_a_target_that_leaves_gets_a_new_one(
    connect: Connect,
) -> None:
    peer = await connect()
    before = await synced(peer)
    area = before["areas"]["i0"]["w0"]
    # one square towards the centre of w0's area: inside it still; the other observers' areas are
    # each checked (an area the target left is drawn again, the others stay)
    token = before["tokens"]["i0"]
    step = (
        100 / math.hypot(area[0] - token["x"], area[1] - token["y"])
        if area[:2] != [token["x"], token["y"]]
        else 0
    )
    x = round(token["x"] + (area[0] - token["x"]) * min(step, 1))
    y = round(token["y"] + (area[1] - token["y"]) * min(step, 1))
    result = await ok(peer, {"kind": "move", "token": "i0", "x": x, "y": y})
    after = await peer.state()
    check_invariant(after)
    assert after["areas"]["i0"]["w0"] == area  # it stayed inside w0's area: the area stays put
    kept = {o for o in ("w0", "w1", "w2") if inside(before["areas"]["i0"][o], after["tokens"]["i0"])}
    assert "w0" in kept
    changed = {op["path"] for op in area_ops(result["patch"])}
    assert changed == {f"/areas/i0/{o}" for o in {"w0", "w1", "w2"} - kept}  # only those it left
    # far away: every area of it is drawn again, around the new position, and nothing else changes
    result = await ok(peer, {"kind": "move", "token": "i0", "x": 5000, "y": 4000})
    far = await peer.state()
    check_invariant(far)
    assert far["areas"]["i1"] == before["areas"]["i1"]  # the other hider's stay


async def test_DET_4_a_far_move_patches_its_targets_row_of_areas_in_one_op(connect: Connect) -> None:
    """The areas are keyed by target: a target that leaves every area of it gets its row replaced
    whole, one op holding every observer's new area, not an op per observer."""
    peer = await connect()
    before = await synced(peer)
    result = await ok(peer, {"kind": "move", "token": "i0", "x": 5000, "y": 4000})
    far = await peer.state()
    check_invariant(far)
    ops = area_ops(result["patch"])
    assert [(op["op"], op["path"]) for op in ops] == [("replace", "/areas/i0")]
    row = ops[0]["value"]
    assert sorted(row) == ["w0", "w1", "w2"] and row == far["areas"]["i0"]
    assert all(inside(area, far["tokens"]["i0"]) for area in row.values())
    assert all(row[o] != before["areas"]["i0"][o] for o in row)


async def test_DET_4_a_move_that_changes_no_area_carries_none_and_an_observer_moving_keeps_its_areas(
    connect: Connect,
) -> None:
    peer = await connect()
    before = await synced(peer)
    result = await ok(peer, {"kind": "move", "token": "w1", "x": 150, "y": 100})
    assert area_ops(result["patch"]) == []
    assert (await peer.state())["areas"] == before["areas"]


async def test_DET_4_undo_restores_the_areas_a_move_drew_and_redo_draws_them_as_they_were(
    connect: Connect,
) -> None:
    peer = await connect()
    before = await synced(peer)
    await ok(peer, {"kind": "move", "token": "i1", "x": 6000, "y": 100}, msg_id="far-1")
    moved = await peer.state()
    assert moved["areas"]["i1"]["w0"] != before["areas"]["i1"]["w0"]
    undo = await ok(peer, {"kind": "undo", "action": "far-1"})
    undone = await peer.state()
    assert undone["areas"] == before["areas"]
    assert [(op["op"], op["path"]) for op in area_ops(undo["patch"])] == [("replace", "/areas/i1")]
    check_invariant(undone)
    await ok(peer, {"kind": "redo", "action": "far-1"})
    assert (await peer.state())["areas"] == moved["areas"]


async def test_DET_4_a_seeded_world_draws_the_same_areas_and_another_seed_others(start: Any) -> None:
    async def areas_of(seed: int) -> Any:
        client: Client = await start(seed=seed)
        peer = await welcomed(client)
        await synced(peer)
        await ok(peer, {"kind": "move", "token": "i0", "x": 4000, "y": 3000})
        await ok(peer, {"kind": "round", "round": 2})
        return (await peer.state())["areas"]

    first, again, other = await areas_of(7), await areas_of(7), await areas_of(8)
    assert first == again
    assert first != other


async def test_DET_4_the_radius_is_approximate_squares_times_the_grid_and_a_change_draws_every_area(
    connect: Connect,
) -> None:
    peer = await connect()
    state = await synced(peer, squares=2)
    assert {area[2] for row in state["areas"].values() for area in row.values()} == {200}
    reply = await peer.request("upsert", {"path": "/settings/approximateSquares", "value": 5})
    assert reply["type"] == "result", reply
    wider = await peer.state()
    check_invariant(wider)
    assert {area[2] for row in wider["areas"].values() for area in row.values()} == {500}
    refused = await peer.request("upsert", {"path": "/settings/approximateSquares", "value": 0})
    assert refused["type"] == "error" and refused["payload"]["code"] == "invalid"
    assert (await peer.state())["areas"] == wider["areas"]  # refused: nothing changed


async def test_DET_4_a_sync_of_the_same_scene_keeps_the_areas_and_a_restart_reads_them_back(
    start: Any, tmp_path: Path
) -> None:
    client: Client = await start(data_dir=tmp_path / "kept")
    peer = await welcomed(client)
    first = await synced(peer)
    await synced(peer)  # the module reconnects: the same scene again
    assert (await peer.state())["areas"] == first["areas"]
    await ok(peer, {"kind": "move", "token": "i0", "x": 3000, "y": 3000})
    moved = (await peer.state())["areas"]
    await peer.ws.close()
    await client.close()
    again: Client = await start(data_dir=tmp_path / "kept")
    reread = await welcomed(again)
    assert (await reread.state())["areas"] == moved


async def test_DET_4_explain_says_where_an_area_came_from(connect: Connect) -> None:
    peer = await connect()
    state = await synced(peer)
    reply = await peer.request("query", {"kind": "explain", "observer": "w2", "target": "i1"})
    assert reply["type"] == "result", reply
    last = reply["payload"]["log"][-1]
    assert last["key"] == "DET-4.area"
    area = state["areas"]["i1"]["w2"]
    assert [last["data"]["x"], last["data"]["y"], last["data"]["r"]] == area
    assert last["data"]["squares"] == 3 and last["data"]["holds"] is True
    pinpointed = await peer.request("query", {"kind": "explain", "observer": "w2", "target": "p0"})
    assert all(step["key"] != "DET-4.area" for step in pinpointed["payload"]["log"])


async def test_DET_4_a_far_move_the_store_refuses_leaves_the_committed_areas_untouched(
    connect: Connect, server: TestClient[web.Request, web.Application]
) -> None:
    """The move's areas are written into the rows only once the store has the ruling (`AreaMap`):
    a real SQLite refusal (the connection made read-only) leaves every area as it was, and the same
    action ruled again once the store can write draws them from the committed rows."""
    peer = await connect()
    before = await synced(peer)
    store = server.app[BRIDGE].store
    move = {"kind": "move", "token": "i0", "x": 5000, "y": 4000}
    store._db.execute("PRAGMA query_only = 1")
    refused = await peer.action(move, msg_id="far-refused")
    assert refused["type"] == "error" and refused["payload"]["code"] == "storage", refused
    assert await peer.state() == before  # the areas (and everything else) as they were
    store._db.execute("PRAGMA query_only = 0")
    result = await ok(peer, move, msg_id="far-refused")
    after = await peer.state()
    assert [op["path"] for op in area_ops(result["patch"])] == ["/areas/i0"]
    assert jsonpatch.apply_patch(before, result["patch"]) == after
    check_invariant(after)


async def test_DET_4_a_batch_refused_mid_way_leaves_the_areas_untouched(connect: Connect) -> None:
    """A batch whose first item would make a pair approximate (an area drawn) and whose second breaks
    a rule is refused whole: no area drawn, none dropped."""
    peer = await connect()
    before = await synced(peer)
    batch = {
        "kind": "batch",
        "actions": [
            {"kind": "pinLocate", "target": "p0", "observer": "w0", "state": "approximate", "until": "scene"},
            {"kind": "pinLocate", "target": "i0", "observer": "w1", "state": "pinpointed", "until": "scene"},
            {
                "kind": "pinLocate",
                "target": "nobody",
                "observer": "w1",
                "state": "approximate",
                "until": "scene",
            },
        ],
    }
    refused = await peer.action(batch)
    assert refused["type"] == "error", refused
    assert await peer.state() == before
    result = await ok(peer, {**batch, "actions": batch["actions"][:2]})
    assert sorted((op["op"], op["path"]) for op in area_ops(result["patch"])) == [
        ("add", "/areas/p0"),
        ("remove", "/areas/i0/w1"),
    ]
    check_invariant(await peer.state())


async def test_DET_4_a_snapshot_taken_with_a_far_move_holds_the_areas_it_drew(
    start: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a snapshot at every ruling (`store.SNAPSHOT_EVERY`), the snapshot of a far move is written
    before the move's areas are in the rows (`AreaMap`): it holds them all the same, and a restart
    reads them back from it."""
    monkeypatch.setattr(store_log, "SNAPSHOT_EVERY", 1)
    client: Client = await start(data_dir=tmp_path / "kept")
    peer = await welcomed(client)
    before = await synced(peer)
    await ok(peer, {"kind": "move", "token": "i0", "x": 5000, "y": 4000})
    await ok(peer, {"kind": "move", "token": "i1", "x": 6000, "y": 100})
    moved = await peer.state()
    assert all(
        moved["areas"][t][f"w{n}"] != before["areas"][t][f"w{n}"] for n in range(3) for t in ("i0", "i1")
    )
    await peer.ws.close()
    await client.close()
    again: Client = await start(data_dir=tmp_path / "kept")
    reread = await welcomed(again)
    assert (await reread.state())["areas"] == moved["areas"]
