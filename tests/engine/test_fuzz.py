"""Any payload, valid or not: a ruling or a clear refusal, never another exception, never a half change.

Random actions, upserts and queries (known kinds and field names, values of every JSON type, known
ids and table values mixed with nonsense) go through the world layer one after another. Each is
either ruled on, and its patch turns the document before into the document after, or refused with a
`RequestError` that leaves the world's state the very same object.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import jsonpatch
import orjson
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.engine.test_world import synced_world
from vtt_bridge.actions.registry import ACTION_ADAPTER, HANDLERS, QUERIES, QUERY_ADAPTER
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World


def _field_names(schema: Any, into: set[str]) -> set[str]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                into.update(value)
            _field_names(value, into)
    elif isinstance(schema, list):
        for item in schema:
            _field_names(item, into)
    return into


FIELDS = sorted(
    _field_names(ACTION_ADAPTER.json_schema(by_alias=True), set())
    | _field_names(QUERY_ADAPTER.json_schema(by_alias=True), set())
)
WORDS = [
    "hero", "guard", "cat", "t-hero", "t-guard", "t-cat", "nobody", "B", "L", "A", "fire", "poison",
    "untyped", "shortRest", "longRest", "C", "S", "magical", "eastern", "hunger", "sight", "", "~", "/",
]  # fmt: skip
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 12),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(WORDS),
    st.text(max_size=6),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(FIELDS), inner, max_size=4),
    max_leaves=8,
)


def payloads(kinds: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda kind, fields: {"kind": kind, **fields},
        st.sampled_from(kinds),
        st.dictionaries(st.sampled_from(FIELDS), values, max_size=5),
    )


VALID_ACTIONS: list[dict[str, Any]] = [
    {"kind": "damage", "target": "hero", "instances": [{"amount": 3, "grade": "L"}]},
    {"kind": "damage", "target": "cat", "instances": [{"amount": 2, "grade": "A", "type": "fire"}]},
    {"kind": "heal", "target": "guard", "amount": 2, "source": "shortRest"},
    {"kind": "move", "token": "t-cat", "x": 300, "y": 100},
    {"kind": "round", "round": 2},
    {"kind": "spendWillpower", "actor": "hero"},
    {"kind": "gainTempHp", "actor": "cat", "amount": 2},
    {"kind": "contest", "observer": "t-guard", "target": "t-cat"},
]
VALID_QUERIES: list[dict[str, Any]] = [
    {"kind": "state"},
    {"kind": "explain", "observer": "t-guard", "target": "t-cat"},
]
VALID_UPSERTS: list[dict[str, Any]] = [
    {"path": "/actors/hero/conditions/blinded", "value": True},
    {"path": "/actors/cat/health/max", "value": 6},
    {"path": "/settings/woundPenalty", "value": True},
    {"path": "/tokens/t-hero/x", "value": 500},
]


def mutated(valid: list[dict[str, Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """A valid request, as is or with a field set to any value or dropped (the edge of validity)."""

    def mutate(base: dict[str, Any], changes: list[tuple[str, Any, bool]]) -> dict[str, Any]:
        out = copy.deepcopy(base)
        for key, value, drop in changes:
            if drop:
                out.pop(key, None)
            else:
                out[key] = value
        return out

    keys = st.sampled_from(sorted({key for request in valid for key in request} | set(FIELDS)))
    return st.builds(
        mutate, st.sampled_from(valid), st.lists(st.tuples(keys, values, st.booleans()), max_size=2)
    )


upserts = st.builds(
    lambda parts, value: {"path": "/" + "/".join(parts), "value": value},
    st.lists(st.sampled_from(["actors", "tokens", "scene", "settings", *WORDS, *FIELDS]), max_size=4),
    values,
)
requests = st.one_of(
    st.tuples(st.just("action"), payloads(sorted(HANDLERS)) | mutated(VALID_ACTIONS)),
    st.tuples(st.just("query"), payloads([*sorted(QUERIES), "state"]) | mutated(VALID_QUERIES)),
    st.tuples(st.just("upsert"), upserts | mutated(VALID_UPSERTS)),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(requests, min_size=1, max_size=12), st.integers(0, 2**32))
def test_any_request_is_ruled_on_or_refused_cleanly_and_never_half_applied(
    sequence: list[tuple[str, dict[str, Any]]], seed: int
) -> None:
    world: World = synced_world()
    roller = SeededRoller(seed)
    for index, (kind, payload) in enumerate(sequence):
        before = world.state
        document = before.model_dump(mode="json")
        try:
            if kind == "query":
                world.query(copy.deepcopy(payload))
                assert world.state is before
                continue
            if kind == "action":
                pending = world.prepare_action(f"f{index}", copy.deepcopy(payload), roller)
                assert not isinstance(pending, bytes)
            else:
                pending = world.prepare_upsert(copy.deepcopy(payload))
        except RequestError as error:
            event(f"{kind} refused: {error.payload()['code']}")
            assert world.state is before, (kind, payload)
            assert error.payload()["code"] in {"bad_request", "invalid", "not_found", "stale"}
            continue
        event(f"{kind} ruled on")
        patched = jsonpatch.apply_patch(document, orjson.loads(orjson.dumps(pending.result["patch"])))
        world.commit(pending, "")
        after = world.state.model_dump(mode="json")
        assert patched == after, (kind, payload)
        assert not _non_finite(after), (kind, payload)


def _non_finite(value: Any) -> bool:
    """Whether a JSON value holds NaN or an infinity anywhere (the document must stay plain JSON)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_non_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_non_finite(v) for v in value)
    return False
