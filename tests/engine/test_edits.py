"""`Edited` maps: a ruling says which members it replaced, so the world skips the rest without a scan.
`Unapplied` matrices: a ruling's changed visibility cells reach the shared rows only when the world
commits it."""

from __future__ import annotations

from typing import Any

import jsonpatch
import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from vtt_bridge.document.models import (
    Actor,
    Edited,
    Unapplied,
    WorldState,
    edited_keys,
    pending_cells,
    replaced,
    seal,
    settled,
)
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World


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
        assert not isinstance(pending, bytes)
        assert isinstance(pending.state.actors, Edited) and pending.state.actors.base is world.state.actors
        world.commit(pending, "")
        assert isinstance(world.state.actors, Edited) and world.state.actors.base is None
    assert world.state.actors["hero"].health.bashing == 3


# --- Unapplied visibility cells ---------------------------------------------------------------------

SCOUT = {"humanoid": False, "detection": [{"name": "sight", "sense": "sight", "range": 30}]}
"""Sight to 30 m only (20 squares of 100 px at 1.5 m): a token farther off is lost."""
HOUND = {
    "humanoid": False,
    "detection": [
        {"name": "sight", "sense": "sight", "range": 15},
        {"name": "hearing", "sense": "hearing", "rank": "C", "capability": "approximate", "range": 45},
    ],
}
GHOST = {"antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}]}
TOKENS = 18


def scene_world() -> World:
    """Scouts, hounds, ghosts and ordinary people in a row, 2 squares apart."""
    kinds: list[dict[str, Any]] = [SCOUT, HOUND, GHOST, {}]
    world = World("w")
    state = {
        "scene": {"id": "s"},
        "actors": {f"a{i}": {"name": f"A{i}", **kinds[i % 4]} for i in range(TOKENS)},
        "tokens": {f"t{i}": {"actor": f"a{i}", "x": 200 * i, "y": 0} for i in range(TOKENS)},
    }
    world.commit(world.prepare_sync({"state": state}), "")
    return world


def move(world: World, index: int, token: int, x: int, y: int) -> Any:
    payload = {"kind": "move", "token": f"t{token}", "x": 100 * x, "y": 100 * y}
    pending = world.prepare_action(f"m{index}", payload, SeededRoller(1))
    assert not isinstance(pending, bytes)
    return pending


def test_a_move_leaves_its_cells_unapplied_in_the_shared_rows_until_the_world_commits_it() -> None:
    world = scene_world()
    rows = dict(world.state.visibility)
    pending = move(world, 0, 0, 0, 60)  # the scout walks 90 m away: nobody's sight reaches it
    cells = pending_cells(pending.state.visibility)
    assert isinstance(pending.state.visibility, Unapplied) and cells
    assert all(pending.state.visibility[o] is rows[o] for o in cells)  # no row was copied
    assert all(rows[o][t] != state for o, changed in cells.items() for t, state in changed.items())
    plain = settled(pending.state)
    assert plain.visibility == VisibilityIndex().recompute_visibility(pending.state) and not pending_cells(
        plain.visibility
    )
    world.commit(pending, "")
    assert world.state.visibility is pending.state.visibility and not pending_cells(world.state.visibility)
    assert all(rows[o][t] == state for o, changed in cells.items() for t, state in changed.items())
    assert world.state.visibility == VisibilityIndex().recompute_visibility(world.state)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["move", "move", "move", "add", "remove"]),
            st.integers(0, TOKENS - 1),
            st.integers(0, 70),
            st.integers(0, 70),
            st.booleans(),
        ),
        min_size=1,
        max_size=15,
    )
)
def test_rulings_committed_or_dropped_keep_the_matrix_equal_to_a_full_recompute(
    steps: list[tuple[str, int, int, int, bool]],
) -> None:
    """Moves, and tokens added and removed, ruled on: those the world drops (as when the store refuses
    them) change nothing; committed ones leave exactly the matrix a full recompute gives, and their
    patches turn each document into the next."""
    world = scene_world()
    document = world.state.model_dump(mode="json")
    for index, (kind, token, x, y, commit) in enumerate(steps):
        if kind == "move":
            if f"t{token}" not in world.state.tokens:
                continue
            pending = move(world, index, token, x, y)
        elif kind == "add":
            value = {"actor": f"a{token}", "x": 100 * x, "y": 100 * y}
            pending = world.prepare_upsert({"path": f"/tokens/n{index}", "value": value})
        else:
            if f"t{token}" not in world.state.tokens:
                continue
            pending = world.prepare_upsert({"path": f"/tokens/t{token}", "value": None})
        if not commit:
            assert world.state.model_dump(mode="json") == document
            continue
        document = jsonpatch.apply_patch(document, orjson.loads(orjson.dumps(pending.result["patch"])))
        assert settled(pending.state).model_dump(mode="json") == document
        world.commit(pending, "")
        assert world.state.model_dump(mode="json") == document
        assert world.state.visibility == VisibilityIndex().recompute_visibility(world.state)
