"""`Ruling.written`: the Health and Willpower handlers say which fields of an actor they may have
replaced, and the world's diff and detection check look at those alone. Both must come out as
without the hint: every other field is the very same object, and the ops are the full diff's."""

from __future__ import annotations

from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine.test_undo import next_round, scene_world, scenes
from vtt_bridge.actions import Context
from vtt_bridge.actions.registry import ACTION_ADAPTER, HANDLERS
from vtt_bridge.document.models import WorldState, reaches_detection
from vtt_bridge.engine import patch
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World
from vtt_bridge.errors import Refusal

actor_ids = st.sampled_from(("a0", "a1", "a2"))
amounts = st.integers(0, 6)

health_actions = st.one_of(
    st.builds(
        lambda target, amount, grade, critical, unavoidable: {
            "kind": "damage",
            "target": target,
            "instances": [
                {"amount": amount, "grade": grade, "critical": critical, "unavoidable": unavoidable}
            ],
        },
        actor_ids,
        st.integers(0, 9),
        st.sampled_from(["B", "L", "A"]),
        st.booleans(),
        st.booleans(),
    ),
    st.builds(
        lambda target, n, source, grade: {
            "kind": "heal",
            "target": target,
            "amount": n,
            "source": source,
            "grade": grade,
        },
        actor_ids,
        amounts,
        st.sampled_from(["firstAid", "magic", "overseer", "shortRest", "longRest", "fastHealing"]),
        st.sampled_from(["B", "L", "A", "any"]),
    ),
    st.builds(
        lambda a, use, extended: {"kind": "spendWillpower", "actor": a, "use": use, "extended": extended},
        actor_ids,
        st.sampled_from(["roll", "defense", "stayConscious"]),
        st.booleans(),
    ),
    st.builds(
        lambda a, n, temporary: {"kind": "gainWillpower", "actor": a, "amount": n, "temporary": temporary},
        actor_ids,
        amounts,
        st.booleans(),
    ),
    st.builds(lambda a, n: {"kind": "loseWillpower", "actor": a, "amount": n}, actor_ids, amounts),
    st.builds(lambda a, n: {"kind": "changeWill", "actor": a, "delta": n}, actor_ids, st.integers(-3, 3)),
    st.builds(
        lambda a, n, effect: {"kind": "changeMaxHealth", "actor": a, "delta": n, **effect},
        actor_ids,
        st.integers(-5, 5),
        st.sampled_from([{}, {"effect": "curse"}]),
    ),
    st.builds(lambda a: {"kind": "endTemporaryMax", "actor": a, "effect": "curse"}, actor_ids),
    st.builds(lambda a, n: {"kind": "gainSecondHealth", "actor": a, "max": n}, actor_ids, st.integers(1, 4)),
    st.builds(lambda a, n: {"kind": "gainTempHp", "actor": a, "amount": n}, actor_ids, amounts),
    st.just({"kind": "round"}),  # the next round (`next_round`): worsening, staying conscious lapses
    st.builds(
        lambda a, condition: {
            "kind": "affect",
            "actor": a,
            "effect": {"rank": "C", "conditions": [condition]},
        },
        actor_ids,
        st.sampled_from(["blinded", "deafened", "prone"]),
    ),
)
"""Damage, healing, Willpower spent, gained, lost and its max changed, max Health changed for good
and for a while, a second track, temporary HP; between them new rounds and conditions (blinded and
deafened reach detection) so that the handlers meet actors in every state."""


def _fields_kept(before: WorldState, after: WorldState, written: dict[str, frozenset[str]]) -> None:
    for actor_id, fields in written.items():
        old, new = before.actors[actor_id].__dict__, after.actors[actor_id].__dict__
        assert old.keys() == new.keys()
        assert all(new[name] is old[name] for name in old.keys() - fields), actor_id


@settings(max_examples=80, deadline=None)
@given(scenes(), st.lists(health_actions, min_size=1, max_size=12), st.integers(0, 2**32))
def test_a_handler_replaces_no_field_of_an_actor_it_does_not_name_in_written(
    scene: dict[str, Any], steps: list[dict[str, Any]], seed: int
) -> None:
    world = scene_world(scene)
    for i, payload in enumerate(steps):
        payload = next_round(world, payload)
        kind = payload["kind"]
        _, handler = HANDLERS[kind]
        state = world.state
        try:
            action = ACTION_ADAPTER.validate_python(payload)
            ruling = handler(state, action, Context(roller=SeededRoller(seed)))
        except Refusal:
            continue
        if ruling.written:
            _fields_kept(state, ruling.state, dict(ruling.written))
            assert reaches_detection(state, ruling.state, ruling.written) == reaches_detection(
                state, ruling.state
            )
        try:
            pending = world.prepare_action(f"a{i}", payload, SeededRoller(seed))
        except RequestError:
            continue
        assert not isinstance(pending, bytes)
        world.commit(pending, "{}")


@settings(max_examples=80, deadline=None)
@given(scenes(), st.lists(health_actions, min_size=1, max_size=12), st.integers(0, 2**32))
def test_a_ruling_on_health_or_willpower_patches_and_inverts_as_the_full_diff_does(
    scene: dict[str, Any], steps: list[dict[str, Any]], seed: int
) -> None:
    world = scene_world(scene)
    for i, payload in enumerate(steps):
        before = world.state
        try:
            pending = world.prepare_action(f"a{i}", next_round(world, payload), SeededRoller(seed))
        except RequestError:
            continue
        assert not isinstance(pending, bytes) and pending.entry is not None
        full = patch.diff_states(before, pending.state, None if pending.detection else [])
        assert pending.result["patch"][1:-1] == full, payload
        assert list(pending.entry.forward) == full
        # as JSON: an area op holds its areas as tuples, the Reader's inverse as lists (the same arrays)
        inverse = orjson.loads(orjson.dumps(list(pending.entry.inverse or ())))
        assert inverse == orjson.loads(orjson.dumps(patch.inverse_ops(before, full)))
        world.commit(pending, "{}")


def test_the_world_reads_written_only_while_the_handlers_map_of_actors_stands() -> None:
    """Willpower lost to 0 under WP-5 knocks the actor out: the handler names only `willpower`, and
    the world's derivation then replaces the actor again (its status and conditions), in a map of
    its own; the hint no longer speaks of that map, so the world diffs the actor whole."""
    world = World("w")
    scene = {
        "settings": {"unconsciousAtZeroWillpower": True},
        "actors": {"hero": {"willpower": {"max": 2, "current": 1}}},
    }
    world.commit(world.prepare_sync({"state": scene}), "")
    lose = {"kind": "loseWillpower", "actor": "hero", "amount": 1}
    _, handler = HANDLERS["loseWillpower"]
    ruling = handler(world.state, ACTION_ADAPTER.validate_python(lose), Context(roller=SeededRoller(1)))
    assert ruling.written == {"hero": frozenset({"willpower"})}
    pending = world.prepare_action("a1", lose, SeededRoller(1))
    assert not isinstance(pending, bytes)
    paths = [op["path"] for op in pending.result["patch"][1:-1]]
    assert paths == [
        "/actors/hero/willpower/current",
        "/actors/hero/willpower/drained",
        "/actors/hero/conditions/unconscious",
    ]
    assert pending.result["patch"][1:-1] == patch.diff_states(world.state, pending.state, [])
