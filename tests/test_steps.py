"""The step vocabulary (rules/steps.py): a short scene through the real world layer writes every
declared key, and each step of a key carries that key's fields (validated against the exported
schema), its subjects naming the scene's actors or tokens."""

from __future__ import annotations

from functools import cache
from typing import Any

import jsonschema
import pytest

from vtt_bridge.actions.registry import ACTION_ADAPTER, QUERY_ADAPTER
from vtt_bridge.bridge import SeededRoller
from vtt_bridge.protocol import json_schema
from vtt_bridge.rules.steps import STEPS
from vtt_bridge.world import World

ASSASSIN = {
    "name": "Assassin",
    "health": {"max": 6},
    "attributes": {"DEX": 5},
    "skills": {"stealth": 4},
    "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}],
}
GUARD = {"name": "Guard", "health": {"max": 7}, "attributes": {"PER": 3}, "skills": {"investigation": 2}}


def scene() -> dict[str, Any]:
    return {
        "scene": {"id": "keep", "round": 0, "gridDistance": 1.5, "gridSize": 100},
        "settings": {"woundPenalty": True},
        "actors": {
            "Actor.assassin": ASSASSIN,
            "Actor.bran": {**GUARD, "name": "Bran"},
            "Actor.cora": {**GUARD, "name": "Cora", "secondHealth": {"max": 3}},
        },
        "tokens": {
            "tokAssassin": {"actor": "Actor.assassin", "x": 200, "y": 0},
            "tokBran": {"actor": "Actor.bran", "x": 0, "y": 0},
            "tokCora": {"actor": "Actor.cora", "x": 400, "y": 0},
        },
    }


def tie() -> dict[str, list[int]]:
    return {"observer": [8, 1, 1, 1, 1], "target": [9] + [1] * 18}


def win() -> dict[str, list[int]]:
    return {"observer": [8, 8, 1, 1, 1], "target": [9] + [1] * 18}


@cache
def written() -> tuple[dict[str, Any], ...]:
    """Every step the short scene writes, as the wire shows them."""
    world = World("keep")
    roller = SeededRoller(3)
    log: list[dict[str, Any]] = []

    def commit(pending: Any) -> None:
        assert not isinstance(pending, str)
        log.extend(pending.result["log"])
        world.commit(pending, "{}")

    commit(world.prepare_sync({"state": scene()}))
    actions: list[dict[str, Any]] = [
        # out of combat, each guard's contest with the VTT's dice: PER 3 + Investigation 2 = 5
        # against DEX 5 + Stealth 4 + 10 (invisible) = 19: a tie (1 against 1), a win (2 against 1)
        {"kind": "contest", "observer": "tokBran", "target": "tokAssassin", "dice": tie()},
        {"kind": "contest", "observer": "tokCora", "target": "tokAssassin", "dice": win()},
        {"kind": "round", "round": 1},
        {"kind": "roll", "actor": "Actor.bran", "pool": ["PER", "investigation"]},
        {
            "kind": "roll",
            "actor": "Actor.bran",
            "pool": 4,
            "opponent": "Actor.assassin",
            "opposed": {"pool": 3},
        },
        {"kind": "damage", "target": "Actor.bran", "instances": [{"amount": 3, "grade": "L"}]},
        {"kind": "damage", "target": "Actor.bran", "instances": [{"amount": 3, "grade": "A"}]},
        {"kind": "roll", "actor": "Actor.bran", "pool": 5},
        {"kind": "damage", "target": "Actor.bran", "instances": [{"amount": 1, "grade": "B"}]},
        {"kind": "damage", "target": "Actor.cora", "instances": [{"amount": 8, "grade": "A"}]},
        {"kind": "damage", "target": "Actor.cora", "instances": [{"amount": 2, "grade": "L"}]},
        {"kind": "round", "round": 2},
        {"kind": "damage", "target": "Actor.assassin", "instances": [{"amount": 40, "grade": "A"}]},
    ]
    for index, action in enumerate(actions):
        commit(world.prepare_action(f"a{index}", action, roller))
    commit(world.prepare_action("undo", {"kind": "undo", "action": f"a{len(actions) - 1}"}, roller))
    commit(world.prepare_action("redo", {"kind": "redo", "action": f"a{len(actions) - 1}"}, roller))
    commit(world.prepare_upsert({"path": "/actors/Actor.bran/health/tempHp", "value": 2}))
    commit(
        world.prepare_action(
            "last",
            {"kind": "damage", "target": "Actor.bran", "instances": [{"amount": 1, "grade": "B"}]},
            roller,
        )
    )
    bruise = [{"amount": 1, "grade": "B"}]
    batch = [{"kind": "damage", "target": who, "instances": bruise} for who in ("Actor.bran", "Actor.cora")]
    commit(world.prepare_action("batch", {"kind": "batch", "actions": batch}, roller))
    pin = {"kind": "pinLocate", "observer": "tokBran", "target": "tokCora", "state": "unlocated"}
    commit(world.prepare_action("pin", {**pin, "until": {"round": 3}}, roller))
    commit(world.prepare_action("restart", {"kind": "round", "round": 0}, roller))
    log.extend(world.query({"kind": "explain", "observer": "tokBran", "target": "tokAssassin"})["log"])
    return tuple(log)


def by_key(key: str) -> list[dict[str, Any]]:
    return [step for step in written() if step.get("key") == key]


@cache
def catalogue() -> dict[str, dict[str, Any]]:
    schema = json_schema(ACTION_ADAPTER, QUERY_ADAPTER)
    return {entry["properties"]["key"]["const"]: entry for entry in schema["$defs"]["StepCatalogue"]["oneOf"]}


def test_the_exported_catalogue_is_the_declared_one() -> None:
    assert sorted(catalogue()) == sorted(STEPS)
    for key, spec in STEPS.items():
        assert key.startswith(spec.rule + "."), key
        assert set(spec.subjects) <= set(spec.fields)


def test_every_key_written_is_declared() -> None:
    assert {step["key"] for step in written() if "key" in step} <= set(STEPS)


@pytest.mark.parametrize("key", sorted(STEPS))
def test_a_step_of_each_key_carries_its_declared_fields_and_subjects(key: str) -> None:
    steps = by_key(key)
    assert steps, f"the scene writes no {key} step"
    ids = set(scene()["actors"]) | set(scene()["tokens"])
    for step in steps:
        jsonschema.validate(step, catalogue()[key])
        assert step["rule"] == STEPS[key].rule
        for subject in STEPS[key].subjects:
            assert step["data"][subject] in ids, (key, subject, step["data"][subject])


def test_each_contest_step_names_its_own_pair() -> None:
    contests = by_key("DET-8.contest")
    pairs = {(s["data"]["observer"], s["data"]["target"]) for s in contests}
    assert pairs >= {("tokBran", "tokAssassin"), ("tokCora", "tokAssassin")}


def test_the_second_track_worsening_says_second() -> None:
    [worse] = by_key("HEALTH-13.worsening")
    assert worse["data"]["track"] == "second" and worse["data"]["actor"] == "Actor.cora"
    assert all(s["data"]["track"] == "first" for s in by_key("HEALTH-4.worsening"))


def test_an_upsert_says_its_old_and_new_values() -> None:
    [upsert] = by_key("UPSERT.set")
    assert (upsert["data"]["old"], upsert["data"]["new"]) == (0, 2)


def test_the_wound_penalty_change_is_a_HEALTH_7_step() -> None:
    changes = by_key("HEALTH-7.change")
    assert changes and all(s["data"]["before"] != s["data"]["after"] for s in changes)


def test_DET_4_explain_answers_with_a_summary_first() -> None:
    world = World("keep")
    world.commit(world.prepare_sync({"state": scene()}), "{}")
    answer = world.query({"kind": "explain", "observer": "tokBran", "target": "tokAssassin"})
    first = answer["log"][0]
    assert first["key"] == "DET-4.summary"
    assert first["text"].startswith("tokBran locates tokAssassin unlocated")
