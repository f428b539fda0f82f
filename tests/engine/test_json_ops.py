"""Undo's ops as JSON in parts (`engine.history.JsonOps`): a ruling's few ops in one part, many in
parts of `OPS_CHUNK`, and the same JSON array and ops back however they came; an undo `Entry` made
in one go; the handlers' context a world keeps; a handler's `Ruling`."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, fields, replace

import orjson
import pytest

from vtt_bridge.actions import Ruling
from vtt_bridge.document.models import WorldState
from vtt_bridge.engine.history import OPS_CHUNK, Entry, JsonOps
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World


@pytest.mark.parametrize("count", [0, 1, 2, OPS_CHUNK, OPS_CHUNK + 1, 3 * OPS_CHUNK + 5])
def test_ops_in_parts_give_back_their_json_array_and_ops(count: int) -> None:
    ops = tuple({"op": "replace", "path": f"/actors/a{i}/health/bashing", "value": i} for i in range(count))
    for given in (ops, list(ops), iter(ops)):
        kept = JsonOps.of(given)
        assert kept.data() == orjson.dumps(list(ops))
        assert kept.ops() == ops
        assert kept.nbytes == sum(
            len(orjson.dumps(list(ops[at : at + OPS_CHUNK]))) for at in range(0, count, OPS_CHUNK)
        )


def test_an_entry_made_in_one_go_is_the_frozen_dataclass_it_was() -> None:
    """`Entry`'s own `__init__` (its fields written at once) keeps the dataclass': every field in
    order (a field added to the class and not to its `__init__` fails here), its defaults, frozen,
    equal field by field, and `dataclasses.replace` works on it."""
    ops = ({"op": "replace", "path": "/actors/a/health/bashing", "value": 1},)
    inverse = ({"op": "replace", "path": "/actors/a/health/bashing", "value": 0},)
    names = [field.name for field in fields(Entry)]
    for args, named, every in (
        (("a1", 3, "damage", ops, inverse), {}, ("a1", 3, "damage", ops, inverse, None, None, 0)),
        (("u1", 4, "undo", ops, inverse, "a1"), {"size": 9}, ("u1", 4, "undo", ops, inverse, "a1", None, 9)),
        ((None, 5, "sync", ops, None), {"reason": "a sync"}, (None, 5, "sync", ops, None, None, "a sync", 0)),
    ):
        made = Entry(*args, **named)
        assert list(vars(made)) == names
        assert vars(made) == dict(zip(names, every, strict=True))
        assert made == Entry(*every) and made != replace(made, rev=made.rev + 1)
        assert replace(made, size=7).size == 7 and replace(made, size=7).kind == made.kind
        with pytest.raises(FrozenInstanceError):
            made.rev = 9  # type: ignore[misc]


def test_a_worlds_handlers_roll_the_dice_each_action_is_given() -> None:
    """The handlers' context is kept for the dice a world was last given: an action given other
    dice rolls those (each seeded roller's dice go on from where they were)."""

    def world() -> World:
        made = World("w")
        pending = made.prepare_sync({"state": {"actors": {"hero": {"name": "Hero"}}}})
        made.commit(pending, b"{}")
        return made

    def dice(on: World, action_id: str, roller: SeededRoller) -> list[int]:
        ruled = on.prepare_action(action_id, {"kind": "roll", "actor": "hero", "pool": 12}, roller)
        assert not isinstance(ruled, bytes)
        on.commit(ruled, b"{}")
        return list(ruled.result["rolls"][0]["dice"])

    shared, first, second = world(), SeededRoller(1), SeededRoller(2)
    got = [dice(shared, "a", first), dice(shared, "b", second), dice(shared, "c", first)]
    alone_first, alone_second = SeededRoller(1), SeededRoller(2)
    apart = world()
    assert got[0] == dice(apart, "a", alone_first)
    assert got[1] == dice(world(), "b", alone_second)
    assert got[2] == dice(apart, "c", alone_first)
    assert got[1] != got[0]


def test_a_ruling_made_in_one_go_is_the_frozen_dataclass_it_was() -> None:
    """`Ruling`'s own `__init__` (its fields written at once) keeps the dataclass': every field, its
    defaults, frozen, equal field by field, and `dataclasses.replace` works on it."""
    state = WorldState()
    ruling = Ruling(state)
    assert (ruling.state, ruling.log, ruling.rolls, ruling.derived) == (state, (), (), frozenset())
    assert list(vars(ruling)) == [field.name for field in fields(Ruling)]
    named = Ruling(state=state, derived=frozenset({"a"}))
    assert named == Ruling(state, (), (), frozenset({"a"})) and named != ruling
    assert replace(named, log=()).derived == frozenset({"a"})
    with pytest.raises(FrozenInstanceError):
        named.log = ()  # type: ignore[misc]
