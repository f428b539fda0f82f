"""DET-4 on the map, in process: the areas a ruling draws come from the world's dice in the order of
the pairs (targets, then observers, sorted), one area after another, however many it draws at once
(`document.areas.rule_areas`), so a seeded world draws the same areas for the same rulings."""

from __future__ import annotations

import copy
from typing import Any

import jsonpatch
import orjson

from tests.server.test_areas import scene_state
from vtt_bridge.document.areas import Areas, area_ops, area_radius_of, rule_areas
from vtt_bridge.document.models import (
    AreaMap,
    Unapplied,
    WorldState,
    dumped_in_parts,
    replaced,
    settled,
    written_areas,
)
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World, area_dice
from vtt_bridge.rules.areas import draw_area, shared_area, still_holds
from vtt_bridge.rules.common import STORED
from vtt_bridge.rules.detection import LocateState


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
    row = after.areas["i0"]
    redrawn = sorted(o for o, area in row.items() if area != before.areas["i0"].get(o))
    assert redrawn == ["w0", "w1", "w2"] == list(row)  # the row's observers in order
    one_by_one = {o: draw_area(token.x, token.y, radius, dice) for o in redrawn}
    assert row == one_by_one
    assert len(set(one_by_one.values())) == 3  # three draws, not one area thrice
    assert after.areas["i1"] is before.areas["i1"]  # the other hider's row stays the very same


def test_DET_4_a_far_move_sets_its_targets_row_whole_and_copies_no_other() -> None:
    """A far move's target changes every area of its row: the ruling's map holds a new row for it
    (named in `whole`, no cells), the committed one stays as it was until the commit, and every
    other row is the committed row itself. The ops name the row once, as a comparison does."""
    world = World("w", dice=area_dice("w", seed=3))
    synced = world.prepare_sync({"state": scene_state()}, "s")
    world.commit(synced, b"{}")
    before = world.state
    rows = {t: (row, dict(row)) for t, row in before.areas.items()}
    moved = world.prepare_action("m", {"kind": "move", "token": "i0", "x": 5000, "y": 4000}, SeededRoller(1))
    assert not isinstance(moved, bytes)
    after = moved.state.areas
    assert type(after) is AreaMap and after.base is before.areas and after.cells == {}
    assert after.whole == ["i0"] and after["i0"] is not rows["i0"][0]
    assert all(after[t] is row for t, (row, _) in rows.items() if t != "i0")  # not copies
    assert all(row == kept for row, kept in rows.values())  # the committed rows untouched
    named_undo: list[Any] = []
    named = area_ops(before.areas, after, named_undo)
    compared_undo: list[Any] = []
    compared = area_ops(before.areas, written_areas(after), compared_undo)
    assert named == compared and [(op["op"], op["path"]) for op in named] == [("replace", "/areas/i0")]
    old_row = rows["i0"][1]  # the areas as tuples (arrays in the JSON)
    assert named_undo == compared_undo == [{"op": "replace", "path": "/areas/i0", "value": old_row}]
    assert named[0]["value"] is not after["i0"]  # the new row copied: later commits write into it
    assert named_undo[0]["value"] is rows["i0"][0]  # the old row itself: no commit writes into it again
    world.commit(moved, b"{}")
    assert world.state.areas["i0"] == {o: tuple(a) for o, a in named[0]["value"].items()}  # as the op said


def test_DET_4_a_ruling_writes_the_cells_it_changed_into_the_committed_row_at_commit() -> None:
    """A pin that takes one area of a row that keeps others holds the change aside (`cells`): the
    committed row is read as it was until the commit, then the very same row loses the area."""
    world = World("w", dice=area_dice("w", seed=3))
    synced = world.prepare_sync({"state": scene_state()}, "s")
    world.commit(synced, b"{}")
    before = world.state
    row, kept = before.areas["i1"], dict(before.areas["i1"])
    pin = {"kind": "pinLocate", "target": "i1", "observer": "w0", "state": "pinpointed", "until": "scene"}
    pinned = world.prepare_action("p", pin, SeededRoller(1))
    assert not isinstance(pinned, bytes)
    after = pinned.state.areas
    assert type(after) is AreaMap and after.cells == {"i1": {"w0": None}} and after.whole == []
    assert after["i1"] is row and row == kept
    assert area_ops(before.areas, after) == [{"op": "remove", "path": "/areas/i1/w0"}]
    world.commit(pinned, b"{}")
    assert world.state.areas["i1"] is row and sorted(row) == ["w1", "w2"]


def test_DET_4_rows_a_ruling_adds_drops_replaces_or_changes_give_the_ops_a_comparison_gives() -> None:
    before: Areas = {
        "a": {"x": (1, 2, 300), "y": (3, 4, 300)},
        "b": {"x": (5, 6, 300), "y": (7, 8, 300), "z": (1, 1, 300)},
        "d": {"x": (9, 9, 300)},
        "e": {"x": (2, 2, 300), "y": (3, 3, 300)},
    }
    after = AreaMap(before, before)
    del after["a"]  # a row that goes whole
    after["c"] = {"y": (10, 11, 300)}  # a row that appears
    after["e"] = {"y": (4, 4, 300), "z": (5, 5, 300)}  # a row none of whose areas stays
    after.whole = ["a", "c", "e"]
    assert after.cells is not None
    after.cells["b"] = {"x": (12, 13, 300), "y": None}  # one area redrawn, one dropped, one kept
    named_undo: list[Any] = []
    named = area_ops(before, after, named_undo)
    compared_undo: list[Any] = []
    compared = area_ops(before, written_areas(after), compared_undo)
    assert named == compared
    assert [(op["op"], op["path"]) for op in named] == [
        ("remove", "/areas/a"),
        ("replace", "/areas/b/x"),
        ("remove", "/areas/b/y"),
        ("add", "/areas/c"),
        ("replace", "/areas/e"),
    ]
    assert named[-1]["value"] == {"y": (4, 4, 300), "z": (5, 5, 300)}  # as JSON: arrays
    assert named_undo == compared_undo
    assert orjson.loads(orjson.dumps(named_undo)) == [
        {"op": "add", "path": "/areas/a", "value": {"x": [1, 2, 300], "y": [3, 4, 300]}},
        {"op": "replace", "path": "/areas/b/x", "value": [5, 6, 300]},
        {"op": "add", "path": "/areas/b/y", "value": [7, 8, 300]},
        {"op": "remove", "path": "/areas/c"},
        {"op": "replace", "path": "/areas/e", "value": {"x": [2, 2, 300], "y": [3, 3, 300]}},
    ]
    undone = jsonpatch.apply_patch(  # the inverses, in reverse order, give `before` back
        {"areas": {t: {o: list(a) for o, a in row.items()} for t, row in written_areas(after).items()}},
        orjson.loads(orjson.dumps(named_undo[::-1])),
    )
    assert undone == {"areas": {t: {o: list(a) for o, a in row.items()} for t, row in before.items()}}


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


def test_DET_4_a_ruling_merges_its_cells_pairs_and_moved_rows_as_a_full_look_does() -> None:
    """`rule_areas` looks at each target's pairs from the matrix's unapplied cells, the ruling's
    other pairs and a moved target's row (its keys): it ends where the full look over every pair
    ends (`recheck`), drawing the same areas from the same dice."""
    world = World("w", dice=area_dice("w", seed=3))
    synced = world.prepare_sync({"state": scene_state()}, "s")
    world.commit(synced, b"{}")
    before = world.state
    assert type(before.visibility) is dict or type(before.visibility) is Unapplied
    # i0 goes far (its row redrawn whole), w0 no longer finds i1 (one area of i1's row dropped),
    # w1's own pairs (w1, i1) and (w1, p0) named by the ruling (nothing to change)
    moved = before.tokens["i0"].model_copy(update={"x": 5000, "y": 4000})
    after = before.model_copy(
        update={
            "tokens": replaced(before.tokens, "i0", moved),
            "visibility": Unapplied(before.visibility, {"w0": {"i1": LocateState.UNLOCATED}}),
        }
    )
    pairs = [("w1", "i1"), ("w1", "p0")]
    ruled = rule_areas(before, after, pairs, SeededRoller(5))
    looked = rule_areas(before, after, pairs, SeededRoller(5), recheck=True)
    assert type(ruled.areas) is AreaMap and ruled.areas.cells is not None  # the ruling's own way
    assert written_areas(ruled.areas) == written_areas(looked.areas)
    ops = area_ops(before.areas, ruled.areas)
    assert [(op["op"], op["path"]) for op in ops] == [("replace", "/areas/i0"), ("remove", "/areas/i1/w0")]
    assert sorted(ops[0]["value"]) == ["w0", "w1", "w2"]
    for area in ops[0]["value"].values():
        assert still_holds(tuple(area), 5000, 4000, area_radius_of(after))


def test_DET_4_a_target_beyond_twice_the_radius_from_where_it_stood_has_left_every_area_of_its_row() -> None:
    """Every area of a committed row holds where its target stood, so a target now farther than
    twice the radius (and a pixel) from there is outside them all: the row is not read (a row that
    broke the invariant shows it). Nearer, each area is read."""
    from vtt_bridge.document.areas import _left_every
    from vtt_bridge.document.models import Token

    was = Token(actor="a", x=1000, y=1000)
    broken = {"o": (1700, 1000, 300)}  # would hold the point below, but does not hold `was`
    assert _left_every(broken, was, (1602.0, 1000.0), 300)  # 602 > 2 * 300 + 1: not read
    assert not _left_every(broken, was, (1600.0, 1000.0), 300)  # 600: read, and it holds
    row = {"o": (1200, 1000, 300), "p": (800, 1000, 300)}
    assert _left_every(row, was, (1550.0, 1000.0), 300)  # outside both, read
    assert not _left_every(row, was, (1450.0, 1000.0), 300)  # inside o's


def test_DET_4_a_row_an_op_names_whole_is_never_written_into_by_a_later_commit() -> None:
    """A far move's op holds its target's new row as a copy (and its inverse the old row, which no
    commit writes into once replaced): a later pin's cell written into the committed row at its
    commit (`seal`) leaves both ops as they were sent, so undo reads what the ruling set."""
    world = World("w", dice=area_dice("w", seed=3))
    world.commit(world.prepare_sync({"state": scene_state()}, "s"), b"{}")
    moved = world.prepare_action("m", {"kind": "move", "token": "i0", "x": 5000, "y": 4000}, SeededRoller(1))
    assert not isinstance(moved, bytes) and moved.entry is not None
    sent = orjson.dumps([moved.result["patch"], moved.entry.inverse])
    world.commit(moved, b"{}")
    row = world.state.areas["i0"]
    assert [op["value"] for op in moved.result["patch"] if op["path"] == "/areas/i0"] == [row]
    pin = {"kind": "pinLocate", "target": "i0", "observer": "w0", "state": "pinpointed", "until": "scene"}
    pinned = world.prepare_action("p", pin, SeededRoller(2))
    assert not isinstance(pinned, bytes)
    world.commit(pinned, b"{}")
    assert world.state.areas["i0"] is row and "w0" not in row  # written into the very row
    assert orjson.dumps([moved.result["patch"], moved.entry.inverse]) == sent
