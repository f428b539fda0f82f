"""`vtt-bridge schema` is one JSON Schema document a third party can code against."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest

from tests.conftest import CLIENT_MESSAGE, SERVER_MESSAGE, Connect, FrameCheck, schema_error, world_state
from vtt_bridge.actions.registry import ACTION_ADAPTER, HANDLERS, QUERIES, QUERY_ADAPTER
from vtt_bridge.document.models import SERVER_WRITTEN_ACTOR_FIELDS
from vtt_bridge.engine.protocol import json_schema
from vtt_bridge.rules.conditions import DERIVED, Condition


def test_the_schema_is_valid_2020_12_and_defines_every_type_it_names() -> None:
    schema = json_schema(ACTION_ADAPTER, QUERY_ADAPTER)
    jsonschema.Draft202012Validator.check_schema(schema)
    named = set(re.findall(r'"\$ref": "#/\$defs/([^"]+)"', json.dumps(schema)))
    assert named - set(schema["$defs"]) == set()
    for name in ("DamageInstance", "HealSource", "Step", "ErrorCode", "Actor", "Token", "ClientMessage"):
        assert name in schema["$defs"], name
    # a validator resolves every reference (an unresolvable one raises here)
    validator = jsonschema.Draft202012Validator(schema)
    assert not list(
        validator.iter_errors({"v": 1, "id": "s1", "type": "patch", "payload": {"rev": 1, "patch": []}})
    )


def test_the_derived_fields_are_read_only_in_the_schema_as_the_rules_declare_them() -> None:
    """PROTOCOL.md "Derived fields": the schema marks each `readOnly`, the derived conditions from
    `rules.conditions.DERIVED` (so the module's copy can be checked against the sidecar's)."""
    defs = json_schema(ACTION_ADAPTER, QUERY_ADAPTER)["$defs"]
    actor, world = defs["Actor"]["properties"], defs["WorldState"]["properties"]
    assert {name for name, field in actor.items() if field.get("readOnly")} == SERVER_WRITTEN_ACTOR_FIELDS
    assert {"status", "woundPenalty"} == SERVER_WRITTEN_ACTOR_FIELDS
    assert {name for name, field in world.items() if field.get("readOnly")} == {
        "visibility",
        "contests",
        "areas",
    }
    conditions = actor["conditions"]["properties"]
    assert {name for name, field in conditions.items() if field["readOnly"]} == {c.value for c in DERIVED}
    assert {Condition.UNCONSCIOUS, Condition.WORSENING, Condition.DYING, Condition.DEAD} == DERIVED
    # readOnly is an annotation: a sync may still carry them (they are recomputed)
    state = {"actors": {"a": {"status": "dead", "conditions": {"dead": True, "prone": True}}}}
    assert (
        schema_error(CLIENT_MESSAGE, {"v": 1, "id": "s", "type": "sync", "payload": {"state": state}}) is None
    )
    bad = {"actors": {"a": {"conditions": {"dead": 1}}}}
    assert schema_error(CLIENT_MESSAGE, {"v": 1, "id": "s", "type": "sync", "payload": {"state": bad}})


def test_every_action_takes_expect_rev_and_every_kind_is_defined() -> None:
    defs = json_schema(ACTION_ADAPTER, QUERY_ADAPTER)["$defs"]
    mapping = defs["Action"]["discriminator"]["mapping"]
    assert set(mapping) == set(HANDLERS) | {"undo", "redo"}
    assert set(defs["Query"]["discriminator"]["mapping"]) == {"state", "preview", "ruling", *QUERIES}
    for kind, ref in mapping.items():
        assert defs[ref.removeprefix("#/$defs/")]["properties"]["expectRev"] == {
            "$ref": "#/$defs/ExpectRev"
        }, kind
    damage = {
        "kind": "damage",
        "target": "actor0",
        "instances": [{"amount": 2, "grade": "L"}],
        "expectRev": 3,
    }
    assert schema_error(CLIENT_MESSAGE, {"v": 1, "id": "a", "type": "action", "payload": damage}) is None


@pytest.mark.parametrize(
    "message",
    [
        pytest.param({"v": 1, "id": "a", "type": "nope", "payload": {}}, id="unknown type"),
        pytest.param({"v": 2, "id": "a", "type": "sync", "payload": {"state": {}}}, id="version 2"),
        pytest.param(
            {
                "v": 1,
                "id": "a",
                "type": "action",
                "payload": {"kind": "damage", "target": "a", "instances": []},
            },
            id="damage without instances",
        ),
        pytest.param(
            {"v": 1, "id": "a", "type": "action", "payload": {"kind": "round", "round": 1, "expectRev": -1}},
            id="negative expectRev",
        ),
        pytest.param(
            {"v": 1, "id": "a", "type": "hello", "payload": {"token": "t"}}, id="hello without world"
        ),
    ],
)
def test_the_schema_refuses_what_the_server_refuses(message: dict[str, Any]) -> None:
    assert schema_error(CLIENT_MESSAGE, message) is not None


def test_a_frame_the_schema_refuses_fails_the_frame_check() -> None:
    """The check every received frame goes through can fail (the hook in conftest.py)."""
    good = {"v": 1, "id": "s1", "re": "c1", "type": "error", "payload": {"code": "invalid", "message": "m"}}
    FrameCheck.check(json.dumps(good))
    for bad in (
        {**good, "payload": {"code": "no_such_code", "message": "m"}},
        {**good, "type": "welcome", "payload": {"protocol": 1}},
        {**good, "extra": 1},
    ):
        with pytest.raises(AssertionError, match="the schema refuses"):
            FrameCheck.check(json.dumps(bad))
    assert schema_error(SERVER_MESSAGE, good) is None


async def test_frames_received_over_a_real_socket_are_checked(connect: Connect) -> None:
    before = FrameCheck.checked
    peer = await connect()
    await peer.request("sync", {"state": world_state()})
    await peer.action({"kind": "round", "round": 2})
    assert FrameCheck.checked - before == 3, "welcome, and two results"
