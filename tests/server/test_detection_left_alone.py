"""What a ruling on Health asks of detection, over the wire (real server, store and websockets).

Detection (the matrix, the GM's pins, the areas) reads an actor's senses (DET-1..7), the tokens, the
scene and its own parts; a `damage` changes none of them, so the world leaves detection alone for
it: its patch names the damaged actor and nothing of detection. What a damage does change that
detection reads, an observer knocked out (HEALTH-3: unconscious), is read when the next contest is
made (DET-8: an unconscious observer spots nothing), and a ruling that does change an observer's
senses (blinded, DET-5) re-rules its row and its areas in the same reply.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import Connect, Peer
from tests.server.test_areas import approximate_pairs, check_invariant, ok, scene_state

DETECTION = ("/visibility", "/contests", "/areas", "/pins", "/reveals")


def _paths(result: dict[str, Any]) -> list[str]:
    return [op["path"] for op in result["patch"] if op["op"] != "test" and op["path"] != "/rev"]


async def _synced(peer: Peer) -> dict[str, Any]:
    state = scene_state()
    state["actors"]["aw0"]["health"] = {"max": 3}  # three lethal boxes knock watcher 0 out
    reply = await peer.request("sync", {"state": state})
    assert reply["type"] == "result", reply
    return await peer.state()


def _contests_of(result: dict[str, Any], observer: str) -> int:
    return sum(
        1 for step in result["log"] if step["key"] == "DET-8.contest" and step["data"]["observer"] == observer
    )


def _detection(state: dict[str, Any]) -> dict[str, Any]:
    return {name[1:]: state[name[1:]] for name in DETECTION}


async def test_HEALTH_2_a_damage_leaves_the_matrix_the_pins_and_the_areas_as_they_were(
    connect: Connect,
) -> None:
    peer = await connect()
    before = await _synced(peer)
    pinned = await ok(peer, {"kind": "pinLocate", "target": "i1", "observer": "w2", "state": "pinpointed",
                             "until": "scene", "by": "Gamemaster"})  # fmt: skip
    assert any(path.startswith("/pins") for path in _paths(pinned))
    before = await peer.state()
    assert approximate_pairs(before) and before["pins"]
    for target in ("aw0", "ai0", "ap"):  # a watcher, a hider, a plain actor
        result = await ok(
            peer, {"kind": "damage", "target": target, "instances": [{"amount": 1, "grade": "B"}]}
        )
        paths = _paths(result)
        assert paths and all(path.startswith(f"/actors/{target}/") for path in paths), paths
    after = await peer.state()
    assert _detection(after) == _detection(before)
    check_invariant(after)


async def test_DET_8_a_damage_that_knocks_an_observer_out_stops_its_contests_from_the_next_round(
    connect: Connect,
) -> None:
    peer = await connect()
    await _synced(peer)
    first = await ok(peer, {"kind": "round", "round": 2})
    assert _contests_of(first, "w0") > 0 and _contests_of(first, "w1") > 0
    knocked = await ok(peer, {"kind": "damage", "target": "aw0", "instances": [{"amount": 3, "grade": "L"}]})
    assert not any(path.startswith(DETECTION) for path in _paths(knocked))
    assert (await peer.state())["actors"]["aw0"]["conditions"].get("unconscious") is True
    second = await ok(peer, {"kind": "round", "round": 3})
    assert _contests_of(second, "w0") == 0  # read off the document the damage left
    assert _contests_of(second, "w1") > 0


async def test_DET_5_blinding_an_observer_re_rules_its_row_and_its_areas_in_the_same_reply(
    connect: Connect,
) -> None:
    peer = await connect()
    before = await _synced(peer)
    for watcher in ("w0", "w1"):
        assert (watcher, "i0") in approximate_pairs(before) and watcher in before["areas"]["i0"]
    blinded = await ok(peer, {"kind": "affect", "actor": "aw0", "effect": {"conditions": ["blinded"]}})
    reply = await peer.request("upsert", {"path": "/actors/aw1/conditions/blinded", "value": True})
    assert reply["type"] == "result", reply
    for watcher, result in (("w0", blinded), ("w1", reply["payload"])):
        paths = _paths(result)
        assert any(path.startswith(f"/visibility/{watcher}") for path in paths), paths
        assert f"/areas/i0/{watcher}" in paths, paths  # its area of i0 (one of i0's row) dropped
    after = await peer.state()
    assert not {("w0", "i0"), ("w1", "i0")} & approximate_pairs(after)  # sight gone: see-invisibility too
    check_invariant(after)
    # and a damage after it leaves the blinded rows as the blinding left them
    await ok(peer, {"kind": "damage", "target": "aw0", "instances": [{"amount": 1, "grade": "B"}]})
    assert _detection(await peer.state()) == _detection(after)
