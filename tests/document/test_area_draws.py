"""DET-4 on the map, in process: the areas a ruling draws come from the world's dice in the order of
the pairs (observers, then targets, sorted), one area after another, however many it draws at once
(`document.areas.rule_areas`), so a seeded world draws the same areas for the same rulings."""

from __future__ import annotations

import copy

import orjson

from tests.server.test_areas import scene_state
from vtt_bridge.document.areas import Areas, area_ops, area_radius_of
from vtt_bridge.document.models import (
    AreaMap,
    WorldState,
    dumped_in_parts,
    holders_of,
    settled,
    written_areas,
)
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World, area_dice
from vtt_bridge.rules.areas import draw_area, shared_area
from vtt_bridge.rules.common import STORED


def test_DET_4_a_move_draws_its_new_areas_one_pair_after_another_in_the_order_of_the_pairs() -> None:
    world = World("w", dice=area_dice("w", seed=3))
    synced = world.prepare_sync({"state": scene_state()}, "s")
    world.commit(synced, b"{}")
    before = world.state
    dice = copy.deepcopy(world.dice)  # the stream the world draws from next, replayed below
    # far away: every watcher's area of i0 is drawn again (w0, w1, w2: three areas from one stream)
    moved = world.prepare_action("m", {"kind": "move", "token": "i0", "x": 5000, "y": 4000}, SeededRoller(1))
    assert not isinstance(moved, bytes)
    after = settled(moved.state)
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


def test_DET_4_a_move_copies_no_row_and_its_ops_equal_a_comparison_of_whole_rows() -> None:
    world = World("w", dice=area_dice("w", seed=3))
    synced = world.prepare_sync({"state": scene_state()}, "s")
    world.commit(synced, b"{}")
    before = world.state
    rows = {o: (row, dict(row)) for o, row in before.areas.items()}
    moved = world.prepare_action("m", {"kind": "move", "token": "i0", "x": 5000, "y": 4000}, SeededRoller(1))
    assert not isinstance(moved, bytes)
    after = moved.state.areas
    assert type(after) is AreaMap and after.base is before.areas and after.cells is not None
    assert {o: list(cells) for o, cells in after.cells.items()} == {"w0": ["i0"], "w1": ["i0"], "w2": ["i0"]}
    assert all(after[o] is row for o, (row, _) in rows.items())  # the committed rows, not copies
    assert all(row == kept for row, kept in rows.values())  # nothing written into them yet
    named_olds: dict[str, object] = {}
    named = area_ops(before.areas, after, named_olds)
    compared_olds: dict[str, object] = {}
    compared = area_ops(before.areas, written_areas(after), compared_olds)
    assert named == compared and [op["path"] for op in named] == [f"/areas/w{n}/i0" for n in range(3)]
    assert named_olds == compared_olds
    world.commit(moved, b"{}")  # written into the very rows at commit
    assert all(world.state.areas[o] is row for o, (row, _) in rows.items())
    assert {o: list(row["i0"]) for o, row in world.state.areas.items()} == {
        op["path"].split("/")[2]: op["value"] for op in named
    }  # as the ops said


def test_DET_4_the_rows_a_ruling_names_added_dropped_or_changed_give_the_ops_a_comparison_gives() -> None:
    before: Areas = {
        "a": {"x": (1, 2, 300), "y": (3, 4, 300)},
        "b": {"x": (5, 6, 300), "y": (7, 8, 300)},
        "d": {"x": (9, 9, 300)},
    }
    after = AreaMap(before, holders_of(before), before)
    del after["a"]  # a row that goes whole
    after["c"] = {"y": (10, 11, 300)}  # a row that appears
    after.whole = ["a", "c"]
    assert after.cells is not None
    after.cells["b"] = {"x": (12, 13, 300), "y": None}  # one area redrawn, one dropped
    named_olds: dict[str, object] = {}
    named = area_ops(before, after, named_olds)
    compared_olds: dict[str, object] = {}
    compared = area_ops(before, written_areas(after), compared_olds)
    assert named == compared
    assert [(op["op"], op["path"]) for op in named] == [
        ("remove", "/areas/a"),
        ("add", "/areas/c"),
        ("remove", "/areas/b/y"),
        ("replace", "/areas/b/x"),
    ]
    assert named_olds == compared_olds


def test_DET_4_areas_read_back_from_the_store_share_their_whole_pixels_as_drawn_ones_do() -> None:
    world = World("w", dice=area_dice("w", seed=3))
    synced = world.prepare_sync({"state": scene_state()}, "s")
    world.commit(synced, b"{}")
    document = orjson.loads(orjson.dumps(dumped_in_parts(world.state)))
    read = WorldState.model_validate(document, context=STORED)
    assert read.areas == world.state.areas
    numbers = [n for row in read.areas.values() for area in row.values() for n in area]
    assert any(n > 256 for n in numbers)  # beyond the ints Python shares itself
    for n in numbers:  # each the very int a fresh equal one is shared as
        assert n is shared_area([int(str(n)), 0, 0])[0]
