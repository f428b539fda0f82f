"""A ruling's JSON and the copies its clients are sent (`server.dumped_result`): the stored JSON
byte for byte what `dumps` gives a copy with `/contests` (its log and rolls cut, the whole of them in
parts for the store), each client's copy what `dumps(wire_payload(...))` gives
(its log and rolls cut, `/contests` left out unless it asked for them), and the pushed `patch` made
from that copy what `dumps(pushed_patch(...))` gives, for every kind of ruling."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from tests.detection_scenes import guard_among_hiders
from vtt_bridge.engine.history import stored_ops
from vtt_bridge.engine.protocol import LOG_SHOWN, ROLLS_SHOWN
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import Pending, World, replayed
from vtt_bridge.server import commit as commit_module
from vtt_bridge.server.commit import (
    _forward_json,
    _has_contests,
    _is_contests,
    _made,
    dumped_result,
    dumps,
    pushed_parts,
    pushed_patch,
    replayed_copy,
    wire_payload,
)
from vtt_bridge.server.outbox import Part
from vtt_bridge.store.pages import LOG, PAGED_FROM, PART_ITEMS, ROLLS
from vtt_bridge.store.pages import Part as LogPart

STATE = {
    "scene": {"id": "s"},
    "actors": {"a": {"name": "A", "health": {"max": 7}}, "b": {"name": "B"}},
    "tokens": {"ta": {"actor": "a", "x": 0, "y": 0}, "tb": {"actor": "b", "x": 100, "y": 0}},
}


def _joined(sent: bytes | list[Part]) -> bytes:
    return sent if isinstance(sent, bytes) else b"".join(sent)


def _cases() -> list[tuple[Pending, str]]:
    world = World("w")
    cases: list[tuple[Pending, str]] = []
    for state in (STATE, guard_among_hiders([f"h{i}" for i in range(200)], 100, 10)):
        sync = world.prepare_sync({"state": state}, f"sync-{len(cases)}")
        cases.append((sync, "sync"))
        world.commit(sync, dumps(sync.result))
        hurt = "a" if state is STATE else "guard"
        for action_id, payload in (
            (
                f"hit{len(cases)}",
                {"kind": "damage", "target": hurt, "instances": [{"amount": 2, "grade": "L"}]},
            ),
            (f"r{len(cases)}", {"kind": "round", "round": 1 if state is STATE else 2}),
            (f"u{len(cases)}", {"kind": "undo", "action": f"hit{len(cases)}"}),
        ):
            pending = world.prepare_action(action_id, payload, SeededRoller(1))
            assert isinstance(pending, Pending)
            cases.append((pending, str(payload["kind"])))
            world.commit(pending, dumps(pending.result))
    upsert = world.prepare_upsert({"path": "/actors/h1/name", "value": "Bea"}, "up-1")
    cases.append((upsert, "upsert"))
    return cases


def _check_parts(result: dict[str, Any], parts: list[LogPart] | None, whole: int) -> None:
    """A ruling's parts (`store.pages`): present when its log or rolls are cut or its JSON is
    large, and then each list's runs in order, whole, each the JSON of its items."""
    cut = len(result["log"]) > LOG_SHOWN or len(result["rolls"]) > ROLLS_SHOWN
    if parts is None:
        assert not cut and whole <= PAGED_FROM
        return
    assert cut or whole > PAGED_FROM
    for which, key in ((LOG, "log"), (ROLLS, "rolls")):
        runs = [part for part in parts if part.which == which]
        assert [part.first for part in runs] == list(range(0, max(1, len(result[key])), PART_ITEMS))
        items = [item for part in runs for item in orjson.loads(part.data)]
        assert items == orjson.loads(dumps(result[key]))
        assert all(part.total == len(result[key]) and part.length <= PART_ITEMS for part in runs)


def test_every_copy_is_the_json_of_what_it_carries() -> None:
    cut = contested = 0
    for pending, kind in _cases():
        result = pending.result
        for in_turns in (False, True):
            dumped = dumped_result(result, in_turns=in_turns)
            assert dumped.data == dumps(wire_payload(result, True)).encode()
            _check_parts(result, dumped.parts, len(dumps(result).encode()))
            for contests in (False, True):
                sent = dumped.sent(contests)
                sent_json = _joined(sent)
                assert sent_json == dumps(wire_payload(result, contests)).encode()
                assert (
                    b"".join(pushed_parts(pending, kind, sent, contests))
                    == dumps(pushed_patch(pending, kind, contests)).encode()
                )
        cut += len(result["log"]) > LOG_SHOWN
        contested += any(op["path"].startswith("/contests") for op in result["patch"])
    assert cut >= 1 and contested >= 2  # the hiders' round cut, its sync and round carry wins


def _ruled(world: World, action_id: str, payload: dict[str, Any]) -> Pending:
    pending = world.prepare_action(action_id, payload, SeededRoller(1))
    assert isinstance(pending, Pending)
    world.commit(pending, dumps(pending.result))
    return pending


def test_a_rulings_forward_ops_for_undo_are_its_replys_patch_without_the_rev(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`_made` keeps the forward ops' JSON the reply was made of (`Dumped.ops`), not dumped again:
    the same reply bytes, the same ops and JSON array as `stored_ops` dumps them, and the same
    inverse, for a move, a damage, a ruling that changed nothing, an undo and a redo (every patch
    taken apart here: `OPS_APART` 0)."""
    monkeypatch.setattr(commit_module, "OPS_APART", 0)
    world = World("w")
    world.commit(world.prepare_sync({"state": STATE}, "sync"), dumps({}))
    rulings = [
        _ruled(world, "m1", {"kind": "move", "token": "tb", "x": 900, "y": 40}),
        _ruled(world, "hit", {"kind": "damage", "target": "a", "instances": [{"amount": 2, "grade": "L"}]}),
        _ruled(world, "m2", {"kind": "move", "token": "tb", "x": 900, "y": 40}),
        _ruled(world, "u1", {"kind": "undo", "action": "hit"}),
        _ruled(world, "r1", {"kind": "redo", "action": "hit"}),
    ]
    taken = 0
    for pending in rulings:
        entry = pending.entry
        assert entry is not None and entry.inverse is not None
        dumped = dumped_result(pending.result)
        assert dumped.data == orjson.dumps(pending.result)
        ops = _forward_json(pending, dumped)
        assert ops is None or ops == orjson.dumps(list(entry.forward))
        taken += ops is not None
        kept, inverse = _made(pending, dumped)
        again = stored_ops(entry)
        assert kept is not None and again is not None
        assert kept[0] == again[0] and kept[0].data() == again[0].data() == orjson.dumps(list(entry.forward))
        assert kept[1].data() == again[1].data() and inverse == again[1].data()
    assert len(rulings[2].result["patch"]) == 2  # a move to the same place: nothing between the revs
    assert taken == len(rulings) - 1


def test_only_a_patch_of_more_ops_than_ops_apart_is_dumped_apart(monkeypatch: pytest.MonkeyPatch) -> None:
    """A patch of more than `OPS_APART` ops (a far move's tens) is dumped apart from its reply, and
    its JSON is what undo keeps (`Dumped.ops`); one of fewer (a damage's) is dumped with the reply
    and again for undo: the same reply bytes either way."""
    world = World("w")
    world.commit(world.prepare_sync({"state": STATE}, "sync"), dumps({}))
    move = _ruled(world, "m1", {"kind": "move", "token": "tb", "x": 900, "y": 40})
    hit = _ruled(world, "hit", {"kind": "damage", "target": "a", "instances": [{"amount": 2, "grade": "L"}]})
    moved, hurt = len(move.result["patch"]) - 2, len(hit.result["patch"]) - 2
    assert moved >= 1 and hurt >= 1
    for apart in sorted({0, hurt - 1, hurt, moved - 1, moved}):
        monkeypatch.setattr(commit_module, "OPS_APART", apart)
        for pending, count in ((move, moved), (hit, hurt)):
            dumped = dumped_result(pending.result)
            assert dumped.data == orjson.dumps(pending.result)
            assert (dumped.ops is not None) == (count > apart)
            assert pending.entry is not None
            assert _forward_json(pending, dumped) == (
                orjson.dumps(list(pending.entry.forward)) if count > apart else None
            )


def test_a_patch_not_the_rulings_own_keeps_its_ops_dumped_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`_forward_json` takes the reply's ops only when its patch is the ruling's (the rev's test,
    the entry's very ops, the rev's replace): a patch of other ops, or of another count, is not."""
    monkeypatch.setattr(commit_module, "OPS_APART", 0)
    world = World("w")
    world.commit(world.prepare_sync({"state": STATE}, "sync"), dumps({}))
    pending = _ruled(world, "m1", {"kind": "move", "token": "tb", "x": 900, "y": 40})
    patch = pending.result["patch"]
    assert _forward_json(pending, dumped_result(pending.result)) is not None
    for other in (
        [patch[0], *(dict(op) for op in patch[1:-1]), patch[-1]],  # equal ops, not the entry's
        patch[:-1],
        [*patch, patch[-1]],
    ):
        changed = pending._replace(result={**pending.result, "patch": other})
        assert _forward_json(changed, dumped_result(changed.result)) is None


def test_a_reply_carries_at_most_the_steps_and_rolls_a_card_shows_with_their_counts() -> None:
    """The round of 40 hiders: its copy holds the first LOG_SHOWN steps and ROLLS_SHOWN rolls, in
    order, and a summary counting all of them; without /contests ops unless asked for."""
    rounds = [p for p, kind in _cases() if kind == "round" and len(p.result["log"]) > LOG_SHOWN]
    assert rounds
    result = rounds[0].result
    plain: dict[str, Any] = orjson.loads(dumps(result))  # as JSON reads it (an area op holds tuples)
    assert len(result["rolls"]) > ROLLS_SHOWN
    wire: dict[str, Any] = orjson.loads(_joined(dumped_result(result).sent(False)))
    assert wire["log"] == result["log"][:LOG_SHOWN]
    assert wire["rolls"] == result["rolls"][:ROLLS_SHOWN]
    assert wire["summary"]["steps"] == len(result["log"])
    assert wire["summary"]["rolls"] == len(result["rolls"])
    assert sum(wire["summary"]["keys"].values()) == len(result["log"])
    assert not [op for op in wire["patch"] if op["path"].startswith("/contests")]
    assert [op for op in plain["patch"] if not op["path"].startswith("/contests")] == wire["patch"]
    asked: dict[str, Any] = orjson.loads(_joined(dumped_result(result).sent(True)))
    assert asked["patch"] == plain["patch"] and asked["log"] == wire["log"]


def test_a_retried_rounds_stored_reply_is_cut_as_its_first_answer_was() -> None:
    """Whether the store keeps the round's whole reply (layout 9 and before) or its cut one (layout
    10, `Dumped.data`), a retry answers each client with the bytes its first answer had."""
    rounds = [p for p, kind in _cases() if kind == "round" and len(p.result["log"]) > LOG_SHOWN]
    result = rounds[0].result
    dumped = dumped_result(result)
    for kept in (dumps(result).encode(), dumped.data):
        stored = replayed(kept)
        for contests in (False, True):
            again = replayed_copy(stored, contests)
            expected = orjson.loads(dumps(wire_payload(result, contests)))  # as JSON reads it
            assert orjson.loads(again) == {"replayed": True, **expected}
            assert again == replayed(_joined(dumped.sent(contests)))
    damage = replayed(b'{"rev":3,"patch":[],"log":[],"rolls":[]}')
    assert replayed_copy(damage, False) is damage  # nothing to leave out: the stored bytes


def test_a_patch_holds_contests_only_where_an_op_writes_them() -> None:
    """`_has_contests`' joined search answers as a look at each op (`_is_contests`) does."""
    patches: list[list[Any]] = [
        [],
        [{"op": "replace", "path": "/tokens/t1/x", "value": 1}],
        [{"op": "add", "path": "/actors/contests/name", "value": "x"}],  # `/contests`, not at the start
        [{"op": "add", "path": "/contestsx", "value": 1}],
        [{"op": "replace", "path": "/rev", "value": 2}, {"op": "replace", "path": "/contests", "value": {}}],
        [{"op": "remove", "path": "/contests/o1/t2"}],
        [{"op": "remove"}, {"op": "remove", "path": "/contests/o1"}],  # an op without a path
        [["not", "an", "op"], {"op": "add", "path": 7}],
        [{"op": "add", "path": "/areas/a\n/contests/b", "value": [1, 2, 3]}],
    ]
    expected = [False, False, False, False, True, True, True, False, False]
    assert [_has_contests(patch) for patch in patches] == expected
    assert [any(_is_contests(op) for op in patch) for patch in patches] == expected
