"""`batch` over the wire: one `damage` ruling per target, ruled as one (atomic: one rev, one patch, one
undo; a refused item refuses the whole batch and changes nothing), each target's IWR steps after its
own `BATCH.item` step; DET-10 attacks in a batch (halved, missed)."""

from __future__ import annotations

from typing import Any

from tests.conftest import Connect, Peer, world_state
from tests.server.test_pins import INVISIBLE, ok, pin
from vtt_bridge.actions.batch import BATCH_LIMIT


async def table(connect: Connect) -> Peer:
    """Three targets: actor1 resists fire 5, actor2 is invisible (not pinpointed by token0)."""
    peer = await connect()
    state = world_state(actors=4)
    state["scene"]["width"] = 4000
    state["scene"]["height"] = 3000
    state["actors"]["actor1"]["iwr"] = {"resistances": [{"type": "fire", "value": 5}]}
    state["actors"]["actor2"]["antiDetection"] = INVISIBLE
    assert (await peer.request("sync", {"state": state}))["type"] == "result"
    return peer


def fire(target: str, amount: int = 12, **attack: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "kind": "damage",
        "target": target,
        "instances": [{"amount": amount, "grade": "L", "type": "fire"}],
    }
    if attack:
        body["attack"] = {"attacker": "token0", "successes": 4, **attack}
    return body


OFF = {"x": -5, "y": 1}
"""A guess off the scene."""


def items(log: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The log split at its `BATCH.item` steps, each part without its header."""
    parts: list[list[dict[str, Any]]] = []
    for step in log:
        if step.get("key") == "BATCH.item":
            parts.append([])
        else:
            parts[-1].append(step)
    return parts


async def test_a_batch_is_one_ruling_with_each_targets_own_iwr_steps(connect: Connect) -> None:
    peer = await table(connect)
    rev = (await peer.state())["rev"]
    result = await ok(peer, {"kind": "batch", "actions": [fire("actor1"), fire("actor3", 5)]})
    assert result["rev"] == rev + 1, "one rev for the whole batch"
    headers = [step for step in result["log"] if step.get("key") == "BATCH.item"]
    assert [h["data"] for h in headers] == [
        {"index": 0, "number": 1, "count": 2, "kind": "damage", "target": "actor1"},
        {"index": 1, "number": 2, "count": 2, "kind": "damage", "target": "actor3"},
    ]
    first, second = items(result["log"])
    resisted = [s for s in first if s["rule"] == "IWR-7" and s["data"]["before"] != s["data"]["after"]]
    assert [(s["data"]["before"], s["data"]["after"]) for s in resisted] == [(12, 7)]  # 12 fire -> 7
    assert not any(s["rule"] == "IWR-7" for s in second), "actor3 resists nothing"
    actors = (await peer.state())["actors"]
    assert actors["actor1"]["health"]["lethal"] == 7 and actors["actor3"]["health"]["lethal"] == 5
    # the patch names both actors, once each, between one test and one rev
    paths = [op["path"] for op in result["patch"]]
    assert paths[0] == "/rev" and paths[-1] == "/rev"
    assert "/actors/actor1/health/lethal" in paths and "/actors/actor3/health/lethal" in paths


async def test_a_batch_rules_each_item_on_the_state_the_one_before_left(connect: Connect) -> None:
    """Two items on one actor (two tokens of a linked actor): the second finds the first's boxes,
    and the actor is derived again between them (its status after both)."""
    peer = await table(connect)
    await ok(peer, {"kind": "batch", "actions": [fire("actor3", 4), fire("actor3", 3)]})
    actor = (await peer.state())["actors"]["actor3"]
    assert actor["health"]["lethal"] == 7 and actor["status"] != "healthy"


async def test_a_refused_item_refuses_the_whole_batch_and_changes_nothing(connect: Connect) -> None:
    peer = await table(connect)
    before = await peer.state()
    bad: list[tuple[dict[str, Any], str, list[Any]]] = [
        (
            {"kind": "batch", "actions": [fire("actor1"), fire("nobody")]},
            "not_found",
            ["actions", 1, "target"],
        ),
        (
            {"kind": "batch", "actions": [fire("actor1"), fire("actor2", token="token2", guess=OFF)]},
            "invalid",
            ["actions", 1, "attack", "guess"],
        ),
        ({"kind": "batch", "actions": []}, "invalid", ["actions"]),
        ({"kind": "batch", "actions": [fire("actor1")] * (BATCH_LIMIT + 1)}, "invalid", ["actions"]),
        ({"kind": "batch", "actions": [{"kind": "heal", "target": "actor1", "amount": 1}]}, "invalid", []),
        ({"kind": "batch", "actions": [{**fire("actor1"), "instances": []}]}, "invalid", ["actions", 0]),
    ]
    for body, code, path in bad:
        reply = await peer.action(body)
        assert reply["type"] == "error", (body, reply)
        assert reply["payload"]["code"] == code, reply
        assert reply["payload"]["message"]
        if path:
            found = [d["path"][: len(path)] for d in reply["payload"]["details"]]
            assert path in found, (path, reply["payload"])
    assert await peer.state() == before, "the first item of a refused batch was not applied either"


async def test_DET_10_attacks_in_a_batch_halved_missed_and_in_full(connect: Connect) -> None:
    """A player's attack on three targets: pinpointed (full), approximate (halved), unlocated at a
    wrong square (a miss: its actor untouched)."""
    peer = await table(connect)
    await ok(peer, pin("token3", "approximate", "scene", observer="token0"))
    await ok(peer, pin("token2", "unlocated", "scene", observer="token0"))
    result = await ok(
        peer,
        {
            "kind": "batch",
            "actions": [
                fire("actor1", 12, token="token1"),
                fire("actor3", 10, token="token3"),
                fire("actor2", 6, token="token2", guess={"x": 1050, "y": 1050}),
            ],
        },
    )
    full, halved, missed = items(result["log"])
    assert full[1]["text"] == "attack: counts in full"
    assert any(s["data"] and s["data"].get("after") == [5] for s in halved)
    assert missed[1]["key"] == "DET-10.guessWrong"
    assert (missed[1]["data"]["guessed"], missed[1]["data"]["right"]) == (True, False)
    actors = (await peer.state())["actors"]
    assert actors["actor1"]["health"]["lethal"] == 7  # 12 - resistance 5
    assert actors["actor3"]["health"]["lethal"] == 5  # 10 halved
    assert actors["actor2"]["health"]["lethal"] == 0  # missed


async def test_a_batch_is_undone_as_one(connect: Connect) -> None:
    peer = await table(connect)
    before = (await peer.state())["actors"]
    reply = await peer.action({"kind": "batch", "actions": [fire("actor1"), fire("actor3")]}, msg_id="b-1")
    assert reply["type"] == "result", reply
    undo = await ok(peer, {"kind": "undo", "action": "b-1"})
    assert undo["log"][0]["data"]["kind"] == "batch"
    assert (await peer.state())["actors"] == before
