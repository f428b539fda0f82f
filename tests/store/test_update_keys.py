"""Map keys that the VTT writes as segments of its dot-path updates (issue 14), over the wire.

Foundry expands every '.' of an update key into nesting and reads a leading '-=' or '==' as its
deletion or replacement operator, so such a key would come back from the VTT changed (and the next
`sync` refused). The sidecar refuses them at the door, with `invalid` and the field's path, for
`sync` and for `upsert`; actor uuids keep their dots (they are never an update key).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests.conftest import Connect, world_state
from vtt_bridge.document.models import WorldState
from vtt_bridge.rules.common import STORED
from vtt_bridge.store.log import Store

POOL = {
    "name": "Potion",
    "category": "special",
    "keyAttributes": ["STA"],
    "max": 2,
    "current": 2,
}
GAUGE = {"name": "Rage", "max": 3, "current": 0, "source": "Berserker"}
HEALTH = {"max": 7, "temporaryMax": {}}

BAD_KEYS = ["Potion 1.5", "St. Elmo", "-=gone", "==whole"]

# (actor field, the value with the key in it, the path below the field)
FIELDS: list[tuple[str, Any, list[Any]]] = [
    ("energyPools", lambda key: {key: POOL}, []),
    ("gauges", lambda key: {key: GAUGE}, []),
    ("skills", lambda key: {key: 2}, []),
    ("conditions", lambda key: {key: True}, []),
    ("conditionPoints", lambda key: {key: 1}, []),
    ("emotionPoints", lambda key: {key: 1}, []),
    ("health", lambda key: {**HEALTH, "temporaryMax": {key: 2}}, ["temporaryMax"]),
]

CASES = [
    pytest.param(field, make, below, key, id=f"{field}:{key}")
    for field, make, below in FIELDS
    for key in BAD_KEYS
]


def _refused_at(reply: dict[str, Any], prefix: list[Any], key: str) -> None:
    assert reply["type"] == "error", reply
    assert reply["payload"]["code"] == "invalid", reply
    paths = [detail["path"] for detail in reply["payload"]["details"]]
    assert any(path[: len(prefix)] == prefix and key in path for path in paths), paths
    assert any("'.'" in detail["message"] for detail in reply["payload"]["details"]), reply


@pytest.mark.parametrize(("field", "make", "below", "key"), CASES)
async def test_sync_refuses_a_map_key_foundry_would_expand(
    connect: Connect, field: str, make: Any, below: list[Any], key: str
) -> None:
    peer = await connect("w1")
    state = world_state()
    state["actors"]["actor0"][field] = make(key)
    reply = await peer.request("sync", {"state": state})
    _refused_at(reply, ["state", "actors", "actor0", field, *below], key)
    assert (await peer.state())["rev"] == 0, "nothing was stored"


@pytest.mark.parametrize(("field", "make", "below", "key"), CASES)
async def test_upsert_refuses_a_map_key_foundry_would_expand(
    connect: Connect, field: str, make: Any, below: list[Any], key: str
) -> None:
    peer = await connect("w1")
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    reply = await peer.request("upsert", {"path": f"/actors/actor0/{field}", "value": make(key)})
    _refused_at(reply, ["value", field, *below], key)
    assert (await peer.state())["rev"] == 1, "nothing changed"


@pytest.mark.parametrize("key", BAD_KEYS)
async def test_sync_refuses_a_token_id_foundry_would_expand(connect: Connect, key: str) -> None:
    peer = await connect("w1")
    state = world_state()
    state["tokens"][key] = state["tokens"].pop("token1")
    reply = await peer.request("sync", {"state": state})
    _refused_at(reply, ["state", "tokens", key], key)


@pytest.mark.parametrize("key", BAD_KEYS)
async def test_upsert_refuses_a_token_id_foundry_would_expand(connect: Connect, key: str) -> None:
    peer = await connect("w1")
    assert (await peer.request("sync", {"state": world_state()}))["type"] == "result"
    reply = await peer.request("upsert", {"path": f"/tokens/{key}", "value": {"actor": "actor0"}})
    assert reply["payload"]["code"] == "invalid", reply
    assert reply["payload"]["details"][0]["path"] == ["path"]
    assert "'.'" in reply["payload"]["message"]
    assert (await peer.state())["rev"] == 1, "nothing changed"


async def test_keys_with_dashes_and_actor_uuids_with_dots_stay_allowed(connect: Connect) -> None:
    """'flat-footed', 'a-b=c', '=x' are plain keys to Foundry; 'Actor.abc' is never an update key."""
    peer = await connect("w1")
    state = world_state()
    state["actors"] = {"Actor.abc": {**state["actors"]["actor0"], "conditions": {"flat-footed": True}}}
    state["actors"]["Actor.abc"]["conditionPoints"] = {"a-b=c": 1, "=x": 2, "-x": 3}
    state["tokens"] = {"token0": {"actor": "Actor.abc", "x": 0, "y": 0}}
    reply = await peer.request("sync", {"state": state})
    assert reply["type"] == "result", reply
    actor = (await peer.state())["actors"]["Actor.abc"]
    assert actor["conditions"]["flat-footed"] is True
    assert actor["conditionPoints"] == {"a-b=c": 1, "=x": 2, "-x": 3}


def test_a_store_written_before_the_check_is_still_recovered(tmp_path: Path) -> None:
    """A dotted key an earlier sidecar accepted stays readable from the store (no world is lost);
    only new input is refused."""
    doc = world_state()
    doc["actors"]["actor0"]["conditionPoints"] = {"St. Elmo": 1}
    stored = WorldState.model_validate({**doc, "rev": 1}, context=STORED)
    store = Store(tmp_path / "vtt-bridge.sqlite3")
    try:
        store.append("w", 1, None, json.dumps({"rev": 1, "patch": []}), stored)
    finally:
        store.close()
    store = Store(tmp_path / "vtt-bridge.sqlite3")
    try:
        recovered = store.recover("w", 10)
    finally:
        store.close()
    assert recovered.state.actors["actor0"].condition_points == {"St. Elmo": 1}
    with pytest.raises(ValidationError):
        WorldState.model_validate(doc)
