"""Detection handlers (`actions/detection/handlers.py`): `move` (DET-5), `contest` (DET-8, DET-3,
DET-6, DICE-6) and the DET-9 modifiers in play. The round's contests: test_round.py; the queries:
test_queries.py; the matrix itself: tests/document/test_visibility.py."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.actions.helpers import contest_dice, run_contest
from tests.detection_scenes import (
    ASSASSIN,
    DOG,
    GUARD,
    SQUARE,
    A,
    P,
    U,
    actor,
    ctx,
    recompute_visibility,
    refresh_changes,
    refresh_visibility,
    scene_tavern,
    world,
)
from vtt_bridge.actions.detection.handlers import ContestAction, MoveAction, contest_action, move
from vtt_bridge.actions.detection.round import round_contests
from vtt_bridge.document.models import NotFound
from vtt_bridge.rules.common import RuleViolation
from vtt_bridge.rules.ranks import Rank


def test_DET_5_move_recomputes_only_pairs_with_the_moved_token_and_keeps_other_rows() -> None:
    state = scene_tavern()
    ruling = move(state, MoveAction(kind="move", token="dog", x=40 * SQUARE, y=0), ctx())
    after = ruling.state
    assert after.tokens["dog"].x == 40 * SQUARE and after.tokens["dog"].elevation == 0
    assert after.visibility["dog"]["assassin"] is U and after.visibility["dog"]["guard"] is U  # out of range
    assert after.visibility["guard"] is state.visibility["guard"]
    assert after.visibility == recompute_visibility(after)
    assert ruling.log[0].rule == "DET-5" and ruling.log[0].data == {"token": "dog", "changedPairs": 3}
    assert after.rev == state.rev


def test_DET_5_move_reports_exactly_the_changed_cells() -> None:
    state = scene_tavern()
    after = move(state, MoveAction(kind="move", token="dog", x=40 * SQUARE, y=0, elevation=2), ctx()).state
    _, cells = refresh_changes(state, after)
    expected = {
        (o, t)
        for o, row in after.visibility.items()
        for t, located in row.items()
        if state.visibility[o][t] is not located
    }
    assert cells is not None and set(cells) == expected


def test_DET_5_move_of_an_unknown_token_is_not_found() -> None:
    with pytest.raises(NotFound) as error:
        move(scene_tavern(), MoveAction(kind="move", token="ghost", x=0, y=0), ctx())
    assert error.value.path == ("token",)


@pytest.mark.parametrize(
    "bad", [{"x": float("nan")}, {"x": "3"}, {"token": "a/b"}], ids=["nan", "string", "slash"]
)
def test_DET_5_a_move_with_bad_numbers_is_invalid(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        MoveAction.model_validate({"kind": "move", "token": "dog", "x": 0, "y": 0, **bad})


def test_DET_8_a_win_from_unlocated_gives_an_approximate_location() -> None:
    state = scene_tavern()
    # guard: PER 3 + Investigation 2 = 5; assassin DEX 2 + Stealth 1 + 10 (invisible) = 13
    ruling = run_contest(state, "guard", "assassin", contest_dice([8, 8, 1, 1, 1], [8] + [1] * 12))
    assert ruling.state.visibility["guard"]["assassin"] is A
    assert ruling.state.contests["guard"]["assassin"].stage_two is U
    assert [r.successes for r in ruling.rolls] == [2, 1]
    assert ruling.log[-1].rule == "DICE-5"
    assert ruling.state.visibility["assassin"] is state.visibility["assassin"]


def test_DET_8_ties_go_to_the_detecting_side() -> None:
    ruling = run_contest(scene_tavern(), "guard", "assassin", contest_dice([8, 1, 1, 1, 1], [9] + [1] * 12))
    assert ruling.state.visibility["guard"]["assassin"] is A


def test_DET_8_a_loss_leaves_the_stage_two_state() -> None:
    state = scene_tavern()
    ruling = run_contest(state, "guard", "assassin", contest_dice([1] * 5, [8] + [1] * 12))
    assert ruling.state.visibility["guard"]["assassin"] is U and "guard" not in ruling.state.contests


def test_DET_8_a_win_from_approximate_pinpoints_and_holds_until_stage_two_changes() -> None:
    # A guard with D magical sight: D+... vs magical D anti-detection: same Rank: approximate.
    seer = actor(detection=[{"name": "sight", "sense": "sight", "essence": "magical", "rank": "D"}])
    ghost = actor(antiDetection=[{"name": "veil", "essence": "magical", "rank": "D"}])
    state = world({"seer": (seer, 0), "ghost": (ghost, 3)})
    assert state.visibility["seer"]["ghost"] is A
    won = run_contest(state, "seer", "ghost", contest_dice([8], [1])).state
    assert won.visibility["seer"]["ghost"] is P
    moved = move(won, MoveAction(kind="move", token="ghost", x=5 * SQUARE, y=0), ctx()).state
    assert moved.visibility["seer"]["ghost"] is P and moved.contests == won.contests
    stronger = ghost.model_copy(
        update={"anti_detection": (ghost.anti_detection[0].model_copy(update={"rank": Rank.C}),)}
    )
    changed = refresh_visibility(
        moved, moved.model_copy(update={"actors": {**moved.actors, "a-ghost": stronger}})
    )
    assert changed.visibility["seer"]["ghost"] is U and changed.contests == {}


def test_DET_8_a_pair_contested_again_keeps_the_new_result() -> None:
    """The next round's contest replaces the result: a win of this round stands, nothing lapses."""
    state = world({"guard": (GUARD, 0), "assassin": (ASSASSIN, 2)}, round=2)
    won = run_contest(state, "guard", "assassin", contest_dice([8, 8, 1, 1, 1], [8] + [1] * 12)).state
    ruling = round_contests(won, ctx(3))  # round 2's own contests: the guard now approximates, +0 DP
    assert not [s for s in ruling.log if s.data and "lapsed" in s.data]


def test_DET_8_in_a_combat_round_a_pair_is_contested_once() -> None:
    """'Once per round': in round 2 a lost on-demand contest is kept (raising nothing) and a second
    one is refused; so is one after the round's own contest; out of combat (round 0) the GM may
    call for as many as the story needs."""
    state = world({"guard": (GUARD, 0), "assassin": (ASSASSIN, 2)}, round=2)
    lost = run_contest(state, "guard", "assassin", contest_dice([1] * 5, [8] + [1] * 12)).state
    assert lost.visibility["guard"]["assassin"] is U
    assert lost.contests["guard"]["assassin"].won is False and lost.contests["guard"]["assassin"].round == 2
    with pytest.raises(RuleViolation, match="once per round") as refused:
        run_contest(lost, "guard", "assassin")
    assert refused.value.rule == "DET-8" and refused.value.path == ("target",)
    assert lost.visibility == recompute_visibility(lost)
    third = lost.model_copy(
        update={"scene": lost.scene.model_copy(update={"round": 3}) if lost.scene else None}
    )
    ruling = round_contests(third, ctx(3))  # round 3's own contest replaces the kept loss
    assert ruling.state.contests["guard"]["assassin"].round == 3
    with pytest.raises(RuleViolation, match="once per round"):
        run_contest(ruling.state, "guard", "assassin")
    calm = world({"guard": (GUARD, 0), "assassin": (ASSASSIN, 2)})
    for _ in range(3):
        calm = run_contest(calm, "guard", "assassin", contest_dice([1] * 5, [8] + [1] * 12)).state
    assert calm.contests == {}


def test_DET_3_a_win_never_raises_above_the_observers_capability() -> None:
    blind_guard = GUARD.model_copy(update={"conditions": {"blinded": True}})
    state = world({"guard": (blind_guard, 0), "assassin": (ASSASSIN, 2)})
    won = run_contest(state, "guard", "assassin", contest_dice([8] * 4 + [1], [1] * 13)).state
    assert won.visibility["guard"]["assassin"] is A
    again = run_contest(won, "guard", "assassin", contest_dice([8] * 5, [1] * 3)).state
    assert again.visibility["guard"]["assassin"] is A
    # a hearing-only observer that already approximates in stage two has nothing to contest
    deaf_dog_sight = DOG.model_copy(update={"conditions": {"blinded": True}})
    state = world({"dog": (deaf_dog_sight, 0), "assassin": (ASSASSIN, 2)})
    assert state.visibility["dog"]["assassin"] is A
    with pytest.raises(RuleViolation) as error:
        run_contest(state, "dog", "assassin")
    assert error.value.rule == "DET-8"


def test_DET_6_no_contest_against_a_target_without_anti_detection() -> None:
    with pytest.raises(RuleViolation) as error:
        run_contest(scene_tavern(), "assassin", "guard")
    assert (error.value.rule, error.value.path) == ("DET-6", ("target",))


def test_DET_8_no_contest_once_stage_two_pinpoints() -> None:
    with pytest.raises(RuleViolation) as error:
        run_contest(scene_tavern(), "wizard", "assassin")
    assert error.value.rule == "DET-8"


@pytest.mark.parametrize(
    ("dice", "path"),
    [
        (contest_dice([8, 8, 1, 1], [1] * 13), ("dice", "observer")),
        (contest_dice([8, 8, 1, 1, 1, 1], [1] * 13), ("dice", "observer")),
        (contest_dice([10, 8, 1, 1, 1], [1] * 13), ("dice", "observer")),
        (contest_dice([8, 8, 1, 1, 1], [1] * 14), ("dice", "target")),
    ],
    ids=["too few", "too many", "a 10 needs its reroll", "too many for the hider"],
)
def test_DICE_6_supplied_dice_must_be_exactly_the_right_count(
    dice: dict[str, Any], path: tuple[str, ...]
) -> None:
    state = scene_tavern()
    with pytest.raises(RuleViolation) as error:
        run_contest(state, "guard", "assassin", dice)
    assert (error.value.rule, error.value.path) == ("DICE-6", path)


@pytest.mark.parametrize("face", [0, 11, 2.5, "8"])
def test_DICE_6_a_supplied_die_outside_1_to_10_is_invalid_with_its_path(face: Any) -> None:
    with pytest.raises(ValidationError) as error:
        ContestAction.model_validate(
            {"kind": "contest", "observer": "guard", "target": "assassin", "dice": contest_dice([face], [1])}
        )
    assert error.value.errors()[0]["loc"] == ("dice", "observer", 0)


@pytest.mark.parametrize(
    ("observer", "target", "path"), [("ghost", "assassin", ("observer",)), ("guard", "nobody", ("target",))]
)
def test_DET_8_an_observer_or_target_not_on_the_scene_is_not_found(
    observer: str, target: str, path: tuple[str]
) -> None:
    with pytest.raises(NotFound) as error:
        run_contest(scene_tavern(), observer, target)
    assert error.value.path == path


def test_DET_8_engine_dice_are_reproducible_from_the_seed() -> None:
    state = scene_tavern()
    action = ContestAction(kind="contest", observer="guard", target="assassin")
    first = contest_action(state, action, ctx(5))
    second = contest_action(state, action, ctx(5))
    assert first.rolls == second.rolls and first.state.visibility == second.state.visibility


def modifiers_of(ruling: Any) -> list[tuple[str, int]]:
    return [(s.data["side"], s.data["dp"]) for s in ruling.log if s.rule == "DET-9"]


def test_DET_9_the_scene_and_last_turn_feed_the_modifiers() -> None:
    loud = ASSASSIN.model_copy(
        update={
            "last_turn": ASSASSIN.last_turn.model_copy(update={"attacked": True, "made_sound": True}),
            "unusual_smell": True,
        }
    )
    guard = GUARD.model_copy(update={"approximate_range": 10.0, "sensory_range": 1.0})
    state = world({"guard": (guard, 0), "assassin": (loud, 2)}, noisy=True)
    ruling = contest_action(state, ContestAction(kind="contest", observer="guard", target="assassin"), ctx())
    # 2 squares = 3 m: within approximate range 10, not sensory range 1; the guard, a human, has a
    # nose though smell is none of its means of detection
    assert modifiers_of(ruling) == [
        ("hider", 10),
        ("observer", -2),
        ("observer", 2),
        ("observer", 2),
        ("observer", 2),
        ("observer", 1),
    ]


def test_DET_9_the_unusual_smell_bonus_needs_a_nose_a_human_has_one() -> None:
    """'If the detecting side has no sense of smell, this bonus doesn't apply': a human smells; a
    creature smells only with a means of smell of its own (the dog's scent, not the sentry's eyes)."""
    smelly = ASSASSIN.model_copy(update={"unusual_smell": True})
    sentry = actor(humanoid=False, attributes={"PER": 3}, detection=[{"name": "eyes", "sense": "sight"}])
    hound = actor(
        humanoid=False,
        detection=[
            {"name": "sight", "sense": "sight"},
            {"name": "scent", "sense": "smell", "rank": "D", "capability": "approximate", "range": 12},
        ],
    )
    for observer, smells in ((GUARD, True), (sentry, False), (hound, True)):
        state = world({"o": (observer, 0), "assassin": (smelly, 2)})
        ruling = contest_action(state, ContestAction(kind="contest", observer="o", target="assassin"), ctx())
        assert (("observer", 2) in modifiers_of(ruling)) is smells, observer


def test_DET_9_HEALTH_7_the_wound_penalty_takes_dice_from_either_side() -> None:
    """The optional wound penalty is 'DP on all rolls': the contest's too (derived onto each actor as
    `woundPenalty`, 0 while the rule is off)."""
    hurt_guard = GUARD.model_copy(update={"wound_penalty": 2})
    hurt_assassin = ASSASSIN.model_copy(update={"wound_penalty": 1})
    state = world({"guard": (hurt_guard, 0), "assassin": (hurt_assassin, 2)})
    ruling = contest_action(state, ContestAction(kind="contest", observer="guard", target="assassin"), ctx())
    assert modifiers_of(ruling) == [("hider", 10), ("observer", -2), ("hider", -1)]
    pools = next(
        step.data for step in ruling.log if step.rule == "DET-8" and step.data and "observerPool" in step.data
    )
    assert pools["observerPool"] == 3 + 2 - 2 and pools["hiderPool"] == 2 + 1 + 10 - 1


def test_DET_9_a_deafened_observer_gets_no_hearing_modifiers_but_moving_fast_still_counts() -> None:
    fast = ASSASSIN.model_copy(
        update={
            "last_turn": ASSASSIN.last_turn.model_copy(
                update={"made_sound": True, "moved_over_half_speed": True}
            )
        }
    )
    deaf = GUARD.model_copy(update={"conditions": {"deafened": True}})
    state = world({"guard": (deaf, 0), "assassin": (fast, 2)}, noisy=True)
    ruling = contest_action(state, ContestAction(kind="contest", observer="guard", target="assassin"), ctx())
    assert modifiers_of(ruling) == [("hider", 10), ("observer", 2)]


def test_DET_9_a_hider_already_located_approximately_gets_no_invisibility_bonus() -> None:
    state = world({"dog": (DOG, 0), "assassin": (ASSASSIN, 2)})
    assert state.visibility["dog"]["assassin"] is A
    ruling = contest_action(state, ContestAction(kind="contest", observer="dog", target="assassin"), ctx())
    assert ("hider", 10) not in modifiers_of(ruling)
