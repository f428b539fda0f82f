"""DET-4 on the map, in process: the areas a ruling draws come from the world's dice in the order of
the pairs (observers, then targets, sorted), one area after another, however many it draws at once
(`document.areas.rule_areas`), so a seeded world draws the same areas for the same rulings."""

from __future__ import annotations

import copy

from tests.server.test_areas import scene_state
from vtt_bridge.document.areas import EditedAreas, area_ops, area_radius_of
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World, area_dice
from vtt_bridge.rules.areas import draw_area


def test_DET_4_a_move_draws_its_new_areas_one_pair_after_another_in_the_order_of_the_pairs() -> None:
    world = World("w", dice=area_dice("w", seed=3))
    synced = world.prepare_sync({"state": scene_state()}, "s")
    world.commit(synced, b"{}")
    before = world.state
    dice = copy.deepcopy(world.dice)  # the stream the world draws from next, replayed below
    # far away: every watcher's area of i0 is drawn again (w0, w1, w2: three areas from one stream)
    moved = world.prepare_action("m", {"kind": "move", "token": "i0", "x": 5000, "y": 4000}, SeededRoller(1))
    assert not isinstance(moved, bytes)
    after = moved.state
    token, radius = after.tokens["i0"], area_radius_of(after)
    redrawn = sorted(
        o for o, row in after.areas.items() if row.get("i0") != before.areas.get(o, {}).get("i0")
    )
    assert redrawn == ["w0", "w1", "w2"]
    one_by_one = {o: draw_area(token.x, token.y, radius, dice) for o in redrawn}
    assert {o: after.areas[o]["i0"] for o in redrawn} == one_by_one
    assert len(set(one_by_one.values())) == 3  # three draws, not one area thrice
    for observer, row in after.areas.items():  # the other hider's areas stay the very same
        assert row["i1"] is before.areas[observer]["i1"]


def test_DET_4_the_ops_of_the_rows_a_ruling_names_equal_a_comparison_of_whole_rows() -> None:
    world = World("w", dice=area_dice("w", seed=3))
    synced = world.prepare_sync({"state": scene_state()}, "s")
    world.commit(synced, b"{}")
    before = world.state
    moved = world.prepare_action("m", {"kind": "move", "token": "i0", "x": 5000, "y": 4000}, SeededRoller(1))
    assert not isinstance(moved, bytes)
    after = moved.state.areas
    assert type(after) is EditedAreas and after.base is before.areas
    assert after.edited == {"w0": {"i0"}, "w1": {"i0"}, "w2": {"i0"}}
    assert all(type(row) is dict for row in after.values())  # copies a table clone can make
    named_olds: dict[str, object] = {}
    named = area_ops(before.areas, after, named_olds)
    compared_olds: dict[str, object] = {}
    compared = area_ops(before.areas, {o: dict(row) for o, row in after.items()}, compared_olds)
    assert named == compared and [op["path"] for op in named] == [f"/areas/w{n}/i0" for n in range(3)]
    assert named_olds == compared_olds
