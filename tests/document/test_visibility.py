"""The visibility index (DET-4..8): the matrix holds every ordered pair, a change recomputes only
what it can touch, and after any sequence of changes it equals a full recompute."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from tests.detection_scenes import (
    ASSASSIN,
    DOG,
    GUARD,
    SQUARE,
    WIZARD,
    A,
    P,
    U,
    actor,
    ctx,
    recompute_contests,
    recompute_visibility,
    refresh_changes,
    refresh_visibility,
    scene_tavern,
    world,
)
from vtt_bridge.actions import Context
from vtt_bridge.actions.detection.handlers import ContestAction, MoveAction, contest_action, move
from vtt_bridge.actions.detection.queries import ExplainQuery, explain_query
from vtt_bridge.actions.detection.round import round_contests
from vtt_bridge.document import geometry
from vtt_bridge.document.models import (
    LOCATE_OF_CODE,
    NotFound,
    Scene,
    Token,
    WorldState,
    seal,
    settled,
    sparse_visibility,
)
from vtt_bridge.document.visibility import VisibilityIndex
from vtt_bridge.engine import patch as patches
from vtt_bridge.engine.roller import SeededRoller
from vtt_bridge.rules.common import STORED, RuleViolation
from vtt_bridge.rules.ranks import Rank

# --- the matrix --------------------------------------------------------------------------------------


def assert_sparse_form(before: WorldState, after: WorldState, cells: list[tuple[str, str]] | None) -> None:
    """DET-4 on the wire: the document's matrix holds only the pairs that are not pinpointed, and
    equals a full recompute's; reading it back gives the full matrix; the ruling's patch, applied to
    the sparse document before, gives the sparse document after, one op per pair that changed."""
    document = after.model_dump(mode="json")
    assert document["visibility"] == sparse_visibility(recompute_visibility(after))
    assert document["visibility"].keys() == after.tokens.keys()
    codes = {"approximate": "a", "unlocated": "u"}  # the wire's codes (protocol 0.4.0)
    assert document["visibility"] == {
        o: {t: codes[s] for t, s in row.items() if s != "pinpointed"} for o, row in after.visibility.items()
    }
    assert WorldState.model_validate(document, context=STORED).visibility == after.visibility
    ops = patches.diff_states(before, after, cells)
    old = before.model_dump(mode="json")
    patches.apply(old, ops)
    assert old == document
    if before.tokens.keys() == after.tokens.keys():
        changed = {
            (o, t)
            for o, row in after.visibility.items()
            for t, s in row.items()
            if before.visibility[o][t] != s
        }
        cell_ops = [op for op in ops if op["path"].startswith("/visibility/")]
        assert len(cell_ops) == len(changed)


def test_DET_4_the_matrix_holds_every_ordered_pair_of_distinct_tokens() -> None:
    state = scene_tavern()
    assert set(state.visibility) == set(state.tokens)
    for observer, row in state.visibility.items():
        assert set(row) == set(state.tokens) - {observer}


def test_DET_4_a_pair_is_written_as_its_code_and_read_from_its_code_or_its_name() -> None:
    """0.4.0 writes `a` / `u`; the state names of a 0.3.0 file or of an inverse it stored still read."""
    state = scene_tavern()
    row = state.model_dump(mode="json")["visibility"]["guard"]
    assert row["assassin"] == "u" and "wizard" not in row  # unlocated; pinpointed: absent
    for value in ("a", "approximate"):
        after = patches.apply_ops(
            state, [{"op": "replace", "path": "/visibility/guard/assassin", "value": value}]
        )
        assert after.visibility["guard"]["assassin"] is A
    stored = state.model_dump(mode="json")
    stored["visibility"]["guard"]["assassin"] = "unlocated"
    assert WorldState.model_validate(stored, context=STORED).visibility == state.visibility
    stored["visibility"]["guard"]["assassin"] = "x"
    with pytest.raises(ValueError):
        WorldState.model_validate(stored, context=STORED)


def test_DET_7_the_invisible_assassin_is_invisible_to_the_guard_the_wizard_sees_it_the_dog_hears_it() -> None:
    state = scene_tavern()
    assert state.visibility["guard"]["assassin"] is U
    assert state.visibility["wizard"]["assassin"] is P
    # the dog's C hearing (natural) vs magical C: C+1 > C, but hearing can only approximate
    assert state.visibility["dog"]["assassin"] is A
    assert state.visibility["assassin"]["guard"] is P


def test_DET_6_with_no_anti_detection_everyone_pinpoints_everyone_by_sight() -> None:
    state = world({"a": (GUARD, 0), "b": (GUARD, 50)})
    assert state.visibility == {"a": {"b": P}, "b": {"a": P}}


def test_DET_5_distance_uses_the_grid_and_elevation() -> None:
    short_sight = actor(detection=[{"name": "sight", "sense": "sight", "range": 12.5}])
    state = WorldState(
        scene=Scene(id="s", grid_size=100, grid_distance=1.5),
        actors={"o": short_sight, "t": actor()},
        tokens={"o": Token(actor="o"), "t": Token(actor="t", x=300, y=400, elevation=10)},
    )
    assert recompute_visibility(state)["o"]["t"] is P  # 7.5 m across, 10 m up: 12.5 m
    higher = state.model_copy(
        update={"tokens": {**state.tokens, "t": Token(actor="t", x=300, y=400, elevation=10.1)}}
    )
    assert recompute_visibility(higher)["o"]["t"] is U


def test_DET_5_blinded_and_deafened_conditions_change_the_matrix_incrementally() -> None:
    state = scene_tavern()
    blind_wizard = WIZARD.model_copy(update={"conditions": {"blinded": True}})
    after = refresh_visibility(
        state, state.model_copy(update={"actors": {**state.actors, "a-wizard": blind_wizard}})
    )
    assert after.visibility["wizard"]["guard"] is A and after.visibility["wizard"]["assassin"] is U
    assert after.visibility["guard"] is state.visibility["guard"]
    deaf = after.actors["a-wizard"].model_copy(update={"conditions": {"blinded": True, "deafened": True}})
    later = refresh_visibility(after, after.model_copy(update={"actors": {**after.actors, "a-wizard": deaf}}))
    assert later.visibility["wizard"]["guard"] is U
    assert later.visibility == recompute_visibility(later)


def test_DET_4_a_token_without_an_actor_is_not_found() -> None:
    state = WorldState(actors={"a": actor()}, tokens={"t": Token(actor="a"), "u": Token(actor="missing")})
    with pytest.raises(NotFound) as error:
        recompute_visibility(state)
    assert error.value.path == ("tokens", "u", "actor")
    with pytest.raises(NotFound):
        refresh_visibility(WorldState(), state)


def test_DET_4_a_scene_past_the_frame_cap_still_recomputes() -> None:
    cast = {f"t{i}": (GUARD if i % 3 else ASSASSIN, i % 40) for i in range(1200)}
    state = world(cast)
    assert len(state.visibility) == 1200 and len(state.visibility["t0"]) == 1199


# --- properties -----------------------------------------------------------------------------------------

BAT = actor(
    humanoid=False,
    detection=[
        {"name": "sight", "sense": "sight", "range": 6},
        {"name": "hearing", "sense": "hearing", "capability": "approximate", "range": 20},
    ],
)
"""DET-6: a reach of two steps (pinpointed near, approximate farther, unlocated beyond)."""
CAST = [GUARD, ASSASSIN, WIZARD, DOG, GUARD.model_copy(update={"conditions": {"blinded": True}}), BAT]
token_ids = st.sampled_from([f"t{i}" for i in range(8)])
positions = st.tuples(st.integers(0, 30), st.integers(0, 4), st.sampled_from([0.0, 3.0]))


def small_world(picks: list[int], round_number: int = 0) -> WorldState:
    actors = {f"a{i}": CAST[pick] for i, pick in enumerate(picks)}
    tokens = {f"t{i}": Token(actor=f"a{i}", x=i * 4 * SQUARE) for i in range(len(picks))}
    scene = Scene(id="s", round=round_number)
    return refresh_visibility(WorldState(), WorldState(scene=scene, actors=actors, tokens=tokens))


def apply_operation(state: WorldState, op: tuple[Any, ...]) -> WorldState:
    """One of `operation`'s changes ruled on `state` (a refused contest: `state` itself)."""
    if op[0] == "move":
        x, y, z = op[2]
        return move(
            state, MoveAction(kind="move", token=op[1], x=x * SQUARE, y=y * SQUARE, elevation=z), ctx()
        ).state
    if op[0] == "senses":
        actor_id = state.tokens[op[1]].actor
        return refresh_visibility(
            state, state.model_copy(update={"actors": {**state.actors, actor_id: CAST[op[2]]}})
        )
    if op[0] == "contest":
        try:
            return contest_action(
                state, ContestAction(kind="contest", observer=op[1], target=op[2]), ctx(op[3])
            ).state
        except RuleViolation:
            return state
    return round_contests(state, ctx(op[1])).state


operation = st.one_of(
    st.tuples(st.just("move"), token_ids, positions),
    st.tuples(st.just("senses"), token_ids, st.integers(0, len(CAST) - 1)),
    st.tuples(st.just("contest"), token_ids, token_ids, st.integers(0, 2**16)),
    st.tuples(st.just("round"), st.integers(0, 2**16)),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, len(CAST) - 1), min_size=8, max_size=8),
    st.lists(operation, max_size=12),
    st.sampled_from([0, 1]),
)
def test_DET_7_the_matrix_after_any_sequence_of_changes_equals_a_full_recompute(
    picks: list[int], operations: list[tuple[Any, ...]], round_number: int
) -> None:
    """In and out of combat (a combat round keeps losses too, DET-8): the matrix and the standing
    results agree with a computation from scratch."""
    state = small_world(picks, round_number)
    for op in operations:
        before = state
        state = apply_operation(state, op)
        if op[0] == "contest" and state is before:
            continue  # refused
        assert state.visibility == recompute_visibility(state)
        assert state.contests == recompute_contests(state)
        _, cells = refresh_changes(before, state)
        if cells is not None:
            changed = {
                (o, t)
                for o, row in state.visibility.items()
                for t, s in row.items()
                if before.visibility[o].get(t) is not s
            }
            assert set(cells) == changed
        assert_sparse_form(before, state, cells)
        for observer, row in state.visibility.items():
            if row == before.visibility.get(observer):
                assert row is before.visibility[observer]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, len(CAST) - 1), min_size=8, max_size=8),
    st.dictionaries(token_ids, positions, max_size=4),
    st.dictionaries(token_ids, st.integers(0, len(CAST) - 1), max_size=2),
    st.lists(token_ids, max_size=1),
    st.integers(0, 2**16),
)
def test_DET_5_moves_sense_changes_and_removals_in_one_change_equal_a_full_recompute(
    picks: list[int],
    moves: dict[str, tuple[int, int, float]],
    senses: dict[str, int],
    removed: list[str],
    seed: int,
) -> None:
    state = round_contests(small_world(picks, round_number=1), ctx(seed)).state
    tokens = {
        tid: tok.model_copy(
            update={"x": moves[tid][0] * SQUARE, "y": moves[tid][1] * SQUARE, "elevation": moves[tid][2]}
        )
        if tid in moves
        else tok
        for tid, tok in state.tokens.items()
        if tid not in removed
    }
    actors = {**state.actors, **{state.tokens[tid].actor: CAST[pick] for tid, pick in senses.items()}}
    after, cells = refresh_changes(state, state.model_copy(update={"tokens": tokens, "actors": actors}))
    assert after.visibility == recompute_visibility(after)
    assert after.contests == recompute_contests(after)
    assert cells is not None
    changed = {
        (o, t)
        for o, row in state.visibility.items()
        if o in after.visibility
        for t, s in row.items()
        if after.visibility[o].get(t) is not s
    }
    assert set(cells) == changed
    assert_sparse_form(state, after, cells)
    for observer, row in after.visibility.items():
        if row == state.visibility.get(observer):
            assert row is state.visibility[observer]


RANK_ORDER = list(Rank)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, len(CAST) - 1), min_size=4, max_size=6), st.integers(0, 5), st.integers(0, 5))
def test_DET_2_raising_an_observers_detection_rank_never_worsens_its_row(
    picks: list[int], low: int, up: int
) -> None:
    state = small_world(picks)
    observer = state.actors["a0"]
    ranked = [m.model_copy(update={"rank": RANK_ORDER[low]}) for m in observer.detection]
    higher = [m.model_copy(update={"rank": RANK_ORDER[min(5, low + up)]}) for m in observer.detection]
    weak = refresh_visibility(
        state,
        state.model_copy(
            update={
                "actors": {**state.actors, "a0": observer.model_copy(update={"detection": tuple(ranked)})}
            }
        ),
    )
    strong = refresh_visibility(
        weak,
        weak.model_copy(
            update={"actors": {**weak.actors, "a0": observer.model_copy(update={"detection": tuple(higher)})}}
        ),
    )
    for target, located in weak.visibility["t0"].items():
        assert strong.visibility["t0"][target].level >= located.level


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.integers(0, len(CAST) - 1), min_size=8, max_size=8),
    st.lists(
        st.one_of(
            st.tuples(st.just("move"), token_ids, positions),
            st.tuples(st.just("out"), token_ids),
            st.tuples(st.just("round"), st.integers(0, 2**16)),
            st.tuples(st.just("round"), st.integers(0, 2**16)),
        ),
        max_size=8,
    ),
    st.sampled_from([0, 1]),
)
def test_DET_8_a_round_with_its_cells_left_unapplied_is_the_plain_round_once_committed(
    picks: list[int], operations: list[tuple[Any, ...]], round_number: int
) -> None:
    """As the world rules a round (`Context.unapplied_cells`): the rows before stay untouched, the
    patch (the pairs the world's refresh names, and the unapplied cells) turns the sparse document
    before into the one after, and once sealed as at commit the matrix and the standing results are
    the plain round's and a full recompute's, in and out of combat, with results lapsing between."""
    state = small_world(picks, round_number)
    lapsing = 0
    for op in operations:
        if op[0] == "move":
            x, y, z = op[2]
            action = MoveAction(kind="move", token=op[1], x=x * SQUARE, y=y * SQUARE, elevation=z)
            state = move(state, action, ctx()).state
            continue
        if op[0] == "out":  # an observer out cold contests nothing: its results of other rounds lapse
            actor_id = state.tokens[op[1]].actor
            conditions = {**state.actors[actor_id].conditions, "unconscious": True}
            out_cold = state.actors[actor_id].model_copy(update={"conditions": conditions})
            state = refresh_visibility(
                state, state.model_copy(update={"actors": {**state.actors, actor_id: out_cold}})
            )
            continue
        if state.scene is not None and state.scene.round >= 1:
            scene = state.scene.model_copy(update={"round": state.scene.round + 1})
            state = state.model_copy(update={"scene": scene})
        plain = round_contests(state, ctx(op[1])).state
        document = state.model_dump(mode="json")
        index = VisibilityIndex()
        world_ctx = Context(roller=SeededRoller(op[1]), visibility=index, unapplied_cells=True)
        ruled = round_contests(state, world_ctx)
        lapsing += any(step.key == "DET-8.lapsed" for step in ruled.log)
        assert state.model_dump(mode="json") == document
        after, pairs = index.refresh_changes(state, ruled.state, unapplied_cells=True)
        patches.apply(document, patches.diff_states(state, after, pairs))
        seal(after)
        assert document == after.model_dump(mode="json")
        assert after.visibility == plain.visibility == recompute_visibility(after)
        assert after.contests == plain.contests == recompute_contests(after)
        state = after
    note(f"rounds with results lapsing: {lapsing}")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from([0, 1, 1, 2, 3, 4]), min_size=8, max_size=8),
    st.lists(
        st.one_of(
            st.tuples(st.just("move"), token_ids, positions),
            st.tuples(st.just("move"), token_ids, positions),
            st.tuples(st.just("senses"), token_ids, st.integers(0, len(CAST) - 1)),
            st.tuples(st.just("out"), token_ids),
            st.tuples(st.just("turn"), token_ids, st.booleans(), st.integers(0, 2)),
            st.tuples(st.just("held"), token_ids, token_ids),
            st.tuples(st.just("round"), st.integers(0, 2**16)),
            st.tuples(st.just("round"), st.integers(0, 2**16)),
        ),
        max_size=14,
    ),
    st.sampled_from([0, 1]),
)
def test_DET_8_a_round_with_the_last_rounds_geometry_is_the_round_computed_afresh(
    picks: list[int], operations: list[tuple[Any, ...]], round_number: int
) -> None:
    """One index kept across moves, sense changes, observers out cold, hiders' last turns, held
    reveals and rounds (as a world keeps it) rules each round as a new index does: the same matrix,
    standing results, log and dice."""
    state = small_world(picks, round_number)
    kept = VisibilityIndex()
    for op in operations:
        kind = op[0]
        if kind == "move":
            x, y, z = op[2]
            action = MoveAction(kind="move", token=op[1], x=x * SQUARE, y=y * SQUARE, elevation=z)
            state = move(state, action, Context(roller=SeededRoller(1), visibility=kept)).state
            continue
        if kind == "held":
            if op[1] != op[2]:
                state = state.model_copy(update={"reveals": {**state.reveals, op[2]: {op[1]: P}}})
            continue
        if kind != "round":
            actor_id = state.tokens[op[1]].actor
            who = state.actors[actor_id]
            if kind == "senses":
                who = CAST[op[2]]
            elif kind == "out":
                who = who.model_copy(update={"conditions": {**who.conditions, "unconscious": True}})
            else:
                last = who.last_turn.model_copy(update={"attacked": op[2], "made_sound": op[3] == 1})
                who = who.model_copy(update={"last_turn": last, "wound_penalty": op[3]})
            state = kept.refresh(state, state.model_copy(update={"actors": {**state.actors, actor_id: who}}))
            continue
        if state.scene is not None and state.scene.round >= 1:
            scene = state.scene.model_copy(update={"round": state.scene.round + 1})
            state = state.model_copy(update={"scene": scene})
        afresh = round_contests(state, ctx(op[1]))
        ruled = round_contests(state, Context(roller=SeededRoller(op[1]), visibility=kept))
        assert ruled.state.visibility == afresh.state.visibility
        assert ruled.state.contests == afresh.state.contests
        assert [step.payload() for step in ruled.log] == [step.payload() for step in afresh.log]
        assert ruled.rolls == afresh.rolls
        state = ruled.state


def test_DET_8_a_round_after_the_geometry_starts_afresh_is_the_round_computed_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past its bound the kept geometry starts afresh (its tables and entries renumbered); the
    rounds after are still what a new index rules."""
    monkeypatch.setattr(geometry, "GEOMETRY_LIMIT", 0)
    state = small_world([0, 1, 2, 3, 1, 0, 1, 4], round_number=1)
    kept = VisibilityIndex()
    for seed in range(4):
        if seed == 2:
            action = MoveAction(kind="move", token="t1", x=3 * SQUARE, y=0)
            state = move(state, action, Context(roller=SeededRoller(1), visibility=kept)).state
        scene = state.scene.model_copy(update={"round": seed + 2}) if state.scene else None
        state = state.model_copy(update={"scene": scene})
        afresh = round_contests(state, ctx(seed))
        ruled = round_contests(state, Context(roller=SeededRoller(seed), visibility=kept))
        assert ruled.state.contests == afresh.state.contests
        assert ruled.state.visibility == afresh.state.visibility
        assert [step.payload() for step in ruled.log] == [step.payload() for step in afresh.log]
        state = ruled.state


@given(st.sets(st.tuples(st.sampled_from(["a", "b", "t-10", "t-9", "Z"]), st.text(max_size=3))))
def test_pairs_are_visited_in_sorted_order_observer_by_observer(pairs: set[tuple[str, str]]) -> None:
    """`_in_order` is `sorted` of the pairs (the order a refresh writes cells in), sorted a row at a
    time."""
    from vtt_bridge.document.visibility import _in_order

    assert list(_in_order(pairs)) == sorted(pairs)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, len(CAST) - 1), min_size=8, max_size=8),
    st.lists(operation, max_size=8),
    st.sampled_from([0, 1]),
)
def test_DET_7_explain_agrees_with_the_sparse_document_after_any_sequence_of_changes(
    picks: list[int], operations: list[tuple[Any, ...]], round_number: int
) -> None:
    """In and out of combat: for every pair, `explain`'s verdict is the state the document's sparse
    form gives the pair (absent: pinpointed, DET-4), after each change."""
    state = small_world(picks, round_number)
    for op in operations:
        state = apply_operation(state, op)
        document = settled(state).model_dump(mode="json")["visibility"]
        index = VisibilityIndex()
        for observer in state.tokens:
            for target in state.tokens:
                if observer == target:
                    continue
                code = document.get(observer, {}).get(target)
                held = "pinpointed" if code is None else LOCATE_OF_CODE[code].value
                query = ExplainQuery(kind="explain", observer=observer, target=target)
                assert explain_query(state, query, index)["locate"] == held, (observer, target)


_COORDINATE = st.floats(min_value=-2e9, max_value=2e9, allow_nan=False)


@settings(max_examples=2000, deadline=None)
@given(
    dx=_COORDINATE,
    dy=_COORDINATE,
    dz=_COORDINATE,
    limit=st.floats(min_value=0, max_value=1e300, allow_nan=False),
    scale=st.floats(min_value=0, max_value=1e300, allow_nan=False),
)
def test_DET_5_a_pair_past_the_bound_by_dx_alone_is_past_the_limit_by_its_whole_distance(
    dx: float, dy: float, dz: float, limit: float, scale: float
) -> None:
    """The passes take a pair whose dx² is above `_beyond_by_dx` as beyond the limit without its d²:
    its d², by the formula in floating point, must then be above the limit too."""
    from vtt_bridge.document.visibility import _beyond_by_dx

    scale2 = scale * scale
    if dx * dx > _beyond_by_dx(limit, scale2):
        assert (dx * dx + dy * dy) * scale2 + dz * dz > limit
        assert dx * dx * scale2 > limit


def test_DET_5_the_bound_by_dx_lies_above_the_limit_over_the_scale() -> None:
    """The bound carries its margin: at dx² just above limit / scale² (where rounding may leave
    (dx²)·scale² at the limit), the pair is not taken as beyond by dx alone."""
    from vtt_bridge.document.visibility import _beyond_by_dx

    assert _beyond_by_dx(729.0, 0.0025) > 729.0 / 0.0025
    assert _beyond_by_dx(729.0, 0.0) == float("inf")
    assert _beyond_by_dx(0.0, 1e-18) >= 1e-150 / 1e-18  # dx² past it keeps (dx²)·scale² above 0
    assert _beyond_by_dx(729.0, float("inf")) == float("inf")
