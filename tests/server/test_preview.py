"""`query {kind: "preview"}` over the wire: an action ruled and thrown away. Nothing changes (rev,
state, the store's file, the other clients, the dice); the action sent afterwards lands exactly as
previewed (a damage, a batch with DET-10 halving, a roll of dice); bad input is refused as the action
itself is, its field paths under `action`."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.actions.test_batch import fire, table
from tests.conftest import Client, Connect, Peer, world_state
from vtt_bridge.engine.protocol import LOG_SHOWN
from vtt_bridge.server.bridge import BRIDGE


def stored(server: Client) -> list[Any]:
    """Every ruling the server's store holds for world w1, as it reads them back."""
    bridge = server.app[BRIDGE]
    return bridge.store.latest("w1", 1000, 1000)


async def previewed(peer: Peer, action: dict[str, Any]) -> dict[str, Any]:
    reply = await peer.request("query", {"kind": "preview", "action": action})
    assert reply["type"] == "result", reply
    payload: dict[str, Any] = reply["payload"]
    assert payload["patch"] == [] and payload["log"] == [], "the query itself changes nothing"
    data: dict[str, Any] = payload["data"]
    return data


async def landed(peer: Peer, action: dict[str, Any]) -> dict[str, Any]:
    reply = await peer.action(action)
    assert reply["type"] == "result", reply
    result: dict[str, Any] = reply["payload"]
    return result


async def test_a_preview_of_damage_changes_nothing_and_lands_as_previewed(
    connect: Connect, server: Client
) -> None:
    peer, other = await connect(), await connect()
    await peer.request("sync", {"state": world_state(actors=2)})
    assert (await other.receive())["type"] == "patch"
    before, rows = await peer.state(), stored(server)
    hit = {"kind": "damage", "target": "actor1", "instances": [{"amount": 4, "grade": "L"}]}
    data = await previewed(peer, hit)
    assert data["kind"] == "damage" and data["rev"] == before["rev"] + 1
    assert data["rolled"] is False and data["rolls"] == []
    assert any(op["path"].startswith("/actors/actor1/health") for op in data["patch"]), data["patch"]
    again = await previewed(peer, hit)
    assert again == data, "a preview twice gives the same answer"
    assert await peer.state() == before, "the document and its rev are as they were"
    assert stored(server) == rows, "the store wrote nothing"
    with pytest.raises(asyncio.TimeoutError):  # nothing was pushed to the other client
        await other.ws.receive(timeout=0.3)
    result = await landed(peer, hit)
    assert (result["rev"], result["patch"], result["log"], result["rolls"]) == (
        data["rev"],
        data["patch"],
        data["log"],
        data["rolls"],
    )
    assert stored(server) != rows, "the action itself is stored"


async def test_a_preview_of_a_batch_lands_as_previewed_with_each_targets_iwr_and_halving(
    connect: Connect,
) -> None:
    peer = await table(connect)
    before = await peer.state()
    # actor1 resists fire 5; actor2 is invisible to token0 (an attack at it counts half, DET-10)
    batch = {
        "kind": "batch",
        "actions": [fire("actor1"), fire("actor2", 9, token="token2"), fire("actor3", 5)],
    }
    data = await previewed(peer, batch)
    keys = [step.get("key") for step in data["log"]]
    assert keys.count("BATCH.item") == 3, keys
    assert await peer.state() == before
    result = await landed(peer, batch)
    assert (result["rev"], result["patch"], result["log"]) == (data["rev"], data["patch"], data["log"])
    assert result["rev"] == before["rev"] + 1, "one rev for the batch"


async def test_a_preview_of_a_roll_draws_the_dice_the_action_then_draws(connect: Connect) -> None:
    peer = await connect()
    await peer.request("sync", {"state": world_state()})
    roll = {"kind": "roll", "actor": "actor0", "pool": 12}
    first = await previewed(peer, roll)
    second = await previewed(peer, roll)
    assert first["rolled"] is True and first["rolls"], first
    assert second["rolls"] == first["rolls"], "the preview left the dice where they were"
    result = await landed(peer, roll)
    assert result["rolls"] == first["rolls"] and result["log"] == first["log"]
    after = await previewed(peer, roll)
    assert after["rolls"] != first["rolls"], "the action itself drew those dice; the next are new"


@pytest.mark.parametrize(
    ("query", "code", "path"),
    [
        pytest.param({"kind": "preview"}, "invalid", ["action"], id="no action"),
        pytest.param({"kind": "preview", "action": 3}, "invalid", ["action"], id="action not an object"),
        pytest.param(
            {"kind": "preview", "action": {"kind": "fly"}}, "bad_request", None, id="unknown action kind"
        ),
        pytest.param(
            {"kind": "preview", "action": {"kind": "damage", "target": "actor0", "instances": []}},
            "invalid",
            ["action", "instances"],
            id="no instances",
        ),
        pytest.param(
            {
                "kind": "preview",
                "action": {"kind": "damage", "target": "nobody", "instances": [{"amount": 1, "grade": "L"}]},
            },
            "not_found",
            ["action", "target"],
            id="unknown target",
        ),
        pytest.param(
            {"kind": "preview", "action": {"kind": "batch", "actions": [fire("actor0"), fire("ghost")]}},
            "not_found",
            ["action", "actions", 1, "target"],
            id="batch item unknown",
        ),
        pytest.param(
            {"kind": "preview", "action": {**fire("actor0"), "expectRev": 99}}, "stale", None, id="stale"
        ),
    ],
)
async def test_a_bad_preview_is_refused_as_the_action_is_and_changes_nothing(
    connect: Connect, server: Client, query: dict[str, Any], code: str, path: list[Any] | None
) -> None:
    peer = await connect()
    await peer.request("sync", {"state": world_state()})
    before, rows = await peer.state(), stored(server)
    reply = await peer.request("query", query)
    assert reply["type"] == "error", reply
    error = reply["payload"]
    assert error["code"] == code, error
    if path is not None:
        assert [d["path"] for d in error["details"]][:1] == [path], error
    if isinstance(query.get("action"), dict) and query["action"].get("kind") in ("damage", "batch"):
        direct = (await peer.action(dict(query["action"])))["payload"]
        assert direct["code"] == code, "the action itself is refused with the same code"
        assert ["action", *direct.get("details", [{}])[0].get("path", [])][: len(path or [])] == (path or [])
    assert await peer.state() == before and stored(server) == rows


async def test_a_preview_of_an_undo_changes_nothing(connect: Connect) -> None:
    peer = await connect()
    await peer.request("sync", {"state": world_state()})
    hit = {"kind": "damage", "target": "actor0", "instances": [{"amount": 3, "grade": "L"}]}
    assert (await peer.action(hit, "hit"))["type"] == "result"
    before = await peer.state()
    data = await previewed(peer, {"kind": "undo", "action": "hit"})
    assert await peer.state() == before
    result = await landed(peer, {"kind": "undo", "action": "hit"})
    assert (result["patch"], result["log"]) == (data["patch"], data["log"])


async def test_a_preview_of_a_long_batch_carries_its_whole_log_where_the_action_is_cut(
    connect: Connect,
) -> None:
    """A `result`'s log is cut to its first `LOG_SHOWN` steps (the ruling card's); the preview's
    `data.log` is the whole log the action would give, so the dialog reads every target's part."""
    peer = await connect()
    await peer.request("sync", {"state": world_state(actors=30)})
    hit = [{"amount": 3, "grade": "L"}]
    batch = {
        "kind": "batch",
        "actions": [{"kind": "damage", "target": f"actor{i}", "instances": hit} for i in range(30)],
    }
    data = await previewed(peer, batch)
    keys = [step.get("key") for step in data["log"]]
    assert len(data["log"]) > LOG_SHOWN, len(data["log"])
    assert keys.count("BATCH.item") == 30 and keys.count("HEALTH-2.damage") == 30, keys
    result = await landed(peer, batch)
    assert len(result["log"]) == LOG_SHOWN and result["summary"]["steps"] == len(data["log"])
    assert result["log"] == data["log"][:LOG_SHOWN], "what lands begins as previewed"
