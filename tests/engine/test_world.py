"""The world layer's patches: after any sequence of rulings, each result's patch turns the document
before it into exactly the document after it (the identity-based builder never misses a change)."""

from __future__ import annotations

import copy
import gc
import weakref
from typing import Any

import jsonpatch
import orjson
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tests.detection_scenes import ASSASSIN, DOG, GUARD, WIZARD, actor, guard_among_hiders
from vtt_bridge.document.models import settled
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.engine import patch as patches
from vtt_bridge.engine import world as world_module
from vtt_bridge.engine.refusals import RequestError
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World
from vtt_bridge.errors import AnsweredLongAgo

ACTORS = ("hero", "guard", "cat")
TOKENS = {"t-hero": "hero", "t-guard": "guard", "t-cat": "cat"}


def synced_world() -> World:
    world = World("w")
    state = {
        "scene": {"id": "s", "round": 1, "gridDistance": 5, "gridSize": 100},
        "settings": {"woundPenalty": True},
        "actors": {
            "hero": {"name": "Hero", "health": {"max": 7}, "willpower": {"max": 3, "current": 3}},
            "guard": {
                "name": "Guard",
                "health": {"max": 5},
                "secondHealth": {"max": 3},
                "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}],
            },
            "cat": {
                "name": "Cat",
                "humanoid": False,
                "health": {"max": 4},
                "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}],
            },
        },
        "tokens": {tid: {"actor": aid, "x": 100 * i, "y": 0} for i, (tid, aid) in enumerate(TOKENS.items())},
    }
    pending = world.prepare_sync({"state": state})
    world.commit(pending, "")
    return world


grades = st.sampled_from(["B", "L", "A"])
actor_ids = st.sampled_from(ACTORS)
token_ids = st.sampled_from(tuple(TOKENS))
rulings = st.one_of(
    st.builds(
        lambda target, amount, grade, critical: (
            "action",
            {
                "kind": "damage",
                "target": target,
                "instances": [{"amount": amount, "grade": grade, "critical": critical}],
            },
        ),
        actor_ids,
        st.integers(0, 9),
        grades,
        st.booleans(),
    ),
    st.builds(
        lambda target, n: ("action", {"kind": "heal", "target": target, "amount": n, "source": "shortRest"}),
        actor_ids,
        st.integers(0, 4),
    ),
    st.builds(lambda r: ("action", {"kind": "round", "round": r}), st.integers(2, 50)),
    st.builds(
        lambda token, x, y: ("action", {"kind": "move", "token": token, "x": x, "y": y}),
        token_ids,
        st.integers(0, 3000),
        st.integers(0, 3000),
    ),
    st.builds(
        lambda observer, target: ("action", {"kind": "contest", "observer": observer, "target": target}),
        token_ids,
        token_ids,
    ),
    st.builds(lambda actor: ("action", {"kind": "spendWillpower", "actor": actor}), actor_ids),
    st.builds(
        lambda actor, on: ("upsert", {"path": f"/actors/{actor}/conditions/blinded", "value": on}),
        actor_ids,
        st.booleans(),
    ),
    st.builds(
        lambda actor, boxes: ("upsert", {"path": f"/actors/{actor}/health/max", "value": boxes}),
        actor_ids,
        st.integers(3, 12),
    ),
    st.builds(lambda on: ("upsert", {"path": "/settings/woundPenalty", "value": on}), st.booleans()),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(rulings, min_size=1, max_size=25), st.integers(0, 2**32))
def test_every_result_patch_turns_the_document_before_into_the_document_after(
    steps: list[tuple[str, dict[str, Any]]], seed: int
) -> None:
    world = synced_world()
    roller = SeededRoller(seed)
    document = world.state.model_dump(mode="json")
    for index, (kind, payload) in enumerate(steps):
        try:
            if kind == "action":
                pending = world.prepare_action(f"a{index}", payload, roller)
                assert not isinstance(pending, bytes)
            else:
                pending = world.prepare_upsert(payload)
        except RequestError:
            continue  # refused by the rules (e.g. no Willpower left): nothing changed
        ops = pending.result["patch"]
        assert ops[0] == {"op": "test", "path": "/rev", "value": world.rev}
        assert all(op["op"] in ("test", "add", "remove", "replace") for op in ops)
        document = jsonpatch.apply_patch(copy.deepcopy(document), orjson.loads(orjson.dumps(ops)))
        world.commit(pending, "")
        assert document == world.state.model_dump(mode="json"), (kind, payload)
    patches.apply(document, [{"op": "test", "path": "/rev", "value": world.rev}])


def test_a_world_keeps_the_replies_of_its_latest_actions_within_a_count_and_a_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Replies are kept for retries of recent actions (count and bytes bounded, the newest always);
    every action id stays answered, so an older retry is refused to rule twice."""
    monkeypatch.setattr(world_module, "RECENT_REPLY_BYTES", 2_500)
    world = synced_world()
    world.recent = 4
    roller = SeededRoller(1)
    hit = {"kind": "damage", "target": "hero", "instances": [{"amount": 1, "grade": "B"}]}
    for i in range(6):
        pending = world.prepare_action(f"a{i}", hit, roller)
        assert not isinstance(pending, bytes)
        world.commit(pending, "x" * (1_000 if i < 5 else 3_000))
    assert list(world.replies) == ["a5"]  # 3,000 bytes alone are over the size: the newest stays
    assert world.answered >= {f"a{i}" for i in range(6)}
    assert world.prepare_action("a5", hit, roller) == b'{"replayed":true,' + b"x" * 2_999
    with pytest.raises(AnsweredLongAgo):
        world.prepare_action("a0", hit, roller)
    for i in range(6, 10):
        world.commit(world.prepare_action(f"a{i}", hit, roller), "y")  # type: ignore[arg-type]
    assert list(world.replies) == ["a6", "a7", "a8", "a9"]


def test_a_reply_larger_than_the_largest_kept_is_left_to_the_store_and_evicts_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`LARGEST_KEPT_REPLY`: a reply above it (a big scene's round) is not kept for retries, and
    pushes no smaller one out; its id stays answered, so a retry of it is `AnsweredLongAgo` (the
    server reads it back from the store) and is never ruled twice."""
    monkeypatch.setattr(world_module, "LARGEST_KEPT_REPLY", 2_000)
    world = synced_world()
    roller = SeededRoller(1)
    hit = {"kind": "damage", "target": "hero", "instances": [{"amount": 1, "grade": "B"}]}
    for i, size in enumerate((1_000, 2_000, 2_001, 1_500)):
        pending = world.prepare_action(f"a{i}", hit, roller)
        assert not isinstance(pending, bytes)
        world.commit(pending, "x" * size)
    assert list(world.replies) == ["a0", "a1", "a3"]
    assert world.answered >= {"a0", "a1", "a2", "a3"}
    with pytest.raises(AnsweredLongAgo):
        world.prepare_action("a2", hit, roller)
    assert world.prepare_action("a1", hit, roller) == b'{"replayed":true,' + b"x" * 1_999


def test_a_world_keeps_no_state_it_came_from_once_a_later_ruling_is_committed() -> None:
    """The world holds its committed state, not the states before it: after rounds with stage-three
    results (their states, each round's contests rows and changed cells) and a move, every state
    the world was at before is freed (the visibility index forgets the states it marked fresh when
    a ruling is committed: it held up to nine, each with the state it came from)."""
    world = World("w")
    world.commit(world.prepare_sync({"state": guard_among_hiders(("a", "b", "c"), 200, 100)}), "")
    gone = []
    for n, payload in enumerate(
        (
            {"kind": "round", "round": 2},
            {"kind": "round", "round": 3},
            {"kind": "move", "token": "a", "x": 250, "y": 0},
            {"kind": "round", "round": 4},
        )
    ):
        gone.append(weakref.ref(world.state))
        pending = world.prepare_action(f"r{n}", payload, SeededRoller(n))
        assert not isinstance(pending, bytes)
        world.commit(pending, "{}")
        del pending
    gc.collect()
    assert [ref() is None for ref in gone] == [True] * len(gone)


def test_the_stage_three_results_are_patched_by_row_where_most_of_a_row_changed() -> None:
    """DET-8's `contests` map: a ruling's patch adds and removes single rows and entries, and
    replaces a row whole where at least half the entries either side holds changed (a round
    rewrites every kept entry); an upsert's patch goes entry by entry. Each turns the document before
    into the document after; no patch replaces the map whole."""
    world = World("w")
    hiders = ("assassin", "shade", "ghost")
    state = guard_among_hiders(hiders, 200, 100)
    world.commit(world.prepare_sync({"state": state}), "")
    win = {"observer": [8, 8, 1, 1, 1], "target": [8] + [1] * 12}
    loss = {"observer": [1] * 5, "target": [8] + [1] * 12}
    steps: list[tuple[str, dict[str, Any], set[tuple[str, int]]]] = [
        # a row added; an entry added to a row of one (half of two: the row); to a row of two (an entry)
        ("action", {"kind": "contest", "observer": "guard", "target": "assassin", "dice": win}, {("add", 2)}),
        (
            "action",
            {"kind": "contest", "observer": "guard", "target": "shade", "dice": loss},
            {("replace", 2)},
        ),
        ("action", {"kind": "contest", "observer": "guard", "target": "ghost", "dice": loss}, {("add", 3)}),
        # every kept entry rewritten: the rows replaced whole (the hiders' rows of each other added)
        ("action", {"kind": "round", "round": 2}, {("replace", 2), ("add", 2)}),
        # a token gone: its row and its entries in the others' rows; an upsert goes entry by entry,
        # even where half of a row changed (the guard's of three, then of two)
        ("upsert", {"path": "/tokens/shade", "value": None}, {("remove", 2), ("remove", 3)}),
        ("upsert", {"path": "/tokens/assassin", "value": None}, {("remove", 2), ("remove", 3)}),
        ("upsert", {"path": "/tokens/ghost", "value": None}, {("remove", 2)}),
    ]
    roller = SeededRoller(5)
    document = world.state.model_dump(mode="json")
    for index, (kind, payload, expected) in enumerate(steps):
        if kind == "action":
            pending = world.prepare_action(f"c{index}", payload, roller)
            assert not isinstance(pending, bytes)
        else:
            pending = world.prepare_upsert(payload)
        ops = pending.result["patch"]
        shapes = {(op["op"], op["path"].count("/")) for op in ops if op["path"].startswith("/contests")}
        assert shapes == expected, (payload, ops)
        document = jsonpatch.apply_patch(document, orjson.loads(orjson.dumps(ops)))
        world.commit(pending, "")
        assert document == world.state.model_dump(mode="json"), (kind, payload)


def test_a_row_changed_in_fewer_than_half_its_entries_is_patched_entry_by_entry() -> None:
    """`patch.ROW_SHARE`: a row of four, one entry's round changed, is one field's op; two of four
    (half) replace the row whole with every entry, and its inverse holds the row before, taken
    from what the diff read (the same a `Reader` of the state before gives); `whole_rows=False`
    (an upsert) goes entry by entry. Each turns the document before into the one after, and the
    inverse turns it back."""
    from vtt_bridge.document.models import WorldState
    from vtt_bridge.rules.detection import ContestWin, LocateState

    def win(round_number: int, won: bool = True) -> ContestWin:
        return ContestWin(stage_two=LocateState.UNLOCATED, round=round_number, won=won)

    before = WorldState(contests={"o": {f"t{i}": win(1) for i in range(4)}, "p": {"t0": win(1)}})

    def changed(**entries: ContestWin) -> WorldState:
        return before.model_copy(
            update={"contests": {**before.contests, "o": {**before.contests["o"], **entries}}}
        )

    cases = [
        (changed(t0=win(2)), True, [{"op": "replace", "path": "/contests/o/t0/round", "value": 2}]),
        (changed(t0=win(2), t1=win(2, False)), True, None),
        (changed(t0=win(2), t1=win(2, False)), False, 3),  # t0's round; t1's round and won
    ]
    for after, whole_rows, expected in cases:
        olds: patches.Olds = {}
        ops = patches.diff_states(before, after, None, olds, whole_rows=whole_rows)
        if expected is None:
            assert ops == [
                {
                    "op": "replace",
                    "path": "/contests/o",
                    "value": after.model_dump(mode="json")["contests"]["o"],
                }
            ]
        elif isinstance(expected, int):
            assert len(ops) == expected and all(op["path"].count("/") == 4 for op in ops)
        else:
            assert ops == expected
        document = before.model_dump(mode="json")
        patches.apply(document, ops)
        assert document == after.model_dump(mode="json")
        inverse = patches.inverse_ops(before, ops, olds)
        assert inverse == patches.inverse_ops(before, ops)
        patches.apply(document, inverse)
        assert document == before.model_dump(mode="json")
        assert patches.apply_ops(after, inverse) == before


def test_a_moves_cell_ops_and_the_inverses_built_with_them_undo_it() -> None:
    """DET-5: a move's visibility cells are diffed with their inverses in one pass (`patch.Undo`):
    cells added (no longer pinpointed), removed (pinpointed again) and replaced, each inverse what
    a `Reader` of the state before gives, and the inverse restores that state."""
    cast = {"guard": GUARD, "assassin": ASSASSIN, "wizard": WIZARD, "dog": DOG}
    world = World("w")
    synced = {
        "scene": {"id": "s", "gridDistance": 1.5, "gridSize": 100},
        "actors": {f"a-{name}": who.model_dump(mode="json", by_alias=True) for name, who in cast.items()},
        "tokens": {name: {"actor": f"a-{name}", "x": 0, "y": 0} for name in cast},
    }
    world.commit(world.prepare_sync({"state": synced}), "")
    kinds: set[str] = set()
    moves = [("dog", 1500), ("dog", 0), ("dog", 3000), ("guard", 2500), ("dog", 200), ("wizard", 5000)]
    for i, (token, x) in enumerate(moves):
        before = world.state
        was = before.model_dump(mode="json")  # the commit writes the move's cells into shared rows
        pending = world.prepare_action(
            f"m{i}", {"kind": "move", "token": token, "x": x, "y": 0}, SeededRoller(i)
        )
        assert not isinstance(pending, bytes) and pending.entry is not None
        entry = pending.entry
        assert entry.inverse is not None
        kinds.update(op["op"] for op in entry.forward if op["path"].startswith("/visibility/"))
        # as JSON: the inverse built with the ops holds areas as tuples, a `Reader` as arrays
        assert orjson.loads(orjson.dumps(entry.inverse)) == orjson.loads(
            orjson.dumps(patches.inverse_ops(before, entry.forward))
        ), (token, x)
        world.commit(pending, "{}")
        restored = patches.apply_ops(world.state, entry.inverse)
        assert restored.model_copy(update={"rev": before.rev}).model_dump(mode="json") == was
    assert kinds == {"add", "remove", "replace"}


ORDER_SCRIPT = """
import hashlib
import orjson
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.engine.world import World
hider = {"attributes": {"DEX": 2}, "skills": {"stealth": 1},
         "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}]}
guard = {"attributes": {"PER": 3}, "skills": {"investigation": 2}}
names = [f"n{i}" for i in range(10)]
actors = {name: {**(hider if i % 2 else guard), "name": name} for i, name in enumerate(names)}
tokens = {name: {"actor": name, "x": 100 * i, "y": 0} for i, name in enumerate(names)}
world = World("w")
scene = {"id": "s", "round": 1}
pending = world.prepare_sync({"state": {"scene": scene, "actors": actors, "tokens": tokens}})
replies = [orjson.dumps(pending.result)]
world.commit(pending, replies[-1])
def knocked_out(targets):
    return {"kind": "batch", "actions": [
        {"kind": "damage", "target": t, "instances": [{"amount": 9, "grade": "B"}]} for t in targets]}
payloads = [{"kind": "round", "round": 1}, knocked_out(names[:4]), {"kind": "round", "round": 2}]
payloads += [{"kind": "heal", "target": name, "amount": 9, "source": "shortRest"} for name in names[:4]]
payloads += [knocked_out(names[4:8]), {"kind": "round", "round": 3}]
for i, payload in enumerate(payloads):
    pending = world.prepare_action(f"a{i}", payload, SeededRoller(i))
    replies.append(orjson.dumps(pending.result))
    world.commit(pending, replies[-1])
rows = [op["op"] for op in orjson.loads(replies[-1])["patch"] if op["path"].startswith("/contests/")
        and op["path"].count("/") == 2]
print(rows.count("add"), rows.count("remove"), hashlib.sha256(b"".join(replies)).hexdigest())
"""
"""A sync and rounds 1 to 3 of ten tokens, four knocked out before round 2 and healed before round 3,
four others knocked out then: round 3 adds four rows of `contests` and removes four."""


def test_the_order_of_the_ops_is_the_same_in_every_process() -> None:
    """The rows a round adds and removes (and the entries and members a ruling adds and removes)
    are patched in sorted key order, never in the order of string hashing: processes with other
    `PYTHONHASHSEED`s send the very same reply bytes."""
    import os
    import subprocess
    import sys

    outputs = set()
    for seed in ("1", "2", "3"):
        done = subprocess.run(
            [sys.executable, "-c", ORDER_SCRIPT],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1, outputs
    added, removed, _ = outputs.pop().split()
    assert (int(added), int(removed)) == (4, 4), "round 3 adds four rows and removes four"


def test_a_roll_on_the_wire_carries_every_field_of_the_roll() -> None:
    """`roll_payload` names the fields one by one (a round writes thousands): it drops none, and
    `by` and `purpose` only from an unnamed roll."""
    from dataclasses import asdict

    from vtt_bridge.rules.dice import Roll

    unnamed = Roll(pool=3, again=10, dice=(10, 2, 8, 1), successes=2)
    named = unnamed.of("t1", "spot")
    assert world_module.roll_payload(named) == asdict(named) | {"dice": [10, 2, 8, 1]}
    assert list(world_module.roll_payload(named)) == list(asdict(named))
    assert world_module.roll_payload(unnamed) == {
        "pool": 3,
        "again": 10,
        "dice": [10, 2, 8, 1],
        "successes": 2,
    }


def test_english_step_texts_count_one_as_one() -> None:
    """ "1 success", "1 contest", "1 change": never "1 successes" nor "1 success(es)"."""
    world = synced_world()
    roll = {"kind": "roll", "actor": "hero", "pool": 2, "again": None, "dice": [8, 3]}
    pending = world.prepare_action("r1", roll, SeededRoller(0))
    assert not isinstance(pending, bytes)
    texts = [step["text"] for step in pending.result["log"]]
    world.commit(pending, "{}")
    assert "1 success" in texts and any(text.endswith(": 1 success") for text in texts), texts
    assert "(es)" not in " ".join(texts) and "(s)" not in " ".join(texts)
    two = World("two")
    state = {
        "scene": {"id": "s", "round": 1},
        "actors": {
            "hero": {"name": "Hero", "health": {"max": 7}},
            "ghost": {
                "name": "Ghost",
                "health": {"max": 5},
                "antiDetection": [{"name": "invisibility", "essence": "magical", "rank": "C"}],
            },
        },
        "tokens": {
            "t-hero": {"actor": "hero", "x": 0, "y": 0},
            "t-ghost": {"actor": "ghost", "x": 100, "y": 0},
        },
    }
    synced = two.prepare_sync({"state": state})
    synced_texts = [s["text"] for s in synced.result["log"]]
    assert synced_texts == ["the world was synced from the VTT: 2 actors, 2 tokens"]
    two.commit(synced, "")
    round_ = two.prepare_action("round", {"kind": "round", "round": 2}, SeededRoller(0))
    assert not isinstance(round_, bytes)
    stage_three = [s["text"] for s in round_.result["log"] if s.get("key") == "DET-8.round"]
    assert len(stage_three) == 1, stage_three
    assert stage_three[0].startswith("stage three, round 2: 1 contest, "), stage_three


KEPT_CAST = {
    "guard": GUARD,
    "assassin": ASSASSIN,
    "wizard": WIZARD,
    "dog": DOG,
    "bat": actor(  # DET-6: a reach of two steps (pinpointed near, approximate farther)
        humanoid=False,
        detection=[
            {"name": "sight", "sense": "sight", "range": 6},
            {"name": "hearing", "sense": "hearing", "capability": "approximate", "range": 20},
        ],
    ),
}
moves = st.tuples(st.just("move"), st.integers(0, 7), st.integers(0, 40), st.integers(0, 4), st.booleans())
kept_steps = st.lists(
    st.one_of(
        moves,
        moves,
        moves,
        st.tuples(st.just("undo")),
        st.tuples(st.just("refused"), st.integers(0, 7)),
        st.tuples(st.just("senses"), st.integers(0, 7), st.sampled_from(sorted(KEPT_CAST))),
        st.tuples(st.just("actor"), st.sampled_from(sorted(KEPT_CAST)), st.sampled_from(sorted(KEPT_CAST))),
        st.tuples(st.just("remove"), st.integers(0, 7)),
        st.tuples(st.just("sync"), st.integers(0, 40)),
        st.tuples(st.just("round"), st.integers(0, 2**16)),
    ),
    min_size=1,
    max_size=16,
)


def _kept_world() -> World:
    names = sorted(KEPT_CAST)
    world = World("kept")
    state = {
        "scene": {"id": "s", "round": 1, "gridDistance": 1.5, "gridSize": 100},
        "actors": {name: who.model_dump(mode="json", by_alias=True) for name, who in KEPT_CAST.items()},
        "tokens": {f"t{i}": {"actor": names[i % len(names)], "x": 400 * i, "y": 0} for i in range(8)},
    }
    world.commit(world.prepare_sync({"state": state}), "")
    return world


@settings(max_examples=60, deadline=None)
@given(kept_steps)
def test_DET_5_the_worlds_kept_index_agrees_with_a_fresh_one_after_any_rulings(
    steps: list[tuple[Any, ...]],
) -> None:
    """The world keeps one `VisibilityIndex` (its token groups and their varying groups live across
    rulings while only positions change): after moves (committed or dropped, as when the store
    refuses them), undos, refused rulings, tokens given another actor, actors given other senses,
    tokens removed, syncs and rounds, its
    matrix and standing results are what a new index computes from scratch."""
    world = _kept_world()
    made: list[str] = []
    for i, step in enumerate(steps):
        kind = step[0]
        state = world.state
        try:
            if kind == "move":
                _, token, x, y, commit = step
                body = {"kind": "move", "token": f"t{token}", "x": 100 * x, "y": 100 * y}
                pending = world.prepare_action(f"a{i}", body, SeededRoller(i))
                if not commit:
                    continue  # dropped: the world keeps its state
            elif kind == "undo":
                if not made:
                    continue
                pending = world.prepare_action(
                    f"u{i}", {"kind": "undo", "action": made.pop()}, SeededRoller(i)
                )
            elif kind == "refused":
                body = {"kind": "move", "token": f"gone{step[1]}", "x": 0, "y": 0}
                with pytest.raises(RequestError):
                    world.prepare_action(f"r{i}", body, SeededRoller(i))
                continue
            elif kind == "senses":
                if f"t{step[1]}" not in state.tokens:
                    continue
                value = {"actor": step[2], "x": state.tokens[f"t{step[1]}"].x, "y": 0}
                pending = world.prepare_upsert({"path": f"/tokens/t{step[1]}", "value": value})
            elif kind == "actor":  # one actor given another's senses: its tokens stay where they are
                value = KEPT_CAST[step[2]].model_dump(mode="json", by_alias=True)
                pending = world.prepare_upsert({"path": f"/actors/{step[1]}", "value": value})
            elif kind == "remove":
                if f"t{step[1]}" not in state.tokens:
                    continue
                pending = world.prepare_upsert({"path": f"/tokens/t{step[1]}", "value": None})
            elif kind == "sync":
                synced = settled(state).model_dump(mode="json", by_alias=True)
                tokens = synced["tokens"]
                for tid in list(tokens)[:2]:
                    tokens[tid]["x"] = 100 * step[1]
                parts = {part: synced[part] for part in ("scene", "actors", "tokens")}
                pending = world.prepare_sync({"state": parts})
            else:
                body = {"kind": "round", "round": state.scene.round + 1 if state.scene else 1}
                pending = world.prepare_action(f"o{i}", body, SeededRoller(step[1]))
        except RequestError:
            event(f"{kind} refused")
            continue
        assert not isinstance(pending, bytes)
        event(f"{kind} committed")
        world.commit(pending, "{}")
        if kind in ("move", "round"):
            made.append(f"{'a' if kind == 'move' else 'o'}{i}")
        fresh = VisibilityIndex()
        assert world.state.visibility == fresh.recompute_visibility(world.state), step
        assert world.state.contests == fresh.recompute_contests(world.state), step
