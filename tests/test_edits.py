"""`Edited` maps: a ruling says which members it replaced, so the world skips the rest without a scan."""

from __future__ import annotations

from vtt_bridge.models import Actor, Edited, WorldState, edited_keys, replaced, seal
from vtt_bridge.rules.dice import SeededRoller
from vtt_bridge.world import World


def test_replaced_is_the_base_with_one_member_set_and_says_which() -> None:
    base = {"a": 1, "b": 2}
    after = replaced(base, "b", 3)
    assert after == {"a": 1, "b": 3} and base == {"a": 1, "b": 2}
    assert edited_keys(base, after) == {"b"}
    assert edited_keys(base, base) == set()


def test_edits_chain_within_a_ruling_and_unknown_maps_are_compared_whole() -> None:
    base = {"a": 1, "b": 2}
    twice = replaced(replaced(base, "a", 5), "c", 6)
    assert twice == {"a": 5, "b": 2, "c": 6}
    assert edited_keys(base, twice) == {"a", "c"}
    assert edited_keys({"a": 1, "b": 2}, twice) is None  # not the map it was made from
    assert edited_keys(base, dict(twice)) is None  # a plain copy knows nothing


def test_a_committed_state_forgets_its_edit_trail() -> None:
    state = WorldState(actors={"a": Actor(name="A"), "b": Actor(name="B")})
    edited = state.model_copy(update={"actors": replaced(state.actors, "a", Actor(name="A2"))})
    assert isinstance(edited.actors, Edited) and edited.actors.base is state.actors
    seal(edited)
    assert edited.actors.base is None
    assert edited_keys(state.actors, edited.actors) is None


def test_the_world_seals_each_committed_state_so_old_maps_are_not_kept_alive() -> None:
    world = World("w")
    world.commit(world.prepare_sync({"state": {"actors": {"hero": {"health": {"max": 9}}}}}), "")
    for i in range(3):
        pending = world.prepare_action(
            f"a{i}",
            {"kind": "damage", "target": "hero", "instances": [{"amount": 1, "grade": "B"}]},
            SeededRoller(1),
        )
        assert not isinstance(pending, str)
        assert isinstance(pending.state.actors, Edited) and pending.state.actors.base is world.state.actors
        world.commit(pending, "")
        assert isinstance(world.state.actors, Edited) and world.state.actors.base is None
    assert world.state.actors["hero"].health.bashing == 3
