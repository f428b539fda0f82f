"""A ruling pushed to a world's other clients: its `patch` payload's JSON made from the result's
JSON already dumped (`server._pushed_parts`), byte for byte what `dumps(pushed_patch(...))`
gives, for every kind of ruling."""

from __future__ import annotations

import orjson

from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import Pending, World
from vtt_bridge.server.endpoint import _dumped_in_turns, _pushed_parts, dumps, pushed_patch

STATE = {
    "scene": {"id": "s"},
    "actors": {"a": {"name": "A", "health": {"max": 7}}, "b": {"name": "B"}},
    "tokens": {"ta": {"actor": "a", "x": 0, "y": 0}, "tb": {"actor": "b", "x": 100, "y": 0}},
}


def test_the_pushed_patch_is_the_result_json_with_its_kind_and_action_appended() -> None:
    world = World("w")
    sync = world.prepare_sync({"state": STATE}, "sync-1")
    cases = [(sync, "sync")]
    world.commit(sync, dumps(sync.result))
    for action_id, payload in (
        ("hit", {"kind": "damage", "target": "a", "instances": [{"amount": 2, "grade": "L"}]}),
        ("r1", {"kind": "round", "round": 1}),
        ("u", {"kind": "undo", "action": "hit"}),
    ):
        pending = world.prepare_action(action_id, payload, SeededRoller(1))
        assert isinstance(pending, Pending)
        cases.append((pending, str(payload["kind"])))
        world.commit(pending, dumps(pending.result))
    upsert = world.prepare_upsert({"path": "/actors/b/name", "value": "Bea"}, "up-1")
    cases.append((upsert, "upsert"))
    for pending, kind in cases:
        for result_json in (orjson.dumps(pending.result), _dumped_in_turns(pending.result)):
            assert (
                b"".join(_pushed_parts(pending, kind, result_json))
                == dumps(pushed_patch(pending, kind)).encode()
            )
